"""One worker process of the parallel engine: it expands chunks of a level's frontier.

A worker is forked from the coordinator, so it already holds the model, the selected properties
and the options; it receives chunks of frontier states and sends back, for each chunk, what the
coordinator needs to replay a one-process breadth-first search over it without calling the model:

- ``counts``: how many successors each state of the chunk has (-1: outside the model's bounds, not
  expanded);
- the chunk's successors, each the first occurrence of its key within the chunk, with its
  ``where`` (position of its parent in the chunk << ``INDEX_BITS`` | successor index) and, with
  symmetry, its canonical form, and with the fingerprint store, its 64-bit fingerprint;
- property results: the first failing step of each transition property, and for each shipped
  successor the always properties it fails and the sometimes properties it reaches (the worker
  cannot know which successors are new; the coordinator does).

What the worker does not do: decide which states are new, number them or choose a violation.
The coordinator does all of that in search order, so the outcome cannot depend on timing.
"""

from __future__ import annotations

import pickle
import signal
from array import array
from typing import Any

from explorer.contract import within_bounds
from explorer.errors import ContractError
from explorer.fingerprint import encode
from explorer.store_compact import fingerprint64

CONTRACT_SAMPLE = 500
# ``where`` and the trace keys are (parent << INDEX_BITS) | successor index.
INDEX_BITS = 24
MAX_SUCCESSORS = (1 << INDEX_BITS) - 1


class Expander:
    """Expands chunks; forked with the run's context."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.sampled = 0

    def expand(self, chunk: list[Any], skip: frozenset[str]) -> tuple:
        ctx, model = self.ctx, self.ctx.model
        successors, canon = model.successors, ctx.canon
        fingerprints = ctx.store == "fingerprint"
        bounded = hasattr(model, "within_bounds")
        transition = [(n, p) for n, p in enumerate(ctx.props.transition) if p.name not in skip]
        always = [(n, p.predicate) for n, p in enumerate(ctx.props.always) if p.name not in skip]
        sometimes = [(n, p.predicate) for n, p in enumerate(ctx.props.sometimes) if p.name not in skip]
        counts = array("l")
        succs: list[Any] = []
        canons: list[Any] | None = [] if canon is not None else None
        fps = array("q")
        where = array("Q")
        step_failures: list[tuple[int, int, int]] = []
        state_failures: list[tuple[int, int]] = []
        reached: list[tuple[int, int]] = []
        local: dict[Any, int] = {}
        setdefault = local.setdefault
        for pos, state in enumerate(chunk):
            if bounded and not within_bounds(model, state):
                counts.append(-1)
                continue
            if self.sampled < CONTRACT_SAMPLE:
                self.sampled += 1
                encode(state)  # refuses floats, lists, dicts with a clear ContractError
            base = pos << INDEX_BITS
            idx = -1
            for idx, (action, succ) in enumerate(successors(state)):
                if transition:
                    for n, prop in list(transition):
                        if not prop.predicate(state, action, succ):
                            step_failures.append((pos, idx, n))
                            transition.remove((n, prop))  # the chunk's first failure is all that counts
                kt = canon(succ) if canon is not None else succ
                size = len(local)
                try:
                    if setdefault(kt, size) != size:
                        continue
                except TypeError as exc:
                    raise _unhashable(succ, exc) from None
                succs.append(succ)
                where.append(base | idx)
                if canons is not None:
                    canons.append(kt)
                if fingerprints:
                    fps.append(fingerprint64(kt))
                if always:
                    for n, pred in always:
                        if not pred(succ):
                            state_failures.append((size, n))
                if sometimes:
                    for n, pred in sometimes:
                        if pred(succ):
                            reached.append((size, n))
            if idx >= MAX_SUCCESSORS:
                raise ContractError(f"a state has {idx + 1} successors; the parallel engine allows at most "
                                    f"{MAX_SUCCESSORS}; run with --workers 1")
            counts.append(idx + 1)
        return counts, succs, canons, fps if fingerprints else None, where, step_failures, state_failures, reached


def _unhashable(state: Any, exc: Exception) -> ContractError:
    return ContractError(
        f"a state is not hashable ({exc}); states must be built from ints, strings, tuples and "
        f"frozensets, not lists, sets or dicts: {state!r:.200}"
    )


def serve(ctx: Any, tasks: Any, results: Any) -> None:
    """The worker's loop: expand each chunk from ``tasks``; put (chunk id, "ok", result) or
    (chunk id, "error", exception) on ``results``; stop at None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C and stops us
    expander = Expander(ctx)
    while True:
        task = tasks.get()
        if task is None:
            return
        chunk_id, chunk, skip = task
        try:
            results.put((chunk_id, "ok", expander.expand(chunk, skip)))
        except BaseException as exc:  # every failure goes back to the coordinator, which raises it
            try:
                pickle.dumps(exc)
            except Exception:
                exc = RuntimeError(f"a parallel worker failed: {exc!r}")
            results.put((chunk_id, "error", exc))
