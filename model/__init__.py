"""Kafka partition replication as a pure-state transition system.

``make_model`` (registered as the ``classic`` model) builds the reproduction of
hachikuji/kafka-specification, with options; ``isrcheck.model.replication`` says what is modelled and
abstracted away, and docs/architecture.md maps the package.
"""

from .config import GENERATIONS, ClassicConfig
from .factory import make_model

__all__ = ["GENERATIONS", "ClassicConfig", "make_model"]
