"""Every column group's residual of an identity proof, for the auditor (issue 29 item 4).

A proof by group identities says that each group's residual is 0 for every value of its
variables.  Its evidence carries, for every group (or an evenly spread selection past
:data:`MAX_AUDITED_GROUPS`), the group's own exact data — its columns as (function,
frequency), the entries of T(Δ) reaching its columns, … — and one of the builders below:
the statement's residual made of that data and nothing else, built without SymPy's
evaluation (a product with a factor 0 is 0, sin 0 = 0, cos 0 = 1: the same value).  The
auditor (:func:`posproof.audit.audit`) abstracts the group's frequency to a formal symbol
in the data, builds the generic residual once per shape and decides it with
:mod:`posproof.expoly`; the data are cheap to hand over (no tree is built per group).

A column is ``(func, frequency)``: ``func`` one of "sin", "cos", "zero".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sympy as sp

from ...model.encoding import DELTA, Encoding, X
from .identities import TRIG, A, B, Y

__all__ = ["MAX_AUDITED_GROUPS", "audited_groups", "column_data", "kernel_residual",
           "layout_residual", "norm_residual", "period_residual", "raw_difference",
           "raw_subs", "raw_trig", "raw_weighted_sum", "structure_residual",
           "translation_residual"]

#: Past this many column groups, the residuals of an evenly spread selection of this many
#: are handed to the auditor (first and last included) and its coverage is a sample.
MAX_AUDITED_GROUPS = 4096

_PRIMES: list[sp.Rational] = []


def audited_groups(groups: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Every group, or :data:`MAX_AUDITED_GROUPS` of them evenly spread.

    >>> len(audited_groups([(i,) for i in range(10000)])), audited_groups([(0,), (1,)])
    (4096, [(0,), (1,)])
    """
    n = len(groups)
    if n <= MAX_AUDITED_GROUPS:
        return list(groups)
    step = (n - 1) / (MAX_AUDITED_GROUPS - 1)
    return [groups[round(k * step)] for k in range(MAX_AUDITED_GROUPS)]


def column_data(enc: Encoding, j: int) -> tuple[str, sp.Expr]:
    """Column j as (function, frequency): the data a builder turns into PE(var)[j]."""
    func = enc.column_funcs[j]
    f = enc.column_frequency(j)
    return func, sp.Integer(0) if f is None or func == "zero" else f


def raw_trig(column: tuple[str, sp.Expr], var: sp.Expr) -> sp.Expr:
    """PE(var)[j] of a column ``(func, frequency)``, unevaluated."""
    func, f = column
    if func == "zero":
        return sp.Integer(0)
    return TRIG[func](sp.Mul(f, var, evaluate=False), evaluate=False)


def _prime(k: int) -> sp.Rational:
    while len(_PRIMES) <= k:
        _PRIMES.append(sp.Rational(1, sp.prime(len(_PRIMES) + 1)))
    return _PRIMES[k]


def raw_weighted_sum(exprs: Iterable[sp.Expr]) -> sp.Expr:
    """Σ e_k/p_k (p_k the k-th prime, as :func:`~posproof.proofs.witness.weighted_sum`),
    unevaluated: 0 exactly when every e_k is 0, for real e_k with no common cancellation
    (each residual entry weighted by its own prime)."""
    return sp.Add(*(sp.Mul(_prime(k), e, evaluate=False) for k, e in enumerate(exprs)),
                  evaluate=False)


