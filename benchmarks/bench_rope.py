"""Benchmarks for rotary embeddings: the certified base search and ``explore``, measured.

    python benchmarks/bench_rope.py              # search vs brute force, the table, explore
    python benchmarks/bench_rope.py --repeat 3   # best of 3
    python benchmarks/bench_rope.py --no-table   # skip Men et al.'s 1K…1M table
    python benchmarks/bench_rope.py --no-explore     # the docs' table (up to the first island)
    python benchmarks/bench_rope.py --no-explore --table-whole --table-up-to 262144 \
        --table-budget 400                             # the whole range: islands, threshold

Bars (issue 12 §1): the certified base search (:func:`posproof.base_bound`,
bases in [2, 1e12]) for d = 128, L = 32768 in ≤ 10 s; Men et al.'s whole table
(L = 1K, 2K, …, 1M at d = 128) in ≤ 120 s: the table is the smallest good base, so each
row is searched up to its first island (``first_only``; ``--table-whole`` searches the
whole range for the islands and the all-good threshold too).  Beside it, in the same run, the
integer-by-integer brute force (every m ≤ L by the same float64 GEMM kernel,
one base at a time, no error bound) over the same range: it is run on a
sub-range of integers and EXTRAPOLATED to the whole range (the line says so).
Bar (issue 6): ``explore`` of six variants at L = 131072 in ≤ 5 s.  Wall-clock
and CPU seconds are printed as measured, with the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np

from posproof.measure.explore import base_bound, explore
from posproof.measure.explore.basekernel import _kernel_values
from posproof.model.configs import parse_spec

TABLE = [2**k for k in range(10, 21)]   # Men et al.'s context lengths 1K … 1M

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


def _brute(length: int, dim: int, lo: int, count: int) -> set[int]:
    """The good integers in lo … lo+count−1: every m ≤ L at each base (float64, no error bound)."""
    c = np.arange(dim // 2) * (2.0 / dim)
    good = set()
    for b in range(lo, lo + count):
        values, _ = _kernel_values(np.exp(-c * np.log(b)), length)
        if values.min() >= 0:
            good.add(b)
    return good


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; best is the result")
    parser.add_argument("--no-table", dest="table", action="store_false",
                        help="skip Men et al.'s 1K…1M table")
    parser.add_argument("--table-up-to", type=int, default=TABLE[-1], metavar="L",
                        help="stop the table after this context length (default 1M)")
    parser.add_argument("--table-budget", type=float, default=300.0, metavar="S",
                        help="stop the table once it has taken this many seconds (default 300)")
    parser.add_argument("--table-whole", action="store_true",
                        help="search the whole range in each row (islands, threshold), not "
                             "only up to the first island")
    parser.add_argument("--no-explore", dest="explore", action="store_false",
                        help="skip the explore benchmark")
    args = parser.parse_args()
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")

    for length in (1024, 32768):
        runs = [timed(lambda n=length: base_bound(n, 128, time_budget=None, work_budget=None))
                for _ in range(args.repeat)]
        bb, wall, cpu = min(runs, key=lambda r: r[1])
        bar = (f" (bar 10 s: wall {'met' if wall <= 10 else 'NOT met'}, CPU "
               f"{'met' if cpu <= 10 else 'NOT met'})" if length == 32768 else "")
        print(f"certified search d=128 L={length}, bases [2, 1e12]: {wall:.2f} s wall, "
              f"{cpu:.2f} s CPU{bar}; {bb.evaluations} evaluations; audit: "
              f"{bb.audit_seconds:.2f} s of {bb.seconds:.2f} s")
        print(f"  {bb.summary()}")
        first = float(bb.bound)
        lo = int(first) - 100
        count = 200
        brute, bwall, _ = timed(lambda n=length, lo=lo: _brute(n, 128, lo, count))
        per = bwall / count
        print(f"  brute force, integers {lo}…{lo + count - 1} (a sub-range around the bound): "
              f"{bwall:.2f} s, {per * 1e3:.2f} ms a base; EXTRAPOLATED to every integer in "
              f"[2, 1e12]: {per * 1e12 / 86400 / 365:.3g} years "
              f"(ratio {per * 1e12 / wall:.2g}x the certified search)")
        agree = all((b in brute) == (bb.status(b) == "yes") for b in range(lo, lo + count))
        print(f"  on that sub-range the brute force's good integers agree with the certified "
              f"islands: {agree}")
    if args.table:
        total = total_cpu = audit = 0.0
        done = 0
        rows = [n for n in TABLE if n <= args.table_up_to]
        print("Men et al.'s table, d=128, certified smallest good base in [2, 1e12]:")
        for length in rows:
            if total > args.table_budget:
                print(f"  stopped before L={length}: the table has taken {total:.0f} s "
                      f"(--table-budget {args.table_budget:g})")
                break
            bb, wall, cpu = timed(lambda n=length: base_bound(
                n, 128, first_only=not args.table_whole,
                time_budget=None, work_budget=None))
            fit = 0.0424 * length ** 1.628   # the paper's Figure 1 fit, y = 0.0424 x^1.628
            began = time.perf_counter()
            fit_good = bb.is_good(fit)       # certified and audited (its evidence)
            wall += time.perf_counter() - began
            total += wall
            total_cpu += cpu
            done += 1
            audit += bb.audit_seconds
            lo, hi = bb.smallest or (None, None)
            print(f"  L={length:>8}: smallest good base in [{lo}, {hi}]  witness m="
                  f"{bb.witness_m}  "
                  + (f"all good from {bb.all_good_above}  islands {len(bb.islands)}  "
                     if args.table_whole else "")
                  + f"undecided {bb.undecided}  {wall:.1f} s ({cpu:.1f} s CPU; audit "
                  f"{bb.audit_seconds:.2f} s);  paper's fit {fit:.3g}: good? {fit_good}",
                  flush=True)
        whole = done == len(TABLE) and total <= 120
        scope = "whole range" if args.table_whole else "up to the first island"
        print(f"table rows above ({scope}): {total:.1f} s wall, {total_cpu:.1f} s CPU "
              f"(bar 120 s for 1K…1M: {'met' if whole else 'NOT met'})")
        print(f"audit: {audit:.1f} s of {total:.1f} s (python-flint Arb re-checks of each "
              "row's smallest good base and of the paper's fit's is_good answer)")

    if not args.explore:
        return 0
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
              f"{n['bands']['pairs_covered']}/{n['bands']['pairs']}  fp32 max phase error "
              f"{n['dtypes']['float32']['max_phase_error'][:8]}")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
