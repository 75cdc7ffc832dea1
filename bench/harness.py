"""Shared by the benchmarks: run one exploration in a fresh process and report its figures, so
each configuration's peak memory (ru_maxrss) is its own and nothing is warm from the last one."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def measure(spec: str, model_options: dict[str, Any], check_options: dict[str, Any]) -> dict[str, Any]:
    """Build ``spec`` (a registered model or path.py:factory) in a child process, explore it, and
    return distinct, generated, depth, elapsed (s), peak and baseline RSS (KiB)."""
    payload = json.dumps({"spec": spec, "model": model_options, "check": check_options})
    out = subprocess.run([sys.executable, __file__, payload], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def run_child(script: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Run ``script --child JSON`` in a fresh process (its own peak memory) and return the JSON
    object its last output line prints: for benchmarks whose child does more than ``measure``'s."""
    out = subprocess.run([sys.executable, script, "--child", json.dumps(payload)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def _child(payload: str) -> None:
    args = json.loads(payload)
    from isrcheck.explorer.registry import build_model

    from isrcheck import check

    model = build_model(args["spec"], args["model"])
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # One process unless the row asks for workers ("workers": null is every core, the CLI's
    # default): a forked worker's memory is not in this process's ru_maxrss.
    r = check(model, **{"workers": 1, **args["check"]})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"distinct": r.distinct_states, "generated": r.generated_states, "depth": r.depth,
                      "elapsed": r.elapsed, "peak_kib": peak, "base_kib": base, "ok": r.ok}))


def row(name: str, r: dict[str, Any], width: int = 28) -> str:
    per_state = (r["peak_kib"] - r["base_kib"]) * 1024 / max(r["distinct"], 1)
    return (f"{name:<{width}}{r['distinct']:>11,}{r['depth']:>7}{r['elapsed']:>9.2f}"
            f"{r['distinct'] / r['elapsed']:>12,.0f}{r['peak_kib'] / 1024:>10.0f}{per_state:>13.0f}")


def header(width: int = 28) -> str:
    return (f"{'configuration':<{width}}{'distinct':>11}{'depth':>7}{'seconds':>9}{'distinct/s':>12}"
            f"{'peak MiB':>10}{'bytes/state':>13}")


if __name__ == "__main__":
    _child(sys.argv[1])
