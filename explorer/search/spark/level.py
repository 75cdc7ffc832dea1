"""What every piece of a distributed level shares: the run's context, rebuilt once per executor
process, the shipping of users' modules, and the reports a level's tasks send back.

A level is two steps (``steps``: ``expand`` and ``merge``), run on blocks of states by the tasks of
``tasks`` on executors and by the driver itself for small levels.

Every choice is made by a total order on fingerprints, never by arrival order, because arrival
order after a shuffle depends on the executor count and on timing: when several parents reach
the same new state, the parent kept is the smallest ``(parent fingerprint, action index)``; when
several states violate a property in one level, the one reported is the smallest fingerprint
(for a transition property, the smallest ``(source fingerprint, action index)``). So a run gives
the same counts, the same parents and the same traces on any number of executors, and whether a
level ran on the driver or on the cluster.

Nothing here imports pyspark: executors import this module to run the functions the driver
pickled, and the driver runs the same functions in process for small levels.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
from collections.abc import Iterable
from hashlib import blake2b
from typing import Any

from isrcheck.explorer.contract import packing
from isrcheck.explorer.search.fingerprint import fingerprint_bytes

# Tags of the records a distributed level produces (the second element of each (key, value)).
# Each is one block of a partition: its visited set, one level's parent records, one level's new
# states, one expansion task's candidates for it, or a reference to the file holding them
# (``candfiles``).
VISITED, PARENTS, STATE, CANDS, RUN, CANDS_FILE = "V", "P", "S", "C", "R", "F"
# States of each partition's batch expanded twice more against the model contract
# (``isrcheck.explorer.search.audit``); the driver audits the first levels' states itself (``DRIVER_AUDIT``).
PARTITION_AUDIT = 2
DRIVER_AUDIT = 500


def fp128(state: Any) -> int:
    """``isrcheck.explorer.search.fingerprint.fingerprint(state, bits=128)``: a state's fingerprint as
    an int, for a model without ``pack`` (the engine keeps it as 16 bytes, ``fingerprint_bytes``)."""
    return int.from_bytes(fingerprint_bytes(state), "big")


_PACKED = b"isrcheck-packed"
_dumps, _blake2b = marshal.dumps, blake2b
_TEMPLATE = blake2b(digest_size=16, person=_PACKED)


def packed_key(packed: Any, _dumps=marshal.dumps, _blake2b=blake2b) -> bytes:
    """The 128-bit fingerprint of a state through the model's ``pack``: where ``pack`` gives an int
    (the classic model), BLAKE2b of its ``marshal`` bytes, all in C, with its own personalization
    (so it never shares an input with ``fingerprint_bytes``); any other packed value through
    ``fingerprint_bytes``. ``pack`` is exact, so this identifies states as well as the state's own
    fingerprint does."""
    if type(packed) is int:
        return _blake2b(_dumps(packed, 2), digest_size=16, person=_PACKED).digest()
    return fingerprint_bytes(packed)


def _same(value: Any) -> Any:
    return value


def partition_of(key: int) -> int:
    """The partitioner of every distributed set: the key itself, which Spark takes modulo the
    partition count. Keys are fingerprints (uniform low bits) or, for per-partition blocks, the
    partition index itself, so one function places both and the RDDs stay co-partitioned."""
    return key


class Context:
    """What every batch needs: the model, the selected properties and the options of the run."""

    def __init__(self, model: Any, props: Any, symmetry: bool, check_deadlock: bool):
        self.model = model
        self.props = props
        self.check_deadlock = check_deadlock
        self.bounded = hasattr(model, "within_bounds")
        canon = getattr(model, "canonical", None) if symmetry else None
        pack, unpack = packing(model)
        self.packs = pack is not None
        # States travel and are stored packed (the classic model's one int) where the model packs.
        self.pack, self.unpack = (pack, unpack) if pack is not None else (_same, _same)
        # A state's identity within a batch (equal exactly for equal states, hashable): its packed
        # form, or with symmetry its canonical state's; ``ident_of`` None means the packed state
        # itself. Batches are deduplicated on it, and only what is left is fingerprinted.
        if canon is None:
            self.ident_of = None
        elif pack is not None:
            self.ident_of = lambda s: pack(canon(s))
        else:
            self.ident_of = canon
        self.key_of_ident = packed_key if pack is not None else fingerprint_bytes

    def key_of(self, state: Any) -> bytes:
        """The fingerprint of a state (16 bytes): what the visited set holds and traces are walked by."""
        return self.key_of_ident(self.pack(state) if self.ident_of is None else self.ident_of(state))

    def keys(self, idents: list[Any]) -> bytes:
        """The fingerprints of many identities, concatenated; the classic model's packed ints in
        one comprehension (no Python call per state)."""
        if self.packs and set(map(type, idents)) == {int}:
            out = []
            add = out.append
            for i in idents:  # copying a keyed hasher costs half of building one from keywords
                h = _TEMPLATE.copy()
                h.update(_dumps(i, 2))
                add(h.digest())
            return b"".join(out)
        return b"".join(map(self.key_of_ident, idents))


_CONTEXTS: dict[str, Context] = {}


def load_context(payload: tuple) -> Context:
    """The run's context on an executor, unpickled once per Python worker process.

    ``payload`` is (digest, cloudpickled (model, props, symmetry, check_deadlock, classes of
    ``__main__``), user modules, helper zip) as ``session.make_payload`` makes it. User model
    files (loaded by ``isrcheck.explorer.registry`` as ``isrcheck_user_model_<stem>``) are not importable on
    executors, so they are shipped with ``SparkContext.addFile`` and loaded here under the same
    module name before the model is unpickled, after the helper modules they may import; states
    and actions of classes defined there then pickle the same way in both directions.
    """
    digest, blob, modules, helpers = payload
    ctx = _CONTEXTS.get(digest)
    if ctx is None:
        ensure_helpers(helpers)
        ensure_modules(modules)
        from pyspark import cloudpickle

        model, props, symmetry, check_deadlock, classes = cloudpickle.loads(blob)
        alias_main(classes)
        unhack_namedtuples(model_modules(model, _helper_names()))
        ctx = Context(model, props, symmetry, check_deadlock)
        _CONTEXTS.clear()
        _CONTEXTS[digest] = ctx
    return ctx


HELPERS_PREFIX = "isrcheck-helpers-"
_ALIASED: dict[str, type] = {}


def ensure_helpers(name: str | None) -> None:
    """Put the shipped zip of helper modules on ``sys.path`` (last: what the executor has installed
    wins), forgetting the modules a reused Python worker loaded from an earlier run's zip."""
    if name is None:
        return
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    if path in sys.path:
        return
    for old in [p for p in sys.path if os.path.basename(p).startswith(HELPERS_PREFIX)]:
        sys.path.remove(old)
        for module_name, module in list(sys.modules.items()):
            if (getattr(module, "__file__", None) or "").startswith(old + os.sep):
                del sys.modules[module_name]
    sys.path.append(path)
    importlib.invalidate_caches()


