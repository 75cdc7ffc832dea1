"""A user's variant of a KRaft generation: some rules or one step changed, no C and no z3 written.

The KRaft family's counterpart of ``isrcheck.model.variants`` (the ZooKeeper-era one). A variant is
a ``KraftGeneration`` (``isrcheck.model.kraft.generations``) with some of its rules replaced: a flag
(``isr_floor_one``, ``elr``, ``hw_needs_min_isr``, ``broker_epoch_on_disk``) or a whole step, a
form of one's own (``step_form``, for ``forms``) written against the step operations every
built-in KRaft step is written against (``isrcheck.model.kraft.described``: ``x.require``,
``x.get``/``x.put``, ``x.cases``, ``x.emit``, ``described_controller.elections``...). The explicit successor function
(straight-line Python, ``isrcheck.model.kraft.staging``) and the z3 relation of ``bmc`` and
``prove`` (``isrcheck.model.kraft.symbolic.derived``) are both read from the variant's steps
(``described.steps_of``), so the variant runs everywhere the built-in generations run. The KRaft
family has no C successor function: it runs the generated Python, built-in or variant.

    from isrcheck.model.kraft.variants import step_form, variant, variant_model

    @step_form("my-shutdown", of="UncleanShutdown")
    def my_shutdown(x, b):
        ...  # the built-in description (described.lossy_shutdown) with one rule changed

    def make_model(*, replicas: int = 2):
        generation = variant("kraft-kip966", name="kip966-mine", forms=("my-shutdown",))
        return variant_model(generation, replicas=replicas, max_crashes=1, stops="lossy")

Abstracted away: nothing beyond the base generation's; a variant changes only what it names.
Forms registered here live in each process that imported the user's file: ``check``, its forked
``--workers``, ``bmc``, ``prove``, and Spark executors (which load a user's model file before
unpickling the model; the variant generation travels inside the pickled configuration).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from ..variants import register_once
from .config import KraftConfig
from .described import FORMS, STEPS, Described
from .generations import KRAFT_GENERATIONS, KraftGeneration
from .model import KraftModel

F = TypeVar("F", bound=Callable[..., Any])
# What a variant may change: the rules (its name, TLA+ module and the shutdowns' names only label it).
CHANGEABLE = tuple(f.name for f in fields(KraftGeneration)
                   if f.name not in ("name", "module", "lossy_shutdown", "clean_shutdown"))
# The shutdowns' names in each spec (KIP-966: DataLossShutdown, NoDataLossShutdown), as the steps are keyed.
SPEC_NAMES = {**{g.lossy_shutdown: "UncleanShutdown" for g in KRAFT_GENERATIONS.values()},
              **{g.clean_shutdown: "CleanShutdown" for g in KRAFT_GENERATIONS.values()}}


def step_form(name: str, *, of: str, cases: dict[str, Callable[[Any, int], Iterable[Any]]] | None = None,
              enabled: Callable[[int, int], bool] | None = None) -> Callable[[F], F]:
    """Register ``fn(x, b)`` as the form ``name`` of step ``of`` (a TLA+ action of
    ``described.STEPS``, or a shutdown by its KIP-966 name), for a variant's ``forms``. It keeps
    the built-in step's place in the spec's order, its action's label and its build-time cases
    (``cases`` adds or replaces some), and is called for the brokers whose (status, role) the
    built-in step's first guard allows (``enabled`` widens or narrows that)."""
    of = SPEC_NAMES.get(of, of)
    if of not in STEPS:
        raise ValueError(f"step form {name!r}: {of!r} is no KRaft step: choose one of {', '.join(STEPS)} "
                         f"(or the shutdowns' KIP-966 names: {', '.join(n for n in SPEC_NAMES if n not in STEPS)})")
    builtin = STEPS[of]

    def register(fn: F) -> F:
        form = Described(of, builtin.method, fn, {**builtin.cases, **(cases or {})}, builtin.label,
                         enabled or builtin.enabled)
        register_once(FORMS, "KRaft step form", name, fn, form)
        return fn

    return register


