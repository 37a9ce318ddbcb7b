"""Claims a user states about an encoding: a period, a bound, a column permutation.

Each claim is decided by the proof engine's rules: ``proved`` only by an exact
argument (cross-checked in mpmath at random points), ``refuted`` only with a
counterexample at an exact point whose residual is certified by interval
arithmetic (:mod:`posproof.validated`), ``unknown`` otherwise.  Every sign and
comparison is validated: a value that only *looks* different at some
precision never decides anything.

>>> from posproof import preset, prove
>>> enc = preset("binary", dim=4)
>>> [p.status for p in prove(enc, theorems=[], claim_period=8, claim_bound="1/2").theorems]
['proved', 'refuted']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath
import sympy as sp

from ..errors import InvalidParameter
from ..evidence import Evidence, Sign
from ..model.encoding import Encoding, X
from ..model.layouts import get_layout
from ..model.schedules import exact_number
from ..precise import DEFAULT_DPS, mp_value
from ..report import Proof, Step
from ..validated import Unenclosable, Unresolved, bounds, compare, enclose, exact_ratio, sign
from .witness import outward, proved_evidence, sign_item, weighted_sum

__all__ = ["bound_claim", "parse_permutation", "period_claim", "permutation_claim"]

#: Precisions (bits) at which a witness's residual is enclosed, breadth first over the
#: candidates: a counterexample is confirmed when the enclosure excludes 0 (however small
#: the residual: a frequency off by 10^-30 is refuted too).
_WITNESS_BITS = (192, 1024, 4096)
#: A residual certified above this is preferred (a plain mistake, seen at any precision).
_PLAIN = mpmath.mpf(10) ** -20


def _fmt(value: Any, digits: int = 20) -> str:
    return mpmath.nstr(value, digits)


def _extra_digits(*magnitudes: Any) -> int:
    """Digits lost to angles as large as the product of ``magnitudes`` (kept, not loosened)."""
    size = mpmath.mpf(1)
    for m in magnitudes:
        size *= max(mpmath.mpf(1), abs(mpmath.mpf(m)))
    return int(mpmath.log10(size)) + 10


# --------------------------------------------------------------------------- period
def period_claim(engine: Any, value: Any) -> Proof:
    """Decide "PE(x + P) = PE(x) for every real x" for the claimed P.

    P is a period exactly when ω·P/2π is an integer for every frequency ω; each
    ratio is decided exactly (:func:`posproof.validated.exact_ratio`).  A frequency
    whose ratio is not an integer yields a column and a position x where the two
    sides differ, evaluated in mpmath.
    """

    enc: Encoding = engine.enc
    period = exact_number("claim_period", value)
    if sign(period) != 1:
        raise InvalidParameter(f"claim_period={value!r} must be > 0 (a period is a positive "
                               "shift P with PE(x+P) = PE(x); its sign must be certain)")
    name, statement = "claim:period", f"PE(x+P) = PE(x) for every real x, with P = {period}"
    steps = [Step("PE(x+P) = PE(x) for every x exactly when ω_k·P ∈ 2πℤ for every frequency ω_k "
                  "of a non-zero column", "periodicity of sin and cos")]
    failing, undecided = [], []
    for k, freq in enumerate(enc.frequencies):
        engine.budget.charge_groups("the exact ratios of the claimed period", 1)
        turns = exact_ratio(freq * period, 2 * sp.pi)
        if turns is None:
            undecided.append(k)
        elif turns is False or turns.q != 1:
            failing.append((k, turns))
    if not failing and not undecided:
        n = len(enc.frequencies)
        steps.append(Step(f"ω_k·P/2π is an integer for each of the {n} frequencies "
                          "(decided exactly)", "exact ratio"))

        def residual(x: int, y: int) -> mpmath.mpf:
            return _period_residual(engine, period, x, engine.m.sample_groups())[0]
        cc = engine.crosscheck(name, residual, scale=lambda x, y: float(period) + abs(x))
        gap = weighted_sum(_column(enc, j, X + period) - _column(enc, j, X)
                             for j in engine.sample_columns())
        ev = engine.zero_evidence(name, cc, lambda x, y: (gap, {X: x}),
                                  method="exact ratios ω_k·P/2π ∈ ℤ")
        return Proof(name, statement, "proved", steps, crosscheck=cc,
                     values={"period": str(period)}, exact=period, evidence=ev)
    for k, turns in failing[:1]:
        what = ("irrational" if turns is False else f"{turns}, not an integer")
        steps.append(Step(f"ω_{k}·P/2π is {what}", "exact ratio"))
    order = [k for k, _ in failing] + undecided
    for k in order[:8]:
        ce = _period_witness(engine, period, k)
        if ce is not None:
            steps.append(Step(f"column {ce['column']} at x = {ce['x'][:16]}: PE(x+P) = "
                              f"{ce['lhs'][:16]} but PE(x) = {ce['rhs'][:16]}",
                              "interval arithmetic (certified residual ≠ 0)"))
            item = ce.pop("_item")
            return Proof(name, statement, "refuted", steps, counterexample=ce,
                         evidence=Evidence("certified sign", items=[item]))
    return Proof(name, statement, "unknown", steps,
                 note="no exact decision and no counterexample at the points tried")


def _period_residual(engine: Any, period: sp.Expr, x: Any,
                     groups: Sequence[tuple[int, ...]]) -> tuple[mpmath.mpf, int]:
    extra = _extra_digits(engine.m.omega_max, mp_value(period, 20) + abs(mpmath.mpf(x)))
    with mpmath.workdps(DEFAULT_DPS + extra):
        p = mp_value(period, DEFAULT_DPS + extra)
        worst, where = mpmath.mpf(0), -1
        for cols in groups:
            for j in cols:
                r = abs(engine.m.pe_mp(j, x + p) - engine.m.pe_mp(j, x))
                if r > worst:
                    worst, where = r, j
        return worst, where


def _column(enc: Encoding, j: int, x: sp.Expr) -> sp.Expr:
    """Column j of PE at the exact point x, as a SymPy expression."""
    func = enc.column_funcs[j]
    if func == "zero":
        return sp.Integer(0)
    return (sp.sin if func == "sin" else sp.cos)(enc.column_frequency(j) * x)


def _show(x: sp.Expr) -> str:
    """An exact point as text the corpus can read back: "7", "1/3", or a finite decimal."""
    if x.is_Rational and x.q > 1 and 10 ** len(str(x.q)) % x.q == 0:
        with mpmath.workdps(len(str(x.p)) + len(str(x.q)) + 5):
            return mpmath.nstr(mpmath.mpf(int(x.p)) / int(x.q), len(str(x.p)) + 2)
    return str(x)


def _exact_point(value: mpmath.mpf) -> sp.Rational:
    """A short exact rational near ``value`` (a candidate point; certified afterwards)."""
    return sp.Rational(str(mpmath.nstr(value, 25))) if mpmath.isfinite(value) else sp.Integer(0)


def _sign_item(label: str, r: sp.Expr, z: Any) -> Sign:
    lo, hi = bounds(z)
    a, b = outward(lo, hi)
    return sign_item(f"lhs − rhs, {label}", r, "positive" if z > 0 else "negative", None, a, b)


def _witness(enc: Encoding, cols: Sequence[int], candidates: Sequence[sp.Expr],
             lhs: Any, rhs: Any, budget: Any = None) -> tuple[int, sp.Expr, sp.Expr, Sign] | None:
    """A (column, x, residual) whose residual lhs(j, x) − rhs(j, x) has an interval
    enclosure excluding 0 (a certified counterexample).

    Every candidate is tried at each precision of :data:`_WITNESS_BITS` before the
    next; a residual certified above :data:`_PLAIN` wins at once, else the first one
    certified non-zero at all (a hair-thin one, found only at higher precision).
    """
    pending = [(j, x, sp.Add(lhs(j, x), -rhs(j, x))) for j in cols for x in candidates]
    thin = None
    for bits in _WITNESS_BITS:
        unresolved = []
        for j, x, r in pending:
            if budget is not None:
                budget.charge_evaluation("the claim's counterexample search", r, bits)
            try:
                z = enclose(r, prec=bits)
            except Unresolved:
                unresolved.append((j, x, r))
                continue
            except Unenclosable:
                continue
            if z > _PLAIN or z < -_PLAIN:
                return j, x, r, _sign_item(f"column {j} at x = {x}", r, z)
            if thin is None and (z > 0 or z < 0):
                thin = (j, x, r, _sign_item(f"column {j} at x = {x}", r, z))
            if not (z > 0 or z < 0):
                unresolved.append((j, x, r))
        if thin is not None:
            return thin
        pending = unresolved
    return None


def _period_witness(engine: Any, period: sp.Expr, k: int) -> dict[str, Any] | None:
    """An exact position where a column of frequency ω_k differs from its shift by P.

    sin(ωx + φ) − sin(ωx) = 2·cos(ωx + φ/2)·sin(φ/2) is largest at ωx = −φ/2; cos
    differs most at ωx = (π − φ)/2.  That point (rounded to a rational) and a few
    integers are tried; the residual at each is certified by interval arithmetic.
    """
    enc: Encoding = engine.enc
    cols = [j for j in range(enc.dim) if enc.column_freq_index[j] == k
            and enc.column_funcs[j] != "zero"]
    if not cols:
        return None
    candidates: list[sp.Expr] = []
    with mpmath.workdps(DEFAULT_DPS):
        omega = mp_value(enc.frequencies[k], DEFAULT_DPS)
        phi = mpmath.fmod(omega * mp_value(period, DEFAULT_DPS), 2 * mpmath.pi)
        if omega != 0:
            for func in sorted({enc.column_funcs[j] for j in cols}):
                best = -phi / 2 if func == "sin" else (mpmath.pi - phi) / 2
                candidates.append(_exact_point(best / omega))
    candidates += [sp.Integer(0), sp.Integer(1), sp.Rational(1, 3), sp.Integer(7)]
    found = _witness(enc, cols, candidates, lambda j, x: _column(enc, j, x + period),
                     lambda j, x: _column(enc, j, x), engine.budget)
    if found is None:
        return None
    j, x, r, item = found
    return {"_item": item, "x": _show(x), "period": str(period), "column": j,
            "lhs": _fmt(mp_value(_column(enc, j, x + period))),
            "rhs": _fmt(mp_value(_column(enc, j, x))), "residual": _fmt(abs(mp_value(r))),
            "dps": DEFAULT_DPS, "kind": "period witness", "certified": "interval arithmetic",
            "explanation": f"ω_{k}·P mod 2π ≈ {_fmt(phi, 12)} ≠ 0"}


# --------------------------------------------------------------------------- bound
def bound_claim(engine: Any, value: Any) -> Proof:
    """Decide "|PE_i(x)| ≤ c for every column i and real x" for the claimed c.

    The supremum is exactly 1 (0 when every column is zero): cos columns reach it
    at x = 0, sin columns at x = π/(2ω).  The comparison with c is a certified
    sign (:func:`posproof.validated.compare`): exact for rationals, else interval
    arithmetic with rising precision, and 0 only by exact rewriting; unknown when
    it cannot be decided.
    """
    enc: Encoding = engine.enc
    bound = exact_number("claim_bound", value)
    name, statement = "claim:bound", f"|PE_i(x)| ≤ {bound} for every column i and real x"
    live = [j for j in range(enc.dim) if enc.column_funcs[j] != "zero"]
    sup = sp.Integer(1 if live else 0)
    order = compare(bound, sup)
    if order is None:
        return Proof(name, statement, "unknown", note="the claimed bound and the supremum "
                     f"{sup} could not be compared: no interval enclosure separates them and "
                     "no exact rewriting proves them equal")
    how = "exact comparison" if bound.is_Rational else "certified comparison (interval arithmetic)"
    if order >= 0:
        bounded = engine.bounded()
        if live and bounded.status != "proved":
            return Proof(name, statement, "unknown", bounded.steps, note=bounded.note)
        steps = [*bounded.steps, Step(f"{sup} ≤ {bound}", how)]
        c = mp_value(bound, DEFAULT_DPS)

        def residual(x: int, y: int) -> mpmath.mpf:
            with mpmath.workdps(DEFAULT_DPS + _extra_digits(engine.m.omega_max, x)):
                worst = max((abs(engine.m.pe_mp(j, x)) for g in engine.m.sample_groups()
                             for j in g), default=mpmath.mpf(0))
                return max(worst - c, mpmath.mpf(0))
        cc = engine.crosscheck(name, residual)
        rel = "zero" if order == 0 else "positive"
        ev = proved_evidence("certified comparison with the exact supremum",
                             [sign_item(f"c − sup|PE_i| = {bound} − {sup}", bound - sup, rel)],
                             "structural")
        return Proof(name, statement, "proved", steps, crosscheck=cc,
                     values={"supremum": str(sup)}, evidence=ev)
    if live:
        j = live[0]
        func = enc.column_funcs[j]
        x = sp.Integer(0) if func == "cos" else sp.pi / (2 * enc.column_frequency(j))
        where = "x = 0" if func == "cos" else "x = π/(2ω)"
        fact = f"column {j} is {func}(ω x); at {where} it equals 1 exactly"
    else:
        j, x, func, where = 0, sp.Integer(0), "zero", "x = 0"
        fact = "every column is 0, so |PE_0(0)| = 0 exactly"
    pe = _column(enc, j, x)
    steps = [Step(fact, "exact value"),
             Step(f"{sup} > {bound}, so |PE_{j}({where[4:]})| exceeds the claimed bound", how)]
    return Proof(name, statement, "refuted", steps, counterexample={
        "x": _fmt(mp_value(x), 30), "x_exact": str(x), "column": j,
        "lhs": _fmt(abs(mp_value(pe))), "rhs": str(bound),
        "residual": _fmt(mp_value(sup - bound)), "dps": DEFAULT_DPS, "kind": "bound witness",
        "certified": how}, evidence=Evidence("certified sign", items=[
            sign_item(f"|PE_{j}({where[4:]})| − c = {sup} − {bound}", sup - bound, "positive")]))


# --------------------------------------------------------------------------- permutation
def parse_permutation(text: str) -> tuple[str, list[int]]:
    """Read ``"LAYOUT:i,j,k,…"`` (the CLI's form of a claimed permutation).

    >>> parse_permutation("split:0,2,1,3")
    ('split', [0, 2, 1, 3])
    """
    layout, sep, rest = str(text).partition(":")
    if not sep or not layout.strip():
        raise InvalidParameter(f"claim_permutation={text!r}: write LAYOUT:i,j,…, e.g. "
                               "'split:0,2,1,3'")
    try:
        perm = [int(t) for t in rest.split(",")]
    except ValueError:
        raise InvalidParameter(f"claim_permutation={text!r}: the permutation must be "
                               "comma-separated integers") from None
    return layout.strip(), perm


def permutation_claim(engine: Any, layout: Any, perm: Any) -> Proof:
    """Decide "column j of PE_layout is column perm[j] of PE" for every x (PE_L = PE·P)."""
    enc: Encoding = engine.enc
    target = get_layout(layout)
    if enc.schedule is None:
        raise InvalidParameter("claim_permutation needs an encoding built from a schedule "
                               "(the other layout is built from the same schedule)")
    if isinstance(perm, (str, bytes)) or not isinstance(perm, Sequence):
        raise InvalidParameter(f"claim_permutation={perm!r} is not a list of column indices")
    if (len(perm) != enc.dim or any(isinstance(p, bool) or not isinstance(p, int) for p in perm)
            or sorted(perm) != list(range(enc.dim))):
        raise InvalidParameter(f"claim_permutation={list(perm)[:12]!r} is not a permutation of "
                               f"0 … {enc.dim - 1} (dim={enc.dim})")
    other = Encoding(enc.schedule, target, enc.dim, offset=enc.offset, odd_dim=enc.odd_dim)
    name = "claim:permutation"
    statement = (f"PE_{target.name}(x) = PE_{enc.layout.name}(x)·P with P[perm[j], j] = 1, "
                 f"perm = {list(perm)[:8]}{'…' if len(perm) > 8 else ''}")
    undecided: list[int] = []
    wrong = []
    for j in range(enc.dim):
        engine.budget.charge_groups("the columns of the claimed permutation", 1)
        same = _same_column(other, j, enc, perm[j])
        if same is None:
            undecided.append(j)
        elif not same:
            wrong.append(j)
    other_model = type(engine.m)(other)
    if not wrong and not undecided:
        steps = [Step(f"column j of PE_{target.name} and column perm[j] of PE_{enc.layout.name} "
                      "are the same function of x (same trig function, same exact frequency) "
                      f"for all {enc.dim} columns", "entrywise")]

        def residual(x: int, y: int) -> mpmath.mpf:
            with mpmath.workdps(DEFAULT_DPS + _extra_digits(engine.m.omega_max, x)):
                return max(abs(other_model.pe_mp(j, x) - engine.m.pe_mp(perm[j], x))
                           for j in range(0, enc.dim, max(1, enc.dim // 16)))
        cc = engine.crosscheck(name, residual)
        shown = list(range(0, enc.dim, max(1, enc.dim // 3)))[:3]
        gap = weighted_sum(_column(other, j, X) - _column(enc, perm[j], X) for j in shown)
        ev = engine.zero_evidence(name, cc, lambda x, y: (gap, {X: x}),
                                  method="exact entrywise comparison")
        return Proof(name, statement, "proved", steps, crosscheck=cc, evidence=ev)
    if not wrong:
        return Proof(name, statement, "unknown", [], note=f"column {undecided[0]}: whether the "
                     "two frequencies are equal could not be decided")
    steps = [Step(f"{len(wrong)} column(s) differ, e.g. column {wrong[0]} of PE_{target.name} "
                  f"is {other.column_funcs[wrong[0]]} but column {perm[wrong[0]]} of "
                  f"PE_{enc.layout.name} is {enc.column_funcs[perm[wrong[0]]]} "
                  "(frequencies compared with a certified sign)", "entrywise")]
    points = [sp.Integer(1), sp.Rational(1, 3), sp.Rational(2, 7), sp.Integer(10),
              sp.Integer(123), sp.Integer(0)]
    found = _witness(enc, wrong[:8], points, lambda j, x: _column(other, j, x),
                     lambda j, x: _column(enc, perm[j], x), engine.budget)
    if found is None:
        return Proof(name, statement, "unknown", steps, note="no counterexample found")
    j, x, r, item = found
    lhs, rhs = mp_value(_column(other, j, x)), mp_value(_column(enc, perm[j], x))
    steps.append(Step(f"at x = {x}: PE_{target.name}[{j}] = {_fmt(lhs, 12)} but "
                      f"PE_{enc.layout.name}[{perm[j]}] = {_fmt(rhs, 12)}",
                      "interval arithmetic (certified residual ≠ 0)"))
    return Proof(name, statement, "refuted", steps, counterexample={
        "x": _show(x), "layout": target.name, "column": j, "source_column": perm[j],
        "lhs": _fmt(lhs), "rhs": _fmt(rhs), "residual": _fmt(abs(mp_value(r))),
        "dps": DEFAULT_DPS, "certified": "interval arithmetic"},
        evidence=Evidence("certified sign", items=[item]))


def _same_column(a: Encoding, i: int, b: Encoding, j: int) -> bool | None:
    """Whether column i of ``a`` and column j of ``b`` are the same function of x:
    same trig function and equal frequencies (a certified comparison); None if unknown."""
    fa, fb = a.column_funcs[i], b.column_funcs[j]
    if fa == "zero" or fb == "zero":
        return fa == fb
    wa, wb = a.column_frequency(i), b.column_frequency(j)
    if wa == wb:
        return fa == fb
    order = compare(wa, wb)
    if order is None:
        return None
    if order != 0:
        return False        # distinct positive frequencies: different functions of x
    return fa == fb
