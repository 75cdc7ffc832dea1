"""Broker symmetry for the KRaft generations: every broker runs the same code, so relabelling brokers
maps a step to a step and keeps every property (each quantifies over all brokers).

What is relabelled: the block of broker b moves to position perm[b]; inside a state, what names a
broker is mapped (a fetcher's leader, a replica's leader, broker sets as masks: replica sets,
ISR, maximal ISR, ELR, last known ELR, a reassignment's adding and removing, a proposed ISR;
per-peer slots: what a leader knows of each follower, the
broker epoch named per proposed member, the fetches in flight per peer), and so is every
PartitionChange record of the controller's metadata log. Broker epochs, offsets, records and
counters are data and move with their broker unchanged.

Broker epochs are data of another kind: they are only compared for equality (0 meaning none, or
KIP-966's unclean registration) and a new one is the last one plus one, so renaming the non-zero
epochs of a state one to one (and the last one assigned to the number of epochs in the state, so
that the next one is still new) gives a state that behaves the same. ``canonical`` renames them by
first appearance, in the order of the fields, after relabelling the brokers. Without that renaming
no two reachable states would be relabellings of each other: the initial state gives broker b the
epoch b + 1, and the epochs travel with their broker.

The initial roles (broker 1 leads, 2..k in the ISR, the rest out of sync) are part of the initial
state, not of the steps: the steps commute with every relabelling and renaming, so the states
reachable from a relabelled initial state are the relabellings of the states reachable from it,
the orbits are the same, and keying states by their least form (``canonical``) visits each orbit
once, at its shortest depth. Every permutation of the brokers is tried (``n!``, at most 24). The
form is not always the least of its orbit (a multiset of stale registrations is renamed in its
sorted order), which can only leave two equivalent states apart, never merge two that are not.

With racks (``--azs``, KRaft only with a reassignment) only the permutations that keep each broker
in its rack are used, since a reassignment's allowed targets depend on the racks.

Abstracted away: nothing; values (A, B, ...) are symmetric too but are not permuted here.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations

from .fields import (
    ALTER_PARTITION,
    BLOCK,
    BROKER_EPOCH,
    C_BROKER_EPOCH,
    FETCH_FROM,
    FETCH_REQUEST,
    FETCHES,
    FOLLOWERS,
    LAST_BROKER_EPOCH,
    MD_ISR,
    MD_LEADER,
    MD_MAXIMAL_ISR,
    MD_REPLICAS,
    METADATA_LOG,
    NIL,
    REG_REQUESTS,
    REG_RESPONSE,
    Layout,
)

_SLOTS = (ALTER_PARTITION, FETCHES)  # fields holding 0 or a tuple: compared through _key


class BrokerSymmetry:
    def __init__(self, lay: Layout, racks: int = 0) -> None:
        self.lay = lay
        # With racks (a reassignment's rack-aware targets, ReplicasSpreadOverRacks) a broker's rack
        # is part of what it is: only permutations that keep every broker in its rack are symmetries.
        perms = [p for p in permutations(lay.brokers)
                 if not racks or all(p[b] % racks == b % racks for b in lay.brokers)]
        self._relabellers = [self._relabeller(p) for p in perms[1:]]  # perms[0] is the identity
        self._slot_positions = tuple(lay.base[b] + f for b in lay.brokers for f in _SLOTS)

    def _relabeller(self, perm: tuple[int, ...]) -> Callable[[tuple], tuple]:
        lay = self.lay
        n = lay.n
        inverse = [0] * n
        for old, new in enumerate(perm):
            inverse[new] = old
        mask = tuple(sum(1 << perm[old] for old in lay.members[m]) for m in range(1 << n))
        broker = {NIL: NIL, **{old: perm[old] for old in range(n)}}
        records: dict[tuple, tuple] = {}

        def peers(slots: tuple) -> tuple:
            return tuple(slots[inverse[new]] for new in range(n))

        def record(r: tuple) -> tuple:
            out = records.get(r)
            if out is None:
                out = records[r] = (broker[r[0]], r[1], r[2], *(mask[m] for m in r[3:]))
            return out

        g = lay.g

        def relabel(s: tuple) -> tuple:
            out: list = []
            for new in range(n):
                o = inverse[new] * BLOCK
                block = list(s[o:o + BLOCK])
                block[FETCH_FROM] = broker[block[FETCH_FROM]]
                block[MD_REPLICAS] = mask[block[MD_REPLICAS]]
                block[MD_ISR] = mask[block[MD_ISR]]
                block[MD_MAXIMAL_ISR] = mask[block[MD_MAXIMAL_ISR]]
                block[MD_LEADER] = broker[block[MD_LEADER]]
                block[FOLLOWERS] = peers(block[FOLLOWERS])
                slot = block[ALTER_PARTITION]
                if slot:
                    block[ALTER_PARTITION] = (slot[0], mask[slot[1]], peers(slot[2]), *(mask[m] for m in slot[3:]))
                block[FETCHES] = peers(block[FETCHES])
                out += block
            tail = list(s[g:])
            tail[METADATA_LOG] = tuple(record(r) for r in s[g + METADATA_LOG])
            return tuple(out + tail)

        return relabel

    def _rename_epochs(self, s: tuple) -> tuple:
        """``s`` with its non-zero broker epochs renamed 1, 2, ... by first appearance."""
        names: dict[int, int] = {0: 0}

        def name(e: int) -> int:
            n = names.get(e)
            if n is None:
                n = names[e] = len(names)
            return n

        t = list(s)
        for o in self.lay.base:
            t[o + BROKER_EPOCH] = name(t[o + BROKER_EPOCH])
            t[o + FOLLOWERS] = tuple((leo, name(e)) for leo, e in t[o + FOLLOWERS])
            slot = t[o + ALTER_PARTITION]
            if slot:
                t[o + ALTER_PARTITION] = (slot[0], slot[1], tuple(name(e) for e in slot[2]), *slot[3:])
            t[o + C_BROKER_EPOCH] = name(t[o + C_BROKER_EPOCH])
            t[o + FETCHES] = tuple(x[:4] + (name(x[4]),) if x and x[0] == FETCH_REQUEST else x
                                   for x in t[o + FETCHES])
            if t[o + REG_REQUESTS]:
                t[o + REG_REQUESTS] = tuple(sorted(name(e) for e in t[o + REG_REQUESTS]))
            t[o + REG_RESPONSE] = name(t[o + REG_RESPONSE])
        t[self.lay.g + LAST_BROKER_EPOCH] = len(names) - 1
        return tuple(t)

    def _key(self, s: tuple) -> tuple:
        """The state with every empty slot (0) written as () so that tuples of states compare."""
        t = list(s)
        for i in self._slot_positions:
            v = t[i]
            if v == 0:
                t[i] = ()
            elif i % BLOCK == FETCHES:
                t[i] = tuple(() if x == 0 else x for x in v)
        return tuple(t)

    def canonical(self, state: tuple) -> tuple:
        """The least relabelling of ``state`` (by ``_key``) over every permutation of the brokers, its
        broker epochs renamed by first appearance."""
        best = self._rename_epochs(state)
        best_key = self._key(best)
        for relabel in self._relabellers:
            cand = self._rename_epochs(relabel(state))
            key = self._key(cand)
            if key < best_key:
                best, best_key = cand, key
        return best
