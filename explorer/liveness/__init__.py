"""Liveness: ``eventually`` and ``leads-to`` under weak and strong fairness, with lasso counterexamples.

- ``graph_store``: the explored state graph (integer ids, edges labelled by action family), kept
  only when liveness or ``--graph`` asks for it;
- ``fair_cycles``: the fair-cycle search with networkx (SCCs, strong-fairness refinement,
  shortest-prefix lassos);
- ``checker``: a local run with the graph, each property's lasso as a trace, and a recorded lasso
  evaluated for replay.

Sits above ``isrcheck.explorer.search`` (it runs the local engine) and below the traces, which
replay lassos with it.
"""
