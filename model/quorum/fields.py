"""The quorum state layout as one table of fields (rows of ``isrcheck.model.encoding.fields.Field``).

A quorum state is one flat tuple: a block of ``SERVER_FIELDS`` for every voter (server-major), then
``GLOBAL_FIELDS`` (the network's bag of messages and the spec's auxiliary variables). Each row names
the variable of KRaft.tla (Vanlightly/raft-tlaplus, ``specifications/pull-raft``) it stands for
(``view``: its key in traces, ITF and the HTML page) and how to show it; ``Layout`` turns the table
into positions once.

Values: servers are indices 0..n-1 (shown 1..n); -1 is the spec's ``Nil``; a log is a tuple of
``(epoch, value)`` pairs, offset 1 first as in the spec; a set of servers is a bit mask; a message is
a tuple whose first item is its type (``isrcheck.model.quorum.messages``); the bag is a sorted tuple
of ``(message, delivery count)`` pairs that keeps messages whose count fell to 0, because the spec's
``Send``/``Reply`` test membership of the bag's domain, not a positive count.

Abstracted away: nothing here; this module only describes the encoding the steps build.
"""

from __future__ import annotations

from typing import Any

from isrcheck.model.encoding.fields import Field

from .messages import FR, FR_ENTRIES, NIL, describe, entry_name  # noqa: F401  (FR, FR_ENTRIES: for the properties)

# The spec's server states, and IllegalState (a transition the spec declares impossible).
FOLLOWER, CANDIDATE, LEADER, UNATTACHED, VOTED, ILLEGAL = range(6)
STATE_NAMES = ("Follower", "Candidate", "Leader", "Unattached", "Voted", "IllegalState", "Prospective")
PROSPECTIVE = 6  # KIP-996's pre-vote state (--pre-vote only; isrcheck.model.quorum.prevote)
# acked[v]: the spec's Nil (never written), FALSE (written, not committed), TRUE (committed, acknowledged).
UNWRITTEN, PENDING, ACKED = 0, 1, 2
ACKED_NAMES = (None, False, True)
VALUES = "ABCDEFGH"


def _plain(t: Any, s: tuple, i: int) -> Any:
    return s[i]


def _server(t: Any, s: tuple, i: int) -> int | None:
    return None if s[i] == NIL else s[i] + 1


def _log(t: Any, s: tuple, i: int) -> list[dict[str, Any]]:
    return [{"epoch": e, "value": entry_name(v)} for e, v in s[i]]


def _end_offsets(t: Any, s: tuple, i: int) -> dict[str, int]:
    return {str(p + 1): off for p, off in enumerate(s[i])}


def _pending(t: Any, s: tuple, i: int) -> str | None:
    return describe(s[i]) if s[i] else None


def _messages(t: Any, s: tuple, i: int) -> dict[str, int]:
    return {describe(m): count for m, count in s[i]}


SERVER_FIELDS = (
    Field("epoch", "currentEpoch", 1, show=_plain,
          doc="the server's epoch (the Raft term): bumped by its own election, raised by any message of a later one"),
    Field("state", "state", "Unattached", show=lambda t, s, i: STATE_NAMES[s[i]],
          doc="the server's state: Unattached, Voted, Candidate, Leader, Follower (Prospective: asking for "
              "pre-votes, --pre-vote); IllegalState when a transition the spec declares impossible happened"),
    Field("voted_for", "votedFor", "Nil", show=_server,
          doc="the candidate the server voted for (the spec keeps it across epochs); - : none"),
    Field("leader", "leader", "Nil", show=_server,
          doc="the leader the server knows in its epoch; - : none known"),
    Field("pending_fetch", "pendingFetch", "Nil", show=_pending,
          doc="the follower's FetchRequest awaiting its response: only a response to it is handled"),
    Field("log", "log", (), show=_log,
          doc="the server's copy of the metadata log: each entry's value and the epoch it was written in, "
              "offset 1 first"),
    Field("hw", "highWatermark", 0, show=_plain,
          doc="the server's high watermark: entries up to this offset are committed as the server knows it"),
    Field("votes_granted", "votesGranted", "{}", show=lambda t, s, i: t.layout.ids(s[i]),
          doc="the votes a candidate has received in its epoch, its own included"),
    Field("end_offset", "endOffset", "0 for all", show=_end_offsets,
          doc="per server, the fetch offset it last sent this leader: what the leader's high watermark counts"),
)
GLOBAL_FIELDS = (
    Field("messages", "messages", "empty", show=_messages,
          doc="the network: every message sent, with how many copies await delivery (0: delivered; the spec "
              "keeps it so that a request is sent once and a fetch response is never repeated)"),
    Field("acked", "acked", "Nil for every value", show=lambda t, s, i: {VALUES[v]: ACKED_NAMES[a]
                                                                        for v, a in enumerate(s[i])},
          doc="(ghost) per value: - never written, false written but not committed, true committed "
              "(acknowledged to the client)"),
    Field("elections", "electionCtr", 0, show=_plain, doc="elections started so far, up to --max-elections"),
    Field("restarts", "restartCtr", 0, show=_plain, doc="server restarts so far, up to --max-crashes"),
)

