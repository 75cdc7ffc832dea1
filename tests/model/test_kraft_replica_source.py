"""The replica functions generated from ``model/kraft/functions.py`` (``replica_source.py``) against
the same description read on ints by ``ConcreteOps``, on every small input: the generated source is
a translation, so any difference is a bug of the writer (the successors' digests and the symbolic
equivalence tests cover them in the steps)."""

from __future__ import annotations

import itertools

from isrcheck.explorer.symbolic.concrete import ConcreteOps
from isrcheck.model.kraft import functions
from isrcheck.model.kraft.fields import NIL
from isrcheck.model.kraft.replica_source import commit_offsets, last_offsets_for_epoch


def test_commit_offset_is_the_description_on_every_small_input() -> None:
    o, n = ConcreteOps(), 3
    fns = commit_offsets(n)
    seen = set()
    for b, members, leo in itertools.product(range(n), range(1 << n), range(3)):
        for fleo in itertools.product((NIL, 0, 1, 2, 3), repeat=n):
            bits = [bool(members >> f & 1) for f in range(n)]
            want = functions.commit_offset(o, b, bits, leo, list(fleo))
            assert fns[b](members, leo, tuple((x, 0) for x in fleo)) == want, (b, members, leo, fleo)
            seen.add(want)
    assert seen == {0, 1, 2}  # unseen members, a follower behind and the leader's own LEO all answer


def test_last_offset_for_epoch_is_the_description_on_every_small_log() -> None:
    o, values = ConcreteOps(), 2
    fns = last_offsets_for_epoch(values)
    answers = set()
    for size in range(4):
        for epochs in itertools.combinations_with_replacement(range(3), size):  # a log's epochs never decrease
            log = tuple(e * values + i % values for i, e in enumerate(epochs))
            for epoch, leader_epoch, is_leader in itertools.product(range(4), range(4), (False, True)):
                def epoch_at(off: int, epochs: tuple = epochs) -> int:
                    return o.sel(epochs, off)
                asker = leader_epoch if is_leader else None
                want = functions.last_offset_for_epoch(o, epoch_at, len(log), epoch, asker)
                assert fns[is_leader](log, leader_epoch, epoch) == want, (log, epoch, leader_epoch, is_leader)
                answers.add(want)
    assert (0, 1) in answers and (2, 3) in answers  # the first larger epoch ends it; the LEO does
