"""The ``isrcheck`` command line.

    isrcheck check MODEL [model options] [checker options]   explore a model, print traces
    isrcheck replay TRACE.json [--model MODEL]               re-execute a recorded trace (runs model code)
    isrcheck models                                          registered models and their options
    isrcheck properties MODEL [model options]                a model's properties and which run by default
    isrcheck scenarios [--json]                              the bug catalogue: named scenarios
    isrcheck scenario ID [--full] [--json] [--trace-json PATH] [--regression PATH]  run one, print its trace
    isrcheck show TRACE.json [--html FILE]                   show a trace file as recorded (runs no model code)
    isrcheck bmc MODEL [options] --depth K                   bounded model checking with z3 (shortest trace first)
    isrcheck prove MODEL [options]                           induction, k-induction, Houdini lemmas with z3
    isrcheck simulate MODEL --depth D --behaviours N --seed S random behaviours, as TLC's -simulate

MODEL is a registered name (``classic``) or ``path/to/file.py[:factory]``. Model options come from
the factory's signature. Exit status: 0 no violation, 1 a violation (or a vacuous ``sometimes``
property), 2 bad input, 3 a replayed trace diverged from the model, 4 the model itself failed (it
raised, or broke the contract), 5 stopped at a limit (the memory ceiling; bmc/prove: the solver's
time limit or unknown), 6 isrcheck itself failed, 7 the run failed on its disk (a checkpoint or page
could not be written), 8 ``prove``: not proved (a counterexample to induction, not a violation),
130 interrupted.
"""

# Adding a subcommand: write ``cmd_name(argv: list[str]) -> int`` in its own module and add one
# line to COMMANDS at the bottom ("name": "isrcheck.explorer.cli.<module>:cmd_name"; imported only when used).
# Output files: call isrcheck.explorer.outputs.check_output_path before the work starts and write
# them at the end through isrcheck.explorer.cli.written.OutputFiles (one report of what failed);
# add_run_options gives --quiet, --progress-interval and --max-memory with their validation.

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from isrcheck.explorer.cli import html as cli_html
from isrcheck.explorer.cli.graph import add_graph_arguments, graph_check_options, report_graph
from isrcheck.explorer.cli.written import OutputFiles
from isrcheck.explorer.errors import (
    EXIT_DIVERGED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_LIMIT,
    EXIT_MODEL,
    EXIT_OK,
    EXIT_RUN_FAILED,
    EXIT_USAGE,
    EXIT_VIOLATION,
    ContractError,
    LostWorker,
    ModelError,
    RunFailed,
    UserError,
)

__all__ = ["COMMANDS", "EXIT_DIVERGED", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_LIMIT", "EXIT_MODEL", "EXIT_OK",
           "EXIT_RUN_FAILED", "EXIT_USAGE", "EXIT_VIOLATION", "add_run_options", "main", "positive_float",
           "positive_int"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a UserError (one paragraph, exit 2) like every other, and no
    option is abbreviated: ``--replica 3`` must not silently become ``--replicas 3``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{message} (see {self.prog} --help)")


def positive_float(text: str) -> float:
    """An argparse type: a finite number above zero (seconds, intervals)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def _whole_number(minimum: int, rule: str) -> Callable[[str], int]:
    """An argparse type: an integer of at least ``minimum``; ``rule`` says so in the message."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r} {rule}")
        return value

    return parse


positive_int = _whole_number(1, "must be at least 1")
non_negative_int = _whole_number(0, "must be 0 or more")


def add_run_options(p: argparse.ArgumentParser) -> None:
    """Options of every command that runs a search: its progress output and memory ceiling. One
    place, so that every command reading them (``_progress``) finds them."""
    p.add_argument("--progress-interval", type=positive_float, metavar="SECONDS",
                   help="seconds between progress lines (default 0.5 on a terminal, 10 otherwise)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--max-memory", metavar="SIZE",
                   help="stop cleanly (exit 5) when resident memory passes SIZE, e.g. 4G, 512M, 50%% of the machine, "
                        "or none (default: 80%% of the machine's memory; local engine)")


