"""Properties of one's own, added to any model without a wrapper class: from Python
(``with_properties(model, [...])``) or from a properties file (``isrcheck check --properties FILE``).

A property of one's own is written over the model's *read* state: a model with a ``read(state)``
hook (both families of the Kafka model: ``s.replica(1).hw``, ``s.controller.leader``; see
docs/properties-own.md) hands its predicates that object instead of the packed state; a model
without the hook hands them the state itself. The decorators below make one:

    @invariant
    def ConsumerReadsBelowHw(s): ...                   # name: the function's name; doc: its docstring

    @transition
    def OnlyBelowHw(s, action, next_s): ...            # a step: before, action, after

``sometimes``, ``eventually`` and ``leads_to`` follow ``isrcheck.Property``'s kinds. A plain
``isrcheck.Property`` is accepted too and receives the states unread.

The model with its properties added (``WithProperties``) is the model itself for every engine: it
delegates everything else to it, pickles as (model, properties) so that Spark ships it (a
properties file travels as a user module: ``isrcheck.explorer.search.spark.session``), and names
the properties it adds after the model's own in ``properties()``.

Under ``--symmetry`` the engine checks one state of each class of states equal up to relabelling
replicas, so a property must give the same answer on every relabelling: it may quantify over
replicas (``all(r.hw <= ... for r in s.replicas)``) or name roles (the leader), never a fixed
replica id (``s.replica(1)``).

Abstracted away: nothing is compiled; a property of one's own costs one Python call per state
(per step for a transition property) on top of the read object it builds.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from isrcheck.explorer.contract import Kind, Property
from isrcheck.explorer.errors import UserError

# Modules loaded from users' files carry this prefix: the Spark engine ships them to executors.
PROPERTIES_MODULE_PREFIX = "isrcheck_user_model_properties_"


@dataclass(frozen=True)
class OwnProperty:
    """A property over the model's read state (see the module docstring). ``fn`` takes the read
    state, or for a transition ``(state, action, next_state)``; ``target`` is a leads-to's Q."""

    name: str
    kind: Kind
    fn: Callable[..., Any]
    doc: str = ""
    default: bool = True
    describe: Callable[..., Any] | None = field(default=None, compare=False)
    target: Callable[[Any], Any] | None = field(default=None, compare=False)

    def __call__(self, *args: Any) -> Any:
        """Calling it calls the predicate (handy in a unit test of the property itself)."""
        return self.fn(*args)

    def __reduce__(self) -> tuple:
        # A decorated function's module name is the property, not the function, so pickle (and
        # cloudpickle, for Spark) cannot find the function by its name: the property itself is
        # found by name instead, in its module (a properties file is shipped and loaded under it).
        module, name = getattr(self.fn, "__module__", None), getattr(self.fn, "__qualname__", "")
        if module and getattr(sys.modules.get(module), name, None) is self:
            return (_by_reference, (module, name))
        return (OwnProperty, (self.name, self.kind, self.fn, self.doc, self.default, self.describe, self.target))


def _by_reference(module: str, name: str) -> OwnProperty:
    return getattr(importlib.import_module(module), name)


def _decorator(kind: Kind) -> Callable[..., Any]:
    def make(fn: Callable[..., Any] | None = None, *, name: str | None = None, default: bool = True,
             describe: Callable[..., Any] | None = None) -> Any:
        def wrap(f: Callable[..., Any]) -> OwnProperty:
            doc = " ".join((f.__doc__ or "").split())
            return OwnProperty(name or f.__name__, kind, f, doc, default, describe)

        return wrap(fn) if fn is not None else wrap

    make.__name__ = kind.name.lower()
    make.__doc__ = (f"Decorate ``fn`` as a {kind.value} property of one's own; ``name`` defaults to the "
                    "function's name, the doc to its docstring; ``default=False``: checked only when named.")
    return make


invariant = _decorator(Kind.ALWAYS)
sometimes = _decorator(Kind.SOMETIMES)
transition = _decorator(Kind.TRANSITION)
eventually = _decorator(Kind.EVENTUALLY)


def leads_to(name: str, trigger: Callable[[Any], Any], target: Callable[[Any], Any], doc: str = "",
             default: bool = True) -> OwnProperty:
    """``trigger ~> target`` over read states (``isrcheck.Property.leads_to``)."""
    return OwnProperty(name, Kind.LEADS_TO, trigger, doc, default, None, target)


def _code_names(fn: Any) -> set[str]:
    """Global and attribute names a function's code uses, nested functions included."""
    code = getattr(fn, "__code__", None)
    names: set[str] = set()
    stack = [code] if code is not None else []
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names


