"""Cache consistency: do cached keys and later queries see one rotation?

A KV cache stores keys rotated when they were computed.  If a rule changes the frequencies
with the sequence length — dynamic NTK (the base rescaled once s > L), LongRoPE (short_factor
up to L, long_factor after) — keys cached at m < L were rotated with θ and a query at n ≥ L with
θ′.  In the pair k, for unit q = k = e (the pair's first channel)::

    ⟨R(n θ′_k) e, R(m θ_k) e⟩ = cos(n θ′_k − m θ_k)

which is a function of n − m for every (n, m) exactly when θ′_k = θ_k.  Two theorems:

* ``cache-consistency[same rotation]`` — with one rotation on both sides, R(nw)ᵀR(mw) =
  R((m − n)w) for every frequency w (SymPy: trigonometric expansion to 0), so every score is
  a function of n − m: **proved**.
* ``cache-consistency`` — for the spec's rule: **refuted** with a certified counterexample when
  some pair's θ′_k ≠ θ_k (two (query, key) pairs with the same offset, queries after the switch
  and keys before it, whose scores differ: the sign of the difference certified by interval
  arithmetic, :func:`posproof.proofs.witness.witness_sign`); **proved** when every pair's
  frequency is the same before and after (certified equal, or a static rule).

>>> from posproof.model.specs import parse_spec
>>> rot = parse_spec("rope:dim=16,base=10000,scaling=dynamic,factor=2,"
...                  "original_max_position_embeddings=64")
>>> [(p.name, p.status) for p in prove_cache_consistency(rot).theorems]
[('cache-consistency[same rotation]', 'proved'), ('cache-consistency', 'refuted')]
>>> prove_cache_consistency(parse_spec("rope:dim=16,base=10000"))["cache-consistency"].status
'proved'
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..evidence import Evidence
from ..report import Proof, Report, Step
from ..validated import compare
from .witness import proved_evidence, witness_sign, zero_item

__all__ = ["THEOREM", "prove_cache_consistency", "prove_no_rotation_cache", "switch_rotations"]

#: The ``--theorem`` name.
THEOREM = "cache-consistency"

_N, _M, _W = sp.symbols("n m w", real=True)
STATEMENT = ("⟨R_b′(n)q, R_b(m)k⟩ is a function of n − m (keys cached at m with the rotation "
             "before the switch, queries at n with the rotation after it)")


def _rotation(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def same_rotation() -> Proof:
    """R(nw)ᵀR(mw) = R((m − n)w) for every w: one rotation gives scores in n − m only."""
    residual = _rotation(_N * _W).T * _rotation(_M * _W) - _rotation(_M * _W - _N * _W)
    reduced = residual.applyfunc(lambda e: sp.expand(sp.expand_trig(e)))
    if reduced != sp.zeros(2, 2):  # pragma: no cover - SymPy regression guard
        return Proof(f"{THEOREM}[same rotation]", "R(nw)ᵀR(mw) = R((m−n)w)", "unknown",
                     note="the trigonometric expansion did not reduce to 0")
    env = {_N: 5, _M: 3, _W: sp.Rational(1, 3)}
    items = [zero_item(f"entry {i},{j} of R(nw)ᵀR(mw) − R((m−n)w)", residual[i, j], env)
             for i, j in ((0, 0), (0, 1))]
    return Proof(f"{THEOREM}[same rotation]",
                 "with one rotation for keys and queries, ⟨R(n)q, R(m)k⟩ = qᵀR((m−n)w)k is a "
                 "function of n − m, for every frequency w", "proved",
                 steps=[Step("R(nw)ᵀR(mw) − R((m−n)w) = 0 entrywise", "expand_trig, expand")],
                 general=True, evidence=proved_evidence("symbolic identity", items,
                                                        coverage="all"))


def switch_rotations(rot: Any) -> tuple[tuple[sp.Expr, ...], tuple[sp.Expr, ...], int, int,
                                        str] | None:
    """``(θ before, θ′ after, L, s, what)`` for a length-dependent rule, else ``None``."""
    from ..model.scaling import DynamicNTKScaling, LongRoPEScaling

    rule = rot.schedule
    r = rot.rotary_dim
    if isinstance(rule, DynamicNTKScaling):
        length = rule.original_max_position_embeddings
        s = rule.seq_len if rule.seq_len is not None and rule.seq_len > length else 2 * length
        before, after = rule.at(length), rule.at(s)
        what = (f"dynamic NTK: base {before.effective_base(r)} up to length {length}, "
                f"{after.effective_base(r)} at length {s}")
        return before.frequencies(r), after.frequencies(r), length, s, what
    if isinstance(rule, LongRoPEScaling):
        length = rule.original_max_position_embeddings
        s = length + 1
        return (rule.at(length).frequencies(r), rule.at(s).frequencies(r), length, s,
                f"LongRoPE: short_factor up to length {length}, long_factor after")
    return None


def _score(n: int, m: int, before: sp.Expr, after: sp.Expr) -> sp.Expr:
    return sp.cos(sp.Integer(n) * after - sp.Integer(m) * before)


def prove_cache_consistency(rot: Any) -> Report:
    """The two theorems of the module docstring for a Rotary ``rot``."""
    lemma = same_rotation()
    switch = switch_rotations(rot)
    spec = rot.to_dict()
    if switch is None:
        rule = getattr(rot.schedule, "rope_type", rot.schedule.family)
        proof = Proof(THEOREM, STATEMENT, "proved",
                      steps=[Step(f"rule {rule}: the frequencies do not depend on the length, so "
                                  "cached keys and later queries share one rotation",
                                  "static schedule"),
                             Step("⟨R(n)q, R(m)k⟩ = qᵀR((m−n)w)k", "cache-consistency[same "
                                  "rotation]")],
                      general=False, evidence=lemma.evidence)
        return Report(spec, [lemma, proof])
    before, after, length, s, what = switch
    changed, undecided = [], []
    for k, (a, b) in enumerate(zip(before, after, strict=True)):
        c = compare(b, a)
        if c is None:
            undecided.append(k)
        elif c != 0:
            changed.append(k)
    if not changed:
        if undecided:
            return Report(spec, [lemma, Proof(THEOREM, STATEMENT, "unknown", note=(
                f"{what}; pairs {undecided} could not be certified equal or different"))])
        return Report(spec, [lemma, Proof(
            THEOREM, STATEMENT, "proved",
            steps=[Step(f"{what}: every pair's frequency is the same before and after "
                        "(certified equal)", "validated compare"),
                   Step("⟨R(n)q, R(m)k⟩ = qᵀR((m−n)w)k", "cache-consistency[same rotation]")],
            evidence=lemma.evidence)])
    for k in reversed(changed):                     # the slowest pairs change the most
        for delta in range(2, 8):
            n1, m1, n2, m2 = length - 1 + delta, length - 1, length - 2 + delta, length - 2
            residual = _score(n1, m1, before[k], after[k]) - _score(n2, m2, before[k], after[k])
            found = witness_sign(f"score(n={n1}, m={m1}) − score(n={n2}, m={m2}) in pair {k}",
                                 residual)
            if found is None:
                continue
            sign, bits = found
            ce = {"pair": k, "delta": delta, "queries": [n1, n2], "keys": [m1, m2],
                  "theta_cached": sp.sstr(before[k]), "theta_query": sp.sstr(after[k]),
                  "switch": length, "query_length": s,
                  "score_difference": [sign.lo, sign.hi],
                  "certified": f"interval arithmetic, {bits} bits"}
            return Report(spec, [lemma, Proof(
                THEOREM, STATEMENT, "refuted",
                steps=[Step(what, "the rule's exact frequencies"),
                       Step(f"pair {k}: θ′ = {sp.sstr(after[k])} ≠ θ = {sp.sstr(before[k])} "
                            "(certified)", "validated compare"),
                       Step(f"q = k = e_{k}: cos({n1}θ′ − {m1}θ) ≠ cos({n2}θ′ − {m2}θ) although "
                            f"both offsets are {delta}", "certified sign")],
                counterexample=ce, note=f"keys cached before {length} and queries after it "
                                        "see different rotations",
                evidence=Evidence("certified sign", items=[sign],
                                  details={"pairs_changed": len(changed)}))])
    return Report(spec, [lemma, Proof(THEOREM, STATEMENT, "unknown", note=(
        f"{what}; pairs {changed} change but no tried offset certified a difference"))])


#: Position rules without a rotation: what the cache stores and why it is consistent.
_NO_ROTATION = {
    "alibi": ("the score of query n and key m is ⟨q_n, k_m⟩ − slope·(n − m): the cached key "
              "carries no position and the bias, recomputed at every step, is a function of "
              "n − m", "ALiBi bias"),
    "t5": ("the score of query n and key m is ⟨q_n, k_m⟩ + B_h(bucket(n − m)): the cached key "
           "carries no position and the bias, recomputed at every step, is a function of n − m",
           "T5 bucket bias"),
    "absolute": ("the key cached at m is W_k(x_m + P[m]): the table row P[m] depends on m alone, "
                 "not on the sequence length, so the cached key is the one a full forward "
                 "computes (the score is not a function of n − m: absolute positions)",
                 "learned absolute table"),
}


def prove_no_rotation_cache(family: str) -> Report:
    """Cache consistency of a model whose positions are not a rotation (``alibi``, ``t5``,
    ``absolute``): proved, with the identity behind it checked exactly.

    >>> prove_no_rotation_cache("alibi")[THEOREM].status
    'proved'
    """
    from ..errors import UnknownName

    if family not in _NO_ROTATION:
        raise UnknownName(f"family={family!r}: no cache theorem without rotation; use "
                          f"{', '.join(_NO_ROTATION)}")
    statement, what = _NO_ROTATION[family]
    s, length1, length2 = sp.symbols("s L1 L2", integer=True)
    if family == "absolute":
        table = sp.Function("P")
        # the row added at m, read in a sequence of length L1 and of length L2: one function of m
        residual = table(_M).subs(length1, 0) - table(_M).subs(length2, 0)
        label = "P[m] in a sequence of length L1 − P[m] in one of length L2"
        env = {_M: 3}
    else:
        slope = sp.Symbol("a", positive=True)
        bias = (lambda n, m: -slope * (n - m)) if family == "alibi" else \
            (lambda n, m: sp.Function("B")(n - m))
        residual = bias(_N + s, _M + s) - bias(_N, _M)
        label = "bias(n + s, m + s) − bias(n, m)"
        env = {_N: 5, _M: 3, s: 7, slope: sp.Rational(1, 2)}
    if sp.simplify(residual) != 0:  # pragma: no cover - SymPy regression guard
        return Report({"positions": family}, [Proof(THEOREM, statement, "unknown",
                                                    note="the identity did not reduce to 0")])
    proof = Proof(THEOREM, statement, "proved",
                  steps=[Step(f"{label} = 0", f"{what}: exact rewriting"),
                         Step("the cached keys are those of the full forward; each step's "
                              "position term is recomputed from the query and key positions",
                              "architecture")],
                  general=True,
                  evidence=proved_evidence("symbolic identity",
                                           [zero_item(label, residual, env)]))
    return Report({"positions": family}, [proof])
