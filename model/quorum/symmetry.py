"""Server symmetry (``--symmetry``): the least relabelling of a state over every permutation of the
servers, as the spec's ``SYMMETRY symmServers`` (Permutations(Server)) reduces it.

Sound because nothing in the spec tells servers apart: every action is quantified over all servers
alike, quorums are majorities by count, and no property names a server. Relabelling moves each
server's block to its new place and renames every server id inside it (vote, leader, the votes
granted, the end offsets by peer) and inside every message (source, destination, the leader a
response names, the fetch request a response answers), then sorts the bag again. Values are not
permuted (the spec's configuration does not either).

With ``--max-reconfigs`` the servers are not all alike: server 1 leads the initial state and the
joining servers start outside the voter set. The permutations are then those that keep each group
(server 1; the other initial voters; the joining servers) in place as a set, which maps the initial
state onto itself and every step onto a step of the same kind; a voter-set entry's bit mask, in logs
and in the fetch responses that carry entries, is renamed with the servers.

Abstracted away: nothing; the reduced run visits one state of each orbit, and traces stay concrete.
"""

from __future__ import annotations

from itertools import permutations, product

from . import messages as msg
from .fields import (
    BLOCK,
    END_OFFSET,
    LEADER_ID,
    LOG,
    MESSAGES,
    NIL,
    PENDING_FETCH,
    VOTED_FOR,
    VOTES_GRANTED,
    Layout,
)


def _who(p: tuple[int, ...], i: int) -> int:
    return i if i == NIL else p[i]


def _mask(p: tuple[int, ...], mask: int) -> int:
    return sum(1 << p[k] for k in range(len(p)) if mask >> k & 1)


def relabel_entries(p: tuple[int, ...], entries: tuple) -> tuple:
    """Log entries with every voter-set entry's servers renamed (client values stay)."""
    return tuple((e, v) if v >= 0 else (e, msg.config_value(_mask(p, -1 - v))) for e, v in entries)


def relabel_message(p: tuple[int, ...], m: tuple) -> tuple:
    """The message with every server id ``i`` renamed ``p[i]`` (and the voter sets it carries)."""
    kind = m[0]
    if kind == msg.RVQ:
        return m[:4] + (p[m[4]], p[m[5]])
    if kind == msg.RVR:
        return (kind, m[1], _who(p, m[2])) + m[3:5] + (p[m[5]], p[m[6]])
    if kind == msg.BQQ:
        return (kind, m[1], p[m[2]], p[m[3]])
    if kind == msg.BQR:
        return m[:3] + (p[m[3]], p[m[4]])
    if kind == msg.FQ:
        return m[:4] + (p[m[4]], p[m[5]]) + m[6:]
    return ((kind, m[1], _who(p, m[2])) + m[3:5] + (relabel_entries(p, m[5]),) + m[6:9]
            + (p[m[9]], p[m[10]], relabel_message(p, m[11])))


class ServerSymmetry:
    def __init__(self, layout: Layout, fixed: tuple[tuple[int, ...], ...] | None = None) -> None:
        """``fixed``: the groups of servers permuted among themselves (default: all of them, one group)."""
        self.layout = layout
        groups = fixed or (tuple(range(layout.n)),)
        perms = []
        for choice in product(*(permutations(g) for g in groups)):
            p = [0] * layout.n
            for group, image in zip(groups, choice, strict=True):
                for a, b in zip(group, image, strict=True):
                    p[a] = b
            perms.append(tuple(p))
        self.perms = tuple(q for q in perms if q != tuple(range(layout.n)))  # the identity is the state itself
        self.relabel_logs = fixed is not None and len(groups) > 1

    def relabel(self, s: tuple, p: tuple[int, ...]) -> tuple:
        lay = self.layout
        out: list = [None] * lay.length
        for i in lay.servers:
            o, q = lay.base[i], lay.base[p[i]]
            block = list(s[o:o + BLOCK])
            block[VOTED_FOR] = _who(p, block[VOTED_FOR])
            block[LEADER_ID] = _who(p, block[LEADER_ID])
            if block[PENDING_FETCH]:
                block[PENDING_FETCH] = relabel_message(p, block[PENDING_FETCH])
            block[VOTES_GRANTED] = sum(1 << p[k] for k in lay.members[block[VOTES_GRANTED]])
            ends = [0] * lay.n
            for k, off in enumerate(block[END_OFFSET]):
                ends[p[k]] = off
            block[END_OFFSET] = tuple(ends)
            if self.relabel_logs:
                block[LOG] = relabel_entries(p, block[LOG])
            out[q:q + BLOCK] = block
        out[lay.g:] = s[lay.g:]
        out[lay.g + MESSAGES] = tuple(sorted((relabel_message(p, m), c) for m, c in s[lay.g + MESSAGES]))
        return tuple(out)

    def canonical(self, s: tuple) -> tuple:
        best = s
        for p in self.perms:
            t = self.relabel(s, p)
            if t < best:
                best = t
        return best
