"""The layers of ../shared/DESIGN.md: imports point downwards only, all under one name, ``rtsnav``."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBPACKAGES = ("systems", "components", "levels", "game")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["rtsnav", *parts])


def _imports(folder: str):
    """(file, absolute module name) for every import in a folder, relative imports resolved."""
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    yield path, node.module or ""
                else:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    yield path, ".".join(base + ([node.module] if node.module else []))


FORBIDDEN = {
    "systems/nav": ("esper", "panda3d", "direct", "rtsnav.game", "rtsnav.components", "rtsnav.levels"),
    "systems": ("panda3d", "direct", "rtsnav.game"),
    "components": ("panda3d", "direct", "rtsnav.game", "esper", "rtsnav.systems", "numba"),
    "levels": ("panda3d", "direct", "rtsnav.game", "esper"),
}


def _matches(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("package", list(FORBIDDEN))
def test_package_imports_nothing_from_higher_layers(package):
    bad = [(str(p.relative_to(ROOT)), mod) for p, mod in _imports(package)
           if any(_matches(mod, f) for f in FORBIDDEN[package])
           or (package == "systems/nav" and _matches(mod, "rtsnav.systems") and not _matches(mod, "rtsnav.systems.nav"))]
    assert not bad, f"layer violations: {bad}"


@pytest.mark.parametrize("folder", [*SUBPACKAGES, "tests"])
def test_no_bare_top_level_imports_of_our_packages(folder):
    """Everything goes through ``rtsnav.``: a game's own ``systems`` or ``components`` never collides."""
    bad = [(str(p.relative_to(ROOT)), mod) for p, mod in _imports(folder)
           if mod.split(".")[0] in SUBPACKAGES]
    assert not bad, f"bare imports (use rtsnav.<package>): {bad}"


def test_the_rtsnav_folder_links_every_subpackage():
    for name in SUBPACKAGES:
        assert (ROOT / "rtsnav" / name).resolve() == (ROOT / name).resolve()


def test_importing_the_core_loads_neither_esper_nor_panda3d():
    code = ("import sys; import rtsnav.systems.nav, rtsnav.levels; "
            "print(sorted(m for m in ('esper', 'panda3d', 'direct') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _core_folder(path: Path) -> str:
    rel = path.relative_to(ROOT / "systems" / "nav").parts
    return rel[0] if len(rel) > 1 else "."


def test_core_folders_import_without_cycles_and_kernels_stand_alone():
    edges: dict[str, set[str]] = {}
    for path, module in _imports("systems/nav"):
        if not module.startswith("rtsnav.systems.nav."):
            continue
        target = module.split(".")[3]
        if not (ROOT / "systems" / "nav" / target).is_dir():
            target = "."
        src = _core_folder(path)
        if target != src:
            edges.setdefault(src, set()).add(target)
    cycles = [(a, b) for a, targets in edges.items() for b in targets
              if "." not in (a, b) and a in edges.get(b, set())]
    assert not cycles, f"folder-level import cycles: {cycles}"
    assert edges.get("kernels", set()) <= {"."}, "kernels import only each other (and grid helpers)"


# Numba kernels whose one long loop would lose speed if split (each is a single search or sweep).
LONG_KERNELS = {"visibility_astar", "orca_velocities", "refine_legs",
                "visible_from"}


def test_modules_and_functions_stay_small():
    too_long, long_functions = [], []
    for folder in SUBPACKAGES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            if len(text.splitlines()) > 600:
                too_long.append(f"{path.relative_to(ROOT)}: {len(text.splitlines())} lines")
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 80 \
                        and node.name not in LONG_KERNELS:
                    long_functions.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert not too_long, too_long
    assert not long_functions, long_functions
