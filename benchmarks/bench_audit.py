"""The independent audit's share of each budgeted job (issue 21), measured side by side.

    python benchmarks/bench_audit.py            # verify, prove d = 4096, base bound (first island)
    python benchmarks/bench_audit.py --quick    # smaller sizes

Each job runs with the auditor's time accumulated (``posproof.audit.audit`` wrapped by a
timer: the same calls, counted), and the share is audit time / whole time. The naive
baseline beside it is the same job with the audit switched off (``posproof.audit.audit``
replaced by one that records "nothing to audit"); after a warm-up, the two alternate and
the best of each is printed: their difference is the audit's cost as a user sees it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import posproof
from posproof import audit as audit_module
from posproof.evidence import Audit


class _Timer:
    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self.items = 0

    def wrap(self, real: Callable) -> Callable:
        def timed(evidence, *args, **kwargs):
            start = time.perf_counter()
            try:
                return real(evidence, *args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.calls += 1
                self.items += len(evidence.items)
        return timed


def _off(evidence, *args, **kwargs) -> Audit:
    evidence.audit = Audit("nothing to audit", "switched off (benchmark baseline)")
    return evidence.audit


def _run(job: Callable[[], object], audit: Callable) -> float:
    real = audit_module.audit
    audit_module.audit = audit
    try:
        start = time.perf_counter()
        job()
        return time.perf_counter() - start
    finally:
        audit_module.audit = real


def _measure(job: Callable[[], object], repeat: int = 2
             ) -> tuple[float, float, float, int, int]:
    """Best of ``repeat`` alternating runs with and without the audit (a warm-up first, so
    neither side pays the first run's caches)."""
    _run(job, _off)
    withs, withouts = [], []
    timer = _Timer()
    for _ in range(repeat):
        timer = _Timer()
        withs.append(_run(job, timer.wrap(audit_module.audit)))
        withouts.append(_run(job, _off))
    return min(withs), min(withouts), timer.seconds, timer.calls, timer.items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args(argv)
    dim = 512 if args.quick else 4096
    lengths = [1024, 8192] if args.quick else [1024, 65536, 1 << 20]
    jobs = {
        "verify (d=512, L=1e6, general)": lambda: audit_module.audit_report(posproof.Report(
            {}, posproof.prove(posproof.preset("vaswani", dim=512), general=True).theorems,
            posproof.check(posproof.preset("vaswani", dim=512), max_len=10**6).checks)),
        f"prove (d={dim})": lambda: posproof.prove(posproof.preset("vaswani", dim=dim)),
    }
    for length in lengths:
        jobs[f"base bound, first island (L={length}, d=128)"] = (
            lambda length=length: posproof.base_bound(length, 128, first_only=True))
    print(f"{'job':<44}{'with audit':>12}{'without':>10}{'audit':>9}{'share':>8}"
          f"{'evidence':>10}{'items':>7}")
    for name, job in jobs.items():
        whole, without, spent, calls, items = _measure(job)
        print(f"{name:<44}{whole:>11.2f}s{without:>9.2f}s{spent:>8.2f}s"
              f"{100 * spent / whole:>7.1f}%{calls:>10}{items:>7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
