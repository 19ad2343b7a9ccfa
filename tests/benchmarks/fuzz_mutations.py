"""Each fuzz property can fail: break the code one way per property test, run that test, expect it
to fail, put the code back.

    python tests/benchmarks/fuzz_mutations.py            # every mutation (a few minutes)
    python tests/benchmarks/fuzz_mutations.py grids      # those whose test name holds "grids"

A mutation removes a check or moves a bound the property guards (the table says which). It is
applied to the working tree and reverted in a ``finally`` (the script refuses to start when a
file it would touch has uncommitted changes). Prints a table; writes
``bench-results/fuzz_mutations.json``. Exit status 1 when a mutation survives (its test passed). Run it under ``ulimit -v 8000000``:
the spatial-hash row's mutation asks for billions of buckets, which should end in a MemoryError,
not in the kernel's out-of-memory killer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (test, file, text the code has, text it gets, what that breaks)
MUTATIONS: list[tuple[str, str, str, str, str]] = [
    ("test_fuzz.py::test_mutated_map_files", "levels/movingai.py",
     "        if len(row) != width:", "        if False:", "rows of the wrong width are read"),
    ("test_fuzz.py::test_mutated_scenario_files", "levels/movingai.py",
     "        if not math.isfinite(optimal) or optimal < 0:", "        if False:", "a NaN / negative optimal is taken"),
    ("test_fuzz.py::test_mutated_level_files", "levels/level_file.py",
     "    known_keys(table, known, where, error=lambda message: error(line, message))", "    pass",
     "unknown keys in level files are taken"),
    ("test_fuzz.py::test_random_orders_files", "game/script.py",
     '            check_keys(lambda _line, message, bad=bad: bad(message), line, "", table, _KEYS[kind])',
     "            pass", "unknown keys in orders files are taken"),
    ("test_fuzz.py::test_random_find_path_calls", "systems/nav/search/facade.py",
     "goal_bounds=goal_bounds, backtrack=backtrack, pocket_rule=pocket_rule).run()",
     "goal_bounds=goal_bounds, backtrack=backtrack, pocket_rule=bool(pocket_rule)).run()",
     "a truthy non-bool pocket_rule is taken"),
    ("test_fuzz.py::test_random_structure_calls", "systems/nav/grid.py",
     "        if not self.in_bounds(x, y):\n            raise NavError(f\"{what} (x={x}",
     "        if False:\n            raise NavError(f\"{what} (x={x}", "cells off the grid pass check_cell"),
    ("test_fuzz.py::test_random_grids", "systems/nav/grid.py",
     "            low = (cost_arr < 1.0) & passable", "            low = (cost_arr < 0.0) & passable",
     "costs below 1 are taken"),
    ("test_fuzz.py::test_random_levels_command_lines", "levels/cli.py",
     '        print(f"error: {message}", file=sys.stderr)', "        print(message, file=sys.stderr)",
     "CLI errors lose their 'error:'"),
    ("test_fuzz.py::test_random_crowd_calls", "systems/nav/crowd/agent_checks.py",
     '    seconds = checks.number(dt, "dt (seconds)", low=0.0, error=NavError)', "    seconds = dt",
     "update(dt) takes any dt"),
    ("test_fuzz.py::test_random_godot_member_calls", "components/navigation.py",
     '        self._store.agent_params[self._row, index] = number(value, f"NavigationAgent.{name}", low=minimum,',
     '        self._store.agent_params[self._row, index] = float(value) if False else number(value, "", low=minimum,',
     "an agent setting's error no longer names it"),
    ("test_fuzz.py::test_random_navigation_layers", "systems/nav/grid_layers.py",
     "    if isinstance(layers, bool) or not isinstance(layers, (int, np.integer)) or not 0 <= layers < 2 ** 32:",
     "    if isinstance(layers, bool):", "layer masks out of 32 bits reach numpy"),
    ("test_fuzz_surface.py::test_random_component_fields", "components/rows.py",
     "            if isinstance(value, (bool, np.bool_, str, bytes)):", "            if False:",
     "a bool or text is taken as a coordinate"),
    ("test_fuzz.py::test_random_hierarchy_calls", "systems/nav/waypoints/hierarchy.py",
     "            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:",
     "            if False:", "any level count / cluster size is taken"),
    ("test_fuzz.py::test_random_triangle_soups", "systems/nav/navmesh/build.py",
     "    out = (t < 0) | (t >= len(v))", "    out = (t < 0) & (t >= len(v))", "triangle indexes out of range are taken"),
    ("test_fuzz.py::test_random_layered_navmesh_calls", "systems/nav/navmesh/layered.py",
     '            cell_size = checks.number(cell_size, "cell_size", low=0.0, low_open=True, error=NavError)',
     "            cell_size = float(cell_size)", "footprint takes any cell size"),
    ("test_fuzz.py::test_random_demo_command_lines", "game/__main__.py",
     'ap.add_argument("--units", type=positive_int,', 'ap.add_argument("--units", type=int,',
     "the demo takes --units 0 / -3"),
    ("test_fuzz_surface.py::test_random_grid_edits", "rtsnav/checks.py",
     "        whole = np.isfinite(arr) & (arr == np.floor(arr)) if arr.size else np.ones(arr.shape, dtype=bool)",
     "        whole = np.isfinite(arr) if arr.size else np.ones(arr.shape, dtype=bool)",
     "fractional cells are truncated"),
    ("test_fuzz_surface.py::test_random_waypoint_graphs", "systems/nav/waypoints/graph.py",
     "        if not clear.all():", "        if False:", "edges across walls are taken"),
    ("test_fuzz_surface.py::test_random_navmesh_from_grid", "systems/nav/navmesh/mesh_types.py",
     '("agent_radius", 0 <= self.agent_radius <= 1e3 * self.cell_size,',
     '("agent_radius", -1 <= self.agent_radius <= 1e3 * self.cell_size,', "a negative agent radius is taken"),
    ("test_fuzz_surface.py::test_random_crowd_calls_of_every_kind", "systems/nav/crowd/crowd.py",
     'self.agents.paused[agent_ids(self.agents, ids)] = checks.flag(paused, "paused", error=NavError)',
     "self.agents.paused[agent_ids(self.agents, ids)] = bool(paused)", "pause takes a truthy non-bool"),
    ("test_fuzz_surface.py::test_random_component_fields", "components/rows.py",
     '= flag(value, f"{type(self).__name__}.{field.field_name}")', "= bool(value)",
     "a component's bool field takes 'no' as True"),
    ("test_fuzz_surface.py::test_random_component_fields", "components/obstacle.py",
     "        check = _CHECKS.get(name)", "        check = None", "obstacle fields set after construction go unchecked"),
    ("test_fuzz_surface.py::test_random_other_command_lines", "levels/cli.py",
     "        if not low <= value <= high:", "        if False:", "--agents / --units out of range are taken"),
    ("test_fuzz_surface.py::test_forged_caches", "systems/nav/bake_cache.py",
     "        except (NavError, KeyError, ValueError, IndexError, TypeError) as e:",
     "        except (KeyError, IndexError, TypeError) as e:",               # (NavError is a ValueError)
     "a cache the checks refuse stops the load instead of being rebaked"),
    ("test_fuzz_methods.py::test_every_method_on_each_odd_argument", "systems/nav/grid.py",
     '        a = np.ascontiguousarray(checks.points(starts, "starts", error=NavError)[:, :2])',
     "        a = np.ascontiguousarray(np.asarray(starts, dtype=np.float64)[:, :2])",
     "segments_clear takes any starts (raw numpy errors)"),
    ("test_fuzz_methods.py::test_every_public_method_has_a_call", "systems/nav/flow/field.py",
     "    def descend(self, start: Sequence[int], max_steps: int | None = None) -> np.ndarray:",
     '    def rise(self) -> None:\n        """A new public method with no fuzz call."""\n\n'
     "    def descend(self, start: Sequence[int], max_steps: int | None = None) -> np.ndarray:",
     "a new public method without a fuzz call"),
    ("test_fuzz_scenes.py::test_random_crowd_scenes_keep_their_promises", "systems/nav/crowd/groups.py",
     "        if s.unreachable:                 # a unit sent to the closest point of an unreachable target walks",
     "        if False:", "units sent to the closest point join their group's order off the map"),
    ("test_fuzz_scenes.py::test_random_crowd_scenes_keep_their_promises", "systems/nav/steering/lanes.py",
     "    if hurried:\n", "    if False:\n",
     "a unit without progress moves over for lanes for good (stands silent at a passage's corner)"),
    ("test_fuzz_scenes.py::test_random_esper_scenes_keep_their_promises", "systems/crowd_step.py",
     "    signals += [(events.STUCK, i, ()) for i in ev.stuck.tolist()]", "    pass",
     "the plugin drops the crowd's stuck events (a stuck unit is silent to the game)"),
    ("test_fuzz_edits.py::test_a_dstar_search_follows_every_edit", "systems/nav/search/dstar_lite.py",
     "            if not grid.passable[y, x]:", "            if False:",
     "D* Lite at its goal on a new wall answers found"),
    ("test_fuzz_edits.py::test_a_hierarchy_kept_current_answers_near_the_shortest", "systems/nav/waypoints/hierarchy.py",
     "            if are_near(s, g, self.sizes[0]):", "            if False:",
     "near pairs across a cluster border detour through its transition"),
    ("test_fuzz_edits.py::test_a_waypoint_graph_never_crosses_a_new_wall", "systems/nav/waypoints/graph.py",
     "        if grid.version == self._seen_version:", "        if True:",
     "a waypoint graph keeps edges a new wall crosses"),
    ("test_fuzz_edits.py::test_a_flow_field_descent_never_steps_into_a_new_wall", "systems/nav/flow/field.py",
     "                break                                        # a wall put up since the build",
     "                pass", "a flow field's descent steps into walls put up after its build"),
    # in the kernel's own file: numba's cache of a kernel does not notice a change in a callee's file
    ("test_fuzz_scenes.py::test_random_crowd_scenes_keep_their_promises_with_any_settings",
     "systems/nav/steering/orca.py",
     "    bucket = fitted_side(position[:, :2], present, neighbour_distance)",
     "    bucket = neighbour_distance",
     "ORCA's spatial hash takes a tiny neighbour distance as its bucket side (billions of buckets)"),
    ("test_fuzz_scenes.py::test_random_crowd_scenes_keep_their_promises_with_any_settings",
     "systems/nav/crowd/progress.py", "            if unplanned_for[a] >= stuck_after:",
     "            if unplanned_for[a] >= 1e300:", "units waiting for their plans are not reported (silent)"),
    ("test_fuzz_scenes.py::test_random_handler_scenes_keep_their_promises", "systems/crowd_step.py",
     "            if id_of.get(entity) == agent and exists(entity):", "            if True:",
     "events go to entities a handler deleted (or for agents a nested process dropped)"),
    ("test_hardening_scenes.py::test_units_dying_and_born_in_one_frame_keep_the_registry_in_step", "systems/registry.py",
     "        hi = min(stayed, len(current))", "        hi = len(current)",
     "the registry bisects past its old list when units die and are born in one frame"),
    ("test_fuzz_surface.py::test_random_steering_input_calls", "systems/nav/crowd/steering_inputs.py",
     "        pos = checks.points(positions, \"obstacle positions\", error=NavError)",
     "        pos = np.asarray(positions, dtype=np.float64).reshape(len(ids), -1)",
     "obstacles are put at NaN or wherever a wrong shape lands"),
    ("test_fuzz_surface.py::test_the_fuzz_suite_reaches_every_public_name", "systems/nav/crowd/crowd.py",
     "    def pause(self, ids, paused: bool = True) -> None:",
     '    def halt(self, ids) -> None:\n        """Stop (a new public call with no fuzz case)."""\n        self.stop(ids)\n\n'
     "    def pause(self, ids, paused: bool = True) -> None:", "a new public crowd call without a fuzz case"),
    # ninth campaign: what games do with what they share (tests/test_hardening_games.py)
    ("test_hardening_games.py::test_threads_baking_one_cache_file_neither_tear_it_nor_call_the_folder_unwritable",
     "systems/nav/bake_cache.py", "{os.getpid()}.{threading.get_ident()}{suffix}", "{os.getpid()}{suffix}",
     "threads of one process bake into one temporary file"),
    ("test_hardening_games.py::test_a_crowd_copied_with_a_rebuild_in_flight_and_its_original_both_get_the_rebuild",
     "systems/nav/crowd/rebuild.py", "state.update(in_flight={}, _holding=None, ", "state.update(",
     "a copied crowd holds its original's rebuild tickets"),
    ("test_hardening_games.py::test_a_unit_moved_to_another_entity_keeps_its_components_live", "systems/registration.py",
     "    if component is not None and component.bound_to(store) and component.row == row:",
     "    if component is not None:", "the old world's registry detaches a unit moved to another world"),
    ("test_hardening_games.py::test_many_short_plans_keep_to_the_planning_budget", "systems/nav/crowd/planners.py",
     "                used += min(fixed, max(0, budget - used))", "                used += 0",
     "a plan's fixed cost is not charged to the budget"),
    ("test_hardening_games.py::test_units_given_the_target_they_stand_at_arrive_again_at_once",
     "systems/nav/crowd/retargets.py", "        return there\n", "        return there & False\n",
     "a unit ordered to where it stands plans (not finished meanwhile)"),
    ("test_hardening_games.py::test_values_given_one_per_agent_name_each_agent_once", "systems/nav/crowd/agent_checks.py",
     "    if len(ids) > 1 and len(np.unique(ids)) != len(ids):", "    if False:",
     "values given one per agent take the last of an agent named twice"),
    ("systems/test_path_requests.py::test_a_new_request_for_the_same_agent_keeps_its_place_in_line",
     "systems/nav/crowd/planners.py", "        self._jobs[key] = job                   # an existing key keeps its place",
     "        self._jobs.pop(key, None)\n        self._jobs[key] = job",
     "a unit asking again for a plan goes to the back of the line"),
    ("test_hardening_games.py::test_units_chasing_a_moving_target_all_chase_it", "systems/nav/crowd/orders.py",
     "        near = again.keep_their_plans(dirty) & ~np.isin(dirty, resized)",
     "        near = np.zeros(len(dirty), dtype=bool)", "a chaser re-targeted every frame stops and plans again"),
    ("test_hardening_variety.py::test_layer_masks_that_see_the_same_cells_share_one_derived_map",
     "systems/nav/grid_layers.py", "    return int(navigation_layers) & used\n", "    return int(navigation_layers)\n",
     "every layer mask gets its own copy of the map"),
    ("test_hardening_variety.py::test_units_in_a_dead_stop_give_way_and_all_arrive",
     "systems/nav/crowd/orders.py", "        self._give_way(dead[s.recoveries[dead] >= GIVE_WAY_AFTER])\n", "",
     "a knot in a dead stop never gives way"),
    ("test_hardening_ticks.py::test_an_unprepared_crowd_compiles_nothing_in_its_first_flow_field_ticks",
     "systems/nav/flow/sector_build.py", "            self._lists = tuple(typed_list(part) for part in parts)",
     "            self._lists = tuple(typed.List(part) for part in parts)", "sector fields' lists by typed.List"),
    ("test_hardening_ticks.py::test_units_of_one_order_sent_to_one_goal_share_one_search",
     "systems/nav/crowd/planning.py", "SHARE_GOAL_AFTER = 16\n", "SHARE_GOAL_AFTER = 10**9\n",
     "units of one order never share a search"),
    ("test_hardening_ticks.py::test_paths_read_from_one_goal_tree_smooth_as_each_alone_with_the_trunk_smoothed_once",
     "systems/nav/search/smoothing.py", "        if use_shared:\n            shared[here] = nxt - anchor\n", "",
     "a tree's paths each smoothed alone"),
    ("test_hardening_ticks.py::test_a_long_search_finishes_while_buildings_go_up_away_from_it",
     "systems/nav/search/sliced.py", "        if cells is None:\n            return False\n",
     "        if True:\n            return False\n", "every edit restarts a search"),
    ("test_hardening_ticks.py::test_a_search_goes_on_through_edits_away_from_it_and_stays_exact",
     "systems/nav/search/workspace.py", "    around = np.array([-wp - 1, -wp, -wp + 1, -1, 0, 1, wp - 1, wp, wp + 1], dtype=np.int64)",
     "    around = np.array([0], dtype=np.int64)", "an edit next to a reached cell is not seen"),
    ("test_hardening_ticks.py::test_shared_searches_keep_to_their_memory_bound", "systems/nav/crowd/planning.py",
     "        return live == 0 or (live + 1) *", "        return True or (live + 1) *", "shared searches unbounded"),
    ("test_hardening_cliffs.py::test_an_unprepared_crowd_bakes_its_structures_off_the_tick_and_caches_them",
     "systems/nav/crowd/planning.py", "                wanted_in_tick(level, kind)",
     "                getattr(level, kind)()", "an unprepared crowd bakes in the tick"),
    ("test_hardening_cliffs.py::test_live_dstar_searches_keep_to_their_memory_bound", "systems/nav/crowd/planning.py",
     "> DSTAR_BYTES_AT_MOST):", "> 2**62):", "D* Lite searches unbounded"),
    ("test_hardening_cliffs.py::test_a_big_max_searches_keeps_the_search_pool_to_its_memory_bound",
     "systems/nav/search/sliced.py", "max(1, self.BYTES_AT_MOST // (84 *", "max(1, 2**62 // (84 *",
     "the search pool unbounded"),
    ("test_hardening_cliffs.py::test_a_grid_plan_that_lives_through_blocking_edits_is_as_cheap_as_a_fresh_one",
     "systems/nav/crowd/planners.py",
     "        if self.smoother is not None and self.grid.version != self._found_on:\n            self._edited_while_smoothing()\n",
     "", "edits while a plan is smoothed are not seen"),
    ("test_hardening_cliffs.py::test_units_get_their_plans_while_buildings_go_up_every_few_ticks",
     "systems/nav/crowd/orders.py", "            moving[walking[self._ways_open(walking)]] = False\n", "",
     "walkers whose way is open plan again at every edit"),
    ("test_hardening_cliffs.py::test_wall_distances_and_passages_after_edits_equal_a_fresh_build",
     "systems/nav/crowd/passages.py", "    reach = int(math.ceil(float(old.max()))) + 1\n", "    reach = 2\n",
     "distances lowered round an edit in too small a window"),
    ("test_hardening_cliffs.py::test_wall_distances_and_passages_after_edits_equal_a_fresh_build",
     "systems/nav/crowd/motion.py", "                    m = int(MOUTH_CELLS)\n", "                    m = 1\n",
     "tight-place masks redone in too small a window"),
    ("test_hardening_cliffs.py::test_a_navmesh_query_from_where_the_exact_search_saw_no_way_still_finds_one",
     "systems/nav/navmesh/mesh.py", "            if found is not None or not self._reachable(ps)[pg]:",
     "            if True:", "the exact search's \"no way\" between connected polygons is taken"),
    ("systems/nav/test_flows_meet.py::test_a_unit_that_does_not_really_move_is_told_though_its_jostle_counted_as_progress",
     "systems/nav/crowd/progress.py", "                kinds[a] |= 16\n", "                pass\n",
     "no plain clock beside the progress measure"),
]


def run(test: str) -> tuple[bool, float]:
    """Run one test file::function; (passed, seconds)."""
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:randomly",
                           f"tests/{test}"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "RTSNAV_FUZZ_EXAMPLES": os.environ.get("RTSNAV_FUZZ_EXAMPLES", "60")})
    return done.returncode == 0, time.perf_counter() - t


def main(argv: list[str]) -> int:
    chosen = [m for m in MUTATIONS if not argv or any(a in m[0] for a in argv)]
    files = sorted({m[1] for m in chosen})
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *files], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    if dirty:
        print(f"uncommitted changes in files a mutation touches; commit first:\n{dirty}", file=sys.stderr)
        return 2
    rows, survived = [], 0
    print(f"{'test':<62}{'mutation':<52}{'result':>10}{'s':>6}")
    for test, file, old, new, what in chosen:
        path = ROOT / file
        original = path.read_text()
        if original.count(old) != 1:
            print(f"{test:<62}{what:<52}{'NO MATCH':>10}")
            rows.append({"test": test, "file": file, "mutation": what, "result": "no match"})
            survived += 1
            continue
        try:
            path.write_text(original.replace(old, new))
            passed, seconds = run(test)
        finally:
            path.write_text(original)
        result = "SURVIVED" if passed else "failed"
        survived += passed
        print(f"{test:<62}{what:<52}{result:>10}{seconds:>6.0f}", flush=True)
        rows.append({"test": test, "file": file, "mutation": what, "result": result, "seconds": round(seconds, 1)})
    out = ROOT / "bench-results" / "fuzz_mutations.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    print(f"{len(rows) - survived} of {len(rows)} mutations made their test fail; {out}")
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