def _check_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="isrcheck check", add_help=False,
                description="Explore every reachable state of MODEL and check its properties.")
    p.add_argument("model", help="a registered model name or path/to/file.py[:make_model]")
    p.add_argument("-h", "--help", action="store_true", help="show this help (and MODEL's options) and exit")
    p.add_argument("--engine", choices=["local", "spark"], default="local")
    p.add_argument("--max-depth", "--depth", dest="max_depth", type=int, metavar="N",
                   help="do not expand states at depth N (initial = 1): traces of at most N states; "
                        "--depth is the same option (as bmc and simulate spell it)")
    p.add_argument("--symmetry", action="store_true", help="reduce by the model's canonical(state)")
    p.add_argument("--continue", dest="keep_going", action="store_true",
                   help="keep exploring after a violation; report the shortest violation of each property")
    p.add_argument("--deadlock", action="store_true", help="report states with no successor")
    p.add_argument("--invariant", "--property", dest="properties", action="append", metavar="NAME",
                   help="check only this property (repeatable; default: all of the model's)")
    p.add_argument("--properties", dest="properties_file", metavar="FILE",
                   help="add the properties a Python file defines to the model's (docs/properties-own.md)")
    p.add_argument("--store", choices=["exact", "fingerprint"], default="exact",
                   help="keep exact states (default) or 64-bit fingerprints with a collision estimate")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local engine processes (default and 0: every core, but one process for liveness and "
                        "--graph unless N is given); the same results for any N")
    p.add_argument("--full", action="store_true", help="print whole states in traces, not only what changed")
    p.add_argument("--explain", action="store_true", help="after a trace, say what each field shown means")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout (docs/json.md)")
    p.add_argument("--trace-json", metavar="PATH",
                   help="write the counterexample as an ITF JSON trace; when several properties fail, one file "
                        "per property: NAME-PROPERTY.itf.json beside PATH")
    p.add_argument("--regression", metavar="PATH", help="write the first counterexample as a pytest regression")
    cli_html.add_option(p)
    add_run_options(p)
    add_graph_arguments(p)
    spark = p.add_argument_group("spark engine")
    spark.add_argument("--master", help="Spark master URL (default local[*])")
    spark.add_argument("--checkpoint", metavar="DIR", help="keep each completed level in DIR")
    spark.add_argument("--resume", action="store_true", help="continue the run checkpointed in --checkpoint DIR")
    spark.add_argument("--partitions", type=positive_int, metavar="N", help="shuffle partitions of the visited set")
    spark.add_argument("--driver-threshold", type=non_negative_int, metavar="N",
                       help="run levels in the driver while at most N states are stored (default 5000; 0: never)")
    spark.add_argument("--driver-memory", metavar="SIZE", help="spark.driver.memory for the session, e.g. 4g")
    return p


def model_parser(spec: str, options: list[Any], prog: str = "isrcheck check",
                 renamed: dict[str, str] | None = None) -> argparse.ArgumentParser:
    """The parser of MODEL's own options, read from its factory's signature (``model_options``):
    each with the factory docstring's help and its default; a renamed option's old name is refused
    with the new one."""
    from isrcheck.explorer.cli.model_help import option_help_text, renamed_action

    p = _Parser(prog=f"{prog} {spec}", add_help=False)
    group = p.add_argument_group(f"options of model {spec}")
    for opt in options:
        if opt.type is bool:
            group.add_argument(opt.flag, dest=opt.name, action=argparse.BooleanOptionalAction, default=opt.default,
                               help=option_help_text(opt))
        else:
            group.add_argument(opt.flag, dest=opt.name, type=opt.type, default=opt.default, choices=opt.choices,
                               help=option_help_text(opt))
    for old, message in (renamed or {}).items():  # old name -> the refusal naming the new one
        p.add_argument("--" + old.replace("_", "-"), action=renamed_action(message), help=argparse.SUPPRESS,
                       default=argparse.SUPPRESS)
    return p


