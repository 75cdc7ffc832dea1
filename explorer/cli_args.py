"""What the ``isrcheck`` subcommands share: exit statuses, the argument parser that turns usage
errors into ``UserError``, and parsing ``MODEL [model options]`` into a built model.

Split out of ``explorer.cli`` so that command modules (``explorer.cli_simulate``) use it without
importing the command table that registers them.
"""

from __future__ import annotations

import argparse
from typing import Any

from explorer.errors import UserError

EXIT_OK, EXIT_VIOLATION, EXIT_USAGE, EXIT_DIVERGED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is a UserError (one paragraph, exit 2) like every other."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError(f"{message} (see {self.prog} --help)")


def model_parser(spec: str, options: list[Any], command: str = "isrcheck check") -> argparse.ArgumentParser:
    """The model's own options (one ``--flag`` per factory parameter) as a parser."""
    p = Parser(prog=f"{command} {spec}", add_help=False)
    group = p.add_argument_group(f"options of model {spec}")
    for opt in options:
        if opt.type is bool:
            group.add_argument(opt.flag, dest=opt.name, action=argparse.BooleanOptionalAction, default=opt.default)
        else:
            group.add_argument(opt.flag, dest=opt.name, type=opt.type, default=opt.default, choices=opt.choices,
                               help=f"default: {opt.default}")
    return p


def parse_with_model(parser: argparse.ArgumentParser,
                     argv: list[str]) -> tuple[argparse.Namespace, dict[str, Any], Any]:
    """Parse ``MODEL`` and the command's own options with ``parser``, then the model's options (from
    its factory's signature), and build the model; ``-h`` shows both parsers' help."""
    from explorer.registry import load_factory, model_options

    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        raise SystemExit(EXIT_OK)
    args, rest = parser.parse_known_args(argv)
    factory = load_factory(args.model)
    mparser = model_parser(args.model, model_options(factory), parser.prog)
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
