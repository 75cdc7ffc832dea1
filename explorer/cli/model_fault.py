"""When the model itself fails: telling a bug in the model from a bug in the protocol.

A model function that raises (a factory, ``init_states``, ``successors``, a predicate,
``canonical``, ``state_view``, ``signals``) is not a violation of a property, so it must not exit
1 as a violation does. The engines wrap such an exception in ``ModelError`` naming what was being
evaluated; this module renders it as TLC reports an evaluation error: the exception, the model's
own frames (the checker's frames are noise to the model's author), the state being expanded and
the action being taken, and the behaviour that led there.
"""

from __future__ import annotations

import importlib.util
import sysconfig
import traceback
from pathlib import Path
from typing import Any

from isrcheck.explorer.errors import ModelError

# The engine's own code: explorer/ (this file is in explorer/cli/) and the namespace's two files, which
# ``python -m isrcheck`` runs through. Not the whole namespace folder: installed, it holds the model too.
# The namespace's folder is looked up, not imported: its __init__ (the public API) sits above the CLI.
_NAMESPACE = Path(importlib.util.find_spec(__name__.split(".")[0]).origin).resolve().parent
_EXPLORER = {Path(__file__).resolve().parents[1], _NAMESPACE / "__init__.py", _NAMESPACE / "__main__.py"}
_STDLIB = {Path(p).resolve() for p in (sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("platstdlib"))
           if p}


def _under(filename: str, roots: set[Path] | Path) -> bool:
    try:
        path = Path(filename).resolve()
    except (OSError, ValueError):
        return False
    roots = {roots} if isinstance(roots, Path) else roots
    return any(path == root or root in path.parents for root in roots)


def _is_explorer(filename: str) -> bool:
    # every package of explorer/ (search/spark/ included) is explorer's.
    return _under(filename, _EXPLORER)


def _is_python(filename: str) -> bool:
    return filename.startswith("<frozen ") or _under(filename, _STDLIB)


def model_frames(exc: BaseException) -> list[traceback.FrameSummary]:
    """The frames of ``exc``'s traceback that belong to the model: not the checker's, not the
    standard library's (unless the standard library is all there is below the checker)."""
    frames = traceback.extract_tb(exc.__traceback__)
    outside = [f for f in frames if not _is_explorer(f.filename)]
    own = [f for f in outside if not _is_python(f.filename)]
    return own


def as_model_error(exc: BaseException, what: str = "the model") -> ModelError | None:
    """``exc`` as a ModelError when the model's own code raised it (one of its frames is on the
    stack), else None: then the fault is the checker's and its full traceback is what is needed."""
    if isinstance(exc, ModelError):
        return exc
    if not isinstance(exc, Exception) or not model_frames(exc):
        return None
    frame = model_frames(exc)[0]
    if what == "the model":
        what = f"the model's {frame.name}()"
    return ModelError(what, exc)


def _short(value: Any, limit: int = 300) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a broken __repr__ must not hide the report
        text = f"<repr failed: {exc!r}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_model_error(err: ModelError) -> str:
    """One report: what raised, the model's frames, the state and action, the behaviour so far."""
    cause = err.cause
    lines = [f"the model failed: {err.what} raised {type(cause).__name__}: {cause}"]
    frames = model_frames(cause)
    if frames:
        lines.append("The model's frames (most recent call last):")
        lines.extend(line.rstrip("\n") for line in traceback.format_list(frames))
    if err.state is not None:
        lines.append(f"State being expanded: {_short(err.state)}")
    if err.action is not None:
        lines.append(f"Action being taken: {_short(err.action)}")
    if err.successor is not None:
        lines.append(f"Successor it led to: {_short(err.successor)}")
    if err.note:
        lines.append(err.note)
    if err.trace is not None and err.model is not None:
        try:
            from isrcheck.explorer.traces.text import render_trace

            lines.append("The behaviour up to the state being expanded:")
            lines.append(render_trace(err.model, err.trace))
        except Exception:  # state_view itself may be what fails; the repr above is enough then
            lines.pop()
    lines.append("This is a fault in the model, not a violation of its properties (exit status 4): "
                 "fix the model and run again.")
    return "\n".join(lines)