def parse_model_command(parser: argparse.ArgumentParser,
                        argv: list[str]) -> tuple[argparse.Namespace, dict[str, Any], Any]:
    """``MODEL [model options] [command options]`` for every command that builds a model (check,
    bmc, prove, simulate): the command's options, MODEL's options and the model built from them
    (a factory that raises is the model's fault: exit 4, ``registry.make_model``)."""
    from isrcheck.explorer.registry import load_factory, make_model, model_options, rename_message, renamed_options

    if argv and argv[0] in ("-h", "--help"):
        parser.print_help()
        raise SystemExit(EXIT_OK)
    if not argv:
        raise UserError(f"MODEL is missing: write {parser.prog} MODEL [options], where MODEL is a registered "
                        "name (isrcheck models lists them) or path/to/file.py[:make_model]")
    args, rest = parser.parse_known_args(argv)
    factory = load_factory(args.model)
    renamed = {old: rename_message(factory, args.model, old) for old in renamed_options(factory)}
    mparser = model_parser(args.model, model_options(factory), parser.prog, renamed)
    if args.help:
        parser.print_help()
        print()
        mparser.print_help()
        raise SystemExit(EXIT_OK)
    margs, unknown = mparser.parse_known_args(rest)
    if unknown:
        from isrcheck.explorer.cli.model_help import unknown_arguments

        raise UserError(unknown_arguments(unknown, parser, mparser, args.model))
    options = vars(margs)
    return args, options, make_model(factory, args.model, options)


def _parse_check(argv: list[str]) -> tuple[argparse.Namespace, dict[str, Any], Any]:
    from isrcheck.explorer.extra import with_properties_file

    args, options, model = parse_model_command(_check_parser(), argv)
    if args.properties_file:  # the model with the file's properties added (isrcheck.explorer.extra)
        model = with_properties_file(model, args.properties_file)
    return args, options, model


def _progress(args: argparse.Namespace) -> Any:
    from isrcheck.explorer.progress import Progress, Silent

    if args.quiet:
        return Silent()
    return Progress(interval=args.progress_interval)


def _max_memory(args: argparse.Namespace) -> int | str | None:
    from isrcheck.explorer.search.memory import parse_size

    return "auto" if args.max_memory is None else parse_size(args.max_memory)


def _verdict_status(result: Any) -> int:
    """The exit status a result stands for: an answer (1) before a limit (5) before an interrupt."""
    if result.violations or result.vacuous:
        return EXIT_VIOLATION
    if getattr(result, "limit", None):
        return EXIT_LIMIT
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def _trace_paths(base: str, violations: list[Any]) -> list[Path]:
    """One file per violation: PATH itself for one; PATH's stem + '-' + property for several."""
    path = Path(base)
    if len(violations) <= 1:
        return [path] * len(violations)
    stem, suffixes = path.name.split(".")[0], "".join(path.suffixes)
    return [path.with_name(f"{stem}-{v.property}{suffixes}") for v in violations]


def _trace_meta(spec: str, options: dict[str, Any], violation: Any, relative_to: str | None,
                **extra: Any) -> dict[str, Any]:
    """A trace's top-level #meta: the same fields in a trace file and in --json."""
    from isrcheck.explorer.registry import portable_spec
    from isrcheck.explorer.traces.itf import SCHEMA_VERSION

    return {"schema_version": SCHEMA_VERSION, "model": portable_spec(spec, relative_to), "options": options,
            **extra, "property": violation.property, "kind": violation.kind, "detail": violation.detail}


