"""``make_model``: the entry point the ``isrcheck.models`` registry names ``quorum``.

The command line builds the options from this signature; each option's help is this docstring's
entry for it. They map onto KRaft.tla's constants (Vanlightly/raft-tlaplus, ``specifications/pull-raft``):
``--voters`` is |Server|, ``--values`` is |Value|, ``--max-elections`` is MaxElections and
``--max-crashes`` is MaxRestarts (the option keeps the name the classic model gives its own crash bound).
KIP-853's dynamic voters (KRaftWithReconfig.tla, kafka-tlaplus ``kraft/kip_853``) are on with
``--max-reconfigs`` (MaxAddReconfigs + MaxRemoveReconfigs); ``--joining`` is |Hosts| - InitClusterSize.
"""

from __future__ import annotations

from typing import Literal

from .config import RECONFIG_RULES, RESTARTS, QuorumConfig
from .model import QuorumModel

Restart = Literal[RESTARTS]
ReconfigRule = Literal[RECONFIG_RULES]


def make_model(
    *,
    voters: int = 3,
    values: int = 1,
    max_elections: int = 1,
    max_crashes: int = 0,
    restart: Restart = "spec",
    max_reconfigs: int = 0,
    joining: int = 0,
    reconfig_rule: ReconfigRule = "spec",
    pre_vote: bool = False,
    init_leader: bool = False,
    max_fetches: int | None = None,
    property_set: str = "all",
) -> QuorumModel:
    """The metadata quorum: KRaft's pull-based Raft (KIP-595), after KRaft.tla (docs/quorum.md).

    voters: the spec's Server: how many controllers vote (1 to 5).
    values: the spec's Value: how many values clients write to the metadata log (1 to 8).
    max_elections: the spec's MaxElections: how many elections servers may start.
    max_crashes: the spec's MaxRestarts: how many server restarts (the log, epoch and vote survive).
    restart: spec (KRaft.tla's Restart: a Follower that knows no leader) or persisted (back in the
        election state it had: Voted, Follower of its leader, Candidate, Unattached, Leader), as Kafka
        restores a voter from its quorum-state file but for a leader, which Kafka resigns (docs/quorum.md).
    max_reconfigs: KIP-853's dynamic voters: how many AddVoter/RemoveVoter a leader may append (0: off, the
        KRaft.tla model; 1 or more: the cluster starts with server 1 leading the voters, as KRaftWithReconfig).
    joining: servers that start outside the voter set, fetching as observers (with --max-reconfigs).
    reconfig_rule: spec (one voter at a time, after an entry of the leader's epoch is committed), two-at-once,
        before-epoch-commit or ignore-non-voters (pitfalls the specs warn against; docs/quorum.md).
    pre_vote: KIP-996 (kafka-tlaplus kraft/kip_996): a timeout makes the server Prospective, asking for
        pre-votes in its epoch; only a majority of them lets it stand for election (docs/quorum.md).
    init_leader: start as kraft/kip_996's Init does: server 1 leads epoch 1, the others follow it.
    max_fetches: a bound of the search, not in the specs: how many FetchRequests followers may send in a run
        (default: unbounded); safety only, the liveness properties are left out under it (docs/quorum.md).
    property_set: which properties the model builds: all, default, or comma-separated names
        (isrcheck properties quorum lists them); a run checks the default ones unless --invariant names others.
    """
    config = QuorumConfig(voters=voters, values=values, max_elections=max_elections, max_restarts=max_crashes,
                          restart=restart, joining=joining, max_reconfigs=max_reconfigs, reconfig_rule=reconfig_rule,
                          pre_vote=pre_vote, init_leader=init_leader,
                          max_fetches=max_fetches)
    return QuorumModel(config, property_set)
