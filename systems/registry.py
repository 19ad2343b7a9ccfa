"""``AgentRegistryProcessor``: keeps the crowd's agents in step with the esper world."""

from __future__ import annotations

import esper

from rtsnav.components import Flock, NavigationAgent, Position, Velocity

from .base import NavProcessor
from .registration import register, shared_with, unregister, wanted_components, warn_shared, warn_unreadable


class AgentRegistryProcessor(NavProcessor):
    """Entities that gained a ``NavigationAgent`` (and a position rtsnav can read — its own
    ``Position`` or the game's bound one) become crowd agents, their components views onto the
    agent's row; deleted or stripped entities leave. An entity with a ``NavigationAgent`` but no
    readable position gets one ``RuntimeWarning``.

    esper hands out the same cached query list until anything in the world changes, so a quiet
    tick costs one identity check. After a change, new entities (esper appends them to its
    entity table) and deleted ones (found by bisecting the old and new query lists, which keep
    their order when entities only leave) are handled at once, in time proportional to the
    change; the rest — a component replaced on an agent, a ``NavigationAgent`` added to an old
    entity — is found by a sweep over the agents, ``SWEEP_PER_TICK`` a tick (all at once when
    esper's tables cannot be read directly, or the game binds its own components)."""

    #: Agents the sweep after a change checks per tick: 0.4-1 µs each (cold caches in a busy
    #: tick), so ~1.5 ms; at 100,000 agents a replaced component is rebound within ~2 s.
    SWEEP_PER_TICK = 1_500
    #: Entries of esper's previous query list let go per tick: freeing 100,000 (entity, agent)
    #: tuples at once is a 3 ms stall, so the old list is emptied in slices.
    FREE_PER_TICK = 10_000

    def __init__(self, navigation) -> None:
        super().__init__(navigation)
        self._seen: list | None = None
        self._sweep: _Sweep | None = None
        self._table: dict | None = None                # esper's entity table when last read
        self._newest = 0                               # the newest entity id registered from it
        self._old_lists: list[list] = []               # esper's previous query lists, freed in slices
        self.warned: set[int] = set()

    def update(self, dt: float) -> None:
        current = esper.get_component(NavigationAgent)
        if current is not self._seen:
            before, self._seen = self._seen, current
            quick = self.navigation.binding.is_default and self._quick_changes(before, current)
            if not quick or self._sweep is None:
                self._sweep = _Sweep(current, whole=True)
            else:
                self._sweep.follow(current)
            self._sweep.budget = self.SWEEP_PER_TICK if quick else len(current)
            if before is not None and len(before) > self.FREE_PER_TICK:
                self._old_lists.append(before)
            if quick and len(current) > self.SWEEP_PER_TICK:
                return                           # the change's own tick pays only for the change
        if self._sweep is not None and self._sweep.step(self):
            self._sweep = None
        if self._old_lists:
            del self._old_lists[-1][-self.FREE_PER_TICK:]
            if not self._old_lists[-1]:
                self._old_lists.pop()

    def _quick_changes(self, before: list | None, current: list) -> bool:
        """Register new entities and drop deleted ones in time proportional to the change;
        False when esper's tables say something this cannot follow (a cleared or switched world)."""
        table = getattr(esper, "_entities", None)
        if not isinstance(table, dict) or before is None or table is not self._table:
            self._table, self._newest = table, max(table, default=0) if isinstance(table, dict) else 0
            return False
        nav = self.navigation
        if next_entity_id() <= self._newest:
            self._newest = max(table, default=0)
            return False                               # ids went back: the world was cleared
        newest = self._newest
        added = 0
        for entity in reversed(table):                 # esper appends new entities to its table
            if entity <= self._newest:
                break
            newest = max(newest, entity)
            agent = table[entity].get(NavigationAgent)
            if agent is not None:
                added += 1
                if entity not in nav.id_of:
                    self.admit(entity, agent)
        self._newest = newest
        gone = len(before) - (len(current) - added)    # old entries no longer in the list
        if gone > 0:
            for entity in _left(before, current, gone, table):
                if entity in nav.id_of:
                    unregister(nav, entity)
                    if self._sweep is not None:
                        self._sweep.met.discard(entity)
        return True

    def sweep_again(self, entries: list, budget: int) -> None:
        """Walk ``entries`` once more from the start, ``budget`` entities a tick (changes came
        during the last walk)."""
        self._sweep = _Sweep(entries, whole=True)
        self._sweep.budget = budget

    def admit(self, entity: int, agent) -> bool:
        """Register or rebind ``entity``; False (and one warning) when its position is unreadable."""
        parts = wanted_components(self.navigation, entity, agent)
        if parts is None:
            warn_unreadable(self, entity)
            return False
        shared = shared_with(self.navigation, entity, parts)
        if shared is not None:
            warn_shared(self, entity, shared)
            return False
        register(self.navigation, entity, parts)
        return True


