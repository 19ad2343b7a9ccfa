"""Binding one entity's components to a crowd row, and letting go of them (the registry's work)."""

from __future__ import annotations

import warnings

import esper
import numpy as np

from rtsnav.components import Flock, NavState, Position, Velocity

__all__ = ["wanted_components", "register", "unregister", "warn_unreadable", "shared_with", "warn_shared"]


def wanted_components(nav, entity: int, agent):
    """``(position, velocity, agent, flock, external)`` for ``entity``: the row components to
    bind, and the game's own components when they are bound (else None); None without a
    readable position."""
    binding = nav.binding
    flock = esper.try_component(entity, Flock)
    if binding.is_default:
        position = esper.try_component(entity, Position)
        if position is None:
            return None
        return position, esper.try_component(entity, Velocity), agent, flock, None
    found = binding.entity_position(entity)
    if found is None:
        return None
    theirs, (x, y, z) = found
    their_velocity = esper.try_component(entity, binding.velocity) if binding.velocity is not None else None
    agent_id = nav.id_of.get(entity)
    if agent_id is not None:                            # already mirrored: keep its private rows
        position, velocity = nav.components[agent_id][:2]
    else:
        position, velocity = Position(x, y, z), Velocity()
    return position, velocity, agent, flock, (theirs, their_velocity)


def register(nav, entity: int, parts) -> None:
    """Make ``entity`` an agent bound to ``parts``, or rebind the components that changed."""
    *components, external = parts
    crowd_state = nav.crowd.agents
    agent_id = nav.id_of.get(entity)
    if agent_id is None:
        agent_id = int(crowd_state.allocate(1)[0])
        nav.id_of[entity] = agent_id
        crowd_state.row_of[entity] = agent_id
        crowd_state.owner[agent_id] = entity
        old = (None,) * 4
    else:
        old = nav.components[agent_id]
    for before, now in zip(old, components):
        if before is not now:
            _let_go(before, crowd_state, agent_id)
            if now is not None:
                now.bind(crowd_state, agent_id)
    if components[2] is not old[2]:
        # a (re-)added NavigationAgent starts afresh: it plans toward its target from here,
        # whatever state it carried before (it used to come back FOLLOWING with no path)
        has_target = bool(crowd_state.has_target[agent_id])
        crowd_state.target_dirty[agent_id] = has_target
        crowd_state.nav_state[agent_id] = NavState.PLANNING if has_target else NavState.IDLE
        crowd_state.asked_x[agent_id] = np.nan           # no plan of its old self is kept
    if components[3] is None and old[3] is not None:
        crowd_state.flock_group[agent_id] = -1          # left its flock
    nav.components[agent_id] = tuple(components)
    if nav.external.get(agent_id) != external and (external is not None or agent_id in nav.external):
        if external is None:
            nav.external.pop(agent_id, None)
        else:
            nav.external[agent_id] = external
        nav.external_changed()


def unregister(nav, entity: int) -> None:
    """``entity`` left: its components get their values back, its crowd row is freed."""
    agent_id = nav.id_of.pop(entity)
    nav.crowd.agents.row_of.pop(entity, None)
    for component in nav.components.pop(agent_id):
        _let_go(component, nav.crowd.agents, agent_id)
    if nav.external.pop(agent_id, None) is not None:
        nav.external_changed()
    nav.crowd.remove([agent_id])


def _let_go(component, store, row: int) -> None:
    """Give ``component`` its values back if it still reads ``store``'s ``row``: a component the
    game moved to another world's entity (or to another unit) before this registry saw it leave
    is bound there now, and unbinding it here detached it from the unit it now belongs to."""
    if component is not None and component.bound_to(store) and component.row == row:
        component.unbind()


def warn_unreadable(processor, entity: int) -> None:
    """One ``RuntimeWarning`` per entity that has a ``NavigationAgent`` but no readable position."""
    binding = processor.navigation.binding
    wanted = binding.position.__name__
    if not binding.is_default:
        wanted += f" with attributes {binding.position_fields}"
    _warn_once(processor, entity, f"entity {entity} has a NavigationAgent but no {wanted} component rtsnav can "
               "read; it is ignored until it gets one")


def shared_with(nav, entity: int, parts) -> tuple[str, int] | None:
    """``(component name, other entity)`` when one of ``entity``'s ``Position``, ``Velocity`` or
    ``NavigationAgent`` is the very object another registered entity is bound to (one component
    object on two entities: binding it here would take it from the other, whose unit would then
    walk on with nobody able to steer it); else None. A shared ``Flock`` is fine: it only names
    the group and its weights."""
    store = nav.crowd.agents
    mine = nav.id_of.get(entity)
    for component in parts[:3]:
        if component is not None and component.bound_to(store) and component.row != mine:
            owner = int(store.owner[component.row])
            # the owner still holding it (one moved to this entity this frame is not shared)
            if (owner != entity and nav.id_of.get(owner) == component.row
                    and esper.try_component(owner, type(component)) is component):
                return type(component).__name__, owner
    return None


def warn_shared(processor, entity: int, shared: tuple[str, int]) -> None:
    """One ``RuntimeWarning`` per entity refused by ``shared_with``."""
    name, owner = shared
    _warn_once(processor, entity, f"entity {entity}'s {name} is the same object as entity {owner}'s: a component "
               f"belongs to one entity (make one {name} per entity); entity {entity} is ignored until it has its own")


def _warn_once(processor, entity: int, message: str) -> None:
    """A ``RuntimeWarning`` about ``entity`` unless the registry warned about it already (an
    ignored entity is met again every sweep), pointing at the registry's caller."""
    if entity in processor.warned:
        return
    processor.warned.add(entity)
    warnings.warn(message, RuntimeWarning, stacklevel=4)
