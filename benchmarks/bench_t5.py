"""Exact T5 bucket table + float32/float16 audit, against a naive per-distance loop.

    python benchmarks/bench_t5.py                       # 128 buckets, max_distance 10^6
    python benchmarks/bench_t5.py --num-buckets 32 --max-distance 128 --naive 20000

Fast path (posproof): the exact bucket starts (integer R-th roots, one per log bucket), then
``T5Buckets.magnitude_buckets`` (searchsorted) and ``float_buckets`` (vectorised NumPy in the
dtype) at every magnitude 0 … 2·max_distance, for both directions (bidirectional and causal)
and both dtypes.  Naive baseline, same run: for each distance, the floor decided by integer
powers k by k (``direct_bucket``) and the dtype's bucket from NumPy scalars; it runs on the
first ``--naive`` magnitudes only (it would take minutes on all of them), and the ratio is
measured on that same range (fast path re-timed there); the full-range time of the fast path
is printed beside it.  Minimum of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from posproof.measure.t5_dtype import dtype_audit
from posproof.model.t5_buckets import T5Buckets
from posproof.proofs.t5 import direct_bucket

DTYPES = ("float32", "float16")


def fast(nb: int, md: int, up_to: int) -> int:
    changed = 0
    for bidirectional in (True, False):
        spec = T5Buckets(nb, md, bidirectional)
        spec.table()
        for dt in DTYPES:
            changed += dtype_audit(spec, dt, up_to=up_to).values["n_changed"]
    return changed


def naive(nb: int, md: int, up_to: int) -> int:
    changed = 0
    for bidirectional in (True, False):
        spec = T5Buckets(nb, md, bidirectional)
        m, per = spec.max_exact, spec.per_direction
        for dt in DTYPES:
            f = np.dtype(dt).type
            with np.errstate(over="ignore", invalid="ignore"):
                for n in range(up_to + 1):
                    exact = direct_bucket(spec, n)
                    if n < m:
                        got = n
                    else:
                        lg = f(math.log(float(f(f(n) / f(m)))))
                        v = lg / f(math.log(md / m)) * f(per - m)
                        got = min(m + int(v), per - 1) if np.isfinite(v) else -1
                    changed += exact != got
    return changed


def _best(fn, *args, repeat: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    best, out = math.inf, 0
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-buckets", type=int, default=128)
    ap.add_argument("--max-distance", type=int, default=10**6)
    ap.add_argument("--naive", type=int, default=20000, help="magnitudes the naive loop runs")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    nb, md = args.num_buckets, args.max_distance
    full, _ = _best(fast, nb, md, 2 * md, repeat=args.repeat)
    sub_fast, a = _best(fast, nb, md, args.naive, repeat=args.repeat)
    sub_naive, b = _best(naive, nb, md, args.naive, repeat=1)
    assert a == b, f"fast and naive disagree on the changed count: {a} vs {b}"
    print(f"num_buckets={nb}, max_distance={md}, both directions, float32 + float16")
    print(f"fast, |Δ| ≤ {2 * md}: {full:.3f} s (target ≤ 1 s)")
    print(f"on |Δ| ≤ {args.naive}: fast {sub_fast * 1e3:.2f} ms, naive loop {sub_naive:.2f} s, "
          f"ratio {sub_naive / sub_fast:.0f}× (same answer: {a} changed buckets)")


if __name__ == "__main__":
    main()
