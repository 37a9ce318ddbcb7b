"""Tests for posproof.model.expressions.parse_expression: exact parses and safe refusals."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from posproof.errors import InvalidExpression, PosproofError
from posproof.model.expressions import parse_expression

k, d, n, b = sympy.symbols("k d n b", positive=True)
SYMBOLS = {"k": k, "d": d, "n": n, "b": b}
ALLOWED_SYMBOLS = {k, d, n, b}
PWNED = "/tmp/pwned_posproof_test"


def parse(text: object) -> sympy.Expr:
    return parse_expression(text, SYMBOLS, what="frequency expression")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("b**(-2*k/d)", b ** (-2 * k / d)),
        ("exp(-k*log(10000)/(n-1))", sympy.exp(-k * sympy.log(10000) / (n - 1))),
        ("pi/2**(k+1)", sympy.pi / 2 ** (k + 1)),
        ("1/(10000**(2*k/d))", 1 / sympy.Integer(10000) ** (2 * k / d)),
        ("2*pi/2^k", 2 * sympy.pi / 2**k),
        ("2^3^2", sympy.Integer(512)),
        ("-2^2", sympy.Integer(-4)),
        ("k^-1", 1 / k),
        ("0.1", sympy.Rational(1, 10)),
        ("0.1*k + 2.5e3", sympy.Rational(1, 10) * k + 2500),
        ("1e-5", sympy.Rational(1, 100000)),
        ("ln(k)", sympy.log(k)),
        ("ln(b) - log(b)", sympy.Integer(0)),
        ("sqrt(d)", sympy.sqrt(d)),
        ("e + E", 2 * sympy.E),
        ("+k - -d", k + d),
        ("  (k\n + 1)  ", k + 1),
        ("10000**(2/64)", sympy.Integer(10) ** sympy.Rational(1, 8)),
        ("123456789012345678901234567890", sympy.Integer(123456789012345678901234567890)),
    ],
)
def test_parses_exactly(text: str, expected: sympy.Expr) -> None:
    result = parse(text)
    assert result == expected
    assert isinstance(result, sympy.Expr)
    assert not result.has(sympy.Float)


@pytest.mark.parametrize(
    "text",
    [
        "1/10000**(2*k/d)",
        "exp(-(2*k/d)*ln(10000))",
        "exp(-4*k*log(10000)/(n*d))",
        "2*pi/(d/2)^(k/(d/2))",
        "1/(10000*(d/128)^(d/(d-2)))^(2*k/d)",
        "exp(-2*k/d*log(b*(1+0.5)^(d/(d-2))))",
        "(1/10000)^(2*k/d)*(1 - 0.25*k/d)",
        "sqrt(2**255+1)",
        "sqrt(2**255+1)*sqrt(2**255+3)",
        "10000**(2/64)",
        "(1/3)**1000",
    ],
)
def test_accepts_realistic_formulas(text: str) -> None:
    result = parse(text)
    assert result.free_symbols <= ALLOWED_SYMBOLS


def test_caret_binds_like_power_not_like_python_xor() -> None:
    # Python's ^ binds looser than * and /, which would make this (2*pi/2)**k.
    assert parse("2*pi/2^k") == parse("2*pi/2**k") == 2 * sympy.pi / 2**k
    assert parse("1/10000^(2*k/d)") == parse("1/10000**(2*k/d)")


def test_realness_follows_the_symbols_assumptions() -> None:
    j = sympy.Symbol("j", integer=True)
    assert parse_expression("(-1)**j", {"j": j}) == (-1) ** j
    with pytest.raises(InvalidExpression, match="is not real"):
        parse("(-1)**k")  # k is only known to be positive


def test_symbols_may_shadow_constants() -> None:
    e = sympy.Symbol("e")
    assert parse_expression("e + E", {"e": e}) == e + sympy.E


def test_invalid_expression_is_a_value_error() -> None:
    assert issubclass(InvalidExpression, ValueError)
    assert issubclass(InvalidExpression, PosproofError)
    with pytest.raises(ValueError):
        parse("x")


def test_code_injection_is_not_executed() -> None:
    if os.path.exists(PWNED):
        os.remove(PWNED)
    payload = f"__import__('os').system('touch {PWNED}')"
    with pytest.raises(InvalidExpression, match=r"function call '__import__\('os'\)\.system'"):
        parse(payload)
    assert not os.path.exists(PWNED)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("().__class__.__bases__[0].__subclasses__()", r"function call '\(\)\.__class__"),
        ("lambda: 1", r"uses a lambda 'lambda: 1'"),
        ("k.real", r"uses an attribute access 'k\.real'"),
        ("open('x')", r"uses a function call 'open'"),
        ("[k for k in 1]", r"uses a comprehension"),
        ("x", r"uses an unknown name 'x'"),
        ("__builtins__", r"uses an unknown name '__builtins__'"),
        ("k % 2", r"uses the operator '%'"),
        ("k < d", r"uses a comparison"),
        ("k and d", r"uses a boolean operator"),
        ("k if d else n", r"uses a conditional expression"),
        ("(y := 3)", r"uses an assignment expression"),
        ("f'{k}'", r"uses an f-string"),
        ("'k'", r"uses the constant"),
        ("True", r"uses the constant 'True'"),
        ("1j", r"uses the constant '1j'"),
        ("exp(k, d)", r"exp takes exactly one argument"),
        ("log(k, base=2)", r"log takes exactly one argument"),
        ("exp", r"unknown name 'exp'"),
    ],
)
def test_refuses_disallowed_syntax(text: str, pattern: str) -> None:
    with pytest.raises(InvalidExpression, match=pattern) as info:
        parse(text)
    message = str(info.value)
    assert message.startswith("frequency expression ")
    if "not allowed" in message:
        assert message.endswith(
            "allowed: + - * / ** ^, numbers, the names k, d, n, b, pi, E "
            "and the functions exp, log, ln, sqrt")


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("10**10**10", r"power beyond 1000 in '10\*\*10\*\*10'"),
        ("9**9**9**9", r"power beyond 1000 in '9\*\*9\*\*9'"),
        ("2**100000", r"power beyond 1000 in '2\*\*100000'"),
        ("10^10^10", r"power beyond 1000"),
        ("2**2**2**2**2", r"power beyond 1000"),
        ("exp(exp(exp(100)))", r"power too large"),
        ("E**(E**(E**20))", r"power too large"),
    ],
)
def test_refuses_exponent_towers_at_once(text: str, pattern: str, limit: Any) -> None:
    start = time.perf_counter()
    with limit(5), pytest.raises(InvalidExpression, match=pattern):
        parse(text)
    assert time.perf_counter() - start < 0.1


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("(k+1)**(10**29)", r"power beyond 100 "),
        ("k**101", r"power beyond 100 "),
        ("k**60*k**60", r"power beyond 100 in 'k\*\*60\*k\*\*60'"),  # merged by SymPy
        ("exp(2000)", r"power beyond 1000"),
        ("exp(10**29*log(2))", r"power too large"),
        ("E**(10**29*log(2))", r"power too large"),
        ("2**(10**29*log(3)/log(2))", r"power too large"),
        ("exp(1000*log(2**5))", r"power too large"),
        ("3**1000*3**1000*3**1000*3**1000*3**1000", r"numbers over 4096 bits"),
        ("sqrt(2**4000+1)", r"power beyond 1000"),
        ("(2**900)**(1/3)", r"root too large"),
        ("123456789012345678901234567890**0.999", r"root too large"),
        ("sqrt(2**511+1)*sqrt(2**511+3)", r"root too large"),  # merged into one sqrt
        ("1234567890123456789012345678901", r"longer than 30 digits"),
        ("1e999", r"too large to be finite"),
        # Inputs SymPy itself would turn into (nearly) endless exact work:
        ("(1/3)**(1/10**29)", r"root too large"),  # builds 3**(10**29 - 1)
        ("999**(b + 2**255/10)", r"power too large"),  # splits off 999**(2**255/10)
        ("exp(-sqrt(log(100000*log(n))))", r"power beyond 100 "),  # logcombine: n**100000
        ("(-sqrt(1000))**((-(E+1))**sqrt(2**255-2))", r"power too large"),  # evalf tower
        ("sqrt(((1)/(0.5))**((3/0.1)+exp(999)))", r"power too large"),  # PrecisionExhausted
    ],
)
def test_refuses_huge_numbers_quickly(text: str, pattern: str, limit: Any) -> None:
    start = time.perf_counter()
    with limit(5), pytest.raises(InvalidExpression, match=pattern):
        parse(text)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize(
    "text",
    [
        "sqrt(-1)",
        "log(-k)",
        "(-8)**(1/3)",  # principal root, complex in SymPy
        "(-2)**k",
        "(-k)**(1/3)",
        # SymPy's real/imaginary splitting of this never finishes:
        "1**((3*((-7)**(0.1)+pi**10))**(-(d**(1/1000))))",
    ],
)
def test_refuses_non_real_values(text: str, limit: Any) -> None:
    start = time.perf_counter()
    with limit(5), pytest.raises(InvalidExpression, match=r"is not real at .*only real values"):
        parse(text)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("1/0", r"divides by zero in '1/0'"),
        ("k/(n-n)", r"divides by zero in 'k/\(n-n\)'"),
        ("k/0.0", r"divides by zero"),
        ("0**-1", r"infinite or undefined at '0\*\*-1'"),
        ("(0**-1)**0", r"infinite or undefined"),
        ("log(0)", r"infinite or undefined"),
    ],
)
def test_refuses_division_by_zero_and_infinities(text: str, pattern: str) -> None:
    with pytest.raises(InvalidExpression, match=pattern):
        parse(text)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("", r"frequency expression is empty"),
        ("   \n ", r"frequency expression is empty"),
        ("k" * 10000, r"is 10000 characters long; at most 500"),
        ("(" * 200 + "k" + ")" * 200, r"nests brackets more than 60 levels"),
        ("-" * 100 + "k", r"nested more than 60 levels"),
        ("+".join(["k"] * 100), r"nested more than 60 levels"),
        ("k +", r"is not a valid formula \(invalid syntax\)"),
        ("k\n+1", r"is not a valid formula"),
        ("k\x00", r"cannot contain null bytes"),
    ],
)
def test_refuses_malformed_text(text: str, pattern: str, limit: Any) -> None:
    start = time.perf_counter()
    with limit(5), pytest.raises(InvalidExpression, match=pattern):
        parse(text)
    assert time.perf_counter() - start < 0.1


@pytest.mark.parametrize("value", [None, 3, 0.5, b"k", ["k"]])
def test_refuses_non_strings(value: object) -> None:
    with pytest.raises(InvalidExpression, match=r"frequency expression must be a string, not"):
        parse(value)


def test_long_text_is_abbreviated_in_messages() -> None:
    with pytest.raises(InvalidExpression) as info:
        parse("k + " * 30 + "x")
    assert len(str(info.value)) < 300
    assert "...'" in str(info.value)


TOKENS = ["k", "d", "n", "b", "(", ")", "+", "-", "*", "/", "**", "^", "1", "2", "10000",
          ".", "pi", "exp", "log", "__import__", "os", ",", "'", "[", "]", "lambda", ":", " "]


def check_total(text: str) -> None:
    start = time.perf_counter()
    try:
        result = parse(text)
    except InvalidExpression:
        pass
    else:
        assert isinstance(result, sympy.Expr)
        assert result.free_symbols <= ALLOWED_SYMBOLS
    assert time.perf_counter() - start < 1.0


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text_parses_or_is_refused(text: str) -> None:
    check_total(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join))
def test_token_soup_parses_or_is_refused(text: str) -> None:
    check_total(text)
