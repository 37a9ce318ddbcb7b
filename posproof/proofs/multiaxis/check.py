"""Shared pieces of the multi-axis proofs: theorem names and statements, and the mpmath
cross-checks of a composed statement at random vector positions (:func:`encoding_residual`,
:func:`rotary_residual`).  A residual above the tolerance raises
:class:`CrossCheckMismatch`: a statement proved symbolically but contradicted by the numbers
is never reported as proved.

>>> from posproof.model.multiaxis import multi_preset
>>> float(encoding_residual(multi_preset("pe-2d", dim=4), "group_law", 0)) < 1e-30
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import mpmath
import sympy as sp

from ...model.multiaxis import MultiAxisEncoding, axis_symbols
from ...model.multirope import MultiAxisRotary
from ...precise import DEFAULT_DPS, mp_value

__all__ = ["MAX_ITEMS", "MULTI_ROTARY_THEOREMS", "MULTI_THEOREMS", "POINTS", "STATEMENTS",
           "CrossCheckMismatch", "block_items", "composition_evidence", "crosscheck_note",
           "diagonal_items", "encoding_residual", "encoding_structure_items", "entries_item",
           "generic_items", "rotary_residual", "rotary_structure_items", "same_entry",
           "unevaluated_difference"]

#: Theorems about a MultiAxisEncoding (report names ``multi:<name>``), and the 1-D
#: theorem of each block each one is composed from (None: the ⊕ structure itself).
MULTI_THEOREMS: dict[str, str | None] = {
    "translation[row]": "translation[row]", "translation[column]": "translation[column]",
    "direct_sum": None, "dot_product": "dot_product", "norm": "norm",
    "orthogonal": "orthogonal", "group_law": "group_law",
}
#: Theorems about a MultiAxisRotary (report names ``multi-rotary:<name>``).
MULTI_ROTARY_THEOREMS: dict[str, str | None] = {
    "relative": "relative", "orthogonal": "orthogonal", "direct_sum": None, "diagonal": None,
}

STATEMENTS = {
    "translation[row]": "PE(x+Δ) = PE(x)·T(Δ) for position vectors x, Δ ∈ R^k",
    "translation[column]": "PE(x+Δ)ᵀ = T(Δ)·PE(x)ᵀ for position vectors x, Δ ∈ R^k",
    "direct_sum": "T(Δ) = ⊕ over blocks of the 1-D T_b(Δ_{a_b}) (block b reads axis a_b only)",
    "dot_product": "PE(x)·PE(y) depends only on the offset vector x − y",
    "norm": "‖PE(x)‖² = dim/2 for every x ∈ R^k",
    "orthogonal": "T(Δ)ᵀT(Δ) = I for every Δ ∈ R^k",
    "group_law": "T(Δ)T(Δ′) = T(Δ+Δ′) for every Δ, Δ′ ∈ R^k",
    "rotary:relative": "⟨R(p)q, R(p′)k⟩ = ⟨q, R(p′−p)k⟩, i.e. R(p)ᵀR(p′) = R(p′−p), for "
                       "every q, k and position vectors p, p′",
    "rotary:orthogonal": "R(p)ᵀR(p) = I for every position vector p",
    "rotary:direct_sum": "R(p) = ⊕ over axes of the 1-D R_a(p_a) on axis_channels(a), the "
                         "identity on pass-through channels",
    "rotary:diagonal": "R(m, …, m) = the 1-D rotary R(m) with the same frequencies and layout",
}

POINTS = 3


def _rng(seed: int) -> random.Random:
    return random.Random(seed)


def _vector_points(rng: random.Random, k: int) -> list[list[int]]:
    """Random integer position vectors, large and negative components included."""
    return [[rng.choice([1, -1]) * rng.randrange(0, 10 ** rng.randrange(1, 6)) for _ in range(k)]
            for _ in range(POINTS)]


def _tol(scale: Any) -> mpmath.mpf:
    return mpmath.mpf(10) ** -(DEFAULT_DPS - 15) * (1 + abs(mpmath.mpf(scale)))



# --------------------------------------------------------------------------- cross-checks
def encoding_residual(enc: MultiAxisEncoding, name: str, seed: int) -> mpmath.mpf:
    """The worst residual of the composed statement in mpmath at random vector positions
    (on a sample of at most 8 columns); raises ``CrossCheckMismatch`` above the tolerance."""
    rng = _rng(seed)
    k, dim = enc.axes, enc.dim
    cols = sorted(rng.sample(range(dim), min(dim, 8)))
    xs = axis_symbols(enc.axes)
    worst = mpmath.mpf(0)
    vec = enc.vector()

    def pe(point: Sequence[int], only: Sequence[int] | None = None) -> dict[int, mpmath.mpf]:
        env = dict(zip(xs, point, strict=True))
        return {j: mp_value(vec[0, j], DEFAULT_DPS, env) for j in (only or range(dim))}

    def tee(delta: Sequence[int], convention: str = "row") -> dict[tuple[int, int], mpmath.mpf]:
        return {ij: mp_value(v, DEFAULT_DPS) for ij, v in
                enc.translation_entries(list(delta), convention).items()}

    with mpmath.workdps(DEFAULT_DPS):
        for x, dl, y in zip(_vector_points(rng, k), _vector_points(rng, k),
                            _vector_points(rng, k), strict=True):
            scale = 10 * dim * (1 + sum(map(abs, x)) + sum(map(abs, dl)) + sum(map(abs, y)))
            moved = [a + b for a, b in zip(x, dl, strict=True)]
            if name.startswith("translation"):
                convention = "row" if name.endswith("[row]") else "column"
                t, here, there = tee(dl, convention), pe(x), pe(moved, cols)
                for j in cols:
                    if convention == "row":
                        got = mpmath.fsum(here[i] * v for (i, jj), v in t.items() if jj == j)
                    else:
                        got = mpmath.fsum(here[i] * v for (jj, i), v in t.items() if jj == j)
                    worst = max(worst, abs(got - there[j]))
            elif name == "dot_product":
                a, b = pe(x), pe(y)
                a2, b2 = pe(moved), pe([p + q for p, q in zip(y, dl, strict=True)])
                worst = max(worst, abs(mpmath.fsum(a[j] * b[j] for j in a)
                                       - mpmath.fsum(a2[j] * b2[j] for j in a2)))
            elif name == "norm":
                a = pe(x)
                norm2 = mpmath.fsum(v * v for v in a.values())
                worst = max(worst, abs(norm2 - mpmath.mpf(dim) / 2))
            elif name in ("orthogonal", "direct_sum"):
                t = tee(dl)
                for j in cols:
                    for jj in cols:
                        dot = mpmath.fsum(v * t.get((i, jj), 0)
                                          for (i, c), v in t.items() if c == j)
                        worst = max(worst, abs(dot - (1 if j == jj else 0)))
            elif name == "group_law":
                ta, tb = tee(dl), tee(y)
                tab = tee([p + q for p, q in zip(dl, y, strict=True)])
                for i in cols:
                    for j in cols:
                        got = mpmath.fsum(v * tb.get((c, j), 0) for (r, c), v in ta.items()
                                          if r == i)
                        worst = max(worst, abs(got - tab.get((i, j), 0)))
            if worst > _tol(scale):
                raise CrossCheckMismatch(f"{name}: residual {mpmath.nstr(worst, 5)} at x={x}, "
                                         f"Δ={dl}")
    return worst


def rotary_residual(rot: MultiAxisRotary, name: str, seed: int) -> mpmath.mpf:
    """The composed rotary statement in mpmath at random vector positions (all pairs)."""
    rng = _rng(seed)
    with mpmath.workdps(DEFAULT_DPS):
        freqs = [mp_value(f, DEFAULT_DPS) for f in rot.frequencies]

        def rotate(p: Sequence[int], v: list[mpmath.mpf]) -> list[mpmath.mpf]:
            out = list(v)
            for k, (i, j) in enumerate(rot.pairs):
                c, s = mpmath.cos(freqs[k] * p[rot.pair_axes[k]]), mpmath.sin(
                    freqs[k] * p[rot.pair_axes[k]])
                out[i], out[j] = c * v[i] - s * v[j], s * v[i] + c * v[j]
            return out

        def dot(a: list[mpmath.mpf], b: list[mpmath.mpf]) -> mpmath.mpf:
            return mpmath.fsum(u * w for u, w in zip(a, b, strict=True))

        worst = mpmath.mpf(0)
        for p, p2 in zip(_vector_points(rng, rot.axes), _vector_points(rng, rot.axes),
                         strict=True):
            q = [mpmath.mpf(rng.randint(-9, 9)) for _ in range(rot.head_dim)]
            kk = [mpmath.mpf(rng.randint(-9, 9)) for _ in range(rot.head_dim)]
            if name == "relative":
                diff = [b - a for a, b in zip(p, p2, strict=True)]
                residual = abs(dot(rotate(p, q), rotate(p2, kk)) - dot(q, rotate(diff, kk)))
            elif name == "diagonal":
                got = rotate([p[0]] * rot.axes, q)
                ref = _rotate_1d(rot, freqs, p[0], q)
                residual = max(abs(a - b) for a, b in zip(got, ref, strict=True))
            else:  # orthogonal, direct_sum: R(p) preserves dot products
                rq, rk = rotate(p, q), rotate(p, kk)
                residual = max(abs(dot(rq, rq) - dot(q, q)), abs(dot(rq, rk) - dot(q, kk)))
            scale = 1000 * rot.head_dim * (1 + sum(map(abs, p)) + sum(map(abs, p2)))
            if residual > _tol(scale):
                raise CrossCheckMismatch(f"{name}: residual {mpmath.nstr(residual, 5)} at p={p}, "
                                         f"p′={p2}")
            worst = max(worst, residual)
    return worst


def _rotate_1d(rot: MultiAxisRotary, freqs: list[mpmath.mpf], m: int,
               v: list[mpmath.mpf]) -> list[mpmath.mpf]:
    """The 1-D rotary with the same frequencies and channels at position m (independent of
    pair_axes): the reference of the diagonal theorem."""
    out = list(v)
    for k, (i, j) in enumerate(rot.pairs):
        c, s = mpmath.cos(freqs[k] * m), mpmath.sin(freqs[k] * m)
        out[i], out[j] = c * v[i] - s * v[j], s * v[i] + c * v[j]
    return out


def same_entry(a: Any, b: Any) -> bool:
    """Whether two exact entries are the same expression once products are evaluated
    (``rotation_entries`` may hold an unevaluated ``1*m``): an exact rewrite, no numbers.

    >>> import sympy as sp
    >>> m = sp.Symbol("m")
    >>> same_entry(sp.cos(sp.Mul(1, m, evaluate=False)), sp.cos(m)), same_entry(m, 2 * m)
    (True, False)
    """
    return a == b or sp.expand(sp.sympify(a) - sp.sympify(b)) == 0


class CrossCheckMismatch(Exception):
    """A composed statement disagreed with mpmath: never reported as proved."""


def crosscheck_note(exc: Exception) -> str:
    """The note of a proof whose cross-check failed."""
    return f"internal error, please report: {exc}"




# --------------------------------------------------------------------------- evidence
#: At most this many evidence items per multi-axis verdict (the auditor re-checks each).
MAX_ITEMS = 6


def unevaluated_difference(a: Any, b: Any) -> sp.Expr:
    """``a − b`` kept as the two sides (SymPy would cancel two identical sides to 0 before
    the auditor ever saw them): the auditor evaluates each side on its own."""
    return sp.Add(sp.sympify(a), sp.Mul(-1, sp.sympify(b), evaluate=False), evaluate=False)


def entries_item(label: str, pairs: Sequence[tuple[Any, Any]],
                 env: dict[Any, Any] | None = None) -> Any:
    """One ``zero`` :class:`~posproof.evidence.Sign` for several exact entry comparisons:
    Σ (a_k − b_k)/p_k (p_k the k-th prime), every difference kept unevaluated.

    >>> m = sp.Symbol("m")
    >>> item = entries_item("demo", [(sp.cos(m), sp.cos(m)), (sp.sin(m), sp.sin(m))], {m: 3})
    >>> item.relation, item.expr == 0
    ('zero', False)
    """
    from ...evidence import Sign

    terms = [sp.Mul(sp.Rational(1, sp.prime(k + 1)), unevaluated_difference(a, b),
                    evaluate=False) for k, (a, b) in enumerate(pairs)]
    expr = terms[0] if len(terms) == 1 else sp.Add(*terms, evaluate=False)
    return Sign(label, expr, "zero", dict(env or {}), engine="exact rewriting")


def _edge_entries(local: dict[tuple[int, int], Any], limit: int = 2) -> list[tuple[int, int]]:
    """The first ``limit`` non-zero entries of a block (its first pair's)."""
    return sorted(ij for ij, v in local.items() if v != 0)[:limit]


def encoding_structure_items(enc: MultiAxisEncoding, seed: int = 0) -> list[Any]:
    """The ⊕ structure at an exact Δ: on the first and the last block, entries of T(Δ)
    minus the 1-D block's own T_b(Δ_{a_b}) (each exactly 0)."""
    rng = _rng(seed + 17)
    delta = [rng.randrange(10, 10**5) * rng.choice([1, -1]) for _ in range(enc.axes)]
    # in the symbols Δ_a, their values beside: the auditor decides the entries for every Δ
    syms = axis_symbols(enc.axes, "delta")
    whole = enc.translation_entries(list(syms))
    items = []
    for b in sorted({0, len(enc.blocks) - 1}):
        block = enc.blocks[b]
        local = block.encoding.translation_entries(syms[block.axis], "row")
        cols = block.columns
        pairs = [(whole.get((cols[i], cols[j]), sp.Integer(0)), local[(i, j)])
                 for i, j in _edge_entries(local)]
        if pairs:
            items.append(entries_item(f"⊕ structure: T(Δ) − T_{b}(Δ_{enc.axis_names[block.axis]})"
                                      f" on block {b}'s first entries, Δ = {delta}", pairs,
                                      dict(zip(syms, delta, strict=True))))
    return items


def rotary_structure_items(rot: MultiAxisRotary, seed: int = 0) -> list[Any]:
    """The ⊕ structure at an exact p: on the first and the last axis, entries of R(p) minus
    the axis's 1-D R_a(p_a) (each exactly 0)."""
    rng = _rng(seed + 19)
    p = [rng.randrange(10, 10**5) * rng.choice([1, -1]) for _ in range(rot.axes)]
    # in the symbols p_a, their values beside: the auditor decides the entries for every p
    syms = axis_symbols(rot.axes, "p")
    whole = rot.rotation_entries(list(syms))
    items = []
    for a in sorted({0, rot.axes - 1}):
        chans = rot.axis_channels(a)
        if not chans:
            continue
        local = rot.axis_rotary(a).rotation_entries(syms[a])
        pairs = [(whole.get((chans[i], chans[j]), sp.Integer(0)), local[(i, j)])
                 for i, j in _edge_entries(local)]
        if pairs:
            items.append(entries_item(f"⊕ structure: R(p) − R_{rot.axis_names[a]}"
                                      f"(p_{rot.axis_names[a]}) on its first entries, p = {p}",
                                      pairs, dict(zip(syms, p, strict=True))))
    return items


def block_items(block_proofs: Sequence[tuple[str, Any]], room: int) -> list[Any]:
    """The first items of each distinct 1-D proof's evidence (two each when there are at most
    two distinct proofs, else one), relabelled with the block, at most ``room``."""
    from dataclasses import replace

    distinct: dict[int, tuple[str, Any]] = {}
    for where, proof in block_proofs:
        if proof is not None and proof.evidence is not None and proof.evidence.items:
            distinct.setdefault(id(proof), (where, proof))
    each = 2 if len(distinct) <= 2 else 1
    out = []
    for where, proof in distinct.values():
        for item in proof.evidence.items[:each]:
            out.append(replace(item, label=f"{where}: {proof.name}: {item.label}"))
    return out[:room]


def diagonal_items(rot: MultiAxisRotary, flat: dict[tuple[int, int], Any],
                   ref: dict[tuple[int, int], Any], m: Any, at: int = 12345) -> list[Any]:
    """R(m, …, m) − R_1D(m) on the first and the last pair at the exact integer m = ``at``
    (``flat``, ``ref``: the entries of both in the symbol ``m``; each difference exactly 0)."""
    items = []
    for k in sorted({0, rot.n_pairs - 1}) if rot.n_pairs else []:
        i, j = rot.pairs[k]
        pairs = [(flat.get(ij, sp.Integer(0)), ref.get(ij, sp.Integer(0)))
                 for ij in ((i, i), (j, i), (i, j), (j, j))]
        items.append(entries_item(f"pair {k}: R(m, …, m) − R_1D(m) on channels ({i}, {j}) at "
                                  f"m = {at}", pairs, {m: at}))
    return items


def composition_evidence(block_proofs: Sequence[tuple[str, Any]],
                         structure_items: Sequence[Any]) -> Any:
    """The evidence of a composed theorem: the exact ⊕ structure (its entry comparisons, each
    exactly 0) and each block's 1-D proof (the first items of its evidence)."""
    from ...evidence import Evidence

    composed = [p for _, p in block_proofs if p is not None]
    head = list(structure_items[:1] if composed else structure_items[:2])
    items = head + block_items(block_proofs, MAX_ITEMS - len(head))
    return Evidence("composition: exact ⊕ structure + each block's 1-D proof", "structural",
                    items, {"blocks": len(block_proofs),
                            "one_d_proofs": sorted({p.name for p in composed})})


#: Exact values of the free symbols of the generic pair identities (a frequency w = 3/7, not
#: a multiple of π; positions m, n; integer q, k): the identities at one exact point.
_GENERIC_AT = {"w": sp.Rational(3, 7), "w'": sp.Rational(5, 11), "m": 12345, "n": -678,
               "q_0": 2, "q_1": -3, "k_0": 5, "k_1": 7}


def generic_items(names: Sequence[str]) -> list[Any]:
    """The generic 2×2 identities of :func:`posproof.proofs.rotary.generic_identity` at
    exact values of their free symbols (each residual exactly 0; one item per identity)."""
    from ...evidence import Sign
    from ..rotary import GENERIC_IDENTITIES

    items = []
    for name in names:
        exprs, latex = GENERIC_IDENTITIES[name][0](), GENERIC_IDENTITIES[name][1]
        expr = exprs[0] if len(exprs) == 1 else sp.Add(*(
            sp.Mul(sp.Rational(1, sp.prime(k + 1)), e) for k, e in enumerate(exprs)))
        env = {s: _GENERIC_AT[str(s)] for s in expr.free_symbols}
        items.append(Sign(f"generic identity ${latex}$ at "
                          + ", ".join(f"{k} = {v}" for k, v in sorted(
                              (str(s), v) for s, v in env.items())),
                          expr, "zero", env, engine="exact rewriting"))
    return items
