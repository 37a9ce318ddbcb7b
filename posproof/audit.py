"""The independent auditor: every verdict's evidence re-checked with Arb ball arithmetic.

The engine decides with SymPy, mpmath's interval arithmetic and float64 with rigorous
error bounds.  This module re-checks the :class:`~posproof.evidence.Evidence` attached
to a verdict with a second validated-arithmetic library, FLINT/Arb through python-flint
(``flint.arb``): a different code base, a different representation (mid-radius balls,
not endpoint intervals), a different implementation of every function.  It imports
neither mpmath nor :mod:`posproof.validated`.

For each item of the evidence it raises the working precision (64, 128, … bits, up
to :data:`AUDIT_BITS`) until the claim is decided:

* a :class:`~posproof.evidence.Sign` ``positive`` / ``negative`` / ``nonzero`` is
  *confirmed* when the ball excludes 0 on the claimed side, *refuted* when it lies on
  the other side;  ``zero`` (proved exactly by the engine) is confirmed when the ball
  contains 0 at :data:`ZERO_BITS` and refuted when a ball excludes it;
* a :class:`~posproof.evidence.Spot` is confirmed when the ball lies inside
  ``[value − radius, value + radius]`` and refuted when the two are disjoint;
* an enclosure the engine reported (``lo``, ``hi``) must meet the auditor's ball.

Anything else — a function Arb is not given here, a precision budget exhausted — is
*undecided*.  :func:`apply` turns a verdict whose evidence is not confirmed into
``unknown`` (never the opposite), with the auditor's reason in its note.

Precision is local: every evaluation runs inside ``flint.ctx.workprec``.

>>> import sympy as sp
>>> from posproof.evidence import Evidence, Sign
>>> ev = Evidence("certified sign", items=[
...     Sign("cos 1 + cos(π − 1 + 10⁻⁴⁵)", sp.cos(1) + sp.cos(sp.pi - 1 + sp.Rational(1, 10**45)),
...          "negative")])
>>> audit(ev).status
'confirmed'
>>> audit(Evidence("planted", items=[Sign("π − 355/113", sp.pi - sp.Rational(355, 113),
...                                        "positive")])).status
'refuted'
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import sympy as sp

from .evidence import Audit, Evidence, GroupResidual, Sign, Spot
from .expoly import NormalForm, NotApplicable, normal_form

__all__ = ["AUDIT_BITS", "ENGINE", "ArbUnavailable", "apply", "apply_all", "arb_ball", "audit",
           "audit_report",
           "decide", "decide_group", "decide_identity"]

#: Largest precision (bits) the auditor works at: about 4900 digits.
AUDIT_BITS = 1 << 14
_START_BITS = 64
#: Precision (bits, about 1230 digits) at which a ball around an engine-proved exact zero
#: is accepted as consistent with it.
ZERO_BITS = 1 << 12


class ArbUnavailable(RuntimeError):
    """python-flint cannot be imported (not installed, or its library failed to load):
    nothing can be audited."""


@lru_cache(maxsize=1)
def _flint() -> Any:
    try:
        import flint
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ArbUnavailable(f"python-flint could not be imported ({exc}); it is a dependency "
                             "of posproof: pip install python-flint") from exc
    return flint


def engine_name() -> str:
    try:
        return f"python-flint {_flint().__version__} (Arb balls)"
    except ArbUnavailable:  # pragma: no cover
        return "python-flint (missing)"


ENGINE = "python-flint arb"


class _Undecided(ValueError):
    """The ball cannot be formed (a function not given here, a domain not certain)."""


def _arb_exact_float(flint: Any, value: sp.Float) -> Any:
    sign, man, exp, _ = value._mpf_
    man = -man if sign else man
    return flint.arb(flint.fmpz(man)) * flint.arb(2) ** exp if exp >= 0 else \
        flint.arb(flint.fmpz(man)) / flint.arb(2) ** (-exp)


def arb_ball(expr: sp.Expr, prec: int) -> Any:
    """A ball (``flint.arb``) that contains the exact value of the symbol-free ``expr``.

    >>> import sympy as sp
    >>> ball = arb_ball(sp.sqrt(2) - sp.Rational(99, 70), 128)
    >>> ball < 0
    True
    """
    flint = _flint()
    with flint.ctx.workprec(prec):
        return _walk(flint, sp.sympify(expr))


#: Balls of powers of numbers per precision (the frequencies ω_k recur in every item of a
#: report): bounded, cleared when full.
_MEMO: dict[tuple[sp.Expr, int], Any] = {}
_MEMO_SIZE = 1 << 17


def _walk(flint: Any, expr: sp.Expr, env: dict | None = None, memo: dict | None = None
          ) -> Any:
    """The ball of ``expr``; ``env`` gives exact values of its symbols (substituted here, not
    by SymPy, whose re-evaluation of b**(p/q) is slow). Powers of numbers are memoised per
    precision."""
    # memoised: powers of numbers (the frequencies b^(−2k/d) recur in every item); the test
    # is O(1), where free_symbols would walk the whole tree at every node
    if not (expr.is_Pow and expr.args[0].is_Number and expr.args[1].is_Number):
        if memo is None or expr.is_Atom:
            return _node(flint, expr, env, memo)
        # ``memo``: one walk's balls (one env, one precision): a subexpression met again
        # (sin(ω·x) in several residuals) is the same ball, computed once
        ball = memo.get(expr)
        if ball is None:
            ball = memo[expr] = _node(flint, expr, env, memo)
        return ball
    key = (expr, flint.ctx.prec)
    ball = _MEMO.get(key)
    if ball is None:
        ball = _node(flint, expr, env)
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = ball
    return ball


def _node(flint: Any, expr: sp.Expr, env: dict | None = None, memo: dict | None = None
          ) -> Any:
    """One SymPy node as a ball (one case per node type)."""
    arb = flint.arb
    if env and expr.is_Symbol and expr in env:
        return _walk(flint, env[expr])
    if expr.is_Integer:
        return arb(flint.fmpz(int(expr)))
    if expr.is_Rational:
        return arb(flint.fmpq(int(expr.p), int(expr.q)))
    if expr.is_Float:
        return _arb_exact_float(flint, expr)
    if expr is sp.pi:
        return arb.pi()
    if expr is sp.E:
        return arb.const_e()
    if expr.is_Symbol:
        raise _Undecided(f"no value for the symbol {expr}")
    if expr.is_Add:
        out = arb(0)
        for a in expr.args:
            out = out + _walk(flint, a, env, memo)
        return _finite(out)
    if expr.is_Mul:
        out = arb(1)
        for a in expr.args:
            out = out * _walk(flint, a, env, memo)
        return _finite(out)
    if expr.is_Pow:
        base, exp = expr.args
        if env and exp.free_symbols and exp.free_symbols <= set(env):
            exp = exp.xreplace(env)                  # an exponent valued exactly: R = 1
        if exp.is_Integer:
            b = _walk(flint, base, env, memo)
            e = int(exp)
            if e < 0 and b.contains(0):
                raise _Undecided("1/x of a ball that contains 0")
            return _finite(_integer_power(flint, b, e))
        b = _walk(flint, base, env, memo)
        if not b > 0:
            raise _Undecided("a real power of a ball not certainly positive")
        if exp.is_Rational and int(exp.p) == 1:
            return _finite(b.root(int(exp.q)))
        return _finite((_walk(flint, exp, env, memo) * b.log()).exp())
    if isinstance(expr, sp.Abs):
        return abs(_walk(flint, expr.args[0], env, memo))
    funcs = {sp.sin: "sin", sp.cos: "cos", sp.exp: "exp", sp.tan: "tan"}
    name = funcs.get(expr.func)
    if name is not None:
        x = _walk(flint, expr.args[0], env, memo)
        if name == "tan":
            c = x.cos()
            if c.contains(0):
                raise _Undecided("tan near a pole")
            return _finite(x.sin() / c)
        return _finite(getattr(x, name)())
    if isinstance(expr, sp.log) and len(expr.args) == 1:
        x = _walk(flint, expr.args[0], env, memo)
        if not x > 0:
            raise _Undecided("log of a ball not certainly positive")
        return _finite(x.log())
    if isinstance(expr, (sp.floor, sp.ceiling)):
        x = _walk(flint, expr.args[0], env, memo)
        lo, hi = x.lower(), x.upper()
        f = (lo.floor(), hi.floor()) if isinstance(expr, sp.floor) else (lo.ceil(), hi.ceil())
        if not (f[0] == f[1]):
            raise _Undecided(f"{expr.func.__name__} of a ball across an integer")
        return f[0]
    raise _Undecided(f"the auditor does not evaluate {expr.func.__name__}(…)")


def _integer_power(flint: Any, b: Any, e: int) -> Any:
    """b**e by repeated squaring: python-flint's ``arb ** int`` is NaN for a ball containing 0."""
    if e < 0:
        return 1 / _integer_power(flint, b, -e)
    if e > 1 << 20:
        raise _Undecided(f"a power with exponent {e}")
    base = abs(b) if e % 2 == 0 else b
    out = flint.arb(1)
    while e:
        if e & 1:
            out = out * base
        e >>= 1
        if e:
            base = base * base
    return out