def raw_difference(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """a − b, unevaluated."""
    return sp.Add(a, sp.Mul(sp.Integer(-1), b, evaluate=False), evaluate=False)


def raw_subs(expr: sp.Expr, mapping: dict[sp.Symbol, sp.Expr]) -> sp.Expr:
    """``expr`` with its symbols replaced, rebuilt without SymPy's evaluation (a product
    with a factor 0 is 0, sin 0 = 0, cos 0 = 1: the same value)."""
    if expr.is_Atom:
        return mapping.get(expr, expr)  # type: ignore[call-overload]
    args = [raw_subs(a, mapping) for a in expr.args]
    if expr.is_Mul and any(a == 0 for a in args):
        return sp.Integer(0)
    if isinstance(expr, sp.sin) and args[0] == 0:
        return sp.Integer(0)
    if isinstance(expr, sp.cos) and args[0] == 0:
        return sp.Integer(1)
    if expr.is_Add:
        args = [a for a in args if a != 0] or [sp.Integer(0)]
        if len(args) == 1:
            return args[0]
    return expr.func(*args, evaluate=False)


# ------------------------------------------------------------------ the builders
def translation_residual(data: tuple[Any, ...]) -> sp.Expr:
    """Σ_j (PE(x+Δ)[j] − Σ_i PE(x)[i]·T(Δ)[i, j])/p_j over a group's columns j.

    ``data``: for each column j, ``(column j, ((column i, T[i, j]), …))`` with every
    non-zero entry of T(Δ) reaching column j, from any row."""
    return raw_weighted_sum(
        raw_difference(raw_trig(col, sp.Add(X, DELTA, evaluate=False)),
                       sp.Add(*(sp.Mul(raw_trig(row, X), v, evaluate=False)
                                for row, v in rows), evaluate=False))
        for col, rows in data)


def kernel_residual(data: tuple[Any, ...]) -> sp.Expr:
    """Σ_j PE(x)[j]·PE(y)[j] − cos(ω(x − y)) (``target`` ω) or − 0 (``target`` None).

    ``data``: ``(columns, target)``."""
    cols, target = data
    prods = sp.Add(*(sp.Mul(raw_trig(c, X), raw_trig(c, Y), evaluate=False) for c in cols),
                   evaluate=False)
    if target is None:
        return raw_difference(prods, sp.Integer(0))
    return raw_difference(prods, sp.cos(sp.Mul(target, sp.Add(X, sp.Mul(-1, Y, evaluate=False),
                                                                evaluate=False),
                                               evaluate=False), evaluate=False))


def norm_residual(data: tuple[Any, ...]) -> sp.Expr:
    """Σ_j PE(x)[j]² − n (``data``: ``(columns, n)``)."""
    cols, n = data
    return raw_difference(sp.Add(*(sp.Pow(raw_trig(c, X), 2, evaluate=False) for c in cols),
                                 evaluate=False), sp.Integer(n))


def layout_residual(data: tuple[Any, ...]) -> sp.Expr:
    """Σ_k (PE_L(x)[j_k] − PE(x)[perm j_k])/p_k (``data``: pairs of columns)."""
    return raw_weighted_sum(raw_difference(raw_trig(a, X), raw_trig(b, X)) for a, b in data)


def period_residual(data: tuple[Any, ...]) -> sp.Expr:
    """Σ_j (PE(x+P)[j] − PE(x)[j])/p_j (``data``: ``(columns, P)``)."""
    cols, period = data
    return raw_weighted_sum(raw_difference(raw_trig(c, sp.Add(X, period, evaluate=False)),
                                           raw_trig(c, X)) for c in cols)


def structure_residual(data: tuple[Any, ...]) -> sp.Expr:
    """One block of T's statement, weighted: ``data`` = ``(name, block)``, ``block`` the
    group's square block of T(Δ) by rows (exact, in Δ); ``name`` one of orthogonal
    (TᵀT = I), determinant (det T = 1), identity_at_zero (T(0) = I), group_law
    (T(a)T(b) = T(a+b)), inverse_is_transpose (T(−a) = T(a)ᵀ), in the symbols a, b."""
    name, block = data
    size = len(block)

    def mat(delta: sp.Expr) -> list[list[sp.Expr]]:
        return [[raw_subs(v, {DELTA: delta}) for v in row] for row in block]

    def mul(p: list[list[sp.Expr]], q: list[list[sp.Expr]]) -> list[list[sp.Expr]]:
        return [[sp.Add(*(sp.Mul(p[i][k], q[k][j], evaluate=False) for k in range(size)),
                        evaluate=False) for j in range(size)] for i in range(size)]

    def minus(p: list[list[sp.Expr]], q: list[list[sp.Expr]]) -> list[sp.Expr]:
        return [raw_difference(p[i][j], q[i][j]) for i in range(size) for j in range(size)]

    eye = [[sp.Integer(int(i == j)) for j in range(size)] for i in range(size)]
    ta = mat(A)
    transpose = [list(r) for r in zip(*ta, strict=True)]
    if name == "orthogonal":
        parts = minus(mul(transpose, ta), eye)
    elif name == "determinant":
        if size == 2:
            det = raw_difference(sp.Mul(ta[0][0], ta[1][1], evaluate=False),
                                 sp.Mul(ta[0][1], ta[1][0], evaluate=False))
        else:
            det = ta[0][0] if size == 1 else sp.Matrix(ta).det()
        parts = [raw_difference(det, sp.Integer(1))]
    elif name == "identity_at_zero":
        parts = minus(mat(sp.Integer(0)), eye)
    elif name == "group_law":
        parts = minus(mul(ta, mat(B)), mat(sp.Add(A, B, evaluate=False)))
    elif name == "inverse_is_transpose":
        parts = minus(mat(sp.Mul(sp.Integer(-1), A, evaluate=False)), transpose)
    else:
        raise ValueError(f"no structure statement named {name!r}")
    return raw_weighted_sum(parts)
