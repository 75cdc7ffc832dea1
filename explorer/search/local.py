"""The in-process engine: breadth-first search, level by level.

Breadth-first order is what makes every counterexample a shortest one, and level-by-level order
is what makes depth mean what TLC means by it (initial states are depth 1). Everything is ordered
(lists, insertion-ordered dicts, the model's successor order), so counts and traces are the same
on every run and under any PYTHONHASHSEED.

The visited set maps each state's key to its parent's key and nothing else; traces are rebuilt
afterwards by re-running the model (``isrcheck.explorer.search.rebuild``). The key is the state itself ("exact"
store: no collisions, more memory) or its 64-bit fingerprint ("fingerprint" store: TLC's choice,
with its collision estimate); with symmetry, the key is taken of the model's canonical state.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from isrcheck.explorer.contract import canonical_fn, packing, within_bounds
from isrcheck.explorer.errors import ContractError, ModelError, UserError
from isrcheck.explorer.progress import Progress, Silent
from isrcheck.explorer.result import CheckResult, Step, Trace, Violation
from isrcheck.explorer.search.audit import audit_level, audit_successors, audited_init_states
from isrcheck.explorer.search.fingerprint import collision_probability, fingerprint, packed_fingerprint
from isrcheck.explorer.search.memory import human, rss_bytes
from isrcheck.explorer.search.progress import Snapshot
from isrcheck.explorer.search.rebuild import key_path, rebuild_trace
from isrcheck.explorer.selection import Selected, describe_failure

# The first expansions are checked against the contract (``isrcheck.explorer.search.audit``): every state must
# encode canonically, which refuses lists, dicts, sets and floats by name (and so makes "successors()
# mutated its input" impossible: a state built only from tuples, frozensets, ints and strings cannot
# be changed in place), and each is expanded twice more to catch successors that differ between
# calls or actions whose reprs cannot identify a step. After that, a few states spread over each
# level are audited; auditing every state would triple the cost of a run.
_CONTRACT_SAMPLE = 500

# Resident memory is read at least this often (seconds), also when no progress is shown.
_MEMORY_POLL = 1.0


class _MemoryCeiling(Exception):
    """The run's resident memory passed its ceiling; caught by ``run_local``, never seen outside."""

    def __init__(self, rss: int | None, note: str = ""):
        super().__init__(note)
        self.rss = rss
        self.note = note


def make_key(model: Any, *, symmetry: bool, store: str, packed: bool = False) -> Callable[[Any], Any]:
    """The function from a state to its visited-set key for these options. ``packed``: key by the
    model's ``pack`` when it has one (``isrcheck.explorer.contract.packing``): with the exact store its value
    (the classic model's int is a quarter of its tuple, and hashing it is cheaper than hashing a
    tuple), with the fingerprint store a fingerprint of it (``packed_fingerprint``)."""
    canon = canonical_fn(model) if symmetry else None
    if symmetry and canon is None:
        raise UserError(
            "symmetry reduction was asked for, but the model has no canonical(state) method; "
            "add one that returns a symmetry representative, or run without --symmetry"
        )
    pack = packing(model)[0] if packed else None
    if store == "fingerprint":
        if pack is not None:
            # pack is C for the classic model: fingerprinting its int is 4x cheaper than the tuple's text
            fp = packed_fingerprint(pack)
            return fp if canon is None else lambda s: fp(canon(s))
        if canon is not None:
            return lambda s: fingerprint(canon(s))
        return fingerprint
    if pack is not None:
        return pack if canon is None else lambda s: pack(canon(s))
    if canon is not None:
        return canon
    return _identity


def _identity(state: Any) -> Any:
    return state


