"""The structure of T(Δ) (orthogonal, determinant, identity at zero, group law, inverse), layout
equivalence and periodicity, proved by :class:`~posproof.proofs.theorems.engine.Engine`
through the mixin :class:`StructureTheorems` (it uses the engine's model, identity cache,
cross-checks and search).
"""

from __future__ import annotations

from collections.abc import Sequence

import mpmath
import sympy as sp

from ...model.encoding import DELTA, Encoding, X
from ...model.layouts import LAYOUTS, permutation
from ...precise import mp_value
from ...report import Proof, Step
from ...validated import exact_ratio, irrational
from ..witness import proved_evidence, sign_item, weighted_sum, zero_item
from .budget import GROUP_UNITS
from .identities import A, B, count, dps, is_zero, mp_entry
from .residuals import (
    column_data,
    layout_residual,
    period_residual,
    structure_residual,
)
from .search import column

__all__ = ["StructureTheorems"]


class StructureTheorems:
    """The structure, layout-equivalence and periodicity theorems (a mixin of ``Engine``)."""

    # -- structure of T ------------------------------------------------------------
    def _blocks(self) -> list[tuple[tuple[int, ...], sp.Matrix]]:
        if self._block_cache is not None:
            return self._block_cache
        dok = self.translation("row")
        out = []
        for cols in self.m.groups:
            self.budget.charge("the blocks of T(Δ)", GROUP_UNITS)
            freqs = self.m.group_freqs(cols)
            size = len(cols)
            block = sp.Matrix(size, size, [self.m.abstract(dok.get((i, j), 0), DELTA, freqs)
                                           for i in cols for j in cols])
            out.append((cols, block))
        self._block_cache = out
        return out

    def structure(self, name: str) -> Proof:
        statements = {
            "orthogonal": ("T(Δ)ᵀ·T(Δ) = I", lambda b: list(b.T * b - sp.eye(b.rows))),
            "determinant": ("det T(Δ) = 1", lambda b: [b.det() - 1]),
            "identity_at_zero": ("T(0) = I",
                                 lambda b: list(b.subs(DELTA, 0) - sp.eye(b.rows))),
            "group_law": ("T(a)·T(b) = T(a + b)",
                          lambda b: list(b.subs(DELTA, A) * b.subs(DELTA, B)
                                         - b.subs(DELTA, A + B))),
            "inverse_is_transpose": ("T(−a) = T(a)ᵀ",
                                     lambda b: list(b.subs(DELTA, -A) - b.subs(DELTA, A).T)),
        }
        statement, build = statements[name]
        problems = self.enc.broken_pairs()
        if problems:
            return Proof(name, statement, "unknown", [Step(problems[0], "pair structure")],
                         note="no block rotation T(Δ) could be built for this encoding")
        dok = self.translation("row")
        steps = []
        if self.outside_entries(dok):  # pragma: no cover - the encoding builds blocks only
            return Proof(name, statement, "unknown", note="T is not block-diagonal")
        steps.append(Step("T(Δ) is block-diagonal on the pairs (after one permutation of rows "
                          "and columns, which preserves products, transposes and det)",
                          "block-diagonal structure"))
        shapes = set()
        for _cols, block in self._blocks():
            self.budget.charge(f"{name}: the blocks", 1)
            key = (name, tuple(block))
            if self.prove_identity(key, lambda b=block: build(b)) is None:
                return Proof(name, statement, "unknown", steps,
                             note=f"the block {block.tolist()} did not reduce to the identity")
            shapes.add(key)
        blocks = count(len(self.m.groups), "block")
        steps.append(Step(f"each of the {blocks} satisfies it for every w "
                          f"({len(shapes)} generic shape{'s' if len(shapes) > 1 else ''})",
                          "expand_trig"))
        cc = self.crosscheck(name, lambda a, b: self._structure_residual(name, a, b))
        gap = self._structure_gap(name)
        dok = self.translation("row")
        ev = self.zero_evidence(
            name, cc, lambda a, b: (gap, {A: a, B: b}),
            data=lambda cols: (name, tuple(tuple(sp.sympify(dok.get((i, j), 0)) for j in cols)
                                     for i in cols)),
            build=structure_residual)
        return Proof(name, statement, "proved", steps, crosscheck=cc, evidence=ev)

    def _structure_gap(self, name: str, groups: Sequence[tuple[int, ...]] | None = None
                       ) -> sp.Expr:
        """Σ of the entries of the statement's residual matrix (weighted) on the sampled
        blocks (or ``groups``), exact, in the symbols a (Δ) and b (the group law's second
        shift)."""
        dok = self.translation("row")
        parts = []
        for cols in self.evidence_groups() if groups is None else groups:
            def mat(delta: sp.Expr, cols: tuple[int, ...] = cols) -> sp.Matrix:
                return sp.Matrix([[sp.sympify(dok.get((i, j), 0)).xreplace({DELTA: delta})
                                   for j in cols] for i in cols])
            ta, eye = mat(A), sp.eye(len(cols))
            diff = {"orthogonal": lambda: ta.T * ta - eye,
                    "determinant": lambda: sp.Matrix([[ta.det() - 1]]),
                    "identity_at_zero": lambda: mat(sp.Integer(0)) - eye,
                    "group_law": lambda: ta * mat(B) - mat(A + B),
                    "inverse_is_transpose": lambda: mat(-A) - ta.T}[name]()
            parts.extend(diff)
        return weighted_sum(parts)

    def _structure_residual(self, name: str, a: int, b: int) -> mpmath.mpf:
        dok = self.translation("row")
        with mpmath.workdps(dps()):
            worst = mpmath.mpf(0)
            for cols in self.m.sample_groups():
                def mat(delta: int, cols: tuple[int, ...] = cols) -> mpmath.matrix:
                    return mpmath.matrix([[mp_entry(dok.get((i, j), 0), {DELTA: delta})
                                           for j in cols] for i in cols])
                eye = mpmath.eye(len(cols))
                # only the statement's own matrices are evaluated (each entry at its points)
                if name == "identity_at_zero":
                    diff = mat(0) - eye
                else:
                    ta = mat(a)
                    diff = {"orthogonal": lambda: ta.T * ta - eye,
                            "determinant": lambda: mpmath.matrix([[mpmath.det(ta) - 1]]),
                            "group_law": lambda: ta * mat(b) - mat(a + b),
                            "inverse_is_transpose": lambda: mat(-a) - ta.T}[name]()
                worst = max(worst, mpmath.mnorm(diff, 1))
            return worst

    # -- layouts and periods --------------------------------------------------------
    def layout_equivalence(self) -> Proof:
        name = "layout_equivalence"
        enc = self.enc
        statement = (f"PE_L = PE_{enc.layout.name}·P_L and T_L = P_Lᵀ·T_{enc.layout.name}·P_L "
                     "for every other layout L")
        if enc.schedule is None or enc.broken_pairs():
            return Proof(name, statement, "unknown", note="only for schedule-built encodings")
        steps = []
        gaps: list[sp.Expr] = []
        alts: list[tuple[Encoding, list[int]]] = []
        n, pad = enc.n_pairs, bool(enc.dim % 2)
        t_src = self.translation("row")
        for other in LAYOUTS:
            if other == enc.layout.name:
                continue
            alt = Encoding(enc.schedule, other, enc.dim, offset=enc.offset, odd_dim=enc.odd_dim)
            perm = permutation(enc.layout, other, n, pad)
            if sorted(perm) != list(range(enc.dim)):  # pragma: no cover - layouts are bijective
                return Proof(name, statement, "unknown", steps, note=f"{other}: not a permutation")
            self.budget.charge(f"{name}: the columns of layout {other}", enc.dim)
            for j in range(enc.dim):
                same = (alt.column_funcs[j] == enc.column_funcs[perm[j]]
                        and alt.column_frequency(j) == enc.column_frequency(perm[j]))
                if not same:
                    return self.search(name, statement, steps, [(
                        {"layout": other, "column": j}, column(alt, j, X),
                        column(enc, perm[j], X))], [j])
            t_alt = alt.translation_entries(DELTA, "row")
            mapped = {(perm[i], perm[j]): v for (i, j), v in t_alt.items()}
            if mapped.keys() != t_src.keys() or any(
                    not (mapped[ij] == t_src[ij]
                         or is_zero(mapped[ij] - t_src[ij], self.budget))
                    for ij in mapped):
                return Proof(name, statement, "unknown", steps,
                             note=f"T_{other} ≠ Pᵀ T P entrywise")
            alts.append((alt, perm))
            for j in range(0, enc.dim, max(1, enc.dim // 3))[:3]:
                gaps.append(sp.Add(column(alt, j, X), -column(enc, perm[j], X)))
            steps.append(Step(f"{other}: column j of PE_{other} is column perm[j] of "
                              f"PE_{enc.layout.name}, perm = {perm[:8]}"
                              f"{'…' if len(perm) > 8 else ''}; "
                              "T entries agree exactly under the same permutation",
                              "permutation"))
        gap = weighted_sum(gaps)
        points = (7, 123457, -98765)     # fixed: the cross-checks' random stream is untouched
        ev = proved_evidence("exact entrywise comparison",
                             [zero_item(f"Σ (PE_L[j] − PE[perm j])² at x = {x}", gap, {X: x})
                              for x in points], "all", layouts=len(LAYOUTS))
        # every column of every other layout, by groups of PE_L's columns
        self.group_residuals(
            ev, name, lambda cols: tuple((column_data(alt, j), column_data(enc, perm[j]))
                                         for alt, perm in alts for j in cols),
            layout_residual, (str(X),),
            hint=lambda cols: list(dict.fromkeys(
                f for alt, _ in alts for j in cols
                if (f := alt.column_frequency(j)) is not None)))
        return Proof(name, statement, "proved", steps, evidence=ev,
                     crosscheck={"method": "exact entrywise comparison", "layouts": len(LAYOUTS)})

    def periodicity(self) -> Proof:
        name = "periodicity"
        freqs = list(self.enc.frequencies)
        steps = [Step("the curve x ↦ PE(x) has period P exactly when ω_j·P ∈ 2πℤ for every "
                      "non-zero column j", "periodicity of sin and cos")]
        if not freqs:
            return Proof(name, "the curve of positions is constant (no frequencies)", "proved",
                         [Step("every column is 0", "column structure")],
                         values={"period": "any"})
        base = freqs[0]
        ratios: list[sp.Rational] = [sp.Integer(1)]
        for k, f in enumerate(freqs[1:], start=1):
            self.budget.charge(f"{name}: the frequency ratios", GROUP_UNITS)
            ratio = exact_ratio(f, base)
            if ratio is None:
                return Proof(name, "the curve of positions is periodic or aperiodic", "unknown",
                             steps, note=f"could not decide whether ω_{k}/ω_0 is rational "
                             "(no exact simplification to a rational, no named "
                             "irrationality proof)")
            if ratio is False:
                reason = irrational(sp.Mul(f.doit(), 1 / base.doit()))
                ev = proved_evidence(
                    "exact: an irrational frequency ratio (named proof)",
                    [sign_item("ω_0 > 0", base, "positive"),
                     sign_item(f"ω_{k} > 0", f, "positive"),
                     sign_item(f"ω_{k}/ω_0 − 1 ≠ 0", sp.Mul(f, 1 / base) - 1, "nonzero")],
                    "structural", proof=reason)
                steps.append(Step(f"ω_{k}/ω_0 = {sp.sstr(sp.Pow(f, 1) / base)} is irrational: "
                                  f"{reason}", "irrational ratio"))
                steps.append(Step("a common period would make ω_k/ω_0 = m_k/m_0 rational",
                                  "contradiction"))
                return Proof(name, "the curve of positions is aperiodic (no P > 0 with "
                             "PE(x+P) = PE(x))", "proved", steps, evidence=ev,
                             crosscheck={"method": "exact: irrationality of a frequency "
                                         "ratio", "pair": [0, k], "proof": reason},
                             values={"period": "none"})
            ratios.append(ratio)
        m0 = sp.ilcm(*(r.q for r in ratios), 1)
        period = 2 * sp.pi * m0 / base.doit()
        turns = [r * m0 for r in ratios]       # ω_k·P/2π = (ω_k/ω_0)·m0, exact rationals
        if not all(t.is_Integer for t in turns):  # pragma: no cover - m0 clears denominators
            return Proof(name, "the curve of positions is periodic", "unknown", steps,
                         note="the computed period did not check")
        steps.append(Step(f"all ratios ω_k/ω_0 are rational; lcm of their denominators = {m0}",
                          "commensurable frequencies"))
        steps.append(Step(f"P = 2π·{m0}/ω_0 = {period}; ω_k·P/2π = {turns[:4]}"
                          f"{'…' if len(turns) > 4 else ''} are all integers, and no smaller "
                          "P > 0 makes ω_0·P/2π an integer multiple of the lcm", "exact period"))

        def residual(x: int, y: int) -> mpmath.mpf:
            with mpmath.workdps(dps()):
                p = mp_value(period, dps() + 10)
                return max(abs(self.m.pe_mp(j, x + p) - self.m.pe_mp(j, x))
                           for cols in self.m.sample_groups() for j in cols)
        cc = self.crosscheck(name, residual, scale=lambda x, y: float(period))
        gap = weighted_sum(column(self.enc, j, X + period) - column(self.enc, j, X)
                             for j in self.sample_columns())
        enc = self.enc
        ev = self.zero_evidence(
            name, cc, lambda x, y: (gap, {X: x}),
            data=lambda cols: (tuple(column_data(enc, j) for j in cols), period),
            build=period_residual)
        return Proof(name, f"the curve of positions is periodic with exact period {period}"
                     + self.padding_clause("x", "x+P"),
                     "proved", steps, crosscheck=cc, latex=sp.latex(period),
                     values={"period": str(period)}, exact=period, evidence=ev)
