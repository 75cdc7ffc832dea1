"""``isrcheck.explorer.check``: the one entry point every engine sits behind.

Options are keyword-only and validated before any state is generated, so a wrong option costs
the user a clear message, not a long run."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from isrcheck.explorer.errors import ContractError, UserError
from isrcheck.explorer.progress import Progress
from isrcheck.explorer.result import CheckResult, with_model
from isrcheck.explorer.selection import select_properties

ENGINES = ("local", "spark")
STORES = ("exact", "fingerprint")


def check(
    model: Any,
    *,
    engine: str = "local",
    max_depth: int | None = None,
    stop_at_first: bool = True,
    symmetry: bool = False,
    check_deadlock: bool = False,
    properties: Sequence[str] | None = None,
    store: str = "exact",
    progress: Progress | None = None,
    graph: bool = False,
    fairness: dict[str, str] | None = None,
    max_memory: int | str | None = "auto",
    workers: int | None = None,
    **engine_options: Any,
) -> CheckResult:
    """Explore every state of ``model`` reachable within its bounds and check its properties.

    The ``CheckResult`` records ``model`` (``result.model``, and ``Trace.model`` on its traces), so
    ``print(result)`` shows the violations' traces in the model's words, as ``isrcheck check`` does,
    and a notebook shows the result as its HTML report.

    engine: "local" (breadth-first in this process) or "spark" (the frontier sharded across
        Spark executors; extra options such as ``master`` and ``checkpoint`` go to it).
    max_depth: stop expanding at this depth (initial states are depth 1); the run is then
        reported incomplete.
    stop_at_first: stop at the first violation (TLC's default); False keeps exploring and
        reports the shortest violation of each property.
    symmetry: key states by ``model.canonical(state)``.
    check_deadlock: report a state with no successor as a "deadlock" violation.
    properties: names of the properties to check (default: all of the model's).
    store: "exact" (states themselves; no collisions) or "fingerprint" (64-bit fingerprints,
        TLC's choice, with a collision-probability estimate). Local engine only: the spark engine
        always keeps 128-bit fingerprints and reports their collision estimate.
    graph: keep the explored state graph in ``result.graph`` (``isrcheck.explorer.liveness.graph_store``); implied
        by a selected liveness property (eventually, leads-to). Local engine only.
    fairness: ``{family: "weak" | "strong"}`` to assume instead of the model's ``fairness()``.
    max_memory: the local engine's ceiling on resident memory, in bytes, or a size text ("4G",
        "50%"); "auto" (default): 80 % of the machine's memory; None: no ceiling. A run that
        reaches it stops cleanly and reports ``result.limit == "memory"``.
    workers: processes for the local engine (None, the default: every core this process may use,
        except that the state graph and liveness properties take one process unless workers is
        given). 1 is the one-process engine; more fork workers (``isrcheck.explorer.search.parallel``)
        and give the same counts, depth, verdicts and traces, and the same state graph and liveness
        verdicts.
    """
    _validate(model, engine=engine, max_depth=max_depth, store=store)
    if symmetry:
        from isrcheck.explorer.search.local import make_key

        make_key(model, symmetry=True, store=store)  # refuses a model without canonical(), before anything else
    explicit_workers = workers is not None
    workers = resolve_workers(workers, engine)
    props = select_properties(model, properties)
    if not props.names and not check_deadlock:
        declared = [p.name for p in model.properties()]
        raise ContractError(
            "nothing to check: the model declares no properties, so a run would prove nothing; add one to "
            "properties() (Property.always(...)), or pass --deadlock to check only that every state has a successor"
            if not declared else
            "nothing to check: none of the model's properties runs by default (all are opt-in: "
            f"{', '.join(declared)}); name the ones to check with --invariant NAME"
        )
    if fairness is not None and not props.liveness:
        # Nothing would read it, so its family names would go unchecked: refuse rather than ignore.
        live = [p.name for p in model.properties() if p.kind.is_liveness]
        raise UserError("fairness applies to liveness properties (eventually, leads-to) and this run checks none; "
                        + (f"name one with --invariant: {', '.join(live)}" if live else "the model has none"))
    wants_graph = graph or bool(props.liveness)
    if wants_graph and engine != "local":
        what = "liveness properties (" + ", ".join(p.name for p in props.liveness) + ")" if props.liveness \
            else "the state graph"
        raise UserError(f"the {engine} engine does not check {what}; use --engine local, or leave them out")
    if engine == "local":
        if engine_options:
            _refuse_unknown_options(engine_options)
            raise UserError(
                f"option(s) {', '.join(sorted(engine_options))} apply to the spark engine only; "
                "drop them or pass engine='spark'"
            )
        if wants_graph and not explicit_workers:
            # The sharded graph (parallel/graph.py) assembles its edges in the coordinator, one Python
            # step per edge: measured slower than one process on two cores (docs/performance.md), so
            # the default gives way to one process; an explicit --workers N still shards the graph.
            workers = 1
        if workers > 1 and not wants_graph:
            from isrcheck.explorer.search.parallel import run_parallel

            return with_model(run_parallel(
                model, props, workers=workers, max_depth=max_depth, stop_at_first=stop_at_first, symmetry=symmetry,
                check_deadlock=check_deadlock, store=store, progress=progress, memory_limit=_memory_limit(max_memory),
            ), model)
        from isrcheck.explorer.search.local import run_local

        if not wants_graph:
            return with_model(run_local(model, props, max_depth=max_depth, stop_at_first=stop_at_first,
                                        symmetry=symmetry, check_deadlock=check_deadlock, store=store,
                                        progress=progress, memory_limit=_memory_limit(max_memory)), model)
        from isrcheck.explorer.liveness.checker import run_with_graph

        return with_model(run_with_graph(model, props, max_depth=max_depth, stop_at_first=stop_at_first,
                                         symmetry=symmetry, check_deadlock=check_deadlock, store=store,
                                         progress=progress, fairness=fairness, workers=workers,
                                         memory_limit=_memory_limit(max_memory)), model)
    if max_memory != "auto":
        raise UserError("--max-memory applies to the local engine; size the spark engine with --driver-memory "
                        "and the executors' own settings")
    try:
        from isrcheck.explorer.search.spark.engine import run_spark
    except ImportError as exc:
        raise UserError(
            f"the spark engine is not available here ({exc}); install pyspark or use --engine local"
        ) from None
    return with_model(run_spark(model, props, max_depth=max_depth, stop_at_first=stop_at_first, symmetry=symmetry,
                                check_deadlock=check_deadlock, progress=progress, **engine_options), model)


def _refuse_unknown_options(engine_options: dict[str, Any]) -> None:
    """A keyword neither ``check`` nor the spark engine takes is a misspelling, not a spark option."""
    import inspect

    from isrcheck.explorer.search.spark.engine import OPTIONS as SPARK_OPTIONS

    unknown = sorted(set(engine_options) - set(SPARK_OPTIONS))
    if unknown:
        own = [n for n, p in inspect.signature(check).parameters.items() if p.kind is p.KEYWORD_ONLY]
        raise UserError(f"unknown option(s) {', '.join(unknown)}; isrcheck.check takes {', '.join(own)}, and with "
                        f"engine='spark' also {', '.join(SPARK_OPTIONS)}")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_workers(workers: int | None, engine: str = "local") -> int:
    """The number of local-engine processes for ``workers`` (None: every available core)."""
    if workers is None:  # the parallel engine forks its workers: where there is no fork, one process
        return available_cores() if engine == "local" and hasattr(os, "fork") else 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise UserError(f"workers must be a positive integer (or omitted for every core), not {workers!r}")
    if workers > 1 and not hasattr(os, "fork"):
        raise UserError("more than one worker needs os.fork, which this platform lacks; use --workers 1")
    if workers > 1 and engine != "local":
        raise UserError("workers applies to the local engine; the spark engine spreads work over its executors")
    return workers


def _memory_limit(max_memory: int | str | None) -> int | None:
    from isrcheck.explorer.search.memory import default_ceiling, parse_size

    if max_memory == "auto":
        return default_ceiling()
    if max_memory is None or isinstance(max_memory, int) and not isinstance(max_memory, bool):
        if max_memory is not None and max_memory <= 0:
            raise UserError(f"max_memory must be a positive number of bytes, not {max_memory!r}")
        return max_memory
    if isinstance(max_memory, str):
        return parse_size(max_memory)
    raise UserError(f"max_memory must be bytes, a size such as '4G', 'auto' or None, not {max_memory!r}")


def _validate(model: Any, *, engine: str, max_depth: int | None, store: str) -> None:
    if engine not in ENGINES:
        raise UserError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if store not in STORES:
        raise UserError(f"unknown store {store!r}; choose one of {', '.join(STORES)}")
    if max_depth is not None and (not isinstance(max_depth, int) or max_depth < 1):
        raise UserError(f"max_depth must be a positive integer (initial states are depth 1), not {max_depth!r}")
    missing = [m for m in ("init_states", "successors", "properties") if not callable(getattr(model, m, None))]
    if missing:  # the factory handed back something else: the model broke the contract (exit 4)
        raise ContractError(
            f"{type(model).__name__} is not a model: it lacks {', '.join(missing)}; a model needs "
            "init_states(), successors(state) and properties() (see isrcheck.explorer.contract.Model)"
        )
