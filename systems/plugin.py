"""``install`` / ``uninstall``: add rtsnav's processors to the current esper world, in one order."""

from __future__ import annotations

import esper

from .flocking import FlockingProcessor
from .flow_steering import FlowSteeringProcessor
from .movement import MovementProcessor
from .navigation import Navigation
from .path_follow import PathFollowProcessor
from .path_request import PathRequestProcessor
from .registry import AgentRegistryProcessor

__all__ = ["install", "uninstall", "PROCESSOR_ORDER", "installed_processors"]

#: Every rtsnav processor and its priority offset, in run order (esper runs higher first).
#: Registry first (new entities become agents), then planning, path following, group steering
#: (flow fields, leader corridors), flocking and wall avoidance on top of those velocities, and
#: movement last, so positions written this tick are the ones everyone reads next tick.
PROCESSOR_ORDER: tuple[tuple[type[esper.Processor], int], ...] = (
    (AgentRegistryProcessor, 60),
    (PathRequestProcessor, 50),
    (PathFollowProcessor, 40),
    (FlowSteeringProcessor, 30),
    (FlockingProcessor, 20),
    (MovementProcessor, 10),
)


def install(navigation: Navigation, *, priority_base: int = 0) -> tuple[esper.Processor, ...]:
    """Add all rtsnav processors to the *current* esper world; returns them in run order.

    Args:
        navigation: the level's ``Navigation`` (one per world).
        priority_base: added to every priority in ``PROCESSOR_ORDER``, to place rtsnav among the
            game's own processors (esper runs higher priorities first).

    Installing into a world that already has rtsnav replaces the previous installation.
    """
    if not isinstance(navigation, Navigation):
        raise TypeError(f"install() needs a systems.Navigation, got {type(navigation).__name__}")
    uninstall()
    handles = []
    for cls, offset in PROCESSOR_ORDER:
        proc = cls(navigation)
        esper.add_processor(proc, priority=priority_base + offset)
        handles.append(proc)
    return tuple(handles)


def uninstall() -> Navigation | None:
    """Remove rtsnav's processors from the current esper world; returns the ``Navigation`` they
    served (or None if none were installed). Entities and components are left untouched."""
    navigation = None
    for cls, _ in PROCESSOR_ORDER:
        proc = esper.get_processor(cls)
        if proc is not None:
            navigation = proc.navigation
            esper.remove_processor(cls)
    return navigation


def installed_processors() -> tuple[esper.Processor, ...]:
    """rtsnav's processors in the current world, in run order."""
    return tuple(p for p in (esper.get_processor(cls) for cls, _ in PROCESSOR_ORDER) if p is not None)
