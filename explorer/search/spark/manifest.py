"""The checkpoint manifest checked field by field, with bounds, before anything is allocated from it.

A manifest is data a writer of the checkpoint folder controls (docs/spark.md, the trust
boundary): every number that sizes something (partitions, levels, counts) is bounded, every
field's type is exact (``true`` is not a count, ``"3"`` is not a level), and a name must be one the
run knows. The first field out of bounds is named with its allowed range; the caller turns that
into a UserError (exit 2). The file itself is bounded too (``MAX_BYTES``) before it is parsed.
"""

from __future__ import annotations

import re
from typing import Any

MAX_BYTES = 256 << 20  # 1,000 levels on 1,000 partitions record a million files: about 100 MB
MAX_PARTITIONS = 100_000  # also the engine's bound on --partitions (engine.py)
MAX_LEVELS = 1_000_000
MAX_COUNT = 1 << 62  # states, generated transitions, bytes of a file
MAX_FP = (1 << 128) - 1
MAX_NAME = 1_000
WHERE = ("driver", "driver+spark", "spark")
KINDS = ("always", "transition", "deadlock")
_FILE = re.compile(r"level-\d{6}/(driver|parents-\d{5}|frontier-\d{5})\.bin")
_CHECKSUM = re.compile(r"[0-9a-f]{32}")


class ManifestError(ValueError):
    """A field of the manifest outside what this version writes: ``field`` and the allowed values."""

    def __init__(self, field: str, allowed: str, found: Any):
        text = repr(found)
        super().__init__(f"field {field} must be {allowed}; it holds {text[:80]}{'...' if len(text) > 80 else ''}")
        self.field = field


def validate(manifest: Any, fmt: str) -> dict[str, Any]:
    """``manifest`` (parsed JSON) if every field is what format ``fmt`` writes; else ManifestError."""
    _dict(manifest, "(the whole manifest)")
    for key in ("format", "identity", "partitions", "levels", "last_level", "run", "files"):
        if key not in manifest:
            raise ManifestError(key, "present", "(missing)")
    if manifest["format"] != fmt:
        raise ManifestError("format", repr(fmt), manifest["format"])
    identity = _dict(manifest["identity"], "identity")
    for key, value in identity.items():
        _text(value, f"identity[{key!r}]", limit=1 << 16)
    partitions = _int(manifest["partitions"], "partitions", 1, MAX_PARTITIONS)
    last = _int(manifest["last_level"], "last_level", 0, MAX_LEVELS)
    levels = _list(manifest["levels"], "levels", last, last)
    for i, lv in enumerate(levels):
        where = f"levels[{i}]"
        _dict(lv, where)
        _int(lv.get("level"), f"{where}.level", i + 1, i + 1)
        if lv.get("where") not in WHERE:
            raise ManifestError(f"{where}.where", f"one of {', '.join(WHERE)}", lv.get("where"))
        for key in ("frontier", "new", "generated"):
            _int(lv.get(key), f"{where}.{key}", 0, MAX_COUNT)
        seconds = lv.get("seconds")
        if type(seconds) not in (int, float) or not 0 <= seconds < 1e9:
            raise ManifestError(f"{where}.seconds", "a number of seconds from 0 to 1e9", seconds)
    files = _dict(manifest["files"], "files")
    if len(files) > 2 * partitions * max(last, 1) + last:
        raise ManifestError("files", f"at most {2 * partitions * max(last, 1) + last:,} entries (two a partition "
                            "and level)", f"{len(files):,} entries")
    for rel, record in files.items():
        if not _FILE.fullmatch(rel):
            raise ManifestError(f"files[{rel[:80]!r}]", "a level file's name (level-NNNNNN/parents-NNNNN.bin)", rel)
        _list(record, f"files[{rel!r}]", 2, 2)
        _int(record[0], f"files[{rel!r}][0] (size)", 0, MAX_COUNT)
        if not isinstance(record[1], str) or not _CHECKSUM.fullmatch(record[1]):
            raise ManifestError(f"files[{rel!r}][1] (checksum)", "32 lowercase hex digits", record[1])
    _run(manifest["run"], last)
    return manifest


