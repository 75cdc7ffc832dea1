"""Errors a user can act on. The CLI prints them as one paragraph and exits with status 2."""


class UserError(Exception):
    """Bad input: a wrong option, an impossible bound, a model file that does not load, a corrupt
    trace or checkpoint. The message names the problem and the fix."""


class ContractError(UserError):
    """A model broke the contract of ``explorer.contract`` (unhashable or mutable state, a successor
    function that mutates its input, successors that differ between two calls)."""
