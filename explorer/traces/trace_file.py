"""Reading a trace file (ITF JSON) as untrusted data.

A trace travels: attached to a bug report, kept in a repository, edited by hand. Reading one must
never run code and never crash: a file that is not UTF-8, cut short, nested deeper than Python's
parser recurses, holding a number too long for Python to convert (CPython refuses more than 4,300
digits), or with a field of the wrong type is refused with a ``UserError`` (exit 2) that says
what is wrong and where (a line and column, a byte offset, or the field's path such as
``states[3].log``). Every field the commands read is checked here, once, so ``show``, ``replay``
and anything else that reads a trace can trust the shape of what ``read_itf`` returns.

Values are checked as the ITF encoding ``isrcheck.explorer.traces.itf`` writes: JSON scalars,
arrays, records, and the ``#tup``, ``#set``, ``#map`` and ``#bigint`` wrappers; ``decode_value``
turns them into plain Python values (lists, dicts, ints) for a reader that has no model.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from isrcheck.explorer.errors import UserError

# Deeper than any state isrcheck writes (a record of replicas of logs of records is about 6), far
# below where a recursive walk would exhaust Python's stack.
MAX_DEPTH = 64
# CPython's default limit on converting long digit strings to int (sys.int_info.default_max_str_digits).
MAX_DIGITS = 4300
# A trace of a million states is far beyond any counterexample; this only stops a reader from
# spending all memory on a hostile file.
MAX_BYTES = 1 << 30

_META_STRINGS = ("property", "kind", "detail", "scenario", "loop_action")


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with control characters written as escapes (``\\x1b``): a string from a trace file
    is shown on a terminal, and a hostile file must not drive the terminal with escape sequences."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _damaged(path: str, problem: str) -> UserError:
    return UserError(f"trace file {path!r}: {problem}; the file is damaged or was not written by isrcheck "
                     "(write it again with --trace-json)")


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {col}"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(path: str, raw: bytes) -> Any:
    """The file's JSON, or a UserError naming the problem and where it is."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"trace file {path!r} is not UTF-8 text (byte {exc.start} is {raw[exc.start]:#04x}); "
                        "a trace file is JSON written by isrcheck --trace-json") from None
    long_number = re.search(rf"(?<![\d\"])\d{{{MAX_DIGITS + 1},}}", text)  # a number, not a string's digits
    if long_number:
        raise _damaged(path, f"a number of {len(long_number.group())} digits at "
                             f"{_line_col(text, long_number.start())} (more than {MAX_DIGITS} digits cannot be read)")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        cut = exc.pos >= len(text.rstrip()) or not text.rstrip().endswith(("}", "]"))
        hint = "it ends before the JSON does: was it cut short?" if cut else "was it edited?"
        raise UserError(f"trace file {path!r} is not valid JSON ({exc.msg} at {where}); {hint}") from None
    except RecursionError:
        raise _damaged(path, "its JSON is nested too deeply to read") from None
    except ValueError as exc:
        raise _damaged(path, f"its JSON holds a value that cannot be read ({exc})") from None


