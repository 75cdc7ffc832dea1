"""Swarm simulation: many random behaviours, each under a seed of its own, in any number of chunks.

``isrcheck.explorer.search.simulate`` drives every behaviour from one ``random.Random(seed)``, so
behaviour i depends on every behaviour before it and the run cannot be split. A swarm gives
behaviour i its own generator, seeded by ``behaviour_seed(seed, i)`` (BLAKE2b of the run's seed and
i: the same in every process, unlike ``hash()``), so any range of behaviours can be walked anywhere
and the run is the same whatever the split: the same behaviours, the same first violation, the
same counts. That is what lets Spark executors share the work (``isrcheck.explorer.search.spark.swarm``)
and what ``swarm`` below does in one process, for comparison and for tests.

The first violation is the one of the smallest behaviour index. A chunk walks its range in order
and stops at its first violation; merging keeps the smallest index over all chunks and counts only
behaviours up to it (those after it may have been walked by other chunks, but a run in one process
would never have reached them). So ``behaviours``, ``states``, ``longest`` and what ``sometimes``
properties were reached are those of a sequential walk of behaviours 0, 1, ... up to the first
violation, for any number of chunks.

Nothing here imports pyspark: executors import this module.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any

from isrcheck.explorer.contract import within_bounds
from isrcheck.explorer.errors import ContractError, UserError
from isrcheck.explorer.result import Step, Trace, Violation
from isrcheck.explorer.search.simulate import SimulationResult
from isrcheck.explorer.selection import Selected, describe_failure, select_properties

# Behaviours per chunk in one process; any size gives the same result.
CHUNK = 256


def behaviour_seed(seed: int, index: int) -> int:
    """The seed of behaviour ``index`` of a run seeded ``seed``: a 64-bit BLAKE2b digest, equal in
    every process and on every machine (``hash()`` of strings is salted per process)."""
    return int.from_bytes(blake2b(f"isrcheck-swarm:{seed}:{index}".encode(), digest_size=8).digest(), "big")


def check_bounds(depth: Any, behaviours: Any, seed: Any) -> None:
    """The same refusals as ``simulate``'s, before any work (or any Spark session) starts."""
    for name, value, low in (("depth", depth, 1), ("behaviours", behaviours, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise UserError(f"{name} must be an integer >= {low}, not {value!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise UserError(f"seed must be an integer, not {seed!r}")


@dataclass
class ChunkReport:
    """What walking behaviours ``start`` to ``stop - 1`` found, up to the chunk's first violation:
    ``tried`` behaviours walked, their ``states`` and ``longest``, the violation with its behaviour
    index, and for each ``sometimes`` property the first (behaviour, state index) that reached it."""

    start: int
    stop: int
    tried: int = 0
    states: int = 0
    longest: int = 0
    violation: tuple[int, Violation] | None = None
    reached: dict[str, tuple[int, int]] = field(default_factory=dict)
    fault: dict[str, Any] | None = None  # the model raised (``catch_faults``): see ``model_fault``


def walk_chunk(model: Any, props: Selected, inits: Sequence[Any], *, depth: int, seed: int,
               start: int, stop: int, catch_faults: bool = False) -> ChunkReport:
    """Walk behaviours ``start`` .. ``stop - 1`` (each under ``behaviour_seed(seed, i)``), checking
    as ``simulate`` checks: invariants and ``sometimes`` on every state, transition properties on
    every step; stop at the first violation. ``catch_faults``: an exception the model raises ends
    the chunk as ``report.fault`` instead of propagating (on an executor, where its traceback would
    reach the driver only as text inside a Spark error)."""
    report = ChunkReport(start, stop)
    for index in range(start, stop):
        rng = random.Random(behaviour_seed(seed, index))
        steps = [Step(None, rng.choice(inits))]
        try:
            violation = _check_state(props, report, index, steps)
            while violation is None and len(steps) < depth:
                state = steps[-1].state
                if not within_bounds(model, state):
                    break
                succ = list(model.successors(state))
                if not succ:
                    break
                action, nxt = succ[rng.randrange(len(succ))]
                steps.append(Step(action, nxt))
                violation = _check_step(props, steps) or _check_state(props, report, index, steps)
        except Exception as exc:
            if not catch_faults:
                raise
            report.fault = model_fault(exc, index, steps)
            break
        report.tried += 1
        report.states += len(steps)
        report.longest = max(report.longest, len(steps))
        if violation is not None:
            report.violation = (index, violation)
            break
    return report


def _check_state(props: Selected, report: ChunkReport, index: int, steps: list[Step]) -> Violation | None:
    state = steps[-1].state
    for prop in props.always:
        if not prop.predicate(state):
            return Violation(prop.name, "always", Trace(tuple(steps)), describe_failure(prop, state))
    for prop in props.sometimes:
        if prop.name not in report.reached and prop.predicate(state):
            report.reached[prop.name] = (index, len(steps) - 1)
    return None


def _check_step(props: Selected, steps: list[Step]) -> Violation | None:
    if len(steps) < 2:
        return None
    state, action, nxt = steps[-2].state, steps[-1].action, steps[-1].state
    for prop in props.transition:
        if not prop.predicate(state, action, nxt):
            return Violation(prop.name, "transition", Trace(tuple(steps)), describe_failure(prop, state, action, nxt))
    return None


def model_fault(exc: Exception, index: int, steps: list[Step]) -> dict[str, Any]:
    """What the driver needs to report a model's exception as ``ModelError`` (exit 4): the
    exception itself (or its text, if it does not pickle), the model's own frames as text (those
    outside isrcheck), the behaviour and the path to the state being expanded."""
    import pickle
    import traceback
    from pathlib import Path

    package = str(Path(__file__).resolve().parents[1])  # isrcheck.explorer: the checker's frames
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not str(Path(f.filename).resolve()).startswith(package)]
    try:
        cause: Exception = pickle.loads(pickle.dumps(exc))
    except Exception:
        cause = RuntimeError(f"{type(exc).__name__}: {exc}")
    return {"index": index, "cause": cause, "what": f"the model's {frames[0].name}()" if frames else "the model",
            "frames": "".join(traceback.format_list(frames)).rstrip("\n"), "steps": tuple(steps)}


def first_fault(reports: Iterable[ChunkReport]) -> dict[str, Any] | None:
    """The model fault of the smallest behaviour index, if it comes before every violation: a
    sequential walk would have stopped there."""
    faults = [r.fault for r in reports if r.fault is not None]
    if not faults:
        return None
    fault = min(faults, key=lambda f: f["index"])
    last = first_violation(reports)
    return fault if last is None or fault["index"] < last else None


def first_violation(reports: Iterable[ChunkReport]) -> int | None:
    """The smallest behaviour index with a violation, over ``reports``."""
    found = [r.violation[0] for r in reports if r.violation is not None]
    return min(found) if found else None


def merge_chunks(reports: Sequence[ChunkReport], props: Selected, *, depth: int, seed: int, elapsed: float,
                 interrupted: bool = False) -> SimulationResult:
    """One result from chunk reports covering behaviours 0 .. n-1 without gaps (any split, any
    order): what a sequential walk up to the first violation gives."""
    last = first_violation(reports)
    tried = states = longest = 0
    reached: dict[str, tuple[int, int]] = {}
    violation = None
    for report in sorted(reports, key=lambda r: r.start):
        if last is not None and report.start > last:
            continue  # walked after the first violation: a sequential run never gets here
        tried += report.tried
        states += report.states
        longest = max(longest, report.longest)
        if report.violation is not None and report.violation[0] == last:
            violation = report.violation[1]
        for name, where in report.reached.items():
            if name not in reached or where < reached[name]:
                reached[name] = where
    order = [p.name for p in props.sometimes]
    reached_names = sorted(reached, key=lambda n: (*reached[n], order.index(n)))
    return SimulationResult(
        behaviours=tried, states=states, longest=longest, depth=depth, seed=seed,
        violations=[violation] if violation else [], elapsed=elapsed, reached=reached_names,
        not_reached=[n for n in order if n not in reached], interrupted=interrupted)


def initial_states(model: Any) -> list[Any]:
    """The model's initial states, or the contract error ``simulate`` gives for none."""
    inits = list(model.init_states())
    if not inits:
        raise ContractError(f"{type(model).__name__}.init_states() returned no state; a model needs at least one")
    return inits


def swarm(model: Any, *, depth: int, behaviours: int, seed: int = 0, properties: Sequence[str] | None = None,
          chunk: int = CHUNK) -> SimulationResult:
    """A swarm run in this process, chunk after chunk: the result a Spark swarm of the same
    arguments gives on any number of executors and partitions."""
    check_bounds(depth, behaviours, seed)
    props = select_properties(model, properties)
    inits = initial_states(model)
    started = time.monotonic()
    reports: list[ChunkReport] = []
    interrupted = False
    try:
        for start in range(0, behaviours, chunk):
            reports.append(walk_chunk(model, props, inits, depth=depth, seed=seed,
                                      start=start, stop=min(behaviours, start + chunk)))
            if reports[-1].violation is not None:
                break
    except KeyboardInterrupt:
        interrupted = True
    return merge_chunks(reports, props, depth=depth, seed=seed, elapsed=time.monotonic() - started,
                        interrupted=interrupted)