def _properties_meta(path: str | None, relative_to: str) -> dict[str, str]:
    """A trace file's record of ``--properties FILE`` (relative to the trace), so replay adds them again."""
    from isrcheck.explorer.registry import portable_spec

    return {"properties_file": portable_spec(path, relative_to)} if path else {}


def _audit_exported(model: Any, violations: list[Any]) -> None:
    """A trace that is written must replay: every recorded action must pick out its step."""
    from isrcheck.explorer.search.audit import audit_trace_steps

    for violation in violations:
        audit_trace_steps(model, violation.trace)


def cmd_check(argv: list[str]) -> int:
    from isrcheck.explorer.check import check
    from isrcheck.explorer.outputs import check_output_dir, check_output_path
    from isrcheck.explorer.traces.itf import trace_to_itf
    from isrcheck.explorer.traces.regression import init_index_of, regression_source
    from isrcheck.explorer.traces.text import render_result

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
    if args.engine == "spark" and args.max_memory is not None:
        raise UserError("--max-memory applies to the local engine; size the spark engine with --driver-memory")
    # Every output path is checked now, before the search: a run must not end in a lost result.
    if args.trace_json:
        check_output_path(args.trace_json, "--trace-json")
    if args.regression:
        check_output_path(args.regression, "--regression")
    if args.checkpoint:
        check_output_dir(args.checkpoint, "--checkpoint", must_exist=args.resume)
    graph_options = graph_check_options(args)
    if args.graph:
        check_output_path(args.graph, "--graph")
    cli_html.check_path(args.html)
    if args.workers is not None and args.engine != "local":
        raise UserError("--workers applies to --engine local; the spark engine spreads work over its executors")
    # Every core is the default (docs/performance.md), the state graph included.
    workers = (None if not args.workers else args.workers) if args.engine == "local" else 1
    try:
        result = check(model, engine=args.engine, max_depth=args.max_depth, stop_at_first=not args.keep_going,
                       symmetry=args.symmetry, check_deadlock=args.deadlock, properties=args.properties,
                       store=args.store, progress=_progress(args), max_memory=_max_memory(args),
                       workers=workers, **graph_options, **engine_options)
    except RunFailed as exc:  # exit 7 (main); under --json the statistics so far are still one JSON document
        if args.json and exc.result is not None:
            print(json.dumps(_json_summary(model, exc.result, args.model, options), indent=1))
        raise

    if args.json:
        print(json.dumps(_json_summary(model, result, args.model, options), indent=1))
    else:
        print(render_result(model, result, full=args.full, explain=args.explain))  # what print(result) shows
    outputs = OutputFiles()
    # Graph statistics and the fairness line are part of the report; under --json they go to stderr
    # so that stdout stays one JSON document.
    with contextlib.redirect_stdout(sys.stderr if args.json else sys.stdout):
        report_graph(model, result, args, outputs)
    if (args.trace_json or args.regression) and result.violations:
        _audit_exported(model, result.violations)
    if args.trace_json:
        for path, violation in zip(_trace_paths(args.trace_json, result.violations), result.violations, strict=True):
            meta = _trace_meta(args.model, options, violation, str(path.parent),
                               **_properties_meta(args.properties_file, str(path.parent)))
            outputs.write(path, json.dumps(trace_to_itf(model, violation.trace, meta), indent=1) + "\n",
                          "--trace-json")
    if args.regression and result.violations:
        v = result.violations[0]
        source = regression_source(args.model, options, v, init_index_of(model, v),
                                   relative_to=str(Path(args.regression).parent), properties_file=args.properties_file)
        outputs.write(args.regression, source, "--regression")
    if args.html:
        outputs.write(args.html, cli_html.check_page(model, result, model_name=args.model, options=options), "--html")
    outputs.report(to_stderr=args.json, command="isrcheck check")
    return _verdict_status(result)


