"""One BFS level's work on a batch of states, the same code on the driver and on every executor.

A level is two steps. ``expand`` turns a batch of frontier states into candidate successors keyed
by 128-bit fingerprint, deduplicated within the batch (map-side), and checks transition
properties and deadlocks on the way. ``dedup`` takes every candidate of one fingerprint range
(one shuffle partition) with that range's visited set and keeps the candidates not seen before,
checking ``always`` and ``sometimes`` properties on them.

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
import itertools
import os
import pickle
import sys
from collections.abc import Iterable, Iterator
from hashlib import blake2b
from typing import Any

from isrcheck.explorer.search.audit import audit_successors
from isrcheck.explorer.search.fingerprint import encode

# Tags of the records a distributed level produces (the second element of each (key, value)).
VISITED, PARENTS, EXPANDED, STATE = "V", "P", "E", "S"
# States of each partition's batch expanded twice more against the model contract
# (``isrcheck.explorer.search.audit``); the driver audits the first levels' states itself (``DRIVER_AUDIT``).
PARTITION_AUDIT = 2
DRIVER_AUDIT = 500


def fp128(state: Any) -> int:
    """``isrcheck.explorer.search.fingerprint.fingerprint(state, bits=128)``, inlined for the hot loop."""
    return int.from_bytes(blake2b(encode(state), digest_size=16).digest(), "big")


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
        self.key_of = (lambda s: fp128(canon(s))) if canon is not None else fp128


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
    if main is None or not getattr(spec, "name", "").startswith("pyspark."):
        return
    for name, cls in classes.items():
        if name not in vars(main) or _ALIASED.get(name) is getattr(main, name):
            setattr(main, name, cls)
            _ALIASED[name] = cls


# -- reports: what a batch found, merged by sums and minima so the merge order does not matter ----


def new_report() -> dict[str, Any]:
    return {"generated": 0, "expanded": 0, "new": 0, "always": {}, "sometimes": {}, "transition": {},
            "deadlock": None}


def merge_reports(reports: Iterable[dict[str, Any]]) -> dict[str, Any]:
    total = new_report()
    for rep in reports:
        for field in ("generated", "expanded", "new"):
            total[field] += rep[field]
        for field in ("always", "sometimes", "transition"):
            mine = total[field]
            for name, value in rep[field].items():
                if name not in mine or value < mine[name]:
                    mine[name] = value
        if rep["deadlock"] is not None and (total["deadlock"] is None or rep["deadlock"] < total["deadlock"]):
            total["deadlock"] = rep["deadlock"]
    return total


# -- the two steps of a level -------------------------------------------------------------------


def initial_candidates(ctx: Context) -> tuple[dict[int, tuple[Any, int, Any]], dict[str, Any]]:
    """Level 1's candidates: the initial states, parent None, ordered by their index."""
    rep = new_report()
    cands: dict[int, tuple[Any, int, Any]] = {}
    for index, state in enumerate(ctx.model.init_states()):
        rep["generated"] += 1
        key = ctx.key_of(state)
        if key not in cands:  # the first index is the smallest
            cands[key] = (None, index, state)
    return cands, rep


def expand(ctx: Context, items: Iterable[tuple[int, Any]], transition: frozenset[str],
           cands: dict[int, tuple[Any, int, Any]] | None = None, audit: int = 0) -> tuple[dict, dict[str, Any]]:
    """Successors of ``items`` ((fingerprint, state) pairs) as {fingerprint: (parent, action index,
    state)}, keeping the smallest (parent, action index) per fingerprint; and the batch's report.
    ``transition`` names the transition properties still to check. The first ``audit`` states are
    expanded twice more and checked against the model contract (``isrcheck.explorer.search.audit``)."""
    model, key_of = ctx.model, ctx.key_of
    successors = model.successors
    bounded, deadlock = ctx.bounded, ctx.check_deadlock
    checks = [p for p in ctx.props.transition if p.name in transition]
    rep = new_report()
    found = rep["transition"]
    cands = {} if cands is None else cands
    generated = expanded = 0
    for fp, state in items:
        if bounded and not model.within_bounds(state):
            continue
        expanded += 1
        if audit > 0:
            audit -= 1
            audit_successors(model, state)
        aidx = -1
        for aidx, (action, nxt) in enumerate(successors(state)):
            for prop in checks:
                if not prop.predicate(state, action, nxt):
                    step = (fp, aidx)
                    if prop.name not in found or step < found[prop.name]:
                        found[prop.name] = step
            key = key_of(nxt)
            old = cands.get(key)
            if old is None or fp < old[0] or (fp == old[0] and aidx < old[1]):
                cands[key] = (fp, aidx, nxt)
        generated += aidx + 1
        if deadlock and aidx < 0 and (rep["deadlock"] is None or fp < rep["deadlock"]):
            rep["deadlock"] = fp
    rep["generated"], rep["expanded"] = generated, expanded
    return cands, rep


