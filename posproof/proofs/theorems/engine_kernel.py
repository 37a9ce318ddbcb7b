"""The dot-product theorem PE(x)·PE(y) = f(x − y), the norm ‖PE(x)‖² = n and boundedness,
proved by :class:`~posproof.proofs.theorems.engine.Engine` through the mixin
:class:`KernelTheorems` (it uses the engine's model, identity cache, cross-checks and search).
"""

from __future__ import annotations

import mpmath
import sympy as sp

from ...evidence import Evidence
from ...model.encoding import X
from ...precise import DEFAULT_DPS, mp_values
from ...report import Proof, Step
from ..witness import proved_evidence, sign_item, witness_sign
from .budget import COLUMN_UNITS, GROUP_UNITS
from .identities import W, Y, dps, fmt, positive
from .residuals import column_data, kernel_residual, norm_residual
from .search import column

_S = sp.Symbol("s", integer=True)

__all__ = ["KernelTheorems"]


class KernelTheorems:
    """The dot product, norm and boundedness theorems of the engine (a mixin of ``Engine``)."""

    # -- dot product and norm ----------------------------------------------------
    def dot_product(self) -> Proof:
        name = "dot_product"
        statement = ("PE(x)·PE(y) = Σ_k cos(ω_k (x − y)), a function of x − y only"
                     + self.padding_clause("x", "y"))
        steps, unproved = [], []
        for cols in self.m.groups:
            freqs = self.m.group_freqs(cols)
            funcs = tuple(self.enc.column_funcs[j] for j in cols)
            key = ("dot", funcs, len(freqs))
            paired = funcs == ("sin", "cos") and len(freqs) == 1

            def build(cols: tuple[int, ...] = cols, freqs: list[sp.Expr] = freqs,
                      paired: bool = paired) -> list[sp.Expr]:
                total = sum(self.m.pe_symbolic(j, X, freqs) * self.m.pe_symbolic(j, Y, freqs)
                            for j in cols)
                target = sp.cos(W[0] * (X - Y)) if paired else 0
                return [total - target]
            if not (paired or funcs == ("zero",)) or self.prove_identity(key, build) is None:
                unproved.append(cols)
        regrouped = self._frequency_pairs() if unproved else None
        if not unproved or (regrouped is not None and self._pair_identity("dot")):
            steps.append(Step("sin(wx)·sin(wy) + cos(wx)·cos(wy) = cos(w(x − y)) for every w",
                              "expand_trig",
                              r"\sin(wx)\sin(wy)+\cos(wx)\cos(wy)=\cos(w(x-y))"))
            if regrouped is None:
                steps.append(Step(f"summing over the {self.enc.n_pairs} pairs (padding columns "
                                  "add 0)", "block-diagonal structure"))
                cc = self.crosscheck(name, lambda x, y: self._dot(x, y, sampled=True)
                                     - self._kernel(x - y, sampled=True),
                                     scale=lambda x, y: self.enc.dim * (abs(x) + abs(y)))
                pairs = [g for g in self.evidence_groups() if len(g) == 2]
                cols = self.sample_columns()
            else:
                steps.append(self._regroup_step(regrouped))
                cc = self.crosscheck(name, lambda x, y: self._dot(x, y)
                                     - self._kernel_of(regrouped, x - y),
                                     scale=lambda x, y: self.enc.dim * (abs(x) + abs(y)))
                pairs = regrouped[:2]
                cols = [j for p in pairs for j in p]
            enc = self.enc
            gap = (sp.Add(*(column(enc, j, X) * column(enc, j, Y) for j in cols))
                   - sp.Add(*(sp.cos(enc.column_frequency(p[0]) * (X - Y)) for p in pairs)))

            ev = self.zero_evidence(
                name, cc, lambda x, y: (gap, {X: x, Y: y}),
                data=lambda cols: (tuple(column_data(enc, j) for j in cols),
                                   enc.column_frequency(cols[0]) if len(cols) == 2 else None),
                build=kernel_residual, groups=regrouped)
            return Proof(name, statement, "proved", steps, crosscheck=cc, evidence=ev)
        steps.append(Step(f"{len(unproved)} group(s) are not (sin, cos) pairs of one frequency, "
                          f"e.g. dims {unproved[0]}", "pair structure"))
        cols = [j for j in range(self.enc.dim) if self.enc.column_funcs[j] != "zero"]
        self.budget.charge("the exact columns of the dot-product witness",
                           4 * COLUMN_UNITS * len(cols))
        gap = sp.Add(*(column(self.enc, j, X) * column(self.enc, j, Y)
                       - column(self.enc, j, X + _S) * column(self.enc, j, Y + _S)
                       for j in cols))
        for x, y, shift in [(0, 1, 1), (1, 3, 5), (10, 17, 100), (123, 4567, 89)]:
            self.budget.check("the dot-product witness")
            env = {X: x, Y: y, _S: shift}
            found = witness_sign(f"PE(x)·PE(y) − PE(x+s)·PE(y+s) at x = {x}, y = {y}, s = {shift}",
                                 gap, env, budget=self.budget)
            if found is None:
                continue
            item, bits = found
            with mpmath.workdps(dps()):
                a, b = self._dot(x, y), self._dot(x + shift, y + shift)
            steps.append(Step(f"PE({x})·PE({y}) = {fmt(a)} but PE({x + shift})·"
                              f"PE({y + shift}) = {fmt(b)}: same offset, different "
                              "values", f"interval arithmetic at {bits} bits"))
            return Proof(name, statement, "refuted", steps, counterexample={
                "x": x, "y": y, "shift": shift, "lhs": fmt(a), "rhs": fmt(b),
                "residual": fmt(abs(a - b)), "residual_enclosure": [item.lo, item.hi],
                "bits": bits, "dps": DEFAULT_DPS,
                "certified": "interval arithmetic: the difference's enclosure excludes 0"},
                evidence=Evidence("certified sign", items=[item]))
        return Proof(name, statement, "unknown", steps,
                     note="no certified counterexample found at the points tried")

    def _frequency_pairs(self) -> list[tuple[int, int]] | None:
        """Columns regrouped by exact frequency: one (sin, cos) pair per frequency, when the
        non-zero columns split that way (whatever the layout says), else None."""
        by_freq: dict[int, list[int]] = {}
        for j, k in enumerate(self.enc.column_freq_index):
            if self.enc.column_funcs[j] != "zero":
                by_freq.setdefault(k, []).append(j)
        pairs = []
        for cols in by_freq.values():
            funcs = sorted(self.enc.column_funcs[j] for j in cols)
            if funcs != ["cos", "sin"]:
                return None
            pairs.append(tuple(sorted(cols, key=lambda j: self.enc.column_funcs[j] != "sin")))
        return pairs  # type: ignore[return-value]

    def _pair_identity(self, kind: str) -> bool:
        """The generic identity of one (sin w·, cos w·) pair, proved (and cached) once."""
        def build() -> list[sp.Expr]:
            w = W[0]
            if kind == "dot":
                return [sp.sin(w * X) * sp.sin(w * Y) + sp.cos(w * X) * sp.cos(w * Y)
                        - sp.cos(w * (X - Y))]
            return [sp.sin(w * X) ** 2 + sp.cos(w * X) ** 2 - 1]
        return self.prove_identity(("pair", kind), build) is True

    def _regroup_step(self, pairs: list[tuple[int, int]]) -> Step:
        shown = ", ".join(f"({s}, {c})" for s, c in pairs[:6])
        return Step(f"the layout's pairs do not share frequencies, but the columns regroup by "
                    f"exact frequency into {len(pairs)} (sin, cos) pairs: {shown}"
                    f"{'…' if len(pairs) > 6 else ''}; the sum runs over any order of columns",
                    "regrouping by frequency")

    def _kernel_of(self, pairs: list[tuple[int, int]], delta: int) -> mpmath.mpf:
        """Σ cos(ω Δ) over the frequencies of ``pairs``, in mpmath."""
        freqs = [self.enc.column_frequency(s) for s, _ in pairs]
        with mpmath.workdps(dps()):
            return mpmath.fsum(mpmath.cos(w * delta) for w in mp_values(freqs, dps() + 10))

    def _dot(self, x: int, y: int, sampled: bool = False) -> mpmath.mpf:
        """PE(x)·PE(y) in mpmath; over the sampled groups only when ``sampled``."""
        cols = ([j for g in self.m.sample_groups() for j in g] if sampled
                else range(self.enc.dim))
        with mpmath.workdps(dps()):
            return mpmath.fsum(self.m.pe_mp(j, x) * self.m.pe_mp(j, y) for j in cols)

    def _kernel(self, delta: int, sampled: bool = False) -> mpmath.mpf:
        """Σ_k cos(ω_k Δ) in mpmath, over the sampled groups only when ``sampled``."""
        groups = self.m.sample_groups() if sampled else self.m.groups
        freqs = [self.enc.column_frequency(g[0]) for g in groups if len(g) == 2]
        with mpmath.workdps(dps()):
            return mpmath.fsum(mpmath.cos(w * delta) for w in mp_values(freqs, dps() + 10))

    def norm(self) -> Proof:
        n = self.enc.n_pairs
        name = "norm"
        statement = f"‖PE(x)‖² = n = {n} for every x (norm √(d/2))" + self.padding_clause("x")
        steps = []
        broken = []
        for cols in self.m.groups:
            freqs = self.m.group_freqs(cols)
            funcs = tuple(self.enc.column_funcs[j] for j in cols)

            def build(cols: tuple[int, ...] = cols, freqs: list[sp.Expr] = freqs) -> list[sp.Expr]:
                total = sum(self.m.pe_symbolic(j, X, freqs) ** 2 for j in cols)
                return [total - (1 if len(cols) == 2 else 0)]
            if self.prove_identity(("norm", funcs, len(freqs)), build) is None:
                broken.append(cols)
        regrouped = self._frequency_pairs() if broken else None
        if not broken or (regrouped is not None and len(regrouped) == n
                          and self._pair_identity("norm")):
            steps.append(Step("sin²(wx) + cos²(wx) = 1 for every w", "pythagoras",
                              r"\sin^2(wx)+\cos^2(wx)=1"))
            if regrouped is None:
                steps.append(Step(f"{n} pairs contribute 1 each, padding columns 0", "sum"))
                cc = self.crosscheck(name, lambda x, y: self._dot(x, x, sampled=True) - sum(
                    len(g) == 2 for g in self.m.sample_groups()),
                    scale=lambda x, y: self.enc.dim)
                cols = self.sample_columns()
                pairs = sum(len(g) == 2 for g in self.evidence_groups())
            else:
                steps.append(self._regroup_step(regrouped))
                steps.append(Step(f"{n} pairs contribute 1 each, zero columns 0", "sum"))
                cc = self.crosscheck(name, lambda x, y: self._dot(x, x) - n,
                                     scale=lambda x, y: self.enc.dim)
                cols = [j for p in regrouped[:2] for j in p]
                pairs = len(regrouped[:2])
            if self.enc.padding_idx is not None:
                steps.append(Step(f"the padding row x = {self.enc.padding_idx} is zeroed in the "
                                  f"table (‖row‖² = 0 ≠ {n}); it is excluded from the statement",
                                  "padding row"))
            gap = sp.Add(*(column(self.enc, j, X) ** 2 for j in cols)) - pairs

            enc = self.enc
            ev = self.zero_evidence(
                name, cc, lambda x, y: (gap, {X: x}),
                data=lambda cols: (tuple(column_data(enc, j) for j in cols),
                                   1 if len(cols) == 2 else 0),
                build=norm_residual, groups=regrouped)
            return Proof(name, statement, "proved", steps, crosscheck=cc, evidence=ev)
        steps.append(Step(f"{len(broken)} group(s) do not reduce to 1, e.g. dims {broken[0]}",
                          "pythagoras"))
        self.budget.charge("the exact columns of the norm witness", COLUMN_UNITS * self.enc.dim)
        gap = sp.Add(*(column(self.enc, j, X) ** 2 for j in range(self.enc.dim))) - n
        for x in (0, 1, 2, 10):
            if x == self.enc.padding_idx:
                continue
            self.budget.check("the norm witness")
            found = witness_sign(f"‖PE(x)‖² − {n} at x = {x}", gap, {X: x},
                                 budget=self.budget)
            if found is None:
                continue
            item, bits = found
            value = self._dot(x, x)
            steps.append(Step(f"‖PE({x})‖² = {fmt(value)} ≠ {n}",
                              f"interval arithmetic at {bits} bits"))
            return Proof(name, statement, "refuted", steps, counterexample={
                "x": x, "lhs": fmt(value), "rhs": str(n),
                "residual": fmt(abs(value - n)), "residual_enclosure": [item.lo, item.hi],
                "bits": bits, "dps": DEFAULT_DPS,
                "certified": "interval arithmetic: the residual's enclosure excludes 0"},
                evidence=Evidence("certified sign", items=[item]))
        return Proof(name, statement, "unknown", steps,
                     note="no certified counterexample found at the points tried")

    def bounded(self) -> Proof:
        steps = [Step("each column is sin(ω x), cos(ω x) with ω a positive real number, or 0",
                      "column structure")]
        freqs = list(self.enc.frequencies)
        self.budget.charge("the signs of the frequencies", GROUP_UNITS * len(freqs))
        if not all(positive(f) for f in freqs):
            return Proof("bounded", "|PE_i(x)| ≤ 1", "unknown", steps,
                         note="a frequency is not certified real and positive")
        steps.append(Step("|sin t| ≤ 1 and |cos t| ≤ 1 for real t", "bound"))

        def residual(x: int, y: int) -> mpmath.mpf:
            with mpmath.workdps(dps()):
                worst = max(abs(self.m.pe_mp(j, x)) for cols in self.m.sample_groups()
                            for j in cols)
            return max(worst - 1, mpmath.mpf(0))
        cc = self.crosscheck("bounded", residual)
        shown = sorted({0, len(freqs) - 1})[:2] if freqs else []
        items = [sign_item(f"ω_{k} > 0 (a real angle ω_{k}·x)", freqs[k], "positive")
                 for k in shown]
        ev = proved_evidence("structural: |sin t|, |cos t| ≤ 1 for real t", items,
                             "structural", frequencies=len(freqs))
        return Proof("bounded", "|PE_i(x)| ≤ 1 for every i and real x", "proved", steps,
                     crosscheck=cc, evidence=ev)
