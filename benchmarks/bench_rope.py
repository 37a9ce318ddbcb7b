"""Benchmarks for rotary embeddings: the base bound and ``explore``, measured, with the bars.

    python benchmarks/bench_rope.py            # both bars
    python benchmarks/bench_rope.py --repeat 3 # best of 3

Bars (issue 6): the base bound for d = 128, L = 32768 in ≤ 10 s; ``explore`` of
six variants at L = 131072 in ≤ 5 s.  Wall-clock and CPU seconds are printed
as measured (the machine's load average too: shared machines slow the
small GEMMs of the scans a lot); nothing here is estimated.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from posproof.configs import parse_spec
from posproof.explore import base_bound, explore

SIX = [
    "rope:base=10000,dim=128,name=default",
    "rope:base=10000,dim=128,scaling=linear,factor=4,name=linear",
    "rope:base=10000,dim=128,scaling=ntk,factor=4,name=ntk",
    "rope:base=10000,dim=128,scaling=dynamic,factor=2,original_max_position_embeddings=4096,"
    "name=dynamic",
    "rope:base=1000000,dim=128,scaling=yarn,factor=4,original_max_position_embeddings=32768,"
    "name=yarn",
    "rope:base=500000,dim=128,scaling=llama3,factor=8,original_max_position_embeddings=8192,"
    "name=llama3",
]


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; best is the result")
    args = parser.parse_args()
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")

    runs = [timed(lambda: base_bound(32768, 128)) for _ in range(args.repeat)]
    bb, wall, cpu = min(runs, key=lambda r: r[1])
    print(f"base bound d=128 L=32768: {wall:.2f} s wall, {cpu:.2f} s CPU (bar 10 s: "
          f"{'met' if wall <= 10 else 'NOT met'})")
    print(f"  {bb.summary()}")
    print(f"  smallest good base bracket ({bb.smallest.lower}, {bb.smallest.upper}], witness "
          f"B({bb.smallest.witness_m}) = {bb.smallest.witness_mp} at the lower end; upper end "
          f"certified: {bb.smallest.upper_certified}")
    print(f"  grid {len(bb.grid)} bases, dense scan {len(bb.dense)} bases, "
          f"{len(bb.good_runs)} good runs")

    length = 131072

    def run_explore():
        encodings = [parse_spec(s, seq_len=length) for s in SIX]
        return explore(encodings, length)

    runs = [timed(run_explore) for _ in range(args.repeat)]
    ex, wall, cpu = min(runs, key=lambda r: r[1])
    print(f"explore 6 variants L={length}: {wall:.2f} s wall, {cpu:.2f} s CPU (bar 5 s: "
          f"{'met' if wall <= 5 else 'NOT met'}); verdict {'OK' if ex.ok else 'NOT OK'}")
    for s, n in zip(ex.subjects, ex.numbers, strict=True):
        print(f"  {s.label:<8} first B(m)<0: {n['first_negative']['m']!s:<7} pairs covered "
              f"{n['bands']['count']}/{n['bands']['pairs']}  fp32 max phase error "
              f"{n['dtypes']['float32']['max_phase_error'][:8]}")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
