"""The import graph of isrcheck: one namespace over the repository's folders, and layers inside it.

- Everything is imported as ``isrcheck.*``: no file of the repository imports a top-level ``model``,
  ``properties`` or ``explorer`` (those names exist only as folders; setup.py installs them under
  ``isrcheck``).
- ``isrcheck.explorer`` is generic (it reaches models through the registry) and imports neither
  ``isrcheck.model`` nor ``isrcheck.properties``; ``isrcheck.properties`` never imports
  ``isrcheck.model`` (properties read the tables they are handed).
- Inside ``isrcheck.explorer`` the layers of its ``__init__`` docstring hold: the API modules at the
  top of the package import no subpackage; ``search/`` and ``symbolic/`` sit on the API,
  ``liveness/`` on search, ``traces/`` on the API and liveness, the front doors (``check``,
  ``stateful``, the package ``__init__``) on those, ``cli/`` on everything.
- No cycle between modules.

An import counts wherever the statement is (inside a function too: a lazy import is still a
dependency, and a cycle through one is a cycle), relative imports resolved.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import networkx as nx

from tests.fixtures.paths import ROOT

NAMESPACE = "isrcheck"
# Repository folder -> the package it installs as (setup.py's package_dir).
FOLDERS = {
    "isrcheck": NAMESPACE,
    "model": f"{NAMESPACE}.model",
    "properties": f"{NAMESPACE}.properties",
    "explorer": f"{NAMESPACE}.explorer",
}
# Folders whose .py files must import the namespace, never the bare folder names.
SCANNED = (*FOLDERS, "tests", "bench", "docs")
BARE = ("model", "properties", "explorer")

EXPLORER = f"{NAMESPACE}.explorer"
API = ("errors", "contract", "result", "selection", "registry", "scenarios", "outputs", "progress", "extra")
FRONT = ("check", "stateful")
UNPLACED = "unplaced"
# Layer -> the layers it sits on directly (explorer/__init__.py's docstring). A layer may import its
# own modules and those of every layer below it, directly or not.
ON = {
    "api": set(),
    "search": {"api"},
    "symbolic": {"api"},
    "liveness": {"search"},
    "traces": {"api", "liveness"},
    "front": {"search", "symbolic", "liveness", "traces"},
    "cli": {"front"},
}


def _module_name(path: Path) -> str:
    """The dotted name ``path`` installs as: model/steps/next.py -> isrcheck.model.steps.next."""
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = [*FOLDERS.get(folder, folder).split("."), *rest]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    """The absolute module an ``import from`` names, relative ones resolved against ``name``."""
    if not node.level:
        return node.module or ""
    base = name.split(".") if is_package else name.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(path: Path, name: str | None = None) -> set[str]:
    """Every module ``path`` (module ``name``) may import, wherever the import statement is (inside
    functions too): for ``from pkg import x``, both ``pkg`` and ``pkg.x`` (which one is a module is
    for the caller to tell)."""
    name = name or _module_name(path)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node, name, path.name == "__init__.py")
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


def _edges(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` that ``name`` depends on. ``from pkg import x`` depends on the
    module ``pkg.x`` when there is one, else on ``pkg`` itself (``x`` is read from its __init__),
    even where ``pkg`` is an ancestor of ``name``: reading a name from a package being initialised
    is how an import cycle fails."""
    tree = ast.parse(path.read_text(), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node, name, path.name == "__init__.py")
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
    return {t for t in found if t in modules and t != name}


@cache
def _graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        graph.add_edges_from((name, target) for target in _edges(name, path, modules))
    return graph


def _package(module: str) -> str:
    """``isrcheck.model.steps.next`` -> ``model``; the namespace's own modules -> ``isrcheck``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in BARE else NAMESPACE


def _layer(module: str) -> str | None:
    """The explorer layer ``module`` belongs to; None outside isrcheck.explorer, UNPLACED for a
    module this file does not know yet."""
    if module != EXPLORER and not module.startswith(EXPLORER + "."):
        return None
    rest = module[len(EXPLORER) + 1 :].split(".") if module != EXPLORER else []
    if not rest or rest[0] in FRONT:
        return "front"
    if rest[0] in API:
        return "api"
    return rest[0] if rest[0] in ON else UNPLACED


def _below(layer: str) -> set[str]:
    """The layers ``layer`` may import: itself and everything under it."""
    seen, todo = {layer}, [layer]
    while todo:
        for lower in ON[todo.pop()]:
            if lower not in seen:
                seen.add(lower)
                todo.append(lower)
    return seen


def test_every_module_is_in_the_graph():
    """The folder mapping itself: each folder's __init__ installs as its package."""
    modules = _modules()
    assert {NAMESPACE, *FOLDERS.values(), f"{EXPLORER}.traces.text", f"{NAMESPACE}.model.steps.next"} <= set(modules)
    assert _graph().has_edge(f"{EXPLORER}.traces.text", f"{EXPLORER}.result")


