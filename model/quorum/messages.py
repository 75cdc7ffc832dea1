"""The messages of KRaft.tla and its bag of messages (the network).

A message is a tuple whose first item is its type, then the spec record's fields in a fixed order
(a field a type does not have is absent; within FetchResponse the fields its result does not use
are -1 or empty, so that two responses are equal exactly when the spec's records are):

- RequestVoteRequest  ``(RVQ, epoch, lastLogEpoch, lastLogOffset, source, dest)``
- RequestVoteResponse ``(RVR, epoch, leader, granted, error, source, dest)``
- BeginQuorumRequest  ``(BQQ, epoch, source, dest)``
- BeginQuorumResponse ``(BQR, epoch, error, source, dest)``
- FetchRequest        ``(FQ, epoch, fetchOffset, lastFetchedEpoch, source, dest)``, and with
  ``--max-reconfigs`` one more item, ``observer`` (1 when the fetcher is not in its own voter set,
  KRaftWithReconfig's ``mobserver``)
- FetchResponse       ``(FR, epoch, leader, result, error, entries, hwm, divergingEpoch,
  divergingEndOffset, source, dest, correlation)``, the correlation being the request it answers.

KIP-996's pre-votes (``--pre-vote``, ``isrcheck.model.quorum.prevote``) are kraft/kip_996's
RequestVote records with ``pre_vote`` TRUE: the same tuples with one more item, ``PRE_VOTE``, at
the end (a standard vote keeps its tuple, so runs without pre-vote store exactly the same states).

The bag is a sorted tuple of ``(message, count)``. The spec never forgets a message: a delivered one
stays with count 0, which is how it sends vote and BeginQuorum requests only once and never repeats
an identical fetch response (``Send``, ``SendMultipleOnce``, ``Reply``). The functions here return
the new bag, or None where the spec's action is disabled.

Abstracted away: nothing; duplication and loss, commented out of the spec's ``Next``, are not steps.
"""

from __future__ import annotations

NIL = -1  # the spec's Nil: no server, no error
RVQ, RVR, BQQ, BQR, FQ, FR = range(6)
FR_ENTRIES = 5  # where a FetchResponse holds its entries
TYPE_NAMES = ("RequestVoteRequest", "RequestVoteResponse", "BeginQuorumRequest", "BeginQuorumResponse",
              "FetchRequest", "FetchResponse")
# Errors (merror) and fetch results (mresult).
FENCED_LEADER_EPOCH, NOT_LEADER, UNKNOWN_LEADER = range(3)
ERROR_NAMES = ("FencedLeaderEpoch", "NotLeader", "UnknownLeader")
OK, NOT_OK, DIVERGING = range(3)
RESULT_NAMES = ("Ok", "NotOk", "Diverging")
# Where source and destination sit in each type's tuple.
SOURCE = (4, 5, 2, 3, 4, 9)
DEST = (5, 6, 3, 4, 5, 10)
VALUES = "ABCDEFGH"
PRE_VOTE = 1  # the trailing item of a pre-vote request or response
VOTE_LENGTH = {RVQ: 6, RVR: 7}  # a standard vote's length; a pre-vote has one item more


def is_pre_vote(m: tuple) -> bool:
    """A RequestVote request or response with kip_996's ``pre_vote`` TRUE."""
    return m[0] in VOTE_LENGTH and len(m) > VOTE_LENGTH[m[0]]


def config_value(mask: int) -> int:
    """A voter-set entry's value (``--max-reconfigs``): a negative number, so that it never equals a
    client value's index; ``mask`` is the set of voters as a bit mask (never empty)."""
    return -1 - mask


def config_mask(value: int) -> int:
    """The voter set of a voter-set entry's value (``config_value``'s inverse); -1 for a client value."""
    return -1 - value if value < 0 else -1


def entry_name(value: int) -> str:
    """A log entry's value as shown: a client value's letter, or a voter set ``voters{1,2,4}``."""
    if value >= 0:
        return VALUES[value]
    mask = -1 - value
    return "voters{" + ",".join(str(k + 1) for k in range(mask.bit_length()) if mask >> k & 1) + "}"


def source(m: tuple) -> int:
    return m[SOURCE[m[0]]]


def dest(m: tuple) -> int:
    return m[DEST[m[0]]]


def _who(i: int) -> str:
    return "-" if i == NIL else str(i + 1)


def describe(m: tuple) -> str:
    """The message as one line: its type, its route and the fields that matter."""
    kind = m[0]
    route = f"{_who(source(m))}->{_who(dest(m))}"
    head = f"{TYPE_NAMES[kind]}{' (pre-vote)' if is_pre_vote(m) else ''} {route} epoch {m[1]}"
    if kind == RVQ:
        return f"{head} lastLog (offset {m[3]}, epoch {m[2]})"
    if kind == RVR:
        text = f"{head} {'granted' if m[3] else 'refused'} leader {_who(m[2])}"
        return text + (f" {ERROR_NAMES[m[4]]}" if m[4] != NIL else "")
    if kind == BQQ:
        return head
    if kind == BQR:
        return head + (f" {ERROR_NAMES[m[2]]}" if m[2] != NIL else "")
    if kind == FQ:
        return f"{head} fetchOffset {m[2]} lastFetchedEpoch {m[3]}" + (" observer" if m[6:] == (1,) else "")
    asked = m[11]  # the FetchRequest it answers: responses differ by it, and so must their lines
    observer = " observer" if asked[6:] == (1,) else ""
    text = (f"{head} {RESULT_NAMES[m[3]]} to{observer} fetch (offset {asked[2]}, epoch {asked[3]}) "
            f"of epoch {asked[1]}, leader {_who(m[2])} hwm {m[6]}")
    if m[3] == OK:
        text += " entries [" + ", ".join(f"{entry_name(v)}@{e}" for e, v in m[5]) + "]"
    elif m[3] == DIVERGING:
        text += f" diverging (offset {m[8]}, epoch {m[7]})"
    else:
        text += f" {ERROR_NAMES[m[4]]}"
    return text


def send(bag: tuple, m: tuple) -> tuple | None:
    """``Send``: requests for votes and BeginQuorum only once ever; anything else adds a copy."""
    counts = dict(bag)
    if m in counts:
        if m[0] in (RVQ, BQQ):
            return None
        counts[m] += 1
    else:
        counts[m] = 1
    return tuple(sorted(counts.items()))


def send_all_once(bag: tuple, msgs: list[tuple]) -> tuple | None:
    """``SendMultipleOnce``: every message new to the bag, or the action is disabled."""
    counts = dict(bag)
    if any(m in counts for m in msgs):
        return None
    for m in msgs:
        counts[m] = 1
    return tuple(sorted(counts.items()))


def discard(bag: tuple, m: tuple) -> tuple:
    """``Discard``: one copy of ``m`` (which has one) is delivered; the message stays with its count."""
    counts = dict(bag)
    counts[m] -= 1
    return tuple(sorted(counts.items()))


def reply(bag: tuple, response: tuple, request: tuple) -> tuple | None:
    """``Reply``: the request delivered and the response sent; a fetch response that was ever sent
    before (even delivered) cannot be sent again, any other is counted once more."""
    counts = dict(bag)
    if response in counts:
        if response[0] == FR:
            return None
        counts[response] += 1
    else:
        counts[response] = 1
    counts[request] -= 1
    return tuple(sorted(counts.items()))
