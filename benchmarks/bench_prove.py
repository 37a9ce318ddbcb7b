"""Benchmark of the proof engine against its targets, and against the naive SymPy approach.

Run from the repository root (no arguments; about two minutes)::

    python benchmarks/bench_prove.py            # full run
    python benchmarks/bench_prove.py --quick    # fewer repetitions, smaller naive sample

It prints, in one process:

1. all concrete theorems, ``prove(preset("vaswani", dim=d))``, at d = 64, 512, 4096;
2. the general-d proofs alone (``posproof.proofs.theorems.api.general_proofs``, the part that
   ``prove(..., general=True)`` adds after the concrete theorems);
3. the naive baseline: dense ``sympy.Matrix`` PE(x) (1×d) and T(Δ) (d×d) for the
   interleaved layout, PE(x)·T(Δ) − PE(x+Δ), ``simplify`` on every entry, at
   d = 256 and 512.  Simplifying all d entries takes minutes, so a fixed,
   evenly spaced subset of entries is simplified and the total extrapolated
   linearly (said so in the output, with the number of entries);
4. the targets with PASS/MISS.

Timings of posproof are the best of a few repetitions, each after clearing the
expression caches of :mod:`posproof.model.encoding`, so a repetition does not reuse
the previous one's SymPy objects; the cold first run is printed too.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sympy as sp

import posproof
from posproof import preset, prove
from posproof.model import encoding as _encoding
from posproof.proofs.theorems import GENERAL_THEOREMS
from posproof.proofs.theorems.api import general_proofs

TARGETS = {
    "general": 2.0,        # all general-d proofs together, seconds
    "concrete_4096": 5.0,  # all concrete theorems at d = 4096, seconds
    "speedup_512": 10.0,   # naive / posproof at d = 512, at least
    "scaling": 10.0,       # time(4096) / time(512), at most
}


def clear_caches() -> None:
    """Forget cached SymPy sin/cos objects so each repetition builds its own."""
    _encoding.trig.cache_clear()
    _encoding.negate.cache_clear()


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(cold, best, result): the first run and the best of ``repeat`` runs, caches cleared."""
    times, result = [], None
    for _ in range(repeat):
        clear_caches()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return times[0], min(times), result