def _helper_names() -> list[str]:
    """Modules this worker loaded from the shipped helper zip."""
    zips = tuple(p + os.sep for p in sys.path if os.path.basename(p).startswith(HELPERS_PREFIX))
    return [n for n, m in list(sys.modules.items()) if zips and (getattr(m, "__file__", None) or "").startswith(zips)]


def ensure_modules(modules: Iterable[tuple[str, str]]) -> None:
    from pyspark import SparkFiles

    for name, filename in modules:
        path = SparkFiles.get(filename)
        if getattr(sys.modules.get(name), "__file__", None) == path:
            continue  # loaded by an earlier task of this run (a reused Python worker)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)


def model_modules(model: Any, extra: Iterable[str] = ()) -> list[str]:
    """Names of the loaded modules whose classes may make up states: ``__main__``, the model's own
    package (or module), user model files and ``extra`` (helper modules)."""
    top = type(model).__module__.split(".")[0]
    names = {"__main__", *extra}
    names.update(n for n in sys.modules if n == top or n.startswith(top + ".") or n.startswith("isrcheck_user_model_"))
    return sorted(n for n in names if n in sys.modules)


def unhack_namedtuples(module_names: Iterable[str]) -> list[tuple[type, Any]]:
    """Let the namedtuple classes of these modules pickle by reference again; returns what to put
    back (``rehack``).

    With ``PYSPARK_ENABLE_NAMEDTUPLE_PATCH=1`` (PySpark's switch back to its 3.x record pickling),
    PySpark, once imported, makes every namedtuple class created afterwards (and those already in
    ``__main__``) pickle by name and field names: the receiving process rebuilds a bare namedtuple
    class, without the user's methods and properties, so a model whose successors call a method of
    its state class fails on executors (or, for states that executors send back, on the driver).
    The engine makes sure these classes exist on executors under the same names (shipped modules,
    ``alias_main``), so plain pickling by reference is correct and keeps the class whole."""
    undone = []
    for name in module_names:
        for value in list(vars(sys.modules[name]).values()):
            if (isinstance(value, type) and issubclass(value, tuple) and value.__module__ == name
                    and value.__dict__.get("_is_namedtuple_") and "__reduce__" in value.__dict__):
                undone.append((value, value.__dict__["__reduce__"]))
                delattr(value, "__reduce__")
    return undone