class _Sweep:
    """A walk over esper's query list checking each agent's bound components, a budget a tick.
    A whole walk over one list ends by dropping registered entities it did not meet."""

    def __init__(self, entries: list, whole: bool) -> None:
        self.entries, self.whole, self.at = entries, whole, 0
        self.met: set[int] = set()
        self.budget = len(entries)

    def follow(self, entries: list) -> None:
        """The world changed mid-walk: go on over the new list (this walk no longer proves who left)."""
        self.entries, self.whole = entries, False

    def step(self, registry: AgentRegistryProcessor) -> bool:
        """Check up to ``budget`` entries; True when the walk is over."""
        nav = registry.navigation
        end = min(len(self.entries), self.at + max(1, self.budget))
        met = self.met
        table = getattr(esper, "_entities", None)
        if nav.binding.is_default and isinstance(table, dict):
            # the bound components compared by identity, esper's own table read directly (one
            # dict lookup a component, not ``try_component``): this loop is the sweep's whole cost
            id_of, components = nav.id_of, nav.components
            for entity, agent in self.entries[self.at:end]:
                agent_id = id_of.get(entity)
                if agent_id is not None:
                    bound = components[agent_id]
                    comps = table.get(entity)
                    if (comps is not None and bound[2] is agent and bound[0] is comps.get(Position)
                            and bound[1] is comps.get(Velocity) and bound[3] is comps.get(Flock)):
                        met.add(entity)
                        continue
                if registry.admit(entity, agent):
                    met.add(entity)
        else:
            for entity, agent in self.entries[self.at:end]:
                if registry.admit(entity, agent):
                    met.add(entity)
        self.at = end
        if self.at < len(self.entries):
            return False
        if not self.whole:                                 # changes came during the walk: once more
            registry.sweep_again(self.entries, self.budget)
            return False
        if len(met) < len(nav.id_of):                     # (met holds registered entities only)
            for entity in [e for e in nav.id_of if e not in met]:
                unregister(nav, entity)
        return True


def _left(before: list, current: list, gone: int, table: dict) -> list[int]:
    """Entities of ``before`` missing from ``current``: when entities only left, esper's set
    keeps the others' order, so each one is found by bisecting where the lists part
    (``gone`` × log n); otherwise (additions reordered the set) a set difference."""
    found: list[int] = []
    shift = 0
    lo = 0
    stayed = len(before) - gone          # the old entries lead ``current``; new entities follow
    while len(found) < gone:
        hi = min(stayed, len(current))
        while lo < hi:                                     # first index where the lists part
            mid = (lo + hi) // 2
            if before[mid + shift][0] == current[mid][0]:
                lo = mid + 1
            else:
                hi = mid
        if lo + shift >= len(before):
            break
        found.append(before[lo + shift][0])
        shift += 1
    # a wrong guess (the set was reordered) names an entity that is still an agent
    if len(found) == gone and all(e not in table or NavigationAgent not in table[e] for e in found):
        return found
    still = {e for e, _ in current}
    return [e for e, _ in before if e not in still]


def next_entity_id() -> int:
    """The id esper gives the next entity (its counter, read without advancing it); 0 unknown."""
    try:
        # esper has no public accessor for its counter; read it by name (a missing one reads 0)
        return int(repr(getattr(esper, "_entity_count"))[len("count("):-1])  # noqa: B009
    except (AttributeError, ValueError):
        return 0
