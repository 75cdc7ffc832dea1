"""The ``isrcheck`` command line.

    isrcheck check MODEL [model options] [checker options]   explore a model, print traces
    isrcheck replay TRACE.json                               re-execute a recorded trace
    isrcheck models                                          registered models and their options
    isrcheck properties MODEL [model options]                a model's properties and which run by default
    isrcheck scenarios                                       the bug catalogue: named scenarios
    isrcheck scenario ID [--full] [--trace-json PATH]        run one and print its shortest trace

MODEL is a registered name (``classic``) or ``path/to/file.py[:factory]``. Model options come from
the factory's signature. Exit status: 0 no violation, 1 a violation (or a vacuous ``sometimes``
property), 2 bad input, 3 a replayed trace diverged from the model, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from explorer.cli_graph import add_graph_arguments, graph_check_options, report_graph
from explorer.errors import UserError

EXIT_OK, EXIT_VIOLATION, EXIT_USAGE, EXIT_DIVERGED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a UserError (one paragraph, exit 2) like every other."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{message} (see {self.prog} --help)")


def _check_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="isrcheck check", add_help=False,
                description="Explore every reachable state of MODEL and check its properties.")
    p.add_argument("model", help="a registered model name or path/to/file.py[:make_model]")
    p.add_argument("-h", "--help", action="store_true", help="show this help (and MODEL's options) and exit")
    p.add_argument("--engine", choices=["local", "spark"], default="local")
    p.add_argument("--max-depth", type=int, metavar="N", help="do not expand states at depth N (initial = 1)")
    p.add_argument("--symmetry", action="store_true", help="reduce by the model's canonical(state)")
    p.add_argument("--continue", dest="keep_going", action="store_true",
                   help="keep exploring after a violation; report the shortest violation of each property")
    p.add_argument("--deadlock", action="store_true", help="report states with no successor")
    p.add_argument("--invariant", "--property", dest="properties", action="append", metavar="NAME",
                   help="check only this property (repeatable; default: all of the model's)")
    p.add_argument("--store", choices=["exact", "fingerprint"], default="exact",
                   help="keep exact states (default) or 64-bit fingerprints with a collision estimate")
    p.add_argument("--full", action="store_true", help="print whole states in traces, not only what changed")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout")
    p.add_argument("--trace-json", metavar="PATH", help="write each counterexample as an ITF JSON trace")
    p.add_argument("--regression", metavar="PATH", help="write the first counterexample as a pytest regression")
    p.add_argument("--progress-interval", type=float, metavar="SECONDS", help="seconds between progress lines")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    add_graph_arguments(p)
    spark = p.add_argument_group("spark engine")
    spark.add_argument("--master", help="Spark master URL (default local[*])")
    spark.add_argument("--checkpoint", metavar="DIR", help="keep each completed level in DIR")
    spark.add_argument("--resume", action="store_true", help="continue the run checkpointed in --checkpoint DIR")
    spark.add_argument("--partitions", type=int, metavar="N", help="shuffle partitions of the visited set")
    spark.add_argument("--driver-threshold", type=int, metavar="N",
                       help="run levels in the driver while at most N states are stored (default 5000; 0: never)")
    spark.add_argument("--driver-memory", metavar="SIZE", help="spark.driver.memory for the session, e.g. 4g")
    return p


def _model_parser(spec: str, options: list[Any]) -> argparse.ArgumentParser:
    p = _Parser(prog=f"isrcheck check {spec}", add_help=False)
    group = p.add_argument_group(f"options of model {spec}")
    for opt in options:
        if opt.type is bool:
            group.add_argument(opt.flag, dest=opt.name, action=argparse.BooleanOptionalAction, default=opt.default)
        else:
            group.add_argument(opt.flag, dest=opt.name, type=opt.type, default=opt.default, choices=opt.choices,
                               help=f"default: {opt.default}")
    return p


def _parse_check(argv: list[str]) -> tuple[argparse.Namespace, dict[str, Any], Any]:
    from explorer.registry import load_factory, model_options

    parser = _check_parser()
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        raise SystemExit(EXIT_OK)
    args, rest = parser.parse_known_args(argv)
    factory = load_factory(args.model)
    mparser = _model_parser(args.model, model_options(factory))
    if args.help:
        parser.print_help()
        print()
        mparser.print_help()
        raise SystemExit(EXIT_OK)
    margs, unknown = mparser.parse_known_args(rest)
    if unknown:
        known = " ".join(o.flag for o in model_options(factory)) or "(none)"
        raise UserError(f"unrecognised argument(s) {' '.join(unknown)}; model {args.model!r} takes: {known}")
    options = vars(margs)
    try:
        model = factory(**options)
    except (ValueError, TypeError) as exc:
        raise UserError(f"model {args.model!r} refused its options: {exc}") from None
    return args, options, model


def _progress(args: argparse.Namespace) -> Any:
    from explorer.progress import Progress, Silent

    if args.quiet:
        return Silent()
    return Progress(interval=args.progress_interval)


def cmd_check(argv: list[str]) -> int:
    from explorer.check import check
    from explorer.itf import trace_to_itf, write_json
    from explorer.regression import init_index_of, regression_source
    from explorer.trace_text import render_summary, render_violation

    args, options, model = _parse_check(argv)
    if args.resume and not args.checkpoint:
        raise UserError("--resume needs --checkpoint DIR (the folder of the run to continue)")
    engine_options = {k: getattr(args, k) for k in ("master", "checkpoint", "partitions", "driver_threshold",
                                                     "driver_memory") if getattr(args, k) is not None}
    if args.resume:
        engine_options["resume"] = True
    if engine_options and args.engine != "spark":
        raise UserError(f"--{next(iter(engine_options)).replace('_', '-')} applies to --engine spark only")
    if args.engine == "spark" and args.store != "exact":
        raise UserError("--store applies to the local engine; the spark engine always keeps 128-bit fingerprints")
    result = check(model, engine=args.engine, max_depth=args.max_depth, stop_at_first=not args.keep_going,
                   symmetry=args.symmetry, check_deadlock=args.deadlock, properties=args.properties,
                   store=args.store, progress=_progress(args), **graph_check_options(args), **engine_options)
    meta = {"model": args.model, "options": options}

    written = []
    for i, violation in enumerate(result.violations):
        if args.trace_json:
            path = Path(args.trace_json)
            if i > 0 or len(result.violations) > 1:
                path = path.with_name(f"{path.name.split('.')[0]}-{violation.property}{''.join(path.suffixes)}")
            write_json(path, trace_to_itf(model, violation.trace, {
                **meta, "property": violation.property, "kind": violation.kind, "detail": violation.detail}))
            written.append(str(path))
    if args.regression and result.violations:
        v = result.violations[0]
        Path(args.regression).write_text(regression_source(args.model, options, v, init_index_of(model, v)))
        written.append(args.regression)

    if args.json:
        print(json.dumps(_json_summary(model, result, meta), indent=1))
    else:
        for violation in result.violations:
            print(render_violation(model, violation, full=args.full))
            print()
        print(render_summary(result))
        written += report_graph(model, result, args)
        for path in written:
            print(f"Wrote {path}")
    if result.violations or result.vacuous:
        return EXIT_VIOLATION
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def _json_summary(model: Any, result: Any, meta: dict[str, Any]) -> dict[str, Any]:
    from explorer.itf import trace_to_itf

    return {
        **meta,
        "ok": result.ok,
        "complete": result.complete,
        "interrupted": result.interrupted,
        "distinct_states": result.distinct_states,
        "generated_states": result.generated_states,
        "depth": result.depth,
        "elapsed": round(result.elapsed, 3),
        "states_per_second": round(result.states_per_second, 1),
        "engine": result.engine,
        "store": result.store,
        "collision_probability": result.collision_probability,
        "properties": result.properties,
        "vacuous": result.vacuous,
        "reached": list(result.examples),
        "violations": [
            {"property": v.property, "kind": v.kind, "detail": v.detail, "length": len(v.trace),
             "trace": trace_to_itf(model, v.trace, {**meta, "property": v.property, "kind": v.kind})}
            for v in result.violations
        ],
        "stats": {k: v for k, v in result.stats.items() if isinstance(v, int | float | str | bool | type(None))},
    }


def cmd_replay(argv: list[str]) -> int:
    from explorer.itf import read_itf
    from explorer.replay import Divergence, load_and_replay
    from explorer.trace_text import render_trace

    p = _Parser(prog="isrcheck replay", description="Re-execute an ITF trace written by isrcheck against its model.")
    p.add_argument("trace", help="the .itf.json file")
    p.add_argument("--full", action="store_true", help="print whole states")
    args = p.parse_args(argv)
    data = read_itf(args.trace)
    try:
        model, replayed = load_and_replay(data)
    except Divergence as exc:
        print(f"Replay diverged from the model at {exc}", file=sys.stderr)
        return EXIT_DIVERGED
    print(render_trace(model, replayed.trace, full=args.full))
    print(f"\nReplayed {len(replayed.trace)} states; every step matches the model.")
    if replayed.violated:
        for name, index, detail in replayed.violated:
            print(f"=> {name} fails at state {index}" + (f": {detail}" if detail else ""))
        return EXIT_VIOLATION
    print("No checked property fails along this trace.")
    return EXIT_OK


def cmd_models(argv: list[str]) -> int:
    from explorer.registry import load_factory, model_options, registered

    models = registered()
    if not models:
        print("No models registered (is isrcheck installed? pip install -e .)")
    for name, target in sorted(models.items()):
        print(f"{name}  ({target})")
        for opt in model_options(load_factory(name)):
            choices = f" {{{','.join(map(str, opt.choices))}}}" if opt.choices else ""
            print(f"    {opt.flag}{choices}  default {opt.default}")
    return EXIT_OK


def cmd_properties(argv: list[str]) -> int:
    """The model's properties: name, kind, whether a run checks it by default, and its doc."""
    _, _, model = _parse_check(argv)
    for prop in model.properties():
        flag = "" if prop.default else "  (opt-in: --invariant " + prop.name + ")"
        print(f"{prop.name}  [{prop.kind.value}]{flag}")
        if prop.doc:
            print(f"    {prop.doc}")
    return EXIT_OK


