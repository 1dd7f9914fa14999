"""Runners: where steps run. In-process by default; on Temporal (`Temporal`) to scale out."""

from signoff.engine.temporal import Temporal
from signoff.engine.worker import Worker

__all__ = ["Temporal", "Worker"]
