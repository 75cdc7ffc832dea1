"""Where the Python seconds of a distributed level go, measured in one process: the executors' own
steps (``isrcheck.explorer.search.spark.steps``) run level by level on P partitions exactly as the
tasks run them, without Spark, each part timed in CPU seconds (what a shared machine disturbs
least). What Spark adds (the JVM, sockets to the Python workers, the shuffle, the disk store) is
the difference between these figures and ``bench_spark.py``'s. Prints figures; asserts only that
the run's counts are the local engine's.

    python bench/bench_spark_parts.py                              # KIP-320 3/2/2/2, 2 partitions
    python bench/bench_spark_parts.py --spec kip320:3:2:2:3 --levels 20

Parts, per level: decode (the frontier's blocks read), unpack, successors (the model's, on the
unpacked states), pack + dedup (the rest of ``expand``: pack every successor, keep the best parent
per packed state), fingerprint (BLAKE2b-128 of each distinct candidate), split (the rest of
``split``: one block per destination), pickle (the candidate records as PySpark pickles them for
the shuffle, both ways), merge (sort, membership, the new array; properties apart), properties
(``check_new``: unpack each new state, evaluate the invariants and pending ``sometimes``), encode
(the new states' block).

    python bench/bench_spark_parts.py --compiled                   # the tasks' C map side (spark/fast.py)

With ``--compiled`` the map side is ``spark/fast.py``'s, as the tasks run it where it applies:
"expand (C)" is unpack, successors, pack and dedup in one C loop, "fingerprint + split (C)" the
rest; the other parts are the same code as without it.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PYTHON_PARTS = ("decode", "unpack", "successors", "pack + dedup", "fingerprint", "split", "pickle", "merge",
                "properties", "encode")
C_PARTS = ("decode", "expand (C)", "fingerprint + split (C)", "pickle", "merge", "properties", "encode")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spec", default="kip320:3:2:2:2", help="generation:replicas:log_size:max_records:max_leader_epoch")
    p.add_argument("--partitions", type=int, default=2)
    p.add_argument("--levels", type=int, default=1000, help="stop after this many levels")
    p.add_argument("--compiled", action="store_true", help="the map side in C (spark/fast.py)")
    args = p.parse_args()

    from isrcheck.explorer.search.spark import fast, steps
    from isrcheck.explorer.search.spark.blocks import decode_states, encode_states
    from isrcheck.explorer.search.spark.level import Context
    from isrcheck.explorer.search.spark.tasks import split_fps
    from isrcheck.explorer.selection import select_properties
    from isrcheck.model import make_model

    g, r, ls, mr, me = args.spec.split(":")
    model = make_model(generation=g, replicas=int(r), log_size=int(ls), max_records=int(mr), max_leader_epoch=int(me))
    props = select_properties(model, None)
    ctx = Context(model, props, False, False)
    if args.compiled and not fast.applies(ctx, frozenset()):
        raise SystemExit("--compiled: the C map side does not apply here (no extension, or the model does not pack)")
    names = C_PARTS if args.compiled else PYTHON_PARTS
    parts = args.partitions
    clock = time.process_time
    always = frozenset(p.name for p in props.always)
    pending = {p.name for p in props.sometimes}

    cands, _ = steps.initial_candidates(ctx)
    best, _ = steps.dedup(ctx, set(), cands, always, frozenset(pending))
    distinct, generated, depth = len(best), len(cands), 1
    visited = {j: b"" for j in range(parts)}
    grouped: dict[int, list] = defaultdict(list)
    for fp, v in best.items():
        grouped[steps.part_of(fp, parts)].append((fp, v[2]))
    for j, items in grouped.items():
        visited[j] = b"".join(sorted(fp for fp, _ in items))
    frontier = {j: (b"".join(fp for fp, _ in items), encode_states([q for _, q in items]))
                for j, items in grouped.items()}
    rows, total = [], defaultdict(float)
    while frontier and depth < args.levels:
        sometimes = frozenset(pending)
        t: dict[str, float] = defaultdict(float)
        moving: dict[int, list] = defaultdict(list)
        size = 0
        for j in sorted(frontier):
            fps, blob = frontier[j]
            c0 = clock()
            packed = decode_states(blob)
            c1 = clock()
            if args.compiled:
                cands = fast.Candidates()
                rep = fast.expand(ctx, fps, packed, cands)
                c2 = clock()
                blocks = fast.split(ctx, cands, parts)
                c3 = clock()
                pickle.loads(pickle.dumps(list(blocks.items()), protocol=5))
                c4 = clock()
                t["decode"] += c1 - c0
                t["expand (C)"] += c2 - c1
                t["fingerprint + split (C)"] += c3 - c2
                t["pickle"] += c4 - c3
                generated += rep["generated"]
                size += len(packed)
                for k, blk in blocks.items():
                    moving[k].append(blk)
                continue
            found, rep = steps.expand(ctx, split_fps(fps), packed, frozenset())
            c2 = clock()
            states = [ctx.unpack(q) for q in packed]  # the parts of expand, timed apart
            c3 = clock()
            for s in states:
                list(model.successors(s))
            c4 = clock()
            ctx.keys(list(found))
            c5 = clock()
            blocks = steps.split(ctx, found, parts)
            c6 = clock()
            pickle.loads(pickle.dumps(list(blocks.items()), protocol=5))
            c7 = clock()
            t["decode"] += c1 - c0
            t["unpack"] += c3 - c2
            t["successors"] += c4 - c3
            t["pack + dedup"] += (c2 - c1) - (c4 - c2)
            t["fingerprint"] += c5 - c4
            t["split"] += (c6 - c5) - (c5 - c4)
            t["pickle"] += c7 - c6
            generated += rep["generated"]
            size += len(packed)
            for k, blk in blocks.items():
                moving[k].append(blk)
        frontier, new = {}, 0
        for j in range(parts):
            c0 = clock()
            visited[j], parents, states, rep = steps.merge(ctx, visited[j], moving.get(j, []), always, sometimes)
            c1 = clock()
            steps.check_new(ctx, parents[0], states, always, sometimes, steps.new_report())
            c2 = clock()
            blob = encode_states(states)
            c3 = clock()
            t["merge"] += (c1 - c0) - (c2 - c1)
            t["properties"] += c2 - c1
            t["encode"] += c3 - c2
            pending -= set(rep["sometimes"])
            new += len(states)
            if states:
                frontier[j] = (parents[0], blob)
        depth += 1 if new else 0
        distinct += new
        rows.append((depth, size, new, dict(t)))
        for k, v in t.items():
            total[k] += v

    from isrcheck import check

    local = check(model, stop_at_first=False, workers=1)
    assert (distinct, generated, depth) == (local.distinct_states, local.generated_states, local.depth), (
        "the in-process levels disagree with the local engine")
    print(f"{args.spec}: {distinct:,} states, {depth} levels, {parts} partitions; CPU seconds per part "
          f"(us per new state in brackets)")
    top = max(new for _, _, new, _ in rows)
    print("level  frontier       new  " + "  ".join(f"{k:>12}" for k in names))
    for level, size, new, t in rows:
        if new >= top / 2:  # the widest levels
            print(f"{level:>5} {size:>9,} {new:>9,}  " + "  ".join(f"{t.get(k, 0):>12.3f}" for k in names))
    whole = sum(total.values())
    print("whole run: " + ", ".join(f"{k} {total[k]:.2f} s ({total[k] / distinct * 1e6:.2f} us, "
                                     f"{total[k] / whole:.0%})" for k in names))
    print(f"all parts {whole:.2f} s = {whole / distinct * 1e6:.2f} us a state", end="")
    if args.compiled:
        print()
    else:
        print(f"; the model's own share (unpack, successors, pack + dedup, properties) "
              f"{sum(total[k] for k in ('unpack', 'successors', 'pack + dedup', 'properties')) / whole:.0%}")


if __name__ == "__main__":
    main()
