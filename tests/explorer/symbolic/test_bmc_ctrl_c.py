"""Ctrl-C inside a BMC length is "interrupted" (exit 130), not the solver's limit (exit 5).

A symbolic model without ``int_bits`` (optional in the contract, docs/symbolic.md) is unrolled
over mathematical Ints in one incremental solver, each length asked under an assumption literal.
With an assumption z3 answers a Ctrl-C with the reason "canceled", not "interrupted from keyboard"
(tests/explorer/symbolic/test_checked.py), so BMC reported the user's interrupt as "unknown". 1 s.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import z3
from isrcheck.explorer.symbolic.bmc import bmc
from isrcheck.model.symbolic import make_symbolic

from tests.explorer.symbolic.test_checked import PRIME
from tests.fixtures.classic import classic


def no_factors(ops: Any, v: Any) -> Any:
    """True in every state (PRIME is prime), and far too slow for z3 to show in a test."""
    x, y = z3.BitVecs("bmc_x bmc_y", 32)
    return z3.Not(z3.And(z3.ZeroExt(32, x) * z3.ZeroExt(32, y) == PRIME, z3.UGT(x, 1), z3.UGT(y, 1)))


class WithoutIntBits:
    """The classic model's symbolic encoding without ``int_bits``, its LeaderInIsr made hard to
    refute with the conjunct above (the explicit model checks an invariant of that name)."""

    int_bits = None

    def __init__(self, sym: Any) -> None:
        self._sym = sym

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sym, name)

    def properties(self) -> dict[str, Any]:
        leader_in_isr = self._sym.properties()["LeaderInIsr"]
        return {"LeaderInIsr": lambda ops, v: z3.And(leader_in_isr(ops, v), no_factors(ops, v))}


def test_ctrl_c_inside_a_length_is_interrupted_not_unknown():
    sym = WithoutIntBits(make_symbolic(classic(generation="kip320", replicas=2)))
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        result = bmc(sym, depth=3, properties=["LeaderInIsr"], timeout=60.0)
    finally:
        timer.cancel()
    assert result.verdict == "interrupted", (result.verdict, result.reason)
