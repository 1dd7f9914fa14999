"""Runners: where steps run. In-process by default."""

from signoff.engine.worker import Worker

__all__ = ["Worker"]
