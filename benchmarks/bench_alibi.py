"""ALiBi bias check at 64 heads × 8192²: through the Toeplitz structure vs materialised.

    PYTHONPATH=$PWD python benchmarks/bench_alibi.py
    PYTHONPATH=$PWD python benchmarks/bench_alibi.py --heads 64 --length 8192 --naive-length 1024

The impl under test is a pairwise bias ``bias(q_positions, k_positions) → (heads, q, k)``
in float32 (NumPy).  The structured check
(:func:`posproof.measure.alibi.toeplitz_bias_check`) asks it for the first row and column
(2L − 1 offsets a head) and probes the Toeplitz property on 16 random 64 × 64 blocks; the
naive check (:func:`posproof.measure.alibi.dense_bias_check`) materialises the whole
(heads, L, L) bias and compares entry by entry.  The naive one runs at a smaller L (the
full size is 64·8192² float32 = 17 GB) and is extrapolated by (L / L_naive)²; the ratio
printed is extrapolated naive time / structured time.  Minimum of --repeat runs each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from posproof.measure.alibi import dense_bias_check, toeplitz_bias_check
from posproof.model.alibi import alibi


def make_impl(slopes: np.ndarray):
    s32 = slopes.astype(np.float32)

    def bias(q, k):
        d = (np.asarray(q)[:, None] - np.asarray(k)[None, :]).astype(np.float32)
        return -s32[:, None, None] * d[None]
    return bias


def best(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heads", type=int, default=64)
    ap.add_argument("--length", type=int, default=8192)
    ap.add_argument("--naive-length", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    slopes = alibi(args.heads).slopes_array()
    impl = make_impl(slopes)
    t_fast, res = best(lambda: toeplitz_bias_check(impl, slopes, args.length), args.repeat)
    pos = np.arange(args.naive_length)
    t_naive, dense = best(lambda: dense_bias_check(impl(pos, pos), slopes, causal_only=False),
                          args.repeat)
    scale = (args.length / args.naive_length) ** 2
    print(f"structured: {args.heads} heads × {args.length}² in {t_fast:.3f} s "
          f"({res['status']}, {res['entries_evaluated']:,} of {res['entries_covered']:,} "
          "entries evaluated)")
    print(f"naive:      {args.heads} heads × {args.naive_length}² in {t_naive:.3f} s "
          f"({dense['status']}); extrapolated to {args.length}²: {t_naive * scale:.1f} s")
    print(f"ratio (naive extrapolated / structured): {t_naive * scale / t_fast:.0f}×")
    print(f"target ≤ 1 s: {'met' if t_fast <= 1 else 'MISSED'}")


if __name__ == "__main__":
    main()
