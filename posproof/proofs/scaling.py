"""Proofs of the invariants of each RoPE scaling rule (:func:`scaling_theorems`).

The rules themselves are :mod:`posproof.model.scaling`.

Each rule's invariants are proved once symbolically (in free symbols θ, f, r,
s, L, …: no pair-by-pair simplification), then checked on the concrete table
of dimension d in mpmath at 50 digits.  Band membership is decided as in
:func:`posproof.model.scaling.decide`.  A statement that is false for the rule is refuted with a
counterexample (dynamic NTK at factor 1 still rescales beyond L).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

import mpmath
import sympy as sp

from ..evidence import Evidence, Sign
from ..model.scaling.rules import (
    DynamicNTKScaling,
    LinearScaling,
    Llama3Scaling,
    LongRoPEScaling,
    NTKScaling,
    Scaling,
    YaRNScaling,
    rotary_dim,
)
from ..model.schedules import Schedule
from ..precise import mp_value, mp_values
from ..validated import sign as certified_sign

__all__ = ["scaling_theorems"]

_THETA, _F, _R, _S = sp.symbols("theta f r s", positive=True)
_LEN, _LO, _HI = sp.symbols("L l h", positive=True)
_T, _P = sp.symbols("t p", positive=True)
#: The symbols this module declares positive: the domain of its statements.
_POSITIVE_SYMBOLS = frozenset({_THETA, _F, _R, _S, _LEN, _LO, _HI, _T, _P})


def _zero(expr: sp.Expr) -> bool:
    """expr == 0 by expansion and cancellation (no ``simplify``: slow, and it imports
    sympy.physics on first use)."""
    expr = sp.sympify(expr)
    return expr == 0 or sp.cancel(sp.expand(expr)) == 0 or sp.expand(sp.powsimp(
        sp.expand_power_exp(sp.expand(expr)), force=True)) == 0


def _mp_compare(ours: Sequence[sp.Expr], expected: Sequence[Any], dps: int = 50) -> mpmath.mpf:
    """Largest relative difference of two tables in mpmath."""
    a, b = mp_values(ours, dps), mp_values([sp.sympify(e) for e in expected], dps)
    with mpmath.workdps(dps):
        return max((abs(x - y) / abs(y) for x, y in zip(a, b, strict=True)), default=mpmath.mpf(0))


def _positive(expr: sp.Expr) -> bool:
    """expr > 0 by its structure alone: sums, products and real powers of positive numbers
    and of the symbols this module declares positive (the domain of the statement).
    No assumption flag is consulted: the rule is the proof.

    >>> t = sp.Symbol("t", positive=True)
    >>> _positive(3 * t * (1 + t / 2) ** sp.Rational(5, 3)), _positive(t - 1)
    (True, False)
    """
    if expr.is_Rational:
        return bool(expr > 0)
    if expr.is_Symbol:
        return expr in _POSITIVE_SYMBOLS
    if expr.is_Add or expr.is_Mul:
        return all(_positive(a) for a in expr.args)
    if expr.is_Pow:
        return _positive(expr.args[0]) and not expr.args[1].free_symbols - _POSITIVE_SYMBOLS \
            and all(a.is_Symbol or a.is_Rational or a.is_Add or a.is_Mul or a.is_Pow
                    for a in sp.preorder_traversal(expr.args[1]))
    return False


def _table_evidence(ours: Sequence[sp.Expr], expected: Sequence[Any],
                    generic: list[sp.Expr]) -> Evidence:
    """A proved table identity: the exact differences at the first and last pairs, which
    the auditor must find consistent with 0."""
    picks = sorted({0, len(ours) - 1}) if ours else []
    items = [Sign(f"θ'_{i} − expected", sp.Add(ours[i], -sp.sympify(expected[i]),
                                              evaluate=False), "zero") for i in picks]
    return Evidence("symbolic identity", "structural", items,
                    {"generic_identities": len(generic), "pairs": len(ours)})


def _checked(name: str, statement: str, steps: list, generic: sp.Expr | list,
             ours: Sequence[sp.Expr], expected: Sequence[Any], **extra: Any) -> Any:
    """proved iff the generic identity reduces to 0 and the concrete table agrees to 10^-40."""
    from ..report import Proof, Step

    exprs = generic if isinstance(generic, list) else [generic]
    if not all(_zero(e) for e in exprs):
        return Proof(name, statement, "unknown", steps, note="the generic identity did not "
                     "reduce to 0")
    steps.append(Step("the generic identity reduces to 0 (cancel/simplify on a few symbols)",
                      "algebra", sp.latex(exprs[0])))
    worst = _mp_compare(ours, expected)
    if worst > mpmath.mpf(10) ** -40:
        return Proof(name, statement, "unknown", steps,
                     note=f"internal error, please report: the table differs by "
                          f"{mpmath.nstr(worst, 5)} at 50 digits")
    return Proof(name, statement, "proved", steps, crosscheck={
        "method": "concrete table vs the statement, mpmath", "dps": 50,
        "max_relative_difference": mpmath.nstr(worst, 3), "pairs": len(ours), **extra},
        evidence=_table_evidence(ours, expected, exprs))


def scaling_theorems(schedule: Schedule, d: int) -> list[Any]:
    """The invariants of a scaling rule at rotary dim ``d``, as Proofs (empty for no scaling).

    >>> [(p.name, p.status) for p in scaling_theorems(LinearScaling(10000, 4), 8)]
    [('scaling:factor_one[linear]', 'proved'), ('scaling:uniform[linear]', 'proved')]
    """
    if not isinstance(schedule, Scaling) or type(schedule) is Scaling:
        return []
    d = rotary_dim(d)
    kind = schedule.rope_type
    builders = {"linear": _linear, "ntk": _ntk, "dynamic": _dynamic, "yarn": _yarn,
                "llama3": _llama3, "longrope": _longrope}
    return builders[kind](schedule, d)


def _factor_one(rule: Scaling, d: int, generic: sp.Expr, formula: str) -> Any:
    from ..report import Step

    one = replace(rule, factor=1)
    steps = [Step(f"{formula} at factor = 1", "definition")]
    extra = {}
    if isinstance(rule, YaRNScaling):
        steps.append(Step("the attention factor at factor = 1 is 1 (HF get_mscale(1) = 1)",
                          "definition"))
        extra["attention_factor_at_1"] = str(one.attention_factor())
    return _checked(f"scaling:factor_one[{rule.rope_type}]",
                    "factor = 1 gives the default table θ_k = b^(−2k/d)", steps, generic,
                    one.frequencies(d), rule.default_frequencies(d), **extra)


def _linear(rule: LinearScaling, d: int) -> list[Any]:
    from ..report import Step

    return [_factor_one(rule, d, _THETA / 1 - _THETA, "θ/f"),
            _checked("scaling:uniform[linear]", f"θ'_k = θ_k / {rule.factor} for every pair",
                     [Step("θ'_k = θ_k/f by definition", "definition")],
                     _THETA / _F * _F - _THETA, [t * rule.factor for t in rule.frequencies(d)],
                     rule.default_frequencies(d))]


def _ntk(rule: NTKScaling, d: int) -> list[Any]:
    from ..report import Step

    dsym = sp.Symbol("d", positive=True)
    r = rule.scale(d)
    default, ours = rule.default_frequencies(d), rule.frequencies(d)
    kind = rule.rope_type
    endpoints = _checked(
        f"scaling:endpoints[{kind}]",
        f"θ'_0 = θ_0 (fastest pair untouched) and θ'_{{n−1}} = θ_{{n−1}}/{r} (slowest divided "
        "by the scale exactly)",
        [Step("θ'_k = θ_k·r^(−2k/(d−2)); at k = 0 the power is 1, at k = d/2 − 1 the "
              "exponent −2(d/2 − 1)/(d − 2) is −1", "exponent arithmetic")],
        [-2 * (dsym / 2 - 1) / (dsym - 2) + 1], [ours[0], ours[-1] * r],
        [default[0], default[-1]])
    if kind == "dynamic":
        return [endpoints]
    return [_factor_one(rule, d, _THETA * sp.Integer(1) ** (-_R) - _THETA,
                        "θ·f^(−2k/(d−2))"), endpoints]


def _dynamic(rule: DynamicNTKScaling, d: int) -> list[Any]:
    from ..report import Proof, Step

    length = rule.original_max_position_embeddings
    default = rule.default_frequencies(d)
    out = []
    # factor 1 is NOT the identity beyond L: scale = s/L.
    later = replace(rule, factor=1, seq_len=2 * length)
    scaled = later.frequencies(d)
    steps = [Step("at factor = 1 the scale is 1·s/L − 0 = s/L, which is > 1 for s > L",
                  "definition")]
    a, b = mp_values([scaled[-1], default[-1]], 50)
    with mpmath.workdps(50):
        gap = abs(a - b)
    diff = sp.Add(scaled[-1], -default[-1], evaluate=False)
    decided = certified_sign(diff)
    if decided in (None, 0):
        out.append(Proof("scaling:factor_one[dynamic]", "factor = 1 gives the default table "
                         "at every sequence length", "unknown", steps,
                         note="the sign of θ'_k − θ_k was not certified"))
        return out + _ntk(rule, d)
    steps.append(Step(f"s = {2 * length}: θ'_{d // 2 - 1} = {mpmath.nstr(a, 15)} ≠ θ_{d // 2 - 1}"
                      f" = {mpmath.nstr(b, 15)}", "mpmath at 50 digits"))
    out.append(Proof(
        "scaling:factor_one[dynamic]", "factor = 1 gives the default table at every sequence "
        "length", "refuted", steps, counterexample={
            "factor": 1, "seq_len": 2 * length, "pair": d // 2 - 1, "lhs": mpmath.nstr(a, 20),
            "rhs": mpmath.nstr(b, 20), "residual": mpmath.nstr(gap, 10), "dps": 50},
        note="expected refutation: HF's dynamic NTK still rescales beyond "
             "max_position_embeddings when factor = 1 (base' = b·(s/L)^(d/(d−2)))",
        evidence=Evidence("certified sign (interval arithmetic)", "all", [Sign(
            f"θ'_{d // 2 - 1} − θ_{d // 2 - 1} at s = {2 * length}, factor 1", diff,
            "positive" if decided > 0 else "negative")])))
    # default up to L
    ours, expected = [], []
    for s in sorted({1, max(length // 2, 1), length}):
        ours += list(rule.at(s).frequencies(d))
        expected += list(default)
    out.append(_checked(
        "scaling:default_up_to_L[dynamic]",
        f"for every s ≤ L = {length} the table is the default one",
        [Step("HF clamps s to max(s, L); at s = L the scale is f·L/L − (f − 1) = 1, so "
              "base' = b", "definition")],
        _F * _LEN / _LEN - (_F - 1) - 1, ours, expected, seq_lens_checked=[1, length // 2,
                                                                             length]))
    # monotone growth of the base
    t, p = _T, _P
    base_of_t = _THETA * (1 + _F * t / _LEN) ** ((p + 2) / p)   # θ stands for b here, d = p + 2
    derivative = sp.diff(base_of_t, t)
    steps = [Step("with s = L + t (t > 0) and d = p + 2 (p > 0): "
                  "base'(t) = b·(1 + f·t/L)^(d/(d−2))", "substitution"),
             Step(f"d base'/dt = {derivative}: a product of positive factors",
                  "derivative", sp.latex(derivative))]
    if not _positive(sp.factor(derivative)) and not _positive(derivative):
        out.append(Proof("scaling:monotone[dynamic]", "base'(s) grows strictly for s > L",
                         "unknown", steps, note="the derivative is not a product of positive "
                         "factors as written"))
        return out + _ntk(rule, d)
    seqs = [length + 1, 2 * length, 4 * length, 16 * length]
    exact = [rule.at(s).effective_base(d) for s in seqs]
    bases = mp_values(exact, 50)
    growth = [sp.Add(y, -x, evaluate=False) for x, y in pairwise(exact)]
    ok = all(certified_sign(g) == 1 for g in growth)
    out.append(Proof(
        "scaling:monotone[dynamic]",
        f"base'(s) grows strictly with s for s > L = {length} (so every θ'_k, k ≥ 1, shrinks)",
        "proved" if ok else "unknown", steps, crosscheck={
            "seq_lens": seqs, "bases": [mpmath.nstr(v, 15) for v in bases], "dps": 50},
        note=None if ok else "internal error, please report: the bases are not increasing",
        evidence=Evidence("a product of positive factors (structure), instances certified",
                          "structural", [Sign(f"base'({b}) − base'({a})", g, "positive")
                                         for (a, b), g in zip(pairwise(seqs), growth,
                                                              strict=True)])))
    return out + _ntk(rule, d)


def _yarn(rule: YaRNScaling, d: int) -> list[Any]:
    from ..report import Step

    low, high = rule.correction_range(d)
    ramp = rule.ramp(d)
    default = rule.default_frequencies(d)
    blend = _THETA / _F * _R + _THETA * (1 - _R)
    bands = rule.bands(d)
    count = {b: bands.count(b) for b in ("extrapolate", "ramp", "interpolate")}
    kept = [t for t, r in zip(default, ramp, strict=True) if r == 0]
    divided = [t / rule.factor for t, r in zip(default, ramp, strict=True) if r == 1]
    ours = rule.frequencies(d)
    steps = [Step(f"correction range (low, high) = ({low}, {high}) (floor/ceil decided in "
                  "mpmath with a certified margin)", "definition"),
             Step(f"ramp 0 for k ≤ low: {count['extrapolate']} pairs keep θ_k; ramp 1 for "
                  f"k ≥ high: {count['interpolate']} pairs get θ_k/factor; {count['ramp']} "
                  "pairs blend", "clamp")]
    bands_proof = _checked(
        "scaling:bands[yarn]", f"pairs below the ramp keep θ_k, pairs above get "
        f"θ_k/{rule.factor}, pairs inside lie strictly between", steps,
        [blend.subs(_R, 0) - _THETA, blend.subs(_R, 1) - _THETA / _F],
        [o for o, r in zip(ours, ramp, strict=True) if r in (0, 1)], kept + divided,
        attention_factor=str(rule.attention_factor()), correction_range=[str(low), str(high)])
    # inside the ramp: a convex combination of θ/f and θ, so strictly between them
    inside = [(o, t) for o, t, r in zip(ours, default, ramp, strict=True) if r not in (0, 1)]
    values = mp_values([v for pair in inside for v in pair] + [rule.factor], 50)
    with mpmath.workdps(50):
        f = values[-1]
        lo_hi = [sorted((t / f, t)) for t in values[1:-1:2]]
        between = all(a < o < b for o, (a, b) in zip(values[0:-1:2], lo_hi, strict=True))
    if inside and not (between or f == 1):
        bands_proof.status, bands_proof.note = "unknown", (
            "internal error, please report: a ramp pair is not between θ/f and θ")
    elif bands_proof.crosscheck is not None:
        bands_proof.crosscheck["ramp_pairs_strictly_between"] = len(inside)
    return [_factor_one(rule, d, blend.subs(_F, 1) - _THETA, "θ/f·r + θ(1 − r)"), bands_proof]


def _llama3(rule: Llama3Scaling, d: int) -> list[Any]:
    from ..report import Proof, Step

    bands = rule.bands(d)
    default, ours = rule.default_frequencies(d), rule.frequencies(d)
    high_edge, low_edge = rule.wavelength_edges
    decided = Step(f"bands decided in mpmath (margin-certified): {bands.count('high')} high, "
                   f"{bands.count('blend')} blend, {bands.count('low')} low; edges λ = "
                   f"{high_edge} and {low_edge}", "decide")
    blend = ((1 - (_LEN * _THETA / (2 * sp.pi) - _LO) / (_HI - _LO)) * _THETA / _F
             + (_LEN * _THETA / (2 * sp.pi) - _LO) / (_HI - _LO) * _THETA)
    out = [
        _factor_one(rule, d, [blend.subs(_F, 1) - _THETA, _THETA / 1 - _THETA],
                    "high: θ; low: θ/f; blend: (1 − s)θ/f + sθ"),
        _checked("scaling:high_band_untouched[llama3]",
                 f"pairs with λ_k < L/high_freq_factor = {high_edge} keep θ_k exactly",
                 [decided, Step("first branch of the rule: θ'_k = θ_k", "definition")],
                 sp.Integer(0), [o for o, b in zip(ours, bands, strict=True) if b == "high"],
                 [t for t, b in zip(default, bands, strict=True) if b == "high"]),
        _checked("scaling:low_band_divided[llama3]",
                 f"pairs with λ_k > L/low_freq_factor = {low_edge} get θ_k/{rule.factor} exactly",
                 [decided, Step("second branch of the rule: θ'_k = θ_k/factor", "definition")],
                 sp.Integer(0), [o for o, b in zip(ours, bands, strict=True) if b == "low"],
                 [t / rule.factor for t, b in zip(default, bands, strict=True) if b == "low"]),
    ]
    # continuity at both edges, for every L, low, high, factor (θ is the continuous variable)
    at_high = blend.subs(_THETA, 2 * sp.pi * _HI / _LEN) - 2 * sp.pi * _HI / _LEN
    at_low = blend.subs(_THETA, 2 * sp.pi * _LO / _LEN) - 2 * sp.pi * _LO / _LEN / _F
    steps = [Step("at λ = L/high (θ = 2π·high/L) the blend weight s is 1, giving θ; at "
                  "λ = L/low (θ = 2π·low/L) it is 0, giving θ/factor", "substitution")]
    if not (_zero(at_high) and _zero(at_low)):
        out.append(Proof("scaling:continuous[llama3]", "the rule is continuous at both band "
                         "edges", "unknown", steps, note="the edge identities did not reduce"))
        return out
    steps.append(Step("both edge identities reduce to 0 for all L, low < high, factor",
                      "algebra", sp.latex(at_high)))
    concrete = {_F: sp.sympify(rule.factor), _LO: sp.sympify(rule.low_freq_factor),
                _HI: sp.sympify(rule.high_freq_factor),
                _LEN: sp.Integer(rule.original_max_position_embeddings)}
    jumps = []
    with mpmath.workdps(50):
        f, lo, hi = (mp_value(v, 50) for v in (rule.factor, rule.low_freq_factor,
                                                rule.high_freq_factor))
        length = rule.original_max_position_embeddings
        for edge, inner in ((hi, lambda t: t), (lo, lambda t: t / f)):
            theta = 2 * mpmath.pi * edge / length
            s = (length * theta / (2 * mpmath.pi) - lo) / (hi - lo)
            jumps.append(abs((1 - s) * theta / f + s * theta - inner(theta)))
    worst = max(jumps)
    ok = worst < mpmath.mpf(10) ** -40
    out.append(Proof("scaling:continuous[llama3]",
                     "θ' as a function of the wavelength is continuous at λ = L/high and "
                     "λ = L/low", "proved" if ok else "unknown", steps,
                     crosscheck={"max_jump": mpmath.nstr(worst, 3), "dps": 50},
                     note=None if ok else "internal error, please report: jump at an edge",
                     evidence=Evidence("symbolic identity", "structural", [
                         Sign(f"jump at λ = L/{name}", edge.xreplace(concrete), "zero")
                         for name, edge in (("high", at_high), ("low", at_low))])))
    return out


def _longrope(rule: LongRoPEScaling, d: int) -> list[Any]:
    from ..report import Step

    default = rule.default_frequencies(d)
    ones = tuple(sp.Integer(1) for _ in rule.short_factor)
    unit = replace(rule, short_factor=ones, long_factor=ones)
    length = rule.original_max_position_embeddings
    short, long = rule.at(length).frequencies(d), rule.at(length + 1).frequencies(d)
    return [
        _checked("scaling:unit_factors[longrope]", "per-pair factors all 1 give the default "
                 "table", [Step("θ_k/1 = θ_k", "definition")], _THETA / 1 - _THETA,
                 unit.frequencies(d), default),
        _checked("scaling:selection[longrope]",
                 f"s ≤ L = {length} uses short_factor, s > L uses long_factor",
                 [Step("HF picks long_factor iff seq_len > original_max_position_embeddings",
                       "definition")], sp.Integer(0), list(short) + list(long),
                 [t / e for t, e in zip(default, rule.short_factor, strict=True)]
                 + [t / e for t, e in zip(default, rule.long_factor, strict=True)]),
    ]