class _Search:
    """One run's mutable state; split out of ``run_local`` so each step reads as a short function."""

    def __init__(self, model: Any, props: Selected, key_of: Callable[[Any], Any], *, stop_at_first: bool,
                 check_deadlock: bool, progress: Progress, memory_limit: int | None = None,
                 rss: Callable[[], int | None] = rss_bytes, graph: Any = None):
        self.model = model
        self.props = props
        self.key_of = key_of
        self.stop_at_first = stop_at_first
        self.check_deadlock = check_deadlock
        self.progress = progress
        self.graph = graph  # isrcheck.explorer.liveness.graph_store.StateGraph when liveness or --graph asks for it
        self.parents: dict[Any, Any] = {}
        self.generated = 0
        self.depth = 0
        self.started = time.monotonic()
        self.violated: dict[str, Violation] = {}
        self.pending_sometimes = list(props.sometimes)
        self.reached: dict[str, Any] = {}  # sometimes property -> key of the first state reaching it
        self.stopped = False
        self.sampled = 0
        self.memory_limit = memory_limit
        self.rss = rss
        self.last_rss: int | None = None
        self.level_rss: list[int] = []  # resident memory at the end of each level
        self.next_poll = self.started + min(_MEMORY_POLL, progress.interval)

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
            raise unhashable(state, exc) from None
        self.parents[key] = parent_key
        return key

    def snapshot(self, frontier: int) -> Snapshot:
        growth = self.level_rss[-1] - self.level_rss[-2] if len(self.level_rss) >= 2 else None
        return Snapshot(self.generated, len(self.parents), frontier, self.depth, time.monotonic() - self.started,
                        rss=self.last_rss, rss_growth=growth)

    # -- memory and progress --------------------------------------------------------------------------

    def check_memory(self) -> None:
        self.last_rss = self.rss()
        if self.memory_limit is not None and self.last_rss is not None and self.last_rss > self.memory_limit:
            raise _MemoryCeiling(self.last_rss)

    def poll(self, frontier: int) -> None:
        """Called from the hot loop when ``next_poll`` has passed: memory, then progress."""
        self.next_poll = time.monotonic() + min(_MEMORY_POLL, self.progress.interval)
        self.check_memory()
        if self.progress.due():
            self.progress.show(self.snapshot(frontier))

    def end_level(self) -> None:
        self.check_memory()
        if self.last_rss is not None:
            self.level_rss.append(self.last_rss)

    # -- contract audits and model failures ----------------------------------------------------------

    def audit(self, state: Any) -> None:
        audit_successors(self.model, state)

    def safe_trace(self, key: Any) -> Trace | None:
        try:
            return self.trace_to(key)
        except Exception:  # the model failed once already; a second failure must not hide the first
            return None

    def expansion_failure(self, exc: Exception, *, state: Any, key: Any, action: Any, succ: Any,
                          yielded: bool) -> ModelError:
        """The model raised while ``state`` was being expanded: name the function, the state and
        the action, from the frame the loop had called into (the search keeps no per-step record)."""
        callee = _callee(exc, _EXPAND_CODE)
        code = callee.f_code if callee is not None else None
        trace = self.safe_trace(key)
        common = {"model": self.model, "state": state, "trace": trace}
        if code is _CHECK_STATE_CODE or code is _CHECK_STEP_CODE:
            prop = callee.f_locals.get("prop")
            kind = "property" if code is _CHECK_STATE_CODE else "transition property"
            what = f"the predicate of {kind} {getattr(prop, 'name', '?')}"
            return ModelError(what, exc, action=action, successor=succ, **common)
        if code is _WITHIN_BOUNDS_CODE:
            return ModelError("within_bounds(state)", exc, **common)
        if code is not None and self.key_of is not fingerprint and code is code_of(self.key_of):
            return ModelError("canonical(state)", exc, action=action, successor=succ, **common)
        note = (f"successors() had yielded some successors of this state before failing; the last was "
                f"{action!r:.200}" if yielded else "")
        return ModelError("successors(state)", exc, note=note, **common)

    def initial_level(self) -> list[tuple[Any, Any]]:
        inits = audited_init_states(self.model)
        level = []
        for state in inits:
            self.generated += 1
            try:
                if self.sampled < _CONTRACT_SAMPLE and within_bounds(self.model, state):
                    self.sampled += 1
                    audit_successors(self.model, state)
                key = self.add(state, None)
                if key is None:
                    continue
                level.append((state, key))
                if self.graph is not None:
                    self.graph.initial(key)
                self.check_state(state, key)
            except (UserError, ModelError, MemoryError):
                raise
            except Exception as exc:
                callee = _callee(exc, _INITIAL_CODE)
                if callee is not None and callee.f_code is _CHECK_STATE_CODE:
                    what = f"the predicate of property {getattr(callee.f_locals.get('prop'), 'name', '?')}"
                    raise ModelError(what, exc, model=self.model, note=f"on the initial state {state!r:.300}") from exc
                code = callee.f_code if callee is not None else None
                what = ("within_bounds(state)" if code is _WITHIN_BOUNDS_CODE else
                        "canonical(state)" if code is not None and code is code_of(self.key_of) else
                        "successors(state)")
                raise ModelError(what, exc, model=self.model, state=state) from exc
            if self.stopped:
                break
        if level:
            self.depth = 1
        return level

    def audit_level(self, frontier: list[tuple[Any, Any]]) -> None:
        """Audit a few states spread over the level (the first ones are audited in the loop)."""
        audit_level(self.model, len(frontier), lambda pos: frontier[pos][0],
                    lambda pos: self.safe_trace(frontier[pos][1]))

    def expand_level(self, frontier: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        """The next level: every new successor of the frontier, in frontier and successor order.

        This is the hot loop, so attribute lookups are hoisted into locals and the per-successor
        work is one key computation and one dict probe unless a property needs more."""
        model, successors, parents, key_of = self.model, self.model.successors, self.parents, self.key_of
        identity = key_of is _identity
        bounded = hasattr(model, "within_bounds")
        check_steps = bool(self.props.transition)
        check_states = bool(self.props.always) or bool(self.pending_sometimes)
        graph, gid = self.graph, -1
        monotonic = time.monotonic
        next_poll = self.next_poll
        nxt: list[tuple[Any, Any]] = []
        append = nxt.append
        generated = 0
        self.audit_level(frontier)
        state = key = action = succ = None
        any_successor = False
        try:
            for state, key in frontier:
                if bounded and not within_bounds(model, state):
                    continue
                if self.sampled < _CONTRACT_SAMPLE:
                    self.sampled += 1
                    self.audit(state)
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
                        raise unhashable(succ, exc) from None
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
                if monotonic() >= next_poll:
                    self.generated += generated
                    generated = 0
                    self.poll(len(frontier) + len(nxt))
                    next_poll = self.next_poll
        except (UserError, ModelError, _MemoryCeiling, MemoryError):
            raise
        except Exception as exc:
            raise self.expansion_failure(exc, state=state, key=key, action=action, succ=succ,
                                         yielded=any_successor) from exc
        finally:
            self.generated += generated
        return nxt


def _callee(exc: BaseException, loop_code: Any) -> Any:
    """The frame that the frame running ``loop_code`` had called when ``exc`` was raised."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code is not loop_code:
        tb = tb.tb_next
    return tb.tb_next.tb_frame if tb is not None and tb.tb_next is not None else None


def code_of(fn: Any) -> Any:
    return getattr(fn, "__code__", None) or getattr(getattr(fn, "__func__", None), "__code__", None)


_EXPAND_CODE = _Search.expand_level.__code__
_INITIAL_CODE = _Search.initial_level.__code__
_CHECK_STATE_CODE = _Search.check_state.__code__
_CHECK_STEP_CODE = _Search.check_step.__code__
_WITHIN_BOUNDS_CODE = within_bounds.__code__


def unhashable(state: Any, exc: Exception) -> ContractError:
    """The contract error for a state (or key) that could not be hashed."""
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
    memory_limit: int | None = None,
    rss: Callable[[], int | None] = rss_bytes,
    graph: Any = None,
) -> CheckResult:
    """Explore ``model`` breadth-first; see ``isrcheck.explorer.check`` for the options. ``rss`` reads the
    resident memory that ``memory_limit`` (bytes) bounds; tests pass their own. ``graph``, when given,
    records the state graph (``isrcheck.explorer.liveness.graph_store.StateGraph``) for liveness and ``--graph``."""
    # Packed keys, except for the state graph, whose keys liveness checking recomputes with make_key.
    key_of = make_key(model, symmetry=symmetry, store=store, packed=graph is None)
    search = _Search(model, props, key_of, stop_at_first=stop_at_first, check_deadlock=check_deadlock,
                     progress=progress or Silent(), memory_limit=memory_limit, rss=rss, graph=graph)
    frontier: list[tuple[Any, Any]] = []
    interrupted = False
    cut_by_depth = False
    levels: list[int] = []  # distinct states first found at each depth (the HTML report's chart)
    limit: str | None = None
    limit_note = ""
    unexpanded = 0  # the frontier a stop left
    try:
        frontier = search.initial_level()
        search.end_level()
        if frontier:
            levels.append(len(frontier))
        while frontier and not search.stopped:
            if max_depth is not None and search.depth >= max_depth:
                cut_by_depth = True
                break
            frontier = search.expand_level(frontier)
            if frontier:
                levels.append(len(frontier))
                search.depth += 1
            search.end_level()
    except KeyboardInterrupt:
        interrupted = True
    except (_MemoryCeiling, MemoryError) as exc:
        limit = "memory"
        unexpanded = len(frontier)
        frontier = []  # free what can be freed before the statistics and traces are produced
        limit_note = memory_stop_note(exc.rss if isinstance(exc, _MemoryCeiling) else search.rss(), memory_limit,
                                      unexpanded, search.depth, ran_out=not isinstance(exc, _MemoryCeiling))
    search.progress.finish()
    complete = not (interrupted or cut_by_depth or search.stopped or limit)
    return make_result(
        props, distinct=len(search.parents), generated=search.generated, depth=search.depth,
        started=search.started, complete=complete, violations=list(search.violated.values()),
        examples={name: search.trace_to(key) for name, key in search.reached.items()},
        pending_sometimes=[p.name for p in search.pending_sometimes], interrupted=interrupted, store=store,
        limit=limit, limit_note=limit_note, levels=levels,
        stats={"frontier_left": len(frontier) or unexpanded, "max_depth": max_depth, "symmetry": symmetry,
               "stopped_at_violation": search.stopped, "resident_memory": search.last_rss,
               "memory_limit": memory_limit},
    )


def memory_stop_note(rss_now: int | None, memory_limit: int | None, unexpanded: int, depth: int, *,
                     ran_out: bool = False) -> str:
    """What a run stopped at the memory ceiling prints: where it stopped and how to go further."""
    cause = ("Python ran out of memory (MemoryError)" if ran_out or rss_now is None else
             f"resident memory {human(rss_now)} passed the ceiling of {human(memory_limit)}")
    return (f"Stopped at the memory limit: {cause} while expanding the {unexpanded:,} states at depth "
            f"{depth}. To go further: --symmetry (if the model "
            "has canonical()), smaller bounds, --store fingerprint, or --engine spark; --max-memory "
            "changes the ceiling.")


def make_result(props: Selected, *, distinct: int, generated: int, depth: int, started: float, complete: bool,
                violations: list[Violation], examples: dict[str, Trace], pending_sometimes: list[str],
                interrupted: bool, store: str, limit: str | None, limit_note: str, levels: list[int],
                stats: dict[str, Any]) -> CheckResult:
    """The ``CheckResult`` of a local run, one process or several (``isrcheck.explorer.search.parallel``)."""
    return CheckResult(
        distinct_states=distinct,
        generated_states=generated,
        depth=depth,
        complete=complete,
        violations=violations,
        elapsed=time.monotonic() - started,
        engine="local",
        vacuous=list(pending_sometimes) if complete else [],
        examples=examples,
        properties=props.names,
        interrupted=interrupted,
        store=store,
        collision_probability=collision_probability(distinct, generated) if store == "fingerprint" else None,
        stats=stats,
        limit=limit,
        limit_note=limit_note,
        levels=levels,
    )