def naive(d: int, sample: int) -> dict[str, Any]:
    """The approach the pitfalls warn about: dense d×d SymPy matrices, simplify every entry."""
    x, delta = sp.symbols("x delta", real=True)
    w = [sp.Integer(10000) ** sp.Rational(-2 * k, d) for k in range(d // 2)]

    start = time.perf_counter()
    pe = sp.Matrix(1, d, lambda _, j: (sp.sin if j % 2 == 0 else sp.cos)(w[j // 2] * x))
    shifted = sp.Matrix(1, d, lambda _, j: (sp.sin if j % 2 == 0 else sp.cos)(
        w[j // 2] * (x + delta)))
    t = sp.zeros(d, d)
    for k in range(d // 2):
        s, c = 2 * k, 2 * k + 1
        cos, sin = sp.cos(w[k] * delta), sp.sin(w[k] * delta)
        t[s, s], t[c, s], t[s, c], t[c, c] = cos, sin, -sin, cos
    build = time.perf_counter() - start

    start = time.perf_counter()
    residual = pe * t - shifted
    multiply = time.perf_counter() - start

    count = min(sample, d)
    indices = sorted({round(i * (d - 1) / max(count - 1, 1)) for i in range(count)})
    start = time.perf_counter()
    zeros = sum(sp.simplify(residual[0, j]) == 0 for j in indices)
    sampled = time.perf_counter() - start
    per_entry = sampled / len(indices)
    return {"d": d, "build": build, "multiply": multiply, "entries": len(indices),
            "zeros": zeros, "sampled": sampled, "simplify": per_entry * d,
            "extrapolated": len(indices) < d,
            "total": build + multiply + per_entry * d}


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and samples")
    args = parser.parse_args()
    repeat = 2 if args.quick else 3
    sample = 16 if args.quick else 64

    print(f"posproof {posproof.__version__}, sympy {sp.__version__}, Python "
          f"{platform.python_version()}, {platform.machine()}")
    print(f"best of {repeat} runs, expression caches cleared before each run\n")

    # Warm-up: imports and SymPy's own first-call costs, not posproof's work.
    prove(preset("vaswani", dim=8))

    print("1. all concrete theorems: prove(preset('vaswani', dim=d))")
    concrete: dict[int, float] = {}
    for d in (64, 512, 4096):
        cold, best, report = timed(lambda d=d: prove(preset("vaswani", dim=d)), repeat)
        statuses = {p.status for p in report.theorems}
        concrete[d] = best
        print(f"   d={d:<5} best {best:7.3f} s   cold {cold:7.3f} s   "
              f"{len(report.theorems)} theorems, statuses {sorted(statuses)}")
    translation: dict[int, float] = {}
    for d in (256, 512):
        _, best, _ = timed(lambda d=d: prove(preset("vaswani", dim=d),
                                             theorems=["translation[row]"]), repeat)
        translation[d] = best
    print(f"   translation[row] alone: d=256 {translation[256]:.3f} s, "
          f"d=512 {translation[512]:.3f} s")

    print("\n2. general-d proofs alone: "
          "posproof.proofs.theorems.api.general_proofs(enc, GENERAL_THEOREMS, 0)")
    enc = preset("vaswani", dim=512)
    cold, general_best, proofs = timed(lambda: general_proofs(enc, GENERAL_THEOREMS, 0), repeat)
    print(f"   {len(proofs)} proofs, statuses {sorted({p.status for p in proofs})}: "
          f"best {general_best:.3f} s   cold {cold:.3f} s")
    _, with_general, _ = timed(lambda: prove(enc, general=True), 1)
    print(f"   for reference, prove(d=512, general=True) end to end: {with_general:.3f} s")

    print("\n3. naive baseline: dense sympy.Matrix PE(x)·T(Δ) − PE(x+Δ), simplify each entry")
    baseline: dict[int, dict[str, Any]] = {}
    for d in (256, 512):
        r = naive(d, sample)
        baseline[d] = r
        how = (f"EXTRAPOLATED linearly from {r['entries']} of {d} entries "
               f"({r['sampled']:.1f} s measured)" if r["extrapolated"] else "all entries")
        print(f"   d={d:<4} build {r['build']:6.2f} s   multiply {r['multiply']:6.2f} s   "
              f"simplify {r['simplify']:7.1f} s [{how}]   total {r['total']:7.1f} s   "
              f"({r['zeros']}/{r['entries']} simplified entries reached 0)")
        line = (f"          naive / posproof translation[row]: "
                f"{r['total'] / translation[d]:.1f}x")
        if d in concrete:
            line += f";  naive / posproof all concrete theorems: {r['total'] / concrete[d]:.1f}x"
        print(line)
    ratio_all = baseline[512]["total"] / concrete[512]

    print("\n4. targets")
    scaling = concrete[4096] / concrete[512]
    rows = [
        ("all general-d proofs together", f"{general_best:.3f} s",
         f"<= {TARGETS['general']:g} s", general_best <= TARGETS["general"]),
        ("all concrete theorems at d=4096", f"{concrete[4096]:.3f} s",
         f"<= {TARGETS['concrete_4096']:g} s", concrete[4096] <= TARGETS["concrete_4096"]),
        ("naive / posproof at d=512 (all theorems)", f"{ratio_all:.1f}x",
         f">= {TARGETS['speedup_512']:g}x", ratio_all >= TARGETS["speedup_512"]),
        ("time(4096) / time(512)", f"{scaling:.2f}",
         f"<= {TARGETS['scaling']:g}", scaling <= TARGETS["scaling"]),
    ]
    for name, measured, target, ok in rows:
        print(f"   {verdict(ok)}  {name:<42} {measured:>10}   target {target}")
    if baseline[512]["extrapolated"]:
        print(f"   (the naive d=512 time is extrapolated from {baseline[512]['entries']} "
              "simplified entries; build and multiply were measured in full)")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
