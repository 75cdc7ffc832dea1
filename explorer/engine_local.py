"""The in-process engine: breadth-first search, level by level.

Breadth-first order is what makes every counterexample a shortest one, and level-by-level order
is what makes depth mean what TLC means by it (initial states are depth 1). Everything is ordered
(lists, insertion-ordered dicts, the model's successor order), so counts and traces are the same
on every run and under any PYTHONHASHSEED.

The visited set maps each state's key to its parent's key and nothing else; traces are rebuilt
afterwards by re-running the model (``explorer.rebuild``). The key is the state itself ("exact"
store: no collisions, more memory) or its 64-bit fingerprint ("fingerprint" store: TLC's choice,
with its collision estimate); with symmetry, the key is taken of the model's canonical state.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from explorer.contract import canonical_fn, within_bounds
from explorer.errors import ContractError
from explorer.fingerprint import collision_probability, encode, fingerprint
from explorer.progress import Progress, Silent, Snapshot
from explorer.rebuild import key_path, rebuild_trace
from explorer.result import CheckResult, Step, Trace, Violation
from explorer.selection import Selected, describe_failure

# The first expansions are checked against the contract: every state must encode canonically,
# which refuses lists, dicts, sets and floats by name. That is also what makes "successors()
# mutated its input" impossible: a state built only from tuples, frozensets, ints and strings cannot
# be changed in place. Later expansions are not checked; the check costs as much as the expansion.
_CONTRACT_SAMPLE = 500


def make_key(model: Any, *, symmetry: bool, store: str) -> Callable[[Any], Any]:
    """The function from a state to its visited-set key for these options."""
    canon = canonical_fn(model) if symmetry else None
    if symmetry and canon is None:
        from explorer.errors import UserError

        raise UserError(
            "symmetry reduction was asked for, but the model has no canonical(state) method; "
            "add one that returns a symmetry representative, or run without --symmetry"
        )
    if store == "fingerprint":
        if canon is not None:
            return lambda s: fingerprint(canon(s))
        return fingerprint
    if canon is not None:
        return canon
    return _identity


def _identity(state: Any) -> Any:
    return state


class _Search:
    """One run's mutable state; split out of ``run_local`` so each step reads as a short function."""

    def __init__(self, model: Any, props: Selected, key_of: Callable[[Any], Any], *, stop_at_first: bool,
                 check_deadlock: bool, progress: Progress, graph: Any = None):
        self.model = model
        self.props = props
        self.key_of = key_of
        self.stop_at_first = stop_at_first
        self.check_deadlock = check_deadlock
        self.progress = progress
        self.graph = graph  # explorer.graph_store.StateGraph when liveness or --graph asks for it
        self.parents: dict[Any, Any] = {}
        self.generated = 0
        self.depth = 0
        self.started = time.monotonic()
        self.violated: dict[str, Violation] = {}
        self.pending_sometimes = list(props.sometimes)
        self.reached: dict[str, Any] = {}  # sometimes property -> key of the first state reaching it
        self.stopped = False
        self.sampled = 0

    # -- checks on states and steps ---------------------------------------------------------------

    def check_state(self, state: Any, key: Any) -> None:
        for prop in self.props.always:
            if prop.name not in self.violated and not prop.predicate(state):
                trace = self.trace_to(key)
                self.record(Violation(prop.name, "always", trace, describe_failure(prop, state)))
        if self.pending_sometimes:
            for prop in list(self.pending_sometimes):
                if prop.predicate(state):
                    self.reached[prop.name] = key
                    self.pending_sometimes.remove(prop)

    def check_step(self, state: Any, key: Any, action: Any, nxt: Any) -> None:
        for prop in self.props.transition:
            if prop.name not in self.violated and not prop.predicate(state, action, nxt):
                trace = self.trace_to(key)
                trace = Trace((*trace.steps, Step(action, nxt)))
                self.record(Violation(prop.name, "transition", trace, describe_failure(prop, state, action, nxt)))

    def record(self, violation: Violation) -> None:
        self.violated[violation.property] = violation
        if self.stop_at_first:
            self.stopped = True

    def trace_to(self, key: Any) -> Trace:
        return rebuild_trace(self.model, key_path(self.parents, key), self.key_of)

    # -- the search ---------------------------------------------------------------------------------

    def add(self, state: Any, parent_key: Any) -> Any | None:
        """Store a state if it is new; return its key, or None if it was seen before. (The hot loop
        in ``expand_level`` inlines this.)"""
        try:
            key = self.key_of(state)
            if key in self.parents:
                return None
        except TypeError as exc:
            raise _unhashable(state, exc) from None
        self.parents[key] = parent_key
        return key

    def snapshot(self, frontier: int) -> Snapshot:
        return Snapshot(self.generated, len(self.parents), frontier, self.depth, time.monotonic() - self.started)

    def initial_level(self) -> list[tuple[Any, Any]]:
        level = []
        for state in self.model.init_states():
            self.generated += 1
            if self.sampled < _CONTRACT_SAMPLE:
                encode(state)  # refuses floats, lists, dicts with a clear ContractError
            key = self.add(state, None)
            if key is None:
                continue
            level.append((state, key))
            if self.graph is not None:
                self.graph.initial(key)
            self.check_state(state, key)
            if self.stopped:
                break
        if level:
            self.depth = 1
        return level

    def expand_level(self, frontier: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        """The next level: every new successor of the frontier, in frontier and successor order.

        This is the hot loop, so attribute lookups are hoisted into locals and the per-successor
        work is one key computation and one dict probe unless a property needs more."""
        model, successors, parents, key_of = self.model, self.model.successors, self.parents, self.key_of
        identity = key_of is _identity
        bounded = hasattr(model, "within_bounds")
        check_steps = bool(self.props.transition)
        check_states = bool(self.props.always) or bool(self.pending_sometimes)
        progress, graph, gid = self.progress, self.graph, -1
        nxt: list[tuple[Any, Any]] = []
        append = nxt.append
        generated = 0
        try:
            for state, key in frontier:
                if bounded and not within_bounds(model, state):
                    continue
                if self.sampled < _CONTRACT_SAMPLE:
                    self.sampled += 1
                    encode(state)  # refuses floats, lists, dicts with a clear ContractError
                any_successor = False
                if graph is not None:
                    gid = graph.expand(key, state)
                for action, succ in successors(state):
                    any_successor = True
                    generated += 1
                    if check_steps:
                        self.check_step(state, key, action, succ)
                        if self.stopped:
                            return nxt
                    succ_key = succ if identity else key_of(succ)
                    try:
                        if graph is not None:
                            graph.edge(gid, succ_key, action)
                        if succ_key in parents:
                            continue
                    except TypeError as exc:
                        raise _unhashable(succ, exc) from None
                    parents[succ_key] = key
                    append((succ, succ_key))
                    if check_states:
                        self.check_state(succ, succ_key)
                        if self.stopped:
                            return nxt
                        check_states = bool(self.props.always) or bool(self.pending_sometimes)
                if graph is not None:
                    graph.finish(gid)
                if self.check_deadlock and not any_successor and "deadlock" not in self.violated:
                    self.record(Violation("deadlock", "deadlock", self.trace_to(key), "no action is enabled"))
                    if self.stopped:
                        return nxt
                if progress.due():
                    self.generated += generated
                    generated = 0
                    progress.show(self.snapshot(len(frontier) + len(nxt)))
        finally:
            self.generated += generated
        return nxt


def _unhashable(state: Any, exc: Exception) -> ContractError:
    return ContractError(
        f"a state is not hashable ({exc}); states must be built from ints, strings, tuples and "
        f"frozensets, not lists, sets or dicts: {state!r:.200}"
    )


def run_local(
    model: Any,
    props: Selected,
    *,
    max_depth: int | None = None,
    stop_at_first: bool = True,
    symmetry: bool = False,
    check_deadlock: bool = False,
    store: str = "exact",
    progress: Progress | None = None,
    graph: Any = None,
) -> CheckResult:
    """Explore ``model`` breadth-first; see ``explorer.check`` for the options. ``graph``, when given,
    records the state graph (``explorer.graph_store.StateGraph``) for liveness and ``--graph``."""
    key_of = make_key(model, symmetry=symmetry, store=store)
    search = _Search(model, props, key_of, stop_at_first=stop_at_first, check_deadlock=check_deadlock,
                     progress=progress or Silent(), graph=graph)
    frontier: list[tuple[Any, Any]] = []
    interrupted = False
    cut_by_depth = False
    try:
        frontier = search.initial_level()
        while frontier and not search.stopped:
            if max_depth is not None and search.depth >= max_depth:
                cut_by_depth = True
                break
            frontier = search.expand_level(frontier)
            if frontier:
                search.depth += 1
    except KeyboardInterrupt:
        interrupted = True
    search.progress.finish()
    elapsed = time.monotonic() - search.started
    complete = not (interrupted or cut_by_depth or search.stopped)
    examples = {name: search.trace_to(key) for name, key in search.reached.items()}
    vacuous = [p.name for p in search.pending_sometimes] if complete else []
    distinct = len(search.parents)
    return CheckResult(
        distinct_states=distinct,
        generated_states=search.generated,
        depth=search.depth,
        complete=complete,
        violations=list(search.violated.values()),
        elapsed=elapsed,
        engine="local",
        vacuous=vacuous,
        examples=examples,
        properties=props.names,
        interrupted=interrupted,
        store=store,
        collision_probability=collision_probability(distinct, search.generated) if store == "fingerprint" else None,
        stats={"frontier_left": len(frontier), "max_depth": max_depth, "symmetry": symmetry,
               "stopped_at_violation": search.stopped},
    )
