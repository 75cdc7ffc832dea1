"""The state graph (liveness, ``--graph``) built by the sharded workers, the same graph as one process.

The one-process engine records the graph as it searches (``isrcheck.explorer.liveness.graph_store``):
a state's id is its breadth-first number, each expanded state gets its label bits and its done
flag, and each step an edge (source id, target id, action-family code) in (source, successor
index) order, families coded in the order they first appear. The sharded engine has the same
numbering (``isrcheck.explorer.search.parallel.merge``), so its graph is the same graph when each
piece is put where its number says:

- the worker that expands a state labels it and sends, for every step (duplicates and visited
  targets included), the step's key ``(parent number << INDEX_BITS) | successor index``, the
  target's visited-set key and a family code of its own (``WorkerGraph``) to the target's owner;
- the owner, once the level is numbered, turns each target key into its number (it keeps a
  number per key it owns, graph runs only) and hands the resolved steps to the coordinator;
- the coordinator (``GraphLevels``) sorts a level's steps by step key, which is one process's edge
  order, maps each worker's family codes to the graph's in order of first appearance, and appends
  the level's states (their graph keys, parents and depth) in number order.

A run that stops at a violation keeps what one process had recorded when it stopped: the steps
before the stopping one (and the stopping step itself when a new state failed an invariant), the
states numbered up to there, and labels and done flags for the states expanded by then (the
stopping state labelled, not done, unless it deadlocked). The graph costs the coordinator a Python
loop per state and per edge; graph runs are small (``--graph-limit``, networkx's cycles), so that
serial part is accepted.
"""

from __future__ import annotations

from array import array
from typing import Any

# ``(worker << _WORKER_SHIFT) | local family code``: a step's family as its expander numbered it.
_WORKER_SHIFT = 32


class WorkerGraph:
    """A worker's part of the graph: labels and family codes of the steps it expands, and the
    numbers of the states it owns (for the steps that reach them)."""

    def __init__(self, graph: Any, graph_key: Any) -> None:
        self.labels = graph.labels
        self.family_of = graph.family_of
        self.graph_key = graph_key  # one process's graph key (the state, its canonical form, its fingerprint)
        self.families: list[str] = []
        self.codes: dict[str, int] = {}
        self.number_of: dict[Any, int] = {}  # owned visited-set key -> number
        self.pending: list[tuple[int, bytes, list[Any], bytes]] = []  # (source worker, steps, targets, families)
        self.new_keys: list[Any] = []  # the level's new owned states' visited-set keys, in discovery order

    def label(self, state: Any) -> int:
        bits = 0
        for i, pred in enumerate(self.labels):
            if pred(state):
                bits |= 1 << i
        return bits

    def family(self, action: Any) -> int:
        family = self.family_of(action)
        code = self.codes.get(family)
        if code is None:
            code = self.codes[family] = len(self.families)
            self.families.append(family)
        return code

    def resolve(self, numbers: array, new_items: list[Any], unpack: Any) -> dict:
        """The level is numbered (``numbers``: the new owned states', in discovery order): record
        their numbers, resolve the stashed steps' targets, and give the coordinator both."""
        self.number_of.update(zip(self.new_keys, numbers, strict=True))
        self.new_keys = []
        graph_key = self.graph_key
        keys = [graph_key(unpack(i) if unpack is not None else i) for i in new_items]
        number_of = self.number_of
        steps = []
        for w, where, targets, families in self.pending:
            dst = array("Q", map(number_of.__getitem__, targets))
            steps.append((w, where, dst.tobytes(), families))
        self.pending = []
        return {"numbers": numbers.tobytes(), "keys": keys, "steps": steps}


class GraphLevels:
    """The coordinator's side: fills a ``StateGraph`` level by level from the workers' answers."""

    def __init__(self, graph: Any, index_bits: int) -> None:
        self.graph = graph
        self.index_bits = index_bits
        self.families: dict[int, list[str]] = {}  # worker -> its family names, by its codes

    def initial(self, key: Any) -> None:
        self.graph.initial(key)

    def expanded(self, answers: list[dict], last: int | None, last_done: bool) -> None:
        """Label bits and done flags of a level's expanded states (from the expand phase);
        ``last``: the run stopped while expanding that number (done only if ``last_done``)."""
        graph = self.graph
        for w, answer in enumerate(answers):
            part = answer["graph"]
            self.families[w] = part["families"]
            numbers, bits = array("Q"), array("Q")
            numbers.frombytes(part["numbers"])
            bits.frombytes(part["bits"])
            for n, b in zip(numbers, bits, strict=True):
                if last is not None and n > last:
                    break
                graph.bits[n] = b
                graph.done[n] = 0 if (n == last and not last_done) else 1

    def level(self, offset: int, keys: array, keep: int, depth: int, answers: list[dict], edge_limit: int | None
              ) -> None:
        """Append a level's ``keep`` new states (numbered from ``offset``; ``keys`` their discovery
        keys) and its steps with a key below ``edge_limit`` (None: all)."""
        graph = self.graph
        node_keys: list[Any] = [None] * len(keys)
        where_all, dst_all, fam_all = array("Q"), array("Q"), array("Q")
        for answer in answers:
            numbers = array("Q")
            numbers.frombytes(answer["numbers"])
            for n, k in zip(numbers, answer["keys"], strict=True):
                node_keys[n - offset] = k
            for w, where, dst, families in answer["steps"]:
                where_all.frombytes(where)
                dst_all.frombytes(dst)
                codes = array("I")
                codes.frombytes(families)
                fam_all.extend((w << _WORKER_SHIFT) | c for c in codes)
        shift = self.index_bits
        for i in range(keep):
            graph.add_node(node_keys[i], keys[i] >> shift, depth)
        order = sorted(range(len(where_all)), key=where_all.__getitem__)
        mask = (1 << _WORKER_SHIFT) - 1
        for j in order:
            step = where_all[j]
            if edge_limit is not None and step >= edge_limit:
                break
            wf = fam_all[j]
            family = self.families[wf >> _WORKER_SHIFT][wf & mask]
            graph.add_edge(step >> shift, dst_all[j], family)
