#!/usr/bin/env bash
# The fuzz suite's long profile: 5,000 cases per property instead of make test's 60 (crowd scenes: one per 30).
set -euo pipefail
cd "$(dirname "$0")/../.."
RTSNAV_FUZZ_EXAMPLES="${RTSNAV_FUZZ_EXAMPLES:-5000}" .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_fuzz.py tests/test_fuzz_surface.py tests/test_fuzz_methods.py tests/test_fuzz_scenes.py tests/test_fuzz_edits.py "$@"
