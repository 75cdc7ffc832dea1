"""The properties of the metadata quorum (``isrcheck.model.quorum``), named as the specs name them.

Invariants of KRaft.tla (Vanlightly/raft-tlaplus, ``specifications/pull-raft``), the four its
configuration checks, on by default:

- NoIllegalState: no server reached the state the spec's transitions call illegal (following a
  second leader in its epoch, becoming a follower twice in one epoch).
- NoLogDivergence: two servers agree on every entry up to the lower of their high watermarks.
- NeverTwoLeadersInSameEpoch: two servers in the same epoch never name different leaders.
- LeaderHasAllAckedValues: the newest leader (no server has a later epoch) has every acknowledged value.

AckedValueNotLost (kafka-tlaplus ``kraft/kip_853``), on by default: every acknowledged value is
in some server's log. CommittedEntriesReachMajority (KRaft.tla, not in its configuration; opt-in):
a leader's committed entry at its high watermark is on a majority.

``sometimes`` companions, so that a complete run that never elects or commits says so:
LeaderElected, ValueAcknowledged.

Liveness, opt-in (``--property ValuesNotStuck``), KRaft.tla's ValuesNotStuck under its
``LivenessSpec`` (weak fairness of the whole ``Next``: ``QuorumModel.fairness``): always eventually
every value is in every server's log or in none, unless the last election allowed was used and no
server leads. Checked as ``TRUE ~> (for every value, all or nothing)``, the quantifier over values
inside: the spec's form for one value, and for more the same verdict wherever every fair behaviour
ends in a state it then keeps (the bounded elections and restarts make that the usual case).

KIP-996's pitfall as safety (opt-in transition properties; docs/quorum.md, "Pre-vote (KIP-996)"):
LeaderNotDisrupted, no step takes a server past the epoch of a leader that every other server
follows in that epoch (a server whose fetches time out must not depose a leader the rest of the
quorum follows); MajorityLeaderNotDisrupted, the same for a leader that only a majority follows.
EventuallyLeaderElected (kafka-tlaplus ``kraft/kip_996``, opt-in liveness): a state without a
functional leader (a Leader that a majority, itself counted, names as leader) leads to one, with
ValuesNotStuck's excuse for the bounds: the last election allowed was used and no server leads.

Like the rest of ``properties/``, this module never imports ``model``: everything it reads comes
through the tables the model hands it (``config``, ``layout``, ``fields``).
"""

from __future__ import annotations

from typing import Any

from isrcheck.explorer.contract import Property

ALWAYS = ("NoIllegalState", "NoLogDivergence", "NeverTwoLeadersInSameEpoch", "LeaderHasAllAckedValues",
          "AckedValueNotLost")
OPT_IN = ("CommittedEntriesReachMajority", "LeaderNotDisrupted", "MajorityLeaderNotDisrupted")
SOMETIMES = ("LeaderElected", "ValueAcknowledged")
LIVENESS = ("ValuesNotStuck", "EventuallyLeaderElected")
NAMES = ALWAYS + OPT_IN + SOMETIMES + LIVENESS


def build(t: Any, property_set: str = "all") -> list[Property]:
    """The selected properties: 'all' or 'default' (every one, the opt-in ones run only when named)
    or comma-separated names."""
    if property_set in ("all", "default"):
        chosen = NAMES
    else:
        chosen = tuple(n.strip() for n in property_set.split(",") if n.strip())
        unknown = [n for n in chosen if n not in NAMES]
        if unknown:
            raise ValueError(f"property_set: unknown for the quorum: {', '.join(unknown)}; choose from "
                             f"{', '.join(NAMES)}")
    builders = _builders(t)
    return [builders[n]() for n in chosen]


