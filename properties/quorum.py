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

With ``--max-reconfigs`` (KIP-853), from KRaftWithReconfig.tla and kafka-tlaplus ``kraft/kip_853``:
StatesMatchRoles (an observer is only Leader, Follower, Unattached or Voted; an Unattached server
knows no leader), on by default; ReconfigurationCommitted, a ``sometimes`` witness; and
ReconfigurationNotStuck (liveness, opt-in): always eventually, unless no progress is possible, the
newest leader's voter set has every voter-set entry committed on all its members or on none, under
the same weak fairness of ``Next``. The spec's ``NoProgressPossible`` reads ``state[j] = Voter``,
which never holds, so as written it excuses every state once the elections are used up; here it is
read as meant (``role[j] = Voter``): elections used up and no leader in a voter's voter set; and
the spec's ids ``1..(MaxAddReconfigs + MaxRemoveReconfigs)`` name the initial voter set (id 1), not
the reconfigurations' entries (ids 2 and up), so every appended voter-set entry is checked instead.
CommittedEntriesReachMajority counts over the leader's voter set. The other properties read as
before: servers outside the voter set are servers like any other (AckedValueNotLost: on some
server's log, as in KRaft.tla; kip_853 asks for a voter's).
KIP-996's pitfall as safety (opt-in transition properties; docs/quorum.md, "Pre-vote (KIP-996)"):
LeaderNotDisrupted, no step takes a server past the epoch of a leader that every other server
follows in that epoch (a server whose fetches time out must not depose a leader the rest of the
quorum follows); MajorityLeaderNotDisrupted, the same for a leader that only a majority follows.
EventuallyLeaderElected (kafka-tlaplus ``kraft/kip_996``, opt-in liveness): a state without a
functional leader (a Leader that a majority, itself counted, names as leader) leads to one, with
ValuesNotStuck's excuse for the bounds: the last election allowed was used and no server leads.

ValuesEventuallyAcked (kafka-tlaplus ``kraft/kip_853``, opt-in liveness, with ``--max-reconfigs``): a
written value is eventually acknowledged, positively (committed) or negatively, unless no progress
is possible. The model sends no negative acknowledgement; a value on no log and in no undelivered
fetch response, which no step can bring back, stands for one (docs/quorum.md says why).

Under ``--max-fetches`` (a bound of the search) the liveness properties are left out (``LIVE``): a
run that has spent its fetches stops replicating, which would fail them for the bound's sake.

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
# Only with --max-reconfigs (KIP-853): a configuration without it refuses them, naming the option.
RECONFIG = ("StatesMatchRoles", "ReconfigurationCommitted", "ReconfigurationNotStuck", "ValuesEventuallyAcked")
# Left out under --max-fetches: a run that spends its fetches stops replicating, which would fail
# them for the bound's sake, not the protocol's.
LIVE = LIVENESS + ("ReconfigurationNotStuck", "ValuesEventuallyAcked")


def build(t: Any, property_set: str = "all") -> list[Property]:
    """The selected properties: 'all' or 'default' (every one, the opt-in ones run only when named)
    or comma-separated names."""
    names = NAMES + RECONFIG if t.config.reconfig else NAMES
    if t.config.max_fetches is not None:
        names = tuple(n for n in names if n not in LIVE)
    if not t.config.values:  # only voter-set entries (--values 0 with --max-reconfigs): no value to acknowledge
        names = tuple(n for n in names if n != "ValueAcknowledged")
    if property_set in ("all", "default"):
        chosen = names
    else:
        chosen = tuple(n.strip() for n in property_set.split(",") if n.strip())
        unknown = [n for n in chosen if n not in names]
        if unknown:
            hint = "; StatesMatchRoles and the reconfiguration properties need --max-reconfigs 1 or more" if any(
                n in RECONFIG for n in unknown) else ""
            if t.config.max_fetches is not None and any(n in LIVE for n in unknown):
                hint += ("; the liveness properties are left out under --max-fetches (running out of fetches "
                         "would fail them): drop --max-fetches")
            raise ValueError(f"property_set: unknown for the quorum: {', '.join(unknown)}; choose from "
                             f"{', '.join(names)}{hint}")
    builders = _builders(t)
    return [builders[n]() for n in chosen]