def rehack(undone: Iterable[tuple[type, Any]]) -> None:
    """Put back what ``unhack_namedtuples`` took away (the user's session keeps PySpark's behaviour)."""
    for cls, reduce in undone:
        cls.__reduce__ = reduce


def alias_main(classes: dict[str, type]) -> None:
    """Register the driver's ``__main__`` classes in this worker's ``__main__`` under their names,
    for records pickled by plain pickle (``PYSPARK_ENABLE_NAMEDTUPLE_PATCH=1``), which name them
    ``__main__.<class>``; PySpark 4's default record pickling (cloudpickle) carries them by value.
    Only in a PySpark worker (never in the driver, whose ``__main__`` holds the originals), and
    never over a name the worker's own ``__main__`` uses."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    # a worker's __main__ is the daemon it was forked from: PySpark's, or the engine's (``daemon``)
    if main is None or not getattr(spec, "name", "").startswith(("pyspark.", "isrcheck.explorer.search.spark.daemon")):
        return
    for name, cls in classes.items():
        if name not in vars(main) or _ALIASED.get(name) is getattr(main, name):
            setattr(main, name, cls)
            _ALIASED[name] = cls


# -- reports: what a batch found, merged by sums and minima so the merge order does not matter ----


def new_report() -> dict[str, Any]:
    # blocks: the new states of partitions with few of them, (index, fingerprints, states), so the
    # driver gets a small level's frontier without a second job; unsent: partitions that did not send
    # them; missing: partitions that found no kept visited array or states file (``resident``) and
    # wrote nothing; kept_states, kept_fps: partitions whose new states, whose visited array, are
    # kept as a file (``resident``); cand_files: CANDS blocks a merge read from files (``candfiles``)
    return {"generated": 0, "expanded": 0, "new": 0, "always": {}, "sometimes": {}, "transition": {},
            "deadlock": None, "blocks": [], "unsent": 0, "missing": 0, "kept_states": 0, "kept_fps": 0,
            "cand_files": 0}


def merge_reports(reports: Iterable[dict[str, Any]]) -> dict[str, Any]:
    total = new_report()
    for rep in reports:
        for field in ("generated", "expanded", "new", "unsent", "missing", "kept_states", "kept_fps", "cand_files"):
            total[field] += rep[field]
        total["blocks"].extend(rep["blocks"])
        for field in ("always", "sometimes", "transition"):
            mine = total[field]
            for name, value in rep[field].items():
                if name not in mine or value < mine[name]:
                    mine[name] = value
        if rep["deadlock"] is not None and (total["deadlock"] is None or rep["deadlock"] < total["deadlock"]):
            total["deadlock"] = rep["deadlock"]
    return total


class ReportParam:
    """Accumulator of a level's reports, one per task: {(stage, partition): report}.

    Keyed, not summed, because Spark may run a task twice and add both updates: when an executor
    is lost, the expansion tasks whose shuffle output it held run again (a shuffle-map task's
    accumulator updates count every successful attempt). Tasks are deterministic, so a second
    report of one key is the first one again, and ``total`` counts it once."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:  # noqa: N802 (Spark's name)
        a.update(b)
        return a


def total(reports: dict) -> dict[str, Any]:
    """A level's report: the tasks' reports merged (sums and minima), each task counted once."""
    return merge_reports(rep for _, rep in sorted(reports.items(), key=lambda item: item[0]))
