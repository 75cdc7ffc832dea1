"""Named scenarios: a model, its options, the property at stake and the verdict the catalogue
expects (a violation with a pinned shortest-trace length, or none within the stated bounds).

Scenarios come from the ``isrcheck.scenarios`` entry-point group: each entry is a function that
returns a sequence of ``Scenario``. The Kafka bug catalogue (K1, K8, ...) registers itself there,
so ``isrcheck scenarios`` stays as generic as ``isrcheck check``."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from isrcheck.explorer.errors import UserError

GROUP = "isrcheck.scenarios"


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    model: str
    options: Mapping[str, Any]
    properties: tuple[str, ...]
    expect: str  # "violated" or "holds"
    trace_length: int | None = None  # the shortest counterexample's length, when violated
    story: str = ""
    check_options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.expect not in ("violated", "holds"):
            raise ValueError(f"scenario {self.id}: expect must be 'violated' or 'holds', not {self.expect!r}")

    def command(self) -> str:
        """The equivalent ``isrcheck check`` command line, for docs and for users to adapt."""
        parts = ["isrcheck check", self.model]
        for k, v in self.options.items():
            flag = "--" + k.replace("_", "-")
            if isinstance(v, bool):
                parts.append(flag if v else f"--no-{k.replace('_', '-')}")
            else:
                parts.append(f"{flag} {v}")
        parts += [f"--invariant {p}" for p in self.properties]
        for k, v in self.check_options.items():
            if isinstance(v, Mapping):  # a table such as fairness: FAMILY=KIND,... as one quoted word
                parts.append(f"--{k.replace('_', '-')} " + shlex.quote(",".join(f"{a}={b}" for a, b in v.items())))
            elif v is True:
                parts.append("--" + k.replace("_", "-"))
            elif v not in (None, False):
                parts.append(f"--{k.replace('_', '-')} {v}")
        return " ".join(parts)


def all_scenarios() -> dict[str, Scenario]:
    found: dict[str, Scenario] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        try:
            scenarios = ep.load()()
        except Exception as exc:
            raise UserError(f"the scenario catalogue {ep.name!r} ({ep.value}) failed to load: {exc!r}") from None
        for sc in scenarios:
            found[sc.id] = sc
    return found


def get_scenario(scenario_id: str) -> Scenario:
    scenarios = all_scenarios()
    key = next((k for k in scenarios if k.lower() == scenario_id.lower()), None)
    if key is None:
        raise UserError(f"unknown scenario {scenario_id!r}; known: {', '.join(scenarios) or '(none)'} "
                        "(isrcheck scenarios lists them)")
    return scenarios[key]
