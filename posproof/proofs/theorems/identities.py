"""Group identities of the proof engine: the symbols, ``is_zero``, frequency abstraction.

The engine never simplifies a d×d product: it reduces each statement to one
small identity per group of columns (a (sin, cos) pair or a padding column).
This module holds what those identities are built from and how they are
decided: the symbols (W, the per-group frequency symbols; Y, A, B, KSYM …),
:func:`is_zero` (exact rewriting within a budget, never a numeric guess), the
:class:`Abstractor` that replaces exact frequencies by W, the
:class:`Model` that sees an encoding group by group (symbolically and in
mpmath), and the small numeric
helpers (working digits, tolerances, formatting) shared by the proofs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from ...errors import PosproofError
from ...model.encoding import Encoding
from ...precise import DEFAULT_DPS, mp_value, mp_values
from ...validated import sign
from .budget import Budget, size
from .trigzero import is_zero_exp, largest_multiple, nonzero_somewhere

__all__ = [
    "DSYM",
    "KSYM",
    "MAX_OPS",
    "NSYM",
    "TRIG",
    "A",
    "Abstractor",
    "B",
    "CrossCheckFailure",
    "Model",
    "W",
    "Y",
    "coefficient",
    "count",
    "dps",
    "exact",
    "fmt",
    "is_zero",
    "mp",
    "mp_entry",
    "positive",
    "pythagoras",
    "same_number",
    "tol",
    "visibly_nonzero",
]

Y = sp.Symbol("y", real=True)
A = sp.Symbol("a", real=True)
B = sp.Symbol("b", real=True)
W = (sp.Symbol("w_0", positive=True), sp.Symbol("w_1", positive=True))
KSYM = sp.Symbol("k", integer=True, nonnegative=True)
DSYM = sp.Symbol("d", integer=True, positive=True)
NSYM = sp.Symbol("n", integer=True, positive=True)

TRIG = {"sin": sp.sin, "cos": sp.cos}
MAX_OPS = 400           # identities larger than this are not attempted: answer unknown
_MAX_MULTIPLE = 12      # expand_trig turns sin(m·u) into a degree-m polynomial: only small m
TRIG_UNITS = 25         # work units per operation of a trigonometric expansion


# --------------------------------------------------------------------------- identities
def is_zero(expr: sp.Expr, budget: Budget | None = None) -> bool | None:
    """Prove ``expr == 0`` by exact rewriting; ``None`` when no rewrite reaches 0.

    Only ever called on one small group identity, never on a d×d product.  First
    the exponential normal form (:func:`posproof.proofs.theorems.trigzero.is_zero_exp`,
    bounded in size whatever the multiples in the arguments), then, for small
    expressions whose arguments hold no multiple above :data:`_MAX_MULTIPLE`,
    trig expansion.  Past ``budget`` it raises
    :class:`posproof.proofs.theorems.budget.OutOfBudget`.

    >>> w, x = sp.symbols("w x", real=True)
    >>> is_zero(sp.sin(w*x)**2 + sp.cos(w*x)**2 - 1)
    True
    >>> is_zero(sp.sin(999*w*x)**2 + sp.cos(999*w*x)**2 - 1)
    True
    >>> is_zero(sp.sin(w*x) - sp.cos(w*x)) is None
    True
    """
    budget = budget or Budget(None)
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    if is_zero_exp(expr, budget):
        return True
    ops = sp.count_ops(expr)
    if ops > MAX_OPS or largest_multiple(expr) > _MAX_MULTIPLE:
        return None
    budget.charge("the trigonometric expansion of an identity", TRIG_UNITS * (1 + ops))
    expanded = sp.expand(expr, trig=True)
    if expanded == 0 or sp.expand(pythagoras(expanded)) == 0:
        return True
    budget.charge("the trigonometric expansion of an identity", TRIG_UNITS * size(expanded))
    if sp.expand(expanded.rewrite(sp.exp)) == 0:
        return True
    return None


def pythagoras(expr: sp.Expr) -> sp.Expr:
    """Replace sin(u)**(2m) by (1 − cos(u)**2)**m (an identity, so sound)."""
    return expr.replace(
        lambda t: t.is_Pow and t.base.func == sp.sin and t.exp.is_Integer and t.exp % 2 == 0,
        lambda t: (1 - sp.cos(t.base.args[0]) ** 2) ** (t.exp // 2))


def same_number(a: sp.Expr, b: sp.Expr) -> bool:
    """Exact equality of two numbers written differently (10000**(-1/2) and 1/100)."""
    if a == b:
        return True
    try:
        order = sign(sp.Add(a, -b), budget_bits=256)   # enclosures apart, or exactly 0
    except (TypeError, ValueError):
        order = None
    if order is not None:
        return order == 0
    return bool(sp.simplify(sp.Add(a, -b).doit()) == 0)


def coefficient(arg: sp.Expr, var: sp.Symbol) -> sp.Expr | None:
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


class Abstractor:
    """Replaces sin(c·v)/cos(c·v) by sin(w_i·v)/cos(w_i·v) where c is the i-th frequency."""

    def __init__(self) -> None:
        self._cache: dict[tuple[sp.Expr, sp.Expr], bool] = {}
        self._templates: dict[tuple[Any, ...], sp.Expr] = {}

    def _match(self, coeff: sp.Expr | None, freqs: Sequence[sp.Expr]
               ) -> tuple[int, sp.Rational] | None:
        """(i, r) when coeff = r·freqs[i] exactly: r = 1 by :func:`same_number`, or any
        non-zero rational r that SymPy's automatic evaluation of coeff/freqs[i] produces
        (999·10^(63/64)/10 over 10^(-1/64) evaluates to the Integer 999) — an exact
        rewriting, so sin(c·v) = sin(r·w_i·v) at w_i = freqs[i]."""
        if coeff is None or coeff.free_symbols:
            return None
        for i, freq in enumerate(freqs):
            key = (coeff, freq)
            if key not in self._cache:
                self._cache[key] = same_number(coeff, freq)
            if self._cache[key]:
                return i, sp.Integer(1)
        for i, freq in enumerate(freqs):
            ratio = sp.Mul(coeff, sp.Pow(freq, -1))
            if ratio.is_Rational and ratio != 0:   # an evaluated Rational object, not a flag
                return i, ratio
        return None

    def __call__(self, expr: sp.Expr, var: sp.Symbol, freqs: Sequence[sp.Expr]) -> sp.Expr:
        expr = sp.sympify(expr)
        # Fast path for the entries an encoding builds: ±sin(c·var), ±cos(c·var).
        sign, core = 1, expr
        if expr.is_Mul and len(expr.args) == 2 and expr.args[0] == -1:
            sign, core = -1, expr.args[1]
        if core.func in (sp.sin, sp.cos):
            match = self._match(coefficient(core.args[0], var), freqs)
            if match is not None:
                key = (core.func, *match, var, sign)
                if key not in self._templates:
                    self._templates[key] = sign * core.func(match[1] * W[match[0]] * var)
                return self._templates[key]
        mapping = {}
        for atom in expr.atoms(sp.sin, sp.cos):
            match = self._match(coefficient(atom.args[0], var), freqs)
            if match is not None:
                mapping[atom] = atom.func(match[1] * W[match[0]] * var)
        return expr.xreplace(mapping)


# --------------------------------------------------------------------------- model
class Model:
    """An encoding seen group by group (pairs and padding columns)."""

    def __init__(self, enc: Encoding) -> None:
        self.enc = enc
        self.groups: list[tuple[int, ...]] = [tuple(p) for p in enc.pairs]
        self.groups += [(j,) for j in range(2 * enc.n_pairs, enc.dim)]
        self.group_of = [0] * enc.dim
        for g, cols in enumerate(self.groups):
            for j in cols:
                self.group_of[j] = g
        self.abstract = Abstractor()
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
        return TRIG[func](W[list(freqs).index(self.enc.column_frequency(j))] * var)

    def pe_mp(self, j: int, x: Any) -> mpmath.mpf:
        func = self.enc.column_funcs[j]
        if func == "zero":
            return mpmath.mpf(0)
        key = (self.enc.column_freq_index[j], mpmath.mp.prec)
        if key not in self._freq_mp:
            self._freq_mp[key] = mp_value(self.enc.frequencies[key[0]], dps() + 10)
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


def visibly_nonzero(exprs: Sequence[sp.Expr], budget: Budget | None = None) -> bool:
    """True when an identity is certainly false at an exact rational point (an interval
    enclosure excludes 0): no symbolic attempt is worth making."""
    return nonzero_somewhere(exprs, budget)


def positive(expr: sp.Expr) -> bool:
    """True only when the constant ``expr`` is certainly > 0.

    By structure first (a positive rational, π, e, and sums, products and rational powers
    of such numbers: exact rules, no assumption flag), else by a certified sign
    (:func:`posproof.validated.sign`).

    >>> positive(sp.Integer(10**4) ** sp.Rational(-3, 8)), positive(sp.sqrt(2) - sp.Rational(7, 5))
    (True, True)
    >>> positive(sp.log(8) / sp.log(2) - 3)
    False
    """
    expr = sp.sympify(expr)
    return _structurally_positive(expr) or sign(expr, budget_bits=1 << 12) == 1


def _structurally_positive(expr: sp.Expr) -> bool:
    if expr.is_Rational:
        return bool(expr > 0)
    if expr is sp.pi or expr is sp.E:
        return True
    if expr.is_Pow:
        return expr.args[1].is_Rational and _structurally_positive(expr.args[0])
    if expr.is_Mul or expr.is_Add:
        return all(_structurally_positive(a) for a in expr.args)
    return False


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 group', '3 groups'."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def dps() -> int:
    """Working digits: the default, or more when a caller raised the precision for large angles."""
    return max(DEFAULT_DPS, mpmath.mp.dps)


def mp_entry(expr: sp.Expr, env: dict[sp.Symbol, Any]) -> mpmath.mpf:
    return mp_value(expr, dps(), env)


def tol(*scales: Any) -> mpmath.mpf:
    return mpmath.mpf(10) ** (-(DEFAULT_DPS - 15)) * (1 + max(abs(mpmath.mpf(s)) for s in scales))


def exact(value: int | Fraction) -> int | str:
    """JSON form of an exact position: an int, or a fraction written 'p/q'."""
    return int(value) if Fraction(value).denominator == 1 else str(value)


def fmt(value: Any, digits: int = 12) -> str:
    return mpmath.nstr(value, digits) if isinstance(value, mpmath.mpf) else str(value)



class CrossCheckFailure(PosproofError):
    """A symbolic proof disagreed with its numeric cross-check: a bug, never a pass."""


def mp(enc: Encoding, j: int, x: int) -> mpmath.mpf:
    return Model(enc).pe_mp(j, x)
