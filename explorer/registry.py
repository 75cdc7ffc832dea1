"""Where models come from: the ``isrcheck.models`` entry-point group, or a user's own file.

A model spec is either a registered name (``classic``) or ``path/to/file.py[:factory]`` (the factory
defaults to ``make_model``). A factory is a function with keyword-only, typed, defaulted parameters;
the command line builds its model options from that signature, so a user's model gets
``--its-options`` without writing any CLI code. Each option's help is the factory docstring's entry for it
(a line ``name: text`` or ``name, other: text``, continued on more indented lines; ``option_help``).
A factory that renamed an option names the old spelling in a ``renamed_options = {"old": "new"}``
attribute: the old name is then refused with the new one. The explorer never imports ``model/``
itself: the Kafka model is found here exactly like a user's.

Each model built here is remembered with its origin (``origin_of``): the spec and every option,
defaults filled from the factory's signature, so that a run's identity (the Spark engine's
checkpoints) names the model by what built it, not by what its ``repr`` happens to print.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from isrcheck.explorer.errors import ModelError, UserError

GROUP = "isrcheck.models"


@dataclass(frozen=True)
class ModelOption:
    """One keyword parameter of a model factory, as the CLI and trace files see it."""

    name: str
    type: type
    default: Any
    choices: tuple[Any, ...] | None = None
    help: str = ""  # the factory docstring's entry for it, or ""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


def registered() -> dict[str, str]:
    """Registered model names and the ``module:function`` each points to."""
    return {ep.name: ep.value for ep in entry_points(group=GROUP)}


def is_file_spec(spec: str) -> bool:
    return spec.split(":", 1)[0].endswith(".py") or "/" in spec


def portable_spec(spec: str, relative_to: str | os.PathLike | None = None) -> str:
    """How a file written by isrcheck records a model spec so it can be found from anywhere: a
    registered name as is; a file spec with the path relative to ``relative_to`` (the folder of the
    trace or regression file, so the pair can move together), or absolute when none is given."""
    if not is_file_spec(spec):
        return spec
    path_text, sep, func = spec.partition(":")
    absolute = os.path.abspath(path_text)
    if relative_to is not None:
        try:
            absolute = os.path.relpath(absolute, os.path.abspath(relative_to))
        except ValueError:  # another drive on Windows: keep it absolute
            pass
    return absolute + sep + func


def resolve_spec(spec: str, base: str | os.PathLike | None) -> str:
    """The inverse of ``portable_spec``: a relative model path recorded in a file at folder
    ``base`` is taken relative to that folder; older files recorded it as typed (relative to the
    directory isrcheck ran in), which is the fallback."""
    if base is None or not is_file_spec(spec):
        return spec
    path_text, sep, func = spec.partition(":")
    if os.path.isabs(path_text):
        return spec
    candidate = os.path.join(base, path_text)
    if os.path.isfile(candidate) or not os.path.isfile(path_text):
        return os.path.normpath(candidate) + sep + func
    return spec


def load_factory(spec: str) -> Callable[..., Any]:
    """The factory function a model spec names."""
    if is_file_spec(spec):
        return _factory_from_file(spec)
    eps = {ep.name: ep for ep in entry_points(group=GROUP)}
    if spec not in eps:
        known = ", ".join(sorted(eps)) or "(none registered; is isrcheck installed with pip install -e .?)"
        raise UserError(
            f"unknown model {spec!r}; registered models: {known}. To check a model of your own, pass "
            "its file: path/to/model.py:make_model"
        )
    try:
        return eps[spec].load()
    except Exception as exc:
        raise UserError(f"the registered model {spec!r} ({eps[spec].value}) failed to import: {exc!r}") from None


def _factory_from_file(spec: str) -> Callable[..., Any]:
    path_text, _, func = spec.partition(":")
    func = func or "make_model"
    path = Path(path_text)
    if not path.is_file():
        raise UserError(f"model file {path_text!r} does not exist; give a path to a .py file, e.g. models/mine.py")
    module_name = f"isrcheck_user_model_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise UserError(f"model file {path_text!r} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    # Registered under its name so pickling (Spark) and dataclass machinery can find it again.
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise UserError(
            f"model file {path_text!r} failed to load: {type(exc).__name__}: {exc}. Fix the file, or run "
            f"python {path_text} to see the full traceback"
        ) from None
    finally:
        sys.path.pop(0)
    factory = getattr(module, func, None)
    if not callable(factory):
        names = [n for n, v in vars(module).items() if callable(v) and not n.startswith("_") and
                 getattr(v, "__module__", None) == module_name]
        raise UserError(
            f"model file {path_text!r} has no function {func!r}; name the factory after a colon "
            f"(e.g. {path_text}:make_model). Functions defined there: {', '.join(names) or '(none)'}"
        )
    return factory


def model_options(factory: Callable[..., Any]) -> list[ModelOption]:
    """The factory's keyword parameters with their types and defaults."""
    options = []
    try:
        hints = inspect.get_annotations(factory, eval_str=True)
    except Exception:
        hints = {}
    helps = option_help(factory)
    for param in inspect.signature(factory).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is param.empty:
            raise UserError(
                f"model factory {factory.__name__} has a parameter {param.name!r} without a default; "
                "give every parameter a default so the model can be built with no options"
            )
        kind = hints.get(param.name)
        choices = None
        if get_origin(kind) in (Union, UnionType) and type(None) in get_args(kind):
            # ``int | None = None``: None leaves the value to the model (a default that depends on
            # another option); the command line parses the other type
            kind = next(a for a in get_args(kind) if a is not type(None))
        if get_origin(kind) is Literal:  # generation: Literal["kip101", "kip320"] gives CLI choices
            choices = get_args(kind)
            kind = type(choices[0])
        if kind not in (int, str, bool, float):
            kind = type(param.default) if param.default is not None else str
        options.append(ModelOption(param.name, kind, param.default, choices, helps.get(param.name, "")))
    return options


