"""Compare a TLC state dump of the KRaft specs with isrcheck's reachable states, state set against
state set, on a projection both have without the message network (docs/kraft.md, "Reassignment").

The projection: per broker its partition status, partition metadata (replicas, ISR, maximal ISR,
leader, leader epoch, partition epoch), log (value, epoch) and high watermark, leader epoch start
offset, what it knows of each follower (offset, broker epoch), how much of the metadata log it has
applied, the controller's registration of it (unfenced, broker epoch) and the ISR its pending
AlterPartition proposes; the controller's metadata log (every record's leader, epochs, ISR, ELR,
last known ELR, replicas, adding, removing); the ghost variables; the reassignment counter. Offsets
are made 0-based. Left out: messages in flight (fetches, registrations), which the two checkers
keep in different forms.

Usage (TLC is a development tool, not a dependency: ../shared/tools/tlc in this project's setup):
  tlc -workers 1 -deadlock -dump /tmp/states.dump -config run.cfg kafka_replication_kip_966.tla
  python bench/kraft_tlc_projection.py kraft-kip966 /tmp/states.dump --replicas 2 --spare-brokers 1 \\
      --max-reassignments 1 --min-insync-replicas 2 --max-records 1 --max-fencings 0
Prints both state counts, both projected counts, and how many projected states only one has. The
dump is read as data: a small parser of TLC's value syntax, nothing evaluated.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from typing import Any

from isrcheck.explorer.registry import build_model

_TOKEN = re.compile(r'\s*(<<|>>|\|->|:>|@@|[\[\]{}(),]|"[^"]*"|-?\d+|[A-Za-z_][A-Za-z_0-9]*)')


class Record(dict):
    """A TLA+ record, hashable so that sets of records (messages) can be read."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=lambda kv: kv[0])))


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[str] = []
        pos, text = 0, text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                raise ValueError(f"unreadable TLC value at {text[pos:pos + 40]!r}")
            self.tokens.append(m.group(1))
            pos = m.end()
        self.i = 0

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> str:
        token = self.tokens[self.i]
        self.i += 1
        if expected is not None and token != expected:
            raise ValueError(f"expected {expected!r}, read {token!r}")
        return token

    def value(self) -> Any:
        v = self._atom()
        if self._peek() == ":>":  # a function d1 :> v1 @@ d2 :> v2, read as the tuple of its values
            self._take()
            f = {v: self._atom()}
            while self._peek() == "@@":
                self._take()
                key = self._atom()
                self._take(":>")
                f[key] = self._atom()
            return tuple(f[k] for k in sorted(f))
        return v

    def _items(self, end: str) -> list[Any]:
        out = []
        while self._peek() != end:
            out.append(self.value())
            if self._peek() == ",":
                self._take()
        self._take(end)
        return out

    def _atom(self) -> Any:
        token = self._take()
        if token == "<<":
            return tuple(self._items(">>"))
        if token == "{":
            return frozenset(self._items("}"))
        if token == "[":
            record = Record()
            while self._peek() != "]":
                key = self._take()
                self._take("|->")
                record[key] = self.value()
                if self._peek() == ",":
                    self._take()
            self._take("]")
            return record
        if token == "(":
            v = self.value()
            self._take(")")
            return v
        if re.fullmatch(r"-?\d+", token):
            return int(token)
        if token in ("TRUE", "FALSE"):
            return token == "TRUE"
        return token  # a model value (Leader, Nil, A...)


