"""What the proof engine's work budget is spent on: units and seconds per theorem.

The budget of each theorem is counted in deterministic work units
(:mod:`posproof.proofs.theorems.budget`), so its verdict does not depend on the clock.
This script proves what the default commands prove (every sinusoidal preset at its
default d = 512 with the general proofs, as ``posproof verify`` does; the multi-axis
presets; sine-only and vaswani at d = 8) without any limit, and prints the units the
most expensive theorems spent, the largest, and how far the default budget is above it;
``--big`` adds vaswani at the largest accepted d (65536) and sine-only / column-exponent at
d = 2048.  The seconds are this machine's (quiet), for the safety net's margin: the
largest over the default :data:`~posproof.proofs.theorems.budget.DEFAULT_TIMEOUT`.

    python benchmarks/bench_budget.py
    python benchmarks/bench_budget.py --big
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from posproof import PRESETS, preset, prove
from posproof.model.multiaxis import MULTI_PRESETS, multi_preset
from posproof.proofs.multiaxis import prove_multi
from posproof.proofs.theorems import api
from posproof.proofs.theorems.budget import DEFAULT_BUDGET, DEFAULT_TIMEOUT

ROWS: list[tuple[str, str, int, float]] = []


def _recording(job: str):
    real = api.within

    def within(budget, compute):
        start = time.perf_counter()
        out = real(budget, compute)
        proof = out[0]
        ROWS.append((job, getattr(proof, "name", "?"), budget.spent,
                     time.perf_counter() - start))
        return out
    return real, within


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", action="store_true",
                        help="add vaswani d=65536 and sine-only/column-exponent d=2048")
    args = parser.parse_args()
    jobs: list[tuple[str, object]] = []
    for name in sorted(PRESETS):
        if name in ("explicit", "expression"):      # they need their own parameters
            continue
        jobs.append((f"{name} d=512", lambda n=name: prove(preset(n), general=True,
                                                           budget=None, timeout=None)))
    for name, dim in (("sine-only", 8), ("vaswani", 8)):
        jobs.append((f"{name} d={dim}", lambda n=name, d=dim: prove(
            preset(n, dim=d), general=True, budget=None, timeout=None)))
    for name in sorted(MULTI_PRESETS):
        jobs.append((f"{name} (default d)", lambda n=name: prove_multi(
            multi_preset(n), general=True, budget=None, timeout=None)))
    if args.big:
        for name, dim in (("vaswani", 65536), ("sine-only", 2048), ("column-exponent", 2048)):
            jobs.append((f"{name} d={dim}", lambda n=name, d=dim: prove(
                preset(n, dim=d), budget=None, timeout=None)))
    for job, run in jobs:
        real, api.within = _recording(job)
        try:
            run()
        finally:
            api.within = real
    ROWS.sort(key=lambda r: -r[2])
    print(f"{'job':26} {'theorem':34} {'units':>9} {'seconds':>8}")
    for job, name, units, seconds in ROWS[:12]:
        print(f"{job:26} {name:34} {units:>9} {seconds:>8.2f}")
    top = ROWS[0]
    slowest = max(ROWS, key=lambda r: r[3])
    print(f"largest: {top[2]} units ({top[0]}, {top[1]}); the default budget "
          f"{DEFAULT_BUDGET} is {DEFAULT_BUDGET / top[2]:.1f}x that")
    print(f"slowest theorem: {slowest[3]:.2f} s ({slowest[0]}, {slowest[1]}); the safety net's "
          f"{DEFAULT_TIMEOUT:g} s is {DEFAULT_TIMEOUT / slowest[3]:.0f}x that")
    timed = [r for r in ROWS if r[3] >= 1.0]
    if timed:
        job, name, units, seconds = min(timed, key=lambda r: r[2] / r[3])
        full = DEFAULT_BUDGET / (units / seconds)
        print(f"slowest rate (theorems of 1 s or more): {units / seconds:.0f} units/s ({job}, "
              f"{name}): the whole default budget in {full:.0f} s, the safety net "
              f"{DEFAULT_TIMEOUT / full:.0f}x that")
    return 0


if __name__ == "__main__":
    sys.exit(main())
