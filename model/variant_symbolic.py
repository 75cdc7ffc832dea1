"""The unbounded z3 relation of a user's classic variant, for ``isrcheck prove``.

A variant (``isrcheck.model.variants``) needs no symbolic code of its own: the relation of
``isrcheck.model.symbolic`` is derived from its steps' descriptions (its forms included) and reads
its rules (its own caught-up and truncation rules included) on symbolic logs, bounded for ``bmc``
and unbounded for ``prove``. What this module adds for proofs:

- the variant itself, not its base, shows a counterexample to induction: ``explicit_for`` builds
  the explicit model the CTI is replayed through on the variant's generation;
- a rule or form written only for bounded logs (reading a bound such as ``x.log_size`` or ``size``
  as a number, or a log as a Python sequence) is found before the solver runs: every step is built
  once on fresh unbounded variables, and a failure is refused (exit 2) naming the user's rule or
  form that raised and why.

The base generation's candidate lemmas (``isrcheck.model.symbolic.lemmas``) are the variant's,
by name: they are statements about the state, which a variant does not change.

Abstracted away: as in ``isrcheck.model.symbolic`` (a fixed number of replicas; the options read
without bounds as there).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from typing import Any

from isrcheck.explorer.errors import UserError
from isrcheck.explorer.symbolic.ops import UnboundedZ3Ops

from .generations import GENERATIONS, Generation
from .steps.described import FORMS
from .steps.rules import CAUGHT_UP
from .steps.truncation import TRUNCATE_TO
from .symbolic import KafkaSymbolic


class VariantSymbolic(KafkaSymbolic):
    """``KafkaSymbolic`` of a variant: the same relation, derived from the variant's generation."""

    def __init__(self, explicit: Any, unbounded: bool = False) -> None:
        super().__init__(explicit, unbounded)
        self.generation = explicit.variant.name

    def explicit_for(self, ops: Any, value: Callable[[Any], Any], vs: Sequence[Any]) -> Any:
        """The variant's explicit model (``VariantModel``, the class of the one given) with bounds
        that hold every state in ``vs``."""
        m = super().explicit_for(ops, value, vs)
        return type(self.explicit)(self.explicit.variant, m.config, m.options, m.consumers, m.invariants)


def _users_code(gen: Generation) -> dict[Any, str]:
    """The code objects of the rules and forms the variant takes from a user's file, each with how
    a message names it (built-in rules are those a built-in generation names)."""
    builtin_caught_up = {g.isr_rule for g in GENERATIONS.values()} | {g.hw_rule for g in GENERATIONS.values()}
    builtin_truncation = {g.truncate_to for g in GENERATIONS.values()}
    named = {}
    for what, rule, table, builtin in (("isr_rule", gen.isr_rule, CAUGHT_UP, builtin_caught_up),
                                       ("hw_rule", gen.hw_rule, CAUGHT_UP, builtin_caught_up),
                                       ("truncate_to", gen.truncate_to, TRUNCATE_TO, builtin_truncation)):
        if rule and rule not in builtin and rule in table:
            named[table[rule].__code__] = f"rule {rule!r} ({what})"
    for form in gen.forms:
        named[FORMS[form].fn.__code__] = f"step form {form!r} (of {FORMS[form].name})"
    return named


def _culprit(exc: BaseException, users: dict[Any, str], step: str) -> str:
    """What could not be read: the user's rule or form the innermost frame of ``exc`` belongs to,
    with its line and the error; the step (``step``) where no user's code raised."""
    frames = list(traceback.extract_tb(exc.__traceback__))
    codes = [f.f_code for f, _ in traceback.walk_tb(exc.__traceback__)]
    reason = f"{type(exc).__name__}: {exc}"
    for code, frame in zip(reversed(codes), reversed(frames), strict=True):
        if code in users:
            return f"{users[code]} cannot be read without bounds (at {frame.filename}:{frame.lineno}, " \
                   f"`{(frame.line or '').strip()}`: {reason})"
    return f"step {step} cannot be read without bounds ({reason})"


def unbounded_relation(explicit: Any) -> VariantSymbolic:
    """The variant's unbounded relation, each step built once here: a user's rule or form that
    cannot be read without bounds is refused (``UserError``) naming it and the reason."""
    gen = explicit.variant
    try:
        sym = VariantSymbolic(explicit, unbounded=True)
    except ValueError as exc:  # the options the unbounded encoding refuses, as for the built-in generations
        raise UserError(f"variant {gen.name!r} has no unbounded encoding for these options: {exc}") from None
    users = _users_code(gen)
    ops = UnboundedZ3Ops("variant-probe.")
    v = sym.variables(ops, "variant-probe")
    for step in sym.steps():
        try:
            step.fn(ops, v)
        except Exception as exc:  # noqa: BLE001 - a user's function may raise anything; named below
            raise UserError(f"variant {gen.name!r}: {_culprit(exc, users, step.label)}, so isrcheck "
                            "prove cannot encode it. In proofs every bound is None (x.log_size, "
                            "a rule's size) and a log's entries are a z3 array: test `x.log_size is None` as the "
                            "built-in steps do, or quantify with o.forall/o.exists/o.first_such up to a log's "
                            "length; isrcheck bmc reads it with bounds") from None
    return sym