def _json_summary(model: Any, result: Any, spec: str, options: dict[str, Any]) -> dict[str, Any]:
    """The --json summary; docs/json.md describes every field. Model paths are absolute here (the
    summary is not a file that moves with the model)."""
    from isrcheck.explorer.registry import portable_spec
    from isrcheck.explorer.traces.itf import SCHEMA_VERSION, trace_to_itf

    return {
        "schema_version": SCHEMA_VERSION,
        "model": portable_spec(spec),
        "options": options,
        "ok": result.ok,
        "complete": result.complete,
        "interrupted": result.interrupted,
        "limit": getattr(result, "limit", None),
        "limit_note": getattr(result, "limit_note", "") or None,
        "frontier_left": result.stats.get("frontier_left"),
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
             "trace": trace_to_itf(model, v.trace, _trace_meta(spec, options, v, None))}
            for v in result.violations
        ],
        "stats": {k: v for k, v in result.stats.items() if isinstance(v, int | float | str | bool | type(None))},
    }


def cmd_replay(argv: list[str]) -> int:
    from isrcheck.explorer.traces.itf import read_itf
    from isrcheck.explorer.traces.replay import Divergence, load_and_replay, replay_model_spec
    from isrcheck.explorer.traces.text import render_trace
    from isrcheck.explorer.traces.trace_file import printable

    p = _Parser(prog="isrcheck replay", description="Re-execute an ITF trace written by isrcheck against a model: "
                "the registered model the trace names, or the one given with --model (never a file the trace names).")
    p.add_argument("trace", help="the .itf.json file")
    p.add_argument("--model", metavar="MODEL", help="the model to run: a registered name or path/to/file.py[:factory] "
                   "(needed when the trace names a model file: isrcheck runs no code a trace file names)")
    p.add_argument("--properties", dest="properties_file", metavar="FILE",
                   help="the properties file the trace was checked with (--properties): named by you, never "
                   "taken from the trace")
    p.add_argument("--full", action="store_true", help="print whole states")
    args = p.parse_args(argv)
    data = read_itf(args.trace)
    print(replay_model_spec(data, args.model, base=os.path.dirname(os.path.abspath(args.trace)))[1])
    try:
        model, replayed = load_and_replay(data, args.model, args.properties_file)
    except Divergence as exc:
        print(f"Replay diverged from the model at {printable(str(exc))}", file=sys.stderr)
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
    from isrcheck.explorer.cli.model_help import model_option_lines
    from isrcheck.explorer.registry import load_factory, model_options, registered

    _Parser(prog="isrcheck models", description="List the registered models and their options.").parse_args(argv)
    models = registered()
    if not models:
        print("No models registered (is isrcheck installed? pip install -e .)")
    for name, target in sorted(models.items()):
        print(f"{name}  ({target})")
        for line in model_option_lines(model_options(load_factory(name))):
            print(line)
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


def _scenario_entry(sc: Any) -> dict[str, Any]:
    return {"id": sc.id, "title": sc.title, "model": sc.model, "options": dict(sc.options),
            "properties": list(sc.properties), "expect": sc.expect, "trace_length": sc.trace_length,
            "check_options": dict(sc.check_options), "command": sc.command()}


def cmd_scenarios(argv: list[str]) -> int:
    from isrcheck.explorer.scenarios import all_scenarios
    from isrcheck.explorer.traces.itf import SCHEMA_VERSION

    p = _Parser(prog="isrcheck scenarios", description="List the named scenarios.")
    p.add_argument("--json", action="store_true", help="the catalogue as JSON (docs/json.md)")
    args = p.parse_args(argv)
    scenarios = all_scenarios()
    if args.json:
        print(json.dumps({"schema_version": SCHEMA_VERSION,
                          "scenarios": [_scenario_entry(sc) for sc in scenarios.values()]}, indent=1))
        return EXIT_OK
    if not scenarios:
        print("No scenarios registered (is isrcheck installed? pip install -e .)")
    for sc in scenarios.values():
        verdict = f"violates {', '.join(sc.properties)}" if sc.expect == "violated" else "holds"
        length = f" (trace of {sc.trace_length} states)" if sc.trace_length else ""
        print(f"{sc.id}: {sc.title}\n    {verdict}{length}\n    {sc.command()}")
    return EXIT_OK


