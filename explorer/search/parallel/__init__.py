"""The local engine on every core: level-synchronous breadth-first search in forked worker processes.

``engine.run_parallel`` is the coordinator, ``worker`` the per-process loop, ``order`` the
breadth-first numbering that makes results independent of the number of workers and of the order
in which their messages arrive. See ``engine`` for the design.
"""

from isrcheck.explorer.search.parallel.engine import run_parallel

__all__ = ["run_parallel"]
