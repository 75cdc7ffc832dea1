"""``explorer.check``: the one entry point every engine sits behind.

Options are keyword-only and validated before any state is generated, so a wrong option costs
the user a clear message, not a long run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.errors import UserError
from explorer.progress import Progress
from explorer.result import CheckResult
from explorer.selection import select_properties

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
    **engine_options: Any,
) -> CheckResult:
    """Explore every state of ``model`` reachable within its bounds and check its properties.

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
    graph: keep the explored state graph in ``result.graph`` (``explorer.graph_store``); implied
        by a selected liveness property (eventually, leads-to). Local engine only.
    fairness: ``{family: "weak" | "strong"}`` to assume instead of the model's ``fairness()``.
    """
    _validate(model, engine=engine, max_depth=max_depth, store=store)
    props = select_properties(model, properties)
    wants_graph = graph or bool(props.liveness)
    if wants_graph and engine != "local":
        what = "liveness properties (" + ", ".join(p.name for p in props.liveness) + ")" if props.liveness \
            else "the state graph"
        raise UserError(f"the {engine} engine does not check {what}; use --engine local, or leave them out")
    if engine == "local":
        if engine_options:
            raise UserError(
                f"option(s) {', '.join(sorted(engine_options))} apply to the spark engine only; "
                "drop them or pass engine='spark'"
            )
        from explorer.engine_local import run_local

        if not wants_graph:
            return run_local(model, props, max_depth=max_depth, stop_at_first=stop_at_first, symmetry=symmetry,
                             check_deadlock=check_deadlock, store=store, progress=progress)
        from explorer.liveness import run_with_graph

        return run_with_graph(model, props, max_depth=max_depth, stop_at_first=stop_at_first, symmetry=symmetry,
                              check_deadlock=check_deadlock, store=store, progress=progress, fairness=fairness)
    try:
        from explorer.spark.engine import run_spark
    except ImportError as exc:
        raise UserError(
            f"the spark engine is not available here ({exc}); install pyspark or use --engine local"
        ) from None
    return run_spark(model, props, max_depth=max_depth, stop_at_first=stop_at_first, symmetry=symmetry,
                     check_deadlock=check_deadlock, progress=progress, **engine_options)


def _validate(model: Any, *, engine: str, max_depth: int | None, store: str) -> None:
    if engine not in ENGINES:
        raise UserError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if store not in STORES:
        raise UserError(f"unknown store {store!r}; choose one of {', '.join(STORES)}")
    if max_depth is not None and (not isinstance(max_depth, int) or max_depth < 1):
        raise UserError(f"max_depth must be a positive integer (initial states are depth 1), not {max_depth!r}")
    missing = [m for m in ("init_states", "successors", "properties") if not callable(getattr(model, m, None))]
    if missing:
        raise UserError(
            f"{type(model).__name__} is not a model: it lacks {', '.join(missing)}; a model needs "
            "init_states(), successors(state) and properties() (see explorer.contract.Model)"
        )
