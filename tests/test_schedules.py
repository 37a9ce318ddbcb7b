"""Frequency schedules: exact values, the general form, user expressions, hostile input."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from posproof import (
    BinaryDials,
    Diffusion,
    Explicit,
    Expression,
    Geometric,
    InvalidExpression,
    PosproofError,
    TensorToTensor,
    preset,
)
from posproof.model.schedules import D, K, exact_number
from posproof.testing.strategies import EXPRESSIONS, bases


# --------------------------------------------------------------------------- reference values
def test_original_schedule() -> None:
    """ω_k = 10000^(−2k/d) (Vaswani et al. 2017, §3.5); d = 8 gives 1, 10^−1, 10^−2, 10^−3."""
    freqs = Geometric(10000).frequencies(8)
    assert [sp.nsimplify(f.doit()) for f in freqs] == [1, sp.Rational(1, 10),
                                                      sp.Rational(1, 100), sp.Rational(1, 1000)]


def test_tensor2tensor_spaces_exponents_over_n_minus_one() -> None:
    """tensor2tensor get_timing_signal_1d: log_timescale_increment = log(max/min)/(n−1).

    So the slowest wavelength is exactly 2π·max_timescale.
    """
    freqs = TensorToTensor().frequencies(6)
    assert list(freqs) == [1, sp.Rational(1, 100), sp.Rational(1, 10000)]
    assert freqs[-1] == sp.Rational(1, 10000)
    freqs = TensorToTensor(2, 200).frequencies(6)
    assert [sp.nsimplify(f.doit()) for f in freqs] == [sp.Rational(1, 2), sp.Rational(1, 20),
                                                      sp.Rational(1, 200)]


def test_tensor2tensor_two_columns_does_not_divide_by_zero() -> None:
    """d = 2 means n − 1 = 0: t2t guards with max(n − 1, 1), fairseq's code would crash."""
    assert TensorToTensor().frequencies(2) == (1,)
    with pytest.raises(PosproofError, match=r"dim=2 gives n=1 pair\(s\).*use dim >= 4"):
        preset("fairseq", dim=2)


def test_diffusion_schedule() -> None:
    """guided-diffusion timestep_embedding: freqs = exp(−log(max_period)·k/half)."""
    freqs = Diffusion().frequencies(8)
    assert [sp.nsimplify(f.doit()) for f in freqs] == [1, sp.Rational(1, 10),
                                                      sp.Rational(1, 100), sp.Rational(1, 1000)]


def test_binary_dials() -> None:
    assert BinaryDials().frequencies(6) == (sp.pi / 2, sp.pi / 4, sp.pi / 8)
    assert BinaryDials(2 * sp.pi).frequencies(4) == (sp.pi, sp.pi / 2)
    assert BinaryDials("2*pi").frequencies(4) == (sp.pi, sp.pi / 2)


def test_explicit_frequencies_are_exact() -> None:
    freqs = Explicit((1, "1/100", Fraction(1, 3), 0.1, "pi/4")).frequencies(10)
    assert freqs == (1, sp.Rational(1, 100), sp.Rational(1, 3), sp.Rational(1, 10), sp.pi / 4)


def test_explicit_length_must_match_the_dim() -> None:
    with pytest.raises(PosproofError, match=r"2 frequencies were given for dim=8.*pass dim=4"):
        preset("explicit", dim=8, frequencies=[1, 2])


