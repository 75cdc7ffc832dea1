"""How the command line shows a model's options: each with its help (the factory docstring's
entry, ``isrcheck.explorer.registry.option_help``) and its default, booleans included, in
``isrcheck models`` and ``isrcheck check MODEL --help``; the refusal of a renamed option, and of
arguments neither the command nor the model takes (with the nearest known option).

Kept out of ``isrcheck.explorer.cli.main`` so that the parser there gains only the calls."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from isrcheck.explorer.errors import UserError


def _default_text(opt: Any) -> str:
    if opt.type is bool:
        return "on" if opt.default else "off"
    if opt.default is None:
        return "chosen by the model, as its help says"
    return str(opt.default)


def option_help_text(opt: Any) -> str:
    """argparse help: the docstring's entry, then the default (``%`` escaped for argparse)."""
    text = opt.help.replace("``", "")
    return (f"{text} " if text else "").replace("%", "%%") + f"(default: {_default_text(opt)})"


def model_option_lines(options: list[Any], width: int = 100) -> list[str]:
    """``isrcheck models``: each option's flag, choices and default, then its help, indented."""
    lines = []
    for opt in options:
        if opt.type is bool:
            flag = f"{opt.flag} / --no-{opt.flag[2:]}"
        else:
            kind = f" {{{','.join(map(str, opt.choices))}}}" if opt.choices else f" {opt.type.__name__.upper()}"
            flag = opt.flag + kind
        lines.append(f"    {flag}  (default: {_default_text(opt)})")
        if opt.help:
            lines += textwrap.wrap(opt.help.replace("``", ""), width, initial_indent=" " * 8, subsequent_indent=" " * 8)
    return lines


def renamed_action(message: str) -> type[argparse.Action]:
    """An argparse action that refuses an option's old name with ``message``, which names the new
    one (``isrcheck.explorer.registry.rename_message``; exit 2)."""

    class Renamed(argparse.Action):
        def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
            kwargs["nargs"] = "?"
            super().__init__(option_strings, dest, **kwargs)

        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                     option_string: str | None = None) -> None:
            raise UserError(message)

    return Renamed


def unknown_arguments(unknown: list[str], parser: argparse.ArgumentParser, mparser: argparse.ArgumentParser,
                      spec: str) -> str:
    """The refusal of arguments neither parser took: the nearest known option, then every model option."""
    import difflib

    shown = [a for p in (parser, mparser) for a in p._actions if a.help != argparse.SUPPRESS]  # not old names
    flags = [f for a in shown for f in a.option_strings]
    model_flags = [f for a in mparser._actions if a.help != argparse.SUPPRESS
                   for f in a.option_strings if not f.startswith("--no-")]
    near = [m for u in unknown if u.startswith("--")
            for m in difflib.get_close_matches(u.split("=", 1)[0], flags, n=1, cutoff=0.75)]
    hint = f" (did you mean {', '.join(dict.fromkeys(near))}?)" if near else ""
    return (f"unrecognised argument(s) {' '.join(unknown)}{hint}; model {spec!r} takes: "
            f"{' '.join(model_flags) or '(none)'}; {parser.prog} --help lists the command's own options")
