"""A lemma file for tests/explorer/symbolic/test_bmc_lemmas.py: one lemma z3 cannot answer in
seconds (its initiation query is the factoring of a 62-bit semiprime, bit-blasted), so that a
time limit or a Ctrl-C lands inside that solver call."""

import sys

import z3

# Two 31-bit primes' product: no overflow at 64 bits, so the only solutions are the factors.
SEMIPRIME = 2147483647 * 2147483629


def no_factors(ops, v):
    """True of no state but very slow to refute: z3 must factor SEMIPRIME to find it false."""
    print("NoFactors: formula built", file=sys.stderr, flush=True)  # the test's cue: the query follows
    x, y = z3.BitVecs("hard_x hard_y", 32)
    product = z3.ZeroExt(32, x) * z3.ZeroExt(32, y)
    return z3.Not(z3.And(product == SEMIPRIME, z3.UGT(x, 1), z3.UGT(y, 1)))


LEMMAS = {"NoFactors": no_factors}
