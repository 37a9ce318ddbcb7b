"""Speed of the numeric half, against naive baselines run side by side in this process.

    python benchmarks/bench_kernel.py            # about a minute on two cores

Prints measured numbers only (best of a few runs where a run is short):

1. the offset kernel f(Δ) = Σ_k cos(ω_k Δ) for L = 10⁶ offsets and 512
   frequencies (d = 1024): posproof's GEMM scan against float64 ``np.cos``
   over the outer product Δ·ω, chunked to fit in memory (target ≥ 50×, ≤ 0.2 s);
2. the certified minimum separation for L = 10⁶, d = 1024, end to end
   (preset → certified Check; target ≤ 2 s);
3. for scale, an O(L²) pairwise-distance baseline at L = 4000, d = 1024,
   against the same question answered by the kernel;
4. ``posproof verify`` cold start to exit, as a subprocess (target ≤ 5 s).

Wall-clock numbers depend on what else the machine runs: the load average is
printed with them.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from posproof import OffsetKernel, check, preset  # noqa: E402

L = 10**6
DIM = 1024                    # 512 frequencies
PAIRWISE_L = 4000


def best_of(runs: int, func: Callable[[], Any]) -> tuple[float, Any]:
    """Fastest wall time of ``runs`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def naive_kernel(omega: np.ndarray, length: int, rows: int = 4096) -> np.ndarray:
    """Σ_k cos(ω_k Δ) with one float64 cosine per (Δ, k), chunked over Δ."""
    out = np.empty(length)
    for lo in range(0, length, rows):
        deltas = np.arange(lo, min(lo + rows, length), dtype=np.float64)
        out[lo:lo + deltas.size] = np.cos(np.multiply.outer(deltas, omega)).sum(axis=1)
    return out


def pairwise_min_distance(table: np.ndarray) -> tuple[float, int]:
    """min over i ≠ j of ‖row_i − row_j‖ from the full Gram matrix (O(L²·d)), and its |i − j|."""
    gram = table @ table.T
    norms = np.diag(gram)
    sq = norms[:, None] + norms[None, :] - 2 * gram
    np.fill_diagonal(sq, np.inf)
    i, j = np.unravel_index(int(np.argmin(sq)), sq.shape)
    return float(np.sqrt(max(sq[i, j], 0.0))), abs(int(i) - int(j))


def main() -> None:
    print(f"posproof kernel benchmarks — {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at start\n")

    # 1. the kernel ------------------------------------------------------------------------
    enc = preset("vaswani", dim=DIM)
    start = time.perf_counter()
    kernel = OffsetKernel(enc)
    first = kernel.values(0, L)
    cold = time.perf_counter() - start
    warm, values = best_of(5, lambda: kernel.values(0, L))
    naive_time, naive = best_of(1, lambda: naive_kernel(enc.frequencies_float, L))
    bound = kernel.bound(L)
    print(f"1. kernel f(Δ), L = {L:.0e}, {kernel.n} frequencies")
    print(f"   posproof GEMM scan        {warm:8.3f} s   (cold, with setup: {cold:.3f} s)")
    print(f"   naive float64 np.cos      {naive_time:8.3f} s")
    print(f"   speed-up                  {naive_time / warm:8.1f}×")
    print(f"   max |posproof − naive|    {np.abs(values - naive).max():8.1e}   "
          f"(posproof bound {bound:.1e}; the naive sum rounds Δ·ω, error up to "
          f"~{L * enc.frequencies_float.sum() * 2**-53:.0e})")
    assert np.array_equal(first, values)

    # 2. certified minimum separation end to end ---------------------------------------------
    def certified() -> Any:
        return check(preset("vaswani", dim=DIM), max_len=L, checks=["separation"])

    first_time, _ = best_of(1, certified)
    sep_time, report = best_of(3, certified)
    sep = report["separation"]
    print(f"\n2. certified minimum separation, L = {L:.0e}, d = {DIM}, end to end")
    print(f"   time                      {sep_time:8.3f} s   (first run: {first_time:.3f} s)")
    print(f"   result                    {sep.values['summary']}")
    print(f"   certified                 {sep.certified}")

    # 3. O(L²) pairwise baseline ---------------------------------------------------------------
    table = enc.table(PAIRWISE_L)
    pair_time, (pair_min, pair_delta) = best_of(1, lambda: pairwise_min_distance(table))
    kern_time, small = best_of(3, lambda: OffsetKernel(enc).maximum(1, PAIRWISE_L))
    print(f"\n3. minimum separation at L = {PAIRWISE_L}, d = {DIM}")
    print(f"   O(L²) pairwise distances  {pair_time:8.3f} s   min {pair_min:.12f} "
          f"at Δ={pair_delta}")
    print(f"   posproof kernel + mpmath  {kern_time:8.3f} s   min "
          f"{float(small.distance_mp):.12f} at Δ={small.delta}")
    print(f"   speed-up                  {pair_time / kern_time:8.1f}×")

    # 4. posproof verify cold start --------------------------------------------------------------
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "posproof", "verify"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    verdict = next((line for line in done.stdout.splitlines() if line.startswith("verdict")),
                   done.stderr.strip())
    print("\n4. posproof verify (proofs + checks, L = 1e6), cold start to exit, subprocess")
    print(f"   wall time                 {wall:8.3f} s   (load average {load:.2f})")
    print(f"   CPU time (user + sys)     {cpu:8.3f} s")
    print(f"   exit status {done.returncode}; {verdict}")


if __name__ == "__main__":
    main()
