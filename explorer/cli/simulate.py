"""``isrcheck simulate MODEL [model options] --depth D --behaviours N --seed S``: random behaviours.

TLC's ``-simulate`` for bounds that exhaustive search cannot finish: each behaviour is a random
walk of at most D states from an initial state, checked as it goes (see ``isrcheck.explorer.search.simulate``).
``--engine spark`` walks the behaviours as a swarm over Spark executors
(``isrcheck.explorer.search.spark.swarm``): behaviour i under a seed of its own, derived from S and i,
so the run is the same on any number of executors and partitions (and different behaviours from the
one-process run of the same seed, which draws every behaviour from one generator).
Exit status: 0 no violation found (which proves nothing), 1 a violation, 2 bad input, 130
interrupted (the figures printed are what ran before the interrupt).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from isrcheck.explorer.cli.written import OutputFiles
from isrcheck.explorer.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_VIOLATION, UserError


def _parser() -> argparse.ArgumentParser:
    from isrcheck.explorer.cli.main import _Parser, positive_int

    p = _Parser(prog="isrcheck simulate", add_help=False,
                description="Check random behaviours of MODEL (TLC's -simulate); finds violations, proves nothing.")
    p.add_argument("model", help="a registered model name or path/to/file.py[:make_model]")
    p.add_argument("-h", "--help", action="store_true", help="show this help (and MODEL's options) and exit")
    p.add_argument("--max-depth", "--depth", dest="depth", type=positive_int, default=100, metavar="D",
                   help="states per behaviour, the initial one included (default 100); --depth is the same option")
    p.add_argument("--quiet", action="store_true",
                   help="accepted as by every command that runs a search; simulate prints no progress lines")
    p.add_argument("--behaviours", "--behaviors", dest="behaviours", type=positive_int, default=1000, metavar="N",
                   help="how many behaviours to try (default 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed; the same seed replays the same run")
    p.add_argument("--invariant", "--property", dest="properties", action="append", metavar="NAME",
                   help="check only this property (repeatable; default: the model's default ones)")
    p.add_argument("--full", action="store_true", help="print whole states in the trace, not only what changed")
    p.add_argument("--trace-json", metavar="PATH", help="write the counterexample as an ITF JSON trace")
    p.add_argument("--engine", choices=["local", "spark"], default="local",
                   help="local: one process, one random generator (default); spark: a swarm over Spark "
                        "executors, each behaviour under a seed derived from --seed and its index")
    spark = p.add_argument_group("spark engine")
    spark.add_argument("--master", help="Spark master URL (default local[*])")
    spark.add_argument("--partitions", type=positive_int, metavar="N",
                       help="tasks per wave of behaviours (default 2 x default parallelism); the same result for any N")
    return p


def _parse(argv: list[str]) -> tuple[argparse.Namespace, dict[str, Any], Any]:
    """``MODEL [model options]`` and the simulation's own options, as ``isrcheck check`` parses them."""
    from isrcheck.explorer.cli.main import parse_model_command

    return parse_model_command(_parser(), argv)


def cmd_simulate(argv: list[str]) -> int:
    from isrcheck.explorer.outputs import check_output_path
    from isrcheck.explorer.search.simulate import render_simulation, simulate
    from isrcheck.explorer.traces.itf import trace_to_itf
    from isrcheck.explorer.traces.text import render_violation

    args, options, model = _parse(argv)
    spark_options = {k: getattr(args, k) for k in ("master", "partitions") if getattr(args, k) is not None}
    if spark_options and args.engine != "spark":
        raise UserError(f"--{next(iter(spark_options))} applies to --engine spark only")
    if args.trace_json:
        check_output_path(args.trace_json, "--trace-json")  # before the run: a found trace must not be lost
    if args.engine == "spark":
        from isrcheck.explorer.search.spark.swarm import simulate_spark

        result = simulate_spark(model, depth=args.depth, behaviours=args.behaviours, seed=args.seed,
                                properties=args.properties, **spark_options)
    else:
        result = simulate(model, depth=args.depth, behaviours=args.behaviours, seed=args.seed,
                          properties=args.properties)
    outputs = OutputFiles()  # every output through one mechanism: a full disk is reported, the verdict stands
    for violation in result.violations:
        print(render_violation(model, violation, full=args.full))
        print()
        if args.trace_json:
            outputs.write(args.trace_json, json.dumps(trace_to_itf(model, violation.trace, {
                "model": args.model, "options": options, "property": violation.property,
                "kind": violation.kind, "detail": violation.detail,
                "simulation": {"seed": args.seed, "depth": args.depth, "behaviour": result.behaviours,
                               "engine": args.engine}}), indent=1) + "\n", "--trace-json")
    print(render_simulation(result))
    if args.engine == "spark":
        print("Swarm on Spark: behaviour i walked under a seed derived from the run's seed and i; the first "
              "violation is the one of the smallest i, the same for any executor or partition count.")
    outputs.report(to_stderr=False, command="isrcheck simulate")
    if result.violations:
        return EXIT_VIOLATION
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK
