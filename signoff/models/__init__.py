"""Models: what the loop asks to choose the next tool call or hand back a result.

The real providers (`OpenAIModel`, `OpenAICompatibleModel`, `AnthropicModel`) import their SDKs
only when one is made, so importing this package costs nothing extra.
"""

from signoff.models.anthropic import AnthropicModel
from signoff.models.base import (
    Message,
    Model,
    ModelRequestsRefused,
    Price,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    allow_model_requests,
    model_requests_allowed,
    refuse_model_requests,
)
from signoff.models.choose import PROVIDERS, model_from
from signoff.models.errors import (
    ModelBadResponse,
    ModelCredentialsRefused,
    ModelError,
    ModelNotConfigured,
    ModelRateLimited,
    ModelRequestRejected,
    ModelTimeout,
    ModelUnavailable,
)
from signoff.models.openai_compatible import OpenAICompatibleModel, OpenAIModel
from signoff.models.prices import PRICES, PRICES_AS_OF, price_of
from signoff.models.retries import Retries

__all__ = [
    "PRICES",
    "PRICES_AS_OF",
    "PROVIDERS",
    "AnthropicModel",
    "Message",
    "Model",
    "ModelBadResponse",
    "ModelCredentialsRefused",
    "ModelError",
    "ModelNotConfigured",
    "ModelRateLimited",
    "ModelRequestRejected",
    "ModelRequestsRefused",
    "ModelTimeout",
    "ModelUnavailable",
    "OpenAICompatibleModel",
    "OpenAIModel",
    "Price",
    "Reply",
    "Retries",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "allow_model_requests",
    "model_from",
    "model_requests_allowed",
    "price_of",
    "refuse_model_requests",
]