def _builders(t: Any) -> dict[str, Any]:
    lay, f = t.layout, t.fields
    base, g, servers, n = lay.base, lay.g, lay.servers, lay.n
    EPOCH, STATE, LEADER_ID, LOG, HW = f.EPOCH, f.STATE, f.LEADER_ID, f.LOG, f.HW
    ACKED_FIELD, ACKED, LEADER, ILLEGAL, NIL = f.ACKED_FIELD, f.ACKED, f.LEADER, f.ILLEGAL, f.NIL
    V, name = f.VALUES, f.entry_name  # entry_name: a client value's letter or a voter set

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
                                f"{name(la[k][1])}@{la[k][0]}, server {b + 1} has {name(lb[k][1])}@{lb[k][0]}")
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

    reconfig = t.config.reconfig

    def voter_set(s, i) -> tuple:
        """The servers of ``i``'s newest voter-set entry (the reconfiguration's encoding: a negative
        value); without reconfigurations every server."""
        if not reconfig:
            return servers
        log = s[base[i] + LOG]
        for k in range(len(log) - 1, -1, -1):
            if log[k][1] < 0:
                return lay.members[-1 - log[k][1]]
        return ()

    def not_on_majority(s) -> str:
        leaders = [i for i in servers if s[base[i] + STATE] == LEADER and s[base[i] + HW] > 0]
        if not leaders:
            return ""
        for i in leaders:
            hw, log = s[base[i] + HW], s[base[i] + LOG]
            ensemble = voter_set(s, i)
            have = sum(1 for j in ensemble if len(s[base[j] + LOG]) >= hw and s[base[j] + LOG][hw - 1] == log[hw - 1])
            if have * 2 > len(ensemble):
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

    FOLLOWER, UNATTACHED, VOTED = f.FOLLOWER, f.UNATTACHED, f.VOTED
    observer_states = (LEADER, FOLLOWER, UNATTACHED, VOTED)

    def roles_mismatch(s) -> str:
        for i in servers:
            o = base[i]
            if i not in voter_set(s, i) and s[o + STATE] not in observer_states:
                return f"server {i + 1} is an observer in state {f.STATE_NAMES[s[o + STATE]]}"
            if s[o + STATE] == UNATTACHED and s[o + LEADER_ID] != NIL:
                return f"server {i + 1} is Unattached but names leader {s[o + LEADER_ID] + 1}"
        return ""

    def config_entries(s) -> set:
        """Every voter-set entry appended by a reconfiguration (the initial one is at offset 1)."""
        return {(k, entry) for i in servers for k, entry in enumerate(s[base[i] + LOG]) if entry[1] < 0 and k > 0}

    def reconfig_committed(s) -> bool:
        return any(0 < k < s[base[i] + HW] and entry[1] < 0 for i in servers
                   for k, entry in enumerate(s[base[i] + LOG]))

    def current_leaders(s) -> list[int]:
        newest = max(s[base[i] + EPOCH] for i in servers)
        return [i for i in servers if s[base[i] + STATE] == LEADER and s[base[i] + EPOCH] == newest]

    def no_progress_possible(s) -> bool:
        """KRaftWithReconfig's NoProgressPossible as meant: elections used up, and no leader is in a
        voter's voter set."""
        if s[g + ELECTIONS] < max_elections:
            return False
        voters_sets = [voter_set(s, j) for j in servers if j in voter_set(s, j)]
        return not any(s[base[i] + STATE] == LEADER and any(i in vs for vs in voters_sets) for i in servers)

    def config_all_or_nothing(s) -> bool:
        """ConfigAllOrNothing for every appended voter-set entry: on every member of the newest
        leader's voter set and committed there, or on none of them."""
        if no_progress_possible(s):
            return True
        entries = config_entries(s)
        for leader in current_leaders(s):
            members = voter_set(s, leader)
            ok = True
            for k, entry in entries:
                logs = [(s[base[i] + LOG], s[base[i] + HW]) for i in members]
                everywhere = all(len(log) > k and log[k] == entry and hw > k for log, hw in logs)
                nowhere = all(entry not in log for log, _ in logs)
                if not (everywhere or nowhere):
                    ok = False
                    break
            if ok:
                return True
        return False

    PENDING, MESSAGES, FR, FR_ENTRIES = f.PENDING, f.MESSAGES, f.FR, f.FR_ENTRIES

    def in_flight(s, v) -> bool:
        return any(count and m[0] == FR and any(e[1] == v for e in m[FR_ENTRIES]) for m, count in s[g + MESSAGES])

    def value_settled(s, v) -> bool:
        """kip_853's positive or negative acknowledgement of a written value: committed (``acked``), or
        on no server's log and in no undelivered fetch response, which no step can undo (the model
        sends no negative acknowledgement: a value gone for good is the one a client is told failed)."""
        a = s[g + ACKED_FIELD][v]
        return a != PENDING or not (any(has_value(s, i, v) for i in servers) or in_flight(s, v))

    def some_value_unsettled(s) -> bool:
        return any(not value_settled(s, v) for v in values)

    def values_acked(s) -> bool:
        """Every written value acknowledged either way, unless no progress is possible."""
        return no_progress_possible(s) or not some_value_unsettled(s)

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
        "StatesMatchRoles": always("StatesMatchRoles", roles_mismatch,
                                   "an observer is Leader, Follower, Unattached or Voted; an Unattached server "
                                   "knows no leader"),
        "ReconfigurationCommitted": lambda: Property.sometimes(
            "ReconfigurationCommitted", reconfig_committed,
            "a server knows a voter set a reconfiguration appended is committed"),
        "ReconfigurationNotStuck": lambda: Property.leads_to(
            "ReconfigurationNotStuck", lambda s: True, config_all_or_nothing,
            "always eventually every voter-set entry is committed on all of the newest leader's voters or on none "
            "(unless no progress is possible; opt-in)", default=False),
        "ValuesEventuallyAcked": lambda: Property.leads_to(
            "ValuesEventuallyAcked", some_value_unsettled, values_acked,
            "a written value is eventually committed or on no server's log (unless no progress is possible; "
            "kraft/kip_853, opt-in)", default=False),
        "ValuesNotStuck": lambda: Property.leads_to(
            "ValuesNotStuck", lambda s: True, all_or_nothing,
            "always eventually every value is on every server or on none (unless elections ran out leaderless; "
            "opt-in)", default=False),
    }
