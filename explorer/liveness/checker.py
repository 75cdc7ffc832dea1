"""Checking ``eventually`` and ``leads-to`` properties after a local run, and lasso traces.

``new_graph`` builds the store the engine fills (``isrcheck.explorer.liveness.graph_store``), labelled with the
predicates the selected liveness properties need; ``check_liveness`` asks ``isrcheck.explorer.liveness.fair_cycles``
for a fair lasso per property and turns it into a ``Violation`` whose trace is a lasso (states
recomputed from the model, as safety traces are). ``violates_on_lasso`` evaluates a property on a
recorded lasso, for replay and exported regressions.

Semantics (the model's contract, ``isrcheck.explorer.contract``): behaviours may stutter anywhere; a
behaviour is fair when every weakly fair family continuously enabled from some point is taken
infinitely often, and every strongly fair family enabled infinitely often is taken infinitely
often. A deadlocked state stutters forever (TLC with ``-deadlock``). Verdicts are about the
explored graph: a lasso found is a real behaviour (all its states were fully expanded), and a run
cut by ``max_depth`` or a bound proves nothing about behaviours through the unexpanded states.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from isrcheck.explorer.contract import Kind, Property, fairness, family_function
from isrcheck.explorer.errors import ContractError, UserError
from isrcheck.explorer.liveness.fair_cycles import FairnessMasks, Lasso, find_lasso
from isrcheck.explorer.liveness.graph_store import StateGraph
from isrcheck.explorer.result import CheckResult, Step, Trace, Violation
from isrcheck.explorer.selection import Selected, describe_failure


def run_with_graph(model: Any, props: Selected, *, symmetry: bool, store: str, fairness: dict[str, str] | None,
                   workers: int = 1, **options: Any) -> CheckResult:
    """A local run that records the state graph, then checks the selected liveness properties.
    ``workers`` above 1: the sharded engine records it, the same graph (``search/parallel/graph.py``)."""
    from isrcheck.explorer.search.local import make_key, run_local

    graph = new_graph(model, props, symmetry=symmetry)
    fair = resolve_fairness(model, fairness)
    if workers > 1:
        from isrcheck.explorer.search.parallel import run_parallel

        result = run_parallel(model, props, workers=workers, symmetry=symmetry, store=store, graph=graph, **options)
    else:
        result = run_local(model, props, symmetry=symmetry, store=store, graph=graph, **options)
    result.graph = graph
    if fairness:
        refuse_unknown_families(model, graph, fairness)
    if props.liveness and not (result.interrupted or (result.stats.get("stopped_at_violation")
                                                     and options.get("stop_at_first", True))):
        check_liveness(model, graph, props, result, key_of=make_key(model, symmetry=symmetry, store=store),
                       fair=fair, stop_at_first=options.get("stop_at_first", True))
    elif props.liveness:
        result.stats["fairness"] = describe_fairness(fair)
    return result


def labels_of(props: Sequence[Property]) -> tuple[list[Any], dict[str, tuple[int, int | None]]]:
    """Predicates to evaluate on each state, and each property's (goal bit, trigger bit)."""
    preds: list[Any] = []
    where: dict[str, tuple[int, int | None]] = {}
    for p in props:
        if p.kind is Kind.EVENTUALLY:
            preds.append(p.predicate)
            where[p.name] = (len(preds) - 1, None)
        else:
            preds += [p.target, p.predicate]
            where[p.name] = (len(preds) - 2, len(preds) - 1)
    return preds, where


def new_graph(model: Any, props: Selected, *, symmetry: bool) -> StateGraph:
    if props.liveness and symmetry:
        raise UserError(
            "liveness properties are not checked with --symmetry: a cycle of the reduced graph may "
            "return to a permuted state rather than the same one; drop --symmetry"
        )
    preds, _ = labels_of(props.liveness)
    return StateGraph(family_function(model), preds)


def resolve_fairness(model: Any, override: dict[str, str] | None) -> dict[str, str]:
    """The fairness a run assumes: the model's declaration, or ``override`` when given."""
    if override is None:
        return dict(fairness(model))
    bad = {f: k for f, k in override.items() if k not in ("weak", "strong")}
    if bad:
        raise UserError(f"fairness must map action families to 'weak' or 'strong'; got {bad!r:.200}")
    return dict(override)


def refuse_unknown_families(model: Any, graph: StateGraph, override: dict[str, str]) -> None:
    """A family named in ``fairness`` that the model neither declares nor takes anywhere in the
    explored graph is a misspelling: assuming it fair changes nothing, so the run would check under
    less fairness than the user wrote and report a false liveness violation. The families are known
    only once the graph is explored, hence the check after the search."""
    known = list(dict.fromkeys([*fairness(model), *graph.families]))
    unknown = [f for f in override if f not in known]
    if unknown:
        import difflib

        near = [m for f in unknown for m in difflib.get_close_matches(f, known, n=1, cutoff=0.6)]
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise UserError(
            f"fairness names unknown action famil{'y' if len(unknown) == 1 else 'ies'} "
            f"{', '.join(map(repr, unknown))}{hint}; the model's families (declared or taken in the explored "
            f"graph): {', '.join(known) or '(none)'}"
        )


