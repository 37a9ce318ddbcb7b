"""Claims a user states about an encoding: a period, a bound, a column permutation.

Each claim is decided by the proof engine's rules: ``proved`` only by an exact
argument (cross-checked in mpmath at random points), ``refuted`` only with a
counterexample evaluated in mpmath at 50 digits or more, ``unknown`` otherwise.

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

from .encoding import Encoding
from .errors import InvalidParameter, PosproofError
from .layouts import get_layout
from .precise import DEFAULT_DPS, mp_value
from .report import Proof, Step
from .schedules import exact_number

__all__ = ["bound_claim", "parse_permutation", "period_claim", "permutation_claim"]

_CONFIRM = mpmath.mpf(10) ** -20     # a confirmed counterexample is larger than this at 50 digits


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
    ratio is decided exactly (:func:`posproof.theorems._ratio`).  A frequency
    whose ratio is not an integer yields a column and a position x where the two
    sides differ, evaluated in mpmath.
    """
    from .theorems import _ratio

    enc: Encoding = engine.enc
    period = exact_number("claim_period", value)
    if not bool(period > 0):
        raise InvalidParameter(f"claim_period={value!r} must be > 0 (a period is a positive "
                               "shift P with PE(x+P) = PE(x))")
    name, statement = "claim:period", f"PE(x+P) = PE(x) for every real x, with P = {period}"
    steps = [Step("PE(x+P) = PE(x) for every x exactly when ω_k·P ∈ 2πℤ for every frequency ω_k "
                  "of a non-zero column", "periodicity of sin and cos")]
    failing, undecided = [], []
    for k, freq in enumerate(enc.frequencies):
        turns = _ratio(freq * period, 2 * sp.pi)
        if turns is None:
            undecided.append(k)
        elif turns is False or not turns.is_integer:
            failing.append((k, turns))
    if not failing and not undecided:
        n = len(enc.frequencies)
        steps.append(Step(f"ω_k·P/2π is an integer for each of the {n} frequencies "
                          "(decided exactly)", "exact ratio"))

        def residual(x: int, y: int) -> mpmath.mpf:
            return _period_residual(engine, period, x, engine.m.sample_groups())[0]
        cc = engine.crosscheck(name, residual, scale=lambda x, y: float(period) + abs(x))
        return Proof(name, statement, "proved", steps, crosscheck=cc,
                     values={"period": str(period)}, exact=period)
    for k, turns in failing[:1]:
        what = ("irrational" if turns is False else f"{turns}, not an integer")
        steps.append(Step(f"ω_{k}·P/2π is {what}", "exact ratio"))
    order = [k for k, _ in failing] + undecided
    for k in order[:8]:
        ce = _period_witness(engine, period, k)
        if ce is not None:
            steps.append(Step(f"column {ce['column']} at x = {ce['x'][:16]}: PE(x+P) = "
                              f"{ce['lhs'][:16]} but PE(x) = {ce['rhs'][:16]}",
                              f"mpmath at {DEFAULT_DPS} digits"))
            return Proof(name, statement, "refuted", steps, counterexample=ce)
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


def _period_witness(engine: Any, period: sp.Expr, k: int) -> dict[str, Any] | None:
    """A position where a column of frequency ω_k differs from its shift by P.

    sin(ωx + φ) − sin(ωx) = 2·cos(ωx + φ/2)·sin(φ/2) is largest at ωx = −φ/2; cos
    differs most at ωx = (π − φ)/2.  Integer points are tried too.
    """
    enc: Encoding = engine.enc
    cols = [j for j in range(enc.dim) if enc.column_freq_index[j] == k
            and enc.column_funcs[j] != "zero"]
    if not cols:
        return None
    extra = _extra_digits(engine.m.omega_max, mp_value(period, 20))
    with mpmath.workdps(DEFAULT_DPS + extra):
        omega = mp_value(enc.frequencies[k], DEFAULT_DPS + extra)
        p = mp_value(period, DEFAULT_DPS + extra)
        phi = mpmath.fmod(omega * p, 2 * mpmath.pi)
        for j in cols:
            best = -phi / 2 if enc.column_funcs[j] == "sin" else (mpmath.pi - phi) / 2
            for x in (best / omega, mpmath.mpf(0), mpmath.mpf(1), mpmath.mpf(7)):
                lhs, rhs = engine.m.pe_mp(j, x + p), engine.m.pe_mp(j, x)
                if abs(lhs - rhs) > _CONFIRM:
                    return {"x": _fmt(x, 30), "period": str(period), "column": j,
                            "lhs": _fmt(lhs), "rhs": _fmt(rhs), "residual": _fmt(abs(lhs - rhs)),
                            "dps": DEFAULT_DPS, "kind": "period witness",
                            "explanation": f"ω_{k}·P mod 2π = {_fmt(phi, 12)} ≠ 0"}
    return None


