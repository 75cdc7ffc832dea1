"""The constants of KRaft.tla (Vanlightly/raft-tlaplus, ``specifications/pull-raft``), validated.

``voters`` is |Server|, ``values`` is |Value|, ``max_elections`` is MaxElections and
``max_restarts`` is MaxRestarts; ``restart`` chooses the spec's restart or one into the persisted
election state (``QuorumSteps.restart`` in ``isrcheck.model.quorum.steps``). KIP-853's dynamic
voters (``isrcheck.model.quorum.reconfig``) are on when ``max_reconfigs`` is 1 or more:
``joining`` servers start outside the voter set (|Hosts| - InitClusterSize of KRaftWithReconfig),
``max_reconfigs`` is MaxAddReconfigs + MaxRemoveReconfigs, ``reconfig_rule`` the rule a leader
follows (the spec's, or a pitfall the write-ups warn against). ``max_fetches`` is not a spec
constant: it bounds the FetchRequests of a run so that a search completes where the specs' state
space does not (docs/quorum.md, "The two-majorities pitfall's fixed form"). Every bound is
checked here so that an impossible one is refused with the reason and the fix before any state is
built.

Abstracted away: nothing; this is the configuration only.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_VOTERS = 5  # server sets are bit masks and a vote count is a majority of them; 5 is already far past TLC
MAX_VALUES = 8  # values are shown as letters A..H
RESTARTS = ("spec", "persisted")  # the one declaration the factory's Literal and the messages read
# How a leader may change the voter set: the spec's rule (one voter at a time, once the leader has
# committed an entry of its epoch), or a pitfall: two voters at once (one replaced by another), or
# no wait for a committed entry of its own epoch (the Raft thesis's single-server bug), or a leader
# that ignores fetches from voters outside its voter set (which KRaftWithReconfig warns gets stuck).
RECONFIG_RULES = ("spec", "two-at-once", "before-epoch-commit", "ignore-non-voters")


@dataclass(frozen=True)
class QuorumConfig:
    voters: int = 3
    values: int = 1
    max_elections: int = 1
    max_restarts: int = 0
    restart: str = "spec"
    pre_vote: bool = False  # KIP-996 (isrcheck.model.quorum.prevote): timeouts ask for pre-votes first
    init_leader: bool = False  # kraft/kip_996's Init: server 1 already leads epoch 1, the others follow it
    joining: int = 0
    max_reconfigs: int = 0
    reconfig_rule: str = "spec"
    max_fetches: int | None = None  # a bound of the search (not a spec constant): FetchRequests sent in a run

    @property
    def fetch_bound(self) -> bool:
        """Fetches are bounded (the state has the fetch counter)."""
        return self.max_fetches is not None

    @property
    def reconfig(self) -> bool:
        """KIP-853's dynamic voters are modelled (the state has the reconfiguration fields)."""
        return self.max_reconfigs > 0

    @property
    def servers(self) -> int:
        """Every server: the initial voters and those that start outside the voter set."""
        return self.voters + self.joining

    def validate(self) -> None:
        if not 1 <= self.voters <= MAX_VOTERS:
            raise ValueError(f"voters={self.voters}: the quorum has 1 to {MAX_VOTERS} voters; pass --voters 3 "
                             "(the specs' configuration)")
        least = 0 if self.reconfig else 1  # with reconfigurations the voter-set entries alone are worth checking
        if not least <= self.values <= MAX_VALUES:
            raise ValueError(f"values={self.values}: clients write {least} to {MAX_VALUES} values; pass --values 1")
        if self.max_elections < 0:
            raise ValueError(f"max_elections={self.max_elections}: give 0 or more (0: no leader is ever elected)")
        if self.max_restarts < 0:
            raise ValueError(f"max_crashes={self.max_restarts}: give 0 or more")
        if self.restart not in RESTARTS:
            raise ValueError(f"restart={self.restart!r}: choose {' or '.join(RESTARTS)}")
        if self.restart != "spec" and not self.max_restarts:
            raise ValueError(f"restart={self.restart!r} has no effect with max_crashes=0: set max_crashes >= 1")
        if self.max_fetches is not None and self.max_fetches < 0:
            raise ValueError(f"max_fetches={self.max_fetches}: give 0 or more FetchRequests, or leave it out "
                             "(unbounded, as the specs)")
        self._validate_reconfig()

    def _validate_reconfig(self) -> None:
        if self.max_reconfigs < 0:
            raise ValueError(f"max_reconfigs={self.max_reconfigs}: give 0 (no reconfiguration) or more")
        if self.joining < 0:
            raise ValueError(f"joining={self.joining}: give 0 or more servers outside the initial voter set")
        if self.reconfig_rule not in RECONFIG_RULES:
            raise ValueError(f"reconfig_rule={self.reconfig_rule!r}: choose {', '.join(RECONFIG_RULES)}")
        if not self.reconfig:
            if self.joining:
                raise ValueError(f"joining={self.joining} needs reconfigurations to add a server: set "
                                 "max_reconfigs >= 1")
            if self.reconfig_rule != "spec":
                raise ValueError(f"reconfig_rule={self.reconfig_rule!r} has no effect with max_reconfigs=0: "
                                 "set max_reconfigs >= 1")
            return
        if self.init_leader:
            # KRaftWithReconfig's Init already has server 1 leading epoch 1 (and kip_996's, which holds
            # pre-vote and reconfiguration together, is the same): the option would say nothing more.
            raise ValueError(f"init_leader with max_reconfigs={self.max_reconfigs}: with --max-reconfigs server 1 "
                             "already leads epoch 1; drop --init-leader (--pre-vote combines with --max-reconfigs)")
        if self.servers > MAX_VOTERS:
            raise ValueError(f"voters={self.voters} and joining={self.joining}: at most {MAX_VOTERS} servers in "
                             f"all; lower --joining or --voters")
