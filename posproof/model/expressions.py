"""Turn user-typed frequency expressions into exact SymPy objects, without running code.

Users describe a positional-encoding frequency as text, such as ``b**(-2*k/d)``
or ``exp(-k*log(10000)/(n-1))``.  :func:`parse_expression` never evaluates that
text as Python: it parses it with :func:`ast.parse` and converts a short
whitelist of node types to SymPy by hand.  Decimal literals become exact
rationals (``0.1`` is ``1/10``) and ``^`` means power, with the precedence of ``**``.

SymPy evaluates as it builds, so every step is checked first: powers whose exact
value, root or polynomial degree would be too large (``9**9**9**9``,
``exp(exp(exp(100)))``, ``k**101``) and values SymPy sees as complex
(``sqrt(-1)``) are refused at once instead of hanging later.

>>> import sympy
>>> k = sympy.Symbol("k")
>>> parse_expression("2*pi/2^k + 0.1", {"k": k})
1/10 + 2*pi/2**k
"""

from __future__ import annotations

import ast
import math
import warnings
from collections.abc import Mapping

import sympy
from sympy import S

from posproof.errors import InvalidExpression

__all__ = ["parse_expression", "size_bits"]

MAX_LENGTH = 500  # characters of input text
MAX_DEPTH = 60  # levels of brackets, and levels of the syntax tree
MAX_DIGITS = 30  # digits in one integer literal
MAX_EXPONENT = 1000  # largest |n| in x**n for a rational n and a number x other than 0, +-1
MAX_DEGREE = 100  # the same for x with symbols (sign checks find roots of such polynomials)
MAX_BITS = 4096  # largest size (see size_bits) of a power or of any subexpression
MAX_ROOT_BITS = 1024  # radicand size times root degree: SymPy factors radicands

_FUNCTIONS = ("exp", "log", "ln", "sqrt")
_CONSTANTS: dict[str, sympy.Expr] = {"pi": S.Pi, "E": S.Exp1, "e": S.Exp1}
_BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_NOUNS = {
    ast.Attribute: "an attribute access", ast.Subscript: "a subscript", ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension", ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension", ast.GeneratorExp: "a comprehension",
    ast.Compare: "a comparison", ast.BoolOp: "a boolean operator",
    ast.IfExp: "a conditional expression", ast.Starred: "a starred expression",
    ast.JoinedStr: "an f-string", ast.NamedExpr: "an assignment expression",
    ast.Tuple: "a tuple", ast.List: "a list", ast.Set: "a set", ast.Dict: "a dict",
}
_OPERATORS = {ast.Mod: "%", ast.FloorDiv: "//", ast.MatMult: "@", ast.LShift: "<<",
              ast.RShift: ">>", ast.BitOr: "|", ast.BitAnd: "&", ast.Not: "not", ast.Invert: "~"}
# ``^`` is rewritten to ``**`` in the text, not mapped from ast.BitXor: Python's ``^``
# binds looser than ``+`` and ``*``, so ``2*pi/2^k`` would parse as ``(2*pi/2)^k``.
_INFINITIES = (S.ComplexInfinity, S.NaN, S.Infinity, S.NegativeInfinity)


def _quote(text: str, limit: int = 60) -> str:
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return f"'{text}'" if text.isprintable() else repr(text)


def size_bits(expr: sympy.Basic) -> float:
    """Rough size in bits of the numbers ``expr`` makes, counting symbols as about 1.

    Exact for rationals (log2 of numerator plus denominator); sums add one bit,
    products add sizes, and a power multiplies its base's size by the magnitude
    of its exponent, so towers such as ``2**2**2**2**2`` grow quickly.
    """
    if isinstance(expr, sympy.Rational):
        return math.log2(abs(expr.p)) + math.log2(expr.q) if expr.p else 0.0
    if isinstance(expr, (sympy.Pow, sympy.exp)):
        base, exponent = expr.as_base_exp()
        return _magnitude(exponent) * max(size_bits(base), 1.0)
    if isinstance(expr, sympy.log):
        return math.log2(size_bits(expr.args[0]) + 2.0) + 1.0
    if not expr.args:
        return 0.0 if expr.is_Symbol else 2.0
    sizes = [size_bits(arg) for arg in expr.args]
    if isinstance(expr, sympy.Mul):
        return math.fsum(sizes)
    return max(sizes) + math.log2(len(sizes))


def _magnitude(expr: sympy.Basic) -> float:
    """Rough upper bound on ``abs(expr)``, exact for rationals; ``inf`` when enormous."""
    if isinstance(expr, sympy.Rational):
        log2 = math.log2(abs(expr.p)) - math.log2(expr.q) if expr.p else -math.inf
    else:
        log2 = size_bits(expr)
    return 2.0**log2 if log2 < 1000 else math.inf


