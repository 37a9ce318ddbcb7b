"""Benchmark for ``posproof sweep``: 1 vs 2 local workers, and a Dask LocalCluster, measured.

    python benchmarks/bench_sweep.py             # the bars
    python benchmarks/bench_sweep.py --repeat 3  # best of 3 for each timing

Bars (issue 8): a grid of 64 points run with 1 and with 2 local workers —
speed-up ≥ 1.7× on a 2-core machine; the same grid through a
``dask.distributed`` LocalCluster (2 worker processes on loopback) gives
records identical to the local ones (everything but ``timing``).

The grid: Men et al.'s base bound (with first B(m) < 0 and the decay at L)
for 8 rotated dims × 8 context lengths, CPU-bound points of 0.1–1 s.  Each
local timing is wall-clock from creating the pool (worker start-up included)
to the last record written; the cluster's start-up is timed apart.  The
machine's load average is printed: other processes on a 2-core machine cut
the speed-up, and nothing here is estimated.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from posproof.sweep import LocalExecutor, Sweep, canonical, parse_grid, read_records

GRID = """
metrics = ["base_bound", "first_negative", "decay_at_length"]
length = [1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192]

[[family]]
kind = "rope"
base = 10000
dim = [16, 32, 48, 64, 80, 96, 112, 128]
"""


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def run_local(grid, workers: int, out: Path) -> tuple[float, list[dict]]:
    out.unlink(missing_ok=True)
    start = time.perf_counter()
    summary = Sweep(grid, out).run(LocalExecutor(workers))
    wall = time.perf_counter() - start
    if not summary.complete or summary.errors:
        raise SystemExit(f"the sweep did not complete: {summary.to_dict()}")
    return wall, read_records(out, grid)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; best is the result")
    parser.add_argument("--no-cluster", action="store_true", help="skip the LocalCluster part")
    args = parser.parse_args()
    grid = parse_grid(GRID, source="bench grid")
    print(f"grid: {grid.size} points ({', '.join(grid.metrics)}); {os.cpu_count()} CPUs")
    print(f"load average at start: {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        times: dict[int, float] = {}
        records: dict[int, list[dict]] = {}
        for _ in range(args.repeat):
            for workers in (1, 2):
                wall, recs = run_local(grid, workers, Path(tmp) / f"local{workers}.jsonl")
                if workers not in times or wall < times[workers]:
                    times[workers], records[workers] = wall, recs
        point_seconds = sorted(r["timing"]["seconds"] for r in records[1])
        print(f"1 local worker:  {times[1]:6.2f} s wall (points {point_seconds[0]:.2f}–"
              f"{point_seconds[-1]:.2f} s, sum {sum(point_seconds):.2f} s)")
        print(f"2 local workers: {times[2]:6.2f} s wall")
        ratio = times[1] / times[2]
        print(f"speed-up 2 vs 1 workers: {ratio:.2f}x (bar 1.7x: "
              f"{'met' if ratio >= 1.7 else 'NOT met'})")
        same = [canonical(r) for r in records[1]] == [canonical(r) for r in records[2]]
        print(f"records 1 worker == 2 workers (but timing): {same}")
        if not args.no_cluster:
            from distributed import LocalCluster

            from posproof.sweep import DaskExecutor

            start = time.perf_counter()
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              dashboard_address=None, host="127.0.0.1") as cluster:
                started = time.perf_counter() - start
                out = Path(tmp) / "cluster.jsonl"
                begin = time.perf_counter()
                summary = Sweep(grid, out).run(DaskExecutor(cluster.scheduler_address))
                wall = time.perf_counter() - begin
            if not summary.complete or summary.errors:
                raise SystemExit(f"the cluster sweep did not complete: {summary.to_dict()}")
            cluster_records = read_records(out, grid)
            identical = [canonical(r) for r in cluster_records] == \
                [canonical(r) for r in records[2]]
            print(f"LocalCluster (2 workers): {wall:6.2f} s wall ({started:.2f} s to start the "
                  "cluster, not included)")
            print(f"records LocalCluster == local (but timing): {identical} "
                  f"({len(cluster_records)} records; bar: identical: "
                  f"{'met' if identical else 'NOT met'})")
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
