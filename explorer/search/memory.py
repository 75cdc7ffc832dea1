"""Resident memory of this process, and the ceiling a local run stops at.

A breadth-first search keeps every distinct state (or its fingerprint), so a bound too big for
the machine grows until the kernel kills the process and the statistics die with it. The local
engine reads its resident set size (RSS) at each progress poll and at each level, shows it with
the growth per level, and stops cleanly at a ceiling: by default 80 % of the machine's memory
(or of the cgroup's limit, when that is lower), changed with ``--max-memory``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from isrcheck.explorer.errors import UserError

DEFAULT_FRACTION = 0.8

_UNITS = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def rss_bytes() -> int | None:
    """This process's resident set size, or None where it cannot be read (no /proc)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def machine_memory() -> int | None:
    """Memory available to this process: MemTotal, or the cgroup v2/v1 limit when lower."""
    total = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                total = int(line.split()[1]) * 1024
                break
    except (OSError, ValueError, IndexError):
        pass
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and (total is None or int(text) < total):
            total = int(text)
    return total


def default_ceiling() -> int | None:
    total = machine_memory()
    return None if total is None else int(total * DEFAULT_FRACTION)


def parse_size(text: str) -> int | None:
    """``--max-memory`` values: ``512M``, ``4G``, ``1.5g``, ``70%`` (of the machine's memory), or
    ``none`` (no ceiling). Refuses anything else, and sizes of zero or less, with a UserError."""
    value = text.strip().lower()
    if value in ("none", "off", "unlimited"):
        return None
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*%", value)
    if m:
        fraction = float(m.group(1)) / 100
        total = machine_memory()
        if not 0 < fraction <= 1 or total is None:
            raise UserError(f"--max-memory {text!r}: a percentage must be in (0, 100] and needs /proc/meminfo")
        return int(total * fraction)
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([bkmgt]?)(?:i?b)?", value)
    if not m or float(m.group(1)) <= 0:
        raise UserError(
            f"--max-memory {text!r} is not a size; give a positive size such as 512M, 4G or 1.5G, a share of the "
            "machine's memory such as 50%, or 'none' for no ceiling"
        )
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def human(size: int | None) -> str:
    if size is None:
        return "-"
    for unit, factor in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(size) >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} B"
