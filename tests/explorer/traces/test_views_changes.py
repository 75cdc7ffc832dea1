"""A trace's diff names the fields that moved, and nothing that did not (explorer/traces/views.py)."""

from isrcheck.explorer.traces.views import changes


def test_an_empty_record_that_gains_entries_shows_only_the_entries():
    before = {"messages": {}, "ctr": 0}
    after = {"messages": {"Vote 1->2": 1}, "ctr": 1}
    assert changes(before, after) == [("messages.Vote 1->2", None, 1), ("ctr", 0, 1)]
    # and back: the entries leave, the record is empty again
    assert changes(after, before) == [("ctr", 1, 0), ("messages.Vote 1->2", 1, None)]


def test_a_field_that_really_disappears_is_still_shown():
    assert changes({"a": {}, "b": 1}, {"b": 1}) == [("a", {}, None)]
    assert changes({"a": 3}, {"a": {"x": 1}}) == [("a.x", None, 1), ("a", 3, None)]
