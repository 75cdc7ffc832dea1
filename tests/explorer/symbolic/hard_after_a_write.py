"""A lemma file for tests/explorer/symbolic/test_bmc_lemmas.py: a lemma true initially (no replica
has written) whose consecution after a write z3 cannot answer in seconds (the factoring of
hard_lemma.py's semiprime), so that a Ctrl-C lands inside a consecution query of unbounded
``prove``, after its budgeted query, in the per-step retries."""

import sys

import z3

SEMIPRIME = 2147483647 * 2147483629  # hard_lemma.py's: no overflow at 64 bits

_built = []


def no_factors_after_a_write(ops, v):
    """True of no state once replica 0 has written, but very slow to refute there."""
    _built.append(v)
    # the test's cue: the third formula is consecution's goal; its queries follow
    print(f"AfterAWrite: formula {len(_built)} built", file=sys.stderr, flush=True)
    x, y = z3.BitVecs("hard_x hard_y", 32)
    product = z3.ZeroExt(32, x) * z3.ZeroExt(32, y)
    return z3.Implies(v.length[0] > 0, z3.Not(z3.And(product == SEMIPRIME, z3.UGT(x, 1), z3.UGT(y, 1))))


LEMMAS = {"AfterAWrite": no_factors_after_a_write}
