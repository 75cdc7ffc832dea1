"""The Spark engine audits the model contract as the local engine does: initial states that change
between calls, and successors that differ between two calls on the same state, are refused with a
ContractError, whether the level runs in the driver or on executors."""

from __future__ import annotations

import pytest

from isrcheck import ContractError, check
from tests.explorer.search.spark.helpers import HiddenCounter, NewInitEachCall
from tests.fixtures.models import Counters

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("threshold", [None, 0], ids=["driver-levels", "executor-levels"])
def test_successors_that_differ_between_calls_are_refused(spark, threshold):
    options = {} if threshold is None else {"driver_threshold": threshold, "partitions": 2}
    with pytest.raises(ContractError, match="different results in two calls"):
        check(HiddenCounter(2, 3), engine="spark", **options)


def test_init_states_that_differ_between_calls_are_refused(spark):
    with pytest.raises(ContractError, match="init_states\\(\\) returned different states"):
        check(NewInitEachCall(2, 3), engine="spark")


def test_a_well_behaved_model_passes_the_audit_on_executors(spark):
    result = check(Counters(2, 3), engine="spark", driver_threshold=0, partitions=2)
    assert result.complete and result.distinct_states == 3**2
