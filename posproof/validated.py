"""Validated arithmetic: signs, comparisons and rationality that are proofs, not guesses.

Every numeric decision the proof engine takes goes through this module.  A
SymPy expression is evaluated with interval arithmetic (:mod:`mpmath.ctx_iv`,
outward rounding, so the true value is always inside the interval); a sign is
decided when the interval excludes 0, raising the precision until it does or
a bit budget runs out.  Zero is answered only when the expression is proved
equal to 0 by exact rewriting (rational arithmetic, ``expand_log``,
``radsimp``, ``sqrtdenest``, ``simplify``) *and* its enclosure contains 0.
Otherwise the answer is ``None``: unknown.  A SymPy assumption flag
(``is_rational``, ``is_zero``, ``is_positive`` …) is never used as a proof.

Evaluation uses this module's own interval contexts (one per precision and
thread), so neither ``mpmath.mp`` nor ``mpmath.iv`` is touched.

>>> import sympy as sp
>>> x = sp.log(8) / sp.log(2) - 3
>>> sign(x), sign(x * 10**85 + sp.Rational(1, 2))      # exactly 0 and exactly 1/2
(0, 1)
>>> sign(sp.pi - sp.Rational(355, 113))
-1
>>> lo, hi = bounds(enclose(sp.sqrt(2), prec=20))
>>> lo < mpmath.sqrt(2) < hi, float(hi - lo) < 1e-5
(True, True)
>>> rational_value((1 / (sp.sqrt(2) - 1) - 1) ** 2)
2
>>> irrational(sp.Integer(500000) ** sp.Rational(-1, 20))
'unique factorisation: 2^(-1/4) has a non-integer exponent'
>>> irrational((1 / (sp.sqrt(2) - 1) - 1) ** 2) is None
True
"""

from __future__ import annotations

import math
import threading
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp
from mpmath.ctx_iv import MPIntervalContext
from mpmath.libmp import (
    fone,
    from_int,
    mpf_abs,
    mpf_le,
    mpf_lt,
    mpf_mul,
    mpf_pow_int,
    mpf_sub,
    round_ceiling,
    round_floor,
)
from mpmath.libmp.libmpi import mpi_cos_sin

__all__ = ["BUDGET_BITS", "Unenclosable", "Unresolved", "bounds", "certainly_nonzero",
           "compare", "enclose", "exact_ratio", "exceeds", "irrational", "is_exact_zero",
           "rational_value", "sign", "width_ok"]

#: Largest working precision (bits) a precision loop may reach: about 4900 digits.
BUDGET_BITS = 1 << 14
_START_BITS = 64
#: Expressions larger than this are not handed to ``sp.simplify`` (time budget).
_SIMPLIFY_OPS = 120
#: A ratio within 10^-100 of a rational of height ≤ 10^12 is never called irrational.
_SMALL_HEIGHT = 10**12


class Unenclosable(ValueError):
    """The expression holds a function or value this module cannot enclose."""


class Unresolved(Unenclosable):
    """The enclosure was too wide for a domain condition (log, sqrt, 1/x) at this precision:
    more bits may help."""


class _Widen(ValueError):
    """Internal: raised inside one evaluation, turned into :class:`Unresolved`."""


