"""The coordinator's handle on its persistent workers: fork them once, command them, wait, reap.

Workers are forked (``isrcheck.explorer.search.parallel.shard``) when the search first reaches a
level worth sharing, so they inherit the model, the properties and the coordinator's visited set
and frontier as of then without anything being pickled (``gc.freeze()`` before the fork, and no
collector in the workers, so they do not write to every inherited object's header and copy its
page). They live to the end of the run.

A phase is a command to every worker and one reply from each. While it waits, the coordinator
wakes at least once a second to read the run's resident memory (its own and every worker's:
``--max-memory`` bounds the whole run) and to show progress. The pool also keeps the figures the
serial fraction is computed from: the wall time while some worker runs a phase, and the CPU time
the workers report for their phases; the rest of a run's wall time is the coordinator's alone.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import time
from collections.abc import Callable
from typing import Any

from isrcheck.explorer.errors import LostWorker, ModelError, UserError
from isrcheck.explorer.search.parallel.channel import Closed, Exchange, receive, send
from isrcheck.explorer.search.parallel.shard import start


class WorkerDied(LostWorker):
    """A worker ended without answering (killed by the system, perhaps out of memory)."""


class WorkerFault(Exception):
    """A worker's expansion raised an exception of the model's (not a contract or usage error,
    which carry their own report): the coordinator runs the search again in its own process to
    report it as one process does."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(repr(cause))
        self.cause = cause


def _resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Pool:
    """``workers`` forked shard owners and their pipes."""

    def __init__(self, ctx: Any, workers: int, visited: Callable[[], list[Any]], frontier: list[Any],
                 first: int, sampled: int) -> None:
        self.exchange = Exchange()
        self.pids: list[int] = []
        self.commands: list[int] = []
        self.replies: list[int] = []
        self.busy_seconds = 0.0  # wall time while some worker runs a phase
        self.worker_cpu = 0.0  # the CPU seconds the workers report for their phases
        gc.freeze()  # the workers then never touch the inherited objects' collector headers
        try:
            for me in range(workers):
                cmd_r, cmd_w = os.pipe()
                rep_r, rep_w = os.pipe()
                pid = os.fork()
                if pid == 0:  # the worker
                    status = 0
                    try:
                        gc.disable()
                        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C
                        os.close(cmd_w)
                        os.close(rep_r)
                        for fd in self.commands + self.replies:
                            os.close(fd)
                        start(ctx, me, workers, self.exchange, visited(), frontier, first, sampled, cmd_r, rep_w)
                    except BaseException:
                        status = 1
                    finally:
                        os._exit(status)  # no atexit handlers, no flushing the coordinator's buffers
                os.close(cmd_r)
                os.close(rep_w)
                self.pids.append(pid)
                self.commands.append(cmd_w)
                self.replies.append(rep_r)
        except BaseException:
            self.close(kill=True)
            raise
        finally:
            gc.unfreeze()

    def __len__(self) -> int:
        return len(self.pids)

    def resident(self) -> int:
        """The workers' resident memory, together (pages they still share with the coordinator
        counted in each: an upper bound)."""
        return sum(_resident(pid) for pid in self.pids)

    def phase(self, op: str, args: list[Any], poll: Callable[[], None]) -> list[Any]:
        """Send ``(op, args[w])`` to each worker ``w`` and return their answers in worker order;
        ``poll`` is called at least once a second while waiting. A worker's error is raised here
        (a model's exception as ``WorkerFault``), after every worker has answered."""
        started = time.monotonic()
        for fd, a in zip(self.commands, args, strict=True):
            send(fd, (op, a))
        answers: dict[int, tuple] = {}
        waiting = {fd: w for w, fd in enumerate(self.replies)}
        try:
            while waiting:
                ready, _, _ = select.select(list(waiting), [], [], 1.0)
                for fd in ready:
                    w = waiting.pop(fd)
                    try:
                        answers[w] = receive(fd)
                    except Closed:
                        raise WorkerDied(
                            "a parallel worker died (killed by the system, perhaps out of memory); rerun with "
                            "fewer --workers or --store fingerprint") from None
                poll()
        finally:
            self.busy_seconds += time.monotonic() - started
        self.worker_cpu += sum(a[2] for a in answers.values())
        for w in range(len(self.pids)):
            status, value, _ = answers[w]
            if status == "error":
                if isinstance(value, OSError):  # the engine's own files or pipes, not the model
                    raise RuntimeError(f"a parallel worker could not exchange states: {value}") from value
                if isinstance(value, Exception) and not isinstance(value, (UserError, ModelError, MemoryError)):
                    raise WorkerFault(value)
                raise value
        return [answers[w][1] for w in range(len(self.pids))]

    def close(self, *, kill: bool) -> None:
        """End the workers (``kill``: at once, the run ends early) and remove the exchange files."""
        for fd in self.commands:
            try:
                os.close(fd)  # end of file: a worker between commands exits
            except OSError:
                pass
        self.commands = []
        for pid in self.pids:
            if kill:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        for pid in self.pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.pids = []
        for fd in self.replies:
            try:
                os.close(fd)
            except OSError:
                pass
        self.replies = []
        self.exchange.remove()