def variant(base: str, *, name: str, **changes: Any) -> KraftGeneration:
    """Generation ``base`` (``kraft-3.5`` or ``kraft-kip966``) with ``changes`` to its rules. Unknown
    bases, rules and forms are refused (``ValueError``, exit 2 on the command line) with the known
    ones."""
    if base not in KRAFT_GENERATIONS:
        raise ValueError(f"variant {name!r}: base generation {base!r} is unknown: "
                         f"choose one of {', '.join(KRAFT_GENERATIONS)}")
    if name in KRAFT_GENERATIONS:
        raise ValueError(f"variant {name!r}: the name is a built-in generation's: choose another")
    unknown = sorted(set(changes) - set(CHANGEABLE))
    if unknown:
        raise ValueError(f"variant {name!r}: {', '.join(unknown)} is no rule of a KRaft generation: "
                         f"choose among {', '.join(CHANGEABLE)}")
    if "forms" in changes:
        forms = changes["forms"]
        changes["forms"] = (forms,) if isinstance(forms, str) else tuple(forms)
    gen = replace(KRAFT_GENERATIONS[base], name=name, **changes)
    replaced: list[str] = []
    for form in gen.forms:
        if form not in FORMS:
            raise ValueError(f"variant {name!r}: step form {form!r} is unknown: choose one of "
                             f"{', '.join(FORMS) or '(none registered)'} or register yours with step_form")
        if FORMS[form].name in replaced:
            raise ValueError(f"variant {name!r}: two forms replace {FORMS[form].name}: keep one")
        replaced.append(FORMS[form].name)
    return gen


@dataclass(frozen=True)
class KraftVariantConfig(KraftConfig):
    """The constants of a KRaft run on a variant: ``generation`` stays the base's name (what the
    options were validated against), ``gen`` is the variant, which every reader of the rules and
    of the steps (``described.steps_of``) takes."""

    variant: KraftGeneration | None = None

    @property
    def gen(self) -> KraftGeneration:
        return self.variant if self.variant is not None else KRAFT_GENERATIONS[self.generation]


class KraftVariantModel(KraftModel):
    """The KRaft model on a variant generation; ``symbolic`` gives ``bmc`` and ``prove`` its relation,
    derived from the same descriptions as the explicit steps."""

    def __init__(self, config: KraftVariantConfig, invariants: str = "all") -> None:
        super().__init__(config, invariants)
        self.variant = config.gen
        self.generation = self.variant.name

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}; variant {self.variant.name})"

    def __reduce__(self):
        return (KraftVariantModel, (self.config, self.invariants))

    def symbolic(self, unbounded: bool = False) -> Any:
        """The derived z3 relation (``isrcheck.model.kraft.symbolic.KraftSymbolic``); an option it does
        not cover is refused as for the built-in generations (exit 2)."""
        from isrcheck.explorer.errors import UserError

        from .symbolic import KraftSymbolic

        try:
            return KraftSymbolic(self, unbounded)
        except ValueError as exc:
            raise UserError(f"variant {self.variant.name!r} has no symbolic form for these options: {exc}") from None


def variant_model(generation: KraftGeneration, **options: Any) -> KraftVariantModel:
    """The KRaft model (``isrcheck.model.factory.make_model``'s options, validated as there) on the
    variant ``generation``, whose base generation is the one whose TLA+ module it keeps."""
    from ..factory import make_model

    base = next(g.name for g in KRAFT_GENERATIONS.values() if g.module == generation.module)
    m = make_model(generation=base, **options)
    config = KraftVariantConfig(**{f.name: getattr(m.config, f.name) for f in fields(KraftConfig)},
                                variant=generation)
    return KraftVariantModel(config, m.invariants)
