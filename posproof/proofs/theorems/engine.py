"""The proof engine proper: :class:`Engine` proves the concrete theorems of one encoding.

Translation (and claimed T(Δ)), dot product, norm, boundedness, the structure
of T (orthogonal, determinant, identity at zero, group law, inverse), layout
equivalence and periodicity.  Each statement is reduced to one identity per
group of columns (:mod:`posproof.proofs.theorems.identities`), proved once per shape
and cached on the engine; every ``proved`` is cross-checked in mpmath, and
every identity that does not reduce to 0 goes to a counterexample search.

This module holds the engine's machinery and the translation theorems; the dot product, norm
and boundedness come from :mod:`posproof.proofs.theorems.engine_kernel`, the structure of T,
layout equivalence and periodicity from :mod:`posproof.proofs.theorems.engine_structure`
(mixins of :class:`Engine`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import mpmath
import sympy as sp

from ...evidence import Evidence, GroupResidual, Sign
from ...model.encoding import DELTA, Encoding, X
from ...precise import DEFAULT_DPS
from ...report import Proof, Step
from ..witness import proved_evidence, weighted_sum, witness_sign, zero_item
from .budget import GROUP_UNITS, POINT_UNITS, Budget
from .engine_kernel import KernelTheorems
from .engine_structure import StructureTheorems
from .identities import (
    CrossCheckFailure,
    Model,
    W,
    count,
    dps,
    fmt,
    is_zero,
    mp_entry,
    tol,
    visibly_nonzero,
)
from .residuals import audited_groups, column_data, translation_residual
from .search import (
    MAX_BITS,
    candidate_points,
    column,
    spread,
    translation_sides,
    witness_search,
)
from .trigzero import pretest_points

__all__ = ["Engine"]


# --------------------------------------------------------------------------- engine
class Engine(KernelTheorems, StructureTheorems):
    def __init__(self, enc: Encoding, seed: int = 0, share: Engine | None = None) -> None:
        """``share``: an engine whose identity cache this one uses too.  A key names its
        identity completely (the shape of the group identity, in the generic frequency
        symbols, or with the group's exact frequencies), whatever the encoding it came from,
        so an identity proved once holds for every engine that meets it again."""
        #: The budget of the theorem being proved (set by :func:`posproof.prove` per theorem).
        self.budget = Budget(None)
        self.m = Model(enc)
        self.m.rng.seed(seed)
        self.enc = enc
        self.identity_cache: dict[Any, bool | None] = {} if share is None else share.identity_cache
        #: Keys of identities certainly false at an exact point (an interval enclosure).
        self.visibly_false: set[Any] = set() if share is None else share.visibly_false
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
            if visibly_nonzero(exprs, self.budget):
                self.identity_cache[key] = None
                self.visibly_false.add(key)
            else:
                results = []
                for e in exprs:
                    results.append(is_zero(e, self.budget))
                    if results[-1] is not True:
                        break
                self.identity_cache[key] = True if all(r is True for r in results) else None
        return self.identity_cache[key]

    def outside_entries(self, dok: dict[tuple[int, int], sp.Expr]) -> list[tuple[int, int]]:
        g = self.m.group_of
        return [ij for ij, v in dok.items() if g[ij[0]] != g[ij[1]] and v != 0]

    def padding_clause(self, *names: str) -> str:
        """What a statement about PE's values says about the padding row (empty without one).

        The table zeroes row ``padding_idx``; the theorems are about PE(x) at every other
        position (PE(p) would be the zero vector there: ‖PE(p)‖² = 0)."""
        p = self.enc.padding_idx
        if p is None:
            return ""
        return (f", for {' and '.join(n + f' ≠ {p}' for n in names)} (row {p} of the table is "
                "the padding row, zeroed: the statement is about every other position)")

    def points_of(self, cc: dict[str, Any], limit: int = 3) -> list[tuple[int, int]]:
        """The exact points of a cross-check (at most ``limit``), for the evidence."""
        return [tuple(p) for p in cc.get("points", [])[:limit]]  # type: ignore[misc]

    def zero_evidence(self, name: str, cc: dict[str, Any],
                      residual: Callable[[int, int], tuple[sp.Expr, dict]],
                      method: str = "symbolic identity", coverage: str = "all",
                      data: Callable[[tuple[int, ...]], tuple[Any, ...]] | None = None,
                      build: Callable[[tuple[Any, ...]], sp.Expr] | None = None,
                      groups: Sequence[tuple[int, ...]] | None = None) -> Evidence:
        """A proved theorem's evidence: its exact residual at the cross-check's points, each
        proved 0 by the symbolic identity (the auditor re-checks that it encloses 0), and,
        with ``data`` and ``build`` (:mod:`.residuals`), every column group's residual (of
        ``groups``, default every group of the encoding) as a function of its variables:
        the auditor decides each."""
        items = []
        variables: set[str] = set()
        for x, y in self.points_of(cc):
            expr, env = residual(x, y)
            at = ", ".join(f"{k} = {v}" for k, v in env.items())
            items.append(zero_item(f"{name} residual at {at}", expr, env))
            variables |= {str(k) for k in env}
        ev = proved_evidence(method, items, coverage,
                             groups=[list(g) for g in self.evidence_groups()])
        if data is not None and build is not None:
            self.group_residuals(ev, name, data, build, tuple(sorted(variables)), groups)
        return ev

    def group_residuals(self, ev: Evidence, name: str,
                        data: Callable[[tuple[int, ...]], tuple[Any, ...]],
                        build: Callable[[tuple[Any, ...]], sp.Expr],
                        variables: tuple[str, ...],
                        groups: Sequence[tuple[int, ...]] | None = None,
                        hint: Callable[[tuple[int, ...]], Sequence[sp.Expr]] | None = None
                        ) -> None:
        """Every group's data and builder into ``ev`` (past :data:`MAX_AUDITED_GROUPS`, an
        evenly spread selection, and how many there are), with its frequencies (``hint``,
        default the group's own: only a hint for the auditor, which checks what it
        instantiates)."""
        hint = hint or self.m.group_freqs
        every = list(self.m.groups if groups is None else groups)
        chosen = audited_groups(every)
        ev.groups = [GroupResidual(f"{name}: group {list(cols)}", None, variables,
                                   tuple(hint(tuple(cols))), data(tuple(cols)), build)
                     for cols in chosen]
        if len(chosen) < len(every):
            ev.groups_total = len(every)

    def evidence_groups(self) -> list[tuple[int, ...]]:
        """The groups whose residuals go into the evidence: the first and the last sampled
        (the audit re-evaluates them exactly, so they are kept few)."""
        return self.m.sample_groups()[:2]

    def sample_columns(self) -> list[int]:
        return [j for g in self.evidence_groups() for j in g]

    def crosscheck(self, name: str, residual: Callable[[int, int], mpmath.mpf],
                   scale: Callable[[int, int], Any] = lambda x, y: 1) -> dict[str, Any]:
        """Evaluate a proved statement's residual in mpmath at random points."""
        pts = self.m.points()
        pairs = [(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))]
        worst = mpmath.mpf(0)
        omega = self.m.omega_max
        columns = sum(len(g) for g in self.m.sample_groups())
        for x, y in pairs:
            self.budget.charge(f"the cross-check of {name}", POINT_UNITS * (1 + columns))
            # Angles ω·x lose |ω·x|·10^-dps in mpmath: add that many digits, keep the tolerance.
            extra = max(0, int(mpmath.log10(max(1, omega) * (1 + abs(x) + abs(y)))) + 5)
            with mpmath.workdps(DEFAULT_DPS + extra):
                value = abs(residual(x, y))
            if value > tol(scale(x, y)):
                raise CrossCheckFailure(
                    f"{name}: proved symbolically but the residual at x={x}, Δ/y={y} is "
                    f"{fmt(value)} in mpmath at {DEFAULT_DPS} digits")
            worst = max(worst, value)
        return {"points": [list(p) for p in pairs], "max_residual": fmt(worst, 3),
                "dps": DEFAULT_DPS, "groups_sampled": len(self.m.sample_groups())}

    # -- translation ----------------------------------------------------------
    def translation_proof(self, convention: str, claim: dict[tuple[int, int], sp.Expr] | None,
                          claim_label: str | None = None) -> Proof:
        name = f"translation[{convention}]"
        statement = ("PE(x+Δ) = PE(x)·T(Δ)" if convention == "row"
                     else "PE(x+Δ)ᵀ = T(Δ)·PE(x)ᵀ")
        statement += (f", T(Δ) {claim_label}" if claim_label
                      else ", T(Δ) block-diagonal of 2×2 rotations")
        statement += self.padding_clause("x", "x+Δ")
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
            self.budget.charge(f"{name}: the group identities", GROUP_UNITS)
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
            steps.append(Step(f"{count(len(self.m.groups), 'group')} reduce"
                              f"{'s' if len(self.m.groups) == 1 else ''} to "
                              f"{count(len(shapes), 'generic identity', 'generic identities')}",
                              "block-diagonal structure"))
            cc = self.crosscheck(name, lambda x, dl: self._translation_residual(
                row_dok, x, dl, self.m.sample_groups())[0], scale=lambda x, dl: abs(x) + abs(dl))
            sides = translation_sides(self.enc, row_dok, self.evidence_groups())
            gap = weighted_sum(sp.Add(lhs, -rhs) for _, lhs, rhs in sides)
            by_col: dict[int, list[tuple[int, sp.Expr]]] = {}
            for (i, j), v in row_dok.items():
                if v != 0:
                    by_col.setdefault(j, []).append((i, v))
            enc = self.enc
            ev = self.zero_evidence(
                name, cc, lambda x, dl: (gap, {X: x, DELTA: dl}),
                data=lambda cols: tuple((column_data(enc, j), tuple(
                    (column_data(enc, i), v) for i, v in by_col.get(j, ()))) for j in cols),
                build=translation_residual)
            return Proof(name, statement, "proved", steps, crosscheck=cc, evidence=ev)
        cols = [j for g in unproved for j in self.m.groups[g]]
        return self.search(name, statement, steps, translation_sides(
            self.enc, row_dok, spread([self.m.groups[g] for g in unproved])), cols)

    def _translation_residual(self, row_dok: dict[tuple[int, int], sp.Expr], x: int, dl: int,
                              groups: Sequence[tuple[int, ...]]) -> tuple[mpmath.mpf, dict]:
        """Largest |PE(x+Δ) − PE(x)·T(Δ)| over the groups' columns (the cross-check)."""
        with mpmath.workdps(dps()):
            worst, where = mpmath.mpf(-1), {}
            by_col: dict[int, list[tuple[int, sp.Expr]]] = {}
            for (i, j), v in row_dok.items():
                by_col.setdefault(j, []).append((i, v))
            for cols in groups:
                for j in cols:
                    lhs = self.m.pe_mp(j, x + dl)
                    rhs = mpmath.fsum(self.m.pe_mp(i, x) * mp_entry(v, {DELTA: dl})
                                      for i, v in by_col.get(j, []))
                    r = abs(lhs - rhs)
                    if r > worst:
                        worst, where = r, {"column": j, "lhs": fmt(lhs), "rhs": fmt(rhs)}
            return worst, where

    def no_translation(self, name: str, statement: str, problems: list[str]) -> Proof:
        steps = [Step(p, "pair structure") for p in problems[:5]]
        enc = self.enc
        if all(f in ("sin", "zero") for f in enc.column_funcs):
            # Zero witness: PE(0) = 0 exactly, so any linear T maps it to 0 ≠ PE(Δ).
            zero = enc.vector(0)
            col = next((j for j, f in enumerate(enc.column_funcs) if f == "sin"), None)
            if col is not None and all(v == 0 for v in zero):   # all-zero PE: no witness
                found = witness_sign(f"PE(x)[{col}] at x = 1 (PE(0) = 0 exactly)",
                                     column(enc, col, X), {X: 1}, budget=self.budget)
                if found is not None:
                    item, bits = found
                    with mpmath.workdps(dps()):
                        value = self.m.pe_mp(col, 1)
                    steps.append(Step("PE(0) = 0 exactly, so PE(0)·T = 0 for every matrix T, "
                                      f"but PE(1)[{col}] = {fmt(value)} ≠ 0",
                                      f"zero witness (interval arithmetic at {bits} bits)"))
                    return Proof(name, statement.split(",")[0] + " for some matrix T(Δ) "
                                 "independent of x", "refuted", steps, counterexample={
                                     "x": 0, "delta": 1, "column": col, "lhs": fmt(value),
                                     "rhs": "0", "residual": fmt(abs(value)),
                                     "residual_enclosure": [item.lo, item.hi], "bits": bits,
                                     "dps": DEFAULT_DPS, "kind": "zero witness",
                                     "certified": "interval arithmetic: PE(1) ≠ 0",
                                     "explanation": "PE(0) is the zero vector; no linear map "
                                                    "sends it to PE(1) ≠ 0"},
                                 evidence=Evidence("certified sign", items=[item]))
        # Pair witness: the 2×2 block is forced by two positions; a third contradicts it.
        for s, c in enc.pairs:
            found = self._pair_witness(s, c)
            if found is not None:
                ce, item = found
                x0, x1 = ce["forced_by"]
                steps.append(Step(f"on dims ({s}, {c}) the block is forced by x = {x0}"
                                  f" and x = {x1} and contradicted at "
                                  f"x = {ce['x']}", f"pair witness (interval arithmetic at "
                                                    f"{ce['bits']} bits)"))
                return Proof(name, statement, "refuted", steps, counterexample=ce,
                             evidence=Evidence("certified sign", items=[item]))
        return Proof(name, statement, "unknown", steps,
                     note="no certified counterexample found (a pair's frequencies may be equal "
                          "in a way no exact rewriting showed, or differ by less than the "
                          "precisions tried)")

    def _pair_witness(self, s: int, c: int) -> tuple[dict[str, Any], Sign] | None:
        """A certified pair witness: the only 2×2 block mapping (PE_s, PE_c) at two positions
        to their successors, contradicted at a third (exact residual, certified sign)."""
        delta = 1
        enc = self.enc

        def row(x: Any) -> list[sp.Expr]:
            return [column(enc, s, x), column(enc, c, x)]
        for xs in ((0, 1), (1, 2)):
            m = sp.Matrix([row(sp.Integer(x)) for x in xs])
            det = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
            if witness_sign("det", det, budget=self.budget) is None:
                continue
            n = sp.Matrix([row(sp.Integer(x + delta)) for x in xs])
            forced = sp.Matrix([[m[1, 1], -m[0, 1]], [-m[1, 0], m[0, 0]]]) * n / det
            pred = sp.Matrix([row(X)]) * forced
            true = row(X + delta)
            for x in (3, 5, 17, 1234):
                for i in range(2):
                    self.budget.check("the pair witness")
                    found = witness_sign(f"(PE(x)·T_forced − PE(x+1))[{(s, c)[i]}] at x = {x}",
                                         sp.Add(pred[0, i], -true[i]), {X: x},
                                         budget=self.budget)
                    if found is None:
                        continue
                    item, bits = found
                    with mpmath.workdps(dps()):
                        fb = [[fmt(mp_entry(forced[a, b], {})) for b in range(2)]
                              for a in range(2)]
                    return {"x": x, "delta": delta, "columns": [s, c], "kind": "pair witness",
                            "forced_by": list(xs), "forced_block": fb,
                            "residual": fmt(abs(mpmath.mpf(item.lo) + mpmath.mpf(item.hi)) / 2),
                            "residual_enclosure": [item.lo, item.hi], "bits": bits,
                            "dps": DEFAULT_DPS,
                            "certified": "interval arithmetic: the residual's enclosure "
                                         "excludes 0",
                            "explanation": f"the only 2×2 block mapping PE(x)[{s},{c}] to "
                                           f"PE(x+1)[{s},{c}] at x = {xs[0]}, {xs[1]} "
                                           f"fails at x = {x}"}, item
            return None
        return None

    def search(self, name: str, statement: str, steps: list[Step],
               sides: list[tuple[dict, sp.Expr, sp.Expr]], cols: Sequence[int]) -> Proof:
        """Look for a counterexample at exact points with interval arithmetic
        (:mod:`posproof.proofs.theorems.search`); refuted if one is found, unknown if not."""
        steps.append(Step(f"the identity does not reduce to 0 on dims {list(cols)[:8]}"
                          f"{'…' if len(cols) > 8 else ''}", "exact rewriting"))
        randoms = list(zip(self.m.points(), self.m.points(), strict=True))
        # The pretest's points too: a group certainly false there is where the search stops.
        found = witness_search(sides, candidate_points([*randoms, *pretest_points(X, DELTA)]),
                               self.budget)
        if found is None:
            return Proof(name, statement, "unknown", steps,
                         note="no symbolic proof, and no counterexample at the exact points "
                              f"tried (interval arithmetic up to {MAX_BITS} bits)")
        ce, item = found
        steps.append(Step(f"counterexample at x = {ce['x']}, Δ = {ce['delta']}: residual "
                          f"{ce['residual']}, enclosure [{ce['residual_enclosure'][0]}, "
                          f"{ce['residual_enclosure'][1]}] excludes 0",
                          f"interval arithmetic at {ce['bits']} bits"))
        return Proof(name, statement, "refuted", steps, counterexample=ce,
                     evidence=Evidence("certified sign", items=[item]))
