"""Exponential polynomials: an exact decision of trigonometric identities for the auditor.

A residual built from ``sin``, ``cos`` and ``exp`` of arguments linear in its variables,
with exact coefficients, is an *exponential polynomial*: a finite sum
``Σ c_k · v^n_k · e^{i λ_k·v}``.  Distinct frequencies λ give linearly independent functions,
so the residual is identically 0 exactly when every coefficient of its normal form is.

:func:`normal_form` computes that normal form with exact rational arithmetic
(:class:`fractions.Fraction`) over a basis whose linear independence is a theorem, not
SymPy's simplifier:

* a constant is a ``Q(i)``-combination of ``π^m · Π p^{r_p}`` (``p`` prime, ``0 ≤ r_p < 1``
  rational): products of real roots of distinct primes with exponents in ``[0, 1)`` are
  linearly independent over Q (Besicovitch, 1940), and π is transcendental, so such a
  combination is 0 only when every rational coefficient is;
* a frequency of a variable is such a real constant, ``Σ q_b·b``; ``e^{i q b v}`` is the
  generator ``z_{v,b}`` to the rational power ``q``, so equal frequencies written
  differently (``10000^(-1/256)`` and ``10^(-1/64)``, ``√8`` and ``2√2``) are one generator,
  and distinct exponent vectors are distinct frequencies.

A normal form equal to 0 proves the identity for every real value of its variables (the
rewriting is a ring homomorphism, whatever relations the generators satisfy).  A non-zero
normal form refutes it only when the generators are *certainly* independent
(:attr:`NormalForm.certain`); constant phases other than multiples of π/4, π/6 and real
exponentials are kept as formal generators, which proves zeros but not non-zeros.
Anything outside the class (``floor``, ``Abs``, ``tan``, a frequency with ``log``, …)
raises :class:`NotApplicable`.

This module uses neither mpmath nor the engine's validated arithmetic, nor SymPy's
simplification: SymPy is read as a tree only (and ``factorint`` factors integers).

>>> import sympy as sp
>>> x, d = sp.symbols("x delta")
>>> w = sp.Integer(10000) ** sp.Rational(-1, 256)
>>> nf = normal_form(sp.sin(w * (x + d)) - sp.sin(w * x) * sp.cos(w * d)
...                  - sp.cos(sp.Integer(10) ** sp.Rational(-1, 64) * x) * sp.sin(w * d), {x, d})
>>> nf.is_zero, nf.size
(True, 0)
>>> nf = normal_form(3 * sp.sin(sp.pi * x), {x})      # 0 at every integer, not an identity
>>> nf.is_zero, nf.certain, nf.size
(False, True, 2)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

__all__ = ["MAX_TERMS", "NormalForm", "NotApplicable", "normal_form"]

#: Largest number of terms an intermediate normal form may have.
MAX_TERMS = 1 << 15
#: Largest integer power expanded.
_MAX_POWER = 64
#: Largest integer factored (a radicand's numerator or denominator).
_MAX_FACTOR = 10 ** 40
#: Trial division up to this bound; a cofactor above its square must be prime.
_TRIAL = 1 << 16


class NotApplicable(ValueError):
    """The expression is not an exponential polynomial this module can normalise."""


# A monomial: (gens, poly, rad, pi, i)
#   gens: sorted ((generator, Fraction exponent), …) — e^{i·q·b·v} and formal generators
#   poly: sorted ((variable name, int power), …)     — polynomial factors of a variable
#   rad:  sorted ((prime, Fraction in (0, 1)), …)    — Π p^r
#   pi:   int                                        — π^m
#   i:    0 or 1                                     — the imaginary unit
Key = tuple[tuple, tuple, tuple, int, int]
ONE: Key = ((), (), (), 0, 0)
#: The denominator 1 (compared by identity).
_UNIT: dict = {ONE: Fraction(1)}
_I: Key = ((), (), (), 0, 1)
_PI: Key = ((), (), (), 1, 0)


def _merge(a: tuple, b: tuple) -> dict:
    out = dict(a)
    for k, v in b:
        out[k] = out.get(k, 0) + v
    return out


def _mul_keys(a: Key, b: Key) -> tuple[Key, Fraction]:
    factor = Fraction(1)
    gens = tuple(sorted((k, v) for k, v in _merge(a[0], b[0]).items() if v))
    poly = tuple(sorted((k, v) for k, v in _merge(a[1], b[1]).items() if v))
    rad = []
    for p, r in sorted(_merge(a[2], b[2]).items()):
        whole = r.numerator // r.denominator
        if whole:
            factor *= Fraction(p) ** whole
            r -= whole
        if r:
            rad.append((p, r))
    i = a[4] + b[4]
    if i >= 2:
        factor = -factor
        i -= 2
    return (gens, poly, tuple(rad), a[3] + b[3], i), factor


Terms = dict[Key, Fraction]


def _add(a: Terms, b: Terms) -> Terms:
    out = dict(a)
    for k, v in b.items():
        s = out.get(k, 0) + v
        if s:
            out[k] = s
        else:
            out.pop(k, None)
    return out


def _mul(a: Terms, b: Terms) -> Terms:
    if len(a) * len(b) > MAX_TERMS * 4:
        raise NotApplicable(f"a product of {len(a)} by {len(b)} terms")
    out: Terms = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            k, f = _mul_keys(ka, kb)
            s = out.get(k, 0) + va * vb * f
            if s:
                out[k] = s
            else:
                out.pop(k, None)
    if len(out) > MAX_TERMS:
        raise NotApplicable(f"more than {MAX_TERMS} terms")
    return out


def _scale(a: Terms, c: Fraction) -> Terms:
    return {k: v * c for k, v in a.items()} if c else {}


def _const(c: Any) -> Terms:
    c = Fraction(c)
    return {ONE: c} if c else {}


def _inverse(a: Terms) -> Terms:
    """1/a for a single term (a monomial)."""
    if len(a) != 1:
        raise NotApplicable("the inverse of a sum")
    (key, c), = a.items()
    gens, poly, rad, pi, i = key
    out = {((tuple((g, -q) for g, q in gens), tuple((v, -n) for v, n in poly), (), -pi, 0)):
           1 / c}
    for p, r in rad:                       # p^-r = p^(1-r) / p
        out = _mul(out, {((), (), ((p, 1 - r),), 0, 0): Fraction(1, p)})
    if i:                                  # 1/i = -i
        out = _mul(out, {_I: Fraction(-1)})
    return out


def _factor(n: int) -> dict[int, int]:
    """The prime factors of ``n`` (small ones by trial division; a large cofactor must be
    prime, else nothing is decided: a hard factorisation is never attempted)."""
    if n > _MAX_FACTOR:
        raise NotApplicable(f"a radicand with {len(str(n))} digits")
    out = {int(p): int(k) for p, k in sp.factorint(n, limit=_TRIAL).items()}
    for p in out:
        if p > _TRIAL * _TRIAL and not sp.isprime(p):
            raise NotApplicable(f"a radicand with a {len(str(p))}-digit composite factor")
    return out


def _rational_power(c: Fraction, e: Fraction) -> Terms:
    """c^e, c > 0 rational, e rational: a rational times Π p^r."""
    if c <= 0:
        raise NotApplicable("a non-integer power of a number not positive")
    out = _const(1)
    for n, sign in ((c.numerator, 1), (c.denominator, -1)):
        for p, k in _factor(n).items():
            q = sign * k * e
            whole = q.numerator // q.denominator
            r = q - whole
            term = {((), (), ((p, r),) if r else (), 0, 0): Fraction(p) ** whole}
            out = _mul(out, term)
    return out


def _power(a: Terms, n: int) -> Terms:
    if n < 0:
        return _power(_inverse(a), -n)
    if n > _MAX_POWER:
        raise NotApplicable(f"a power with exponent {n}")
    out, base = _const(1), a
    while n:
        if n & 1:
            out = _mul(out, base)
        n >>= 1
        if n:
            base = _mul(base, base)
    return out


# --------------------------------------------------------------------------- exact phases
def _cis_pi(q: Fraction) -> Terms | None:
    """e^{iπq} exactly, for q a multiple of 1/4 or 1/6; else None."""
    q = q % 2
    s2 = {((), (), ((2, Fraction(1, 2)),), 0, 0): Fraction(1, 2)}       # √2/2
    s3 = {((), (), ((3, Fraction(1, 2)),), 0, 0): Fraction(1, 2)}       # √3/2
    half = _const(Fraction(1, 2))
    table = {Fraction(0): (_const(1), {}), Fraction(1, 2): ({}, _const(1)),
             Fraction(1, 4): (s2, s2), Fraction(1, 3): (half, s3), Fraction(1, 6): (s3, half)}
    for base, sign_c, sign_s in ((q, 1, 1), (1 - q, -1, 1), (q - 1, -1, -1),
                                 (2 - q, 1, -1)):
        if base in table:
            c, s = table[base]
            return _add(_scale(c, Fraction(sign_c)), _mul(_scale(s, Fraction(sign_s)),
                                                          {_I: Fraction(1)}))
    return None


@dataclass
class NormalForm:
    """The normal form of a residual: its terms, and whether a non-zero one is certain."""

    terms: Terms
    certain: bool
    #: Why a non-zero normal form would not be certain (formal generators).
    uncertain: tuple[str, ...]
    variables: tuple[str, ...]
    #: Terms of the residual's summands before they cancel (the size of what was compared).
    expanded: int = 0

    @property
    def is_zero(self) -> bool:
        return not self.terms

    @property
    def size(self) -> int:
        return len(self.terms)

    def text(self, limit: int = 300) -> str:
        """The normal form printed (sorted terms; the first few of a long one)."""
        if not self.terms:
            return "0"
        parts = [f"({c})·{_key_text(k)}" for k, c in sorted(self.terms.items(), key=repr)]
        text = " + ".join(parts)
        return text if len(text) <= limit else text[:limit - 1] + "…"

    def digest(self) -> str:
        """A hash of the whole normal form (sha256 of its sorted printed terms)."""
        full = ";".join(f"{c}*{k!r}" for k, c in sorted(self.terms.items(), key=repr))
        return hashlib.sha256(full.encode()).hexdigest()[:16]

    def record(self) -> dict[str, Any]:
        return {"decision": "exponential-polynomial normal form (posproof.expoly, exact)",
                "normal_form": self.text(), "terms": self.size, "sha256": self.digest(),
                "expanded_terms": self.expanded, "variables": list(self.variables),
                "certain": self.certain}


def _basis_text(b: tuple) -> str:
    rad, pi = b[0], b[1]
    parts = [f"{p}^{r}" for p, r in rad] + ([f"π^{pi}" if pi != 1 else "π"] if pi else [])
    parts += [f"{v}^{n}" if n != 1 else v for v, n in (b[2] if len(b) > 2 else ())]
    return "·".join(parts) or "1"


def _key_text(k: Key) -> str:
    gens, poly, rad, pi, i = k
    parts = []
    for g, q in gens:
        if g[0] == "w":                                 # e^{i·q·b·v}
            b = _basis_text(g[2])
            scale = "" if q == 1 else "-" if q == -1 else f"({q})·"
            parts.append(f"e^({scale}i·{'' if b == '1' else b + '·'}{g[1]})")
        else:                                           # a formal generator
            parts.append(f"{g[0]}[{', '.join(map(str, g[1:]))}]^({q})")
    parts += [f"{v}^{n}" for v, n in poly]
    parts += [f"{p}^{r}" for p, r in rad]
    if pi:
        parts.append(f"π^{pi}")
    if i:
        parts.append("i")
    return "·".join(parts) or "1"


# --------------------------------------------------------------------------- the walk
class _Walker:
    def __init__(self, variables: Iterable[sp.Symbol], parameters: Iterable[sp.Symbol] = ()
                 ) -> None:
        self.variables = {str(v) for v in variables}
        #: Formal real constants (a frequency w of a generic identity): kept as symbols in
        #: the coefficients and the frequencies, so a normal form 0 holds for every value.
        self.parameters = {str(p) for p in parameters} - self.variables
        self.memo: dict[sp.Expr, Terms] = {}
        self.uncertain: set[str] = set()
        #: Formal constants e^{β} (β algebraic): independent of each other, but not known
        #: to be independent of π.
        self.transcendental: set[str] = set()

    def walk(self, expr: sp.Expr) -> Terms:
        """``expr`` as an exponential polynomial (no quotient by a sum)."""
        num, den = self.walk_quotient(expr)
        if den is not _UNIT:
            raise NotApplicable("a quotient by a sum inside a function or a power")
        return num

    def walk_quotient(self, expr: sp.Expr) -> tuple[Terms, Terms]:
        """``expr`` as num / den, den an exponential polynomial certainly not 0 (``_UNIT``
        when 1)."""
        out = self.memo.get(expr)
        if out is None:
            out = self.memo[expr] = self._quotient(expr)
        return out

    def _quotient(self, expr: sp.Expr) -> tuple[Terms, Terms]:
        if expr.is_Add:
            num, den = {}, _UNIT
            for a in expr.args:
                n, d = self.walk_quotient(a)
                if d is den or d == den:
                    num = _add(num, n)
                else:
                    num, den = _add(_mul(num, d), _mul(n, den)), _mul(den, d)
                if len(num) > MAX_TERMS:
                    raise NotApplicable(f"more than {MAX_TERMS} terms")
            return num, den
        if expr.is_Mul:
            num, den = _const(1), _UNIT
            for a in expr.args:
                n, d = self.walk_quotient(a)
                num = _mul(num, n)
                if d is not _UNIT:
                    den = d if den is _UNIT else _mul(den, d)
            return num, den
        if expr.is_Pow and expr.args[1].is_Integer and int(expr.args[1]) < 0:
            n, d = self.walk_quotient(expr.args[0])
            k = -int(expr.args[1])
            if len(n) == 1:                      # a monomial: inverted exactly
                return _mul(_power(_inverse(n), k), _power(d, k) if d is not _UNIT else
                            _const(1)), _UNIT
            if not n or self.uncertain or (self.transcendental and any(k[3] for k in n)):
                # a denominator that may be 0 as a function: nothing is decided
                raise NotApplicable("a quotient by a sum not certainly non-zero")
            return (_power(d, k) if d is not _UNIT else _const(1)), _power(n, k)
        return self._node(expr), _UNIT

    def _node(self, expr: sp.Expr) -> Terms:
        if expr.is_Integer or expr.is_Rational:
            return _const(Fraction(int(expr.p), int(expr.q)))
        if expr.is_Float:
            if not expr.is_finite:
                raise NotApplicable("a float that is not finite")
            return self._float(expr)
        if expr is sp.pi:
            return {_PI: Fraction(1)}
        if expr is sp.I:
            return {_I: Fraction(1)}
        if expr is sp.E:
            return self._real_exp(_const(1))
        if expr.is_Symbol:
            if str(expr) not in self.variables and str(expr) not in self.parameters:
                raise NotApplicable(f"the symbol {expr} has no role (not a variable)")
            return {((), ((str(expr), 1),), (), 0, 0): Fraction(1)}
        if expr.is_Pow:
            return self._pow(*expr.args)
        if isinstance(expr, sp.exp):
            return self._exp(self.walk(expr.args[0]))
        if isinstance(expr, (sp.sin, sp.cos)):
            e = self._cis(self.walk(expr.args[0]))
            inv = self._cis(_scale(self.walk(expr.args[0]), Fraction(-1)))
            if isinstance(expr, sp.cos):
                return _scale(_add(e, inv), Fraction(1, 2))
            # (e − 1/e) / (2i) = −i/2 · (e − 1/e)
            return _mul(_add(e, _scale(inv, Fraction(-1))), {_I: Fraction(-1, 2)})
        raise NotApplicable(f"{expr.func.__name__}(…) is not in an exponential polynomial")

    def _float(self, expr: sp.Float) -> Terms:
        sign, man, exp, _ = expr._mpf_
        value = Fraction(-man if sign else man) * Fraction(2) ** exp
        return _const(value)

    def _pow(self, base: sp.Expr, exp: sp.Expr) -> Terms:
        if exp.is_Integer:
            return _power(self.walk(base), int(exp))
        if exp.is_Rational:
            b = self.walk(base)
            if len(b) != 1:
                raise NotApplicable("a fractional power of a sum")
            (key, c), = b.items()
            gens, poly, rad, pi, i = key
            e = Fraction(int(exp.p), int(exp.q))
            if gens or poly or i or c <= 0 or (pi * e).denominator != 1:
                raise NotApplicable("a fractional power of a term not a positive constant")
            out = _mul(_rational_power(c, e), {((), (), (), int(pi * e), 0): Fraction(1)})
            for p, r in rad:
                out = _mul(out, _rational_power(Fraction(p), r * e))
            return out
        if base is sp.E:
            return self._exp(self.walk(exp))
        if base.is_Rational and base > 0:
            # c^A = e^{A·log c} = Π_p e^{k_p·A·log p}
            a = self.walk(exp)
            c = Fraction(int(base.p), int(base.q))
            out = _const(1)
            for n, sign in ((c.numerator, 1), (c.denominator, -1)):
                for p, k in _factor(n).items():
                    out = _mul(out, self._real_exp(_scale(a, Fraction(sign * k)), p))
            return out
        raise NotApplicable("a power with a non-rational exponent")

    # e^{a}: a split into its real and imaginary parts, each linear in the variables
    def _exp(self, a: Terms) -> Terms:
        re = {k: v for k, v in a.items() if not k[4]}
        im = {(k[0], k[1], k[2], k[3], 0): v for k, v in a.items() if k[4]}
        return _mul(self._real_exp(re), self._cis(im))

    def _linear(self, a: Terms) -> tuple[dict[tuple[str, tuple], Fraction], dict[tuple, Fraction]]:
        """a = Σ q·b·v + Σ q·b: ({(v, b): q}, {b: q}); b = (rad, π power), or
        (rad, π power, parameter powers) when a formal parameter is a factor."""
        freqs: dict[tuple[str, tuple], Fraction] = {}
        const: dict[tuple, Fraction] = {}
        for (gens, poly, rad, pi, i), q in a.items():
            if gens or i:
                raise NotApplicable("an argument that is not a real linear form")
            params = tuple(p for p in poly if p[0] in self.parameters)
            poly = tuple(p for p in poly if p[0] not in self.parameters)
            b = (rad, pi, params) if params else (rad, pi)
            if not poly:
                const[b] = q
            elif len(poly) == 1 and poly[0][1] == 1:
                freqs[(poly[0][0], b)] = q
            else:
                raise NotApplicable("an argument not linear in its variables")
        return freqs, const

    def _cis(self, a: Terms) -> Terms:
        """e^{i·a}, a real and linear in the variables."""
        freqs, const = self._linear(a)
        gens = tuple(sorted((("w", v, b), q) for (v, b), q in freqs.items()))
        out: Terms = {(gens, (), (), 0, 0): Fraction(1)}
        for b, q in const.items():
            exact = _cis_pi(q) if b == ((), 1) else None
            if exact is None:
                # e^{i·q·b}: a formal generator.  True identities stay 0; a non-zero form is
                # certainly non-zero only for an algebraic b (Lindemann–Weierstrass: e^{iβ_j}
                # for Q-independent algebraic β_j are algebraically independent over the
                # algebraic numbers) with no π in the coefficients; e^{iπ/5} satisfies
                # relations not modelled here
                if b[1]:
                    self.uncertain.add(f"the constant phase {q}·{_basis_text(b)}")
                self.transcendental.add(f"e^(i·{q}·{_basis_text(b)})")
                exact = {(((("phase", b), q),), (), (), 0, 0): Fraction(1)}
            out = _mul(out, exact)
        return out

    def _real_exp(self, a: Terms, log: int | None = None) -> Terms:
        """e^{a} (``log``: e^{a·log p}, p prime), a real linear form.

        Real frequencies b (algebraic) and q·log p are linearly independent over Q together
        (Baker: 1, log p₁, … log p_n are linearly independent over the algebraic numbers),
        so distinct exponent vectors are distinct functions; a frequency with π, or a
        constant factor e^{q·b} other than a radical p^q, is a formal generator."""
        if not a:
            return _const(1)
        freqs, const = self._linear(a)
        gens = []
        for (v, b), q in freqs.items():
            if b[1] or (log is not None and b != ((), 0)):
                self.uncertain.add(f"a real exponential with frequency {_basis_text(b)}"
                                   + (f"·log {log}" if log else ""))
            gens.append((("r", v, b, log or 0), q))
        out: Terms = {(tuple(sorted(gens)), (), (), 0, 0): Fraction(1)}
        for b, q in const.items():
            if log is not None and b == ((), 0):
                out = _mul(out, _rational_power(Fraction(log), q))       # p^q exactly
                continue
            if b[1] or log is not None:
                self.uncertain.add(f"the constant factor e^({q}·{_basis_text(b)}"
                                   + (f"·log {log})" if log else ")"))
            self.transcendental.add(f"e^({q}·{_basis_text(b)})")
            out = _mul(out, {(((("rc", b, log or 0), q),), (), (), 0, 0): Fraction(1)})
        return out


def normal_form(expr: Any, variables: Iterable[sp.Symbol],
                parameters: Iterable[sp.Symbol] = ()) -> NormalForm:
    """The exponential-polynomial normal form of ``expr`` in ``variables`` (every other
    symbol must have been given its value, or be one of ``parameters``); raises
    :class:`NotApplicable`.

    ``parameters`` are formal real constants (the frequency w of a generic group identity):
    each is an indeterminate of the coefficients and a basis element of the frequencies, so
    a normal form 0 proves the identity for every real value of each (evaluation at a value
    is a ring homomorphism).  A non-zero form with a parameter is never ``certain``: at some
    value the parameter may meet another frequency.

    >>> x, w = sp.symbols("x w")
    >>> normal_form(sp.sin(2 * w * x) - 2 * sp.sin(w * x) * sp.cos(w * x), {x}, {w}).is_zero
    True
    >>> nf = normal_form(sp.sin(w * x) - sp.sin(x), {x}, {w})
    >>> nf.is_zero, nf.certain
    (False, False)
    """
    variables = list(variables)
    parameters = list(parameters)
    w = _Walker(variables, parameters)
    if w.parameters:
        w.uncertain.add(f"formal parameters {sorted(w.parameters)}")
    # num / den = 0 exactly when num = 0: den is a non-zero exponential polynomial,
    # analytic, so 0 only on a closed set without interior
    expr = sp.sympify(expr)
    terms, _ = w.walk_quotient(expr)
    expanded = sum(len(w.memo[a][0]) for a in expr.args if a in w.memo) if expr.is_Add \
        else len(terms)
    if w.transcendental and any(k[3] for k in terms):
        w.uncertain.add(f"π beside {sorted(w.transcendental)[0]}")
    return NormalForm(terms, not w.uncertain, tuple(sorted(w.uncertain)),
                      tuple(sorted(str(v) for v in variables)), expanded)
