"""Numeric verdicts a hair from their threshold (issue 21): each true or false by a margin
of 10⁻³⁰ … 10⁻⁶⁰, its truth decided here independently of posproof (mpmath at 400 digits
in a local context, or exact reasoning), and the verdict posproof gives.

A case is a statement; ``run()`` returns what posproof says of it: ``"holds"`` (proved,
pass, good), ``"fails"`` (refuted, fail, bad) or ``"unknown"``. Used by
``tests/test_corpus_numeric.py`` and ``scripts/confusion_matrix.py`` (third matrix):
0 false statements may hold, 0 true ones may fail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import sympy as sp

PI = sp.pi


@dataclass(frozen=True)
class Case:
    id: str
    statement: str
    truth: Callable[[], bool]        # decided here, not by posproof
    run: Callable[[], str]           # "holds" | "fails" | "unknown"


def _mp(expr: str, dps: int = 400) -> mpmath.mpf:
    """The exact expression (SymPy, integers exact: no float literal) to ``dps`` digits by
    SymPy's own evaluation, as an mpmath number at that precision."""
    with mpmath.workdps(dps):
        return mpmath.mpf(str(sp.N(sp.sympify(expr), dps + 20)))


def _check_status(status: str) -> str:
    return {"pass": "holds", "fail": "fails"}.get(status, "unknown")


def _proof_status(status: str) -> str:
    return {"proved": "holds", "refuted": "fails"}.get(status, "unknown")


# ------------------------------------------------------------------------- decay at L = 2
def _decay(h: str) -> Case:
    freqs = f"1, pi-1{h}"

    def truth() -> bool:          # "f(Δ) ≥ 0 for Δ < 2": f(1) = cos 1 + cos(π − 1 ± 10⁻⁴⁵)
        with mpmath.workdps(400):
            return mpmath.cos(1) + mpmath.cos(_mp(f"pi-1{h}")) >= 0

    def run() -> str:
        import posproof
        from posproof.model.schedules import Explicit

        enc = posproof.Encoding(Explicit([sp.sympify(f) for f in freqs.split(",")]),
                                "interleaved", 4)
        c = posproof.check(enc, max_len=2, checks=["decay"]).checks[0]
        if c.status != "pass":                     # the measurement itself is not certified
            return "unknown"
        return "holds" if str(c.values["first_negative"]).startswith("none") else "fails"
    return Case(f"decay f={freqs}", "the kernel stays ≥ 0 (no first negative) below L = 2",
                truth, run)


def _first_negative(h: str) -> Case:
    def truth() -> bool:          # "the first m with B(m) < 0 is 1"
        with mpmath.workdps(400):
            return mpmath.cos(1) + mpmath.cos(_mp(f"pi-1{h}")) < 0

    def run() -> str:
        from posproof.measure.explore.metrics import kernel_first_negative

        out = kernel_first_negative([sp.Integer(1), sp.sympify(f"pi-1{h}")], 20)
        if out.get("m") is None and out.get("status") == "unknown":
            return "unknown"
        return "holds" if out.get("m") == 1 else "fails"
    return Case(f"first negative [1, pi-1{h}]", "the first m ≤ 20 with B(m) < 0 is m = 1",
                truth, run)


def _collision(h: str) -> Case:
    freq = f"2*pi*(1{h})"

    def truth() -> bool:          # "positions 0 … 9 are distinct": ω·Δ ∉ 2πZ for 0 < Δ < 10
        exact = [sp.sin(sp.sympify(freq) * k / 2) for k in range(1, 10)]
        if any(e == 0 for e in exact):            # SymPy's exact evaluation: sin(kπ) = 0
            return False
        with mpmath.workdps(400):
            return all(abs(mpmath.sin(_mp(freq) * k / 2)) > mpmath.mpf(10) ** -300
                       for k in range(1, 10))

    def run() -> str:
        import posproof
        from posproof.model.schedules import Explicit

        enc = posproof.Encoding(Explicit([sp.sympify(freq)]), "interleaved", 2)
        rep = posproof.check(enc, max_len=10, checks=["separation"])
        return _check_status(rep.checks[0].status)
    return Case(f"separation ω={freq}", "positions 0 … 9 are distinct", truth, run)