def _finite(x: Any) -> Any:
    if not x.is_finite():
        raise _Undecided("an intermediate ball is not finite")
    return x


def _decimal_ball(flint: Any, text: str) -> Any:
    """A decimal string as a ball widened by one unit in its last digit: engines print
    their enclosures rounded to nearest, so the printed end may sit just inside the true one."""
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(str(text).strip())
    except InvalidOperation as exc:
        raise ValueError(text) from exc
    if not value.is_finite():
        raise ValueError(text)
    sign, digits, exponent = value.as_tuple()
    mid = flint.arb(flint.fmpz(int("".join(map(str, digits)) or "0")))
    unit = flint.arb(10) ** int(exponent)
    ball = mid * unit
    return (-ball if sign else ball) + flint.arb(0, 1) * unit


def _meets(flint: Any, ball: Any, lo: str | None, hi: str | None) -> bool:
    """Whether the engine's enclosure [lo, hi] meets the auditor's ball (True if unreadable)."""
    if lo is None or hi is None:
        return True
    try:
        a, b = _decimal_ball(flint, lo), _decimal_ball(flint, hi)
    except (ValueError, TypeError):
        return True
    return not (ball.upper() < a.lower() or ball.lower() > b.upper())


#: Normal forms of identity residuals already decided (the same residual recurs at each of
#: a proof's points): bounded, cleared when full.
_NORMAL_FORMS: dict[tuple[sp.Expr, tuple[str, ...], tuple[str, ...]], NormalForm | str] = {}
_NORMAL_FORMS_SIZE = 1 << 10