# --------------------------------------------------------------------------- general form
@given(bases(), st.integers(1, 32))
def test_geometric_general_form_matches_the_concrete_frequencies(base: object, n: int) -> None:
    """Substituting b, k and d into general() gives frequencies(d), exactly.

    Both sides are b**r with the same reduced rational r, so SymPy's automatic
    evaluation brings them to one canonical form: plain ``==`` is the exact test.
    """
    schedule = Geometric(base)
    d = 2 * n
    general = schedule.general().subs(sp.Symbol("b", positive=True), schedule.base)
    concrete = schedule.frequencies(d)
    for k in (0, n // 2, n - 1):
        assert general.subs({K: k, D: d}) == concrete[k].doit(), (k, d)


@pytest.mark.parametrize("schedule", [TensorToTensor(), Diffusion(), BinaryDials()],
                         ids=["tensor2tensor", "diffusion", "binary"])
def test_general_forms_match(schedule: object) -> None:
    for d in (4, 8, 12):
        concrete = schedule.frequencies(d)  # type: ignore[attr-defined]
        general = schedule.general(K, D)  # type: ignore[attr-defined]
        for k, value in enumerate(concrete):
            assert sp.simplify(general.subs({K: k, D: d}) - value.doit()) == 0


def test_explicit_has_no_general_form() -> None:
    assert Explicit((1, 2)).general() is None


# --------------------------------------------------------------------------- expressions
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_expression_strategies_build_valid_encodings(text: str) -> None:
    for dim in (1, 2, 8):
        enc = preset("expression", dim=dim, expression=text, odd_dim="pad" if dim % 2 else "error")
        assert all(bool(f > 0) for f in enc.frequencies)


def test_expression_equals_the_original_schedule() -> None:
    typed = Expression("b**(-2*k/d)", base=10000).frequencies(8)
    assert [sp.nsimplify(f.doit()) for f in typed] == [
        sp.nsimplify(f.doit()) for f in Geometric(10000).frequencies(8)]
    assert Expression("exp(-k*log(b)/n)", base=10000).frequencies(4) == (1, sp.Rational(1, 100))


PWNED = "/tmp/pwned_pp"
HOSTILE = [
    f"__import__('os').system('touch {PWNED}')",
    "().__class__.__bases__[0].__subclasses__()",
    "(lambda: 1)()",
    "k.__class__",
    "open('/etc/passwd')",
    "eval('1')",
    "[k for k in range(10**9)]",
    "k if k else 1",
    "'a' * 10",
    "k; import os",
    "f'{k}'",
    "b'x'",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_expressions_are_refused_without_running(text: str) -> None:
    if os.path.exists(PWNED):  # pragma: no cover - left over from an older run
        os.remove(PWNED)
    with pytest.raises(InvalidExpression, match="frequency expression") as info:
        preset("expression", dim=8, expression=text)
    assert isinstance(info.value, ValueError)
    assert not os.path.exists(PWNED)


@pytest.mark.parametrize(("text", "match"), [
    ("10**10**10", "raises to a power beyond 1000"),
    ("9**9**9**9", "raises to a power beyond 1000"),
    ("2**(2**(2**20))", "raises to a power beyond 1000"),
    ("exp(10**6)", "raises to a power beyond 1000"),
    ("(" * 200 + "1" + ")" * 200, "nests brackets more than 60 levels"),
    ("k+" * 300 + "1", "characters long; at most 500"),
    ("1e400", "too large to be finite"),
    ("1/0", "divides by zero"),
    ("k %% 2", "is not a valid formula|operator"),
    ("k // 2", "the operator '//'"),
    ("   ", "is empty"),
    ("x", "unknown name 'x'"),
    ("sin(k)", "a function call 'sin'"),
])
def test_oversized_or_malformed_expressions_are_refused_at_once(text: str, match: str,
                                                                limit: object) -> None:
    with limit(5), pytest.raises(InvalidExpression, match=match):  # type: ignore[operator]
        preset("expression", dim=8, expression=text)


@pytest.mark.parametrize(("text", "match"), [
    ("-1", r"gives ω_0 = -1 at dim=8; every frequency must be a finite positive number"),
    ("k", r"gives ω_0 = 0 at dim=8"),
    ("1 - k/2", r"gives ω_2 = 0 at dim=8"),
    ("log(k)", r"gives ω_0 = zoo at dim=8"),
])
def test_expressions_with_non_positive_frequencies_are_refused(text: str, match: str) -> None:
    with pytest.raises(PosproofError, match=match) as info:
        preset("expression", dim=8, expression=text)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("text", ["exp(exp(exp(100)))", "E**(E**(E**20))",
                                  "exp(-exp(exp(20)))*k+1"])
def test_exp_towers_are_refused_at_once(text: str, limit: object) -> None:
    """Regression: nested exp towers once escaped as OverflowError or hung in evalf."""
    with limit(3), pytest.raises(InvalidExpression, match="too large to handle"):  # type: ignore[operator]
        preset("expression", dim=8, expression=text)


def test_expression_must_be_given() -> None:
    with pytest.raises(PosproofError, match="needs expression="):
        preset("expression", dim=8)
    with pytest.raises(InvalidExpression, match="must be a string"):
        preset("expression", dim=8, expression=5)


# --------------------------------------------------------------------------- numbers
@pytest.mark.parametrize(("value", "expected"), [
    (1e4, sp.Integer(10000)), (0.1, sp.Rational(1, 10)), (Fraction(3, 2), sp.Rational(3, 2)),
    ("2*pi", 2 * sp.pi), (7, sp.Integer(7)), (sp.E, sp.E),
])
def test_exact_number(value: object, expected: sp.Expr) -> None:
    assert exact_number("base", value) == expected


@pytest.mark.parametrize(("base", "match"), [
    (1, "base=1 must be > 1"),
    (0.5, "base=1/2 must be > 1"),
    (-5, "base=-5 must be > 1"),
    (float("nan"), "base=nan is not a finite number"),
    (float("inf"), "base=inf is not a finite number"),
    (float("-inf"), "base=-inf is not a finite number"),
    (sp.nan, "base=nan is not a finite real number"),
    (sp.oo, "base=oo is not a finite real number"),
    (sp.I, "base=I is not a finite real number"),
    (2 + 3j, r"base=\(2\+3j\) is not a number"),
    (None, "base=None is not a number"),
    (True, "base=True is not a number"),
    ("nan", "base 'nan' uses an unknown name 'nan'"),
    ("abc", "base 'abc' uses an unknown name"),
    ("10**10**10", "raises to a power beyond 1000"),
])
def test_bad_bases_are_refused(base: object, match: str) -> None:
    with pytest.raises(PosproofError, match=match) as info:
        preset("vaswani", dim=8, base=base)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: TensorToTensor(10, 5), "max_timescale=5 must be > min_timescale=10"),
    (lambda: TensorToTensor(0, 5), "min_timescale=0 must be > 0"),
    (lambda: Diffusion(1), "max_period=1 must be > 1"),
    (lambda: BinaryDials(0), "numerator=0 must be > 0"),
    (lambda: Explicit(()), r"frequencies=\[\] is empty"),
    (lambda: Explicit("1, 2"), "is not a list"),
    (lambda: Explicit((1, -2)), r"frequencies\[1\]=-2 must be > 0"),
    (lambda: Explicit((1, float("nan"))), r"frequencies\[1\]=nan is not a finite number"),
])
def test_bad_schedule_parameters(call: object, match: str) -> None:
    with pytest.raises(PosproofError, match=match) as info:
        call()  # type: ignore[operator]
    assert isinstance(info.value, ValueError)
