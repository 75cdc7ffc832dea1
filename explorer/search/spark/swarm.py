"""Swarm simulation on Spark: ranges of behaviours walked on executors, in waves.

Behaviour i walks under its own seed (``isrcheck.explorer.search.swarm.behaviour_seed``), so a range
of behaviours can be walked on any executor and the run's result is the one-process swarm's, for
any executor and partition count. The behaviours are cut into waves of growing size (``FIRST`` per
task, then four times more each wave), each wave into ``slices`` contiguous ranges, one task each;
the run stops after the first wave with a violation, and reports the one with the smallest
behaviour index (``merge_chunks``). Waves bound the work wasted past an early violation: a single
job over every behaviour would walk all of them before the driver could see the first one.

The model travels as the breadth-first engine ships it (``session.make_payload``; a user's file and
helpers included). Ctrl-C cancels the running wave; the result covers the waves completed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from typing import Any

from isrcheck.explorer.errors import ModelError, UserError
from isrcheck.explorer.result import Trace
from isrcheck.explorer.search.simulate import SimulationResult
from isrcheck.explorer.search.spark.interrupt import Interrupts
from isrcheck.explorer.search.spark.items import executor_error, map_on_executors
from isrcheck.explorer.search.spark.level import Context, model_modules, rehack, unhack_namedtuples
from isrcheck.explorer.search.spark.session import get_session, helper_modules, make_payload
from isrcheck.explorer.search.swarm import (
    ChunkReport,
    check_bounds,
    first_fault,
    initial_states,
    merge_chunks,
    walk_chunk,
)
from isrcheck.explorer.selection import select_properties

# Behaviours per task in the first wave; each later wave is GROWTH times larger. Small enough that
# an early violation costs little, large enough that a task outweighs its scheduling (~ms).
FIRST = 64
GROWTH = 4


def walk_item(depth: int, seed: int, ctx: Context, item: tuple[int, int]) -> ChunkReport:
    """One task: behaviours ``item[0]`` .. ``item[1] - 1`` on an executor."""
    start, stop = item
    return walk_chunk(ctx.model, ctx.props, initial_states(ctx.model), depth=depth, seed=seed,
                      start=start, stop=stop, catch_faults=True)


def waves(behaviours: int, slices: int) -> list[list[tuple[int, int]]]:
    """The run's waves, each a list of contiguous (start, stop) ranges covering it."""
    plan, start, size = [], 0, FIRST * slices
    while start < behaviours:
        stop = min(behaviours, start + size)
        step = -(-(stop - start) // slices)
        plan.append([(a, min(stop, a + step)) for a in range(start, stop, step)])
        start, size = stop, size * GROWTH
    return plan


def simulate_spark(model: Any, *, depth: int, behaviours: int, seed: int = 0,
                   properties: Sequence[str] | None = None, master: str | None = None,
                   partitions: int | None = None) -> SimulationResult:
    """A swarm simulation over Spark executors; the same result as
    ``isrcheck.explorer.search.swarm.swarm`` with the same arguments. ``partitions``: tasks per wave
    (default twice the default parallelism, at least 2)."""
    check_bounds(depth, behaviours, seed)
    if partitions is not None and (not isinstance(partitions, int) or isinstance(partitions, bool) or partitions < 1):
        raise UserError(f"partitions must be an integer >= 1, not {partitions!r}")
    props = select_properties(model, properties)  # unknown names refused before Spark starts
    initial_states(model)
    undone = unhack_namedtuples(model_modules(model, helper_modules()))
    try:
        with Interrupts() as interrupts:
            return _run(model, props, depth, behaviours, seed, master, partitions, interrupts)
    finally:
        rehack(undone)


def _run(model: Any, props: Any, depth: int, behaviours: int, seed: int, master: str | None,
         partitions: int | None, interrupts: Interrupts) -> SimulationResult:
    spark, created = get_session(master)
    interrupts.reinstall()  # starting a SparkContext installs PySpark's own SIGINT handler
    sc = spark.sparkContext
    interrupts.attach(sc, owned=created)
    slices = partitions or max(2, 2 * sc.defaultParallelism)
    payload = make_payload(sc, model, props, False, False)
    started = time.monotonic()
    reports: list[ChunkReport] = []
    interrupted = False
    fn = partial(walk_item, depth, seed)
    try:
        for wave in waves(behaviours, slices):
            if interrupts.requested:
                raise KeyboardInterrupt
            reports += map_on_executors(sc, payload, fn, wave)
            fault = first_fault(reports)
            if fault is not None:
                raise _model_error(model, fault)
            if any(r.violation is not None or r.fault is not None for r in reports):
                break
    except KeyboardInterrupt:
        interrupted = True
    except ModelError:
        raise
    except Exception as exc:
        if not interrupts.requested:  # a Ctrl-C cancels the wave: its collect fails with "job cancelled"
            mapped = executor_error(exc)
            if mapped is None:
                raise
            raise mapped from None
        interrupted = True
    if interrupted:
        interrupts.settle()
        sc.cancelAllJobs()
    return merge_chunks(reports, props, depth=depth, seed=seed, elapsed=time.monotonic() - started,
                        interrupted=interrupted)


def _model_error(model: Any, fault: dict[str, Any]) -> ModelError:
    """The exit-4 report of a model's exception on an executor, as one process gives it."""
    steps = fault["steps"]
    note = f"(behaviour {fault['index']} of the swarm, on an executor)"
    if fault["frames"]:
        note = f"The model's frames on the executor (most recent call last):\n{fault['frames']}\n{note}"
    return ModelError(fault["what"], fault["cause"], model=model, state=steps[-1].state,
                      trace=Trace(tuple(steps)), note=note)
