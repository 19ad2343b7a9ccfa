"""Flow fields: integration (cost-to-goal) fields, direction fields, line of sight, sector tiles."""

from .field import FlowField

__all__ = ["FlowField"]