def _bind(own: OwnProperty, read: Callable[[Any], Any]) -> Property:
    fn, describe = own.fn, own.describe

    def refused(exc: UserError) -> UserError:
        # A read the check before the run could not see (a name built at run time): still bad
        # input, now with the property's name.
        return type(exc)(f"property {own.name!r}: {exc}")

    if own.kind is Kind.TRANSITION:
        def predicate(s: Any, a: Any, t: Any) -> bool:
            try:
                return bool(fn(read(s), a, read(t)))
            except UserError as exc:
                raise refused(exc) from None

        told = None if describe is None else (lambda s, a, t: describe(read(s), a, read(t)))
    else:
        def predicate(s: Any) -> bool:  # type: ignore[misc]
            try:
                return bool(fn(read(s)))
            except UserError as exc:
                raise refused(exc) from None

        told = None if describe is None else (lambda s: describe(read(s)))
    target = None if own.target is None else (lambda s, q=own.target: bool(q(read(s))))
    return Property(own.name, own.kind, predicate, own.doc, told, own.default, target)


def _as_property(item: Any) -> OwnProperty | Property:
    if isinstance(item, OwnProperty | Property):
        return item
    if callable(item) and getattr(item, "__name__", "<lambda>") != "<lambda>":
        return invariant(item)
    raise UserError(
        f"{item!r:.80} is not a property: decorate a function with @isrcheck.invariant (or sometimes, transition), "
        "or build an isrcheck.Property")


class WithProperties:
    """``model`` with ``extra`` properties after its own; everything else is the model's."""

    def __init__(self, model: Any, extra: Sequence[OwnProperty | Property], source: str | None = None) -> None:
        self.model = model
        self.extra = tuple(extra)
        self.source = source
        own = list(model.properties())
        known = {p.name for p in own}
        where = f" in {source}" if source else ""
        read = getattr(model, "read", None)
        sample = read(model.init_states()[0]) if read is not None else None
        absent = sample.absent_fields() if hasattr(sample, "absent_fields") else {}
        added: list[Property] = []
        for item in self.extra:
            if item.name in known:
                clash = "the model's own" if item.name in {p.name for p in own} else "another added"
                raise UserError(
                    f"property {item.name!r}{where} has the name of {clash} property; rename it (name=... or the "
                    f"function's name). The model's properties: {', '.join(p.name for p in own)}")
            known.add(item.name)
            if isinstance(item, Property):
                added.append(item)
                continue
            fns = (item.fn, item.describe, item.target)
            for attribute, why in absent.items():
                if any(attribute in _code_names(f) for f in fns if f is not None):
                    raise UserError(f"property {item.name!r}{where}: {why}")
            added.append(_bind(item, read if read is not None else _same))
        self._properties = (*own, *added)

    def properties(self) -> Sequence[Property]:
        return self._properties

    def __getattr__(self, name: str) -> Any:
        if name in ("model", "extra", "source", "_properties"):  # not set yet (unpickling)
            raise AttributeError(name)
        return getattr(self.model, name)

    def __reduce__(self) -> tuple:
        return (WithProperties, (self.model, self.extra, self.source))

    def __repr__(self) -> str:
        return f"{self.model!r} + {', '.join(p.name for p in self.extra)}"


def _same(state: Any) -> Any:
    return state


def with_properties(model: Any, extra: Iterable[Any], *, source: str | None = None) -> Any:
    """``model`` with ``extra`` added (``OwnProperty`` values from the decorators, ``isrcheck.Property``
    values, or plain named functions taken as invariants). A name that clashes with one of the
    model's, or a property that reads a field the model's options do not add, is a ``UserError``."""
    extra = [_as_property(p) for p in extra]
    if isinstance(model, WithProperties):  # adding twice adds to the first list
        return WithProperties(model.model, (*model.extra, *extra), source or model.source)
    return WithProperties(model, extra, source)


def load_properties_file(path: str | Path) -> list[OwnProperty | Property]:
    """The properties a file defines: its ``PROPERTIES`` list when it has one, else every
    ``OwnProperty`` and ``Property`` at its top level, in the file's order."""
    path = Path(path)
    if not path.is_file() or path.suffix != ".py":
        what = "is not a .py file" if path.is_file() else "does not exist"
        raise UserError(f"--properties {str(path)!r} {what}; give the path of a Python file that defines "
                        "properties with @isrcheck.invariant (docs/properties-own.md)")
    name = PROPERTIES_MODULE_PREFIX + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"--properties {str(path)!r} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # by this name, so that pickling (Spark) finds its functions again
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise UserError(f"--properties {str(path)!r} failed to load: {type(exc).__name__}: {exc}. Fix the file, "
                        f"or run python {path} to see the full traceback") from None
    finally:
        sys.path.pop(0)
    listed = getattr(module, "PROPERTIES", None)
    found = list(listed) if listed is not None else [
        v for v in vars(module).values() if isinstance(v, OwnProperty | Property)]
    if not found:
        raise UserError(f"--properties {str(path)!r} defines no property; decorate a function with "
                        "@isrcheck.invariant (or sometimes, transition), or list them in PROPERTIES")
    try:
        return [_as_property(p) for p in found]
    except UserError as exc:
        raise UserError(f"--properties {str(path)!r}: {exc}") from None


def with_properties_file(model: Any, path: str | Path) -> Any:
    """``model`` with the properties of the file at ``path`` added."""
    return with_properties(model, load_properties_file(path), source=str(path))
