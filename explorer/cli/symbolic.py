"""The symbolic commands of ``isrcheck`` (registered in ``isrcheck.explorer.cli.main.COMMANDS``).

    isrcheck bmc MODEL [model options] --depth K [--invariant NAME] [--trace-json P] [--regression P] [--json]
                 [--lemma NAME] [--lemma-set NAME] [--lemmas FILE.py] [--houdini]
    isrcheck prove MODEL [model options] [--invariant NAME] [--lemma NAME] [--lemma-set NAME] [--lemmas FILE.py]
                   [--houdini] [--k N] [--bounded] [--json]

Exit status: 0 no violation within the depth (with lemmas, also: at any length, every target inductive)
/ proved; 1 a violation (for ``prove``: a target false in an initial state, or in a run shorter than k,
k-induction's base case); 2 bad input (for ``bmc``: a lemma named that is not proved, without
--houdini; a ``--lemmas`` file that fails to load, or whose lemma raises or returns no formula);
4 the symbolic encoding disagrees with the explicit model; 5 the solver stopped without
an answer (time limit, unknown); 8 not proved: a counterexample to induction, whose first state may be unreachable (so
not a violation); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from isrcheck.explorer.cli.lemma_options import add_lemma_options, chosen_lemmas
from isrcheck.explorer.cli.main import _Parser, _progress, parse_model_command, positive_float
from isrcheck.explorer.cli.written import OutputFiles
from isrcheck.explorer.errors import (
    EXIT_INTERRUPTED,
    EXIT_LIMIT,
    EXIT_MODEL,
    EXIT_NOT_PROVED,
    EXIT_OK,
    EXIT_VIOLATION,
    UserError,
)
from isrcheck.explorer.outputs import check_output_path

EXIT_ENCODING, EXIT_UNKNOWN = EXIT_MODEL, EXIT_LIMIT  # the symbolic encoding disagrees; no answer in time
# Spark tasks per executor core for a batch of proof queries: one task per query cost about 20 ms
# of scheduling each (most queries take 10-150 ms); a few tasks per core keep the cores busy when
# one query is much longer than the rest.
SLICES_PER_CORE = 4


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="a registered model name or path/to/file.py[:make_model]")
    p.add_argument("-h", "--help", action="store_true", help="show this help (and MODEL's options) and exit")
    p.add_argument("--invariant", "--property", dest="properties", action="append", metavar="NAME",
                   help="check only this invariant (repeatable; default: the model's default invariants "
                        "that have a symbolic encoding)")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                   help="time limit of each solver call (exit 5 when hit)")
    p.add_argument("--full", action="store_true", help="print whole states in traces, not only what changed")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout")
    p.add_argument("--progress-interval", type=positive_float, metavar="SECONDS", help="seconds between progress lines")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def _violation_json(model: Any, v: Any, meta: dict[str, Any]) -> dict[str, Any]:
    from isrcheck.explorer.traces.itf import trace_to_itf

    return {"property": v.property, "kind": v.kind, "detail": v.detail, "length": len(v.trace),
            "trace": trace_to_itf(model, v.trace, {**meta, "property": v.property, "kind": v.kind})}


def cmd_bmc(argv: list[str]) -> int:
    from isrcheck.explorer.cli.prove_bounded import list_lemmas
    from isrcheck.explorer.symbolic.bmc import bmc
    from isrcheck.explorer.symbolic.bmc_lemmas import bmc_with_lemmas
    from isrcheck.explorer.symbolic.contract import symbolic_model
    from isrcheck.explorer.symbolic.result import EncodingError
    from isrcheck.explorer.traces.itf import trace_to_itf
    from isrcheck.explorer.traces.regression import init_index_of, regression_source
    from isrcheck.explorer.traces.text import render_violation

    p = _Parser(prog="isrcheck bmc", add_help=False,
                description="Bounded model checking with z3: is there a violation in a trace of at most "
                            "--depth states? Shortest traces first; every trace is replayed through the model.")
    _common(p)
    p.add_argument("--max-depth", "--depth", dest="depth", type=int, metavar="K",
                   help="longest trace to consider, in states (the initial state is 1, as check's --max-depth); "
                        "--depth is the same option (required, except with --list-lemmas)")
    p.add_argument("--trace-json", metavar="PATH", help="write the counterexample as an ITF JSON trace")
    p.add_argument("--regression", metavar="PATH", help="write the counterexample as a pytest regression")
    p.add_argument("--incremental", action="store_true",
                   help="one incremental solver for every length (default: a fresh, preprocessed one per length)")
    p.add_argument("--no-symmetry", action="store_true",
                   help="do not break the symmetry of interchangeable replicas (for comparisons)")
    p.add_argument("--no-por", action="store_true",
                   help="do not order adjacent independent steps (partial-order reduction; for comparisons)")
    add_lemma_options(p, "assert the lemmas that are inductive together (Houdini) instead of refusing the run when "
                         "one named is not; starts from every built-in lemma unless --lemma or --lemma-set names some")
    args, options, model = parse_model_command(p, argv)
    for path, what in ((args.trace_json, "--trace-json"), (args.regression, "--regression")):
        if path:
            check_output_path(path, what)  # before the solver runs: a found trace must not be lost
    if args.depth is None and not args.list_lemmas:
        raise UserError("--depth K is required: the longest trace to consider, in states (e.g. --depth 10)")
    if args.depth is not None and args.depth < 1:
        raise UserError(f"--depth must be at least 1 (a trace of the initial state alone), not {args.depth}")
    sym = symbolic_model(args.model, model)
    if args.list_lemmas:
        print(list_lemmas(sym, dict(getattr(sym, "lemmas", dict)())))
        return EXIT_OK
    lemmas = chosen_lemmas(args, sym)
    options_bmc = {"symmetry": not args.no_symmetry, "incremental": args.incremental, "por": not args.no_por}
    try:
        if lemmas or args.houdini:
            result = bmc_with_lemmas(sym, lemmas, depth=args.depth, houdini=args.houdini, properties=args.properties,
                                     timeout=args.timeout, progress=_progress(args), **options_bmc)
        else:
            result = bmc(sym, depth=args.depth, properties=args.properties, timeout=args.timeout,
                         progress=_progress(args), **options_bmc)
    except EncodingError as exc:
        print(f"isrcheck bmc: the symbolic encoding disagrees with the explicit model: {exc}")
        return EXIT_ENCODING
    meta = {"model": args.model, "options": options}
    outputs = OutputFiles()  # every output through one mechanism: a full disk is reported, the verdict stands
    if result.violations:
        v = result.violations[0]
        if args.trace_json:
            outputs.write(args.trace_json, json.dumps(trace_to_itf(model, v.trace, {
                **meta, "property": v.property, "kind": v.kind, "detail": v.detail, "engine": "bmc"}),
                indent=1) + "\n", "--trace-json")
        if args.regression:
            outputs.write(args.regression, regression_source(
                args.model, options, v, init_index_of(model, v), relative_to=str(Path(args.regression).parent)),
                "--regression")
    if args.json:
        print(json.dumps({"schema_version": 1, **meta, "engine": "bmc", "verdict": result.verdict,
                          "depth": result.depth, "properties": result.properties, "elapsed": round(result.elapsed, 3),
                          "reason": result.reason, "solver_seconds": result.stats.get("solver_seconds", []),
                          "cpu_seconds": result.stats.get("cpu_seconds", []),
                          "sat_conflicts": result.stats.get("sat_conflicts", []),
                          **_lemma_json(result.stats),
                          "violations": [_violation_json(model, v, meta) for v in result.violations]}, indent=1))
    else:
        for v in result.violations:
            print(render_violation(model, v, full=args.full))
            print()
        print(_bmc_summary(result, args.depth))
    outputs.report(to_stderr=args.json, command="isrcheck bmc")
    return _status(result.verdict)


def _lemma_json(stats: dict[str, Any]) -> dict[str, Any]:
    """The lemma fields of ``bmc --json`` (empty lists and false without lemmas)."""
    return {"lemmas": stats.get("lemmas", []), "lemmas_not_proved": stats.get("lemmas_not_proved", {}),
            "inductive": stats.get("inductive", []), "any_length": stats.get("any_length", False),
            "lemma_seconds": stats.get("lemma_seconds"), "target_seconds": stats.get("target_seconds"),
            "lemma_cpu_seconds": stats.get("lemma_cpu_seconds")}


def _bmc_summary(result: Any, depth: int) -> str:
    inductive = result.stats.get("inductive", [])
    n = len(result.stats.get("lemmas", []))
    with_lemmas = f"with {n} proved lemma{'' if n == 1 else 's'} at these bounds"
    if result.stats.get("any_length"):
        head = (f"BMC: no violation at any length: {', '.join(inductive)} "
                f"{'is' if len(inductive) == 1 else 'are'} inductive {with_lemmas} (every reachable state of "
                "this configuration; other bounds are not covered), so no length needs unrolling.")
        return f"{head}\n{result.elapsed:.2f} s (z3, bounded by the model's options)."
    props = ", ".join(p for p in result.properties if p not in inductive)
    if result.verdict == "violation":
        head = (f"BMC: {result.violations[0].property} violated in a trace of {result.depth} states; no trace of "
                f"fewer states violates {props} (each shorter length was refuted), and the trace replays "
                "through the explicit model.")
    elif result.verdict == "no violation":
        head = f"BMC: no violation of {props} in any trace of up to {depth} states (bounded: not a proof)."
    elif result.verdict == "unknown":
        head = f"BMC: unknown: {result.reason}." + (
            f" Traces of up to {result.depth} states have no violation." if result.depth else "")
    elif result.stats.get("lemma_unanswered"):  # before the first length: the reason says where
        head = f"BMC: {result.reason}."
    else:
        head = f"BMC: interrupted; traces of up to {result.depth} states have no violation."
    if "lemmas" in result.stats and not result.stats.get("lemma_unanswered"):  # else the reason names the lemma
        head += (f" With {n} proved lemma{'' if n == 1 else 's'} asserted in every state; "
                 + (f"proved at any length (inductive {with_lemmas}): "
                    f"{', '.join(inductive)}." if inductive else f"no target is inductive {with_lemmas}."))
        not_proved = result.stats.get("lemmas_not_proved") or {}
        if not_proved:
            dropped = "; ".join(f"{k}: {v}" for k, v in not_proved.items())
            head += f" Not asserted (--houdini dropped them): {dropped}."
    return f"{head}\n{result.elapsed:.2f} s (z3, bounded by the model's options)."


def _status(verdict: str) -> int:
    # A CTI is not a violation (its first state may be unreachable): its own status, never 1.
    return {"violation": EXIT_VIOLATION, "counterexample to induction": EXIT_NOT_PROVED, "no violation": EXIT_OK,
            "proved": EXIT_OK, "unknown": EXIT_UNKNOWN, "interrupted": EXIT_INTERRUPTED}[verdict]


def cmd_prove(argv: list[str]) -> int:
    from isrcheck.explorer.cli.prove_bounded import list_lemmas
    from isrcheck.explorer.symbolic.bounded_induction import prove_bounded
    from isrcheck.explorer.symbolic.contract import symbolic_model
    from isrcheck.explorer.symbolic.induction import prove
    from isrcheck.explorer.symbolic.result import EncodingError

    p = _Parser(prog="isrcheck prove", add_help=False,
                description="Prove invariants by induction with z3, with unbounded logs, record ids and "
                            "leader epochs (the number of replicas stays fixed).")
    _common(p)
    add_lemma_options(p, "drop lemmas that are not inductive relative to the rest, to a fixed point; starts "
                         "from every built-in lemma (and yours) unless --lemma or --lemma-set names some")
    p.add_argument("--k", type=int, default=1, metavar="N", help="k-induction: assume the invariant on N steps")
    p.add_argument("--bounded", action="store_true",
                   help="induction over the bounded encoding (the relation bmc unrolls, at the model options' "
                        "bounds): proves the invariants in every reachable state of this configuration at any "
                        "trace length, not for other bounds; much faster than the unbounded proof")
    p.add_argument("--engine", choices=["local", "spark"], default="local",
                   help="local: every solver query in this process (default); spark: the independent queries "
                        "(each conjunct, part and step; Houdini's rounds) on Spark executors, with the same result")
    p.add_argument("--master", help="Spark master URL for --engine spark (default local[*])")
    args, options, model = parse_model_command(p, argv)
    if args.k < 1:
        raise UserError(f"--k must be at least 1 (plain induction), not {args.k}")
    if args.master is not None and args.engine != "spark":
        raise UserError("--master applies to --engine spark only")
    sym = symbolic_model(args.model, model, unbounded=not args.bounded)
    if args.list_lemmas:
        print(list_lemmas(sym, dict(getattr(sym, "lemmas", dict)())))
        return EXIT_OK
    lemmas = chosen_lemmas(args, sym)
    try:
        if args.engine == "spark":
            from isrcheck.explorer.symbolic.distributed import ProofSetup, prove_distributed

            lemma_file = (args.lemmas, Path(args.lemmas).read_text()) if args.lemmas else None
            ask_many = spark_asker(args.master, model, ProofSetup(args.model, args.k, args.timeout, lemma_file,
                                                                  args.bounded))
            result = prove_distributed(sym, ask_many=ask_many, properties=args.properties, lemmas=lemmas,
                                       houdini=args.houdini, k=args.k, timeout=args.timeout,
                                       progress=_progress(args))
        elif args.bounded:
            result = prove_bounded(sym, properties=args.properties, lemmas=lemmas, houdini=args.houdini, k=args.k,
                                   timeout=args.timeout, progress=_progress(args))
        else:
            result = prove(sym, properties=args.properties, lemmas=lemmas, houdini=args.houdini, k=args.k,
                           timeout=args.timeout, progress=_progress(args))
    except EncodingError as exc:
        print(f"isrcheck prove: the symbolic encoding disagrees with the explicit model: {exc}")
        return EXIT_ENCODING
    meta = {"model": args.model, "options": options}
    if args.json:
        from isrcheck.explorer.traces.itf import trace_to_itf

        cti = result.cti
        explicit = result.stats.get("explicit")
        print(json.dumps({"schema_version": 1, **meta, "engine": "prove", "verdict": result.verdict,
                          "properties": result.properties,
                          "lemmas": result.lemmas, "dropped": result.stats.get("dropped", []),
                          "false_initially": result.stats.get("false_initially", []), "k": args.k,
                          "encoding": "bounded" if args.bounded else "unbounded",
                          "reason": result.reason, "elapsed": round(result.elapsed, 3),
                          "cti": None if cti is None else {
                              "conjunct": cti.property,
                              "trace": trace_to_itf(explicit, cti.trace, {**meta, "cti": cti.property})}},
                         indent=1))
    else:
        print(_prove_report(result, args))
    return _status(result.verdict)


def spark_asker(master: str | None, model: Any, setup: Any) -> Any:
    """``ask_many`` for ``prove_distributed``: each query a Spark task, answered on an executor by
    ``isrcheck.explorer.symbolic.distributed.answer_query`` with the model shipped as the
    breadth-first engine ships it (a user's model file included)."""
    from functools import partial

    from isrcheck.explorer.search.spark.items import executor_error, map_on_executors
    from isrcheck.explorer.search.spark.session import get_session, make_payload
    from isrcheck.explorer.symbolic.distributed import answer_query

    fn = partial(answer_query, setup)
    started: list[tuple[Any, tuple]] = []  # Spark starts at the first query: bad input is refused before

    def ask_many(queries: list[Any]) -> list[Any]:
        if not started:
            spark, _ = get_session(master)
            started.append((spark.sparkContext, make_payload(spark.sparkContext, model, None, False, False)))
        sc, payload = started[0]
        try:
            return map_on_executors(sc, payload, fn, queries, slices=SLICES_PER_CORE * sc.defaultParallelism)
        except Exception as exc:
            mapped = executor_error(exc)
            if mapped is None:
                raise
            raise mapped from None

    return ask_many


def _prove_report(result: Any, args: argparse.Namespace) -> str:
    from isrcheck.explorer.cli.prove_bounded import bounded_verdict
    from isrcheck.explorer.traces.text import render_trace

    props = ", ".join(result.properties)
    lemmas = ", ".join(result.lemmas) or "none"
    lines = []
    if result.verdict == "proved" and args.bounded:
        lines.append(bounded_verdict(result, args.k))
    elif result.verdict == "proved":
        lines.append(f"Proved: {props} hold(s) in every reachable state, for any log length, record ids and "
                     f"leader epochs ({'induction' if args.k == 1 else f'{args.k}-induction'}; lemmas: {lemmas}).")
    elif result.verdict == "counterexample to induction" and result.cti is not None:
        cti = result.cti
        lines.append(f"Counterexample to induction: {cti.property} breaks. In state 1 every conjunct holds "
                     f"({props}; lemmas: {lemmas}); the step leads to a state where {cti.property} fails.")
        text = render_trace(result.stats["explicit"], cti.trace, full=args.full)
        # State 1 of a CTI is any state where the conjuncts hold, not an initial state.
        lines.append(text.replace("State 1: initial state", "State 1: a state where every conjunct holds "
                                  "(not necessarily reachable)", 1))
        lines.append(f"=> {cti.property} fails here. Either state 1 is unreachable (add a lemma that excludes it) "
                     "or the property does not hold (check it with isrcheck bmc).")
        lines.append("Not proved, and not a violation (exit status 8).")
    elif result.verdict == "counterexample to induction":
        lines.append(f"Not inductive: {result.reason}.")
    elif result.verdict == "violation":
        lines.append(f"Violation: {result.reason}: a real trace, not a counterexample to induction "
                     f"(look for it with isrcheck bmc --depth {args.k}).")
    else:
        lines.append(f"{result.verdict.capitalize()}: {result.reason}.")  # unknown or interrupted
    false_initially = result.stats.get("false_initially") or []
    if false_initially:
        # initiation covers k-induction's base case: with k > 1 the lemma may hold initially and fail later
        where = "in an initial state" if args.k == 1 else f"in a run of at most {args.k} states (the base case)"
        lines.append(f"Dropped, false {where}: {', '.join(false_initially)}.")
    dropped = [name for name in result.stats.get("dropped") or [] if name not in false_initially]
    if dropped:
        lines.append(f"Houdini dropped (not inductive relative to the rest): {', '.join(dropped)}.")
    lines.append(f"{result.elapsed:.2f} s (z3, {'bounded' if args.bounded else 'unbounded'} encoding).")
    return "\n".join(lines)