# --------------------------------------------------------------------------- bound
def bound_claim(engine: Any, value: Any) -> Proof:
    """Decide "|PE_i(x)| ≤ c for every column i and real x" for the claimed c.

    The supremum is exactly 1 (0 when every column is zero): cos columns reach it
    at x = 0, sin columns at x = π/(2ω).  The comparison with c is exact for
    rationals, else certified by :func:`posproof.scaling.decide`.
    """
    from .scaling import decide

    enc: Encoding = engine.enc
    bound = exact_number("claim_bound", value)
    name, statement = "claim:bound", f"|PE_i(x)| ≤ {bound} for every column i and real x"
    live = [j for j in range(enc.dim) if enc.column_funcs[j] != "zero"]
    sup = sp.Integer(1 if live else 0)
    try:
        sign = decide(bound, sup, "claim_bound")
    except PosproofError:
        return Proof(name, statement, "unknown", note="the claimed bound and the supremum agree "
                     "to 240 digits but are not provably equal")
    if sign >= 0:
        bounded = engine.bounded()
        if live and bounded.status != "proved":
            return Proof(name, statement, "unknown", bounded.steps, note=bounded.note)
        steps = [*bounded.steps, Step(f"{sup} ≤ {bound}", "exact comparison")]

        def residual(x: int, y: int) -> mpmath.mpf:
            with mpmath.workdps(DEFAULT_DPS + _extra_digits(engine.m.omega_max, x)):
                worst = max((abs(engine.m.pe_mp(j, x)) for g in engine.m.sample_groups()
                             for j in g), default=mpmath.mpf(0))
                return max(worst - mp_value(bound, DEFAULT_DPS), mpmath.mpf(0))
        cc = engine.crosscheck(name, residual)
        return Proof(name, statement, "proved", steps, crosscheck=cc,
                     values={"supremum": str(sup)})
    j = live[0] if live else 0
    func = enc.column_funcs[j]
    with mpmath.workdps(DEFAULT_DPS + 10):
        if func == "cos":
            x, where = mpmath.mpf(0), "x = 0"
        else:
            omega = mp_value(enc.column_frequency(j), DEFAULT_DPS + 10)
            x, where = mpmath.pi / (2 * omega), "x = π/(2ω)"
        pe = engine.m.pe_mp(j, x)
        c = mp_value(bound, DEFAULT_DPS + 10)
        excess = abs(pe) - c
    steps = [Step(f"column {j} is {func}(ω x); at {where} it equals {func}"
                  f"({'0' if func == 'cos' else 'π/2'}) = 1 exactly", "exact value"),
             Step(f"1 > {bound}; in mpmath |PE_{j}(x)| − c = {_fmt(excess, 12)}",
                  f"mpmath at {DEFAULT_DPS} digits")]
    return Proof(name, statement, "refuted", steps, counterexample={
        "x": _fmt(x, 30), "column": j, "lhs": _fmt(abs(pe)), "rhs": str(bound),
        "residual": _fmt(excess), "dps": DEFAULT_DPS, "kind": "bound witness"})


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
    wrong = [j for j in range(enc.dim)
             if not (other.column_funcs[j] == enc.column_funcs[perm[j]]
                     and other.column_frequency(j) == enc.column_frequency(perm[j]))]
    other_model = type(engine.m)(other)
    if not wrong:
        steps = [Step(f"column j of PE_{target.name} and column perm[j] of PE_{enc.layout.name} "
                      "are the same function of x (same trig function, same exact frequency) "
                      f"for all {enc.dim} columns", "entrywise")]

        def residual(x: int, y: int) -> mpmath.mpf:
            with mpmath.workdps(DEFAULT_DPS + _extra_digits(engine.m.omega_max, x)):
                return max(abs(other_model.pe_mp(j, x) - engine.m.pe_mp(perm[j], x))
                           for j in range(0, enc.dim, max(1, enc.dim // 16)))
        cc = engine.crosscheck(name, residual)
        return Proof(name, statement, "proved", steps, crosscheck=cc)
    steps = [Step(f"{len(wrong)} column(s) differ, e.g. column {wrong[0]} of PE_{target.name} "
                  f"is {other.column_funcs[wrong[0]]} but column {perm[wrong[0]]} of "
                  f"PE_{enc.layout.name} is {enc.column_funcs[perm[wrong[0]]]}", "entrywise")]
    for j in wrong[:8]:
        for x in (mpmath.mpf(1), mpmath.mpf(1) / 3, mpmath.mpf(2) / 7, mpmath.mpf(10),
                  mpmath.mpf(123)):
            with mpmath.workdps(DEFAULT_DPS + 10):
                lhs, rhs = other_model.pe_mp(j, x), engine.m.pe_mp(perm[j], x)
                r = abs(lhs - rhs)
            if r > _CONFIRM:
                steps.append(Step(f"at x = {_fmt(x, 12)}: PE_{target.name}[{j}] = "
                                  f"{_fmt(lhs, 12)} but PE_{enc.layout.name}[{perm[j]}] = "
                                  f"{_fmt(rhs, 12)}", f"mpmath at {DEFAULT_DPS} digits"))
                return Proof(name, statement, "refuted", steps, counterexample={
                    "x": _fmt(x, 30), "layout": target.name, "column": j,
                    "source_column": perm[j], "lhs": _fmt(lhs), "rhs": _fmt(rhs),
                    "residual": _fmt(r), "dps": DEFAULT_DPS})
    return Proof(name, statement, "unknown", steps, note="no counterexample found")