def tlc_states(path: str) -> Iterator[dict[str, Any]]:
    """The states of a ``tlc -dump`` file, each as {variable: value}."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for block in re.split(r"\nState \d+:\n", "\n" + text)[1:]:
        state = {}
        for part in re.split(r"\n?/\\ ", "\n" + block.strip())[1:]:
            name, _, value = part.partition(" = ")
            state[name.strip()] = _Parser(value.replace("\n", " ")).value()
        yield state


def _ids(members: Any) -> tuple[int, ...]:
    return tuple(sorted(members))


def project_tlc(st: dict[str, Any], n: int) -> tuple:
    def record(r: dict[str, Any]) -> tuple:
        return (None if r["leader"] == "NoLeader" else r["leader"], r["leader_epoch"], r["partition_epoch"],
                _ids(r["isr"]), _ids(r.get("elr", ())), _ids(r.get("last_known_elr", ())), _ids(r["replicas"]),
                _ids(r.get("adding", ())), _ids(r.get("removing", ())))

    brokers = []
    for b in range(n):
        md, pd, leso = st["partition_metadata"][b], st["partition_data"][b], st["partition_leso"][b]
        pending = st["partition_pending_ap"][b]
        brokers.append((
            None if st["partition_status"][b] == "Nil" else st["partition_status"][b],
            _ids(md["replicas"]), _ids(md["isr"]), _ids(md["maximal_isr"]),
            None if md["leader"] == "NoLeader" else md["leader"], md["leader_epoch"], md["partition_epoch"],
            tuple((e["value"], e["epoch"]) for e in pd["log"]), pd["hwm"] - 1, -1 if leso == "Nil" else leso - 1,
            tuple((None if r["leo"] == "Nil" else r["leo"] - 1, r["broker_epoch"])
                  for p, r in enumerate(st["partition_replica_state"][b]) if p != b),
            len(st["broker_metadata_log"][b]),
            st["con_broker_reg"][b]["status"] == "UNFENCED", st["con_broker_reg"][b]["broker_epoch"],
            _ids(pending["request"]["isr"]) if pending["epoch"] > md["partition_epoch"] else (),
        ))
    return (tuple(brokers), tuple(record(r) for r in st["con_metadata_log"]), _ids(st["inv_sent"]),
            _ids(st["inv_pos_acked"]), _ids(st["inv_neg_acked"]), st["inv_true_hwm"] - 1,
            tuple((e["value"], e["epoch"]) for e in st["inv_consumed"]), st["aux_ctrs"].get("reassignment_ctr", 0))


def project_isrcheck(model: Any, state: tuple) -> tuple:
    v = model.state_view(state)
    n = model.layout.n
    brokers = []
    for b in range(1, n + 1):
        known = v[f"partitionReplicaState.{b}"]
        replicas = v[f"partitionMetadata.replicas.{b}"]
        brokers.append((
            v[f"partitionStatus.{b}"],
            tuple(replicas) if isinstance(replicas, list) else tuple(range(1, n + 1)) if replicas else (),
            tuple(v[f"partitionMetadata.isr.{b}"]), tuple(v[f"partitionMetadata.maximalIsr.{b}"]),
            v[f"partitionMetadata.leader.{b}"], v[f"partitionMetadata.leaderEpoch.{b}"],
            v[f"partitionMetadata.partitionEpoch.{b}"],
            tuple((r["value"], r["epoch"]) for r in v[f"partitionData.log.{b}"]), v[f"partitionData.hwm.{b}"],
            v[f"partitionLeso.{b}"],
            tuple((known[str(p)]["leo"], known[str(p)]["brokerEpoch"]) for p in range(1, n + 1) if p != b),
            v[f"brokerMetadataLog.{b}"], v[f"controller.unfenced.{b}"], v[f"controller.brokerEpoch.{b}"],
            tuple(v[f"pendingAlterPartition.{b}"]["isr"]),
        ))
    records = tuple((r["leader"], r["leaderEpoch"], r["partitionEpoch"], tuple(r["isr"]), tuple(r.get("elr", [])),
                     tuple(r.get("lastKnownElr", [])), tuple(r.get("replicas", [])), tuple(r.get("adding", [])),
                     tuple(r.get("removing", []))) for r in v["controller.metadataLog"])
    return (tuple(brokers), records, tuple(v["invSent"]), tuple(v["invPosAcked"]), tuple(v["invNegAcked"]),
            v["invTrueHwm"], tuple((r["value"], r["epoch"]) for r in v["invConsumed"]), v.get("reassignments", 0))


def reachable(model: Any) -> set[tuple]:
    seen = set(model.init_states())
    frontier = list(seen)
    while frontier:
        nxt = []
        for s in frontier:
            for _, t in model.successors(s):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    return seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("generation", choices=["kraft-3.5", "kraft-kip966"])
    ap.add_argument("dump")
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--spare-brokers", type=int, default=1)
    ap.add_argument("--max-reassignments", type=int, default=1)
    ap.add_argument("--min-insync-replicas", type=int, default=2)
    ap.add_argument("--max-records", type=int, default=1)
    ap.add_argument("--max-fencings", type=int, default=0)
    args = ap.parse_args()
    options = {k: v for k, v in vars(args).items() if k not in ("generation", "dump")}
    model = build_model("classic", {"generation": args.generation, **options, "split_fetch": True})
    states = reachable(model)
    ours = {project_isrcheck(model, s) for s in states}
    dumped = list(tlc_states(args.dump))
    theirs = {project_tlc(st, model.layout.n) for st in dumped}
    print(f"isrcheck --split-fetch: {len(states):,} states, {len(ours):,} projected; "
          f"TLC: {len(dumped):,} states, {len(theirs):,} projected")
    print(f"projected states only isrcheck has: {len(ours - theirs):,}; only TLC has: {len(theirs - ours):,}")


if __name__ == "__main__":
    main()