def _identity_normal_form(expr: sp.Expr, variables: list[sp.Symbol],
                          parameters: Iterable[sp.Symbol] = ()) -> NormalForm | str:
    """The normal form of an identity residual, or why none applies (cached)."""
    parameters = tuple(parameters)
    key = (expr, tuple(sorted(map(str, variables))), tuple(sorted(map(str, parameters))))
    found = _NORMAL_FORMS.get(key)
    if found is None:
        try:
            found = normal_form(expr, variables, parameters)
        except NotApplicable as exc:
            found = str(exc)
        except (ValueError, TypeError, ZeroDivisionError, RecursionError) as exc:
            found = f"{type(exc).__name__}: {exc}"
        if len(_NORMAL_FORMS) >= _NORMAL_FORMS_SIZE:
            _NORMAL_FORMS.clear()
        _NORMAL_FORMS[key] = found
    return found


def decide_identity(item: Sign, max_bits: int = AUDIT_BITS) -> tuple[str, str, dict[str, Any]]:
    """The auditor's decision about an identity residual (a ``zero`` item whose symbols are
    positions, given integer values): ``(status, why, info)``.

    The residual, as a function of every real value of its symbols (and, when that is not
    0, of its integer-valued symbols only, the others replaced by their exact values: an
    identity may hold at its parameters' values only), is rewritten as an exponential polynomial
    (:mod:`posproof.expoly`, exact rational arithmetic over a basis whose independence is a
    theorem).  A normal form 0 confirms the identity for every value (``info["coverage"]``
    ``"all"``); a non-zero normal form whose generators are certainly independent refutes
    it — also when the residual vanishes at every integer or at every point evaluated.
    Otherwise (no decision procedure applies) the residual is evaluated at the item's
    point with Arb balls and a confirmation covers that point only
    (``info["coverage"]`` ``"sample"``).  ``info["identity"]`` records the normal form
    (printed, its size, a sha256 prefix).

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> decide_identity(Sign("r", sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x), "zero",
    ...                      {x: 7}))[0]
    'confirmed'
    >>> status, why, info = decide_identity(Sign("r", 5 * sp.sin(sp.pi * x), "zero", {x: 7}))
    >>> status, info["identity"]["terms"]
    ('refuted', 2)
    """
    try:
        expr, env = item.exact_env()
    except (TypeError, ValueError, sp.SympifyError):
        status, why = decide(item, max_bits)              # says why, undecided
        return status, why, {"coverage": "all", "identity": None}
    if expr.free_symbols - set(env):
        nf: NormalForm | str = "a symbol without a value"
        variables: list[sp.Symbol] = []
    else:
        # every symbol a variable first (a normal form 0 then holds for every value of each);
        # else positions only (integer-valued symbols), the others given their exact values
        variables = sorted(expr.free_symbols, key=str)
        nf = _identity_normal_form(expr, variables)
        positions = [s for s in variables if env[s].is_Integer]
        if len(positions) < len(variables) and not (isinstance(nf, NormalForm) and nf.is_zero):
            bound = {s: v for s, v in env.items() if s not in positions}
            variables = positions
            nf = _identity_normal_form(expr.xreplace(bound), variables)
    info: dict[str, Any] = {"coverage": "all", "identity": None}
    names = ", ".join(sorted(map(str, variables))) or "no variable"
    if isinstance(nf, NormalForm):
        info["identity"] = {"item": item.label, **nf.record()}
        if nf.is_zero:
            return "confirmed", (f"{item.label}: identity decided for every real {names} "
                                 "(exponential-polynomial normal form 0)"), info
        if nf.certain:
            return "refuted", (f"{item.label}: not an identity in {names}: its exponential-"
                               f"polynomial normal form has {nf.size} non-zero terms: "
                               f"{nf.text(160)}"), info
        if variables:
            # a normal form that is not 0 is almost surely a false identity: never confirmed
            return "undecided", (f"{item.label}: its exponential-polynomial normal form has "
                                 f"{nf.size} terms, not certainly non-zero "
                                 f"({'; '.join(nf.uncertain)}): {nf.text(160)}"), info
        # a constant: its ball at ZERO_BITS, as for any exact zero the engine proved
        reason = "a normal form not certainly non-zero"
    else:
        reason = nf
    status, why = decide(item, max_bits)
    if status == "confirmed" and expr.free_symbols:
        info["coverage"] = "sample"
        info["reason"] = reason
        why = f"{why}; at this point only (no decision procedure: {reason})"
    return status, why, info


