"""How long a confirmed explanation takes, against a naive ranking, on typical table sizes.

    python benchmarks/bench_explain.py [--quick]

For each size (positions × dim) and a few bugs of tests/bug_corpus.py, prints the
seconds of ``check_encoding`` without an explanation, with one, and of the naive
ranking (every hypothesis regenerated on every row, no screening), with the
ratio naive / screened.  The brief's bar: the explanation well under a second at
typical sizes (1024 × 64, 2048 × 512).  Wall-clock seconds, with the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

import bug_corpus  # noqa: E402

import posproof  # noqa: E402
from posproof.testing import check_encoding  # noqa: E402
from posproof.testing import hypotheses as hy  # noqa: E402


def _bugs(d: int, length: int) -> dict[str, np.ndarray]:
    enc = posproof.preset("vaswani", dim=d)
    table = enc.table(length)
    swapped = table[:, [j + 1 if j % 2 == 0 else j - 1 for j in range(d)]]
    return {"column index": bug_corpus.column_index(d, length),
            "sin/cos swapped": swapped,
            "base 500000": posproof.preset("vaswani", dim=d, base=500000).table(length),
            "random": np.random.default_rng(0).normal(size=(length, d))}


def _naive(table: np.ndarray, d: int) -> float:
    """Every hypothesis scored on every row (what the screening avoids)."""
    enc = posproof.preset("vaswani", dim=d)
    pos = np.arange(table.shape[0])
    eps = 2.0**-52
    start = time.perf_counter()
    hyps = [*hy.structural(enc), *hy.padding(enc, table, pos), *hy.precision(enc, eps),
            *hy.fitted(enc, table, pos, hy.measured_frequencies(table, eps))]
    spec = hy.Model.of(enc).regenerate(pos)
    for h in hyps:
        hy.score_hypothesis(h, table, pos, eps, eps, (spec, eps))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1024 × 64 only")
    args = parser.parse_args(argv)
    sizes = [(1024, 64)] if args.quick else [(1024, 64), (2048, 512), (8192, 1024)]
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'size':>12s} {'bug':16s} {'check':>8s} {'+explain':>9s} {'naive':>8s} "
          f"{'naive/ours':>10s}  explanation")
    for length, d in sizes:
        for name, table in _bugs(d, length).items():
            t0 = time.perf_counter()
            check_encoding(table, "vaswani", explain=False)
            t1 = time.perf_counter()
            report = check_encoding(table, "vaswani")
            t2 = time.perf_counter()
            naive = _naive(table, d)
            ours = t2 - t1 - (t1 - t0)
            key = report.hypotheses[0]["key"] if report.hypotheses and \
                report.hypotheses[0]["fits"] else "none"
            print(f"{length:>6d} × {d:<4d} {name:16s} {t1 - t0:8.3f} {ours:9.3f} {naive:8.3f} "
                  f"{naive / max(ours, 1e-9):10.1f}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