def _builders(t: Any) -> dict[str, Any]:
    lay, f = t.layout, t.fields
    base, g, servers, n = lay.base, lay.g, lay.servers, lay.n
    EPOCH, STATE, LEADER_ID, LOG, HW = f.EPOCH, f.STATE, f.LEADER_ID, f.LOG, f.HW
    ACKED_FIELD, ACKED, LEADER, ILLEGAL, NIL = f.ACKED_FIELD, f.ACKED, f.LEADER, f.ILLEGAL, f.NIL
    V = f.VALUES

    def illegal(s) -> str:
        bad = [i + 1 for i in servers if s[base[i] + STATE] == ILLEGAL]
        return f"server {', '.join(map(str, bad))} in IllegalState" if bad else ""

    def divergence(s) -> str:
        for a in servers:
            for b in servers:
                if a >= b:
                    continue
                low = min(s[base[a] + HW], s[base[b] + HW])
                la, lb = s[base[a] + LOG], s[base[b] + LOG]
                for k in range(low):
                    if la[k] != lb[k]:
                        return (f"offset {k + 1}, under both high watermarks: server {a + 1} has "
                                f"{V[la[k][1]]}@{la[k][0]}, server {b + 1} has {V[lb[k][1]]}@{lb[k][0]}")
        return ""

    def two_leaders(s) -> str:
        for a in servers:
            for b in servers:
                la, lb = s[base[a] + LEADER_ID], s[base[b] + LEADER_ID]
                if a < b and la != NIL and lb != NIL and la != lb and s[base[a] + EPOCH] == s[base[b] + EPOCH]:
                    return (f"in epoch {s[base[a] + EPOCH]} server {a + 1} follows {la + 1} and server {b + 1} "
                            f"follows {lb + 1}")
        return ""

    def acked_values(s) -> list[int]:
        return [v for v, a in enumerate(s[g + ACKED_FIELD]) if a == ACKED]

    def has_value(s, i, v) -> bool:
        return any(entry[1] == v for entry in s[base[i] + LOG])

    def leader_missing_acked(s) -> str:
        newest = max(s[base[i] + EPOCH] for i in servers)
        for v in acked_values(s):
            for i in servers:
                o = base[i]
                if s[o + STATE] == LEADER and s[o + EPOCH] == newest and not has_value(s, i, v):
                    return f"leader {i + 1} of epoch {newest} lacks acknowledged value {V[v]}"
        return ""

    def acked_lost(s) -> str:
        for v in acked_values(s):
            if not any(has_value(s, i, v) for i in servers):
                return f"acknowledged value {V[v]} is on no server"
        return ""

    def not_on_majority(s) -> str:
        leaders = [i for i in servers if s[base[i] + STATE] == LEADER and s[base[i] + HW] > 0]
        if not leaders:
            return ""
        for i in leaders:
            hw, log = s[base[i] + HW], s[base[i] + LOG]
            have = sum(1 for j in servers if len(s[base[j] + LOG]) >= hw and s[base[j] + LOG][hw - 1] == log[hw - 1])
            if have >= n // 2 + 1:
                return ""
        i = leaders[0]
        return f"leader {i + 1}'s entry at its high watermark {s[base[i] + HW]} is on fewer than a majority"

    def leader_elected(s) -> bool:
        return any(s[base[i] + STATE] == LEADER for i in servers)

    def value_acked(s) -> bool:
        return bool(acked_values(s))

    ELECTIONS, max_elections, values = f.ELECTIONS, t.config.max_elections, range(t.config.values)

    def all_or_nothing(s) -> bool:
        """ValueAllOrNothing for every value, with the spec's excuse: elections used up, no leader."""
        if s[g + ELECTIONS] == max_elections and not leader_elected(s):
            return True
        for v in values:
            holders = sum(1 for i in servers if has_value(s, i, v))
            if 0 < holders < n:
                return False
        return True

    majority = n // 2 + 1

    def stable_leaders(s, everyone: bool) -> list[tuple[int, int]]:
        """(leader, epoch) of each Leader followed in its epoch by every other server, or by a majority."""
        out = []
        for i in servers:
            o = base[i]
            if s[o + STATE] != LEADER:
                continue
            e = s[o + EPOCH]
            follow = sum(1 for j in servers if j != i and s[base[j] + STATE] == f.FOLLOWER
                         and s[base[j] + LEADER_ID] == i and s[base[j] + EPOCH] == e)
            if follow == n - 1 or (not everyone and follow + 1 >= majority):
                out.append((i, e))
        return out

    def disrupted(everyone: bool):
        def fails(s, action, t) -> str:
            for i, e in stable_leaders(s, everyone):
                past = [j + 1 for j in servers if t[base[j] + EPOCH] > e]
                if past:
                    who = "every other server" if everyone else "a majority"
                    return (f"leader {i + 1} of epoch {e}, followed by {who}, is disrupted: server "
                            f"{', '.join(map(str, past))} moved past epoch {e}")
            return ""
        return fails

    def functional_leader(s) -> bool:
        """kip_996's FunctionalLeaderExists: a Leader that a majority (itself counted) names as leader."""
        return any(s[base[i] + STATE] == LEADER and sum(1 for j in servers if s[base[j] + LEADER_ID] == i) >= majority
                   for i in servers)

    def leader_or_out_of_elections(s) -> bool:
        return functional_leader(s) or (s[g + ELECTIONS] == max_elections and not leader_elected(s))

    def always(name, fails, doc, default=True):
        return lambda: Property.always(name, lambda s: not fails(s), doc, describe=fails, default=default)

    return {
        "NoIllegalState": always("NoIllegalState", illegal,
                                 "no server made a transition the spec declares illegal"),
        "NoLogDivergence": always("NoLogDivergence", divergence,
                                  "two servers agree on every entry up to the lower of their high watermarks"),
        "NeverTwoLeadersInSameEpoch": always("NeverTwoLeadersInSameEpoch", two_leaders,
                                             "two servers in the same epoch never name different leaders"),
        "LeaderHasAllAckedValues": always("LeaderHasAllAckedValues", leader_missing_acked,
                                          "the newest leader has every acknowledged value"),
        "AckedValueNotLost": always("AckedValueNotLost", acked_lost,
                                    "every acknowledged value is in some server's log"),
        "CommittedEntriesReachMajority": always(
            "CommittedEntriesReachMajority", not_on_majority,
            "a leader's entry at its high watermark is on a majority (opt-in)", default=False),
        "LeaderNotDisrupted": lambda: Property.transition(
            "LeaderNotDisrupted", lambda s, a, t: not disrupted(True)(s, a, t),
            "no step takes a server past the epoch of a leader every other server follows (KIP-996; opt-in)",
            describe=disrupted(True), default=False),
        "MajorityLeaderNotDisrupted": lambda: Property.transition(
            "MajorityLeaderNotDisrupted", lambda s, a, t: not disrupted(False)(s, a, t),
            "no step takes a server past the epoch of a leader a majority follows (KIP-996; opt-in)",
            describe=disrupted(False), default=False),
        "EventuallyLeaderElected": lambda: Property.leads_to(
            "EventuallyLeaderElected", lambda s: not functional_leader(s), leader_or_out_of_elections,
            "no functional leader leads to one (unless elections ran out leaderless; kraft/kip_996, opt-in)",
            default=False),
        "LeaderElected": lambda: Property.sometimes("LeaderElected", leader_elected, "some server becomes leader"),
        "ValueAcknowledged": lambda: Property.sometimes("ValueAcknowledged", value_acked,
                                                        "some value is committed and acknowledged"),
        "ValuesNotStuck": lambda: Property.leads_to(
            "ValuesNotStuck", lambda s: True, all_or_nothing,
            "always eventually every value is on every server or on none (unless elections ran out leaderless; "
            "opt-in)", default=False),
    }
