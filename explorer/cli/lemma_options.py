"""The lemma options ``isrcheck prove`` and ``isrcheck bmc`` share: ``--lemma NAME``,
``--lemma-set NAME``, ``--lemmas FILE.py`` and ``--houdini``, read into one {name: fn} mapping.

One reading for both commands, so a name is refused the same way in each (an unknown lemma or set
with the known ones, exit 2). A lemma file is Python the user wrote and chose to run, as a model
file is (``isrcheck check path/to/model.py``); it must define ``LEMMAS = {name: fn(ops, v)}``.
Its faults are the user's input, not the model's: a file that fails to load (an exception, a
``sys.exit``) and a lemma that raises or returns no formula are refused (exit 2) naming the file,
the lemma, the error and its line in the file, without a traceback, not reported as a fault of
the model (exit 4), whose frames they would otherwise be taken for.
"""

from __future__ import annotations

import argparse
import importlib.util
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from isrcheck.explorer.errors import UserError
from isrcheck.explorer.symbolic.lemma_sets import lemmas_of_sets


def add_lemma_options(p: argparse.ArgumentParser, houdini_help: str) -> None:
    """``--lemma``, ``--lemmas``, ``--lemma-set``, ``--houdini`` (its help says what it does here)
    and ``--list-lemmas``."""
    p.add_argument("--lemma", dest="lemma_names", action="append", metavar="NAME",
                   help="use the model's built-in lemma NAME (repeatable; --list-lemmas shows them)")
    p.add_argument("--lemmas", metavar="FILE.py",
                   help="your own lemmas: a Python file defining LEMMAS = {name: fn(ops, v) -> formula}")
    p.add_argument("--lemma-set", dest="lemma_sets", action="append", metavar="NAME",
                   help="use every lemma of the model's named set NAME (repeatable; --list-lemmas shows the sets)")
    p.add_argument("--houdini", action="store_true", help=houdini_help)
    p.add_argument("--list-lemmas", action="store_true", help="list the model's built-in lemmas and sets, and exit")


def chosen_lemmas(args: argparse.Namespace, sym: Any) -> dict[str, Callable]:
    """The lemmas the options name, sets first, then each ``--lemma``, then the file's; with
    ``--houdini`` and no lemma named, every built-in lemma (and the file's)."""
    builtin = dict(getattr(sym, "lemmas", dict)())
    lemmas = lemmas_of_sets(sym, args.lemma_sets or [], builtin)
    for name in args.lemma_names or []:
        if name not in builtin:
            known = f"its lemmas are {', '.join(builtin)}" if builtin else "it has none (yours: --lemmas FILE.py)"
            raise UserError(f"the model has no built-in lemma {name!r}; {known}")
        lemmas[name] = builtin[name]
    if args.lemmas:
        lemmas.update(user_lemmas(args.lemmas))
    if args.houdini and not args.lemma_names and not args.lemma_sets:
        lemmas = {**builtin, **lemmas}  # Houdini starts from every built-in template unless told which
    return lemmas


def user_lemmas(path: str) -> dict[str, Any]:
    """``LEMMAS`` of the user's lemma file; a missing or broken file refused with what it must hold."""
    file = Path(path)
    if not file.is_file():
        raise UserError(f"lemma file {path!r} does not exist; give a .py file defining LEMMAS = {{name: fn}}")
    spec = importlib.util.spec_from_file_location(f"isrcheck_lemmas_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    except (Exception, SystemExit) as exc:  # a sys.exit() in the file too: it would end the run with its status
        raise UserError(f"lemma file {path!r} failed to load: {_error(exc, file)}; fix the file") from None
    lemmas = getattr(module, "LEMMAS", None)
    if not isinstance(lemmas, dict) or not all(callable(f) for f in lemmas.values()):
        raise UserError(f"lemma file {path!r} must define LEMMAS = {{name: fn(ops, v) -> formula}}")
    return {name: _guarded(path, name, fn) for name, fn in lemmas.items()}


def _guarded(path: str, name: str, fn: Callable) -> Callable:
    """``fn`` refusing the run (``UserError``) when it raises (``sys.exit`` included) or returns no
    formula: the lemma is the user's input, and its exception, uncaught, read as a fault of the
    model (exit 4), its ``sys.exit(1)`` as a violation."""

    def lemma(ops: Any, v: Any) -> Any:
        import z3

        try:
            formula = fn(ops, v)
        except (Exception, SystemExit) as exc:  # as at load: a sys.exit(1) would read as a violation
            raise UserError(f"lemma {name!r} of lemma file {path!r} raised {_error(exc, Path(path))}; fix the "
                            "lemma, or leave the file out") from None
        if not isinstance(formula, bool) and not z3.is_bool(formula):
            raise UserError(f"lemma {name!r} of lemma file {path!r} returned {type(formula).__name__} "
                            f"{formula!r:.80}, not a formula; it must return a Boolean z3 term (ops.and_, "
                            "ops.implies, a comparison, ...)")
        return formula

    lemma.__name__ = lemma.__qualname__ = getattr(fn, "__name__", name)
    lemma.__doc__ = fn.__doc__
    return lemma


def _error(exc: BaseException, file: Path) -> str:
    """``exc`` in words, with the line of ``file`` it was raised at (the innermost frame there)."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SyntaxError):
        return text  # its text names the line already
    target = file.resolve()
    here = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == target]
    if here:
        text += f" (line {here[-1].lineno}: {here[-1].line})"
    return text