def describe_fairness(fair: dict[str, str]) -> str:
    """``weak fairness of A, B (r1, r2); strong fairness of C``: families that differ only after their
    first space (one per broker, say) are grouped."""
    parts = []
    for kind in ("weak", "strong"):
        groups: dict[str, list[str]] = {}
        for family in sorted(f for f, k in fair.items() if k == kind):
            head, _, rest = family.partition(" ")
            groups.setdefault(head, []).append(rest)
        names = [head if rests == [""] else f"{head} ({', '.join(r or '-' for r in rests)})"
                 for head, rests in groups.items()]
        if names:
            parts.append(f"{kind} fairness of " + ", ".join(names))
    return "; ".join(parts) if parts else "no fairness (any action may stop being taken: stuttering)"


def check_liveness(model: Any, graph: StateGraph, props: Selected, result: CheckResult, *, key_of: Any,
                   fair: dict[str, str], stop_at_first: bool = False) -> None:
    """Add a lasso ``Violation`` to ``result`` for each liveness property a fair behaviour breaks
    (only the first one with ``stop_at_first``, as for safety properties)."""
    _, where = labels_of(props.liveness)
    masks = FairnessMasks.of(graph, fair)
    bits = graph.bits
    checked = []
    for prop in props.liveness:
        goal_bit, trigger_bit = where[prop.name]
        goal = 1 << goal_bit

        def holds(i: int, goal: int = goal) -> bool:
            return bool(bits[i] & goal)

        trigger = None
        if trigger_bit is not None:
            tbit = 1 << trigger_bit

            def trigger(i: int, tbit: int = tbit) -> bool:
                return bool(bits[i] & tbit)

        lasso, stats = find_lasso(graph, masks, goal=holds, trigger=trigger)
        checked.append(prop.name)
        result.stats[f"liveness {prop.name}"] = stats
        if lasso is not None:
            trace = lasso_trace(model, graph, lasso, key_of)
            detail = describe_failure(prop, trace.steps[trace.loop].state) if prop.describe else ""
            what = "the target never holds" if prop.kind is Kind.LEADS_TO else "the property never holds"
            detail = detail or f"{what} on this fair behaviour"
            result.violations.append(Violation(prop.name, prop.kind.value, trace, detail))
            if stop_at_first:
                result.complete = False
                result.stats["stopped_at_violation"] = True
                break
    result.stats["fairness"] = describe_fairness(fair)
    result.stats["liveness_checked"] = ", ".join(checked)


def lasso_trace(model: Any, graph: StateGraph, lasso: Lasso, key_of: Any) -> Trace:
    """The lasso's states and actions, recomputed from the model (first matching successor, of the
    recorded family where it matters for fairness)."""
    family_of = graph.family_of
    keys = graph.keys
    first = keys[lasso.prefix[0]]
    state = next((s for s in model.init_states() if key_of(s) == first), None)
    if state is None:
        raise ContractError("could not rebuild a lasso: no initial state has the recorded key; "
                            "init_states() must be deterministic")
    steps = [Step(None, state)]

    def follow(state: Any, to: int, fam: int | None) -> Step:
        want = None if fam is None else graph.families[fam]
        for action, nxt in model.successors(state):
            if key_of(nxt) == keys[to] and (want is None or family_of(action) == want):
                return Step(action, nxt)
        raise ContractError("could not rebuild a lasso: a recorded step is not among the successors "
                            "now; successors() must be deterministic")

    for to, fam in zip(lasso.prefix[1:], lasso.prefix_families[1:], strict=True):
        steps.append(follow(steps[-1].state, to, fam))
    loop = len(steps) - 1
    if not lasso.cycle:
        return Trace(tuple(steps), loop=loop, loop_action=None)
    for fam, to in lasso.cycle[:-1]:
        steps.append(follow(steps[-1].state, to, fam))
    fam, to = lasso.cycle[-1]
    closing = follow(steps[-1].state, to, fam)
    return Trace(tuple(steps), loop=loop, loop_action=closing.action)


def violates_on_lasso(prop: Property, trace: Trace) -> int | None:
    """For a lasso: the 1-based index of the state from which ``prop`` (eventually or leads-to) is
    never satisfied, or None when the lasso satisfies it."""
    if trace.loop is None:
        return None
    states = trace.states
    if prop.kind is Kind.EVENTUALLY:
        return None if any(prop.predicate(s) for s in states) else 1
    target = prop.target
    # Q at or after position i on the infinite unrolling: the loop part repeats forever.
    q_in_loop = any(target(s) for s in states[trace.loop:])
    for i, s in enumerate(states):
        if prop.predicate(s) and not target(s):
            later = states[i:]
            if not any(target(t) for t in later) and not q_in_loop:
                return i + 1
    return None


def lasso_is_fair(model: Any, trace: Trace, fair: dict[str, str] | None = None) -> tuple[bool, str]:
    """Whether a lasso's loop is fair under ``fair`` (default: the model's fairness), recomputing
    enabled families from the model; and why not, or which fairness it respects."""
    fair = resolve_fairness(model, fair)
    family_of = family_function(model)
    states = trace.states[trace.loop:]
    taken = {family_of(s.action) for s in trace.steps[trace.loop + 1:]}
    if trace.loop_action is not None:
        taken.add(family_of(trace.loop_action))
    enabled = [{family_of(a) for a, _ in model.successors(s)} for s in states]
    for family, kind in sorted(fair.items()):
        if family in taken:
            continue
        if kind == "weak" and all(family in e for e in enabled):
            return False, f"{family} is weakly fair, enabled throughout the loop and never taken"
        if kind == "strong" and any(family in e for e in enabled):
            return False, f"{family} is strongly fair, enabled in the loop and never taken"
    return True, describe_fairness(fair)
