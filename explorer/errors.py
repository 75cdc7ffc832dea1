"""Errors a user can act on, and the exit statuses the command line gives them.

Exit statuses (the project-wide table; README.md and docs/cli.md show it to users):

    0    no violation (every reachable state within the bounds was checked)
    1    a violation was found (or a ``sometimes`` property was never reached)
    2    bad input: a wrong option, an impossible bound, a model file that does not load, a corrupt
         trace or checkpoint, an output path that cannot be written
    3    a replayed trace diverged from the model
    4    the model itself failed: one of its functions raised, or it broke the contract
    5    stopped at a limit before an answer (the memory ceiling; bmc/prove: the solver's time
         limit, or z3's unknown)
    6    isrcheck itself failed: an internal error (the traceback is printed), or a worker process or
         Spark executor was lost beyond recovery (``LostWorker``: one paragraph saying what to do);
         never 1, so a crash is never read as a protocol violation
    7    the run failed on its disk: a file it had to write (a checkpoint, ``show``'s page) could not
         be written (full, read-only, removed); the statistics so far are printed. Output files
         written after a verdict do not change its status: they are reported as missing instead
    8    not proved (``prove``): a counterexample to induction, whose first state may be unreachable,
         so not a violation; add a lemma that excludes it, or look for a real trace with bmc/check
    130  interrupted (what was explored so far is still printed)
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_USAGE = 2
EXIT_DIVERGED = 3
EXIT_MODEL = 4
EXIT_LIMIT = 5
EXIT_INTERNAL = 6
EXIT_RUN_FAILED = 7
# Not 1: a CTI's first state satisfies the conjuncts but may be unreachable, so it is no violation.
EXIT_NOT_PROVED = 8
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """Bad input: a wrong option, an impossible bound, a model file that does not load, a corrupt
    trace or checkpoint. The message names the problem and the fix. Exit status 2."""


class ContractError(UserError):
    """A model broke the contract of ``isrcheck.explorer.contract`` (unhashable or mutable state, a successor
    function that mutates its input, successors that differ between two calls). Exit status 4: the
    fault is in the model, not in how it was run. (A subclass of UserError so that library callers
    who catch UserError keep catching it.)"""


class LostWorker(RuntimeError):
    """A worker process of the search ended without answering (killed by the system, perhaps out of
    memory). Not a verdict and not bad input: exit status 6, with this message and no traceback,
    since the message already says what to do."""


class RunFailed(Exception):
    """The run could not go on because a file it must write could not be written (a checkpoint
    disk that filled up or became read-only mid-run). Neither a verdict nor bad input nor a bug:
    exit status 7, the message (cause and way on) and no traceback. ``result`` carries what was
    explored so far, when the engine could build it."""

    def __init__(self, message: str, result: object = None):
        super().__init__(message)
        self.result = result


class ModelError(Exception):
    """One of the model's own functions raised while the checker ran it. Exit status 4.

    ``what`` names the function (``successors(state)``, ``property StrongIsr``); ``cause`` is the
    model's exception; ``state``/``action``/``successor`` say what was being evaluated, as TLC
    names the state and action it was evaluating; ``trace`` (when it could be rebuilt) is the path
    from an initial state to the state being expanded. ``isrcheck.explorer.cli.model_fault`` renders it."""

    def __init__(self, what: str, cause: BaseException, *, model: object = None, state: object = None,
                 action: object = None, successor: object = None, trace: object = None, note: str = ""):
        super().__init__(f"{what} raised {type(cause).__name__}: {cause}")
        self.what = what
        self.cause = cause
        self.model = model
        self.state = state
        self.action = action
        self.successor = successor
        self.trace = trace
        self.note = note
