# Two commands do everything on a fresh machine: `make demo` and `make test`.
# Each creates .venv if missing and installs the project (and its extras) from PyPI.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: demo test bench clean

$(VENV)/.installed-%: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[$*]'
	@touch $@

demo: $(VENV)/.installed-test
	$(PY) -m systems.demo

test: $(VENV)/.installed-test
	$(PY) -m pytest -q

bench: $(VENV)/.installed-bench
	$(PY) tests/benchmarks/grid_search.py --json bench-results/grid_search.json

clean:
	rm -rf $(VENV) bench-results .pytest_cache