def _imports_by_name(node: ast.AST) -> bool:
    """A call that imports the module its first argument names (a string constant)."""
    if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in ("importorskip", "import_module", "__import__")


def test_nothing_imports_the_bare_folder_names():
    """``import model`` would find the folder only when run from the repository root (and a
    different module object from ``isrcheck.model`` at that: a second copy of the model and of its
    C extension, which Spark executors then could not rebuild); everything goes through
    ``isrcheck.``. Imports by name count too: ``pytest.importorskip("model")``,
    ``importlib.import_module("model.x")``, ``__import__("model")``."""
    offenders = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    names = [node.module or ""]
                elif _imports_by_name(node):
                    names = [node.args[0].value]
                else:
                    continue
                offenders += [
                    f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names if n.split(".")[0] in BARE
                ]
    assert offenders == []


def test_explorer_imports_neither_model_nor_properties():
    graph = _graph()
    offenders = [(a, b) for a, b in graph.edges if _package(a) == "explorer" and _package(b) in ("model", "properties")]
    assert offenders == []


def test_properties_never_import_model():
    """model builds its properties; properties read the model's tables they are handed."""
    offenders = [(a, b) for a, b in _graph().edges if _package(a) == "properties" and _package(b) == "model"]
    assert offenders == []


def test_model_properties_and_explorer_do_not_import_the_namespace_root():
    """``isrcheck/__init__`` imports explorer; going back up to it from below is a cycle."""
    offenders = [(a, b) for a, b in _graph().edges if b == NAMESPACE and _package(a) != NAMESPACE]
    assert offenders == []


def test_explorer_layers():
    """Each explorer module imports only its own layer and the layers under it."""
    offenders = []
    for a, b in _graph().edges:
        la, lb = _layer(a), _layer(b)
        if la not in (None, UNPLACED) and lb is not None and (lb == UNPLACED or lb not in _below(la)):
            offenders.append(f"{a} ({la}) imports {b} ({lb})")
    assert offenders == []


def test_api_modules_import_no_subpackage():
    """The API at the top of isrcheck.explorer stands alone: it imports API modules only."""
    graph = _graph()
    offenders = [
        (a, b)
        for a, b in graph.edges
        if _layer(a) == "api" and b.startswith(EXPLORER) and not (b.count(".") == 2 and _layer(b) == "api")
    ]
    assert offenders == []


def test_every_explorer_module_has_a_layer():
    """A new module at explorer/'s top or a new subpackage is placed (API, FRONT or ON above, and
    explorer/__init__.py's docstring) before the layers say anything about it."""
    assert [m for m in _modules() if _layer(m) == UNPLACED] == []


def test_no_import_cycle_between_modules():
    cycles = list(nx.simple_cycles(_graph()))
    assert cycles == []


def test_the_graph_sees_imports_inside_functions(tmp_path):
    """The checker itself: an import hidden in a function body counts, relative ones resolved."""
    hidden = tmp_path / "probe.py"
    hidden.write_text("def f():\n    import properties\n    from ..encoding import fields\n")
    found = _imports(hidden, "isrcheck.model.steps.probe")
    assert "properties" in found and "isrcheck.model.encoding.fields" in found
    modules = {"isrcheck.model.encoding.fields": hidden, "isrcheck.model.steps.probe": hidden}
    assert _edges("isrcheck.model.steps.probe", hidden, modules) == {"isrcheck.model.encoding.fields"}


def test_the_layers_see_a_lazy_import_upwards(tmp_path):
    """The layer check catches an API module reaching into traces from inside a function, the kind
    of import a renderer hook would otherwise tempt."""
    probe = tmp_path / "probe.py"
    probe.write_text("def __str__(self):\n    from isrcheck.explorer.traces.text import render_summary\n")
    modules = {**_modules(), f"{EXPLORER}.result": probe}
    (target,) = _edges(f"{EXPLORER}.result", probe, modules)
    assert target == f"{EXPLORER}.traces.text"
    assert _layer(target) not in _below(_layer(f"{EXPLORER}.result"))
