"""The data-only encoding of a checkpoint's states (plain.py): every plain value round-trips, and
anything else (code objects, references, truncated or padded streams, deep nesting) is refused
before marshal reads it."""

from __future__ import annotations

import marshal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from isrcheck.explorer.search.spark.plain import MAX_DEPTH, NotPlain, check_plain, decode_plain, encode_plain

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.binary(max_size=20) | \
    st.floats(allow_nan=False)
values = st.recursive(scalars, lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=4) |
                      st.frozensets(st.integers() | st.text(max_size=5), max_size=4), max_leaves=30)


@given(st.lists(values, max_size=10))
def test_plain_values_round_trip(states):
    data = encode_plain(states)
    assert data is not None
    assert decode_plain(data) == states


@pytest.mark.parametrize("data, why", [
    (marshal.dumps([compile("1", "x", "eval")], 2), "not a plain value"),
    (marshal.dumps([(1, 2)], 4), "not a plain value"),  # version 4: references and short codes
    (marshal.dumps([1, 2], 2)[:-2], "ends inside"),
    (marshal.dumps([1, 2], 2) + b"N", "bytes after"),
    (b"[" + (2 ** 31 - 1).to_bytes(4, "little"), "items in"),
    (marshal.dumps(5, 2), "is a list"),
    (b"", "ends inside"),
])
def test_anything_else_is_refused(data, why):
    with pytest.raises(NotPlain, match=why):
        decode_plain(data)


def test_nesting_is_bounded():
    deep = ()
    for _ in range(MAX_DEPTH + 5):
        deep = (deep,)
    with pytest.raises(NotPlain, match="nested"):
        check_plain(marshal.dumps([deep], 2))


def test_values_marshal_writes_but_plain_does_not_are_not_encoded():
    assert encode_plain([compile("1", "x", "eval")]) is None
    assert encode_plain([...]) is None
    assert encode_plain([1j]) is None


@pytest.mark.parametrize("digits", [b"\xff\xff", b"\x00\x00"])  # a digit out of range; an unnormalised top
def test_a_forged_long_integer_is_a_value_error_not_a_crash(digits):
    data = b"[" + (1).to_bytes(4, "little") + b"l" + (1).to_bytes(4, "little", signed=True) + digits
    with pytest.raises(ValueError):
        decode_plain(data)
