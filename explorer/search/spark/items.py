"""Independent tasks on executors, with the run's model shipped as the BFS engine ships it.

Breadth-first search is one shape of distributed work; swarm simulation (chunks of behaviours) and
proofs (solver queries) are another: a list of independent items, each turned into a result by a
function that needs the model. ``map_on_executors`` runs ``fn(context, item)`` for every item on
the executors, one task per item, and returns the results in the items' order, so that what the
driver makes of them never depends on which executor answered first. The model travels in the
payload ``session.make_payload`` builds (a user's model file, its helper modules and the classes
of ``__main__`` included) and is rebuilt once per Python worker by ``level.load_context``.

Nothing here imports pyspark: executors import this module to run the function the driver pickled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from isrcheck.explorer.search.spark.level import Context, load_context


def run_items(payload: tuple, fn: Callable[[Context, Any], Any]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The function of one partition: the run's context, then ``fn`` on each of its items."""

    def run(items: Iterator[Any]) -> Iterator[Any]:
        ctx = load_context(payload)
        for item in items:
            yield fn(ctx, item)

    return run


def map_on_executors(sc: Any, payload: tuple, fn: Callable[[Context, Any], Any], items: Sequence[Any],
                     *, slices: int | None = None) -> list[Any]:
    """``[fn(context, item) for item in items]``, computed on the executors in ``slices`` tasks
    (default one per item). Items are dealt to the tasks round-robin, so neighbours, which often
    cost alike (the parts of one conjunct), are spread over the cores; results come back in the
    items' order."""
    if not items:
        return []
    count = min(len(items), slices or len(items))
    dealt = [i for start in range(count) for i in range(start, len(items), count)]
    results = sc.parallelize([items[i] for i in dealt], count).mapPartitions(run_items(payload, fn)).collect()
    ordered: list[Any] = [None] * len(items)
    for i, result in zip(dealt, results, strict=True):
        ordered[i] = result
    return ordered


def executor_error(exc: Exception) -> Exception | None:
    """A ContractError raised on an executor, or a module the executors cannot import, reaches the
    driver inside a Py4J exception; the error the user should see instead of a JVM stack trace
    (None: a crash, left as it is)."""
    from isrcheck.explorer.errors import ContractError, UserError

    text = str(exc)
    marker = "isrcheck.explorer.errors.ContractError: "
    if marker in text:
        return ContractError(text.split(marker, 1)[1].strip().splitlines()[0])
    marker = "ModuleNotFoundError: No module named "
    if marker in text:
        name = text.split(marker, 1)[1].strip().splitlines()[0]
        # without the closing parenthesis of Python's line for a daemon run with ``-m`` that cannot be
        # imported (``spark.daemon``): "(ModuleNotFoundError: No module named 'isrcheck')"
        name = name[:-1] if name.endswith("')") else name
        return UserError(
            f"the executors cannot import {name}, which the model needs; install the package that holds it "
            "on every executor (or pass it with spark-submit --py-files), or give the model as a file "
            "(path/to/model.py:make_model), which the engine ships itself (see docs/spark.md)")
    return None
