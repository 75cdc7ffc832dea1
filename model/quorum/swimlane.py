"""One step of the quorum as an event of the report's space-time (swimlane) view: the server that
acts, the messages the step puts in the bag (a copy more) and those it takes out (a copy less).

Every message is its own id (its one-line description, ``isrcheck.model.quorum.messages.describe``,
which tells any two messages apart), so the report draws each delivery as an arrow from the row
that sent that message, however many steps earlier. Lanes are ``server 1`` .. ``server n``.

Abstracted away: nothing; this reads the bag of the states before and after the step.
"""

from __future__ import annotations

from typing import Any

from .messages import TYPE_NAMES, describe, is_pre_vote

SHORT = {"RequestVoteRequest": "vote?", "RequestVoteResponse": "vote", "BeginQuorumRequest": "BeginQuorum",
         "BeginQuorumResponse": "BeginQuorum ack", "FetchRequest": "Fetch", "FetchResponse": "FetchResponse"}


def lanes(n: int) -> list[str]:
    return [f"server {i + 1}" for i in range(n)]


def event(action: Any, before_bag: tuple, after_bag: tuple) -> dict[str, Any]:
    """The swimlane event of ``action`` changing the bag ``before_bag`` into ``after_bag``."""
    old, new = dict(before_bag), dict(after_bag)
    sent = [m for m, count in new.items() if count > old.get(m, 0)]
    received = [m for m, count in old.items() if new.get(m, 0) < count]
    return {
        "lane": f"server {action.server}",
        "label": action.name,
        "send": [{"id": describe(m), "label": f"{'pre-' * is_pre_vote(m)}{SHORT[TYPE_NAMES[m[0]]]} e{m[1]}"}
                 for m in sent],
        "receive": [describe(m) for m in received],
        "arrows": [],
    }
