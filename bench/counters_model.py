"""The fixture Counters model (tests/fixtures/models.py) as a model file the benchmarks can name."""

from tests.fixtures.models import Counters


def make_model(*, n: int = 3, limit: int = 100) -> Counters:
    return Counters(n, limit)
