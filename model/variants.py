"""A user's variant of a ZooKeeper-era generation: some rules changed, no C and no z3 written.

A variant is a generation (``isrcheck.model.generations.Generation``) with some of its rules
replaced: a flag (``fenced``, ``expand_waits_for_epoch_start``, ``fetch_matches_last_epoch``...), the
steps of its ``Next``, or a rule over two logs, by name or by a function the user writes once
against the expression operations and registers here (``caught_up_rule`` for ``isr_rule`` and
``hw_rule``, ``truncation_rule`` for ``truncate_to``; see ``isrcheck.model.steps.rules`` and
``isrcheck.model.steps.truncation`` for the built-in ones), or a whole step: a form of one's own
(``step_form``, for ``forms``), written against the step operations of
``isrcheck.model.steps.described`` as the built-in steps are. The explicit steps read the
variant as they read a built-in generation: the Python and the C successor functions are
generated from its steps' descriptions (its forms included) and look up the tables its rules
fill, so it runs at compiled speed where a C compiler is found; the z3 relations of ``bmc``
and of ``prove`` are derived from the same descriptions (``isrcheck.model.symbolic.derived``).

    from isrcheck.model.variants import caught_up_rule, variant, variant_model

    @caught_up_rule("lag-one")
    def lag_one(o, leader, follower, end, size):
        return o.or_(end == 0, end <= follower.length + 1)

    def make_model(*, replicas: int = 2):
        return variant_model(variant("kip320", name="kip320-lag-one", isr_rule="lag-one"), replicas=replicas)

Abstracted away: nothing beyond the base generation's; a variant changes only what it names.
Rules registered here live in each process that imported the user's file: ``check``, its forked
``--workers``, ``bmc``, and Spark executors (which load a user's model file before unpickling the
model), and ``prove``, whose unbounded relation is derived the same way
(``isrcheck.model.variant_symbolic``: the base generation's lemmas by name, a rule or form that
reads a bound as a number refused naming it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any, TypeVar

from .generations import GENERATIONS, Generation
from .replication import ReplicationModel
from .steps.described import FORMS, STEPS, Described
from .steps.next import NEXT_ORDER
from .steps.rules import CAUGHT_UP
from .steps.truncation import TRUNCATE_TO

F = TypeVar("F", bound=Callable[..., Any])
# What a variant may change: every rule of a generation (its name and TLA+ module only label it).
CHANGEABLE = tuple(f.name for f in fields(Generation) if f.name not in ("name", "module"))


def register_once(table: dict[str, Any], what: str, name: str, fn: Callable[..., Any], value: Any = None) -> None:
    """Put ``value`` (default ``fn``) into ``table`` as ``name``, refusing a name another function
    holds. The same function loaded again (the registry loads a user's file once per model built)
    replaces itself. Shared with the KRaft family's variants (``isrcheck.model.kraft.variants``)."""
    old = table.get(name)
    old_fn = getattr(old, "fn", old)
    if old_fn is not None and (old_fn.__module__, old_fn.__qualname__) != (fn.__module__, fn.__qualname__):
        raise ValueError(f"{what} {name!r} is already defined: choose another name (known: {', '.join(table)})")
    table[name] = fn if value is None else value


def _register(table: dict[str, Any], what: str, name: str) -> Callable[[F], F]:
    def register(fn: F) -> F:
        register_once(table, what, name, fn)
        return fn

    return register


def caught_up_rule(name: str) -> Callable[[F], F]:
    """Register ``fn(o, leader, follower, end, size)`` (logs as ``isrcheck.model.steps.rules.Log``) as
    the caught-up rule ``name``, for a variant's ``isr_rule`` or ``hw_rule``."""
    return _register(CAUGHT_UP, "caught-up rule", name)


def truncation_rule(name: str) -> Callable[[F], F]:
    """Register ``fn(o, leader, follower, hw, size, hints)`` as the truncation rule ``name``, for a
    variant's ``truncate_to`` (return ``hw`` where the rule falls back to the follower's HW)."""
    return _register(TRUNCATE_TO, "truncation rule", name)


def step_form(name: str, *, of: str) -> Callable[[F], F]:
    """Register ``fn(x)`` as the form ``name`` of step ``of`` (a TLA+ action of ``NEXT_ORDER``), for a
    variant's ``forms``. It names the replicas of one instance as the built-in step does."""
    if of not in STEPS:
        raise ValueError(f"step form {name!r}: {of!r} is no step: choose one of {', '.join(STEPS)}")
    builtin = STEPS[of]

    def register(fn: F) -> F:
        register_once(FORMS, "step form", name, fn, Described(of, builtin.who, builtin.acts, fn))
        return fn

    return register


def _check_forms(name: str, gen: Generation) -> None:
    steps = []
    for form in gen.forms:
        if form not in FORMS:
            raise ValueError(f"variant {name!r}: step form {form!r} is unknown: choose one of "
                             f"{', '.join(FORMS) or '(none registered)'} or register yours with step_form")
        step = FORMS[form].name
        if step not in gen.next:
            raise ValueError(f"variant {name!r}: step form {form!r} replaces {step}, which is not in its Next "
                             f"({', '.join(gen.next)})")
        if step in steps:
            raise ValueError(f"variant {name!r}: two forms replace {step}: keep one")
        steps.append(step)


def variant(base: str, *, name: str, **changes: Any) -> Generation:
    """Generation ``base`` (``truncate-to-hw`` ... ``kip320``) with ``changes`` to its rules. Unknown
    bases, rules and rule names are refused (``ValueError``, exit 2 on the command line) with the
    known ones."""
    if base not in GENERATIONS:
        raise ValueError(f"variant {name!r}: base generation {base!r} is unknown: "
                         f"choose one of {', '.join(GENERATIONS)}")
    unknown = sorted(set(changes) - set(CHANGEABLE))
    if unknown:
        raise ValueError(f"variant {name!r}: {', '.join(unknown)} is no rule of a generation: "
                         f"choose among {', '.join(CHANGEABLE)}")
    for rule in ("isr_rule", "hw_rule"):
        if rule in changes and changes[rule] not in CAUGHT_UP:
            raise ValueError(f"variant {name!r}: {rule}={changes[rule]!r} is unknown: choose one of "
                             f"{', '.join(CAUGHT_UP)} or register yours with caught_up_rule")
    if changes.get("truncate_to", "") not in ("", *TRUNCATE_TO):
        raise ValueError(f"variant {name!r}: truncate_to={changes['truncate_to']!r} is unknown: choose one of "
                         f"{', '.join(TRUNCATE_TO)} or register yours with truncation_rule")
    if "next" in changes:
        steps = tuple(changes["next"])
        if tuple(s for s in NEXT_ORDER if s in steps) != steps:
            raise ValueError(f"variant {name!r}: next={steps} must name steps of {', '.join(NEXT_ORDER)}, "
                             "each once, in that order")
        changes["next"] = steps
    if "forms" in changes:
        changes["forms"] = (changes["forms"],) if isinstance(changes["forms"], str) else tuple(changes["forms"])
    gen = replace(GENERATIONS[base], name=name, **changes)
    _check_forms(name, gen)
    if "BecomeFollowerAndTruncateTo" in gen.next and not gen.truncate_to:
        raise ValueError(f"variant {name!r}: BecomeFollowerAndTruncateTo needs a truncate_to rule: "
                         f"choose one of {', '.join(TRUNCATE_TO)}")
    return gen


class VariantModel(ReplicationModel):
    """The classic model on a variant generation; ``symbolic`` gives ``bmc`` and ``prove`` their derived relations."""

    def __init__(self, generation: Generation, config: Any, options: Any = None, consumers: Any = None,
                 invariants: str = "all") -> None:
        self.variant = generation
        super().__init__(config, options, consumers, invariants, generation=generation)

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}; variant {self.variant.name})"

    def __reduce__(self):
        return (VariantModel, (self.variant, self.config, self.options, self.consumers, self.invariants))

    def symbolic(self, unbounded: bool = False) -> Any:
        """The derived z3 relation (``isrcheck.explorer.symbolic.contract.SymbolicModel``): bounded for
        ``bmc``, unbounded for ``prove`` (``isrcheck.model.variant_symbolic``)."""
        from .symbolic import make_symbolic
        from .variant_symbolic import unbounded_relation

        if unbounded:  # proofs: the base's lemmas, CTIs replayed on the variant, users' code probed
            return unbounded_relation(self)
        return make_symbolic(self, unbounded=False)


def variant_model(generation: Generation, **options: Any) -> VariantModel:
    """The classic model (``isrcheck.model.factory.make_model``'s options, validated as there) on the
    variant ``generation``, whose base generation is the one whose name the variant replaced."""
    from .factory import make_model

    m = make_model(generation=_base_of(generation), **options)
    return VariantModel(generation, m.config, m.options, m.consumers, m.invariants)


def _base_of(generation: Generation) -> str:
    """The built-in generation the variant came from (its TLA+ module is the base's)."""
    return next(g.name for g in GENERATIONS.values() if g.module == generation.module)