def cmd_scenario(argv: list[str]) -> int:
    from isrcheck.explorer.check import check
    from isrcheck.explorer.outputs import check_output_path
    from isrcheck.explorer.registry import build_model
    from isrcheck.explorer.scenarios import get_scenario
    from isrcheck.explorer.traces.itf import trace_to_itf
    from isrcheck.explorer.traces.text import render_result

    p = _Parser(prog="isrcheck scenario", description="Run one named scenario and print its shortest trace.")
    p.add_argument("id", help="a scenario id, e.g. K1 (isrcheck scenarios lists them)")
    p.add_argument("--full", action="store_true", help="print whole states")
    p.add_argument("--explain", action="store_true", help="after a trace, say what each field shown means")
    p.add_argument("--json", action="store_true",
                   help="print the verdict and the check's summary as JSON on stdout (docs/json.md)")
    p.add_argument("--trace-json", metavar="PATH", help="write the counterexample as an ITF JSON trace")
    p.add_argument("--regression", metavar="PATH", help="write the counterexample as a pytest regression")
    add_run_options(p)
    cli_html.add_option(p)
    args = p.parse_args(argv)
    cli_html.check_path(args.html)
    sc = get_scenario(args.id)
    for path, what in ((args.trace_json, "--trace-json"), (args.regression, "--regression")):
        if path:
            check_output_path(path, what)  # before the run: a found trace must not be lost
    model = build_model(sc.model, dict(sc.options))
    if not args.json:
        print(f"{sc.id}: {sc.title}\n{sc.story}\n$ {sc.command()}\n")
    result = check(model, properties=list(sc.properties), progress=_progress(args), max_memory=_max_memory(args),
                   **dict(sc.check_options))
    got = "violated" if result.violations else ("holds" if result.complete else "unknown")
    as_expected = got == sc.expect and (
        sc.trace_length is None or not result.violations or len(result.violations[0].trace) == sc.trace_length)
    if args.json:
        summary = _json_summary(model, result, sc.model, dict(sc.options))
        print(json.dumps({"schema_version": summary["schema_version"], "scenario": sc.id, "expected": sc.expect,
                          "expected_trace_length": sc.trace_length, "got": got,
                          "got_trace_length": len(result.violations[0].trace) if result.violations else None,
                          "matched": as_expected, "summary": summary}, indent=1))
    else:
        print(render_result(model, result, full=args.full, explain=args.explain))  # what print(result) shows
    outputs = OutputFiles()
    if args.trace_json and result.violations:
        _audit_exported(model, result.violations[:1])
        violation = result.violations[0]
        meta = _trace_meta(sc.model, dict(sc.options), violation, None, scenario=sc.id)
        outputs.write(args.trace_json, json.dumps(trace_to_itf(model, violation.trace, meta), indent=1) + "\n",
                      "--trace-json")
    if args.html:
        wanted = sc.expect + (f", trace of {sc.trace_length} states" if sc.trace_length else "")
        found = got + (f", trace of {len(result.violations[0].trace)} states" if result.violations else "")
        said = "as the catalogue says" if as_expected else "NOT as the catalogue says"
        outputs.write(args.html, cli_html.check_page(
            model, result, model_name=sc.model, options=dict(sc.options),
            scenario={"id": sc.id, "title": sc.title, "story": sc.story}, command=sc.command(),
            notes=[("catalogue", f"expected {wanted}; got {found} ({said})")]), "--html")
    if args.regression and result.violations:
        from isrcheck.explorer.traces.regression import init_index_of, regression_source

        _audit_exported(model, result.violations[:1])
        v = result.violations[0]
        outputs.write(args.regression, regression_source(sc.model, dict(sc.options), v, init_index_of(model, v),
                                                         relative_to=str(Path(args.regression).parent)),
                      "--regression")
    outputs.report(to_stderr=args.json, command="isrcheck scenario")
    if not args.json:
        expected = sc.expect + (f", trace of {sc.trace_length} states" if sc.trace_length else "")
        shown = got + (f", trace of {len(result.violations[0].trace)} states" if result.violations else "")
        verdict = "as the catalogue says" if as_expected else "NOT as the catalogue says"
        print(f"\nExpected: {expected}; got: {shown} ({verdict}).")
    if getattr(result, "limit", None) and not result.violations:
        return EXIT_LIMIT
    if result.interrupted and not result.violations:
        return EXIT_INTERRUPTED
    return EXIT_OK if as_expected else EXIT_VIOLATION


