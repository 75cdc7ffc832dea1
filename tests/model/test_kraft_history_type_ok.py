"""The KRaft bounded encoding's ``type_ok`` admits every reachable state's history (``vars.History``).

``bmc --lemma`` and ``prove --bounded`` assume ``type_ok`` in every state, so a history value it
refused in a reachable state would hide a real violation. The explicit model keeps no history, so
BFS cannot check that part; the symbolic walks (test_kraft_symbolic.py) sample it. Here it is
shown by induction instead: the initial history is in range, and every step from a state where
``type_ok`` holds, to one whose real fields are in range, keeps the history in range, given that a
broker's epoch start is within the values (``type_ok`` does not say so; BFS checks it below).
"""

from __future__ import annotations

import pytest
import z3
from isrcheck.explorer.registry import build_model
from isrcheck.explorer.symbolic.ops import BoundedZ3Ops, ConcreteOps
from isrcheck.explorer.symbolic.relation import transition
from isrcheck.model.symbolic import make_symbolic

from tests.fixtures.states import reachable

SMALL = {"replicas": 2, "min_insync_replicas": 1, "max_records": 1, "max_fencings": 1, "max_crashes": 1,
         "stops": "lossy"}
ANCHOR = {"replicas": 3, "min_insync_replicas": 2, "max_records": 1, "init_isr_size": 2, "max_fencings": 1,
          "max_crashes": 1, "stops": "lossy"}


def history_out_of_range_after_a_step(options: dict, eps_within_values: bool = True) -> z3.CheckSatResult:
    """sat when a step leaves the history out of ``type_ok``'s ranges (see the module docstring)."""
    model = build_model("classic", options)
    sym = make_symbolic(model)
    ops = BoundedZ3Ops(width=sym.int_bits)
    s, t = sym.variables(ops, "s"), sym.variables(ops, "t")
    formula, _ = transition(sym, ops, s, t, ops.step_var("act"))
    in_range = sym.encode(model.init_states()[0]).h  # the initial history: in every range

    def real_fields_ok(v):  # type_ok with the history replaced by one in range: its real part
        w = v.copy()
        w.h = in_range
        return sym.type_ok(ops, w)

    solver = z3.Solver()
    if eps_within_values:
        solver.add(*(x.eps <= model.config.values for x in s.b))
    solver.add(formula, sym.type_ok(ops, s), real_fields_ok(t), z3.Not(sym.type_ok(ops, t)))
    return solver.check()


def sym_initial_history_ok(options: dict) -> bool:
    model = build_model("classic", options)
    sym = make_symbolic(model)
    return bool(sym.type_ok(ConcreteOps(), sym.encode(model.init_states()[0])))


@pytest.mark.parametrize("options", [{"generation": "kraft-kip966", **ANCHOR}, {"generation": "kraft-3.5", **SMALL}])
def test_every_step_keeps_the_history_in_range(options):
    assert sym_initial_history_ok(options)
    assert history_out_of_range_after_a_step(options) == z3.unsat


def test_the_premise_is_needed_and_holds_in_every_reachable_state():
    """Without "epoch start within the values" a step from an unreachable state (a leader's epoch
    start past every log) records it out of range: the check can fail. BFS: it holds everywhere."""
    options = {"generation": "kraft-kip966", **SMALL}
    assert history_out_of_range_after_a_step(options, eps_within_values=False) == z3.sat
    model = build_model("classic", options)
    sym = make_symbolic(model)
    assert all(x.eps <= model.config.values for s in reachable(model) for x in sym.encode(s).b)
