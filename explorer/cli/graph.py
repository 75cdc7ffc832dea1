"""The command-line side of liveness and the state graph: ``--graph FILE``, ``--graph-stats``,
``--graph-limit`` and ``--fairness`` for ``isrcheck check``, and what they print after the verdict.

Kept out of ``isrcheck.explorer.cli.main`` so that the check command gains only three lines: the arguments, the
options passed to ``check`` and the report.

- ``--graph FILE``: the explored state graph as GraphML (``.graphml``) or Graphviz DOT (``.dot``, ``.gv``),
  one node per distinct state (id, depth, whether initial and expanded, the state's repr when the
  store keeps states), one edge per (source, target, action family). Refused above
  ``--graph-limit`` states (default 100,000): GraphML costs ~300 bytes a node and viewers give up
  long before that.
- ``--graph-stats``: states per depth, branching factor, strongly connected components (count,
  largest), and the diameter of the largest component when it has at most 2,000 states (an
  all-pairs breadth-first search; beyond that the cost grows with the square of its size).
- ``--fairness``: ``model`` (default: what the model's ``fairness()`` declares), ``none``, or
  ``FAMILY=weak|strong,...`` to assume instead.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from isrcheck.explorer.cli.written import OutputFiles
from isrcheck.explorer.errors import UserError

DEFAULT_LIMIT = 100_000
DIAMETER_LIMIT = 2_000
FORMATS = {".graphml": "graphml", ".dot": "dot", ".gv": "dot"}


def add_graph_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("liveness and the state graph")
    g.add_argument("--graph", metavar="FILE", help="write the explored state graph (.graphml or .dot)")
    g.add_argument("--graph-stats", action="store_true",
                   help="print SCCs, branching factor, states per depth and the diameter where affordable")
    g.add_argument("--graph-limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                   help=f"refuse to write a graph of more than N states (default {DEFAULT_LIMIT:,})")
    g.add_argument("--fairness", metavar="SPEC",
                   help="fairness to assume for liveness: model (default), none, or FAMILY=weak|strong,...")


def graph_check_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword options for ``isrcheck.explorer.check`` from the parsed arguments (validated here, before the run)."""
    if args.graph:
        suffix = Path(args.graph).suffix.lower()
        if suffix not in FORMATS:
            raise UserError(f"--graph {args.graph}: the format comes from the extension; use .graphml or .dot")
    if args.graph_limit is not None and args.graph_limit < 1:
        raise UserError(f"--graph-limit must be a positive number of states, not {args.graph_limit}")
    options: dict[str, Any] = {}
    if args.graph or args.graph_stats:
        options["graph"] = True
    fairness = parse_fairness(args.fairness)
    if fairness is not None:
        options["fairness"] = fairness
    return options


def parse_fairness(text: str | None) -> dict[str, str] | None:
    if text is None or text == "model":
        return None
    if text == "none":
        return {}
    table = {}
    for item in text.split(","):
        family, sep, kind = item.strip().partition("=")
        if not sep or not family or kind not in ("weak", "strong"):
            raise UserError(f"--fairness {text!r}: write model, none, or FAMILY=weak|strong separated by commas "
                            "(e.g. enter=strong,take=weak)")
        table[family] = kind
    return table


def report_graph(model: Any, result: Any, args: argparse.Namespace, outputs: OutputFiles) -> None:
    """After the summary: the fairness the liveness verdict assumed, graph statistics, the graph
    file (written through ``outputs``, like every output file, so a full disk is reported with the
    others and the verdict's status stands)."""
    if "fairness" in result.stats:
        checked = result.stats.get("liveness_checked")
        if checked:
            print(f"Liveness ({checked}) checked under {result.stats['fairness']}.")
        else:
            print(f"Liveness not checked: the run stopped first; it would assume {result.stats['fairness']}.")
    graph = result.graph
    if graph is None:
        return
    if args.graph_stats:
        for line in graph_stats_lines(graph):
            print(line)
    if not args.graph:
        return
    if len(graph) > args.graph_limit:
        print(f"isrcheck check: the graph has {len(graph):,} states, more than --graph-limit {args.graph_limit:,}; "
              "not written. Raise the limit or shrink the model's bounds.", file=sys.stderr)
        return
    outputs.write(args.graph, render_graph(graph, args.graph), "--graph",
                  label=f"{args.graph} ({len(graph):,} states, {graph.edge_count:,} edges)")


