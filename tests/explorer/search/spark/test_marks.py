"""The state properties marked on candidates during the expansion (``steps.expand`` with
``checks``) give the merge exactly the report that evaluating them on the unpacked new states
gives (``steps.check_new``): same new states, same parent records, same smallest fingerprint per
property, level after level. No Spark: the executors' steps run in process on two partitions."""

from __future__ import annotations

import pytest
from isrcheck.explorer.search.spark import steps
from isrcheck.explorer.search.spark.blocks import decode_states, encode_states
from isrcheck.explorer.search.spark.level import Context
from isrcheck.explorer.search.spark.tasks import split_fps
from isrcheck.explorer.selection import select_properties
from isrcheck.model import make_model

np = pytest.importorskip("numpy")
PARTITIONS = 2


def _levels(ctx: Context, marked: bool, max_levels: int = 40) -> list[tuple]:
    """Every level's (report's new/always/sometimes, parent records, new states) of a BFS run with
    the executors' steps; ``marked``: properties marked in the expansion."""
    always = frozenset(p.name for p in ctx.props.always)
    pending = {p.name for p in ctx.props.sometimes}
    cands, _ = steps.initial_candidates(ctx)
    best, _ = steps.dedup(ctx, set(), cands, always, frozenset(pending))
    visited = {j: b"" for j in range(PARTITIONS)}
    frontier: dict[int, list] = {}
    for fp, v in best.items():
        frontier.setdefault(steps.part_of(fp, PARTITIONS), []).append((fp, v[2]))
    for j, items in frontier.items():
        visited[j] = b"".join(sorted(fp for fp, _ in items))
    blocks = {j: (b"".join(fp for fp, _ in items), encode_states([p for _, p in items]))
              for j, items in frontier.items()}
    out = []
    for _ in range(max_levels):
        if not blocks:
            break
        sometimes = frozenset(pending)
        checks = steps.state_checks(ctx, always, sometimes)
        checks = checks if marked and steps.marks_in_expand(ctx, checks) else None
        moving: dict[int, list] = {}
        for j in sorted(blocks):
            fps, states = blocks[j]
            found, _ = steps.expand(ctx, split_fps(fps), decode_states(states), frozenset(), None, 0, checks)
            for k, blk in steps.split(ctx, found, PARTITIONS).items():
                moving.setdefault(k, []).append(blk)
        blocks, level = {}, []
        for j in range(PARTITIONS):
            visited[j], parents, states, rep = steps.merge(ctx, visited[j], moving.get(j, []), always, sometimes)
            level.append((rep["new"], rep["always"], rep["sometimes"], parents, states))
            pending -= set(rep["sometimes"])
            if states:
                blocks[j] = (parents[0], encode_states(states))
        out.append(level)
    return out


@pytest.mark.parametrize("generation, props", [
    ("kip320", None),  # the default properties: three invariants that hold, four sometimes
    ("truncate-to-hw", ["WeakIsr", "StrongIsr", "RecordCommitted"]),  # invariants violated
])
def test_marks_give_the_merge_the_same_report(generation: str, props: list[str] | None) -> None:
    model = make_model(generation=generation, replicas=2, log_size=2, max_records=2, max_leader_epoch=2)
    ctx = Context(model, select_properties(model, props), False, False)
    assert steps.marks_in_expand(ctx, steps.state_checks(ctx, frozenset(["WeakIsr"]), frozenset()))
    marked, plain = _levels(ctx, True), _levels(ctx, False)
    assert len(marked) > 5
    assert marked == plain
    if props is not None:  # the violated invariants were found, by both, in the same states
        assert any(part[1] for level in marked for part in level)


def test_marks_are_made_only_where_the_model_packs() -> None:
    from tests.fixtures.models import Counters

    model = Counters(2, 3)
    ctx = Context(model, select_properties(model, None), False, False)
    checks = steps.state_checks(ctx, frozenset(p.name for p in ctx.props.always), frozenset())
    assert not steps.marks_in_expand(ctx, checks)  # unpacking is free there: the merge checks


def test_best_first_orders_as_a_three_key_sort() -> None:
    """``steps.best_first`` (a stable sort, then the repeated fingerprints on all three keys)
    orders candidates as ``lexsort`` on (fingerprint, parent, action) does."""
    rng = np.random.default_rng(7)
    for n in (0, 1, 50, 2000):
        fps = np.frombuffer(rng.integers(0, 40, n * 16, dtype=np.uint8).tobytes(), dtype="S16")
        fps = fps[rng.integers(0, max(n // 3, 1), n)] if n else fps  # many repeated fingerprints
        parents = np.frombuffer(rng.integers(0, 3, n * 16, dtype=np.uint8).tobytes(), dtype="S16")
        actions = rng.integers(0, 4, n).astype("<u4")
        order, ordered = steps.best_first(fps, parents, actions)
        want = np.lexsort((actions, parents, fps))
        keys = list(zip(fps.tolist(), parents.tolist(), actions.tolist(), strict=True))
        assert [keys[i] for i in order] == [keys[i] for i in want]
        assert ordered.tolist() == fps[want].tolist()
