"""Kafka partition replication as a pure-state transition system.

``make_model`` (registered as the ``classic`` model) builds the reproduction of
hachikuji/kafka-specification; see ``model.classic`` for what is modelled and abstracted away.
"""

from .config import GENERATIONS, ClassicConfig
from .factory import make_model

__all__ = ["GENERATIONS", "ClassicConfig", "make_model"]
