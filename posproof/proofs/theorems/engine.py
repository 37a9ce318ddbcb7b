"""The proof engine proper: :class:`_Engine` proves the concrete theorems of one encoding.

Translation (and claimed T(Δ)), dot product, norm, boundedness, the structure
of T (orthogonal, determinant, identity at zero, group law, inverse), layout
equivalence and periodicity.  Each statement is reduced to one identity per
group of columns (:mod:`posproof.proofs.theorems.identities`), proved once per shape
and cached on the engine; every ``proved`` is cross-checked in mpmath, and
every identity that does not reduce to 0 goes to a counterexample search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import mpmath
import sympy as sp

from ...model.encoding import DELTA, Encoding, X
from ...model.layouts import LAYOUTS, permutation
from ...precise import DEFAULT_DPS, mp_value, mp_values
from ...report import Proof, Step
from ...validated import exact_ratio as _ratio
from ...validated import irrational
from .budget import Deadline
from .identities import (
    _CONFIRM_DIGITS,
    A,
    B,
    W,
    Y,
    _count,
    _CrossCheckFailure,
    _dps,
    _fmt,
    _Model,
    _mp_entry,
    _tol,
    _visibly_nonzero,
    is_zero,
)
from .search import (
    MAX_BITS,
    candidate_points,
    column,
    spread,
    translation_sides,
    validated_search,
)
from .trigzero import pretest_points


# --------------------------------------------------------------------------- engine
class _Engine:
    def __init__(self, enc: Encoding, seed: int = 0) -> None:
        #: The budget of the theorem being proved (set by :func:`posproof.prove` per theorem).
        self.deadline = Deadline(None)
        self.m = _Model(enc)
        self.m.rng.seed(seed)
        self.enc = enc
        self.identity_cache: dict[Any, bool | None] = {}
        #: Keys of identities certainly false at an exact point (an interval enclosure).
        self.visibly_false: set[Any] = set()
        self._t: dict[str, dict[tuple[int, int], sp.Expr]] = {}
        self._block_cache: list[tuple[tuple[int, ...], sp.Matrix]] | None = None

    # -- helpers --------------------------------------------------------------
    def translation(self, convention: str) -> dict[tuple[int, int], sp.Expr]:
        if convention not in self._t:
            self._t[convention] = self.enc.translation_entries(DELTA, convention)
        return self._t[convention]

    def prove_identity(self, key: Any, build: Callable[[], Iterable[sp.Expr]]) -> bool | None:
        """Prove every expression of a group identity is 0, caching by its shape.

        Tried numerically first: an identity certainly non-zero at one exact point
        (an interval enclosure) is not expanded at all."""
        if key not in self.identity_cache:
            exprs = list(build())
            if _visibly_nonzero(exprs, self.deadline):
                self.identity_cache[key] = None
                self.visibly_false.add(key)
            else:
                results = []
                for e in exprs:
                    results.append(is_zero(e, self.deadline))
                    if results[-1] is not True:
                        break
                self.identity_cache[key] = True if all(r is True for r in results) else None
        return self.identity_cache[key]

    def outside_entries(self, dok: dict[tuple[int, int], sp.Expr]) -> list[tuple[int, int]]:
        g = self.m.group_of
        return [ij for ij, v in dok.items() if g[ij[0]] != g[ij[1]] and v != 0]

    def crosscheck(self, name: str, residual: Callable[[int, int], mpmath.mpf],
                   scale: Callable[[int, int], Any] = lambda x, y: 1) -> dict[str, Any]:
        """Evaluate a proved statement's residual in mpmath at random points."""
        pts = self.m.points()
        pairs = [(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))]
        worst = mpmath.mpf(0)
        omega = self.m.omega_max
        for x, y in pairs:
            self.deadline.check(f"the cross-check of {name}")
            # Angles ω·x lose |ω·x|·10^-dps in mpmath: add that many digits, keep the tolerance.
            extra = max(0, int(mpmath.log10(max(1, omega) * (1 + abs(x) + abs(y)))) + 5)
            with mpmath.workdps(DEFAULT_DPS + extra):
                value = abs(residual(x, y))
            if value > _tol(scale(x, y)):
                raise _CrossCheckFailure(
                    f"{name}: proved symbolically but the residual at x={x}, Δ/y={y} is "
                    f"{_fmt(value)} in mpmath at {DEFAULT_DPS} digits")
            worst = max(worst, value)
        return {"points": [list(p) for p in pairs], "max_residual": _fmt(worst, 3),
                "dps": DEFAULT_DPS, "groups_sampled": len(self.m.sample_groups())}

    # -- translation ----------------------------------------------------------
    def translation_proof(self, convention: str, claim: dict[tuple[int, int], sp.Expr] | None,
                          claim_label: str | None = None) -> Proof:
        name = f"translation[{convention}]"
        statement = ("PE(x+Δ) = PE(x)·T(Δ)" if convention == "row"
                     else "PE(x+Δ)ᵀ = T(Δ)·PE(x)ᵀ")
        statement += (f", T(Δ) {claim_label}" if claim_label
                      else ", T(Δ) block-diagonal of 2×2 rotations")
        if claim is None:
            problems = self.enc.broken_pairs()
            if problems:
                return self.no_translation(name, statement, problems)
            dok = self.translation(convention)
        else:
            dok = claim
        # Work in the row convention: T·PEᵀ in the column convention is PE·Tᵀ.
        row_dok = dok if convention == "row" else {(j, i): v for (i, j), v in dok.items()}
        steps = []
        outside = self.outside_entries(row_dok)
        if outside:
            steps.append(Step(f"T has {len(outside)} entries outside the 2×2 pair blocks, "
                              f"e.g. at {outside[0]}", "structure"))
        else:
            steps.append(Step("every non-zero entry of T(Δ) lies inside a pair's 2×2 block "
                              f"({len(self.m.groups)} groups)", "block-diagonal structure"))
        unproved = []
        shapes = {}
        for g, cols in enumerate(self.m.groups):
            self.deadline.check(f"{name}: the group identities")
            freqs = self.m.group_freqs(cols)
            if outside:
                unproved.append(g)
                continue
            block = tuple(self.m.abstract(row_dok.get((i, j), 0), DELTA, freqs)
                          for i in cols for j in cols)
            funcs = tuple(self.enc.column_funcs[j] for j in cols)
            key = ("translation", funcs, block, len(freqs))

            def build(cols: tuple[int, ...] = cols, freqs: list[sp.Expr] = freqs,
                      block: tuple[sp.Expr, ...] = block) -> list[sp.Expr]:
                size = len(cols)
                out = []
                for jj, j in enumerate(cols):
                    lhs = self.m.pe_symbolic(j, X + DELTA, freqs)
                    rhs = sum(self.m.pe_symbolic(i, X, freqs) * block[ii * size + jj]
                              for ii, i in enumerate(cols))
                    out.append(lhs - rhs)
                return out
            if self.prove_identity(key, build) is None:
                # Perhaps true only for these particular frequencies: try them concretely.
                concrete = {W[i]: f for i, f in enumerate(freqs)}
                ckey = (key, tuple(freqs))
                exprs = [e.xreplace(concrete) for e in build()]
                if self.prove_identity(ckey, lambda: exprs) is None:
                    unproved.append(g)
                    if ckey in self.visibly_false:
                        # Certainly false for this group's own frequencies: the statement
                        # is false; search for the counterexample now, not after every group.
                        break
                    continue
            shapes.setdefault(key, (cols, block))
        if not unproved:
            for cols, block in list(shapes.values())[:3]:
                size = len(cols)
                mat = sp.Matrix(size, size, list(block))
                steps.append(Step(
                    f"generic group {cols} (frequency w): block {sp.sstr(mat.tolist())}; "
                    "the identity expands to 0 for every w", "expand_trig",
                    sp.latex(mat)))
            steps.append(Step(f"{_count(len(self.m.groups), 'group')} reduce"
                              f"{'s' if len(self.m.groups) == 1 else ''} to "
                              f"{_count(len(shapes), 'generic identity', 'generic identities')}",
                              "block-diagonal structure"))
            cc = self.crosscheck(name, lambda x, dl: self._translation_residual(
                row_dok, x, dl, self.m.sample_groups())[0], scale=lambda x, dl: abs(x) + abs(dl))
            return Proof(name, statement, "proved", steps, crosscheck=cc)
        cols = [j for g in unproved for j in self.m.groups[g]]
        return self.search(name, statement, steps, translation_sides(
            self.enc, row_dok, spread([self.m.groups[g] for g in unproved])), cols)

    def _translation_residual(self, row_dok: dict[tuple[int, int], sp.Expr], x: int, dl: int,
                              groups: Sequence[tuple[int, ...]]) -> tuple[mpmath.mpf, dict]:
        """Largest |PE(x+Δ) − PE(x)·T(Δ)| over the groups' columns (the cross-check)."""
        with mpmath.workdps(_dps()):
            worst, where = mpmath.mpf(-1), {}
            by_col: dict[int, list[tuple[int, sp.Expr]]] = {}
            for (i, j), v in row_dok.items():
                by_col.setdefault(j, []).append((i, v))
            for cols in groups:
                for j in cols:
                    lhs = self.m.pe_mp(j, x + dl)
                    rhs = mpmath.fsum(self.m.pe_mp(i, x) * _mp_entry(v, {DELTA: dl})
                                      for i, v in by_col.get(j, []))
                    r = abs(lhs - rhs)
                    if r > worst:
                        worst, where = r, {"column": j, "lhs": _fmt(lhs), "rhs": _fmt(rhs)}
            return worst, where

    def no_translation(self, name: str, statement: str, problems: list[str]) -> Proof:
        steps = [Step(p, "pair structure") for p in problems[:5]]
        enc = self.enc
        if all(f in ("sin", "zero") for f in enc.column_funcs):
            # Zero witness: PE(0) = 0 exactly, so any linear T maps it to 0 ≠ PE(Δ).
            zero = enc.vector(0)
            col = next((j for j, f in enumerate(enc.column_funcs) if f == "sin"), None)
            if col is not None and all(v == 0 for v in zero):   # all-zero PE: no witness
                with mpmath.workdps(_dps()):
                    value = self.m.pe_mp(col, 1)
                if abs(value) > mpmath.mpf(10) ** -_CONFIRM_DIGITS:
                    steps.append(Step("PE(0) = 0 exactly, so PE(0)·T = 0 for every matrix T, "
                                      f"but PE(1)[{col}] = {_fmt(value)} ≠ 0",
                                      "zero witness"))
                    return Proof(name, statement.split(",")[0] + " for some matrix T(Δ) "
                                 "independent of x", "refuted", steps, counterexample={
                                     "x": 0, "delta": 1, "column": col, "lhs": _fmt(value),
                                     "rhs": "0", "residual": _fmt(abs(value)),
                                     "dps": DEFAULT_DPS, "kind": "zero witness",
                                     "explanation": "PE(0) is the zero vector; no linear map "
                                                    "sends it to PE(1) ≠ 0"})
        # Pair witness: the 2×2 block is forced by two positions; a third contradicts it.
        for s, c in enc.pairs:
            ce = self._pair_witness(s, c)
            if ce is not None:
                steps.append(Step(f"on dims ({s}, {c}) the block is forced by x = 0 and x = 1 "
                                  f"and contradicted at x = {ce['x']}", "pair witness"))
                return Proof(name, statement, "refuted", steps, counterexample=ce)
        return Proof(name, statement, "unknown", steps, note="no counterexample found")

    def _pair_witness(self, s: int, c: int) -> dict[str, Any] | None:
        delta = 1
        with mpmath.workdps(_dps()):
            def row(x: int) -> list[mpmath.mpf]:
                return [self.m.pe_mp(s, x), self.m.pe_mp(c, x)]
            xs = [0, 1]
            mat = mpmath.matrix([row(x) for x in xs])
            if abs(mpmath.det(mat)) < mpmath.mpf(10) ** -10:
                xs = [1, 2]
                mat = mpmath.matrix([row(x) for x in xs])
                if abs(mpmath.det(mat)) < mpmath.mpf(10) ** -10:
                    return None
            forced = mpmath.inverse(mat) * mpmath.matrix([row(x + delta) for x in xs])
            for x in (3, 5, 17, 1234):
                pred = mpmath.matrix([row(x)]) * forced
                true = row(x + delta)
                r = max(abs(pred[0, i] - true[i]) for i in range(2))
                if r > mpmath.mpf(10) ** -_CONFIRM_DIGITS:
                    return {"x": x, "delta": delta, "columns": [s, c], "kind": "pair witness",
                            "forced_block": [[_fmt(forced[i, j]) for j in range(2)]
                                             for i in range(2)],
                            "residual": _fmt(r), "dps": DEFAULT_DPS,
                            "explanation": f"the only 2×2 block mapping PE(x)[{s},{c}] to "
                                           f"PE(x+1)[{s},{c}] at x = {xs[0]}, {xs[1]} "
                                           f"fails at x = {x}"}
        return None

    def search(self, name: str, statement: str, steps: list[Step],
               sides: list[tuple[dict, sp.Expr, sp.Expr]], cols: Sequence[int]) -> Proof:
        """Look for a counterexample at exact points with interval arithmetic
        (:mod:`posproof.proofs.theorems.search`); refuted if one is found, unknown if not."""
        steps.append(Step(f"the identity does not reduce to 0 on dims {list(cols)[:8]}"
                          f"{'…' if len(cols) > 8 else ''}", "exact rewriting"))
        randoms = list(zip(self.m.points(), self.m.points(), strict=True))
        # The pretest's points too: a group certainly false there is where the search stops.
        ce = validated_search(sides, candidate_points([*randoms, *pretest_points(X, DELTA)]),
                              self.deadline)
        if ce is None:
            return Proof(name, statement, "unknown", steps,
                         note="no symbolic proof, and no counterexample at the exact points "
                              f"tried (interval arithmetic up to {MAX_BITS} bits)")
        steps.append(Step(f"counterexample at x = {ce['x']}, Δ = {ce['delta']}: residual "
                          f"{ce['residual']}, enclosure [{ce['residual_enclosure'][0]}, "
                          f"{ce['residual_enclosure'][1]}] excludes 0",
                          f"interval arithmetic at {ce['bits']} bits"))
        return Proof(name, statement, "refuted", steps, counterexample=ce)

    # -- dot product and norm ----------------------------------------------------
    def dot_product(self) -> Proof:
        name = "dot_product"
        statement = "PE(x)·PE(y) = Σ_k cos(ω_k (x − y)), a function of x − y only"
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
            else:
                steps.append(self._regroup_step(regrouped))
                cc = self.crosscheck(name, lambda x, y: self._dot(x, y)
                                     - self._kernel_of(regrouped, x - y),
                                     scale=lambda x, y: self.enc.dim * (abs(x) + abs(y)))
            return Proof(name, statement, "proved", steps, crosscheck=cc)
        steps.append(Step(f"{len(unproved)} group(s) are not (sin, cos) pairs of one frequency, "
                          f"e.g. dims {unproved[0]}", "pair structure"))
        for x, y, shift in [(0, 1, 1), (1, 3, 5), (10, 17, 100), (123, 4567, 89)]:
            with mpmath.workdps(_dps()):
                a, b = self._dot(x, y), self._dot(x + shift, y + shift)
                if abs(a - b) > mpmath.mpf(10) ** -_CONFIRM_DIGITS:
                    steps.append(Step(f"PE({x})·PE({y}) = {_fmt(a)} but PE({x + shift})·"
                                      f"PE({y + shift}) = {_fmt(b)}: same offset, different "
                                      "values", f"mpmath at {DEFAULT_DPS} digits"))
                    return Proof(name, statement, "refuted", steps, counterexample={
                        "x": x, "y": y, "shift": shift, "lhs": _fmt(a), "rhs": _fmt(b),
                        "residual": _fmt(abs(a - b)), "dps": DEFAULT_DPS})
        return Proof(name, statement, "unknown", steps, note="no counterexample found")

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
        with mpmath.workdps(_dps()):
            return mpmath.fsum(mpmath.cos(w * delta) for w in mp_values(freqs, _dps() + 10))

    def _dot(self, x: int, y: int, sampled: bool = False) -> mpmath.mpf:
        """PE(x)·PE(y) in mpmath; over the sampled groups only when ``sampled``."""
        cols = ([j for g in self.m.sample_groups() for j in g] if sampled
                else range(self.enc.dim))
        with mpmath.workdps(_dps()):
            return mpmath.fsum(self.m.pe_mp(j, x) * self.m.pe_mp(j, y) for j in cols)

    def _kernel(self, delta: int, sampled: bool = False) -> mpmath.mpf:
        """Σ_k cos(ω_k Δ) in mpmath, over the sampled groups only when ``sampled``."""
        groups = self.m.sample_groups() if sampled else self.m.groups
        freqs = [self.enc.column_frequency(g[0]) for g in groups if len(g) == 2]
        with mpmath.workdps(_dps()):
            return mpmath.fsum(mpmath.cos(w * delta) for w in mp_values(freqs, _dps() + 10))

    def norm(self) -> Proof:
        n = self.enc.n_pairs
        name, statement = "norm", f"‖PE(x)‖² = n = {n} for every x (norm √(d/2))"
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
            else:
                steps.append(self._regroup_step(regrouped))
                steps.append(Step(f"{n} pairs contribute 1 each, zero columns 0", "sum"))
                cc = self.crosscheck(name, lambda x, y: self._dot(x, x) - n,
                                     scale=lambda x, y: self.enc.dim)
            return Proof(name, statement, "proved", steps, crosscheck=cc)
        steps.append(Step(f"{len(broken)} group(s) do not reduce to 1, e.g. dims {broken[0]}",
                          "pythagoras"))
        for x in (0, 1, 2, 10):
            value = self._dot(x, x)
            if abs(value - n) > mpmath.mpf(10) ** -_CONFIRM_DIGITS:
                steps.append(Step(f"‖PE({x})‖² = {_fmt(value)} ≠ {n}",
                                  f"mpmath at {DEFAULT_DPS} digits"))
                return Proof(name, statement, "refuted", steps, counterexample={
                    "x": x, "lhs": _fmt(value), "rhs": str(n),
                    "residual": _fmt(abs(value - n)), "dps": DEFAULT_DPS})
        return Proof(name, statement, "unknown", steps, note="no counterexample found")

    def bounded(self) -> Proof:
        steps = [Step("each column is sin(ω x), cos(ω x) with ω a positive real number, or 0",
                      "column structure")]
        if not all(v > 0 for v in mp_values(self.enc.frequencies, 30)):
            return Proof("bounded", "|PE_i(x)| ≤ 1", "unknown", steps,
                         note="a frequency is not known to be real")
        steps.append(Step("|sin t| ≤ 1 and |cos t| ≤ 1 for real t", "bound"))

        def residual(x: int, y: int) -> mpmath.mpf:
            with mpmath.workdps(_dps()):
                worst = max(abs(self.m.pe_mp(j, x)) for cols in self.m.sample_groups()
                            for j in cols)
            return max(worst - 1, mpmath.mpf(0))
        cc = self.crosscheck("bounded", residual)
        return Proof("bounded", "|PE_i(x)| ≤ 1 for every i and real x", "proved", steps,
                     crosscheck=cc)

    # -- structure of T ------------------------------------------------------------
    def _blocks(self) -> list[tuple[tuple[int, ...], sp.Matrix]]:
        if self._block_cache is not None:
            return self._block_cache
        dok = self.translation("row")
        out = []
        for cols in self.m.groups:
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
                         note="T(Δ) does not exist for this encoding")
        dok = self.translation("row")
        steps = []
        if self.outside_entries(dok):  # pragma: no cover - the encoding builds blocks only
            return Proof(name, statement, "unknown", note="T is not block-diagonal")
        steps.append(Step("T(Δ) is block-diagonal on the pairs (after one permutation of rows "
                          "and columns, which preserves products, transposes and det)",
                          "block-diagonal structure"))
        shapes = set()
        for _cols, block in self._blocks():
            key = (name, tuple(block))
            if self.prove_identity(key, lambda b=block: build(b)) is None:
                return Proof(name, statement, "unknown", steps,
                             note=f"the block {block.tolist()} did not reduce to the identity")
            shapes.add(key)
        blocks = _count(len(self.m.groups), "block")
        steps.append(Step(f"each of the {blocks} satisfies it for every w "
                          f"({len(shapes)} generic shape{'s' if len(shapes) > 1 else ''})",
                          "expand_trig"))
        cc = self.crosscheck(name, lambda a, b: self._structure_residual(name, a, b))
        return Proof(name, statement, "proved", steps, crosscheck=cc)

    def _structure_residual(self, name: str, a: int, b: int) -> mpmath.mpf:
        dok = self.translation("row")
        with mpmath.workdps(_dps()):
            worst = mpmath.mpf(0)
            for cols in self.m.sample_groups():
                def mat(delta: int, cols: tuple[int, ...] = cols) -> mpmath.matrix:
                    return mpmath.matrix([[_mp_entry(dok.get((i, j), 0), {DELTA: delta})
                                           for j in cols] for i in cols])
                ta, tb = mat(a), mat(b)
                eye = mpmath.eye(len(cols))
                diff = {"orthogonal": ta.T * ta - eye,
                        "determinant": mpmath.matrix([[mpmath.det(ta) - 1]]),
                        "identity_at_zero": mat(0) - eye,
                        "group_law": ta * tb - mat(a + b),
                        "inverse_is_transpose": mat(-a) - ta.T}[name]
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
        n, pad = enc.n_pairs, bool(enc.dim % 2)
        t_src = self.translation("row")
        for other in LAYOUTS:
            if other == enc.layout.name:
                continue
            alt = Encoding(enc.schedule, other, enc.dim, offset=enc.offset, odd_dim=enc.odd_dim)
            perm = permutation(enc.layout, other, n, pad)
            if sorted(perm) != list(range(enc.dim)):  # pragma: no cover - layouts are bijective
                return Proof(name, statement, "unknown", steps, note=f"{other}: not a permutation")
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
                         or is_zero(mapped[ij] - t_src[ij], self.deadline))
                    for ij in mapped):
                return Proof(name, statement, "unknown", steps,
                             note=f"T_{other} ≠ Pᵀ T P entrywise")
            steps.append(Step(f"{other}: column j of PE_{other} is column perm[j] of "
                              f"PE_{enc.layout.name}, perm = {perm[:8]}"
                              f"{'…' if len(perm) > 8 else ''}; "
                              "T entries agree exactly under the same permutation",
                              "permutation"))
        return Proof(name, statement, "proved", steps,
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
            ratio = _ratio(f, base)
            if ratio is None:
                return Proof(name, "the curve of positions is periodic or aperiodic", "unknown",
                             steps, note=f"could not decide whether ω_{k}/ω_0 is rational "
                             "(no exact simplification to a rational, no named "
                             "irrationality proof)")
            if ratio is False:
                reason = irrational(sp.Mul(f.doit(), 1 / base.doit()))
                steps.append(Step(f"ω_{k}/ω_0 = {sp.sstr(sp.Pow(f, 1) / base)} is irrational: "
                                  f"{reason}", "irrational ratio"))
                steps.append(Step("a common period would make ω_k/ω_0 = m_k/m_0 rational",
                                  "contradiction"))
                return Proof(name, "the curve of positions is aperiodic (no P > 0 with "
                             "PE(x+P) = PE(x))", "proved", steps,
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
            with mpmath.workdps(_dps()):
                p = mp_value(period, _dps() + 10)
                return max(abs(self.m.pe_mp(j, x + p) - self.m.pe_mp(j, x))
                           for cols in self.m.sample_groups() for j in cols)
        cc = self.crosscheck(name, residual, scale=lambda x, y: float(period))
        return Proof(name, f"the curve of positions is periodic with exact period {period}",
                     "proved", steps, crosscheck=cc, latex=sp.latex(period),
                     values={"period": str(period)}, exact=period)
