"""What is proved about xPos (:class:`posproof.model.xpos.XPos`): relative scores, decay.

``xpos:relative`` — the score ⟨x_m(q), x_n(k)⟩ of the query at m and the key at n
depends on m − n only: pair by pair it is ζ_k^((m−n)/B)·⟨q_k, G((n−m)θ_k) k_k⟩, from the
generic rotary identity (:func:`posproof.proofs.rotary.generic_identity`) and the power
law z^a·z^(−b) = z^(a−b) for z > 0, both proved symbolically, then cross-checked in
mpmath at random large positions (a disagreement turns "proved" into "unknown").
``xpos:decay`` — 0 < ζ_k < 1 for every pair of every even d (exact), so each pair's
scale ζ_k^(Δ/B) strictly decreases with the distance Δ; the exact ζ_k and the distance at
which each pair's scale halves are in ``values``.

>>> from posproof.model.xpos import XPos
>>> [(p.name, p.status) for p in prove_xpos(XPos(8)).theorems]
[('xpos:relative', 'proved'), ('xpos:decay', 'proved')]
"""

from __future__ import annotations

import random
from typing import Any

import mpmath
import sympy as sp

from ..errors import InvalidParameter, check_int
from ..evidence import Evidence, Sign
from ..model.xpos import XPos
from ..precise import DEFAULT_DPS, mp_values
from ..report import Proof, Report, Step
from .rotary import generic_identity

__all__ = ["XPOS_THEOREMS", "prove_xpos"]

XPOS_THEOREMS = ("xpos:relative", "xpos:decay")

_Z = sp.Symbol("z", positive=True)
#: The positions of the evidence's residuals (their exact values in each item's env).
_M, _N = sp.symbols("m n", integer=True)
_A, _B = sp.symbols("a b", real=True)


def _power_law() -> bool:
    """z^a · z^(−b) = z^(a−b) for z > 0 and real a, b (exact rewriting)."""
    return sp.simplify(sp.powsimp(_Z**_A * _Z**(-_B) - _Z**(_A - _B), force=False)) == 0


def _score_mp(xp: XPos, m: int, n: int, q: list, k: list, freqs: list, zetas: list) -> Any:
    """⟨xPos_q(m) q, xPos_k(n) k⟩ computed channel by channel (adjacent pairs)."""
    total = mpmath.mpf(0)
    for j, (w, z) in enumerate(zip(freqs, zetas, strict=True)):
        a, b = q[2 * j], q[2 * j + 1]
        c, d = k[2 * j], k[2 * j + 1]
        cm, sm, cn, sn = mpmath.cos(w * m), mpmath.sin(w * m), mpmath.cos(w * n), mpmath.sin(w * n)
        qa, qb = a * cm - b * sm, a * sm + b * cm
        ka, kb = c * cn - d * sn, c * sn + d * cn
        total += z ** (mpmath.mpf(m) / xp.scale_base) * z ** (-mpmath.mpf(n) / xp.scale_base) * (
            qa * ka + qb * kb)
    return total


def _relative_mp(xp: XPos, delta: int, q: list, k: list, freqs: list, zetas: list) -> Any:
    """Σ_k ζ_k^(Δ/B)·⟨q_k, G(−Δθ_k) k_k⟩ with Δ = m − n."""
    total = mpmath.mpf(0)
    for j, (w, z) in enumerate(zip(freqs, zetas, strict=True)):
        a, b = q[2 * j], q[2 * j + 1]
        c, d = k[2 * j], k[2 * j + 1]
        co, si = mpmath.cos(-w * delta), mpmath.sin(-w * delta)
        total += z ** (mpmath.mpf(delta) / xp.scale_base) * (a * (c * co - d * si)
                                                             + b * (c * si + d * co))
    return total


def _pair_residual(xp: XPos, j: int, m: Any, n: Any, q: tuple[int, int],
                   k: tuple[int, int]) -> sp.Expr:
    """The exact residual of xpos:relative on pair j at (m, n) for integer q, k: 0 when true
    (``m``, ``n`` integers or symbols: the identity for every m, n)."""
    w, z = xp.rotary.frequencies[j], xp.zetas()[j]
    b = xp.scale_base

    def rot(t: Any, v: tuple[int, int]) -> tuple[sp.Expr, sp.Expr]:
        c, s_ = sp.cos(w * t), sp.sin(w * t)
        return v[0] * c - v[1] * s_, v[0] * s_ + v[1] * c
    m, n, b = sp.sympify(m), sp.sympify(n), sp.sympify(b)
    qa, qb = rot(m, q)
    ka, kb = rot(n, k)
    lhs = z ** (m / b) * z ** (-n / b) * (qa * ka + qb * kb)
    ga, gb = rot(n - m, k)
    rhs = z ** ((m - n) / b) * (q[0] * ga + q[1] * gb)
    return sp.Add(lhs, -rhs, evaluate=False)


