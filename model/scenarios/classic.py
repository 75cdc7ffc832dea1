"""The classic family's entries of the bug catalogue (docs/bugs.md): each protocol
generation's hole as a named scenario, and the generation that closed it checked within the same
bounds. Registered in the ``isrcheck.scenarios`` entry-point group; ``isrcheck scenario K1`` runs one.

Trace lengths count states, the initial one included, and are the shortest possible (breadth-first
search). TLC on the same specs gives 10 (K1) and 12 (K3); K4 and K5 exist only with 3 replicas.
"""

from __future__ import annotations

from isrcheck.explorer.scenarios import Scenario

_BOUNDS = {"log_size": 2, "max_records": 2, "max_leader_epoch": 2}


def _classic(generation: str, replicas: int) -> dict:
    return {"generation": generation, "replicas": replicas, **_BOUNDS}


def classic_scenarios() -> list[Scenario]:
    return [
        Scenario(
            id="K1",
            title="Pre-0.11 followers truncate to their own high watermark (KIP-101 scenario 1)",
            model="classic",
            options=_classic("truncate-to-hw", 2),
            properties=("StrongIsr",),
            expect="violated",
            trace_length=10,
            story=(
                "A follower learns the high watermark one fetch late. When it becomes follower again it "
                "truncates its log to its own, stale, high watermark, and drops a record the leader has "
                "already committed on its behalf: the ISR now holds a member without a committed record."
            ),
        ),
        Scenario(
            id="K3",
            title="KIP-101: the leader answers an epoch lookup with an offset but not its epoch (KAFKA-6361)",
            model="classic",
            options=_classic("kip101", 2),
            properties=("StrongIsr",),
            expect="violated",
            trace_length=12,
            story=(
                "After a fast fail-over a follower holds a record of an epoch the new leader never saw. "
                "It asks for the end offset of that epoch; the leader answers with the start of the next "
                "epoch it knows, which lies below the committed record, and the follower truncates it away."
            ),
        ),
        Scenario(
            id="K4",
            title=("KIP-279 without fencing: a late LeaderAndIsr makes a follower truncate against a replica "
                   "that never led (3 replicas)"),
            model="classic",
            options=_classic("kip279", 3),
            properties=("StrongIsr",),
            expect="violated",
            trace_length=11,
            story=(
                "The controller elects leaders three times (epochs 0, 1, 2) before any request arrives. "
                "Replica 3 first receives the stale epoch-0 request naming leader 1 and fetches record 0 "
                "from leader 1, now in epoch 2, which counts the fetch towards its high watermark (KIP-279 "
                "does not check a fetch's epoch) and commits the record. The epoch-1 request arrives late "
                "and names replica 2, a replica that never became leader and whose log is empty; replica 3 "
                "truncates against that log and loses the committed record while the controller keeps it "
                "in the ISR."
            ),
        ),
        Scenario(
            id="K5",
            title="The rejected KIP-320 draft: lazy truncation (3 replicas)",
            model="classic",
            options=_classic("kip320-first-try", 3),
            properties=("StrongIsr",),
            expect="violated",
            trace_length=13,
            story=(
                "The draft postponed truncation to the follower's next fetch. A follower that fetched "
                "unfenced in a stale epoch helped commit a record, switched leaders, and truncated lazily "
                "against a leader whose log lacks it."
            ),
        ),
        Scenario(
            id="KIP320",
            title="KIP-320 as accepted: leader epochs fence stale fetchers and truncation (3 replicas)",
            model="classic",
            options=_classic("kip320", 3),
            properties=("WeakIsr", "StrongIsr", "LeaderInIsr", "RecordCommitted", "TruncationHappened"),
            expect="holds",
            story=(
                "Fetches carry the follower's current leader epoch and a leader rejects other epochs, so "
                "neither K4 nor K5 can happen: every reachable state keeps the ISR's logs agreeing below "
                "the high watermark, and records do get committed and truncated along the way."
            ),
            check_options={"symmetry": True},
        ),
    ]
