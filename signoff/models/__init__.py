"""Models: what the loop asks to choose the next tool call or hand back a result."""

from signoff.models.base import (
    Message,
    Model,
    ModelRequestsRefused,
    Price,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    model_requests_allowed,
    refuse_model_requests,
)

__all__ = [
    "Message",
    "Model",
    "ModelRequestsRefused",
    "Price",
    "Reply",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "model_requests_allowed",
    "refuse_model_requests",
]
