"""The generated C successor function (``isrcheck.model.native.cwriter``) compiled once per source
and loaded as an extension module of its own.

The source depends on the generation's steps and rules and the number of replicas, not on the
bounds (the kernel reads those from its fields), so a module serves every bound. It is cached
under ``$ISRCHECK_KERNEL_CACHE`` (default ``~/.cache/isrcheck/kernels``), named by a hash of
everything that goes into it (the generated source, ``kernel_frame.h``, the Python version and the
compiler command), written atomically (compiled to a temporary name, then renamed), so two
processes building the same kernel at once both end with a whole file.

Without a working C compiler (``$CC``, else the one Python was built with) nothing is compiled:
``kernel()`` answers ``None``, says why in ``unavailable()``, and the caller keeps the generated
Python function, the promise of the optional build (``setup.py``).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from .cwriter import Unsupported, successors_c

HERE = Path(__file__).resolve().parent
FRAME = HERE / "kernel_frame.h"
_loaded: dict[str, ModuleType] = {}
_why: list[str] = []  # why the last kernel was not compiled (empty: it was)


def _frame(memo: list[str] = []) -> str:  # noqa: B006 (read once per process)
    if not memo:
        memo.append(FRAME.read_text())
    return memo[0]


def unavailable() -> str:
    """Why the last configuration got no compiled kernel ("" when it got one)."""
    return _why[-1] if _why else ""


def compiler() -> list[str] | None:
    """The C compiler command (``$CC`` or Python's own), or ``None`` when it is not installed."""
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    return cc if cc and shutil.which(cc[0]) else None


def cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "isrcheck" / "kernels"
    return Path(os.environ.get("ISRCHECK_KERNEL_CACHE") or default)


def module_source(body: str, name: str) -> str:
    return (f'#define KERNEL_NAME "{name}"\n#include "kernel_frame.h"\n\n{body}\n'
            f'static struct PyModuleDef moduledef = {{PyModuleDef_HEAD_INIT, "{name}", '
            f'"A generated successor function (isrcheck.model.native.compiled).", -1, NULL}};\n\n'
            f"PyMODINIT_FUNC PyInit_{name}(void) {{ return kernel_module(&moduledef); }}\n")


def kernel(t: Any) -> ModuleType | None:
    """The compiled module for tables ``t`` (its ``Successors(spec)`` is the successor function),
    or ``None`` (what the C kernel does not handle, or no compiler: see ``unavailable``)."""
    _why.clear()
    try:
        body = successors_c(t)
    except Unsupported as e:
        _why.append(f"not handled in C: {e}")
        return None
    cc = compiler()
    if cc is None:
        _why.append("no C compiler (set CC, or install gcc): the generated Python function runs")
        return None
    include = sysconfig.get_paths()["include"]
    # The flags setuptools builds the static extensions with (sysconfig CFLAGS), less the debug info.
    flags = ["-O2", "-fwrapv", "-DNDEBUG", "-shared", "-fPIC", "-I", include, "-I", str(HERE)]
    key = hashlib.blake2b(digest_size=12)
    for part in (body, _frame(), sys.version, " ".join(cc + flags)):
        key.update(part.encode())
    name = f"_isrcheck_kernel_{key.hexdigest()}"
    if name in _loaded:
        return _loaded[name]
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    try:
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = _private_temp_folder()
    path = folder / f"{name}{suffix}"
    if not path.exists() and not _compile(cc + flags, module_source(body, name), path):
        return None
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, str(path))
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except (ImportError, OSError) as e:  # a damaged cache file: say so, keep Python
        _why.append(f"the compiled kernel {path} could not be loaded ({e}): delete it to rebuild")
        return None
    _loaded[name] = module
    return module


def _private_temp_folder() -> Path:
    """A folder under the system's temporary directory for when the cache cannot be created. A
    shared /tmp lets anyone create a folder by that name first, and a module found there is loaded
    and run: so the folder is used only if it is ours and nobody else may write to it; otherwise a
    fresh private one (no caching across processes, but nothing planted is ever loaded)."""
    folder = Path(tempfile.gettempdir()) / f"isrcheck-kernels-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = folder.lstat()
        if folder.is_symlink() or st.st_uid != os.getuid() or st.st_mode & 0o022:
            raise PermissionError(folder)
        return folder
    except OSError:
        return Path(tempfile.mkdtemp(prefix="isrcheck-kernels-"))


def _compile(command: list[str], source: str, path: Path) -> bool:
    try:
        return _compile_in(command, source, path)
    except OSError as e:  # the cache folder cannot be written
        _why.append(f"the compiled kernel could not be written to {path.parent} ({e}): set ISRCHECK_KERNEL_CACHE")
        return False


def _compile_in(command: list[str], source: str, path: Path) -> bool:
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        c_file, out = Path(tmp) / f"{path.stem}.c", Path(tmp) / path.name
        c_file.write_text(source)
        try:
            done = subprocess.run([*command, str(c_file), "-o", str(out)], capture_output=True, text=True,
                                  timeout=300)
        except (OSError, subprocess.TimeoutExpired) as e:
            _why.append(f"the C compiler failed to run ({e}): the generated Python function runs")
            return False
        if done.returncode != 0:
            _why.append(f"the C compiler failed ({done.stderr.strip()[:2000]}): the generated Python function runs")
            return False
        os.replace(out, path)
    return True
