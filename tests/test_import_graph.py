"""The import graph of the packages: explorer/ is generic (it reaches models through the registry),
and model/ and properties/ import each other in one direction only (model builds its properties;
properties read the model's tables they are handed), with no cycle between modules either."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("explorer", "model", "properties")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str | None = None) -> set[str]:
    """Every module ``path`` (module ``name``) imports, wherever the import statement is (inside
    functions too)."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)  # from pkg import module
    return found


def _graph() -> nx.DiGraph:
    modules = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in _imports(path):
            # A module's own ancestor packages are imported before it anyway (``from . import x``).
            if target in modules and target != name and not name.startswith(target + "."):
                graph.add_edge(name, target)
    return graph


def _top(module: str) -> str:
    return module.split(".")[0]


def test_explorer_imports_neither_model_nor_properties():
    offenders = [(a, b) for a, b in _graph().edges if _top(a) == "explorer" and _top(b) in ("model", "properties")]
    assert offenders == []


def test_model_and_properties_do_not_import_each_other_in_a_cycle():
    graph = _graph()
    directions = {(_top(a), _top(b)) for a, b in graph.edges if _top(a) != _top(b)}
    assert not {("model", "properties"), ("properties", "model")} <= directions, directions
    assert ("properties", "model") not in directions  # properties read the tables they are handed


def test_no_import_cycle_between_modules():
    cycles = list(nx.simple_cycles(_graph()))
    assert cycles == []


def test_the_graph_sees_imports_inside_functions(tmp_path):
    """The checker itself: an import hidden in a function body counts, relative ones resolved."""
    hidden = tmp_path / "probe.py"
    hidden.write_text("def f():\n    import properties\n    from ..encoding import fields\n")
    found = _imports(hidden, "isrcheck.model.steps.probe")
    assert "properties" in found and "isrcheck.model.encoding.fields" in found