def _is_non_real(expr: sympy.Expr) -> bool:
    """True when SymPy can tell at once that a part of ``expr`` is complex."""
    return (expr.has(S.ImaginaryUnit)
            or any(power.base.is_extended_negative and not power.exp.is_integer
                   for power in expr.atoms(sympy.Pow))
            or any(logarithm.args[0].is_extended_negative for logarithm in expr.atoms(sympy.log)))


class _Converter:
    """Walks one parsed expression; knows the source text for error messages."""

    def __init__(self, text: str, symbols: Mapping[str, sympy.Basic], what: str,
                 functions: Mapping[str, type[sympy.Function]]) -> None:
        self.source, self.what, self.shown = text.replace("^", "**"), what, _quote(text)
        self.names = {**_CONSTANTS, **symbols}
        self.functions = dict(functions)
        listed = ", ".join(dict.fromkeys([*symbols, "pi", "E"]))
        self.allowed = (f"+ - * / ** ^, numbers, the names {listed} "
                        f"and the functions {', '.join([*_FUNCTIONS, *self.functions])}")

    def error(self, problem: str) -> InvalidExpression:
        return InvalidExpression(f"{self.what} {self.shown} {problem}")

    def piece(self, node: ast.AST) -> str:
        return _quote(ast.get_source_segment(self.source, node) or ast.unparse(node), 40)

    def refuse(self, noun: str, piece: str) -> InvalidExpression:
        return self.error(f"uses {noun} {piece}, which is not allowed; allowed: {self.allowed}")

    def convert(self, node: ast.AST, depth: int = 0) -> sympy.Expr:
        if depth > MAX_DEPTH:
            raise self.error(f"is nested more than {MAX_DEPTH} levels deep; simplify it")
        if isinstance(node, ast.Expression):
            return self.convert(node.body, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _BINARY):
            left = self.convert(node.left, depth + 1)
            right = self.convert(node.right, depth + 1)
            return self.checked(self.binary(node, left, right), node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.convert(node.operand, depth + 1)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.Constant):
            return self.checked(self.constant(node), node)
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise self.refuse("an unknown name", _quote(node.id))
            return self.names[node.id]
        if isinstance(node, ast.Call):
            return self.checked(self.call(node, depth), node)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            raise self.refuse(f"the operator '{_OPERATORS[type(node.op)]}' in", self.piece(node))
        raise self.refuse(_NOUNS.get(type(node), "the construct"), self.piece(node))

    def constant(self, node: ast.Constant) -> sympy.Expr:
        value = node.value
        if type(value) is int:
            if len(str(value)) > MAX_DIGITS:
                raise self.error(f"has an integer literal longer than {MAX_DIGITS} digits")
            return sympy.Integer(value)
        if type(value) is float:
            if not math.isfinite(value):
                raise self.error(f"has a number {self.piece(node)} too large to be finite")
            literal = (ast.get_source_segment(self.source, node) or "").lower()
            if value == 0 and any(c in "123456789" for c in literal.split("e")[0]):
                raise self.error(f"has a number {self.piece(node)} too small to be told "
                                 "from 0 in floating point; write it as a power, e.g. 10**-999")
            return sympy.Rational(str(value))
        raise self.refuse("the constant", self.piece(node))

    def call(self, node: ast.Call, depth: int) -> sympy.Expr:
        func = node.func
        allowed = isinstance(func, ast.Name) and (func.id in _FUNCTIONS
                                                  or func.id in self.functions)
        if not allowed:
            raise self.refuse("a function call", self.piece(func))
        if node.keywords or len(node.args) != 1:
            raise self.error(f"calls {func.id} as {self.piece(node)}; "
                             f"{func.id} takes exactly one argument and no keywords")
        arg = self.convert(node.args[0], depth + 1)
        if func.id in self.functions:  # bounded functions such as sin and cos
            return self.functions[func.id](arg)
        if func.id == "exp":
            self.check_power(S.Exp1, arg, node)
            return sympy.exp(arg)
        if func.id == "sqrt":
            self.check_power(arg, S.Half, node)
            return sympy.sqrt(arg)
        return sympy.log(arg)

    def binary(self, node: ast.BinOp, left: sympy.Expr, right: sympy.Expr) -> sympy.Expr:
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise self.error(f"divides by zero in {self.piece(node)}")
            return left / right
        self.check_power(left, right, node)
        return left**right

    def check_power(self, base: sympy.Expr, exponent: sympy.Expr, node: ast.AST) -> None:
        """Refuse ``base**exponent`` before SymPy builds (or later evaluates) something huge.

        Besides the power itself, SymPy's ``exp`` rewrites every ``c*log(x)``
        inside its argument (through ``logcombine``) as ``log(x**c)``, and
        ``b**(c*log(x)/log(b))`` as ``x**c``; those are checked as powers too.
        """
        if base in (S.Zero, S.One, S.NegativeOne):
            return
        size = size_bits(base)
        limit = MAX_DEGREE if base.free_symbols else MAX_EXPONENT
        if exponent.is_Rational and abs(exponent) > limit:
            raise self.error(f"raises to a power beyond {limit} in {self.piece(node)}; "
                             "exact results could be huge or slow")
        if exponent.is_Rational and not exponent.is_Integer and size * exponent.q > MAX_ROOT_BITS:
            raise self.error(f"takes a root too large to handle exactly in {self.piece(node)} "
                             f"(radicand bits times root degree is over {MAX_ROOT_BITS})")
        if _magnitude(exponent) * max(size, 1.0) > MAX_BITS:
            raise self.error(f"computes a power too large to handle in {self.piece(node)} "
                             f"(more than {MAX_BITS} bits)")
        for product in exponent.atoms(sympy.Mul) if exponent.has(sympy.log) else ():
            coeff, rest = product.as_coeff_Mul()
            for factor in sympy.Mul.make_args(rest):
                if isinstance(factor, sympy.log):
                    self.check_power(factor.args[0], coeff, node)

    def checked(self, expr: sympy.Expr, node: ast.AST) -> sympy.Expr:
        """Refuse infinities, complex values and oversized numbers in a new subexpression.

        SymPy merges factors on its own (``sqrt(a)*sqrt(b)`` is ``sqrt(a*b)``,
        ``k**60*k**60`` is ``k**120``), so the powers of the result are
        checked again.  Complex values are refused because SymPy's splitting of
        nested complex powers into real and imaginary parts can take forever.
        """
        if expr.has(*_INFINITIES):
            raise self.error(f"is infinite or undefined at {self.piece(node)}")
        if size_bits(expr) > MAX_BITS:
            raise self.error(f"holds numbers over {MAX_BITS} bits at {self.piece(node)}")
        for power in expr.atoms(sympy.Pow):
            self.check_power(power.base, power.exp, node)
        if _is_non_real(expr):
            raise self.error(f"is not real at {self.piece(node)} (SymPy takes principal "
                             "roots and logarithms); only real values are accepted")
        return expr