def option_help(factory: Callable[..., Any]) -> dict[str, str]:
    """Each parameter's description in the factory's docstring: an entry starts a line with the
    parameter's name (or several, comma-separated) and a colon, or follows ``; `` on such a line
    (``azs: zones; placement: rack-aware or naive``), and goes on over the lines indented deeper."""
    names = [p.name for p in inspect.signature(factory).parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if not names:
        return {}
    one = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    head = re.compile(rf"((?:{one})(?:, (?:{one}))*): ")
    helps: dict[str, list[str]] = {}
    current: list[list[str]] = []  # the entries the line being read continues
    indent = 0
    for line in (inspect.getdoc(factory) or "").splitlines():
        text, depth = line.strip(), len(line) - len(line.lstrip())
        first = head.match(text)
        if first:
            current, indent = [], depth
            # "a: text; b: text" holds several entries on one line
            starts = [m for m in head.finditer(text) if m.start() == 0 or text[:m.start()].endswith("; ")]
            for m, nxt in zip(starts, [*starts[1:], None], strict=True):
                part = text[m.end():nxt.start() if nxt else len(text)].rstrip("; ")
                entry = [part]
                current.append(entry)
                for name in m.group(1).split(", "):
                    helps[name] = entry
        elif current and text and depth > indent:
            current[-1].append(text)
        else:
            current = []
    return {name: " ".join(parts) for name, parts in helps.items()}


def renamed_options(factory: Callable[..., Any]) -> dict[str, str]:
    """Old option names the factory refuses, each with the name it now has."""
    return dict(getattr(factory, "renamed_options", None) or {})


def refuse_renamed(factory: Callable[..., Any], given: Any, spec: str) -> None:
    """A UserError for the first renamed option in ``given`` (names), pointing at its new name."""
    for old in renamed_options(factory):
        if old in given:
            raise UserError(rename_message(factory, spec, old))


def rename_message(factory: Callable[..., Any], spec: str, old: str) -> str:
    """Why ``old`` is refused: its new name (as an option and a flag) and the factory's reason."""
    new = renamed_options(factory)[old]
    reason = getattr(factory, "rename_reasons", {}).get(old, "the old name is refused, not quietly mapped")
    return (f"model {spec!r}: the option {old} (--{old.replace('_', '-')}) is now {new} "
            f"(--{new.replace('_', '-')}): {reason}")


def build_model(spec: str, options: dict[str, Any] | None = None, *, extra_properties: Any = ()) -> Any:
    """The model a spec and options describe; a bad option becomes a UserError naming it.
    ``extra_properties``: properties of one's own added after the model's
    (``isrcheck.explorer.extra.with_properties``)."""
    if extra_properties:
        from isrcheck.explorer.extra import with_properties

        return with_properties(build_model(spec, options), extra_properties)
    factory = load_factory(spec)
    refuse_renamed(factory, options or {}, spec)
    known = {o.name for o in model_options(factory)}
    unknown = sorted(set(options or {}) - known)
    if unknown:
        raise UserError(
            f"model {spec!r} has no option {', '.join(unknown)}; "
            f"its options are: {', '.join(sorted(known)) or '(none)'}"
        )
    return make_model(factory, spec, options or {})


def make_model(factory: Callable[..., Any], spec: str, options: dict[str, Any]) -> Any:
    """Call a factory: a ValueError is the factory refusing its options, and a TypeError raised by
    the call itself is options it does not take (bad input, exit 2); anything else it raises,
    including a TypeError from inside the model's code, is the model failing (ModelError, exit 4)."""
    try:
        model = factory(**options)
    except ValueError as exc:
        raise UserError(f"model {spec!r} refused its options: {exc}") from None
    except TypeError as exc:
        if exc.__traceback__ is None or exc.__traceback__.tb_next is None:  # raised binding the arguments
            raise UserError(f"model {spec!r} refused its options: {exc}") from None
        raise ModelError(f"the model factory {getattr(factory, '__name__', 'factory')}()", exc) from exc
    except Exception as exc:
        raise ModelError(f"the model factory {getattr(factory, '__name__', 'factory')}()", exc) from exc
    # Every option, defaults included, for identities that must not depend on a repr (origin_of).
    try:
        resolved = {opt.name: opt.default for opt in model_options(factory)}
    except UserError:  # a parameter without a default, passed explicitly: it is in ``options``
        resolved = {}
    resolved.update(options)
    file = spec.partition(":")[0] if is_file_spec(spec) else None
    record(model, spec, file, getattr(factory, "__name__", "factory"), resolved)
    return model


# -- where a model came from ------------------------------------------------------------------------


@dataclass(frozen=True)
class Origin:
    """A registered model's name, or a model file's absolute path and the digest of its content;
    the factory's name; every option (name -> value), defaults filled from the factory's signature."""

    spec: str
    source: str
    options: tuple[tuple[str, Any], ...]


# Origins by the model's id, with a weak reference to the model (dropped with it, so a process
# that builds many models keeps none alive); a model that takes no weak reference is held strongly,
# so its id is never reused while its entry exists. A model need not accept new attributes.
_ORIGINS: dict[int, tuple[Callable[[], Any], Origin]] = {}


def record(model: Any, spec: str, file: str | None, factory_name: str, options: dict[str, Any]) -> None:
    """Remember how ``model`` was built. ``file``: the model file of a file spec, else None."""
    if file is not None:
        path = os.path.abspath(file)
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:16]
        source = f"model file {path}:{factory_name} (content sha256 {digest})"
    else:
        source = f"registered model {spec!r} ({factory_name})"
    key = id(model)

    def forget(ref: Any) -> None:  # the entry of a dead model, unless another has its id now
        if _ORIGINS.get(key, (None,))[0] is ref:
            del _ORIGINS[key]

    try:
        ref: Callable[[], Any] = weakref.ref(model, forget)
    except TypeError:
        ref = (lambda held: lambda: held)(model)
    _ORIGINS[key] = (ref, Origin(spec, source, tuple(sorted(options.items()))))


def origin_of(model: Any) -> Origin | None:
    """How ``model`` was built, or None for a model the registry did not build."""
    entry = _ORIGINS.get(id(model))
    return entry[1] if entry is not None and entry[0]() is model else None
