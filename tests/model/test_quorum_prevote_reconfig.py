"""KIP-996's pre-vote together with KIP-853's dynamic voters (``--pre-vote --max-reconfigs``), as
kafka-tlaplus ``kraft/kip_996`` holds them together: only a voter times out and stands, it asks
the members of its own voter set, counts a majority of that set, and an observer ignores pre-vote
responses; the initial followers have fetched. A complete run at the two-majorities pitfall's bounds
with two fetches keeps every invariant and the disruption properties."""

from __future__ import annotations

from isrcheck.explorer.cli.main import main
from isrcheck.explorer.registry import build_model

import isrcheck

SAFETY = ["NoIllegalState", "NoLogDivergence", "NeverTwoLeadersInSameEpoch", "LeaderHasAllAckedValues",
          "AckedValueNotLost", "StatesMatchRoles", "LeaderNotDisrupted", "MajorityLeaderNotDisrupted"]


def quorum(**options):
    return build_model("quorum", options)


def step(model, state, prefix):
    matches = [(a, t) for a, t in model.successors(state) if repr(a).startswith(prefix)]
    assert len(matches) == 1, (prefix, [repr(a) for a, _ in model.successors(state)])
    return matches[0][1]


def test_only_voters_time_out_and_they_ask_their_own_voter_set():
    model = quorum(voters=3, joining=1, values=0, max_elections=1, max_reconfigs=1, pre_vote=True)
    init = model.init_states()[0]
    assert model.state_view(init)["fetched"] == [2, 3]  # the initial followers; the joining server has not
    timeouts = sorted(repr(a) for a, _ in model.successors(init) if "Timeout" in a.name)
    assert timeouts == ["VoterFetchTimeout(2, epoch=1)", "VoterFetchTimeout(3, epoch=1)"]  # not 4, an observer
    removed = step(model, init, "RemoveVoter(1, epoch=1, remove 3")  # the leader uses voters {1,2} at once
    asked = step(model, removed, "VoterFetchTimeout(3")  # 3 has not fetched its removal: it asks {1,2,3}
    view = model.state_view(asked)["messages"]
    assert [k for k in view if "pre-vote" in k and "3->" in k] == [
        "RequestVoteRequest (pre-vote) 3->1 epoch 1 lastLog (offset 1, epoch 1)",
        "RequestVoteRequest (pre-vote) 3->2 epoch 1 lastLog (offset 1, epoch 1)"]
    two = step(model, removed, "VoterFetchTimeout(2")
    assert [k for k in model.state_view(two)["messages"] if "pre-vote" in k] == [
        "RequestVoteRequest (pre-vote) 2->1 epoch 1 lastLog (offset 1, epoch 1)",
        "RequestVoteRequest (pre-vote) 2->3 epoch 1 lastLog (offset 1, epoch 1)"]


def test_a_voter_that_fetched_the_new_voter_set_asks_only_its_members():
    model = quorum(voters=3, values=0, max_elections=1, max_reconfigs=1, pre_vote=True)
    s = model.init_states()[0]
    for prefix in ("RemoveVoter(1, epoch=1, remove 3", "SendFetchRequest(2 <- 1", "AcceptFetchRequest(1 <- 2",
                   "HandleSuccessFetchResponse(2 <- 1"):
        s = step(model, s, prefix)
    assert model.state_view(s)["config.2"]["voters"] == [1, 2]
    s = step(model, s, "VoterFetchTimeout(2")  # one pre-vote request, to 1: server 3 is no longer asked
    assert [k for k in model.state_view(s)["messages"] if "pre-vote" in k] == [
        "RequestVoteRequest (pre-vote) 2->1 epoch 1 lastLog (offset 2, epoch 1)"]
    # its own pre-vote is one of two, not a majority of {1,2}: no election follows
    assert not [a for a, _ in model.successors(s) if a.name == "ConcludePreVote" and "majority:" in a.detail]


def test_the_composition_holds_at_the_pitfalls_bounds_with_two_fetches():
    model = quorum(max_reconfigs=1, pre_vote=True, max_fetches=2)
    result = isrcheck.check(model, properties=SAFETY, workers=1)
    assert result.complete and result.ok and result.distinct_states == 10_996 and result.depth == 15
    # without pre-vote the same bounds let a timeout depose the leader every other server follows
    plain = isrcheck.check(quorum(max_reconfigs=1, max_fetches=2), properties=["LeaderNotDisrupted"], workers=1)
    assert len(plain.violations[0].trace) == 2


def test_init_leader_with_reconfigurations_is_refused_with_the_reason(capsys):
    assert main(["check", "quorum", "--max-reconfigs", "1", "--init-leader"]) == 2
    assert "already leads epoch 1; drop --init-leader" in capsys.readouterr().err