#: The formal frequencies of generic group identities (no assumptions: SymPy's automatic
#: rewriting with them holds for every value).
_PARAMETERS = tuple(sp.Symbol(f"audit_w{k}") for k in range(8))


def _linear(a: sp.Expr) -> bool:
    """A variable, or a sum of variables times numbers (what a frequency multiplies)."""
    def term(t: sp.Expr) -> bool:
        return t.is_Symbol or (t.is_Mul and all(u.is_Symbol or u.is_number for u in t.args))
    return term(a) or (a.is_Add and all(map(term, a.args)))


@lru_cache(maxsize=1 << 12)
def _monomial(c: sp.Expr) -> tuple[Any, tuple] | None:
    """A positive or negative real constant as q·B (q rational, B = Π p^r · π^m its basis
    monomial, :mod:`posproof.expoly`'s canonical form), or None: two constants with one B
    differ by the rational factor of their q's, whatever their printed forms."""
    try:
        nf = normal_form(c, [])
    except (NotApplicable, ValueError, TypeError, ZeroDivisionError, RecursionError):
        return None
    if len(nf.terms) != 1:
        return None
    ((gens, poly, rad, pi, i), q), = nf.terms.items()
    return None if gens or poly or i else (q, (rad, pi))


def _generic(group: GroupResidual) -> tuple[sp.Expr, list[sp.Symbol]]:
    """The group's residual with each of its hinted frequencies f replaced by a formal symbol
    w where it multiplies a variable: a product c·v (c a constant, decided exactly equal to
    q·f, q rational) becomes q·w·v.  Equal to the residual at w = f, whatever the hint was."""
    table: list[tuple[Any, tuple, sp.Symbol]] = []
    for f in group.frequencies[:len(_PARAMETERS)]:
        f = sp.sympify(f)
        if not (f.is_number and not f.free_symbols) or f == 0 or f == 1:
            continue
        m = _monomial(f)
        if m is None:
            m = (1, ("as written", f))            # matched only where written alike
        if all(m[1] != b for _, b, _ in table):
            table.append((m[0], m[1], _PARAMETERS[len(table)]))
    if not table:
        return group.expr, []
    memo: dict[sp.Expr, sp.Expr] = {}

    def walk(expr: sp.Expr) -> sp.Expr:
        if expr.is_Atom:
            return expr
        out = memo.get(expr)
        if out is not None:
            return out
        args = [walk(a) for a in expr.args]
        if expr.is_Mul and any(map(_linear, args)) and all(
                a.is_number or _linear(a) for a in args):
            numbers = [a for a in args if a.is_number]
            c = sp.Mul(*numbers) if numbers else None
            m = None if c is None else (_monomial(c) or (1, ("as written", c)))
            for r, b, w in table if m is not None else ():
                if m[1] == b:
                    args = [sp.Rational(m[0] / r), w, *[a for a in args if not a.is_number]]
                    break
        changed = any(a is not b for a, b in zip(args, expr.args, strict=False)) or \
            len(args) != len(expr.args)
        # rebuilt as it stands (no evaluation): groups of one shape give one tree
        out = memo[expr] = expr.func(*args, evaluate=False) if changed else expr
        return out
    return walk(group.expr), [w for _, _, w in table]


