"""The invariants of ``KafkaReplication.tla``: WeakIsr, StrongIsr, LeaderInIsr.

- ``WeakIsr``: every replica presuming leadership with HW > 0 holds, at every offset below its HW,
  the same record as every member of its *own cached* ISR. Weak because leaders are elected from
  the quorum ISR, which may differ from the cached one.
- ``StrongIsr``: the same against every member of the *quorum* ISR: whatever a presumed leader
  exposes to consumers (below its HW) is on every replica that can be elected. A violation is a
  committed record that an election can lose.
- ``LeaderInIsr`` (meaningful form): whenever the quorum names a leader, that leader is in the
  quorum ISR.
- ``LeaderInIsrLiteral``: the spec's text ``quorumState.leader \\in quorumState.isr``. It is false
  in the initial state (no leader yet, ``None`` is never an ISR member) and after the controller
  takes a failed leader out (leader ``None``), so TLC reports it violated at once; the meaningful
  form exempts exactly the leaderless states.
"""

from __future__ import annotations

from collections.abc import Callable

from isrcheck.explorer.contract import Property

from .tables import Tables


def _isr_agreement(t: Tables, use_quorum_isr: bool) -> tuple[Callable, Callable]:
    """Predicate and describer for Weak/StrongIsr; they differ only in whose ISR is checked."""
    HW, LEADER, ISR = t.layout.HW, t.layout.LEADER, t.layout.ISR
    prefixes, size = t.logs.common_prefixes, t.logs.size
    members = t.layout.members
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)
    base = t.layout.base
    q_isr = t.layout.q_isr

    def prefix(a: int, b: int) -> int:
        return prefixes[a * size + b]

    def holds(s: tuple, each_failure: Callable[[int, int, int, int], None] | None = None) -> bool:
        """Whether every presumed leader (HW > 0) agrees with every ISR member below its HW. The
        engine calls it with the state alone, on every new state of every check, and it returns at
        the first disagreement; ``describe`` passes ``each_failure`` to hear of every one (leader,
        its block, its HW, the member). One function for both, because the optional argument costs
        the hot path nothing measurable, where a wrapper or a generator (``next(failures(s))``) costs
        a call or a frame per state (2-4 % and 18-30 % over KIP-320 3/2/2/2's reachable states)."""
        ok = True
        for r, b in blocks:
            if s[b + LEADER] != r:
                continue
            hw = s[b + HW]
            if hw == 0:
                continue
            row = s[b] * size
            for r2 in members[s[q_isr] if use_quorum_isr else s[b + ISR]]:
                if prefixes[row + s[base[r2]]] < hw:
                    if each_failure is None:
                        return False
                    each_failure(r, b, hw, r2)
                    ok = False
        return ok

    # The tables may offer a compiled predicate (the classic model's, in C): the same answers.
    # ``describe`` keeps the Python one: only it reports each failure.
    compiled = getattr(t, "native_predicate", None)
    check = holds if compiled is None else compiled("StrongIsr" if use_quorum_isr else "WeakIsr", holds)

    def describe(s: tuple) -> str:
        logs = t.logs
        whose = "quorum ISR" if use_quorum_isr else "its cached ISR"
        parts = []

        def tell(r: int, b: int, hw: int, r2: int) -> None:
            la, lb = logs.records[s[b]], logs.records[s[base[r2]]]
            off = prefix(s[b], s[base[r2]])

            def show(recs: tuple, off: int = off) -> str:
                if off >= len(recs):
                    return "nothing"
                return f"record {logs.record_id(recs[off])} of epoch {logs.record_epoch(recs[off])}"

            parts.append(
                f"leader {r + 1} (hw={hw}) and {whose} member {r2 + 1} differ at offset {off}: "
                f"{r + 1} has {show(la)}, {r2 + 1} has {show(lb)}"
            )

        holds(s, tell)
        return "; ".join(parts)

    return check, describe


def weak_isr(t: Tables) -> Property:
    holds, describe = _isr_agreement(t, use_quorum_isr=False)
    return Property.always(
        "WeakIsr",
        holds,
        "every presumed leader's records below its HW are on every member of its cached ISR",
        describe,
    )


def strong_isr(t: Tables) -> Property:
    holds, describe = _isr_agreement(t, use_quorum_isr=True)
    return Property.always(
        "StrongIsr",
        holds,
        "every presumed leader's records below its HW are on every member of the quorum ISR "
        "(no committed record can be lost by a clean election)",
        describe,
    )


def leader_in_isr(t: Tables) -> Property:
    ql, qi = t.layout.q_leader, t.layout.q_isr

    def holds(s: tuple) -> bool:
        leader = s[ql]
        return leader < 0 or bool(s[qi] >> leader & 1)

    def describe(s: tuple) -> str:
        return (
            f"quorum leader {s[ql] + 1} is not in the quorum ISR {[i + 1 for i in t.layout.members[s[qi]]]}"
        )

    return Property.always(
        "LeaderInIsr",
        holds,
        "whenever the quorum names a leader, it is in the quorum ISR (the spec's LeaderInIsr, "
        "exempting leaderless states)",
        describe,
    )


def leader_in_isr_literal(t: Tables) -> Property:
    ql, qi = t.layout.q_leader, t.layout.q_isr

    def holds(s: tuple) -> bool:
        leader = s[ql]
        return leader >= 0 and bool(s[qi] >> leader & 1)

    def describe(s: tuple) -> str:
        isr = [i + 1 for i in t.layout.members[s[qi]]]
        if s[ql] < 0:
            return f"the quorum has no leader (None), and None is never in the quorum ISR {isr}"
        return f"quorum leader {s[ql] + 1} is not in the quorum ISR {isr}"

    return Property.always(
        "LeaderInIsrLiteral",
        holds,
        "the spec's text quorumState.leader \\in quorumState.isr; false in the initial state "
        "(leader None), kept for comparison with TLC",
        describe,
    )
