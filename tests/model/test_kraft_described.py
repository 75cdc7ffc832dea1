"""The KRaft steps written once (model/kraft/described.py) and read both ways.

The explicit successors are pinned by digests recorded from the hand-written steps before they
were derived (every reachable state of two configurations, 3.5 and KIP-966, with shutdowns,
leader shrinks, avoid-last-replica-standing and a reassignment; ``python bench/kraft_steps_ab.py``
compares six more against another checkout). A change to one description reaches both readings:
the generated Python and the z3 relation change together and still agree.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace

import pytest
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.symbolic.relation import concrete_successors
from isrcheck.model.kraft import described
from isrcheck.model.kraft.fields import NO_ROLE, RUNNING, STARTING
from isrcheck.model.kraft.staging import source_of
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.states import breadth_first

# Small configurations covering every described step and option of both generations (fencing,
# avoid-last-replica-standing, leader shrinks, both KIP-966 clean kinds, lossy stops, reassignment),
# with their digests before the derivation (commit 6df772a; bench/kraft_steps_ab.py checks larger ones).
PINNED = [
    ({"generation": "kraft-3.5", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 1,
      "max_crashes": 1, "stops": "lossy", "avoid_last_replica_standing": True},
     3887, "74c9ceca26e4d9ecc942b5543edeb79c"),
    ({"generation": "kraft-3.5", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 0,
      "max_crashes": 1, "stops": "controlled", "max_leader_shrinks": 1},
     1435, "fd4b936f644eba8234032eaed6052e01"),
    ({"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 0,
      "max_crashes": 1, "stops": "all"},
     8190, "7f18296081658ab276e73763aeeaee2d"),
    ({"generation": "kraft-kip966", "replicas": 2, "spare_brokers": 1, "max_reassignments": 1,
      "min_insync_replicas": 2, "max_records": 1, "max_fencings": 0},
     733, "c3c7cc4ef4bbd7a8128885b49bf17dcd"),
]
SMALL = {"generation": "kraft-kip966", "replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 1,
         "max_crashes": 1, "stops": "lossy"}


@pytest.mark.parametrize("options,states,digest", PINNED,
                         ids=["3.5 lossy avoid-LRS", "3.5 shrinks", "kip966 all stops", "kip966 reassignment"])
def test_successors_equal_the_hand_written_ones(options, states, digest):
    model = build_model("classic", options)
    order = breadth_first(model)
    h = hashlib.blake2b(digest_size=16)
    for s in order:
        h.update(repr(model.successors(s)).encode())
    assert (len(order), h.hexdigest()) == (states, digest)


def test_constant_guards_fold_away():
    """Without fencings FenceBroker can never fire: no function is written for it; with them it is."""
    model = build_model("classic", {**SMALL, "max_fencings": 0})
    assert "def fence_broker_" not in source_of(model.config, model.layout)
    model = build_model("classic", SMALL)
    assert "def fence_broker_0(" in source_of(model.config, model.layout)


def test_one_change_reaches_both_readings(monkeypatch):
    """BrokerStart changed once (the broker starts RUNNING instead of STARTING): the explicit and the
    symbolic successors both follow, and still agree state by state."""
    def eager_start(x, b):
        x.require(described.offline(x, b))
        x.put(b, "status", RUNNING)
        x.put(b, "role", NO_ROLE)
        x.emit(described.A.BrokerStart, b + 1)

    before = build_model("classic", SMALL)
    monkeypatch.setitem(described.STEPS, "BrokerStart", replace(described.STEPS["BrokerStart"], fn=eager_start))
    model = build_model("classic", SMALL)
    sym = make_symbolic(model)
    states = breadth_first(model, 150)
    started = 0
    for s in states:
        want = Counter((type(a).__name__, t) for a, t in model.successors(s))
        assert Counter(concrete_successors(sym, s)) == want
        for a, t in model.successors(s):
            if type(a).__name__ == "BrokerStart":
                started += 1
                b = a.broker - 1
                assert t[model.layout.base[b]] == RUNNING
                assert all(u[model.layout.base[b]] == STARTING
                           for a2, u in before.successors(s) if type(a2).__name__ == "BrokerStart" and a2 == a)
    assert started > 0


def test_one_change_of_a_function_reaches_both_readings(monkeypatch):
    """SendAcksFor changed once in described_replica.py (a failed write acknowledged positively):
    the explicit successors and the symbolic ones both follow, and still agree state by state."""
    from isrcheck.model.kraft import described_replica

    original = described_replica.send_acks

    def acks_every_failed_write(x, b, lower, upper, positive, when):
        original(x, b, lower, upper, True if positive is False else positive, when)

    before = build_model("classic", SMALL)
    monkeypatch.setattr(described_replica, "send_acks", acks_every_failed_write)
    model = build_model("classic", SMALL)
    sym = make_symbolic(model)
    changed = 0
    for s in breadth_first(model, 200):
        got = model.successors(s)
        assert Counter(concrete_successors(sym, s)) == Counter((type(a).__name__, t) for a, t in got)
        changed += got != before.successors(s)
    assert changed > 0


def _walk(model, actions):
    """The state the actions (as the action prints) lead to from the first initial state."""
    s = model.init_states()[0]
    for want in actions:
        s = next(t for a, t in model.successors(s) if str(a) == want)
    return s


def test_elected_from_the_isr_keeps_its_elr_place():
    """KIP-966 with MinISR 3 of 3: broker 2 is re-admitted to the ISR {1, 2} while it stays below
    MinISR, so it is in the ISR and the ELR at once. Fencing leader 1 elects 2 from the ISR; the
    spec's ISR branch (MaybeUpdatePartitionOnBrokerChange) leaves the ELR as UpdateElr made it,
    {1, 2, 3}, and the last known ELR empty. The z3 reading, written from the same function, agrees."""
    model = build_model("classic", {"generation": "kraft-kip966", "replicas": 3, "min_insync_replicas": 3,
                                    "max_fencings": 3})
    s = _walk(model, ["Fetch(follower=2, leader=1, offset=0, result=ok)", "FenceBroker(broker=2)",
                      "UnfenceBroker(broker=2)", "FenceBroker(broker=3)",
                      "ReceiveMetadataUpdate(broker=1, offset=3, then='RemainLeader')",
                      "SendAlterPartitionRequest(leader=1, isr=(1, 2))",
                      "ReceiveAlterPartitionRequest(leader=1, isr=(1, 2), result='accepted')"])
    last = model.state_view(s)["controller.metadataLog"][-1]
    assert (last["isr"], last["elr"]) == ([1, 2], [2, 3])
    t = next(t for a, t in model.successors(s) if str(a) == "FenceBroker(broker=1, elected=2)")
    last = model.state_view(t)["controller.metadataLog"][-1]
    assert (last["leader"], last["isr"], last["elr"], last["lastKnownElr"]) == (2, [2], [1, 2, 3], [])
    want = Counter((type(a).__name__, u) for a, u in model.successors(s))
    assert Counter(concrete_successors(make_symbolic(model), s)) == want
