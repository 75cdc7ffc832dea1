"""Every option's allowed values are declared once (``isrcheck.model.options``, ``isrcheck.model.generations``): the
factory's signature, hence the command line's choices, reads them, and the docs name each one."""

from __future__ import annotations

import pytest
from isrcheck.explorer.registry import model_options
from isrcheck.model import make_model
from isrcheck.model.generations import GENERATIONS
from isrcheck.model.kraft import KRAFT_GENERATIONS
from isrcheck.model.options import ACKS, PLACEMENT, READS, STOPS, TRUNCATION, UNCLEAN

from tests.fixtures.paths import DOCS

DECLARED = {
    "generation": tuple(GENERATIONS) + tuple(KRAFT_GENERATIONS),
    "acks": ACKS,
    "stops": STOPS,
    "unclean_election": UNCLEAN,
    "consumer_reads": READS,
    "truncation": TRUNCATION,
    "placement": PLACEMENT,
}


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_command_line_choices_are_the_declared_values(name):
    [option] = [o for o in model_options(make_model) if o.name == name]
    assert tuple(option.choices) == DECLARED[name]
    assert option.default in DECLARED[name]


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_docs_name_every_allowed_value(name):
    text = " ".join(p.read_text() for p in DOCS.glob("*.md"))
    missing = [v for v in DECLARED[name] if f"`{v}`" not in text]
    assert missing == []


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_a_value_outside_the_declaration_is_refused(name):
    with pytest.raises(ValueError, match=name):
        make_model(**{name: "no-such-value"})
