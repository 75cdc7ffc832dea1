"""Why a model has no property of a given name, and what makes it have one: the model's
``property_hint`` hook (``isrcheck.explorer.contract``), read when a run names a property the model
lacks ("unknown property AckedRecordNotLost: the acks option adds it: --acks 0, 1 or all").

Derived from what the model already declares rather than a hand list: a classic property's
catalogue entry (``isrcheck.properties.CATALOGUE``) names the option field it reads, the field table
(``isrcheck.model.encoding.fields.OPTION_FIELDS``) says when that field is present, and the options'
declared values (``isrcheck.model.options.CHOICES``, the factory's ``Literal`` types) give the values
to try; the option values that make the field present are found by trying each one on the model's
own options. A KRaft property says which generation or
bound its family's catalogue (``isrcheck.properties.kraft``) requires.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import isrcheck.properties as catalogue
from isrcheck.properties import kraft as kraft_catalogue
from isrcheck.properties import kraft_reassignment as reassignment_catalogue

from .encoding.fields import OPTION_FIELDS
from .kraft.generations import KRAFT_GENERATIONS
from .options import CHOICES

REASSIGNMENT_NAMES = (*reassignment_catalogue.ALWAYS, *reassignment_catalogue.SOMETIMES,
                      *reassignment_catalogue.OPT_IN, *reassignment_catalogue.LIVENESS)
KRAFT_NAMES = (*kraft_catalogue.ALWAYS, *kraft_catalogue.SOMETIMES, *kraft_catalogue.OPT_IN, *REASSIGNMENT_NAMES)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _candidates(obj: Any) -> dict[str, tuple[Any, ...]]:
    """Each option of an options object and the values worth trying instead of its own: the
    declared choices, True for a flag that is off, one more for a count."""
    out: dict[str, tuple[Any, ...]] = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if f.name in CHOICES:
            out[f.name] = tuple(v for v in CHOICES[f.name] if v != value)
        elif value is False:
            out[f.name] = (True,)
        elif isinstance(value, int) and not isinstance(value, bool):
            out[f.name] = (value + 1,)
    return out


def _options_adding(field: str, durability: Any, consumers: Any) -> list[str]:
    """``--option value`` texts, each of which alone makes ``field`` present in these options."""
    row = next(f for f in OPTION_FIELDS if f.name == field)
    if row.present is None:
        return []
    found: list[str] = []
    for which, obj in ((0, durability), (1, consumers)):
        for name, values in _candidates(obj).items():
            good = []
            for value in values:
                args = [durability, consumers]
                args[which] = dataclasses.replace(obj, **{name: value})
                try:
                    if row.present(*args):
                        good.append(str(value))
                except Exception:  # noqa: BLE001  a value the options cannot take here: not a hint
                    pass
            if not good:
                continue
            text = good[0] if len(good) == 1 else ", ".join(good[:-1]) + " or " + good[-1]
            found.append(f"{_flag(name)} {text}")
    return found


def classic_hint(name: str, model: Any) -> str | None:
    """Why the ZooKeeper-era ``model`` lacks ``name``, or None when it is not a name we know."""
    entry = catalogue.CATALOGUE.get(name)
    if entry is None:
        if name in KRAFT_NAMES:
            return f"{name} is a property of the KRaft generations: add --generation {' or '.join(KRAFT_GENERATIONS)}"
        return None
    if entry.needs and getattr(model.tables.fields, entry.needs) < 0:
        adding = _options_adding(entry.needs, model.options, model.consumers)
        if adding:
            return f"{' or '.join(adding)} adds {name}"
        return f"{name} needs option state this configuration does not have ({entry.needs})"
    return f"--property-set {model.invariants!r} leaves {name} out: add it (--property-set default,{name}) or use all"


def kraft_hint(name: str, model: Any) -> str | None:
    """Why the KRaft ``model`` lacks ``name``, or None when it is not a name we know."""
    if name not in KRAFT_NAMES:
        if name in catalogue.CATALOGUE:
            return f"{name} is a property of the ZooKeeper-era generations: choose one of those with --generation"
        return None
    if name in kraft_catalogue.ELR_ONLY:
        with_elr = [g for g, gen in KRAFT_GENERATIONS.items() if gen.elr]
        return f"{name} is about Eligible Leader Replicas: add --generation {' or '.join(with_elr)}"
    if name == "ReplicasSpreadOverRacks" and model.config.reassignments:
        return f"{name} is about racks: add --azs 2 (brokers alternate between the racks)"
    if name == "AddedReplicaInIsr" and model.config.reassignments:
        return f"{name} needs a broker that does not host the partition at first: add --spare-brokers 1"
    if name in REASSIGNMENT_NAMES:
        return f"{name} is about partition reassignment: add --max-reassignments 1 (and --spare-brokers 1 to add one)"
    if name in kraft_catalogue.NEEDS_LOSSY_SHUTDOWN:
        return f"{name} needs an unclean shutdown: add --max-crashes 1 (with --stops lossy or all)"
    return f"--property-set {model.invariants!r} leaves {name} out: add it (--property-set {name}) or use all"
