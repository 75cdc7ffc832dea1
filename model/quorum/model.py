"""``QuorumModel``: the metadata quorum (KRaft's pull-based Raft, KIP-595), for ``isrcheck.explorer.check``.

Builds the spec's ``Init`` (every server Unattached in epoch 1 with an empty log, no message sent),
hands out the steps' successors (``isrcheck.model.quorum.steps``), the properties
(``isrcheck.properties.quorum``), a named view of each state for traces, ITF and the HTML page (with
each field's description), operator signals, and an exact packing of states (``pack``/``unpack``:
marshal's version 2 bytes, which has no back-references, so equal states give equal bytes) for the
compact stores and Spark. With ``--max-reconfigs`` (KIP-853, ``isrcheck.model.quorum.reconfig``) the
initial state is KRaftWithReconfig's, the state has one field more (the reconfiguration counter, last)
and the view two derived keys per server (its voter set and role). With ``--max-fetches`` (a bound of the
search, not in the specs) the state has the fetch counter after those fields.
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from isrcheck.explorer.contract import Property
from isrcheck.properties import quorum as quorum_properties

from . import fields, prevote
from .config import QuorumConfig
from .fields import (
    ACKED_FIELD,
    ELECTIONS,
    EPOCH,
    GLOBAL_FIELDS,
    HW,
    LEADER,
    LEADER_ID,
    LOG,
    MESSAGES,
    NIL,
    RESTARTS,
    SERVER_FIELDS,
    STATE,
    STATE_NAMES,
    UNATTACHED,
    UNWRITTEN,
    Layout,
)
from .reconfig import newest_config
from .steps import QuorumSteps
from .swimlane import event as swimlane_event
from .swimlane import lanes as swimlane_lanes
from .symmetry import ServerSymmetry


@dataclass(frozen=True)
class QuorumTables:
    """What the properties read (``isrcheck.properties.quorum``): the constants, the layout, the field offsets."""

    config: QuorumConfig
    layout: Layout
    fields: Any


class QuorumModel:
    def __init__(self, config: QuorumConfig, property_set: str = "all") -> None:
        config.validate()
        self.config = config
        self.property_set = property_set
        self.layout = Layout(config.servers, config.reconfig, config.fetch_bound)
        self._steps = (prevote.PreVoteSteps if config.pre_vote else QuorumSteps)(config, self.layout)
        self.successors = self._steps.successors
        self.tables = QuorumTables(config, self.layout, fields)
        self._properties = tuple(quorum_properties.build(self.tables, property_set))
        self._symmetry = ServerSymmetry(self.layout, fixed=self._fixed_servers())

    def _fixed_servers(self) -> tuple[tuple[int, ...], ...]:
        """The groups of servers that symmetry may permute among themselves: all of them, or with
        reconfigurations the initial followers and the joining servers apart (server 1 leads the
        initial state, so it stays itself; ``isrcheck.model.quorum.symmetry``)."""
        c = self.config
        if not c.reconfig:
            return (tuple(range(c.voters)),)
        return ((0,), tuple(range(1, c.voters)), tuple(range(c.voters, c.servers)))

    def __repr__(self) -> str:
        c = self.config
        return (f"QuorumModel(voters={c.voters}, values={c.values}, max_elections={c.max_elections}, "
                f"max_restarts={c.max_restarts}" + ("" if c.restart == "spec" else f", restart={c.restart}")
                + (f", max_reconfigs={c.max_reconfigs}, joining={c.joining}, reconfig_rule={c.reconfig_rule}"
                   if c.reconfig else "")
                + (", pre_vote=True" if c.pre_vote else "") + (", init_leader=True" if c.init_leader else "")
                + ("" if c.max_fetches is None else f", max_fetches={c.max_fetches}") + ")")

    def __reduce__(self):
        return (QuorumModel, (self.config, self.property_set))

    # -- the contract ---------------------------------------------------------------------------------

    def init_states(self) -> Sequence[tuple]:
        lay = self.layout
        if self._steps.rc is not None:
            state = self._steps.rc.init_state(self.config.values)
            if self.config.pre_vote:  # kip_996's Init: the initial voters follow server 1, having fetched
                state += (((1 << self.config.voters) - 1) & ~1,)
        elif self.config.pre_vote or self.config.init_leader:  # kip_996's Init, pre-vote's fetched set
            state = prevote.initial_state(lay, self.config.values, self.config.pre_vote, self.config.init_leader)
        else:
            block = (1, UNATTACHED, NIL, NIL, (), (), 0, 0, (0,) * lay.n)
            assert len(block) == len(SERVER_FIELDS)
            state = block * lay.n + ((), (UNWRITTEN,) * self.config.values, 0, 0)
        if lay.fetches is not None:  # --max-fetches: the fetch counter, before pre-vote's fetched set
            state = state[:lay.fetches] + (0,) + state[lay.fetches:]
        return [state]

    def properties(self) -> Sequence[Property]:
        return self._properties

    def pack(self, state: tuple) -> bytes:
        """The state as marshal's version-2 bytes: exact (no back-references: equal states, equal bytes)."""
        return marshal.dumps(state, 2)

    def unpack(self, packed: bytes) -> tuple:
        return marshal.loads(packed)

    def canonical(self, state: tuple) -> tuple:
        """The least relabelling of ``state`` over every permutation of the servers (``--symmetry``;
        ``isrcheck.model.quorum.symmetry`` says why that is sound)."""
        return self._symmetry.canonical(state)

    def fairness(self) -> dict[str, str]:
        """The spec's ``LivenessSpec``: ``WF_vars(Next)``, weak fairness of the whole next-state relation;
        with ``--pre-vote``, kip_996's ``Fairness``: each step of each server weakly fair but Restart and
        ClientRequest."""
        return prevote.families(self.layout.n) if self.config.pre_vote else {"Next": "weak"}

    def action_family(self, action: Any) -> str:
        """Every step is a disjunct of one fair action, ``Next`` (the spec's ``NoStuttering``); with
        ``--pre-vote``, the step, its server and its peer (kip_996's ``WF_vars(HandleVoteRequest(s, peer))``)."""
        return prevote.family(action) if self.config.pre_vote else "Next"

    def property_hint(self, name: str) -> str | None:
        """Why this configuration lacks a property the quorum has: the reconfiguration's need
        ``--max-reconfigs``."""
        if name in quorum_properties.RECONFIG and not self.config.reconfig:
            return f"{name} is KIP-853's: add --max-reconfigs 1 (or more)"
        if name in quorum_properties.LIVE and self.config.fetch_bound:
            return (f"{name} is a liveness property, left out under --max-fetches (running out of fetches would "
                    "stop replication and fail it for the bound's sake): drop --max-fetches")
        return None

    # -- what users read --------------------------------------------------------------------------------

    def state_view(self, s: tuple) -> dict[str, Any]:
        """Every field under its spec name; a server's fields carry its id (``log.2``)."""
        lay, t = self.layout, self.tables
        view: dict[str, Any] = {}
        for i in lay.servers:
            o = lay.base[i]
            for k, f in enumerate(SERVER_FIELDS):
                view[f"{f.view}.{i + 1}"] = f.show(t, s, o + k)
        for k, f in enumerate(GLOBAL_FIELDS):
            view[f.view] = f.show(t, s, lay.g + k)
        if lay.reconfigs is not None:
            for i in lay.servers:
                o = lay.base[i]
                mask, offset = newest_config(s[o + LOG])
                view[f"config.{i + 1}"] = {"voters": lay.ids(mask), "committed": 0 < offset <= s[o + HW]}
                view[f"role.{i + 1}"] = "Voter" if mask >> i & 1 else "Observer"
            for k, f in enumerate(fields.RECONFIG_GLOBAL_FIELDS):
                view[f.view] = f.show(t, s, lay.reconfigs + k)
        if lay.fetches is not None:
            for k, f in enumerate(fields.FETCH_GLOBAL_FIELDS):
                view[f.view] = f.show(t, s, lay.fetches + k)
        if self.config.pre_vote:
            view["fetched"] = lay.ids(s[lay.length])
        return view

    def swimlanes(self) -> list[str]:
        """The lanes of the report's space-time view: one per server."""
        return swimlane_lanes(self.layout.n)

    def swimlane(self, action: Any, before: tuple, after: tuple) -> dict[str, Any]:
        """One step as an event of the space-time view: the messages it sends and delivers
        (``isrcheck.model.quorum.swimlane``)."""
        g = self.layout.g + MESSAGES
        return swimlane_event(action, before[g], after[g])

    def field_docs(self) -> dict[str, str]:
        """One line per view key saying what it means (``isrcheck.model.quorum.fields``)."""
        docs = dict(fields.FIELD_DOCS)
        if self.layout.reconfigs is not None:
            docs.update(fields.RECONFIG_FIELD_DOCS)
        if self.layout.fetches is not None:
            docs.update(fields.FETCH_FIELD_DOCS)
        if self.config.pre_vote:
            docs["fetched"] = prevote.FETCHED_DOC
        return docs

    def signals(self, s: tuple) -> dict[str, Any]:
        """What an operator sees: the leader and its epoch, the high watermark, the states, messages in flight."""
        lay = self.layout
        leaders = [i for i in lay.servers if s[lay.base[i] + STATE] == LEADER]
        newest = max(leaders, key=lambda i: s[lay.base[i] + EPOCH], default=None)
        out: dict[str, Any] = {"leader": None if newest is None else newest + 1,
                               "epoch": None if newest is None else s[lay.base[newest] + EPOCH]}
        if newest is not None:
            o = lay.base[newest]
            out["hw"] = s[o + HW]
            out["lag"] = {f"s{i + 1}": len(s[o + LOG]) - len(s[lay.base[i] + LOG]) for i in lay.servers
                          if i != newest and s[lay.base[i] + LEADER_ID] == newest}
        out["states"] = "/".join(STATE_NAMES[s[lay.base[i] + STATE]] for i in lay.servers)
        out["in-flight"] = sum(count for _, count in s[lay.g + MESSAGES])
        out["elections"] = s[lay.g + ELECTIONS]
        out["restarts"] = s[lay.g + RESTARTS]
        out["acked"] = [fields.VALUES[v] for v, a in enumerate(s[lay.g + ACKED_FIELD]) if a == fields.ACKED]
        if lay.reconfigs is not None and newest is not None:
            out["voters"] = lay.ids(newest_config(s[lay.base[newest] + LOG])[0])
        return out
