"""What is proved about ALiBi: :func:`prove_alibi` (Toeplitz bias, scores through offsets,
monotone decay, geometric slopes exactly for powers of two, MPT's rule vs the reference one).

Every decision is exact: the bias identity by the engine's :func:`is_zero` on one generic
head (slope a free positive symbol m), the softmax shift by rational cancellation, the sign
of each slope by interval arithmetic (:func:`posproof.validated.sign`), the geometric
question and the MPT comparison on the exact rational exponents (slope = 2^(−e), and
x ↦ 2^(−x) is injective, so equal ratios ⇔ equal exponent differences).  Each "proved"
is cross-checked exactly on concrete heads and positions.

>>> from posproof.model.alibi import alibi
>>> r = prove_alibi(alibi(12))
>>> [(p.name, p.status) for p in r.theorems]  # doctest: +NORMALIZE_WHITESPACE
[('alibi:toeplitz', 'proved'), ('alibi:scores-offset', 'proved'), ('alibi:monotone', 'proved'),
 ('alibi:geometric', 'refuted'), ('alibi:mpt-matches-reference', 'proved')]
>>> r.theorems[3].counterexample["slopes"]
['1/128', '1/256', 'sqrt(2)/2']
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import sympy as sp

from ..audit import apply
from ..errors import UnknownName
from ..evidence import Evidence, Sign
from ..model.alibi import Alibi, exact_slope, is_power_of_two, reference_exponents, slope_difference
from ..report import Proof, Report, Step

__all__ = ["ALIBI_THEOREMS", "GENERAL_ALIBI_THEOREMS", "SYMBOL_I", "SYMBOL_J", "SYMBOL_M",
           "prove_alibi"]

ALIBI_THEOREMS = ("toeplitz", "scores-offset", "monotone", "geometric", "mpt-matches-reference")
GENERAL_ALIBI_THEOREMS = ("geometric-iff-power-of-two", "mpt-matches-reference")

_M = sp.Symbol("m", positive=True)
_I, _J, _T = sp.symbols("i j t", integer=True)
#: The slope and the query / key positions of the bias expressions (used by the testing helpers).
SYMBOL_M, SYMBOL_I, SYMBOL_J = _M, _I, _J
#: Largest n checked exhaustively when a statement is proved for every n.
EXHAUSTIVE_HEADS = 256


def _slope(e: Fraction) -> sp.Expr:
    return exact_slope(e)


def _steepest(spec: Alibi) -> int:
    """The head with the smallest slope (largest exponent): the one an audit looks at."""
    e = spec.exponents
    return max(range(len(e)), key=lambda h: e[h])


def _bias(m: sp.Expr, i: Any, j: Any) -> sp.Expr:
    return -m * (i - j)


def _points(seed: int, count: int = 8) -> list[tuple[int, int, int]]:
    rng = random.Random(seed)
    return [(rng.randrange(1 << 20), rng.randrange(1 << 20), rng.randrange(-(1 << 20), 1 << 20))
            for _ in range(count)]


def _toeplitz(spec: Alibi, seed: int) -> Proof:
    from .theorems import is_zero

    statement = "B_h(i + t, j + t) = B_h(i, j) for every head h and all i, j, t (Toeplitz)"
    steps = [Step("B_h(i, j) = −m_h·(i − j), m_h = 2^(−e_h) with e_h exact: "
                  + ", ".join(str(s) for s in spec.slopes[:8])
                  + (" …" if spec.n_heads > 8 else ""), "definition (exact slopes)")]
    expr = _bias(_M, _I + _T, _J + _T) - _bias(_M, _I, _J)
    if is_zero(expr) is not True:  # pragma: no cover - the engine proves this identity
        return Proof("alibi:toeplitz", statement, "unknown", steps, note="engine gave up")
    steps.append(Step("−m·((i + t) − (j + t)) + m·(i − j) = 0 for a free slope m > 0",
                      "engine is_zero (one generic head)", r"B(i+t,j+t)-B(i,j)=0"))
    # every head: B_h = −m_h·(i − j) with m_h exact, so B_h(i + t, j + t) − B_h(i, j) is m_h
    # times an integer; that integer is computed exactly (no slope is ever expanded)
    cases = [(h, i, j, t) for h in range(spec.n_heads) for i, j, t in _points(seed + h, 2)]
    bad = [c for c in cases if ((c[1] + c[3]) - (c[2] + c[3])) - (c[1] - c[2]) != 0]
    cc = {"method": "exact integers", "cases": len(cases), "failures": len(bad)}
    h = _steepest(spec)
    i, j, t = _points(seed + h, 1)[0]
    ev = Evidence("symbolic identity", "structural", items=[
        Sign(f"B(i + t, j + t) − B(i, j) at head {h}", expr, "zero",
             env={_M: spec.slopes[h], _I: i, _J: j, _T: t}, engine="SymPy is_zero")],
        details={"exact_instances": len(cases)})
    if bad:  # pragma: no cover - an exact identity has no failing instance
        return Proof("alibi:toeplitz", statement, "unknown", steps, crosscheck=cc)
    return Proof("alibi:toeplitz", statement, "proved", steps, crosscheck=cc, evidence=ev)


def _scores(spec: Alibi, seed: int) -> Proof:
    statement = ("with ALiBi, s_h(i, j) = ⟨q, k⟩/√d + B_h(i, j) depends on positions only through "
                 "i − j; the key-only form m_h·j (HF BLOOM, MPT) gives the same softmax")
    steps = [Step("the content term ⟨q, k⟩/√d does not involve i or j; B_h(i + t, j + t) = "
                  "B_h(i, j)", "alibi:toeplitz"),
             Step("s_h(i + t, j + t) = s_h(i, j)", "substitution")]
    xs = sp.symbols("x0:3", real=True)
    c = sp.Symbol("c", real=True)

    def soft(shift: sp.Expr) -> sp.Expr:
        return sp.exp(xs[0] + shift) / sum(sp.exp(x + shift) for x in xs)

    if sp.cancel(sp.expand(soft(c) - soft(0))) != 0:  # pragma: no cover - exact identity
        return Proof("alibi:scores-offset", statement, "unknown", steps, note="cancel gave up")
    steps.append(Step("m_h·j = −m_h·(i − j) + m_h·i: a constant m_h·i along each query row i",
                      "algebra"))
    steps.append(Step("softmax(x + c·1) = softmax(x): exp(x_k + c) = e^c·exp(x_k) cancels",
                      "exp(a + c) = exp(a)·exp(c), rational cancellation"))
    rows = _points(seed, 4)
    diffs = {sp.simplify(spec.slopes[0] * j - _bias(spec.slopes[0], i, j)) - spec.slopes[0] * i
             for i, j, _ in rows}
    cc = {"method": "exact", "rows": len(rows), "key_only_minus_bias_minus_row_constant":
          sorted(str(d) for d in diffs)}
    status = "proved" if diffs == {0} else "unknown"
    env = {xs[0]: 1, xs[1]: Fraction(-7, 3), xs[2]: 5, c: Fraction(13, 2)}
    ev = Evidence("symbolic identity", "structural", items=[
        Sign("softmax(x + c)₀ − softmax(x)₀", soft(c) - soft(0), "zero", env=env,
             engine="SymPy cancel")])
    return Proof("alibi:scores-offset", statement, status, steps, crosscheck=cc,
                 evidence=ev if status == "proved" else None)


def _monotone(spec: Alibi) -> Proof:
    statement = ("for every head, the causal bias −m_h·Δ (Δ = i − j ≥ 0) and the bidirectional "
                 "−m_h·|Δ| strictly decrease as the distance grows")
    steps = [Step("B_h(Δ + 1) − B_h(Δ) = −m_h for Δ ≥ 0 (and −m_h·(|Δ| + 1) + m_h·|Δ| = −m_h)",
                  "algebra"),
             Step(f"m_h = 2^(−e_h) > 0 for all {spec.n_heads} heads (2^x > 0 for every real x; "
                  "each e_h is an exact rational)", "exponential positivity")]
    heads = sorted({0, _steepest(spec)})
    ev = Evidence("exact rationals", "all", items=[
        Sign(f"m_{h} = 2^(−{spec.exponents[h]})", spec.slopes[h], "positive",
             engine="2^x > 0") for h in heads],
        details={"heads": spec.n_heads, "exponents_exact": True})
    return Proof("alibi:monotone", statement, "proved", steps, evidence=ev,
                 crosscheck={"method": "exact", "heads_positive": spec.n_heads})


def _geometric(spec: Alibi) -> Proof:
    e = spec.exponents
    statement = "the slopes m_0, …, m_{n−1} form a geometric sequence (m_{h+1}/m_h constant)"
    power = is_power_of_two(spec.n_heads)
    steps = [Step("m_{h+1}/m_h = 2^(e_h − e_{h+1}), and x ↦ 2^x is injective: the ratios are "
                  "equal exactly when the exponent differences are", "exact exponents")]
    for h in range(1, len(e) - 1):
        if e[h + 1] - e[h] != e[h] - e[h - 1]:
            s = [_slope(x) for x in e[h - 1:h + 2]]
            r1, r2 = s[1] / s[0], s[2] / s[1]
            steps.append(Step(f"heads {h - 1}, {h}, {h + 1}: ratios {r1} ≠ {r2}",
                              "exact rationals"))
            ev = Evidence("exact rationals", "all", items=[Sign(
                f"m_{h}/m_{h - 1} − m_{h + 1}/m_{h}", r1 - r2,
                "positive" if e[h] - e[h - 1] < e[h + 1] - e[h] else "negative",
                engine="exact exponents (2^x increasing)")])
            return Proof("alibi:geometric", statement, "refuted", steps, counterexample={
                "heads": [h - 1, h, h + 1], "slopes": [str(x) for x in s],
                "ratios": [str(r1), str(r2)], "exact": True, "n_heads_power_of_two": power},
                evidence=ev)
    ratio = _slope(e[1] - e[0]) if len(e) > 1 else None
    steps.append(Step(f"every e_{{h+1}} − e_h = {e[1] - e[0] if len(e) > 1 else 0}: ratio "
                      f"{ratio if ratio is not None else '(one slope)'}", "exact rationals"))
    return Proof("alibi:geometric", statement, "proved", steps,
                 crosscheck={"method": "exact", "differences_checked": max(len(e) - 1, 0)},
                 evidence=Evidence("exact rationals", "all",
                                   details={"differences_checked": max(len(e) - 1, 0)},
                                   unaudited=_EXACT_EXPONENTS),
                 values={"ratio": str(ratio) if ratio is not None else None})


_EXACT_EXPONENTS = ("exact rational exponents compared (Python Fractions): no rounding to "
                    "re-check")


def _mpt(spec: Alibi) -> Proof:
    bmax = spec.alibi_bias_max
    statement = (f"MPT's rule (alibi_bias_max={bmax}) gives the reference slopes for "
                 f"n = {spec.n_heads}")
    steps = [Step("Q = 2^⌈log₂ n⌉, MPT e_k = B·k/Q (k = 1 … Q): even k first, then odd k",
                  "definition (gen_slopes)"),
             Step("reference: 8k/P (k = 1 … P), then 8k/(2P) for odd k, P = 2^⌊log₂ n⌋",
                  "definition (get_slopes)")]
    diff = slope_difference(spec.n_heads, bmax)
    if diff:
        h, a, b = diff[0]
        ev = Evidence("exact rationals", "all", items=[Sign(
            f"reference m_{h} − MPT m_{h}", _slope(a) - _slope(b),
            "positive" if a < b else "negative", engine="exact exponents (2^x increasing)")],
            details={"heads_differing": len(diff)})
        return Proof("alibi:mpt-matches-reference", statement, "refuted", steps,
                     counterexample={"head": h, "reference": str(_slope(a)),
                                     "mpt": str(_slope(b)), "heads_differing": len(diff),
                                     "exact": True}, evidence=ev)
    steps.append(Step(f"the {spec.n_heads} exact exponents are equal", "exact rationals"))
    return Proof("alibi:mpt-matches-reference", statement, "proved", steps,
                 crosscheck={"method": "exact", "heads": spec.n_heads},
                 evidence=Evidence("exact rationals", "all", details={"heads": spec.n_heads},
                                   unaudited=_EXACT_EXPONENTS))


def _general_geometric() -> Proof:
    statement = ("for every n ≥ 1, the reference slopes are geometric exactly when n is a power "
                 "of two")
    steps = [Step("n = 2^a: e_h = 8(h + 1)/n, every difference is 8/n", "exact rationals"),
             Step("otherwise n ≥ 3, P = 2^⌊log₂ n⌋ ≥ 2: e_{P−2} = 8 − 8/P, e_{P−1} = 8, "
                  "e_P = 4/P", "definition"),
             Step("e_{P−1} − e_{P−2} = 8/P > 0 > 4/P − 8 = e_P − e_{P−1} (P ≥ 2)",
                  "exact inequality")]
    bad = []
    for n in range(1, EXHAUSTIVE_HEADS + 1):
        e = reference_exponents(n)
        geometric = all(e[h + 1] - e[h] == e[1] - e[0] for h in range(len(e) - 1))
        if geometric != is_power_of_two(n):
            bad.append(n)  # pragma: no cover - the steps above exclude it
    status = "unknown" if bad else "proved"
    return Proof("general:alibi:geometric-iff-power-of-two", statement, status, steps,
                 evidence=Evidence("exact rationals", "structural",
                                   details={"exhaustive_n": EXHAUSTIVE_HEADS}),
                 general=True, crosscheck={"method": "exact", "n": f"1…{EXHAUSTIVE_HEADS}",
                                           "failures": bad})


def _general_mpt() -> Proof:
    statement = "for every n ≥ 1, MPT's rule with alibi_bias_max = 8 gives the reference slopes"
    steps = [Step("n = 2^a: Q = n, MPT e_k = 8k/n = reference", "definition"),
             Step("otherwise Q = 2P: the even k = 2j give 8·2j/(2P) = 8j/P (j = 1 … P), the "
                  "reference slopes of P, in order", "exact rationals"),
             Step("then the odd k give 8k/(2P), k = 1, 3, …: every other slope of 2P, the "
                  "reference's second part; both take the first n − P", "exact rationals")]
    bad = [n for n in range(1, EXHAUSTIVE_HEADS + 1) if slope_difference(n, 8)]
    return Proof("general:alibi:mpt-matches-reference", statement,
                 "unknown" if bad else "proved", steps, general=True,
                 evidence=Evidence("exact rationals", "structural",
                                   details={"exhaustive_n": EXHAUSTIVE_HEADS}),
                 crosscheck={"method": "exact", "n": f"1…{EXHAUSTIVE_HEADS}", "failures": bad})


def prove_alibi(spec: Alibi, *, theorems: Iterable[str] | None = None, general: bool = False,
                seed: int = 0) -> Report:
    """Prove or refute the ALiBi theorems for ``spec``; ``general`` adds the every-n ones.

    >>> from posproof.model.alibi import alibi
    >>> prove_alibi(alibi(8), theorems=["geometric"]).theorems[0].status
    'proved'
    >>> prove_alibi(alibi(8), theorems=["nope"])
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: theorem='nope' is not an ALiBi theorem; use one of toeplitz, scores-offset, monotone, geometric, mpt-matches-reference
    """  # noqa: E501
    names = list(theorems) if theorems else list(ALIBI_THEOREMS)
    for name in names:
        if name not in ALIBI_THEOREMS:
            raise UnknownName(f"theorem={name!r} is not an ALiBi theorem; use one of "
                              + ", ".join(ALIBI_THEOREMS))
    build = {"toeplitz": lambda: _toeplitz(spec, seed),
             "scores-offset": lambda: _scores(spec, seed),
             "monotone": lambda: _monotone(spec), "geometric": lambda: _geometric(spec),
             "mpt-matches-reference": lambda: _mpt(spec)}
    proofs = [build[name]() for name in names]
    if general:
        proofs += [_general_geometric(), _general_mpt()]
    for p in proofs:
        apply(p)                       # the independent audit (Arb) of each deciding quantity
    return Report(spec.to_dict(), proofs)
