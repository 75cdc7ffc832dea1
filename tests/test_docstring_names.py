"""Every ``isrcheck.``-qualified name the prose cites names code that exists.

Docstrings (module, class, function) and comments of the package folders and bench/, README.md and
docs/*.md cite code by its dotted name, ``isrcheck.explorer.traces.text.render_trace``, or in the
entry-point form ``isrcheck.model.factory:make_model``. A move or a rename leaves such a name behind
silently; here each is resolved as Python would: the longest prefix that imports as a module, then
attributes for the rest (a dataclass field or an annotated attribute of a class counts). A failure
lists ``file:line: name`` and why.

Prose may also cite a module without the namespace (``model.truncation``); those cannot be told from
a method call on a model object (``model.successors``), so they are not collected: cite code with
its ``isrcheck.`` name, which this test then keeps honest.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest

from tests.fixtures.paths import ROOT

PY_FOLDERS = ("model", "properties", "explorer", "isrcheck", "bench")
MARKDOWN = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

_IDENT = r"[A-Za-z_]\w*"
NAME = re.compile(rf"(?<![\w./-])isrcheck(?:\.{_IDENT})+(?::{_IDENT}(?:\.{_IDENT})*)?")
# ``isrcheck.explorer.cli.<module>:cmd_name``: a slot the reader fills in, not a name.
PLACEHOLDER = re.compile(r"[.:]?<")

# Dotted strings in the ``isrcheck.`` namespace that are not Python names, each with why.
NOT_CODE = {
    "isrcheck.models": "an entry-point group (pyproject.toml): where a package registers its models",
    "isrcheck.symbolic": "an entry-point group (pyproject.toml): symbolic encodings by model name",
    "isrcheck.scenarios": "an entry-point group (pyproject.toml): scenario catalogues",
}


def _docstrings(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line of the docstring's first line, text) for the module, every class and function."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                yield first.value.lineno, first.value.value


def _comments(source: str) -> Iterator[tuple[int, str]]:
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string


def _texts() -> Iterator[tuple[Path, int, str]]:
    """(file, first line, text) of every piece of prose this test reads."""
    for folder in PY_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            source = path.read_text()
            for line, text in (*_docstrings(ast.parse(source, str(path))), *_comments(source)):
                yield path, line, text
    for path in MARKDOWN:
        yield path, 1, path.read_text()


def cited() -> list[tuple[str, str]]:
    """(``file:line``, name) of every cited name, placeholders and NOT_CODE left out."""
    found = []
    for path, first, text in _texts():
        for match in NAME.finditer(text):
            if PLACEHOLDER.match(text, match.end()):
                continue  # e.g. isrcheck.explorer.cli.<module>:cmd_name
            name = match.group(0)
            if name in NOT_CODE:
                continue
            line = first + text.count("\n", 0, match.start())
            found.append((f"{path.relative_to(ROOT)}:{line}", name))
    return found


def _attribute(owner: object, attr: str) -> object:
    """``getattr``, or for a class a declared instance attribute (dataclass field, annotation)."""
    try:
        return getattr(owner, attr)
    except AttributeError:
        if isinstance(owner, type):
            if is_dataclass(owner) and attr in {f.name for f in fields(owner)}:
                return attr
            if any(attr in vars(klass).get("__annotations__", {}) for klass in owner.__mro__):
                return attr
        raise


def resolve(name: str) -> object:
    """What ``name`` names: the longest importable module prefix, then attributes. Raises
    ImportError or AttributeError saying what is missing."""
    if ":" in name:
        module, _, rest = name.partition(":")
        obj, attrs = importlib.import_module(module), rest.split(".")
    else:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            try:
                obj = importlib.import_module(prefix)
            except ModuleNotFoundError as exc:
                # Only the prefix itself missing means "try a shorter one"; a module that exists
                # but fails to import is reported as it is.
                if exc.name is None or not (prefix == exc.name or prefix.startswith(exc.name + ".")):
                    raise
                continue
            attrs = parts[i:]
            break
        else:
            raise ImportError(f"no module {parts[0]}")
    for depth, attr in enumerate(attrs):
        try:
            obj = _attribute(obj, attr)
        except AttributeError:
            raise AttributeError(f"{name.rsplit('.', len(attrs) - depth)[0]} has no {attr!r}") from None
    return obj


def test_every_cited_name_resolves():
    failures = []
    for where, name in cited():
        try:
            resolve(name)
        except (ImportError, AttributeError) as exc:
            failures.append(f"{where}: {name} ({exc})")
    assert failures == []


def test_the_prose_cites_names_at_all():
    """The collector itself: it finds names in docstrings, comments and Markdown alike."""
    names = {name for _, name in cited()}
    where = {w.split(":")[0].split("/")[0] for w, _ in cited()}
    assert {"isrcheck.explorer.check", "isrcheck.explorer.traces.text"} <= names
    assert {"explorer", "model", "properties", "bench", "docs"} <= where


def test_not_code_entries_are_still_cited():
    """A NOT_CODE entry no prose uses any more is dropped, not kept as a blind spot."""
    texts = "\n".join(text for _, _, text in _texts())
    assert [n for n in NOT_CODE if not re.search(rf"(?<![\w.]){re.escape(n)}(?![\w.])", texts)] == []


@pytest.mark.parametrize(
    "name",
    [
        "isrcheck.explorer.traces.text.render_trace",
        "isrcheck.model.factory:make_model",
        "isrcheck.explorer.check",  # the function the package re-exports, or the module: both resolve
        "isrcheck.explorer.result.CheckResult.violations",  # a dataclass field
        "isrcheck.check",
    ],
)
def test_resolve_finds_what_exists(name):
    resolve(name)


@pytest.mark.parametrize(
    "name",
    ["isrcheck.model.common", "isrcheck.model.truncation.kip101", "isrcheck.explorer.result:Nothing",
     "isrcheck.explorer.result.CheckResult.nothing"],
)
def test_resolve_refuses_what_does_not(name):
    with pytest.raises((ImportError, AttributeError)):
        resolve(name)


def test_placeholders_and_sentence_ends_are_not_names():
    text = "see ``isrcheck.explorer.cli.<module>:cmd_name`` and isrcheck.explorer.traces.text."
    names = [m.group(0) for m in NAME.finditer(text) if not PLACEHOLDER.match(text, m.end())]
    assert names == ["isrcheck.explorer.traces.text"]