def decode_value(value: Any, where: str, depth: int = 0) -> Any:
    """An ITF value as a plain Python value, or a UserError naming the field (``where``)."""
    if depth > MAX_DEPTH:
        raise UserError(f"{where} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        return printable(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, list):
        return [decode_value(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        raise UserError(f"{where} is a {type(value).__name__}, which ITF has no encoding for")
    if len(value) == 1:
        (tag, inner), = value.items()
        if tag in ("#tup", "#set"):
            if not isinstance(inner, list):
                raise UserError(f"{where}.{tag} must be a list, not {type(inner).__name__}")
            return [decode_value(v, f"{where}.{tag}[{i}]", depth + 1) for i, v in enumerate(inner)]
        if tag == "#bigint":
            if not isinstance(inner, str) or not re.fullmatch(rf"-?\d{{1,{MAX_DIGITS}}}", inner):
                raise UserError(f"{where}.#bigint must be a string of at most {MAX_DIGITS} digits")
            return int(inner)
        if tag == "#map":
            if not isinstance(inner, list) or not all(isinstance(p, list) and len(p) == 2 for p in inner):
                raise UserError(f"{where}.#map must be a list of [key, value] pairs")
            return {printable(str(decode_value(k, f"{where}.#map[{i}][0]", depth + 1))):
                    decode_value(v, f"{where}.#map[{i}][1]", depth + 1) for i, (k, v) in enumerate(inner)}
    return {printable(str(k)): decode_value(v, f"{where}.{printable(str(k))}", depth + 1) for k, v in value.items()}


def _check_meta(path: str, meta: dict[str, Any]) -> None:
    if not isinstance(meta.get("model"), str) or not meta["model"]:
        raise _damaged(path, "'#meta'.'model' must name the model (a string), "
                             f"not {type(meta.get('model')).__name__}")
    if meta.get("options") is not None and not isinstance(meta["options"], dict):
        raise _damaged(path, f"'#meta'.'options' must be a JSON object, not {type(meta['options']).__name__}")
    for key, value in (meta.get("options") or {}).items():
        if not (value is None or isinstance(value, bool | int | str | float)):
            raise _damaged(path, f"'#meta'.'options'.{key} must be a plain value, not {type(value).__name__}")
    for key in _META_STRINGS:
        if meta.get(key) is not None and not isinstance(meta[key], str):
            raise _damaged(path, f"'#meta'.{key!r} must be a string, not {type(meta[key]).__name__}")


def _check_state(path: str, i: int, state: Any) -> None:
    where = f"states[{i}]"
    if not isinstance(state, dict) or not isinstance(state.get("#meta"), dict) or "action" not in state["#meta"]:
        raise _damaged(path, f"{where} lacks '#meta'.'action'")
    action = state["#meta"]["action"]
    if not (action is None or isinstance(action, str)):
        raise _damaged(path, f"{where}.#meta.action must be a string (the action's text), not {type(action).__name__}")
    if i > 0 and action is None:
        raise _damaged(path, f"{where}.#meta.action is missing: only the first state has no action")
    sig = state["#meta"].get("signals")
    try:
        if sig is not None:
            if not isinstance(sig, dict):
                raise UserError(f"{where}.#meta.signals must be a JSON object, not {type(sig).__name__}")
            decode_value(sig, f"{where}.#meta.signals")
        for key, value in state.items():
            if key != "#meta":
                decode_value(value, f"{where}.{key}")
    except UserError as exc:
        raise _damaged(path, str(exc)) from None


def validate_itf(path: str, data: Any) -> dict[str, Any]:
    """Check every field a command reads; returns ``data`` unchanged."""
    meta = data.get("#meta") if isinstance(data, dict) else None
    states = data.get("states") if isinstance(data, dict) else None
    if not isinstance(meta, dict) or not isinstance(states, list) or not states:
        raise UserError(f"trace file {path!r} is not an ITF trace: it needs '#meta' and a non-empty 'states' list")
    if "model" not in meta:
        raise UserError(
            f"trace file {path!r} does not say which model it belongs to ('#meta'.'model' is missing); "
            "only traces written by isrcheck can be replayed"
        )
    _check_meta(path, meta)
    loop = data.get("loop")
    if loop is not None and (not isinstance(loop, int) or isinstance(loop, bool) or not 0 <= loop < len(states)):
        raise UserError(f"trace file {path!r}: 'loop' must be the index of one of its {len(states)} states, "
                        f"not {loop!r:.40}; the file is damaged")
    for i, state in enumerate(states):
        _check_state(path, i, state)
    return data


def read_itf(path: str | os.PathLike) -> dict[str, Any]:
    """A trace file, parsed without running anything and checked field by field."""
    shown = os.fspath(path)
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise UserError(f"trace file {shown!r} does not exist") from None
    except OSError as exc:
        raise UserError(f"trace file {shown!r} cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise UserError(f"{shown!r} is a folder; give the trace file itself (e.g. cex.itf.json)")
    if not stat.S_ISREG(mode):
        raise UserError(f"{shown!r} is not a regular file (a device or a pipe); give a trace file "
                        "written by isrcheck")
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise UserError(f"trace file {shown!r} cannot be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise UserError(f"trace file {shown!r} is larger than {MAX_BYTES >> 20} MiB; no trace isrcheck writes is")
    return validate_itf(shown, parse_json(shown, raw))