def _relative_evidence(xp: XPos, seed: int) -> Evidence:
    rng = random.Random(seed + 7)
    items = []
    for j in sorted({0, xp.head_dim // 2 - 1}):
        m, n = rng.randrange(10**3, 10**5), rng.randrange(10**3, 10**5)
        q = (rng.randint(-9, 9), rng.randint(-9, 9))
        k = (rng.randint(-9, 9), rng.randint(-9, 9))
        # kept in the symbols m, n with their values beside: the auditor decides the identity
        # for every m, n
        items.append(Sign(f"pair {j}: score(m={m}, n={n}) − relative form", _pair_residual(
            xp, j, _M, _N, q, k), "zero", env={_M: m, _N: n}))
    return Evidence("symbolic identity (generic pair identity and power law)", "structural",
                    items, {"points_audited": len(items)})


def _relative(xp: XPos, seed: int) -> Proof:
    statement = ("⟨x_q(m), x_k(n)⟩ = Σ_k ζ_k^((m−n)/B)·⟨q_k, G((n−m)θ_k) k_k⟩: the score "
                 "depends on m − n only")
    rel, latex = generic_identity("relative")
    if rel is not True or not _power_law():
        return Proof("xpos:relative", statement, "unknown",
                     note="the generic pair identity was not proved")
    steps = [Step(f"for every real w: {latex} (the rotary relative identity)",
                  "generic pair identity, proved symbolically"),
             Step("z^(m/B)·z^(−n/B) = z^((m−n)/B) for z = ζ_k > 0",
                  "power law for a positive base, proved symbolically"),
             Step("the query's pair k is scaled by ζ_k^(m/B) and the key's by ζ_k^(−n/B) "
                  "(keys inverted); a centring c shifts both exponents by the same c/B",
                  "definition of xPos; (m−c) − (n−c) = m − n"),
             Step("summing the pairs, the score is a function of m − n", "linearity")]
    rng = random.Random(seed)
    worst = mpmath.mpf(0)
    with mpmath.workdps(DEFAULT_DPS):
        freqs = mp_values(xp.rotary.frequencies, DEFAULT_DPS + 10)
        zetas = [mpmath.mpf(z.p) / z.q for z in xp.zetas()]
        for _ in range(4):
            m, n = rng.randrange(0, 10**5), rng.randrange(0, 10**5)
            q = [mpmath.mpf(rng.uniform(-1, 1)) for _ in range(xp.head_dim)]
            k = [mpmath.mpf(rng.uniform(-1, 1)) for _ in range(xp.head_dim)]
            a = _score_mp(xp, m, n, q, k, freqs, zetas)
            b = _relative_mp(xp, m - n, q, k, freqs, zetas)
            worst = max(worst, abs(a - b) / max(abs(b), mpmath.mpf(1)))
        ok = worst < mpmath.mpf(10) ** (-(DEFAULT_DPS // 2))
    cross = {"points": 4, "max_relative_difference": mpmath.nstr(worst, 3), "dps": DEFAULT_DPS}
    if not ok:
        return Proof("xpos:relative", statement, "unknown", steps, crosscheck=cross,
                     note="the mpmath cross-check disagreed")
    return Proof("xpos:relative", statement, "proved", steps, crosscheck=cross, general=True,
                 evidence=_relative_evidence(xp, seed))


def _decay(xp: XPos) -> Proof:
    d, k = sp.symbols("d k", positive=True)
    g = xp.gamma
    zeta = (2 * k / d + g) / (1 + g)
    statement = ("0 < ζ_k < 1 for every pair k < d/2 of every even d, so each pair's scale "
                 "ζ_k^(Δ/B) strictly decreases with the distance Δ")
    # ζ_k − 1 = (2k − d)/(d(1+γ)): negative exactly when 2k < d.
    gap = sp.factor(sp.together(zeta - 1))
    expected = (2 * k - d) / (d * (1 + g))
    if sp.simplify(gap - expected) != 0:  # pragma: no cover - SymPy regression guard
        return Proof("xpos:decay", statement, "unknown", note="ζ_k − 1 did not reduce")
    zetas = xp.zetas()
    if not all(0 < z < 1 for z in zetas):  # pragma: no cover - implied by the lemma
        return Proof("xpos:decay", statement, "refuted",
                     counterexample={"zetas": [str(z) for z in zetas]})
    with mpmath.workdps(30):
        halves = [mpmath.nstr(xp.scale_base * mpmath.log(2) / -mpmath.log(mpmath.mpf(z.p) / z.q),
                              8) for z in zetas]
    steps = [Step(f"ζ_k − 1 = (2k − d)/(d·(1 + γ)) with γ = {g}", "exact rational algebra"),
             Step("0 ≤ k < d/2 gives 2k − d < 0, so ζ_k < 1; ζ_k ≥ γ/(1 + γ) > 0",
                  "sign of numerator and denominator"),
             Step("d/dΔ ζ^(Δ/B) = ζ^(Δ/B)·ln(ζ)/B < 0 for 0 < ζ < 1",
                  "derivative of an exponential"),
             Step(f"for d = {xp.head_dim}: ζ = {', '.join(str(z) for z in zetas)}",
                  "the instance, exact")]
    lo, hi = min(zetas), max(zetas)
    evidence = Evidence("exact rational algebra", "structural",
                        [Sign("smallest ζ_k", lo, "positive"),
                         Sign("largest ζ_k − 1", hi - 1, "negative")],
                        {"pairs": len(zetas)})
    return Proof("xpos:decay", statement, "proved", steps, general=True,
                 values={"zeta": [str(z) for z in zetas], "half_distance": halves},
                 evidence=evidence)


def prove_xpos(xp: XPos, *, seed: int = 0) -> Report:
    """Prove what holds for xPos; returns a :class:`~posproof.Report` (``xpos:relative``, ``xpos:decay``)."""  # noqa: E501
    if not isinstance(xp, XPos):
        raise InvalidParameter(f"{xp!r} is not an XPos; build one with posproof.XPos(head_dim)")
    from ..audit import audit_report

    seed = check_int("seed", seed, minimum=0)
    return audit_report(Report(xp.to_dict(), [_relative(xp, seed), _decay(xp)]))