def decide_group(group: GroupResidual) -> tuple[str, str, str]:
    """The auditor's decision about one column group's residual: ``(status, why, how)``,
    ``how`` ``"generic"`` (its generic identity, with formal frequencies, has normal form 0:
    the residual is 0 for every value of its variables, at every frequency) or ``"direct"``
    (its own normal form decided it).  A residual neither decides is ``undecided``.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> f = sp.Integer(10000) ** sp.Rational(-37, 256)
    >>> decide_group(GroupResidual("g", sp.sin(2 * f * x) - 2 * sp.sin(f * x) * sp.cos(f * x),
    ...                            ("x",), (f,)))[::2]
    ('confirmed', 'generic')
    >>> decide_group(GroupResidual("g", sp.sin(f * x) * sp.sin(sp.pi * x), ("x",), (f,)))[0]
    'refuted'
    """
    status, why, how, _ = _decide_group(group)
    return status, why, how


def _abstract(data: Any, table: dict[sp.Expr, sp.Symbol], memo: dict[Any, Any]) -> Any:
    """``data`` (nested tuples of exact expressions and plain values) with every subtree
    written exactly as a key of ``table`` replaced by its formal symbol, rebuilt without
    SymPy's evaluation: equal to ``data`` at w = f, by construction.  ``memo`` holds what
    was abstracted with this very table (the same entries recur in a proof's theorems)."""
    if isinstance(data, tuple):
        return tuple(_abstract(d, table, memo) for d in data)
    if not isinstance(data, sp.Basic):
        return data
    found = table.get(data)
    if found is not None:
        return found
    if data.is_Atom:
        return data
    out = memo.get(data)
    if out is None:
        args = tuple(_abstract(a, table, memo) for a in data.args)
        changed = any(x is not y for x, y in zip(args, data.args, strict=True))
        out = memo[data] = data.func(*args, evaluate=False) if changed else data
    return out


#: The memo of :func:`_abstract` for each table of formal frequencies (bounded).
_ABSTRACTED: dict[tuple[tuple[sp.Expr, sp.Symbol], ...], dict[Any, Any]] = {}