# With --max-reconfigs (KIP-853): one global field more, at the end of the tuple, so that the
# states of every other configuration keep their shape; and two views per server derived from its
# log and high watermark (the spec's config and role variables, which are functions of them here).
RECONFIG_GLOBAL_FIELDS = (
    Field("reconfigs", "_reconfigCtr", 0, show=_plain,
          doc="AddVoter and RemoveVoter entries appended so far, up to --max-reconfigs"),
)
# With --max-fetches: the fetch counter, one global field after the reconfiguration's (when there is
# one), so that the states of every configuration without the bound keep their shape.
FETCH_GLOBAL_FIELDS = (
    Field("fetches", "_fetchCtr", 0, show=_plain,
          doc="FetchRequests sent so far, up to --max-fetches (a bound of the search, not in the specs)"),
)
RECONFIG_VIEW_DOCS = {
    "config": "the server's voter set: the newest voter-set entry in its log, used whether committed or not "
              "(committed: within its high watermark); no entry: an empty set",
    "role": "Voter when the server is in its own voter set, else Observer (it only fetches)",
}

(EPOCH, STATE, VOTED_FOR, LEADER_ID, PENDING_FETCH, LOG, HW, VOTES_GRANTED, END_OFFSET) = range(len(SERVER_FIELDS))
BLOCK = len(SERVER_FIELDS)
(MESSAGES, ACKED_FIELD, ELECTIONS, RESTARTS) = range(len(GLOBAL_FIELDS))
FIELD_DOCS = {f.view: f.doc for f in (*SERVER_FIELDS, *GLOBAL_FIELDS)}
FETCH_FIELD_DOCS = {f.view: f.doc for f in FETCH_GLOBAL_FIELDS}
RECONFIG_FIELD_DOCS = {**{f.view: f.doc for f in RECONFIG_GLOBAL_FIELDS}, **RECONFIG_VIEW_DOCS}
assert all(FIELD_DOCS.values()), "every field has a one-line description"
assert SERVER_FIELDS[END_OFFSET].name == "end_offset" and GLOBAL_FIELDS[RESTARTS].name == "restarts"


class Layout:
    """Positions for ``n`` servers, computed once: server i's field F is at ``i * BLOCK + F``,
    global field G at ``g + G``; with ``reconfig``, the reconfiguration counter at ``reconfigs``; with
    ``fetch_bound``, the fetch counter at ``fetches`` (after it). Fields from ``length`` on are server
    sets (pre-vote's ``fetched``)."""

    def __init__(self, n: int, reconfig: bool = False, fetch_bound: bool = False) -> None:
        self.n = n
        self.servers = tuple(range(n))
        self.base = tuple(i * BLOCK for i in range(n))
        self.g = n * BLOCK
        self.length = self.g + len(GLOBAL_FIELDS)
        self.reconfigs = self.length if reconfig else None
        if reconfig:
            self.length += len(RECONFIG_GLOBAL_FIELDS)
        self.fetches = self.length if fetch_bound else None
        if fetch_bound:
            self.length += len(FETCH_GLOBAL_FIELDS)
        self.all_mask = (1 << n) - 1
        self.members = tuple(tuple(i for i in range(n) if mask >> i & 1) for mask in range(1 << n))
        self.size = tuple(len(m) for m in self.members)

    def ids(self, mask: int) -> list[int]:
        """A server set as the user's server ids (1..n)."""
        return [i + 1 for i in self.members[mask]]
