"""xPos dtype limits: the validated closed form against a naive scan, in the same run.

    python benchmarks/bench_xpos.py

``posproof.xpos_scale_limits`` finds, for float32, float16 and bfloat16, the first position
where ζ_0^(±p/B) rounds to inf or 0 from one validated logarithm per threshold.  The naive
baseline rounds ζ_0^(±p/B) to each dtype position after position (NumPy float64 powers cast
to the dtype; torch for bfloat16) until the scale is lost.  Both must agree; the ratio of
their best-of-3 wall clocks is printed.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from posproof import XPos, xpos_scale_limits


def naive() -> dict[str, tuple[int, int]]:
    z, out = 2 / 7, {}
    casts = {"float32": lambda v: np.float32(v), "float16": lambda v: np.float16(v),
             "bfloat16": lambda v: float(torch.tensor(v, dtype=torch.float64).to(torch.bfloat16))}
    with np.errstate(over="ignore"):
        for name, cast in casts.items():
            over = next(p for p in range(1, 10**6) if not np.isfinite(cast(z ** (-p / 512))))
            under = next(p for p in range(1, 10**6) if cast(z ** (p / 512)) == 0)
            out[name] = (over, under)
    return out


def best(fn, runs: int = 3) -> tuple[float, object]:
    times, value = [], None
    for _ in range(runs):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    return min(times), value


def main() -> None:
    t_cold, _ = best(lambda: xpos_scale_limits(XPos(64)), runs=1)  # enclosures not yet cached
    t_fast, rows = best(lambda: xpos_scale_limits(XPos(64)))
    t_naive, scan = best(naive)
    for row in rows:
        assert (row["overflow_position"], row["underflow_position"]) == scan[row["dtype"]], row
        print(f"{row['dtype']:>9}: overflow at p = {row['overflow_position']}, underflow at "
              f"p = {row['underflow_position']}, first lost length uncentred "
              f"{row['first_length_uncentred']}, centred {row['first_length_centred']}")
    print(f"validated closed form {t_cold * 1e3:.1f} ms cold ({t_fast * 1e3:.2f} ms warm), "
          f"naive scan {t_naive * 1e3:.1f} ms: {t_naive / t_cold:.0f}× faster cold "
          f"(best of 3 for the scan)")


if __name__ == "__main__":
    main()
