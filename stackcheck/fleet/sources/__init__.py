"""Where node snapshots come from: one implementation per module."""

from stackcheck.fleet.sources.base import Answer, NoAnswer, NodeResult, NodeSource

__all__ = ["Answer", "NoAnswer", "NodeResult", "NodeSource"]