@lru_cache(maxsize=1 << 14)
def _formal(f: sp.Expr) -> bool:
    """Whether a hinted frequency can stand for a formal symbol: an exact constant other
    than 0 and ±1 (those are everywhere in a residual)."""
    return bool(f.is_number and not f.free_symbols and f not in (0, 1, -1))


#: Generic residuals already built and decided, by (build, generic inputs, variables):
#: bounded, cleared when full.
_GENERIC: dict[tuple[Any, ...], tuple[str, sp.Expr]] = {}


def _decide_group(group: GroupResidual) -> tuple[str, str, str, Any]:
    # by name (as expoly reads them); a symbol that is neither a variable nor a formal
    # frequency makes the normal form not applicable
    variables = [sp.Symbol(v) for v in group.variables]
    if group.build is None:
        generic, params = _generic(group)
        key = generic
    else:
        table: dict[sp.Expr, sp.Symbol] = {}
        for f in group.frequencies[:len(_PARAMETERS)]:
            f = sp.sympify(f)
            if f not in table and _formal(f):
                table[f] = _PARAMETERS[len(table)]
        params = list(table.values())
        generic = None
        if params:
            tkey = tuple(table.items())
            memo = _ABSTRACTED.get(tkey)
            if memo is None:
                if len(_ABSTRACTED) >= 1 << 13:
                    _ABSTRACTED.clear()
                memo = _ABSTRACTED[tkey] = {}
            generic = _abstract(group.inputs, table, memo)
        key = (group.build, generic, group.variables)
    if params:
        found = _GENERIC.get(key) if group.build is not None else None
        if found is None:
            expr = generic if group.build is None else group.build(generic)
            nf = _identity_normal_form(expr, variables, params)
            found = ("zero" if isinstance(nf, NormalForm) and nf.is_zero else "open", expr)
            if group.build is not None:
                if len(_GENERIC) >= _NORMAL_FORMS_SIZE:
                    _GENERIC.clear()
                _GENERIC[key] = found
        if found[0] == "zero":
            return "confirmed", (f"{group.label}: its generic identity (frequencies "
                                 "formal) has normal form 0"), "generic", key
    expr = group.residual()
    nf = _identity_normal_form(expr, variables)
    names = ", ".join(group.variables) or "no variable"
    if isinstance(nf, str):
        return "undecided", f"{group.label}: no decision procedure applies ({nf})", "direct", None
    if nf.is_zero:
        return "confirmed", f"{group.label}: normal form 0 for every real {names}", "direct", None
    if nf.certain:
        return "refuted", (f"{group.label}: not an identity in {names}: its exponential-"
                           f"polynomial normal form has {nf.size} non-zero terms: "
                           f"{nf.text(160)}"), "direct", None
    return "undecided", (f"{group.label}: its normal form has {nf.size} terms, not certainly "
                         f"non-zero ({'; '.join(nf.uncertain)})"), "direct", None


def _audit_groups(groups: list[GroupResidual], points: list[dict[str, Any]],
                  max_bits: int = AUDIT_BITS, total: int | None = None
                  ) -> tuple[str, str | None, dict[str, Any]]:
    """Every group's residual decided: (``confirmed`` | ``refuted`` | ``undecided``, the
    first failure's reason, a summary).  A residual no decision procedure applies to is
    evaluated with balls at ``points`` (the items' exact points; else every variable 7),
    and the summary's ``sampled`` counts it: a confirmation there covers those points only.
    ``total``: how many groups the statement has when ``groups`` are a selection of them."""
    how = {"generic": 0, "direct": 0, "sampled": 0}
    shapes: set[Any] = set()
    first_sampled = None
    for group in groups:
        status, why, way, generic = _decide_group(group)
        if status == "undecided" and "no decision procedure applies" in why:
            expr = group.residual()
            for env in points or [{}]:
                env = {v: env.get(v, 7) for v in group.variables}
                status, why = decide(Sign(group.label, expr, "zero", env), max_bits)
                if status != "confirmed":
                    break
            way = "sampled"
            first_sampled = first_sampled or f"{group.label} ({why})"
        if status != "confirmed":
            return status, why, {"count": len(groups), "failed": group.label}
        how[way] += 1
        if generic is not None:
            shapes.add(generic)
    out = {"count": len(groups), "generic": how["generic"],
           "generic_identities": len(shapes), "direct": how["direct"]}
    if total is not None and total > len(groups):
        out["total"] = total
    if how["sampled"]:
        out["sampled"] = how["sampled"]
        out["sampled_reason"] = first_sampled
    return "confirmed", None, out


