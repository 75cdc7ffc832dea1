"""Ctrl-C during a distributed run: stop at once, keep what the completed levels found.

PySpark's own SIGINT handler raises KeyboardInterrupt wherever the driver happens to be, which is
usually inside a Py4J call to the JVM: the half-sent command leaves the connection broken, the
cancellation that follows fails on it, and the user gets tens of lines of Py4J tracebacks instead
of the run's statistics. During a run this handler replaces it: a first Ctrl-C only records the
request and cancels the running Spark jobs from another thread (Py4J gives each thread its own
connection, so the driver's pending call is not disturbed and returns with a "job cancelled"
error); the engine then stops after the level it was in, and reports the levels completed before
it. A second Ctrl-C, for a user who will not wait for that, exits at once with status 130; the
checkpoint on disk is still whole, since every file of it is written under a temporary name and
renamed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any


class Interrupts:
    """Context manager: SIGINT handling for the duration of a run (main thread only; elsewhere, as
    in a notebook's worker thread, the caller's handling stays as it is)."""

    def __init__(self) -> None:
        self.requested = False
        self.sc: Any = None
        self.owned = False
        self._cancel: threading.Thread | None = None
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, *exc: Any) -> None:
        self.settle()
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def reinstall(self) -> None:
        """Take SIGINT back after SparkContext's start installed PySpark's handler."""
        if self._installed:
            signal.signal(signal.SIGINT, self._handle)

    def attach(self, sc: Any, *, owned: bool) -> None:
        """The SparkContext whose jobs a Ctrl-C cancels (a request made before it existed cancels
        nothing: no job has run yet, and the engine checks ``requested`` before each level).
        ``owned``: the engine created it, so it may also silence the warnings Spark logs for each
        killed task (a user's own session keeps its logging)."""
        self.sc, self.owned = sc, owned

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            sys.stderr.write("isrcheck: interrupted again: stopping now, without the summary. The checkpoint "
                             "(if any) keeps every level completed so far.\n")
            sys.stderr.flush()
            os._exit(130)
        self.requested = True
        if self.sc is not None and self._cancel is None:
            self._cancel = threading.Thread(target=self._cancel_jobs, name="isrcheck-cancel", daemon=True)
            self._cancel.start()

    def _cancel_jobs(self) -> None:
        try:
            if self.owned:
                self.sc.setLogLevel("ERROR")
            self.sc.cancelAllJobs()
        except Exception:  # the context may be stopping already; there is nothing left to cancel
            pass

    def settle(self) -> None:
        """Wait for the cancellation to be done, so that it cannot cancel a job started later
        (the Spark jobs that rebuild the traces of what the completed levels found)."""
        if self._cancel is not None:
            self._cancel.join(timeout=60)
