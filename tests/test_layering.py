"""The layers of ../shared/DESIGN.md: imports point downwards only."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(package: str):
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                yield path, node.module


FORBIDDEN = {
    "systems/nav": ("esper", "panda3d", "direct", "game", "components", "levels"),
    "systems": ("panda3d", "direct", "game"),
    "components": ("panda3d", "direct", "game", "esper", "systems", "numba"),
    "levels": ("panda3d", "direct", "game", "esper"),
}


@pytest.mark.parametrize("package", list(FORBIDDEN))
def test_package_imports_nothing_from_higher_layers(package):
    if not (ROOT / package).exists():
        pytest.skip(f"{package} does not exist yet")
    bad = [(str(p.relative_to(ROOT)), mod) for p, mod in _imports(package)
           if mod.split(".")[0] in FORBIDDEN[package]
           or (package == "systems/nav" and mod.startswith("systems.") and not mod.startswith("systems.nav"))]
    assert not bad, f"layer violations: {bad}"


def test_importing_the_core_loads_neither_esper_nor_panda3d():
    code = ("import sys; import systems.nav, levels; "
            "print(sorted(m for m in ('esper', 'panda3d', 'direct') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