_SIMPLE = {sp.exp: "exp", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan"}


def _convert(ctx: MPIntervalContext, value: Any) -> Any:
    """An environment value (int, Fraction, Rational, mpf, float, interval) as an interval."""
    if isinstance(value, bool):
        raise Unenclosable("a boolean is not a number")
    if isinstance(value, int):
        return ctx.mpf(value)
    if isinstance(value, Fraction):
        return ctx.mpf(value.numerator) / value.denominator
    if isinstance(value, sp.Basic):
        value = sp.sympify(value)
        if value.is_Rational:
            return ctx.mpf(int(value.p)) / int(value.q)
        return _enclose(ctx, value, {})
    if isinstance(value, (float, mpmath.mpf)):
        return ctx.mpf(value)       # an exact binary number: enclosed exactly or outward
    if hasattr(value, "_mpi_"):
        return ctx.mpf(list(bounds(value)))
    raise Unenclosable(f"cannot enclose a value of type {type(value).__name__}")


def _finite(x: Any) -> Any:
    a, b = bounds(x)
    if not (mpmath.isfinite(a) and mpmath.isfinite(b)):
        raise _Widen("an intermediate value is not finite")
    return x


def _positive(x: Any, what: str) -> Any:
    if not (x > 0):
        raise _Widen(f"{what} of an interval not known to be positive")
    return x


_LOCAL = threading.local()


def _context(prec: int) -> MPIntervalContext:
    """This thread's private interval context at ``prec`` bits (never ``mpmath.iv``)."""
    contexts = getattr(_LOCAL, "contexts", None)
    if contexts is None:
        contexts = _LOCAL.contexts = {}
    ctx = contexts.get(prec)
    if ctx is None:
        ctx = contexts[prec] = MPIntervalContext()
        ctx.prec = prec
    return ctx


@lru_cache(maxsize=1 << 14)
def _constant(expr: sp.Expr, prec: int) -> tuple[Any, Any] | Exception:
    """The enclosure of a symbol-free subexpression (its raw ends), memoised per precision."""
    try:
        return _enclose(_context(prec), expr, {}, memo=False)._mpi_
    except (_Widen, Unenclosable) as exc:
        return exc


@lru_cache(maxsize=1 << 16)
def _is_constant(expr: sp.Expr) -> bool:
    return not expr.free_symbols


def _enclose(ctx: MPIntervalContext, expr: sp.Expr, env: dict[Any, Any],
             memo: bool = True) -> Any:
    if memo and not expr.is_Atom and (not env or _is_constant(expr)):
        raw = _constant(expr, ctx.prec)
        if isinstance(raw, Exception):
            raise raw
        return ctx.make_mpf(raw)
    if expr.is_Integer:
        return ctx.mpf(int(expr))
    if expr.is_Rational:
        return ctx.mpf(int(expr.p)) / int(expr.q)
    if expr.is_Float:
        return ctx.mpf(mpmath.mpf(expr._mpf_))
    if expr.is_Symbol:
        if expr not in env:
            raise Unenclosable(f"no value for {expr}")
        return _convert(ctx, env[expr])
    if expr is sp.pi:
        return ctx.pi
    if expr is sp.E:
        return ctx.e
    if expr.is_Add:
        out = ctx.mpf(0)
        for arg in expr.args:
            out = out + _enclose(ctx, arg, env)
        return _finite(out)
    if expr.is_Mul:
        out = ctx.mpf(1)
        for arg in expr.args:
            out = out * _enclose(ctx, arg, env)
        return _finite(out)
    if expr.is_Pow:
        return _finite(_power(ctx, *expr.args, env))
    if isinstance(expr, sp.Abs):
        x = _enclose(ctx, expr.args[0], env)
        if x >= 0:
            return x
        if x <= 0:
            return -x
        a, b = bounds(x)
        return ctx.mpf([0, max(-a, b)])
    if isinstance(expr, sp.log) and len(expr.args) == 1:
        return _finite(ctx.log(_positive(_enclose(ctx, expr.args[0], env), "log")))
    name = _SIMPLE.get(expr.func)
    if name is not None:
        x = _enclose(ctx, expr.args[0], env)
        if name == "tan":
            c = ctx.cos(x)
            if not (c > 0 or c < 0):
                raise _Widen("tan near a pole")
            return _finite(ctx.sin(x) / c)
        if name in ("sin", "cos"):   # both ends of one computation, memoised (below)
            cos, sin = _cos_sin(x._mpi_, ctx.prec)
            return _finite(ctx.make_mpf(cos if name == "cos" else sin))
        return _finite(getattr(ctx, name)(x))
    raise Unenclosable(f"cannot enclose {expr.func.__name__}(…) with interval arithmetic")


@lru_cache(maxsize=1 << 14)
def _cos_sin(x: tuple[Any, Any], prec: int) -> tuple[Any, Any]:
    """The enclosures of cos and sin of the interval ``x`` (its raw ends) at ``prec`` bits:
    what ``ctx.cos`` and ``ctx.sin`` return (each computes both), once for a pair of entries
    cos(ωΔ), sin(ωΔ) and for an angle met again (the cross-checks of several theorems)."""
    return mpi_cos_sin(x, prec)


def _power(ctx: MPIntervalContext, base: sp.Expr, exp: sp.Expr, env: dict[Any, Any]) -> Any:
    if base is sp.E:
        return ctx.exp(_enclose(ctx, exp, env))
    b = _enclose(ctx, base, env)
    if exp.is_Integer:
        n = int(exp)
        if n < 0 and not (b > 0 or b < 0):
            raise _Widen("division by an interval containing 0")
        return b ** n
    if exp.is_Rational and exp == sp.Rational(1, 2):
        if b >= 0:
            return ctx.sqrt(b)
        raise _Widen("square root of an interval not known to be non-negative")
    e = _enclose(ctx, exp, env)
    if b == 0 and e > 0:
        return ctx.mpf(0)
    if base.is_Rational and base > 0:   # b^e of a number (the frequencies 10000^(−2k/d))
        return ctx.exp(e * ctx.make_mpf(_log_rational(base, ctx.prec)))
    return ctx.exp(e * ctx.log(_positive(b, "a real power")))


@lru_cache(maxsize=1 << 10)
def _log_rational(base: sp.Rational, prec: int) -> tuple[Any, Any]:
    """The enclosure of log(base) at ``prec`` bits (its raw ends): what ``ctx.log`` returns
    for the enclosure of ``base``, once for the whole schedule b^(−2k/d) at each precision."""
    ctx = _context(prec)
    return ctx.log(_enclose(ctx, base, {}))._mpi_


def enclose(expr: Any, env: dict[Any, Any] | None = None, prec: int = 128) -> Any:
    """An interval (``mpmath`` ``ivmpf``, outward-rounded) that contains the value of ``expr``.

    ``env`` gives exact values for the free symbols (int, Fraction, Rational,
    mpmath number or interval).  Raises :class:`Unenclosable` for unsupported
    functions or when the working precision ``prec`` (bits) is too low for a
    domain condition (``log`` of an interval touching 0 …).

    >>> import sympy as sp
    >>> lo, hi = bounds(enclose(sp.pi, prec=53))
    >>> lo <= mpmath.pi <= hi
    True
    """
    ctx = _context(int(prec))
    try:
        return _enclose(ctx, sp.sympify(expr), dict(env or {}))
    except _Widen as exc:
        raise Unresolved(f"{exc} at {prec} bits") from None
    except Unenclosable:
        raise
    except (ZeroDivisionError, ValueError, OverflowError, ArithmeticError) as exc:
        raise Unresolved(f"{type(exc).__name__} at {prec} bits: {exc}") from None


def bounds(x: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The two ends of an interval as exact mpmath numbers (never rounded to ``mpmath.mp``'s
    precision).

    >>> a, b = bounds(enclose(sp.pi, prec=200))
    >>> b - a < mpmath.mpf(2) ** -190
    True
    """
    a, b = x._mpi_
    return mpmath.mp.make_mpf(a), mpmath.mp.make_mpf(b)


def _loop(expr: Any, env: dict[Any, Any] | None, budget_bits: int):
    """Enclosures at 64, 128, … bits up to ``budget_bits`` (skipping too-low precisions)."""
    prec = _START_BITS
    while prec <= budget_bits:
        try:
            x = enclose(expr, env, prec)
        except Unresolved:
            x = None
        if x is not None:
            yield prec, x
        prec *= 2


def sign(expr: Any, env: dict[Any, Any] | None = None,
         budget_bits: int = BUDGET_BITS) -> int | None:
    """The certified sign of a real expression: −1, 0, 1, or ``None`` (unknown).

    ±1 when an enclosure excludes 0; 0 only when :func:`is_exact_zero` proves it.
    """
    expr = sp.sympify(expr)
    if expr.is_Rational:
        return int(sp.sign(expr))
    try:
        for _prec, x in _loop(expr, env, budget_bits):
            if x > 0:
                return 1
            if x < 0:
                return -1
    except Unenclosable:
        return None
    if not env and is_exact_zero(expr):
        return 0
    return None


def compare(a: Any, b: Any, env: dict[Any, Any] | None = None,
            budget_bits: int = BUDGET_BITS) -> int | None:
    """Certified sign of ``a − b``: −1, 0, 1, or ``None``.

    >>> compare(sp.sqrt(8), 2 * sp.sqrt(2)), compare(sp.pi, 3)
    (0, 1)
    """
    return sign(sp.Add(sp.sympify(a), -sp.sympify(b)), env, budget_bits)


def exceeds(expr: Any, threshold: Any = 0, env: dict[Any, Any] | None = None,
            budget_bits: int = BUDGET_BITS) -> bool:
    """True only when |expr| > threshold is certified by an enclosure (a confirmed residual).

    >>> exceeds(sp.sin(1) - sp.Rational(84, 100), sp.Rational(1, 10**3))
    True
    >>> exceeds(sp.log(8) / sp.log(2) - 3, 0)
    False
    """
    limit = sp.sympify(threshold)
    try:
        for _prec, x in _loop(sp.sympify(expr), env, budget_bits):
            a, b = bounds(x)
            t_lo, t_hi = bounds(enclose(limit, prec=_prec))
            if a > t_hi or -b > t_hi:
                return True
            if max(-a, b) <= t_lo:
                return False
    except Unenclosable:
        return False
    return False


def certainly_nonzero(expr: Any, env: dict[Any, Any] | None = None,
                      budget_bits: int = BUDGET_BITS) -> bool:
    """True only when an enclosure of ``expr`` excludes 0."""
    return sign(expr, env, budget_bits) in (-1, 1)


@lru_cache(maxsize=256)
def _ten_to_minus(digits: int) -> Any:
    return mpf_pow_int(from_int(10), -digits, 64, round_floor)


def width_ok(x: Any, digits: int) -> bool:
    """Whether interval ``x`` pins its value to ``digits`` significant digits (or to an
    absolute 10^-digits when it is that close to 0).  Rounded so as never to say yes wrongly."""
    a, b = x._mpi_
    width = mpf_sub(b, a, 64, round_ceiling)
    scale = fone
    for end in (mpf_abs(a), mpf_abs(b)):
        if mpf_lt(scale, end):
            scale = end
    return bool(mpf_le(width, mpf_mul(scale, _ten_to_minus(digits), 64, round_floor)))


# --------------------------------------------------------------------------- exact zero
def _rewrites(expr: sp.Expr):
    """Exact rewrites of ``expr`` (each an identity), cheapest first."""
    e = sp.expand_log(expr, force=False)
    yield e
    if not _expandable(e):
        return                  # (sum)^k with a large k: expanding would not finish in time
    e = sp.radsimp(e)
    yield e
    yield sp.expand(sp.sqrtdenest(e))
    if sp.count_ops(e) <= _SIMPLIFY_OPS:
        yield sp.simplify(sp.logcombine(e, force=False))
        yield sp.simplify(e)


def is_exact_zero(expr: Any) -> bool:
    """True only when ``expr`` is proved to be 0 exactly.

    The proof is a chain of exact rewrites reaching the number 0, and an interval
    enclosure at 1024 bits that contains 0 (a guard against a rewrite bug).
    """
    expr = sp.sympify(expr)
    if expr.free_symbols:
        return False
    if expr.is_Rational:
        return expr == 0
    try:
        x = enclose(expr, prec=1024)
        if 0 not in x:
            return False
    except Unenclosable:
        return False
    try:
        return any(r == 0 for r in _rewrites(expr))
    except (TypeError, ValueError, RecursionError, NotImplementedError):
        return False


# --------------------------------------------------------------------------- rationality
def _small_rational(x: Any, height: int = _SMALL_HEIGHT) -> sp.Rational | None:
    """A rational of height ≤ ``height`` inside the interval ``x`` widened by 10^-100·|x|."""
    a, b = bounds(x)
    with mpmath.workprec(400):
        mid = (a + b) / 2
        slack = mpmath.mpf(10) ** -100 * max(abs(mid), mpmath.mpf(1))
        lo, hi = a - slack, b + slack
        m, e = mpmath.mpf(mid).man_exp
        q = Fraction(int(m) * (2 ** e if e >= 0 else 1), 1 if e >= 0 else 2 ** -e)
        cand = q.limit_denominator(height)
        if abs(cand.numerator) > height * max(1, abs(cand.denominator)):
            return None
        value = mpmath.mpf(cand.numerator) / cand.denominator
        if lo <= value <= hi:
            return sp.Rational(cand.numerator, cand.denominator)
    return None


def rational_value(expr: Any) -> sp.Rational | None:
    """The exact rational value of a constant ``expr`` when proved, else ``None``.

    Proved by exact rewriting to a Rational that its enclosure contains, or by
    guessing a small-height rational from a 400-bit enclosure and proving the
    difference exactly 0 (:func:`is_exact_zero`).
    """
    expr = sp.sympify(expr)
    if expr.is_Rational:
        return expr
    if expr.free_symbols:
        return None
    try:
        x = enclose(expr, prec=400)
    except Unenclosable:
        return None
    try:
        for r in _rewrites(expr):
            if r.is_Rational:
                return r if _contains(x, r) else None
    except (TypeError, ValueError, RecursionError, NotImplementedError):
        return None
    cand = _small_rational(x)
    if cand is not None and is_exact_zero(sp.Add(expr, -cand)):
        return cand
    return None


def _contains(x: Any, r: sp.Rational) -> bool:
    a, b = bounds(x)
    return a * int(r.q) <= int(r.p) <= b * int(r.q) if r.q > 0 else False


def irrational(expr: Any) -> str | None:
    """A named proof that the constant ``expr`` is irrational, or ``None`` (unknown).

    Recognised: a product of rational powers of positive rationals (irrational
    iff, after factorisation into primes, some combined exponent is not an
    integer), times π^k (k ≠ 0 integer: π^k·α is transcendental for algebraic
    α ≠ 0, Lindemann) or times e^r (r ≠ 0 rational: Lindemann–Weierstrass) —
    never both; or, after exact expansion, a + b·√n with a, b rational, b ≠ 0 and
    n > 1 square-free (e.g. (1 + √2)² = 3 + 2√2) and exactly one surd left, the
    rewrite agreeing with ``expr`` at 400 bits.  Integers are factored only
    completely (:func:`_prime_factors`).  Never answered when the value is within
    10^-100 of a rational of small height.

    >>> irrational(sp.Integer(21048) ** sp.Rational(-1, 10))
    'unique factorisation: 2^(-3/10) has a non-integer exponent'
    """
    expr = sp.sympify(expr)
    if expr.is_Rational or expr.free_symbols:
        return None
    reason = _irrational_product(expr)
    rewritten = None
    if reason is None and _expandable(expr):
        try:
            rewritten = sp.expand(sp.radsimp(expr))
            reason = _irrational_quadratic(rewritten)
        except (TypeError, ValueError, RecursionError, NotImplementedError):
            reason = None
    if reason is None:
        return None
    try:
        x = enclose(expr, prec=400)
        if rewritten is not None and not _overlap(x, enclose(rewritten, prec=400)):
            return None     # the rewrite changed the value: a SymPy bug, not a proof
    except Unenclosable:
        return None
    if _small_rational(x) is not None:
        return None
    return reason


def _overlap(x: Any, y: Any) -> bool:
    (a, b), (c, d) = bounds(x), bounds(y)
    return a <= d and c <= b


def _expandable(expr: sp.Expr, max_power: int = 16) -> bool:
    """Whether expanding ``expr`` stays small: no sum raised to a power above ``max_power``."""
    return not any(p.base.is_Add and p.exp.is_Integer and abs(int(p.exp)) > max_power
                   for p in expr.atoms(sp.Pow))


def _irrational_quadratic(expr: sp.Expr) -> str | None:
    """a + b·√n with a, b rational, b ≠ 0, n > 1 a square-free integer: irrational.

    Exactly one non-rational term: with two surds or more (√2 − √(3 − 2√2) is 1)
    nothing is concluded, since they may cancel.
    """
    if not expr.is_Add:
        return None
    roots = [t for t in expr.args if not t.is_Rational]
    if len(roots) != 1:
        return None         # several surds may cancel: never judge by one of them
    coeff, root = roots[0].as_coeff_Mul()
    if not (coeff.is_Rational and coeff != 0 and root.is_Pow and root.base.is_Integer
            and root.exp == sp.Rational(1, 2) and root.base > 1):
        return None
    n = int(root.base)
    if any(e >= 2 for e in sp.factorint(n).values()):
        return None         # SymPy keeps √n with n square-free; anything else is not ours
    return (f"a + b·√{n} with rational a, b ≠ 0: √{n} is irrational (unique factorisation), "
            f"so the value {sp.sstr(expr)} is irrational")


def _irrational_product(expr: sp.Expr) -> str | None:
    """Product of rational powers of rationals, times π^k or e^r (see :func:`irrational`)."""
    exponents: dict[int, sp.Rational] = {}
    pi_exp, e_exp = sp.Integer(0), sp.Integer(0)
    for base, exp in _powers(expr):
        if not exp.is_Rational:
            return None
        if base is sp.pi:
            pi_exp += exp
        elif base is sp.E:
            e_exp += exp
        elif base.is_Rational and base > 0:
            for part, sgn in ((int(base.p), 1), (int(base.q), -1)):
                factors = _prime_factors(part)
                if factors is None:
                    return None
                for prime, mult in factors.items():
                    exponents[prime] = exponents.get(prime, 0) + sgn * mult * exp
        else:
            return None
    if pi_exp != 0 and e_exp != 0:
        return None                     # π^a·e^b: rationality open in general
    bad = [(p, e) for p, e in sorted(exponents.items()) if e.q != 1]
    if pi_exp != 0:
        if not pi_exp.is_Integer:
            return None
        reason = f"Lindemann: π^{pi_exp} times a non-zero algebraic number is transcendental"
    elif e_exp != 0:
        reason = (f"Lindemann–Weierstrass: e^({e_exp}) times a non-zero algebraic number is "
                  "transcendental")
    elif bad:
        p, e = bad[0]
        reason = f"unique factorisation: {p}^({e}) has a non-integer exponent"
    else:
        return None
    return reason


_FACTOR_DIRECT = 10**30      # factorint is quick below this
_FACTOR_MAX_BITS = 4096      # larger integers are not factored at all
_TRIAL_LIMIT = 10**4         # trial division bound for larger integers


def _prime_factors(n: int) -> dict[int, int] | None:
    """The complete prime factorisation of ``n`` ≥ 1, or ``None`` when it is out of reach.

    Below 10^30: :func:`sympy.factorint`.  Up to 4096 bits: trial division by the
    primes below 10^4, then the cofactor m (no prime factor below 10^4) is reduced
    to its root r with m = r^j (exact integer roots), and factored when r < 10^30.
    SymPy writes 21048^(-1/10) as (2^7·3^9·877^9)^(1/10)/5262, a 33-digit radicand
    that this splits into 2^7·3^9·877^9.  Bounded work for any input; never partial.
    """
    if n < 1:
        return None
    if n <= _FACTOR_DIRECT:
        return {int(p): int(m) for p, m in sp.factorint(n).items()}
    if n.bit_length() > _FACTOR_MAX_BITS:
        return None
    out: dict[int, int] = {}
    for p in sp.sieve.primerange(2, _TRIAL_LIMIT):
        while n % p == 0:
            n //= p
            out[p] = out.get(p, 0) + 1
    power = 1
    reduced = True
    while reduced and n > _FACTOR_DIRECT:
        reduced = False
        # n = r^j with r ≥ 10^4 (no smaller prime factor), so j ≤ log(n)/log(10^4)
        for j in sp.sieve.primerange(2, n.bit_length() // 13 + 2):
            root, exact = sp.integer_nthroot(n, j)
            if exact:
                n, power, reduced = int(root), power * j, True
                break
    if n > _FACTOR_DIRECT:
        return None
    for p, m in sp.factorint(n).items():
        out[int(p)] = out.get(int(p), 0) + int(m) * power
    return out


def _powers(expr: sp.Expr) -> list[tuple[sp.Expr, sp.Expr]]:
    """(base, exponent) of each factor; exp(r) is read as (E, r), a Rational p/q as p^1·q^-1."""
    out = []
    for factor in sp.Mul.make_args(expr):
        if factor.is_Rational:
            if factor < 0:
                return [(factor, sp.Integer(1))]
            out.append((factor, sp.Integer(1)))
            continue
        base, exp = factor.as_base_exp()
        if isinstance(base, sp.exp):
            base, exp = sp.E, base.args[0] * exp
        out.append((base, exp))
    return out


def digits_of(bits: int) -> int:
    """Decimal digits carried by ``bits`` bits (for messages)."""
    return int(bits * math.log10(2))


def exact_ratio(a: sp.Expr, b: sp.Expr) -> sp.Rational | bool | None:
    """a/b as a Rational, False when provably irrational, None when unknown.

    Irrational only with a named proof (:func:`irrational`:
    unique factorisation for products of rational powers of rationals,
    Lindemann for π^k or e^r times such a product), never from SymPy's
    ``is_rational`` flag, and never when a/b agrees with a rational of small
    height to 100 digits.  Rational only when proved exactly
    (:func:`rational_value`).

    >>> exact_ratio(sp.Integer(500000) ** sp.Rational(-1, 20), sp.Integer(1))
    False
    >>> exact_ratio(sp.pi / 8, sp.pi / 2)
    1/4
    >>> exact_ratio((1 / (sp.sqrt(2) - 1) - 1) ** 2, sp.Integer(1))
    2
    """
    ratio = sp.Mul(a.doit(), 1 / b.doit())
    if ratio.is_Rational:
        return ratio
    if irrational(ratio) is not None:
        return False
    return rational_value(ratio)