def needed_count(manifest: dict[str, Any]) -> int:
    """How many files a resume of a validated manifest reads, computed before listing them."""
    levels, p = manifest["levels"], manifest["partitions"]
    count = sum(1 if lv["where"] == "driver" else p for lv in levels)
    if levels and levels[-1]["where"] != "driver":
        count += p
    return count


def check_names(manifest: dict[str, Any], always: set[str], transition: set[str], sometimes: set[str]) -> None:
    """The property names the manifest's bookkeeping holds are this run's (after the identity check,
    which compares the selection, so a mismatch is a forged or damaged manifest)."""
    run = manifest["run"]
    for name, finding in run["findings"].items():
        known = {"always": always, "transition": transition, "deadlock": {"deadlock"}}[finding["kind"]]
        if name not in known:
            raise ManifestError(f"run.findings[{name[:80]!r}]", f"a {finding['kind']} property of this run "
                                f"({', '.join(sorted(known)) or 'none'})", name)
    for name in (*run["reached"], *run["pending"]):
        if name not in sometimes:
            raise ManifestError("run.reached/run.pending", "sometimes properties of this run "
                                f"({', '.join(sorted(sometimes)) or 'none'})", name)


def _run(run: Any, last: int) -> None:
    _dict(run, "run")
    for key in ("generated", "distinct", "depth", "findings", "reached", "pending", "stopped", "frontier_size",
                "on_driver"):
        if key not in run:
            raise ManifestError(f"run.{key}", "present", "(missing)")
    _int(run["generated"], "run.generated", 0, MAX_COUNT)
    _int(run["distinct"], "run.distinct", 0, MAX_COUNT)
    _int(run["depth"], "run.depth", 0, last)
    _int(run["frontier_size"], "run.frontier_size", 0, MAX_COUNT)
    for key in ("stopped", "on_driver"):
        if not isinstance(run[key], bool):
            raise ManifestError(f"run.{key}", "true or false", run[key])
    for name, f in _dict(run["findings"], "run.findings").items():
        where = f"run.findings[{name[:80]!r}]"
        _text(name, where + " (name)")
        _dict(f, where)
        if f.get("kind") not in KINDS:
            raise ManifestError(f"{where}.kind", f"one of {', '.join(KINDS)}", f.get("kind"))
        _int(f.get("level"), f"{where}.level", 0, last)
        _int(f.get("fp"), f"{where}.fp", 0, MAX_FP)
        action = f.get("action")
        if f["kind"] == "transition":
            _int(action, f"{where}.action", 0, MAX_COUNT)
        elif action is not None:
            raise ManifestError(f"{where}.action", "null", action)
    for name, value in _dict(run["reached"], "run.reached").items():
        where = f"run.reached[{name[:80]!r}]"
        _text(name, where + " (name)")
        _list(value, where, 2, 2)
        _int(value[0], f"{where}[0] (level)", 1, last)
        _int(value[1], f"{where}[1] (fingerprint)", 0, MAX_FP)
    for i, name in enumerate(_list(run["pending"], "run.pending", 0, MAX_LEVELS)):
        _text(name, f"run.pending[{i}]")


def _int(value: Any, field: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ManifestError(field, f"an integer from {low:,} to {high:,}", value)
    return value


def _dict(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ManifestError(field, "a JSON object", value)
    return value


def _list(value: Any, field: str, low: int, high: int) -> list[Any]:
    if not isinstance(value, list) or not low <= len(value) <= high:
        size = f"{low:,}" if low == high else f"{low:,} to {high:,}"
        raise ManifestError(field, f"a list of {size} items", value if not isinstance(value, list)
                            else f"a list of {len(value):,} items")
    return value


def _text(value: Any, field: str, limit: int = MAX_NAME) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise ManifestError(field, f"a string of at most {limit:,} characters", value)
    return value