def cmd_scenarios(argv: list[str]) -> int:
    from explorer.scenarios import all_scenarios

    _Parser(prog="isrcheck scenarios", description="List the named scenarios.").parse_args(argv)
    scenarios = all_scenarios()
    if not scenarios:
        print("No scenarios registered (is isrcheck installed? pip install -e .)")
    for sc in scenarios.values():
        verdict = f"violates {', '.join(sc.properties)}" if sc.expect == "violated" else "holds"
        length = f" (trace of {sc.trace_length} states)" if sc.trace_length else ""
        print(f"{sc.id}: {sc.title}\n    {verdict}{length}\n    {sc.command()}")
    return EXIT_OK


def cmd_scenario(argv: list[str]) -> int:
    from explorer.check import check
    from explorer.itf import trace_to_itf, write_json
    from explorer.registry import build_model
    from explorer.scenarios import get_scenario
    from explorer.trace_text import render_summary, render_violation

    p = _Parser(prog="isrcheck scenario", description="Run one named scenario and print its shortest trace.")
    p.add_argument("id", help="a scenario id, e.g. K1 (isrcheck scenarios lists them)")
    p.add_argument("--full", action="store_true", help="print whole states")
    p.add_argument("--trace-json", metavar="PATH", help="write the counterexample as an ITF JSON trace")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    args = p.parse_args(argv)
    sc = get_scenario(args.id)
    model = build_model(sc.model, dict(sc.options))
    print(f"{sc.id}: {sc.title}\n{sc.story}\n$ {sc.command()}\n")
    result = check(model, properties=list(sc.properties), progress=_progress(args), **dict(sc.check_options))
    for violation in result.violations:
        print(render_violation(model, violation, full=args.full))
        print()
        if args.trace_json:
            write_json(args.trace_json, trace_to_itf(model, violation.trace, {
                "model": sc.model, "options": dict(sc.options), "property": violation.property,
                "kind": violation.kind, "detail": violation.detail, "scenario": sc.id}))
    print(render_summary(result))
    got = "violated" if result.violations else ("holds" if result.complete else "unknown")
    as_expected = got == sc.expect and (
        sc.trace_length is None or not result.violations or len(result.violations[0].trace) == sc.trace_length)
    expected = sc.expect + (f", trace of {sc.trace_length} states" if sc.trace_length else "")
    got += f", trace of {len(result.violations[0].trace)} states" if result.violations else ""
    verdict = "as the catalogue says" if as_expected else "NOT as the catalogue says"
    print(f"\nExpected: {expected}; got: {got} ({verdict}).")
    return EXIT_OK if as_expected else EXIT_VIOLATION


COMMANDS = {"check": cmd_check, "replay": cmd_replay, "models": cmd_models, "properties": cmd_properties,
            "scenarios": cmd_scenarios, "scenario": cmd_scenario}
from explorer.cli_symbolic import COMMANDS as SYMBOLIC_COMMANDS  # noqa: E402  (isrcheck bmc, prove)

COMMANDS.update(SYMBOLIC_COMMANDS)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return EXIT_OK if argv else EXIT_USAGE
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"isrcheck: unknown command {command!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return COMMANDS[command](rest)
    except UserError as exc:
        print(f"isrcheck {command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"isrcheck {command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (isrcheck ... | head): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