def _is_identity(item: Sign | Spot) -> bool:
    return isinstance(item, Sign) and item.relation == "zero"


def decide(item: Sign | Spot, max_bits: int = AUDIT_BITS) -> tuple[str, str]:
    """The auditor's answer about one item: (``confirmed`` | ``refuted`` | ``undecided``, why).

    Balls at the item's point only; :func:`decide_identity` decides an identity residual."""
    flint = _flint()
    try:
        expr, env = item.exact_env()
    except (TypeError, ValueError, sp.SympifyError) as exc:
        return "undecided", f"{item.label}: {exc}"
    if expr.free_symbols - set(env):
        return "undecided", (f"{item.label}: no value for "
                             f"{sorted(map(str, expr.free_symbols - set(env)))}")
    last = "no precision tried"
    prec = _START_BITS
    while prec <= max_bits:
        try:
            with flint.ctx.workprec(prec):
                ball = _walk(flint, expr, env, {})
                verdict = _judge(flint, item, ball)
        except _Undecided as exc:
            last = str(exc)
            verdict = None
        except (ValueError, ZeroDivisionError, OverflowError) as exc:
            last = f"{type(exc).__name__}: {exc}"
            verdict = None
        if verdict is not None:
            if verdict == "zero-consistent":
                # an exact zero (proved by the engine) is consistent with a ball around 0 at
                # every precision; it is confirmed only at ZERO_BITS, where a quantity
                # that is not 0 but within 10^-1200 of it would not be
                if prec >= min(ZERO_BITS, max_bits):
                    return "confirmed", f"{item.label}: contains 0 at {prec} bits"
                prec = max(prec * 2, min(ZERO_BITS, max_bits)) if prec >= 128 else prec * 2
                continue
            else:
                return verdict, f"{item.label}: {verdict} at {prec} bits"
        else:
            last = last if last != "no precision tried" else "the ball is too wide"
        prec *= 2
    return "undecided", f"{item.label}: not decided within {max_bits} bits ({last})"


def _judge(flint: Any, item: Sign | Spot, ball: Any) -> str | None:
    if isinstance(item, Spot):
        v, r = flint.arb(item.value), flint.arb(item.radius)
        lo, hi = v - r, v + r
        if ball.lower() >= lo.upper() and ball.upper() <= hi.lower():
            return "confirmed"
        if ball.upper() < lo.lower() or ball.lower() > hi.upper():
            return "refuted"
        return None
    if not _meets(flint, ball, item.lo, item.hi):
        return "refuted"
    rel = item.relation
    if rel == "positive":
        return "confirmed" if ball > 0 else ("refuted" if ball <= 0 else None)
    if rel == "negative":
        return "confirmed" if ball < 0 else ("refuted" if ball >= 0 else None)
    if rel == "nonzero":
        return "confirmed" if (ball > 0 or ball < 0) else None
    # zero: proved exactly by the engine; the auditor can only fail to see it
    return "refuted" if (ball > 0 or ball < 0) else "zero-consistent"


