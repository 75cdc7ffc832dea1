"""Transition properties: predicates on one step ``(state, action, next_state)``.

- ``OnlyTruncationShortensLogs``: a step that removes records from a replica's log is that
  replica's own truncation (``BecomeFollowerAndTruncate`` or ``FollowerTruncate`` of that
  replica), or its broker's lossy crash or its zone's power failure (``isrcheck.model.steps.failures``),
  never a write, a fetch or a
  controller action; and a step that appends adds exactly one record. It guards the model
  itself (every generation should satisfy it); with ``sometimes``
  on transitions, the same test would witness that truncations actually occur.
"""

from __future__ import annotations

from isrcheck.explorer.contract import Property

from .tables import Tables


def only_truncation_shortens_logs(t: Tables) -> Property:
    length = t.logs.length
    kinds = t.actions.kinds
    BecomeFollowerAndTruncate, FollowerTruncate = kinds.BecomeFollowerAndTruncate, kinds.FollowerTruncate
    BrokerCrash, AvailabilityZoneFailure = kinds.BrokerCrash, kinds.AvailabilityZoneFailure
    blocks = tuple((r, t.layout.base[r]) for r in t.layout.replicas)

    def shortened(s: tuple, nxt: tuple):
        for r, b in blocks:
            before, after = length[s[b]], length[nxt[b]]
            if after < before or after > before + 1:
                yield r, before, after

    def allowed(action: object, r: int, before: int, after: int) -> bool:
        if after > before:
            return False
        if isinstance(action, BecomeFollowerAndTruncate):
            return action.replica == r + 1 and action.truncate_to == after
        if isinstance(action, FollowerTruncate):
            return action.follower == r + 1 and action.truncate_to == after
        if isinstance(action, BrokerCrash):  # a power failure keeps only the flushed prefix
            return action.lost_unflushed and action.replica == r + 1 and action.log_end == after
        if isinstance(action, AvailabilityZoneFailure):  # each broker of the zone keeps its flushed prefix
            return r + 1 in action.brokers and action.log_ends[action.brokers.index(r + 1)] == after
        return False

    def holds(s: tuple, action: object, nxt: tuple) -> bool:
        return all(allowed(action, *change) for change in shortened(s, nxt))

    def describe(s: tuple, action: object, nxt: tuple) -> str:
        return "; ".join(
            f"{action!r} changed replica {r + 1}'s log end offset from {before} to {after}"
            for r, before, after in shortened(s, nxt)
            if not allowed(action, r, before, after)
        )

    return Property.transition(
        "OnlyTruncationShortensLogs",
        holds,
        "only a replica's own truncation removes its records; other steps append at most one",
        describe,
    )