# name -> cmd_x(argv) -> int, or "module:function" imported only when that command runs (so that
# `isrcheck check` never pays for z3 or an HTML renderer). One line per subcommand.
COMMANDS: dict[str, Callable[[list[str]], int] | str] = {
    "check": cmd_check,
    "replay": cmd_replay,
    "models": cmd_models,
    "properties": cmd_properties,
    "scenarios": cmd_scenarios,
    "scenario": cmd_scenario,
    "show": "isrcheck.explorer.cli.html:cmd_show",
    "bmc": "isrcheck.explorer.cli.symbolic:cmd_bmc",
    "prove": "isrcheck.explorer.cli.symbolic:cmd_prove",
    "simulate": "isrcheck.explorer.cli.simulate:cmd_simulate",
}


def _command(name: str) -> Callable[[list[str]], int]:
    target = COMMANDS[name]
    if isinstance(target, str):
        module, _, function = target.partition(":")
        target = getattr(importlib.import_module(module), function)
    return target


def main(argv: list[str] | None = None) -> int:
    from isrcheck.explorer.cli.model_fault import as_model_error, format_model_error

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return EXIT_OK if argv else EXIT_USAGE
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"isrcheck: unknown command {command!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _command(command)(rest)
    except ContractError as exc:
        print(f"isrcheck {command}: the model broke the contract: {exc}", file=sys.stderr)
        return EXIT_MODEL
    except UserError as exc:
        print(f"isrcheck {command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ModelError as exc:
        print(f"isrcheck {command}: {format_model_error(exc)}", file=sys.stderr)
        return EXIT_MODEL
    except KeyboardInterrupt:
        print(f"isrcheck {command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RunFailed as exc:
        if exc.result is not None:
            from isrcheck.explorer.traces.text import render_summary

            print(render_summary(exc.result), file=sys.stderr)
        print(f"isrcheck {command}: the run failed: {exc} (exit status 7: not a verdict on the model)",
              file=sys.stderr)
        return EXIT_RUN_FAILED
    except LostWorker as exc:
        print(f"isrcheck {command}: {exc} (exit status 6: not a verdict on the model)", file=sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:
        # The reader went away (isrcheck ... | head): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:
        # The model's own code raised outside the engines' guarded loops (a state_view while a
        # trace is printed, a predicate during replay): exit 4 with its frames. Anything else is
        # a fault in isrcheck, and its full traceback is the useful report.
        err = as_model_error(exc)
        if err is None:
            # Python's own exit status for an uncaught exception is 1, the status of a violation:
            # a crash (or a lost worker or executor) must never read as a protocol bug in CI.
            traceback.print_exc()
            print(f"isrcheck {command}: isrcheck itself failed ({type(exc).__name__}); the traceback above "
                  "is the report to file. This is not a verdict on the model (exit status 6).", file=sys.stderr)
            return EXIT_INTERNAL
        print(f"isrcheck {command}: {format_model_error(err)}", file=sys.stderr)
        return EXIT_MODEL


if __name__ == "__main__":
    raise SystemExit(main())