def better(new: tuple, old: tuple) -> bool:
    """Is candidate ``new`` (parent, action index, state) preferred over ``old``? Parents are
    None only for initial states, where every candidate has parent None."""
    if new[0] == old[0]:
        return new[1] < old[1]
    return new[0] < old[0]


def dedup(ctx: Context, seen: Any, cands: Iterable[tuple[int, tuple]], always: frozenset[str],
          sometimes: frozenset[str]) -> tuple[dict[int, tuple], dict[str, Any]]:
    """The candidates whose fingerprint is not in ``seen`` (best parent per fingerprint), and the
    report of the ``always`` and ``sometimes`` properties (named in ``always``/``sometimes``)
    on them. ``seen`` is not modified."""
    best: dict[int, tuple] = {}
    for fp, value in cands:
        if fp in seen:
            continue
        old = best.get(fp)
        if old is None or better(value, old):
            best[fp] = value
    rep = new_report()
    rep["new"] = len(best)
    inv = [p for p in ctx.props.always if p.name in always]
    wit = [p for p in ctx.props.sometimes if p.name in sometimes]
    if inv or wit:
        bad, hit = rep["always"], rep["sometimes"]
        for fp, (_, _, state) in best.items():
            for prop in inv:
                if not prop.predicate(state) and (prop.name not in bad or fp < bad[prop.name]):
                    bad[prop.name] = fp
            for prop in wit:
                if prop.predicate(state) and (prop.name not in hit or fp < hit[prop.name]):
                    hit[prop.name] = fp
    return best, rep


# -- the executor side of a distributed level ----------------------------------------------------


def expand_partition(payload: tuple, transition: frozenset[str]):
    """mapPartitions function: frontier (fingerprint, state) -> candidate records and one report,
    keyed for ``partition_of`` (the report goes to partition 0, where the level's dedup merges it)."""

    def run(items: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, tuple]]:
        ctx = load_context(payload)
        # a couple of states of every partition are audited, so a model that misbehaves only on
        # executors (a module-level cache, a set iterated in hash order) is caught there too
        cands, rep = expand(ctx, items, transition, audit=PARTITION_AUDIT)
        yield from cands.items()
        yield 0, (EXPANDED, rep)

    return run


