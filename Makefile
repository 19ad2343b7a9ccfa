# Two commands do everything on a fresh machine: `make demo` and `make test`.
# Each creates .venv if missing and installs the project (and its extras) from PyPI.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: demo test test-slow bench wheel clean x11-tools

$(VENV)/.installed-%: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@# setuptools' editable install warns in a box about folders named like the package (rtsnav/
	@# is ours, on purpose); its build runs in a subprocess that inherits this variable
	PYTHONWARNINGS=ignore $(PY) -m pip install --quiet -e '.[$*]'
	@touch $@

# With a display: play in a window. Without: benchmark table, ECS run, offscreen 3D run + screenshot.
demo: $(VENV)/.installed-demo
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		$(PY) -m rtsnav.game; \
	else \
		$(PY) -m rtsnav.systems.demo --sample 200 --agents 2000 --ticks 900 && \
		$(PY) -m rtsnav.game --headless --frames 1500 --screenshot out/demo.png; \
	fi

# Xvfb + xdotool (Debian packages) for the real-window test; installed when we may (root with
# apt-get), otherwise that one test skips and says how to get them.
X11_PACKAGES := xvfb xdotool
x11-tools:
	@if command -v Xvfb >/dev/null && command -v xdotool >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing $(X11_PACKAGES) (real-window test)"; \
		(apt-get install -y -qq --no-install-recommends $(X11_PACKAGES) >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends $(X11_PACKAGES) >/dev/null 2>&1)) || \
		echo "could not install $(X11_PACKAGES): the real-window test will skip"; \
	else echo "no Xvfb/xdotool: the real-window test will skip (sudo apt-get install $(X11_PACKAGES))"; fi

# The suite on every core, without the long scenes (those: `make test-slow`; CI runs both).
test: $(VENV)/.installed-test
	$(PY) -m ruff check .
	$(PY) -m mypy rtsnav
	$(PY) -m pytest -q -n auto --maxprocesses 4 --dist worksteal -m "not slow"

test-slow: $(VENV)/.installed-test x11-tools
	$(PY) -m pytest -q -n auto --maxprocesses 4 --dist worksteal -m slow

bench: $(VENV)/.installed-bench
	$(PY) tests/benchmarks/grid_search.py --json bench-results/grid_search.json
	$(PY) tests/benchmarks/ecs_tick.py --json bench-results/ecs_tick.json
	$(PY) tests/benchmarks/flow_crowd.py --json bench-results/flow_crowd.json
	$(PY) tests/benchmarks/hierarchy.py --json bench-results/hierarchy.json
	$(PY) tests/benchmarks/navmesh.py --json bench-results/navmesh.json
	$(PY) tests/benchmarks/layered_navmesh.py --json bench-results/layered_navmesh.json
	$(PY) tests/benchmarks/demo_frame.py --json bench-results/demo_frame.json
	$(PY) tests/benchmarks/crowd.py --json bench-results/crowd.json
	$(PY) tests/benchmarks/crowd_flows.py --json bench-results/crowd_flows.json
	$(PY) tests/benchmarks/busy_cores.py --json bench-results/busy_cores.json
	@# its first run bakes Goal Bounding for a 1024² map (~40 min on 2 cores; then cached in bench-results/cache)
	$(PY) tests/benchmarks/goal_bounds_big.py --json bench-results/goal_bounds_big.json
	$(PY) tests/benchmarks/crowd_fingerprint.py --json bench-results/crowd_fingerprint.json
	$(PY) tests/benchmarks/cold_start.py --json bench-results/cold_start.json
	$(PY) tests/benchmarks/dynamic.py --json bench-results/dynamic.json
	$(PY) tests/benchmarks/eikonal.py --json bench-results/eikonal.json
	$(PY) tests/benchmarks/behaviour_trees.py --json bench-results/behaviour_trees.json
	$(PY) tests/benchmarks/steering_variants.py --json bench-results/steering_variants.json
	$(PY) tests/benchmarks/gap_jam.py --json bench-results/gap_jam.json
	$(PY) tests/benchmarks/paper_flowfield.py --json bench-results/paper_flowfield.json --picture docs/paper_flowfield.png
	$(PY) tests/benchmarks/write_docs.py

# A wheel with every kernel compiled in (for this Python, platform and CPU; ~2 min): dist/rtsnav-*.whl.
# Installed, its first path takes < 1 s and install() ~8 s instead of ~90 s of compiling.
wheel: $(VENV)/.installed-test
	$(PY) tools/build_wheel.py --out dist

clean:
	rm -rf $(VENV) bench-results .pytest_cache dist
