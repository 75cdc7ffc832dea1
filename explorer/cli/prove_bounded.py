"""What ``isrcheck prove`` prints for ``--bounded`` and ``--list-lemmas`` (``explorer/cli/symbolic.py``
parses the options and runs the proof).

A bounded proof covers one configuration at every trace length, not other bounds, so its verdict
says so in words, the way a reader would quote it; the lemma listing shows the model's named sets
(``--lemma-set``) after its lemmas, each set with its size and members.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from isrcheck.explorer.symbolic.lemma_sets import sets_of


def bounded_verdict(result: Any, k: int) -> str:
    """The "proved" line of ``prove --bounded``: what it covers and what it does not."""
    props = ", ".join(result.properties)
    lemmas = result.lemmas
    how = "induction" if k == 1 else f"{k}-induction over distinct states"
    used = f"{len(lemmas)} lemma{'' if len(lemmas) == 1 else 's'}" + (f": {', '.join(lemmas)}" if lemmas else "")
    return (f"Proved for these bounds: {props} hold(s) in every reachable state of this configuration, at any "
            f"trace length ({how} over the bounded encoding; {used}). Other bounds (more replicas, records, "
            "epochs) are not covered: prove without --bounded, or check them.")


def list_lemmas(sym: Any, builtin: Mapping[str, Callable]) -> str:
    """Each built-in lemma with the first line of its meaning, then each named set."""
    lines = []
    for name, fn in builtin.items():
        doc = (fn.__doc__ or "").strip().splitlines()
        lines.append(name + (f"  {doc[0]}" if doc else ""))
    sets = sets_of(sym)
    if sets:
        lines.append("")
        lines.append("lemma sets (--lemma-set NAME):")
        for name, members in sets.items():
            lines.append(f"  {name} ({len(members)}): {', '.join(members)}")
    return "\n".join(lines)