def parse_expression(text: str, symbols: Mapping[str, sympy.Basic], *,
                     what: str = "expression",
                     functions: Mapping[str, type[sympy.Function]] | None = None) -> sympy.Expr:
    """Parse ``text`` into an exact SymPy expression over ``symbols``, refusing anything else.

    Allowed: ``+ - * / **`` (``^`` is also power), unary ``-``/``+``, integer and
    decimal literals (made exact rationals), the keys of ``symbols``, the
    constants ``pi`` and ``E``/``e``, and one-argument calls of ``exp``, ``log``,
    ``ln`` and ``sqrt`` (plus the one-argument SymPy functions given in
    ``functions``, e.g. ``{"sin": sympy.sin}``).  Every other input raises
    :class:`~posproof.errors.InvalidExpression` naming the problem, with
    ``what`` as the noun.

    >>> import sympy
    >>> k, d, b = sympy.symbols("k d b", positive=True)
    >>> parse_expression("b**(-2*k/d)", {"k": k, "d": d, "b": b})
    b**(-2*k/d)
    >>> parse_expression("ln(0.5)", {"k": k})
    -log(2)
    >>> parse_expression("__import__('os').system('true')", {"k": k})
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidExpression: expression '__import__('os').system('true')' uses a function call '__import__('os').system', which is not allowed; allowed: + - * / ** ^, numbers, the names k, pi, E and the functions exp, log, ln, sqrt
    >>> parse_expression("10**10**10", {"k": k}, what="frequency expression")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidExpression: frequency expression '10**10**10' raises to a power beyond 1000 in '10**10**10'; exact results could be huge or slow
    """  # noqa: E501
    if not isinstance(text, str):
        raise InvalidExpression(f"{what} must be a string, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise InvalidExpression(
            f"{what} is {len(text)} characters long; at most {MAX_LENGTH} are accepted")
    converter = _Converter(text.strip(), symbols, what, functions or {})
    source = converter.source
    if not source:
        raise InvalidExpression(f"{what} is empty; type a formula using {converter.allowed}")
    depth = 0
    for char in source:
        depth += (char in "([{") - (char in ")]}")
        if depth > MAX_DEPTH:
            raise converter.error(f"nests brackets more than {MAX_DEPTH} levels deep")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. bad escapes in strings, refused anyway
            tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise converter.error(f"is not a valid formula ({exc.msg}); "
                              f"allowed: {converter.allowed}") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise converter.error(f"cannot be parsed ({type(exc).__name__}: {exc})") from None
    try:
        expr = converter.convert(tree)
    except ArithmeticError as exc:  # e.g. evalf's PrecisionExhausted deep inside SymPy
        raise converter.error(f"cannot be built exactly ({type(exc).__name__})") from None
    allowed = set().union(*(value.free_symbols for value in symbols.values()))
    if not expr.free_symbols <= allowed:
        raise converter.error(f"uses symbols outside {sorted(map(str, allowed))}")
    return expr
