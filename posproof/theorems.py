"""The proof engine: theorems about an Encoding, each proved, refuted or unknown.

Never simplify a d×d product.  The engine splits the columns into *groups*
(the layout's (sin, cos) pairs, and padding columns), checks that every matrix
involved is block-diagonal on those groups, and reduces each statement to one
identity per group.  Inside a group every exact frequency is replaced by a
symbol w, so the identity is proved once *for every w* (hence for every pair,
and with a symbolic pair index for every even d) and cached by its shape: the
cost grows linearly with d.  An identity that does not reduce to 0 is never
called proved: the engine searches for a counterexample and confirms it in
mpmath, or answers ``unknown``.  Every ``proved`` is cross-checked in mpmath at
random points, large positions included.

>>> from posproof import preset
>>> report = prove(preset("vaswani", dim=8))
>>> [(p.name, p.status) for p in report.theorems][:3]
[('translation[row]', 'proved'), ('translation[column]', 'proved'), ('dot_product', 'proved')]
>>> prove(preset("sine-only", dim=4), theorems=["translation[row]"]).theorems[0].status
'refuted'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from .encoding import DELTA, Encoding, X
from .errors import InvalidParameter, PosproofError, UnknownName, check_int, check_sequence
from .layouts import LAYOUTS, partition_lemma, permutation
from .precise import DEFAULT_DPS, mp_value, mp_values
from .report import Proof, Report, Step

__all__ = ["CONCRETE_THEOREMS", "GENERAL_THEOREMS", "parse_block", "prove"]

Y = sp.Symbol("y", real=True)
A = sp.Symbol("a", real=True)
B = sp.Symbol("b", real=True)
W = (sp.Symbol("w_0", positive=True), sp.Symbol("w_1", positive=True))
KSYM = sp.Symbol("k", integer=True, nonnegative=True)
DSYM = sp.Symbol("d", integer=True, positive=True)
NSYM = sp.Symbol("n", integer=True, positive=True)

CONCRETE_THEOREMS = (
    "translation[row]", "translation[column]", "dot_product", "norm", "bounded",
    "orthogonal", "determinant", "identity_at_zero", "group_law", "inverse_is_transpose",
    "layout_equivalence", "periodicity",
)
GENERAL_THEOREMS = (
    "translation[row]", "translation[column]", "dot_product", "norm", "bounded",
    "orthogonal", "determinant", "identity_at_zero", "group_law", "inverse_is_transpose",
    "layout_equivalence",
)
_TRIG = {"sin": sp.sin, "cos": sp.cos}
_MAX_OPS = 400          # identities larger than this are not attempted: answer unknown
_CONFIRM_DIGITS = 20    # a residual above 10**-20 at 50 digits is a confirmed counterexample


# --------------------------------------------------------------------------- identities
def is_zero(expr: sp.Expr) -> bool | None:
    """Prove ``expr == 0`` by trig expansion; ``None`` when no rewrite reaches 0.

    Only ever called on one small group identity, never on a d×d product.

    >>> w, x = sp.symbols("w x", real=True)
    >>> is_zero(sp.sin(w*x)**2 + sp.cos(w*x)**2 - 1)
    True
    >>> is_zero(sp.sin(w*x) - sp.cos(w*x)) is None
    True
    """
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if sp.count_ops(expr) > _MAX_OPS:
        return None
    expanded = sp.expand(expr, trig=True)
    if expanded == 0 or sp.expand(_pythagoras(expanded)) == 0:
        return True
    if sp.expand(expanded.rewrite(sp.exp)) == 0:
        return True
    return None


def _pythagoras(expr: sp.Expr) -> sp.Expr:
    """Replace sin(u)**(2m) by (1 − cos(u)**2)**m (an identity, so sound)."""
    return expr.replace(
        lambda t: t.is_Pow and t.base.func == sp.sin and t.exp.is_Integer and t.exp % 2 == 0,
        lambda t: (1 - sp.cos(t.base.args[0]) ** 2) ** (t.exp // 2))


def _same_number(a: sp.Expr, b: sp.Expr) -> bool:
    """Exact equality of two numbers written differently (10000**(-1/2) and 1/100)."""
    if a == b:
        return True
    if abs(mp_value(a, 30) - mp_value(b, 30)) > mpmath.mpf(10) ** -25 * (1 + abs(mp_value(b, 30))):
        return False
    return bool(sp.simplify(sp.Add(a, -b).doit()) == 0)


def _coefficient(arg: sp.Expr, var: sp.Symbol) -> sp.Expr | None:
    """c when arg is c·var (fast path for the products the encoding builds)."""
    if arg == var:
        return sp.Integer(1)
    if arg.is_Mul and arg.args.count(var) == 1:
        rest = [a for a in arg.args if a != var]
        if not any(a.has(var) for a in rest):
            return rest[0] if len(rest) == 1 else sp.Mul(*rest)
    if not arg.has(var):
        return None
    return sp.cancel(arg / var)


class _Abstractor:
    """Replaces sin(c·v)/cos(c·v) by sin(w_i·v)/cos(w_i·v) where c is the i-th frequency."""

    def __init__(self) -> None:
        self._cache: dict[tuple[sp.Expr, sp.Expr], bool] = {}
        self._templates: dict[tuple[Any, ...], sp.Expr] = {}

    def _match(self, coeff: sp.Expr | None, freqs: Sequence[sp.Expr]) -> int | None:
        if coeff is None or coeff.free_symbols:
            return None
        for i, freq in enumerate(freqs):
            key = (coeff, freq)
            if key not in self._cache:
                self._cache[key] = _same_number(coeff, freq)
            if self._cache[key]:
                return i
        return None

    def __call__(self, expr: sp.Expr, var: sp.Symbol, freqs: Sequence[sp.Expr]) -> sp.Expr:
        expr = sp.sympify(expr)
        # Fast path for the entries an encoding builds: ±sin(c·var), ±cos(c·var).
        sign, core = 1, expr
        if expr.is_Mul and len(expr.args) == 2 and expr.args[0] == -1:
            sign, core = -1, expr.args[1]
        if core.func in (sp.sin, sp.cos):
            i = self._match(_coefficient(core.args[0], var), freqs)
            if i is not None:
                key = (core.func, i, var, sign)
                if key not in self._templates:
                    self._templates[key] = sign * core.func(W[i] * var)
                return self._templates[key]
        mapping = {}
        for atom in expr.atoms(sp.sin, sp.cos):
            i = self._match(_coefficient(atom.args[0], var), freqs)
            if i is not None:
                mapping[atom] = atom.func(W[i] * var)
        return expr.xreplace(mapping)


# --------------------------------------------------------------------------- model
class _Model:
    """An encoding seen group by group (pairs and padding columns)."""

    def __init__(self, enc: Encoding) -> None:
        self.enc = enc
        self.groups: list[tuple[int, ...]] = [tuple(p) for p in enc.pairs]
        self.groups += [(j,) for j in range(2 * enc.n_pairs, enc.dim)]
        self.group_of = [0] * enc.dim
        for g, cols in enumerate(self.groups):
            for j in cols:
                self.group_of[j] = g
        self.abstract = _Abstractor()
        self.rng = random.Random(0)
        self._freq_mp: dict[tuple[int, int], mpmath.mpf] = {}
        self._samples: dict[int, list[tuple[int, ...]]] = {}
        values = mp_values(enc.frequencies, 20) if enc.frequencies else []
        self.omega_max = max(values, default=mpmath.mpf(1))

    def group_freqs(self, cols: Sequence[int]) -> list[sp.Expr]:
        out: list[sp.Expr] = []
        for j in cols:
            f = self.enc.column_frequency(j)
            if f is not None and f not in out:
                out.append(f)
        return out

    def pe_symbolic(self, j: int, var: sp.Expr, freqs: Sequence[sp.Expr]) -> sp.Expr:
        """Column j of PE(var) with its frequency replaced by its group symbol."""
        func = self.enc.column_funcs[j]
        if func == "zero":
            return sp.Integer(0)
        return _TRIG[func](W[list(freqs).index(self.enc.column_frequency(j))] * var)

    def pe_mp(self, j: int, x: Any) -> mpmath.mpf:
        func = self.enc.column_funcs[j]
        if func == "zero":
            return mpmath.mpf(0)
        key = (self.enc.column_freq_index[j], mpmath.mp.prec)
        if key not in self._freq_mp:
            self._freq_mp[key] = mp_value(self.enc.frequencies[key[0]], _dps() + 10)
        angle = self._freq_mp[key] * x
        return mpmath.sin(angle) if func == "sin" else mpmath.cos(angle)

    def sample_groups(self, limit: int = 6) -> list[tuple[int, ...]]:
        """Groups the cross-checks look at: first, last and random others (fixed per run)."""
        if limit not in self._samples:
            groups = self.groups
            middle = [] if len(groups) <= limit else self.rng.sample(groups[1:-1], limit - 2)
            self._samples[limit] = (list(groups) if len(groups) <= limit else
                                    [groups[0], groups[-1], *middle])
        return self._samples[limit]

    def points(self, count: int = 4) -> list[int]:
        """Random integer positions, large ones included (bugs hide at large x)."""
        return [self.rng.choice([1, 7, 123]), self.rng.randrange(10**3, 10**5),
                self.rng.randrange(10**6, 10**7), self.rng.randrange(-(10**5), 0)][:count]


def _visibly_nonzero(exprs: Sequence[sp.Expr]) -> bool:
    """True when an identity is numerically false at a generic point (so not worth a
    symbolic attempt); it decides nothing by itself — refutations are confirmed later."""
    env = {X: mpmath.mpf("0.3711"), DELTA: mpmath.mpf("1.1317")}
    try:
        return any(abs(mp_value(e, 30, env)) > 1e-12 for e in exprs)
    except (ValueError, TypeError):
        return False


def _count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 group', '3 groups'."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def _dps() -> int:
    """Working digits: the default, or more when a caller raised the precision for large angles."""
    return max(DEFAULT_DPS, mpmath.mp.dps)


def _mp_entry(expr: sp.Expr, env: dict[sp.Symbol, Any]) -> mpmath.mpf:
    return mp_value(expr, _dps(), env)


def _tol(*scales: Any) -> mpmath.mpf:
    return mpmath.mpf(10) ** (-(DEFAULT_DPS - 15)) * (1 + max(abs(mpmath.mpf(s)) for s in scales))


def _mpq(value: int | Fraction) -> Any:
    """An exact position as an mpmath number (integers stay integers)."""
    if isinstance(value, Fraction) and value.denominator != 1:
        return mpmath.mpf(value.numerator) / value.denominator
    return int(value)


def _exact(value: int | Fraction) -> int | str:
    """JSON form of an exact position: an int, or a fraction written 'p/q'."""
    return int(value) if Fraction(value).denominator == 1 else str(value)


def _fmt(value: Any, digits: int = 12) -> str:
    return mpmath.nstr(value, digits) if isinstance(value, mpmath.mpf) else str(value)


# --------------------------------------------------------------------------- engine
class _Engine:
    def __init__(self, enc: Encoding, seed: int = 0) -> None:
        self.m = _Model(enc)
        self.m.rng.seed(seed)
        self.enc = enc
        self.identity_cache: dict[Any, bool | None] = {}
        self._t: dict[str, dict[tuple[int, int], sp.Expr]] = {}
        self._block_cache: list[tuple[tuple[int, ...], sp.Matrix]] | None = None

    # -- helpers --------------------------------------------------------------
    def translation(self, convention: str) -> dict[tuple[int, int], sp.Expr]:
        if convention not in self._t:
            self._t[convention] = self.enc.translation_entries(DELTA, convention)
        return self._t[convention]

    def prove_identity(self, key: Any, build: Callable[[], Iterable[sp.Expr]]) -> bool | None:
        """Prove every expression of a group identity is 0, caching by its shape."""
        if key not in self.identity_cache:
            results = [is_zero(e) for e in build()]
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
                if _visibly_nonzero(exprs) or self.prove_identity(ckey, lambda: exprs) is None:
                    unproved.append(g)
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
        return self.search(name, statement, steps, lambda x, dl: self._translation_residual(
            row_dok, x, dl, [self.m.groups[g] for g in unproved], stop=True), cols)

    def _translation_residual(self, row_dok: dict[tuple[int, int], sp.Expr], x: int, dl: int,
                              groups: Sequence[tuple[int, ...]],
                              stop: bool = False) -> tuple[mpmath.mpf, dict]:
        """Largest |PE(x+Δ) − PE(x)·T(Δ)| over the groups' columns (the first confirmed
        failure when ``stop``: a refutation needs one column, not the worst)."""
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
                        if stop and r > mpmath.mpf(10) ** -_CONFIRM_DIGITS:
                            return worst, where
            return worst, where

    def no_translation(self, name: str, statement: str, problems: list[str]) -> Proof:
        steps = [Step(p, "pair structure") for p in problems[:5]]
        enc = self.enc
        if all(f in ("sin", "zero") for f in enc.column_funcs):
            # Zero witness: PE(0) = 0 exactly, so any linear T maps it to 0 ≠ PE(Δ).
            zero = enc.vector(0)
            if all(v == 0 for v in zero):
                with mpmath.workdps(_dps()):
                    col = next(j for j, f in enumerate(enc.column_funcs) if f == "sin")
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
               residual: Callable[[int, int], tuple[mpmath.mpf, dict]],
               cols: Sequence[int]) -> Proof:
        """Look for a counterexample in mpmath; refuted if found, unknown if not."""
        steps.append(Step(f"the identity does not reduce to 0 on dims {list(cols)[:8]}"
                          f"{'…' if len(cols) > 8 else ''}", "expand_trig"))
        third, sevenths = Fraction(1, 3), Fraction(2, 7)
        # Integers and non-integers: for ω a rational multiple of π, integer points see only
        # a few angles (π/2·ℤ), where a wrong block can agree with the right one.
        randoms = zip(self.m.points(), self.m.points(), strict=True)
        candidates = [(1, 1), (0, 1), (3, 2), (10, 7), (third, sevenths), (sevenths, third),
                      (1 + third, 5 + sevenths), *randoms]
        for x, dl in candidates:
            with mpmath.workdps(_dps() + 10):
                value, where = residual(_mpq(x), _mpq(dl))
            if value > mpmath.mpf(10) ** -_CONFIRM_DIGITS:
                xs, ds = _exact(x), _exact(dl)
                steps.append(Step(f"counterexample at x = {xs}, Δ = {ds}: residual "
                                  f"{_fmt(value, 6)}", f"mpmath at {DEFAULT_DPS} digits"))
                return Proof(name, statement, "refuted", steps, counterexample={
                    "x": xs, "delta": ds, **where, "residual": _fmt(value),
                    "dps": DEFAULT_DPS})
        return Proof(name, statement, "unknown", steps,
                     note="no symbolic proof and no counterexample at the points tried")

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
                    return self.search(name, statement, steps, lambda x, dl: (
                        abs(_mp(alt, j, x) - _mp(enc, perm[j], x)), {"layout": other}), [j])
            t_alt = alt.translation_entries(DELTA, "row")
            mapped = {(perm[i], perm[j]): v for (i, j), v in t_alt.items()}
            if mapped.keys() != t_src.keys() or any(
                    not (mapped[ij] == t_src[ij] or is_zero(mapped[ij] - t_src[ij]))
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
        denominators = []
        for k, f in enumerate(freqs[1:], start=1):
            ratio = _ratio(f, base)
            if ratio is None:
                return Proof(name, "the curve of positions is periodic or aperiodic", "unknown",
                             steps, note=f"could not decide whether ω_{k}/ω_0 is rational")
            if ratio is False:
                steps.append(Step(f"ω_{k}/ω_0 = {sp.sstr(sp.Pow(f, 1) / base)} is irrational",
                                  "irrational ratio"))
                steps.append(Step("a common period would make ω_k/ω_0 = m_k/m_0 rational",
                                  "contradiction"))
                return Proof(name, "the curve of positions is aperiodic (no P > 0 with "
                             "PE(x+P) = PE(x))", "proved", steps,
                             crosscheck={"method": "exact: irrationality of a frequency "
                                         "ratio", "pair": [0, k]},
                             values={"period": "none"})
            denominators.append(ratio.q)
        m0 = sp.ilcm(*denominators, 1) if denominators else 1
        period = 2 * sp.pi * m0 / base.doit()
        turns = [sp.simplify(f.doit() * period / (2 * sp.pi)) for f in freqs]
        if not all(t.is_integer for t in turns):
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



class _CrossCheckFailure(PosproofError):
    """A symbolic proof disagreed with its numeric cross-check: a bug, never a pass."""


def _mp(enc: Encoding, j: int, x: int) -> mpmath.mpf:
    return _Model(enc).pe_mp(j, x)


def _ratio(a: sp.Expr, b: sp.Expr) -> sp.Rational | bool | None:
    """a/b as a Rational, False when provably irrational, None when unknown.

    A ratio of products of rational powers of integers is decided exactly by
    unique factorisation: Π p^e is rational iff every combined exponent e is an
    integer.

    >>> _ratio(sp.Integer(500000) ** sp.Rational(-1, 20), sp.Integer(1))
    False
    >>> _ratio(sp.pi / 8, sp.pi / 2)
    1/4
    """
    ratio = sp.Mul(a.doit(), 1 / b.doit())
    if ratio.is_Rational:
        return ratio
    exponents: dict[int, sp.Rational] = {}
    for base, exp in ratio.as_powers_dict().items():
        if not (base.is_Rational and base > 0 and exp.is_Rational):
            # Not a product of rational powers (e.g. e^-1): SymPy's number theory decides
            # some of these (Lindemann for exp of a non-zero rational); otherwise unknown.
            return False if ratio.is_rational is False else None
        for part, sign in ((int(base.p), 1), (int(base.q), -1)):
            if part > 10**30:
                return None
            for prime, mult in sp.factorint(part).items():
                exponents[prime] = exponents.get(prime, 0) + sign * mult * exp
    if all(e.is_integer for e in exponents.values()):
        return sp.Mul(*(sp.Integer(p) ** e for p, e in exponents.items()))
    return False


# --------------------------------------------------------------------------- general d
def _general(enc: Encoding, names: Sequence[str], seed: int) -> list[Proof]:
    """Proofs for every even d at once, with a symbolic pair index k."""
    if enc.schedule is None:
        return [Proof(f"general:{n}", "for every even d", "unknown",
                      note="only for schedule-built encodings") for n in names]
    layout = enc.layout
    ok, why = partition_lemma(layout)
    omega = enc.schedule.general(KSYM, DSYM)
    lemma = Step(f"layout {layout.name}: {why}", "partition of columns (affine maps)")
    instance = (f"ω(k) = {omega}" if omega is not None else "ω(k) any positive frequency")
    small = Encoding(enc.schedule, layout, _dims_from(enc, 2)[0])
    engine = _Engine(small, seed)
    rng = random.Random(seed)
    engines = []
    for d in _dims_from(enc, 2, rng.randrange(2, 64, 2), rng.randrange(64, 1024, 2)):
        inst = _Engine(Encoding(enc.schedule, enc.layout, d), rng.randrange(10**6))
        inst.m.groups = inst.m.sample_groups(3)  # the pairs the numbers are checked on
        inst.m._samples.clear()
        engines.append(inst)
    out = []
    for name in names:
        statement = {"translation[row]": "PE(x+Δ) = PE(x)·T(Δ)",
                     "translation[column]": "PE(x+Δ)ᵀ = T(Δ)·PE(x)ᵀ",
                     "dot_product": "PE(x)·PE(y) = Σ_{k<n} cos(ω_k(x−y))",
                     "norm": "‖PE(x)‖² = d/2", "bounded": "|PE_i(x)| ≤ 1",
                     "orthogonal": "T(Δ)ᵀT(Δ) = I", "determinant": "det T(Δ) = 1",
                     "identity_at_zero": "T(0) = I", "group_law": "T(a)T(b) = T(a+b)",
                     "inverse_is_transpose": "T(−a) = T(a)ᵀ",
                     "layout_equivalence": "T_L = P_LᵀT P_L for every layout L"}[name]
        statement += f" for every even d (pair index k symbolic, {instance})"
        if not ok:
            out.append(Proof(name, statement, "unknown", [lemma], general=True, note=why))
            continue
        generic = _concrete(engine, name)
        if generic.status != "proved":
            out.append(Proof(name, statement, "unknown", [lemma, *generic.steps], general=True,
                             note="the generic pair identity was not proved"))
            continue
        steps = [lemma, Step("pair k holds sin(ω(k)x) and cos(ω(k)x); replacing ω(k) by a "
                             "free symbol w, the statement reduces to the pair identity below",
                             "generic pair"), *generic.steps]
        cc = _general_crosscheck(engines, name)
        out.append(Proof(name, statement, "proved", steps, general=True, crosscheck=cc))
    for proof in out:
        proof.name = f"general:{proof.name}"
    return out


def _general_crosscheck(engines: list[_Engine], name: str) -> dict[str, Any]:
    """Check the theorem numerically on instances at random even d (2 included)."""
    worst = mpmath.mpf(0)
    for engine in engines:
        worst = max(worst, mpmath.mpf(_concrete(engine, name, crosscheck_only=True)))
    return {"dims": [e.enc.dim for e in engines], "max_residual": _fmt(worst, 3),
            "dps": DEFAULT_DPS}


def _dims_from(enc: Encoding, *dims: int) -> list[int]:
    """The even dims, among those asked, that the schedule accepts (an explicit list: its own)."""
    if enc.schedule is not None and enc.schedule.family == "explicit":
        return [2 * enc.n_pairs]
    out = []
    for d in dims:
        try:
            enc.schedule.frequencies(d)  # type: ignore[union-attr]
        except PosproofError:
            continue
        out.append(d)
    return out or [2 * enc.n_pairs]


def _concrete(engine: _Engine, name: str, crosscheck_only: bool = False) -> Any:
    proof = {
        "translation[row]": lambda: engine.translation_proof("row", None),
        "translation[column]": lambda: engine.translation_proof("column", None),
        "dot_product": engine.dot_product,
        "norm": engine.norm,
        "bounded": engine.bounded,
        "layout_equivalence": engine.layout_equivalence,
        "periodicity": engine.periodicity,
    }.get(name, lambda: engine.structure(name))()
    if crosscheck_only:
        if proof.status != "proved":
            raise _CrossCheckFailure(f"{name} fails at dim={engine.enc.dim}: {proof.status}")
        return (proof.crosscheck or {}).get("max_residual", "0")
    return proof


# --------------------------------------------------------------------------- claims
def parse_block(text: str) -> sp.Matrix:
    """A 2×2 block typed as ``"a, b; c, d"`` in w (the pair's frequency) and delta.

    >>> parse_block("cos(w*delta), sin(w*delta); -sin(w*delta), cos(w*delta)")
    Matrix([
    [ cos(delta*w_0), sin(delta*w_0)],
    [-sin(delta*w_0), cos(delta*w_0)]])
    """
    from .expressions import parse_expression

    rows = str(text).split(";")
    cells = [[c.strip() for c in r.split(",")] for r in rows]
    if len(cells) != 2 or any(len(r) != 2 for r in cells):
        raise InvalidParameter(
            f"block={text!r} is not 2×2; write 'a, b; c, d' in w and delta, e.g. "
            "'cos(w*delta), -sin(w*delta); sin(w*delta), cos(w*delta)'")
    symbols = {"w": W[0], "delta": DELTA, "t": DELTA}
    trig = {"sin": sp.sin, "cos": sp.cos}
    return sp.Matrix([[parse_expression(c, symbols, what="block entry", functions=trig)
                       for c in r] for r in cells])


def _matrix(name: str, value: Any) -> sp.Matrix:
    """A claimed matrix from SymPy objects and numbers only: text inside a list is refused
    (``sp.Matrix`` would run it through ``sympify``, that is through ``eval``)."""
    if isinstance(value, sp.MatrixBase):
        rows = value.tolist()
    elif isinstance(value, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in value):
        rows = [list(r) for r in value]
    else:
        raise InvalidParameter(f"{name}={value!r:.80} is not a matrix; pass a SymPy Matrix or a "
                               "list of rows" + (" or 'a, b; c, d' text" if "block" in name
                                                 else ""))
    if not rows or len({len(r) for r in rows}) != 1:
        raise InvalidParameter(f"{name} has rows of different lengths or none")
    out = []
    for i, row in enumerate(rows):
        for j, entry in enumerate(row):
            if isinstance(entry, (str, bytes)) or not isinstance(
                    entry, (sp.Basic, int, float, Fraction)) or isinstance(entry, bool):
                raise InvalidParameter(
                    f"{name}[{i}][{j}]={entry!r:.60} is not a SymPy expression or a number; "
                    "write text claims as 'a, b; c, d' (claim_block), which is parsed safely")
            out.append(sp.sympify(entry, strict=True))
    return sp.Matrix(len(rows), len(rows[0]), out)


def _claim_entries(enc: Encoding, claim: Any, claim_block: Any) -> dict[tuple[int, int], sp.Expr]:
    if claim_block is not None:
        block = (parse_block(claim_block) if isinstance(claim_block, str)
                 else _matrix("claim_block", claim_block))
        if block.shape != (2, 2):
            raise InvalidParameter(f"claim_block has shape {block.shape}; a 2×2 block is needed")
        out: dict[tuple[int, int], sp.Expr] = {}
        for s, c in enc.pairs:
            w = enc.column_frequency(s)
            cols = (s, c)
            for i in range(2):
                for j in range(2):
                    value = block[i, j].xreplace({W[0]: w})
                    if value != 0:
                        out[(cols[i], cols[j])] = value
        for j in range(2 * enc.n_pairs, enc.dim):
            out[(j, j)] = sp.Integer(1)
        return out
    matrix = sp.SparseMatrix(_matrix("claim", claim(DELTA) if callable(claim) else claim))
    if matrix.shape != (enc.dim, enc.dim):
        raise InvalidParameter(
            f"claim has shape {matrix.shape}; T(Δ) for dim={enc.dim} is {enc.dim}×{enc.dim}")
    extra = matrix.free_symbols - {DELTA}
    if extra:
        raise InvalidParameter(f"claim uses symbols {sorted(map(str, extra))}; write it in "
                               "posproof.encoding.DELTA only")
    return dict(matrix.todok())


# --------------------------------------------------------------------------- public
def prove(encoding: Encoding, *, theorems: Sequence[str] | None = None, general: bool = False,
          claim: Any = None, claim_block: Any = None, convention: str = "row",
          claim_period: Any = None, claim_bound: Any = None, claim_permutation: Any = None,
          seed: int = 0) -> Report:
    """Prove (or refute) the theorems about ``encoding``; returns a :class:`Report`.

    ``claim`` is a d×d SymPy matrix in ``delta`` (or a callable of delta)
    claimed to satisfy the translation law in ``convention``; ``claim_block``
    a 2×2 block in w and delta (text or matrix) applied to every pair in
    (sin, cos) order.  ``claim_period`` (P with PE(x+P) = PE(x)), ``claim_bound``
    (c with |PE_i(x)| ≤ c) and ``claim_permutation`` (``(layout, perm)`` or
    ``"layout:i,j,…"``: column j of PE in that layout is column perm[j] of this
    one) are decided by :mod:`posproof.claims`.  ``general=True`` adds the
    proofs for every even d.
    """
    from . import claims

    if not isinstance(encoding, Encoding):
        raise InvalidParameter(f"encoding={encoding!r} is not an Encoding; use posproof.preset()")
    names = (list(CONCRETE_THEOREMS) if theorems is None
             else check_sequence("theorems", theorems, strings=True))
    if convention not in ("row", "column"):
        raise InvalidParameter(f"convention={convention!r} is not known; use 'row' (PE(x)·T) "
                               "or 'column' (T·PE(x)ᵀ)")
    seed = check_int("seed", seed, minimum=0)
    for n in names:
        if not isinstance(n, str) or n not in CONCRETE_THEOREMS:
            raise UnknownName(f"theorem={n!r} is not known; "
                              f"use one of {', '.join(CONCRETE_THEOREMS)}")
    engine = _Engine(encoding, seed)
    report = Report(encoding.to_dict())
    try:
        if claim is not None or claim_block is not None:
            entries = _claim_entries(encoding, claim, claim_block)
            label = "as claimed"
            report.theorems.append(engine.translation_proof(convention, entries, label))
            report.theorems[-1].name = f"claim[{convention}]"
            names = [n for n in names if n != f"translation[{convention}]"]
        if claim_period is not None:
            report.theorems.append(claims.period_claim(engine, claim_period))
        if claim_bound is not None:
            report.theorems.append(claims.bound_claim(engine, claim_bound))
        if claim_permutation is not None:
            layout, perm = (claims.parse_permutation(claim_permutation)
                            if isinstance(claim_permutation, str) else claim_permutation)
            report.theorems.append(claims.permutation_claim(engine, layout, perm))
        for name in names:
            report.theorems.append(_concrete(engine, name))
        if general:
            gen = [n for n in GENERAL_THEOREMS if theorems is None or n in theorems]
            report.theorems.extend(_general(encoding, gen, seed))
    except _CrossCheckFailure as exc:
        report.theorems.append(Proof("crosscheck", "every proof agrees with mpmath", "unknown",
                                     note=f"internal error, please report: {exc}"))
    return report
