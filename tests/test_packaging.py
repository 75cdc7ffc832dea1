"""The wheel a user installs: the ``isrcheck`` namespace and its dist-info, nothing else.

setup.py maps the repository's folders ``model/``, ``properties/`` and ``explorer/`` onto
``isrcheck.model``, ``isrcheck.properties`` and ``isrcheck.explorer`` and discovers every package
below them. An editable install finds modules by path, so it can hide a folder the wheel leaves out
(one without ``__init__.py``), a data file missing from package-data, or an entry point naming a
module that moved. Here the wheel is built once, from a clean copy of the checkout (no stale
``build/`` can leak into it), with this environment's setuptools and no index (no network), and
its contents are compared with the source tree: what is expected is computed from the folders, so a
new package or module cannot be left out. ``./dev installed`` (run by ``./dev test``) then installs
such a wheel in a clean environment and runs it.
"""

from __future__ import annotations

import ast
import configparser
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from tests.fixtures.paths import ROOT

NAMESPACE = "isrcheck"
FOLDERS = ("model", "properties", "explorer")  # setup.py's FOLDERS: installed as isrcheck.<folder>
# Beside the namespace's folders, what holds an __init__.py at the top of the repository and is not shipped.
NOT_SHIPPED = {"tests"}
ENTRY_POINT_GROUPS = ("console_scripts", "isrcheck.models", "isrcheck.symbolic", "isrcheck.scenarios")
BUILD_OUTPUTS = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", "*.so",
                                       ".pytest_cache", ".ruff_cache", ".hypothesis", "spark-warehouse",
                                       "isrcheck-out")


def _sources() -> dict[str, Path]:
    """{path in the wheel: source file} for every Python file of the namespace: isrcheck/ as it is,
    each folder of FOLDERS under isrcheck/<folder>/."""
    found = {f"{NAMESPACE}/{p.relative_to(ROOT / NAMESPACE).as_posix()}": p for p in (ROOT / NAMESPACE).rglob("*.py")}
    for folder in FOLDERS:
        for p in (ROOT / folder).rglob("*.py"):
            if "__pycache__" not in p.parts:
                found[f"{NAMESPACE}/{folder}/{p.relative_to(ROOT / folder).as_posix()}"] = p
    return found


def _project() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    try:
        import setuptools.command.bdist_wheel  # noqa: F401  (setuptools >= 70.1 builds wheels itself)
    except ImportError:
        pytest.fail("this environment's setuptools cannot build a wheel without an index (needs setuptools>=70.1); "
                    "it is in the test extra: pip install -e '.[test]' (./dev does)", pytrace=False)
    work = tmp_path_factory.mktemp("packaging")
    src, dist = work / "src", work / "dist"
    shutil.copytree(ROOT, src, symlinks=True, ignore=BUILD_OUTPUTS)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--disable-pip-version-check", "-q", "-w", str(dist), str(src)],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert built.returncode == 0, f"pip wheel failed ({built.returncode}):\n{built.stdout}\n{built.stderr}"
    wheels = sorted(dist.glob("*.whl"))
    assert len(wheels) == 1, wheels
    with zipfile.ZipFile(wheels[0]) as archive:
        yield archive


def _names(wheel: zipfile.ZipFile) -> set[str]:
    return {n for n in wheel.namelist() if not n.endswith("/")}


def _dist_info(wheel: zipfile.ZipFile) -> str:
    project = _project()
    return f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"


def test_only_the_namespace_and_its_dist_info_at_the_top(wheel):
    tops = {PurePosixPath(n).parts[0] for n in _names(wheel)}
    assert tops == {NAMESPACE, _dist_info(wheel)}, "nothing but isrcheck/ may sit at the top of site-packages"


def test_the_namespace_folders_are_the_repository_packages():
    """A new top-level package folder must be mapped into the namespace (setup.py's FOLDERS and
    FOLDERS here), or it would be importable from a checkout and missing from every install."""
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")}
    assert packages - NOT_SHIPPED == {NAMESPACE, *FOLDERS}


