"""Symbolic checking with z3: bounded model checking, induction and lemma discovery.

Generic: reaches models only through the symbolic contract (``isrcheck.explorer.symbolic.contract``).
"""