def to_networkx(graph: Any, *, labels: bool = False) -> Any:
    """The store as a networkx MultiDiGraph (one edge per source, target and family)."""
    import networkx as nx

    g = nx.MultiDiGraph()
    inits = set(graph.inits)
    for i in range(len(graph)):
        attrs = {"depth": graph.depth[i] + 1, "initial": i in inits, "expanded": bool(graph.done[i])}
        if labels:
            attrs["state"] = repr(graph.keys[i])[:500]
        g.add_node(i, **attrs)
    seen = set()
    for u, v, f in zip(graph.src, graph.dst, graph.fam, strict=True):
        if (u, v, f) not in seen:
            seen.add((u, v, f))
            g.add_edge(u, v, key=graph.families[f], family=graph.families[f])
    return g


def graph_stats_lines(graph: Any) -> list[str]:
    import networkx as nx

    simple = nx.DiGraph()
    simple.add_nodes_from(range(len(graph)))
    simple.add_edges_from(zip(graph.src, graph.dst, strict=True))
    sccs = list(nx.strongly_connected_components(simple))
    largest = max(sccs, key=len) if sccs else set()
    expanded = sum(graph.done)
    per_depth = Counter(d + 1 for d in graph.depth)
    lines = [
        f"Graph: {len(graph):,} states, {graph.edge_count:,} edges ({simple.number_of_edges():,} distinct), "
        f"{expanded:,} expanded.",
        f"Branching factor: {graph.edge_count / expanded if expanded else 0:.2f} successors per expanded state.",
        f"Strongly connected components: {len(sccs):,}; the largest has {len(largest):,} states; "
        f"{sum(1 for c in sccs if len(c) > 1):,} have a cycle of two or more states.",
        "States per depth: " + ", ".join(f"{d}:{n}" for d, n in sorted(per_depth.items())),
    ]
    if len(largest) <= 1:
        lines.append("Diameter: no cycle of two or more states.")
    elif len(largest) <= DIAMETER_LIMIT:
        lines.append(f"Diameter of the largest component: {nx.diameter(simple.subgraph(largest))}.")
    else:
        lines.append(f"Diameter: not computed (largest component above {DIAMETER_LIMIT:,} states).")
    return lines


def render_graph(graph: Any, path: str) -> str | bytes:
    """GraphML or DOT by the extension of ``path``; the caller writes it (``OutputFiles``)."""
    import io

    import networkx as nx

    kind = FORMATS[Path(path).suffix.lower()]
    labels = True  # the visited-set key: the state itself (exact store) or its fingerprint
    if kind == "graphml":
        buf = io.BytesIO()
        nx.write_graphml(to_networkx(graph, labels=labels), buf)
        return buf.getvalue()
    return _dot(graph, labels)


def _dot(graph: Any, labels: bool) -> str:
    def quote(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

    inits = set(graph.inits)
    lines = ["digraph states {", "  node [shape=box, fontsize=9];"]
    for i in range(len(graph)):
        label = f"{i} (depth {graph.depth[i] + 1})"
        if labels:
            label += "\n" + repr(graph.keys[i])[:200]
        style = ", style=bold" if i in inits else ""
        lines.append(f"  {i} [label={quote(label)}{style}];")
    seen = set()
    for u, v, f in zip(graph.src, graph.dst, graph.fam, strict=True):
        if (u, v, f) not in seen:
            seen.add((u, v, f))
            lines.append(f"  {u} -> {v} [label={quote(graph.families[f])}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
