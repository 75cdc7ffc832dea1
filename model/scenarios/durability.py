"""The durability entries of the bug catalogue (docs/bugs.md: K2, K6, K8, K9, K10), each with the
variant that fixes it checked within the same bounds. Registered in the ``isrcheck.scenarios``
entry-point group (``durability = "isrcheck.model.scenarios.durability:scenarios"``).

Trace lengths count states, the initial one included, and are the shortest possible (breadth-first
search). Unless an entry says otherwise the bounds are the classic defaults: 2 replicas, log size 2,
2 records, leader epochs 0..2. docs/durability.md tells each trace in Kafka terms.
"""

from __future__ import annotations

from isrcheck.explorer.scenarios import Scenario

_BOUNDS = {"log_size": 2, "max_records": 2, "max_leader_epoch": 2}


def _opts(generation: str = "kip320", replicas: int = 2, **options) -> dict:
    return {"generation": generation, "replicas": replicas, **_BOUNDS, **options}


def scenarios() -> list[Scenario]:
    return [
        Scenario(
            id="K2",
            title="Pre-0.11 truncation plus power failures: replicas diverge below the high watermark",
            model="classic",
            options=_opts("truncate-to-hw", max_crashes=2, stops="lossy"),
            properties=("LogMatching",),
            expect="violated",
            trace_length=14,
            story=(
                "Kafka does not fsync each write. The leader, alone in the ISR, commits a record that a "
                "follower outside the ISR has already copied (with the high watermark). A power failure "
                "takes the leader's unflushed record; the broker comes back, is still the only ISR member, "
                "is elected again and writes a new record at the same offset. Both replicas now report "
                "high watermark 1 over different records; a pre-0.11 follower truncates only to its high "
                "watermark, so the divergence is permanent."
            ),
        ),
        Scenario(
            id="K2-fixed",
            title="KIP-101 epoch truncation plus KIP-966's unclean-shutdown rule: logs match below the HW",
            model="classic",
            options=_opts("kip101", max_crashes=2, stops="lossy", kip966_unclean_recovery=True),
            properties=("LogMatching",),
            expect="holds",
            story=(
                "Two power failures, as in K2. KIP-101 makes a follower truncate by leader epoch instead of "
                "its stale high watermark, and a broker back from a lossy crash may not be re-elected as the "
                "last ISR member (KIP-966). Each fix alone still diverges (tests/model/test_durability_scenarios.py); "
                "together no reachable state has two replicas disagree below both high watermarks."
            ),
        ),
        Scenario(
            id="K6",
            title="A new leader admits a follower at its stale HW, before the start of its epoch (3 replicas)",
            model="classic",
            options=_opts("kip320", 3, expand_before_epoch_start=True),
            properties=("StrongIsr",),
            expect="violated",
            trace_length=12,
            story=(
                "A newly elected leader's high watermark lags the old leader's: it learns the committed "
                "offset only from its followers. If it admits a follower as soon as that follower reaches the "
                "stale high watermark, the ISR gains a member without a committed record, which the next "
                "clean election can choose."
            ),
            check_options={"symmetry": True},
        ),
        Scenario(
            id="K6-fixed",
            title="KIP-320 expands the ISR only once the HW has reached the leader's epoch (3 replicas)",
            model="classic",
            options=_opts("kip320", 3),
            properties=("StrongIsr",),
            expect="holds",
            story=(
                "The leader waits until its high watermark reaches the first offset of its own epoch, which "
                "is at least every committed offset, before it admits anyone: every ISR member then holds "
                "every committed record."
            ),
            check_options={"symmetry": True},
        ),
        Scenario(
            id="K8",
            title="Unclean leader election loses an acks=all record",
            model="classic",
            options=_opts(acks="all", max_crashes=1, stops="crash", unclean_election="any"),
            properties=("AckedRecordNotLost",),
            expect="violated",
            trace_length=9,
            story=(
                "The leader takes its follower out of the ISR before the follower has fetched anything (its "
                "LeaderAndIsr request has not reached it); alone in the ISR, the leader acknowledges an "
                "acks=all write (min.insync.replicas=1) and then dies. With unclean.leader.election.enable=true "
                "the controller elects that follower, which never had the record: the producer was told "
                "it was written, consumers may have read it, and it is gone."
            ),
        ),
        Scenario(
            id="K8-highest-last-epoch",
            title="Unclean election by highest last epoch (ocadaruma/kafka-spec) loses it too",
            model="classic",
            options=_opts(acks="all", max_crashes=1, stops="crash", unclean_election="highest-last-epoch"),
            properties=("AckedRecordNotLost",),
            expect="violated",
            trace_length=9,
            story=(
                "Preferring the live replica whose last record has the highest leader epoch (then the "
                "longest log) cannot help when the only live replica never had the record: the same "
                "9-state loss as K8."
            ),
        ),
        Scenario(
            id="K8-fixed",
            title="Unclean election off: the partition waits for its ISR member instead",
            model="classic",
            options=_opts(acks="all", max_crashes=1, stops="crash"),
            properties=("AckedRecordNotLost",),
            expect="holds",
            story=(
                "With unclean.leader.election.enable=false the controller leaves the partition offline until "
                "the crashed ISR member restarts and is elected again; no acknowledged record is lost."
            ),
        ),
        Scenario(
            id="K9",
            title="acks=1: an acknowledged record lost at a clean fail-over (a documented trade-off)",
            model="classic",
            options=_opts(acks="1"),
            properties=("AckedRecordNotLost",),
            expect="violated",
            trace_length=6,
            story=(
                "With acks=1 the producer is answered as soon as the leader appends. The controller has "
                "already moved leadership (a clean election, no failure at all) but the old leader has not "
                "heard yet: it appends and acknowledges, and the new leader, which never had the record, "
                "serves on without it. The old leader will truncate it when it becomes follower."
            ),
        ),
        Scenario(
            id="K9-fixed",
            title="acks=all: every acknowledged record survives every clean fail-over",
            model="classic",
            options=_opts(acks="all"),
            properties=("AckedRecordNotLost", "RecordAcknowledged"),
            expect="holds",
            story=(
                "An acks=all record is acknowledged only when the leader's high watermark passes it, so every "
                "ISR member has it, and clean elections choose from the ISR."
            ),
        ),
        Scenario(
            id="K10",
            title="min.insync.replicas=1, acks=all, one power failure: an acknowledged record lost",
            model="classic",
            options=_opts(acks="all", min_insync_replicas=1, max_crashes=1, stops="lossy"),
            properties=("AckedRecordNotLost",),
            expect="violated",
            trace_length=10,
            story=(
                "The ISR shrinks to the leader alone, which min.insync.replicas=1 allows, and acks=all then "
                "means 'the leader has it'. A power failure loses the leader's unflushed record; the broker "
                "restarts as the only ISR member and is elected again, without the record."
            ),
        ),
        Scenario(
            id="K10-min-isr-2",
            title="min.insync.replicas=2 alone does not save it: the last replica standing loses it",
            model="classic",
            options=_opts(acks="all", min_insync_replicas=2, max_crashes=1, stops="lossy"),
            properties=("AckedRecordNotLost",),
            expect="violated",
            trace_length=13,
            story=(
                "The record is acknowledged while both replicas are in the ISR. Then the follower lags and is "
                "dropped (an ISR of one refuses new acks=all writes, but nothing else changes); the leader "
                "loses the unflushed record in a power failure, restarts as the last ISR member and is "
                "re-elected: one lossy crash, fewer than min.insync.replicas, loses an acknowledged record."
            ),
        ),
        Scenario(
            id="K10-fixed",
            title="min.insync.replicas=2 with KIP-966's rule for unclean shutdowns: nothing acknowledged is lost",
            model="classic",
            options=_opts(acks="all", min_insync_replicas=2, max_crashes=1, stops="lossy",
                          kip966_unclean_recovery=True),
            properties=("AckedRecordNotLost", "RecordAcknowledged"),
            expect="holds",
            story=(
                "A broker back from an unclean shutdown is not eligible (KIP-966): it leaves the ISR even as "
                "its last member. With min.insync.replicas=2 every acknowledged record is on two replicas, "
                "one lossy crash removes at most one copy, and the replica that lost it cannot lead."
            ),
        ),
    ]
