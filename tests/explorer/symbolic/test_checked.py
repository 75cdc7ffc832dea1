"""``induction.check``: a Ctrl-C inside a solver call is KeyboardInterrupt, a limit is unknown.

z3's handler stops a check on Ctrl-C and answers unknown, with the reason "canceled" when the check
had assumptions (``prove``'s small-values query), the reason its time and resource limits give too:
``check`` tells them apart by what the check used. 2 s.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import z3
from isrcheck.explorer.symbolic.induction import check

PRIME = 2305843009213693951  # 2**61 - 1: no factors, and z3 needs far longer than a test to show it


def hard_solver() -> tuple[z3.Solver, z3.BoolRef]:
    """A solver (in a context of its own, as a prover's) asked to factor PRIME, and an assumption."""
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    x, y = z3.BitVecs("x y", 32, ctx)
    solver.add(z3.ZeroExt(32, x) * z3.ZeroExt(32, y) == PRIME, z3.UGT(x, 1), z3.UGT(y, 1))
    small = z3.Bool("small", ctx)
    solver.add(z3.Implies(small, z3.ULT(x, 1 << 31)))
    return solver, small


def test_ctrl_c_inside_a_check_with_assumptions_is_a_keyboard_interrupt():
    solver, small = hard_solver()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()  # inside the block: caught here
        check(solver, small, timeout=60.0, budget=10**12)  # limits far off: the Ctrl-C is what stops it
    assert time.monotonic() - start < 10
    assert solver.reason_unknown() == "canceled"  # what z3 says: the reason its limits give too


@pytest.mark.parametrize("limit", ["timeout", "budget"])
def test_a_limit_reached_with_assumptions_is_unknown_not_an_interrupt(limit):
    solver, small = hard_solver()
    if limit == "timeout":
        solver.set("timeout", 300)
        answer = check(solver, small, timeout=0.3)
    else:
        solver.set("rlimit", 2_000_000)
        answer = check(solver, small, budget=2_000_000)
    assert answer == z3.unknown and solver.reason_unknown() == "canceled"