def _base(h: str) -> Case:
    base = f"(22/(22-7*pi))**2{h}"

    def truth() -> bool:          # "the base is good for L = 30, d = 4": B(m) ≥ 0, m ≤ 30
        with mpmath.workdps(400):
            b = _mp(base)
            return all(mpmath.cos(m) + mpmath.cos(m / mpmath.sqrt(b)) >= 0 for m in range(31))

    def run() -> str:
        from posproof.measure.explore.basebound import base_bound

        answer = base_bound(30, 4).is_good(sp.sympify(base))
        return {"yes": "holds", "no": "fails", True: "holds", False: "fails"}.get(
            answer if isinstance(answer, (str, bool)) else str(answer), "unknown")
    return Case(f"base {base}", "the base is good for L = 30, d = 4", truth, run)


def _equal_pair(expr: str) -> Case:
    def truth() -> bool:          # the two frequencies are equal: translation holds
        return sp.simplify(sp.sympify(expr) - sp.sqrt(2) * 10**30) == 0

    def run() -> str:
        import posproof

        enc = posproof.Encoding.from_columns([("sin", "sqrt(2)*10**30"), ("cos", expr)])
        return _proof_status(posproof.prove(enc, theorems=["translation[row]"]).theorems[0]
                             .status)
    return Case(f"pair sin √2·10³⁰ / cos {expr}", "PE(x+Δ) = PE(x)·T(Δ) (the two are "
                "one frequency)", truth, run)


CASES: list[Case] = [
    _decay("+10**-45"), _decay("-10**-45"), _decay("+10**-60"), _decay("-10**-60"),
    _first_negative("+10**-45"), _first_negative("-10**-45"),
    _collision("+10**-50"), _collision("-10**-50"), _collision(""),
    _base("-10**-30"), _base("+10**-30"), _base("-10**-60"),
    _equal_pair("sqrt(2)*10**30*log(8)/log(2)/3"), _equal_pair("sqrt(8)*10**30/2"),
]


# ------------------------------------------------------------------------ the fourth matrix
COLUMNS = ("holds", "fails", "unknown", "crash")


def section(listing: bool = False) -> dict:
    """Run the cases: the confusion matrix, bars and time (scripts/confusion_matrix.py)."""
    import time

    start = time.perf_counter()
    table = {t: dict.fromkeys(COLUMNS, 0) for t in ("false", "true")}
    for case in CASES:
        t0 = time.perf_counter()
        truth = case.truth()
        try:
            said = case.run()
        except Exception:
            said = "crash"
        table["true" if truth else "false"][said] += 1
        if listing:
            ok = said != ("fails" if truth else "holds") and said != "crash"
            print(f"{'ok' if ok else 'WRONG':5} {'true ' if truth else 'false'} {said:8} "
                  f"{time.perf_counter() - t0:6.2f}s  {case.id}")
    f, t = table["false"], table["true"]
    bars = {"numeric: false statements holding == 0": f["holds"] == 0,
            "numeric: true statements failing == 0": t["fails"] == 0,
            "numeric: no crash": f["crash"] + t["crash"] == 0}
    return {"section": "numeric verdicts a hair from their threshold (tests/corpus_numeric.py)",
            "matrix": table, "bars": bars, "seconds": round(time.perf_counter() - start, 1),
            "cases": len(CASES)}


def print_section(result: dict) -> None:
    width = 10
    print(f"\n{result['section']}")
    print(f"{'':14}" + "".join(f"{c:>{width}}" for c in COLUMNS) + f"{'total':>{width}}")
    for truth in ("false", "true"):
        row = result["matrix"][truth]
        print(f"{truth + ' statement':14}" + "".join(f"{row[c]:>{width}}" for c in COLUMNS)
              + f"{sum(row.values()):>{width}}")
    for name, ok in result["bars"].items():
        print(f"  {'✓' if ok else '✗'} {name}")
    print(f"{result['cases']} statements in {result['seconds']:.1f} s")