def audit(evidence: Evidence, max_bits: int = AUDIT_BITS) -> Audit:
    """Re-check every item of ``evidence``; stores and returns the :class:`Audit`."""
    try:
        name = engine_name()
        _flint()
    except ArbUnavailable as exc:  # pragma: no cover - a dependency of the package
        result = Audit("undecided", "python-flint (missing)", 0, str(exc))
        evidence.audit = result
        return result
    if not evidence.items and not evidence.groups:
        why = evidence.unaudited or "no numeric quantity to re-check"
        result = Audit("nothing to audit", name, 0, f"{evidence.method}: {why}")
        evidence.audit = result
        return result
    undecided = None
    identities: dict[int, dict[str, Any]] = {}
    sampled: list[str] = []
    for n, item in enumerate(evidence.items, 1):
        if _is_identity(item):
            status, why, info = decide_identity(item, max_bits)
            if info["identity"] is not None:
                # one record per residual (the same residual recurs at each point)
                identities.setdefault(hash((item.expr, info["identity"]["sha256"])),
                                      info["identity"])
            if status == "confirmed" and info["coverage"] == "sample":
                sampled.append(f"{item.label} ({info['reason']})")
        else:
            status, why = decide(item, max_bits)
        if status == "refuted":
            result = Audit("refuted", name, n, why, identities=list(identities.values()))
            evidence.audit = result
            return result
        if status == "undecided" and undecided is None:
            undecided = why
    records = list(identities.values())
    groups = None
    if evidence.groups:
        points = [{str(k): v for k, v in item.env.items()} for item in evidence.items
                  if _is_identity(item) and item.env][:3]
        status, why, groups = _audit_groups(evidence.groups, points, max_bits,
                                            evidence.groups_total)
        if status == "refuted":
            result = Audit("refuted", name, len(evidence.items), why, identities=records,
                           groups=groups)
            evidence.audit = result
            return result
        if status == "undecided" and undecided is None:
            undecided = why
    if undecided:
        result = Audit("undecided", name, len(evidence.items), undecided, identities=records,
                       groups=groups)
    elif sampled or (groups and (groups.get("sampled") or groups.get("total"))):
        parts = []
        if sampled:
            parts.append(f"{len(sampled)} identity residual(s) checked at their exact points "
                         f"only, no decision procedure applies: {sampled[0]}")
        if groups and groups.get("sampled"):
            parts.append(f"{groups['sampled']} of {groups['count']} column group residual(s) "
                         "checked at the items' exact points only, no decision procedure "
                         f"applies: {groups['sampled_reason']}")
        if groups and groups.get("total"):
            parts.append(f"the residuals of {groups['count']} of {groups['total']} column "
                         "groups decided (evenly spread: the cap on audited groups)")
        result = Audit("confirmed", name, len(evidence.items), "; ".join(parts),
                       coverage="sample", identities=records, groups=groups)
    else:
        result = Audit("confirmed", name, len(evidence.items), identities=records,
                       groups=groups)
    evidence.audit = result
    return result


_DOWNGRADE = {"proved": "unknown", "refuted": "unknown", "pass": "unknown",
              "fail": "unknown"}


def apply(verdict: Any, max_bits: int = AUDIT_BITS) -> Any:
    """Audit a verdict (a Proof, a Check, anything with ``status``, ``evidence``, ``note``).

    A verdict whose evidence the auditor refutes or cannot decide becomes ``unknown`` with
    the auditor's reason in its note; a verdict without evidence, or already unknown,
    is left as it is.  Returns the verdict.
    """
    evidence = getattr(verdict, "evidence", None)
    if evidence is None:
        return verdict
    result = evidence.audit if evidence.audit is not None else audit(evidence, max_bits)
    status = getattr(verdict, "status", None)
    if not result.agrees and status in _DOWNGRADE:
        verdict.status = _DOWNGRADE[status]
        verb = ("disagrees with" if result.status == "refuted" else "could not confirm")
        why = (f"unknown: the independent audit ({result.engine}) {verb} the evidence "
               f"for '{status}': {result.detail}")
        old = getattr(verdict, "note", None)
        verdict.note = why if not old else f"{why}; {old}"
    elif result.agrees and result.coverage == "sample" and status in ("proved", "pass"):
        why = (f"audited on a sample: the independent audit ({result.engine}) {result.detail}")
        old = getattr(verdict, "note", None)
        verdict.note = why if not old else f"{old}; {why}"
    return verdict


def apply_all(verdicts: Iterable[Any], max_bits: int = AUDIT_BITS) -> None:
    """:func:`apply` to each verdict."""
    for v in verdicts:
        apply(v, max_bits)


def audit_report(report: Any, max_bits: int = AUDIT_BITS) -> Any:
    """Audit every theorem and check of a :class:`~posproof.report.Report`; returns it."""
    apply_all([*report.theorems, *report.checks], max_bits)
    return report