def test_every_package_of_the_source_tree_is_in_the_wheel(wheel):
    names = _names(wheel)
    expected = sorted(f"{NAMESPACE}/{folder}/{init.parent.relative_to(ROOT / folder).as_posix()}/__init__.py"
                      .replace("/./", "/")
                      for folder in FOLDERS for init in (ROOT / folder).rglob("__init__.py"))
    assert len(expected) >= 10  # the discovery itself: an empty list would pass vacuously
    missing = [n[: -len("/__init__.py")].replace("/", ".") for n in expected if n not in names]
    assert not missing, f"packages of the source tree missing from the wheel: {missing}"


def test_every_module_is_in_the_wheel_and_nothing_else(wheel):
    """Module by module both ways: a folder of modules without an __init__.py (which find_packages
    does not see, while an editable install still imports it) is missing; anything the source tree
    does not have (a stale build/) is extra."""
    shipped = {n for n in _names(wheel) if n.endswith(".py")}
    sources = _sources()
    missing = sorted(set(sources) - shipped)
    no_init = sorted({str(sources[n].parent.relative_to(ROOT)) for n in missing
                      if not (sources[n].parent / "__init__.py").exists()})
    assert not missing, (f"modules missing from the wheel: {missing}"
                         + (f"; these folders have no __init__.py: {no_init}" if no_init else ""))
    assert not sorted(shipped - set(sources)), "modules in the wheel that the source tree does not have"


def test_the_data_files_are_in_the_wheel(wheel):
    names = _names(wheel)
    html = ROOT / "explorer" / "traces" / "html"
    assets = sorted(p for pattern in ("*.html", "*.css", "*.js") for p in html.glob(pattern))
    assert {p.suffix for p in assets} == {".html", ".css", ".js"}, assets
    expected = [f"{NAMESPACE}/explorer/traces/html/{p.name}" for p in assets] + [f"{NAMESPACE}/py.typed"]
    assert not [n for n in expected if n not in names], "the HTML report's assets and py.typed must ship"
    for p in assets:  # the files themselves, not empty placeholders
        assert wheel.read(f"{NAMESPACE}/explorer/traces/html/{p.name}") == p.read_bytes()
    # The frame every generated C successor function is compiled with (model/native/compiled.py).
    frame = ROOT / "model" / "native" / "kernel_frame.h"
    assert wheel.read(f"{NAMESPACE}/model/native/kernel_frame.h") == frame.read_bytes()


def _entry_points(wheel: zipfile.ZipFile) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # entry point names are case-sensitive
    parser.read_string(wheel.read(f"{_dist_info(wheel)}/entry_points.txt").decode())
    return parser


def test_the_entry_points_are_those_pyproject_declares(wheel):
    parser = _entry_points(wheel)
    project = _project()
    declared = {"console_scripts": project["scripts"], **project["entry-points"]}
    shipped = {group: dict(parser[group]) for group in parser.sections()}
    assert shipped == declared
    assert set(ENTRY_POINT_GROUPS) <= set(shipped) and all(shipped[g] for g in ENTRY_POINT_GROUPS)
    assert shipped["console_scripts"]["isrcheck"] == "isrcheck.explorer.cli.main:main"


def _defines(tree: ast.Module, name: str) -> bool:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return True
        if isinstance(node, ast.Import | ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


@pytest.mark.parametrize("group", ENTRY_POINT_GROUPS)
def test_every_entry_point_names_a_module_of_the_wheel_that_defines_it(wheel, group):
    names = _names(wheel)
    points = dict(_entry_points(wheel)[group])
    assert points
    for name, value in points.items():
        module, _, attr = value.partition(":")
        attr = attr.split("[")[0].strip().split(".")[0]
        path = module.strip().replace(".", "/")
        found = next((p for p in (f"{path}.py", f"{path}/__init__.py") if p in names), None)
        assert found, f"[{group}] {name} = {value}: no module {module} in the wheel"
        assert _defines(ast.parse(wheel.read(found)), attr), f"[{group}] {name} = {value}: {found} has no {attr}"