def dedup_partition(payload: tuple, level: int, always: frozenset[str], sometimes: frozenset[str],
                    reports: Any, extra: Any = None, save_dir: str | None = None):
    """mapPartitionsWithIndex function over one partition of (the previous level's output, this
    level's candidates and expansion reports).

    Of the previous output only the visited block is read: ``(index, (VISITED, fingerprint blobs,
    parent blobs))`` with one pickled list of fingerprints and one pickled {fp: (parent, action
    index)} per level. Blobs of earlier levels are carried as opaque bytes (copied, never
    re-pickled); only this level's are new. The output is the new block and the new states as
    ``(fp, (STATE, state))``; the partition's report goes to the ``reports`` accumulator, so that
    materializing a level takes one Python pass per partition and no Python action.
    ``extra``: a broadcast of {partition: candidate records} when the candidates come from the
    driver instead of a shuffle (a small level expanded in process).
    ``save_dir``: the checkpoint's folder for this level, where each partition writes its parent
    records and new states itself (so a checkpoint costs no extra job).
    """

    def run(index: int, items: Iterator[tuple[int, tuple]]) -> Iterator[tuple[int, tuple]]:
        ctx = load_context(payload)
        fp_blobs: list[bytes] = []
        parent_blobs: list[tuple[int, bytes]] = []
        found: list[dict[str, Any]] = []
        cands: list[tuple[int, tuple]] = []
        if extra is not None:
            items = itertools.chain(items, extra.value.get(index, ()))
        for key, value in items:
            tag = value[0]
            if tag == VISITED:
                fp_blobs, parent_blobs = value[1], value[2]
            elif tag == EXPANDED:
                found.append(value[1])
            elif tag == STATE:
                continue  # the previous level's states, read by the expansion, not here
            else:
                cands.append((key, value))
        seen: set[int] = set()
        for blob in fp_blobs:
            seen.update(pickle.loads(blob))
        best, rep = dedup(ctx, seen, cands, always, sometimes)
        del seen
        found.append(rep)
        reports.add(merge_reports(found))
        parents = pickle.dumps({fp: v[:2] for fp, v in best.items()}, protocol=5)
        if save_dir is not None:
            write_part(save_dir, index, parents, [(fp, v[2]) for fp, v in best.items()])
        yield index, (VISITED, [*fp_blobs, pickle.dumps(list(best), protocol=5)], [*parent_blobs, (level, parents)])
        for fp, value in best.items():
            yield fp, (STATE, value[2])

    return run


def part_name(kind: str, index: int) -> str:
    return f"{kind}-{index:05d}.pkl"


def write_part(directory: str, index: int, parents: bytes, frontier: list[tuple[int, Any]]) -> None:
    """One partition's share of a checkpointed level, each file written whole then renamed. A task
    run again after its level was committed (a recomputed cache block) finds no folder and skips."""
    if not os.path.isdir(directory):
        return
    for kind, data in (("parents", parents), ("frontier", pickle.dumps(frontier, protocol=5))):
        final = os.path.join(directory, part_name(kind, index))
        tmp = f"{final}.tmp{os.getpid()}"
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)


def read_blocks(level_dirs: dict[int, str], driver: dict[int, tuple]):
    """mapPartitionsWithIndex function (over ``range(partitions)``): partition i's visited block
    rebuilt from the parent files of the checkpointed levels ``level_dirs`` ({level: folder}) and
    the blocks of the driver's levels."""

    def run(index: int, _: Any) -> Iterator[tuple[int, tuple]]:
        _, fp_blobs, parent_blobs = driver[index]
        fp_blobs, parent_blobs = list(fp_blobs), list(parent_blobs)
        for level in sorted(level_dirs):
            with open(os.path.join(level_dirs[level], part_name("parents", index)), "rb") as fh:
                blob = fh.read()
            fp_blobs.append(pickle.dumps(list(pickle.loads(blob)), protocol=5))
            parent_blobs.append((level, blob))
        yield index, (VISITED, fp_blobs, parent_blobs)

    return run


def read_frontier(directory: str):
    """mapPartitionsWithIndex function (over ``range(partitions)``): partition i's new states of a
    checkpointed level."""

    def run(index: int, _: Any) -> Iterator[tuple[int, Any]]:
        with open(os.path.join(directory, part_name("frontier", index)), "rb") as fh:
            yield from pickle.load(fh)

    return run


class ReportParam:
    """Accumulator of level reports (sums and minima: the merge order does not matter)."""

    def zero(self, value: dict[str, Any]) -> dict[str, Any]:
        return new_report()

    def addInPlace(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:  # noqa: N802 (Spark's name)
        return merge_reports([a, b])


def lookup_parents(level: int, keys: frozenset[int]):
    """runJob function: the (parent, action index) of ``keys`` at ``level`` in one partition's
    visited block."""

    def run(items: Iterator[tuple[int, tuple]]) -> list[tuple[int, tuple]]:
        found = []
        for _, value in items:
            if value[0] == VISITED:
                for lv, blob in value[2]:
                    if lv == level:
                        table = pickle.loads(blob)
                        found.extend((k, table[k]) for k in keys if k in table)
        return found

    return run
