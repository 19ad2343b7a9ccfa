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


def _module_graph() -> dict[str, set[str]]:
    """Every module of the four subpackages (and ``rtsnav.names``) -> the modules it imports
    (any import: at the top, in a function, or for type checking only)."""
    files = {_module_name(p): p for folder in SUBPACKAGES for p in (ROOT / folder).rglob("*.py")}
    files["rtsnav.names"] = ROOT / "rtsnav" / "names.py"
    edges: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
                candidates = [base] + [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            found |= {c for c in candidates if c in files and c != module}
        edges[module] = found
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_no_import_circles_between_files():
    cycles = _cycles(_module_graph())
    assert not cycles, f"import circles: {cycles}"


def test_no_import_circles_between_folders():
    """Every pair of folders (``systems/nav`` itself, ``systems/nav/crowd``, ``systems``, ``game``,
    …): imports between them go one way. A package's ``__init__`` (its face, re-exporting what
    lies below it) is not counted as importing; importing it counts as importing its folder."""
    edges = _module_graph()
    faces = {m for m in edges if (ROOT / Path(*m.split(".")[1:]) / "__init__.py").exists()}
    folder = {m: m if m in faces else m.rpartition(".")[0] for m in edges}
    between: dict[str, set[str]] = {}
    for module, targets in edges.items():
        if module in faces:
            continue
        for target in targets:
            if folder[target] != folder[module]:
                between.setdefault(folder[module], set()).add(folder[target])
    both_ways = sorted({tuple(sorted((a, b))) for a, bs in between.items() for b in bs if a in between.get(b, set())})
    assert not both_ways, f"folders importing each other: {both_ways}"


def test_core_kernels_stand_alone():
    """``systems/nav/kernels`` imports only its own files and the core's root modules."""
    bad = [(str(p.relative_to(ROOT)), mod) for p, mod in _imports("systems/nav/kernels")
           if mod.startswith("rtsnav.") and not mod.startswith("rtsnav.systems.nav.kernels")
           and (ROOT / "systems" / "nav" / mod.split(".")[3]).is_dir()]
    assert not bad, f"kernels importing other core folders: {bad}"


def test_the_crowd_is_a_small_facade_over_parts():
    """``Crowd`` has no base classes, at most 20 public methods and properties, and lives in a
    file of at most 300 lines; no class of the crowd has more than 25 public members."""
    crowd_dir = ROOT / "systems" / "nav" / "crowd"
    text = (crowd_dir / "crowd.py").read_text()
    assert len(text.splitlines()) <= 300
    too_big = []
    for path in sorted(crowd_dir.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.ClassDef):
                continue
            public = [n.name for n in node.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
            if node.name == "Crowd":
                assert not node.bases, "Crowd is a facade over parts, not a class cut into mixins"
                assert len(public) <= 20, public
            if len(public) > 25:
                too_big.append(f"{path.name}:{node.name} ({len(public)})")
    assert not too_big, too_big


@pytest.mark.parametrize("folder", ["game", "systems"])
def test_the_demo_and_the_plugin_use_the_crowds_public_calls(folder):
    """Neither the demo nor the esper layer reads a crowd's agent arrays through ``state``; the
    demo does not reach into the agent table at all (``agents``: the plugin binds components to it)."""
    banned = {"state"} if folder == "systems" else {"state", "agents"}
    paths = (ROOT / folder).rglob("*.py") if folder == "game" else (ROOT / folder).glob("*.py")
    bad = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr in banned and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "crowd"):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} crowd.{node.attr}")
    assert not bad, bad


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
