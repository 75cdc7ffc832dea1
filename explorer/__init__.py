"""isrcheck's generic checking engines: the model contract, breadth-first exploration in process
and on Spark, traces and their renderers, and the command line. Nothing here knows Kafka: models
arrive through ``explorer.registry``."""

from explorer.check import check
from explorer.contract import Kind, Model, Property
from explorer.errors import ContractError, UserError
from explorer.result import CheckResult, Step, Trace, Violation

__all__ = [
    "CheckResult",
    "ContractError",
    "Kind",
    "Model",
    "Property",
    "Step",
    "Trace",
    "UserError",
    "Violation",
    "check",
]
