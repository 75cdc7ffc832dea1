"""A digest of a model's whole transition relation, for proving that a faster successor function
(or property) is the same function: every reachable state, in breadth-first order, with its
successors as ``repr(action)`` and the next state, in the order ``successors`` returns them, and
the verdict of every state property on it.

``python tests/model/successor_digest.py`` prints the digests of ``CASES`` as JSON (how
``tests/fixtures/successor_digests.json`` was produced, see ``tests/model/test_successor_digest.py``).
"""

from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any

from isrcheck.explorer.contract import Kind
from isrcheck.model import GENERATIONS

# (name, make_model keyword arguments): every classic generation at 2/2/2/2, then options that
# change how the shared steps are built (stopped brokers, flushed offsets, acks on writes and HW
# advances, lazy truncation and K13, racks and zone failures, unclean election, the K6 bug).
CASES: list[tuple[str, dict[str, Any]]] = [
    *((g, {"generation": g}) for g in GENERATIONS),
    ("kip320 acks=all min-isr 2, stops all, max records 1",
     {"acks": "all", "min_insync_replicas": 2, "max_crashes": 1, "max_records": 1}),
    ("kip320 acks=1, lossy stops, unclean any, kip966, max records 1",
     {"acks": "1", "max_records": 1, "max_crashes": 1, "stops": "lossy", "unclean_election": "any",
      "kip966_unclean_recovery": True}),
    ("kip101 crash stops, unclean highest-last-epoch",
     {"generation": "kip101", "max_crashes": 1, "stops": "crash", "unclean_election": "highest-last-epoch"}),
    ("kip320 on-fetch-hw-first, reads any", {"truncation": "on-fetch-hw-first", "consumer_reads": "any"}),
    ("kip320 3/2/2/1", {"replicas": 3, "max_leader_epoch": 1}),
    ("kip320 on-fetch, 2 zones naive (both brokers in one), zone failure, max records 1",
     {"truncation": "on-fetch", "max_records": 1, "azs": 2, "placement": "naive",
      "max_az_failures": 1}),
    ("kip279 2 zones rack-aware, zone failure, reads leader, max records 1",
     {"generation": "kip279", "max_records": 1, "azs": 2, "max_az_failures": 1, "consumer_reads": "leader"}),
    ("kip320-first-try expand before epoch start, acks=0",
     {"generation": "kip320-first-try", "expand_before_epoch_start": True, "acks": "0"}),
]


def action_text(action: Any) -> str:
    """The action's text as it was when the golden file was made. Issue 29 shortened one repr on
    purpose (a crash that keeps its log no longer shows ``log_end=-1``); the old text is rebuilt
    here, so the digests still compare the same successor function and nothing else."""
    text = repr(action)
    if type(action).__name__ == "BrokerCrash" and not action.lost_unflushed:
        return text[:-1] + f", log_end={action.log_end})"
    return text


def digest(model: Any) -> dict[str, Any]:
    """BFS over every reachable state; the BLAKE2b of each state's successor list and property
    verdicts, in order."""
    checks = [p.predicate for p in model.properties() if p.kind in (Kind.ALWAYS, Kind.SOMETIMES)]
    h = hashlib.blake2b(digest_size=16)
    # Actions are created once per model (``isrcheck.model.actions.ActionTable``): each is numbered by its
    # repr on its first appearance, found again by identity (``shown`` keeps every action alive, so
    # an id is never reused), and the repr hashed then. States are tuples of ints: marshal encodes
    # them exactly and cheaply, one record a state: (state, verdicts, [(action number, next state)]).
    numbers: dict[int, int] = {}
    by_repr: dict[str, int] = {}
    shown: list[Any] = []
    frontier = list(model.init_states())
    seen = set(frontier)
    transitions = 0
    while frontier:
        nxt = []
        for s in frontier:
            steps = []
            for action, t in model.successors(s):
                number = numbers.get(id(action))
                if number is None:
                    text = action_text(action)
                    if text not in by_repr:
                        by_repr[text] = len(by_repr)
                        h.update(text.encode())
                    number = numbers[id(action)] = by_repr[text]
                    shown.append(action)
                steps.append((number, t))
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
            transitions += len(steps)
            h.update(marshal.dumps((s, tuple(bool(c(s)) for c in checks), steps)))
        frontier = nxt
    return {"states": len(seen), "transitions": transitions, "properties": len(checks), "digest": h.hexdigest()}


def main() -> None:
    from isrcheck.model.factory import make_model

    print(json.dumps({name: digest(make_model(**kw)) for name, kw in CASES}, indent=1))


if __name__ == "__main__":
    main()
