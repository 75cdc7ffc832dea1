"""isrcheck: a model checker for Apache Kafka's partition replication protocol.

One import namespace over the repository's three folders (mapped in setup.py):

- ``isrcheck.model``: Kafka replication as a pure-state transition system (the ``classic`` model);
- ``isrcheck.properties``: the named properties it must keep;
- ``isrcheck.explorer``: the generic engines, traces and the command line.

What a user needs is here at the top: ``check`` explores a model and returns a ``CheckResult``
(``print(result)`` gives its summary and traces; a notebook shows its HTML report), ``Property``
and ``Kind`` declare what must hold, ``Model`` is the contract a model of your own implements.
Properties of one's own over a model's read state (``@invariant``, ``@transition``, ...) are added
to any model with ``with_properties``; ``assert_holds`` checks a model in a pytest test
(docs/properties-own.md).

    import isrcheck
    from isrcheck.explorer.registry import build_model

    result = isrcheck.check(build_model("classic", {"generation": "kip101"}), stop_at_first=True)
    print(result)
"""

from isrcheck.explorer.check import check
from isrcheck.explorer.contract import Kind, Model, Property
from isrcheck.explorer.errors import ContractError, UserError
from isrcheck.explorer.extra import OwnProperty, eventually, invariant, leads_to, sometimes, transition, with_properties
from isrcheck.explorer.result import CheckResult, Step, Trace, Violation
from isrcheck.testing import PropertyFailed, assert_holds

__all__ = [
    "CheckResult",
    "ContractError",
    "Kind",
    "Model",
    "OwnProperty",
    "Property",
    "PropertyFailed",
    "Step",
    "Trace",
    "UserError",
    "Violation",
    "assert_holds",
    "check",
    "eventually",
    "invariant",
    "leads_to",
    "sometimes",
    "transition",
    "with_properties",
]
