"""Turn user-typed frequency expressions into exact SymPy objects, without running code.

Users describe a positional-encoding frequency as text, such as ``b**(-2*k/d)``
or ``exp(-k*log(10000)/(n-1))``.  :func:`parse_expression` never evaluates that
text as Python: it parses it with :func:`ast.parse` and converts a short
whitelist of node types to SymPy by hand.  Decimal literals become exact
rationals (``0.1`` is ``1/10``), ``^`` means power, and sizes are bounded, so
inputs such as ``9**9**9**9`` are refused at once instead of hanging.

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

__all__ = ["parse_expression"]

MAX_LENGTH = 500  # characters of input text
MAX_DEPTH = 60  # levels of brackets, and levels of the syntax tree
MAX_DIGITS = 30  # digits in one integer literal
MAX_EXPONENT = 1000  # largest |n| in x**n for a rational n (unless x is 0, 1 or -1)
MAX_BITS = 4096  # largest number, in bits, that a power may produce or an expression hold
MAX_ROOT_BITS = 256  # largest radicand, in bits, of a fractional power (roots factor it)

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


def _bits(number: sympy.Rational) -> float:
    """Size of a rational in bits: log2 of its numerator plus that of its denominator."""
    return math.log2(abs(number.p)) + math.log2(number.q) if number.p else 0.0


def _max_bits(expr: sympy.Expr) -> float:
    return max((_bits(r) for r in expr.atoms(sympy.Rational)), default=0.0)


class _Converter:
    """Walks one parsed expression; knows the source text for error messages."""

    def __init__(self, text: str, symbols: Mapping[str, sympy.Basic], what: str) -> None:
        self.source, self.what, self.shown = text.replace("^", "**"), what, _quote(text)
        self.names = {**_CONSTANTS, **symbols}
        listed = ", ".join(dict.fromkeys([*symbols, "pi", "E"]))
        self.allowed = (f"+ - * / ** ^, numbers, the names {listed} "
                        f"and the functions {', '.join(_FUNCTIONS)}")

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
            return sympy.Rational(str(value))
        raise self.refuse("the constant", self.piece(node))

    def call(self, node: ast.Call, depth: int) -> sympy.Expr:
        func = node.func
        if not isinstance(func, ast.Name) or func.id not in _FUNCTIONS:
            raise self.refuse("a function call", self.piece(func))
        if node.keywords or len(node.args) != 1:
            raise self.error(f"calls {func.id} as {self.piece(node)}; "
                             f"{func.id} takes exactly one argument and no keywords")
        arg = self.convert(node.args[0], depth + 1)
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
        """Refuse ``base**exponent`` before SymPy computes a huge exact number.

        SymPy also rewrites ``exp(c*log(x))`` and ``b**(c*log(x)/log(b))`` to
        ``x**c``, so each log inside such an exponent counts as a base.
        """
        if exponent.is_Rational:
            self.check_growth(base, exponent, node)
        if base is S.Exp1 or exponent.has(sympy.log):
            for term in sympy.Add.make_args(exponent):
                coeff, rest = term.as_coeff_Mul()
                for logarithm in rest.atoms(sympy.log):
                    self.check_growth(logarithm.args[0], coeff, node)

    def check_growth(self, base: sympy.Expr, exponent: sympy.Rational, node: ast.AST) -> None:
        if base in (S.Zero, S.One, S.NegativeOne):
            return
        size = abs(exponent)
        if size > MAX_EXPONENT:
            raise self.error(f"raises to a power beyond {MAX_EXPONENT} in {self.piece(node)}; "
                             "exact results could be huge")
        bits = _max_bits(base)
        if float(size) * bits > MAX_BITS or (not exponent.is_Integer and bits > MAX_ROOT_BITS):
            raise self.error(f"computes a power too large to handle exactly in "
                             f"{self.piece(node)} (about {float(size) * bits:.0f} bits)")

    def checked(self, expr: sympy.Expr, node: ast.AST) -> sympy.Expr:
        """Refuse infinities and oversized numbers in a freshly built subexpression.

        Keeping every radicand small matters because SymPy merges roots
        (``sqrt(a)*sqrt(b)`` becomes ``sqrt(a*b)``) and factors the merged radicand.
        """
        if expr.has(*_INFINITIES):
            raise self.error(f"is infinite or undefined at {self.piece(node)}")
        if _max_bits(expr) > MAX_BITS:
            raise self.error(f"holds a number over {MAX_BITS} bits at {self.piece(node)}")
        for power in expr.atoms(sympy.Pow):
            if (power.exp.is_Rational and not power.exp.is_Integer
                    and _max_bits(power.base) > MAX_ROOT_BITS):
                raise self.error(f"takes a root of a number over {MAX_ROOT_BITS} bits "
                                 f"at {self.piece(node)}")
        return expr


def parse_expression(text: str, symbols: Mapping[str, sympy.Basic], *,
                     what: str = "expression") -> sympy.Expr:
    """Parse ``text`` into an exact SymPy expression over ``symbols``, refusing anything else.

    Allowed: ``+ - * / **`` (``^`` is also power), unary ``-``/``+``, integer and
    decimal literals (made exact rationals), the keys of ``symbols``, the
    constants ``pi`` and ``E``/``e``, and one-argument calls of ``exp``, ``log``,
    ``ln`` and ``sqrt``.  Every other input raises
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
    posproof.errors.InvalidExpression: frequency expression '10**10**10' raises to a power beyond 1000 in '10**10**10'; exact results could be huge
    """  # noqa: E501
    if not isinstance(text, str):
        raise InvalidExpression(f"{what} must be a string, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise InvalidExpression(
            f"{what} is {len(text)} characters long; at most {MAX_LENGTH} are accepted")
    converter = _Converter(text.strip(), symbols, what)
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
    expr = converter.convert(tree)
    allowed = set().union(*(value.free_symbols for value in symbols.values()))
    if not expr.free_symbols <= allowed:
        raise converter.error(f"uses symbols outside {sorted(map(str, allowed))}")
    return expr
