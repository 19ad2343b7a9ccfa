"""``install`` / ``uninstall``: add rtsnav's processors to the current esper world, in one order."""

from __future__ import annotations

from collections.abc import Callable

import esper

from rtsnav.components import NavigationAgent, Position, Velocity

from .base import NavProcessor
from .binding import ComponentBinding
from .bound_sync import BoundReadProcessor, BoundWriteProcessor
from .crowd_step import CrowdProcessor
from .navigation import Navigation
from .obstacles import ObstacleProcessor
from .registry import AgentRegistryProcessor

__all__ = ["install", "uninstall", "PROCESSOR_ORDER", "installed_processors"]

#: Every rtsnav processor and its priority offset, in run order (esper runs higher first).
#: Registry first (new entities become crowd agents), the game's own components in, the
#: obstacles where their entities stand (and the cells they carve), one crowd
#: update (orders, plans, following, groups, flocking, movement, progress watch, events), and
#: the game's components out.
PROCESSOR_ORDER: tuple[tuple[type[NavProcessor], int], ...] = (
    (AgentRegistryProcessor, 60),
    (BoundReadProcessor, 55),             # no-op without a binding
    (ObstacleProcessor, 45),              # no-op without NavigationObstacle entities
    (CrowdProcessor, 30),
    (BoundWriteProcessor, 5),             # no-op without a binding
)

_DEFAULT = object()


def install(navigation: Navigation, *, priority_base: int = 0, position: type = Position,
            velocity: type | None | object = _DEFAULT, position_fields: tuple[str, ...] = ("x", "y", "z"),
            velocity_fields: tuple[str, ...] = ("x", "y", "z"), movement: str = "rtsnav",
            prepare: bool = True, methods=None,
            progress: Callable[[str, int, int], None] | None = None,
            navigation_layers: tuple[int, ...] | list[int] = ()) -> tuple[esper.Processor, ...]:
    """Add all rtsnav processors to the *current* esper world; returns them in run order.

    Args:
        navigation: the level's ``Navigation`` (one per world).
        priority_base: added to every priority in ``PROCESSOR_ORDER``, to place rtsnav among the
            game's own processors (esper runs higher priorities first).
        position: the component class holding an agent's position: rtsnav's ``Position`` (the
            fast, array-backed default) or the game's own (read every tick; see ``systems.binding``).
        velocity: the game's velocity class (default: rtsnav's ``Velocity`` with rtsnav's
            ``Position``, none with a game position class), or None.
        position_fields / velocity_fields: attribute names of x, y (and z) on those classes.
        movement: ``"rtsnav"`` — rtsnav moves the bodies (positions written back); ``"game"`` —
            Godot's flow: rtsnav computes the safe velocity (wall sliding applied) and reports it
            through ``velocity_computed`` and the velocity component; the game moves its bodies.
        prepare: run ``navigation.prepare(methods, progress)`` now (kernels compiled, bakes made
            or loaded), so no tick pays for it. Pass False to do it yourself later.
        methods / progress / navigation_layers: passed to ``prepare`` (``navigation_layers``: the
            agents' layer masks on a grid with ``Grid.set_layers``, whose structures it bakes too).

    Installing into a world that already has rtsnav replaces the previous installation.
    """
    if not isinstance(navigation, Navigation):
        raise TypeError(f"install() needs a rtsnav.systems.Navigation, got {type(navigation).__name__}")
    if isinstance(priority_base, bool) or not isinstance(priority_base, int):
        raise TypeError(f"install(priority_base=...) must be an int, got {priority_base!r}")
    if not isinstance(prepare, bool):
        raise TypeError(f"install(prepare=...) must be True or False, got {prepare!r}")
    if movement not in ("rtsnav", "game"):
        raise ValueError(f"install(movement=...) must be 'rtsnav' or 'game', got {movement!r}")
    if not isinstance(position, type):
        raise TypeError(f"install(position=...) must be a component class, got {position!r}")
    if velocity is _DEFAULT:
        velocity = Velocity if position is Position else None
    if velocity is not None and not isinstance(velocity, type):
        raise TypeError(f"install(velocity=...) must be a component class or None, got {velocity!r}")
    navigation.binding = ComponentBinding(position, velocity, _fields_of(position, position_fields, "position_fields"),
                                          _fields_of(velocity, velocity_fields, "velocity_fields"))
    navigation.movement = movement
    if prepare:
        navigation.prepare(methods, progress, navigation_layers=navigation_layers)
    uninstall()
    NavigationAgent.locate = _locate_unregistered
    handles = []
    for cls, offset in PROCESSOR_ORDER:
        proc = cls(navigation)
        esper.add_processor(proc, priority=priority_base + offset)
        handles.append(proc)
    return tuple(handles)


def _fields_of(cls: type | None, fields: tuple[str, ...], name: str) -> tuple[str, ...]:
    """``fields``, without a trailing ``z`` the class does not declare (a 2D game's ``x, y``)."""
    if isinstance(fields, str) or not isinstance(fields, (tuple, list)):
        raise TypeError(f"install({name}=...) must be a tuple of 2 or 3 attribute names, got {fields!r}")
    fields = tuple(fields)
    if cls is None or len(fields) != 3:
        return fields
    declared: set[str] = set()
    for klass in cls.__mro__:
        declared.update(getattr(klass, "__annotations__", {}))
        slots = getattr(klass, "__slots__", ())
        declared.update([slots] if isinstance(slots, str) else slots)
        declared.update(name for name, value in vars(klass).items() if isinstance(value, property))
    if fields[2] not in declared and fields[0] in declared:
        return fields[:2]
    return fields


def _locate_unregistered(agent: NavigationAgent) -> tuple[float, float, float] | None:
    """Where an agent stands that the registry has not met yet (made since the last tick): its
    entity's position in the current world, through the installed binding (one scan of the
    agents, only for such an agent)."""
    registry = esper.get_processor(AgentRegistryProcessor)
    if not isinstance(registry, NavProcessor):
        return None
    for entity, candidate in esper.get_component(NavigationAgent):
        if candidate is agent:
            found = registry.navigation.binding.entity_position(entity)
            return None if found is None else found[1]
    return None


def uninstall() -> Navigation | None:
    """Remove rtsnav's processors from the current esper world; returns the ``Navigation`` they
    served (or None if none were installed). Entities and components are left untouched."""
    navigation = None
    for cls, _ in PROCESSOR_ORDER:
        proc = esper.get_processor(cls)
        if isinstance(proc, NavProcessor):
            navigation = proc.navigation
            esper.remove_processor(cls)
    return navigation


def installed_processors() -> tuple[esper.Processor, ...]:
    """rtsnav's processors in the current world, in run order."""
    return tuple(p for p in (esper.get_processor(cls) for cls, _ in PROCESSOR_ORDER) if p is not None)
