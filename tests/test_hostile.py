"""Hostile input, fuzzed through the Python API (issue 7): every bad value ends in a
``PosproofError`` whose message names the input, within a time bound; nothing else escapes,
nothing typed by a user is executed, nothing hangs.

Each fuzzed call goes through :func:`refused` (must raise ``PosproofError`` naming the
input) or :func:`survives` (may succeed or raise ``PosproofError``), both under a SIGALRM
time bound (:data:`LIMIT` seconds) that turns a hang into a failure.  Both count the inputs
they feed in :data:`COUNT`; ``python scripts/count_hostile.py`` runs this file and
``test_hostile_cli.py`` and prints the total.  The CLI half is ``test_hostile_cli.py``.
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import posproof
from conftest import Timeout as Hang
from conftest import time_limit
from posproof.errors import MAX_DIM, InvalidExpression, PosproofError
from posproof.model import configs, rope, scaling, schedules
from posproof.model.expressions import parse_expression
from posproof.proofs.theorems import parse_block
from posproof.testing import assert_encoding, check_encoding, check_rotary
from posproof.testing.identification import identify

explore = importlib.import_module("posproof.explore")  # posproof.explore is the function

#: Seconds one fuzzed call may take; generous (a loaded 2-core CI machine), but finite.
LIMIT = 15.0
#: Hostile inputs fed, by test: counted, not computed (see scripts/count_hostile.py).
COUNT: collections.Counter[str] = collections.Counter()
#: Where a payload would leave its mark if it were ever executed.
SENTINEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".posproof-pwned")


def bounded(seconds: float = LIMIT) -> contextlib.AbstractContextManager[None]:
    """Interrupt the block with :class:`Hang` (``conftest.Timeout``) after ``seconds``."""
    return time_limit(seconds)


def _label() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0].split("::")[-1].split("[")[0]


def _run(call: Callable[[], Any], shown: str) -> tuple[Any, PosproofError | None]:
    COUNT[_label()] += 1
    try:
        with bounded():
            try:
                return call(), None
            except PosproofError as exc:
                return None, exc
    except Hang:
        pytest.fail(f"hang: {shown} still running after {LIMIT} s")


def refused(call: Callable[[], Any], *names: str, shown: str = "") -> PosproofError:
    """``call()`` must raise a PosproofError whose message names one of ``names``."""
    result, exc = _run(call, shown)
    assert exc is not None, f"hostile input accepted: {shown} -> {result!r:.200}"
    message = str(exc)
    assert message.strip(), f"empty message for {shown}"
    assert any(n.lower() in message.lower() for n in names), (
        f"message for {shown} does not name any of {names}: {message!r}")
    return exc


def survives(call: Callable[[], Any], shown: str = "") -> Any:
    """``call()`` may succeed or raise a PosproofError; nothing else, and no hang."""
    result, exc = _run(call, shown)
    if exc is not None:
        assert str(exc).strip(), f"empty message for {shown}"
    return result


@pytest.fixture(autouse=True, scope="module")
def _report_count() -> Iterator[None]:
    yield
    print(f"\nhostile inputs fed by {__name__}: {sum(COUNT.values())}")


@pytest.fixture(autouse=True)
def _no_sentinel() -> Iterator[None]:
    """Nothing typed by a user is ever executed: no payload leaves its mark."""
    yield
    assert not os.path.exists(SENTINEL), "a hostile payload was executed"
    assert "POSPROOF_PWNED" not in os.environ, "a hostile payload was executed"
    assert not getattr(sys, "posproof_pwned", False), "a hostile payload was executed"


# ----------------------------------------------------------------------------- strategies
#: Code that would leave a mark if evaluated (sentinel file, environment, a global).
PAYLOADS = [
    f"__import__('os').system('touch {SENTINEL}')",
    f"open({SENTINEL!r}, 'w').write('x')",
    "__import__('os').environ.__setitem__('POSPROOF_PWNED', '1')",
    "__import__('sys').__setattr__('posproof_pwned', True)",
    "exec(\"import sys; sys.posproof_pwned = True\")",
    "eval('__import__(\"os\").getcwd()')",
    "(lambda: __import__('os').system('true'))()",
    "().__class__.__bases__[0].__subclasses__()",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "globals()['__builtins__']",
    "x.__class__", "k.__class__.__mro__", "pi.evalf.__globals__",
    "breakpoint()", "compile('1', 'f', 'eval')", "getattr(k, '__class__')",
    "sp.sympify('1')", "Symbol('k')", "S('1')", "Integer(2)",
    "f'{__import__(\"os\").getcwd()}'", "(x := 5)", "*k", "exp(x=1)", "exp(*[1])", "exp(1, 2)",
    "k if k else 1", "k < 1", "k and 1", "not k", "~k", "k @ k", "k % 2", "k // 2", "k << 1",
    "k | 1", "k & 1", "[1, 2]", "(1, 2)", "{1: 2}", "{1}", "b'1'", "'1'", "None", "True",
    "...", "k[0]", "k()", "log.__name__", "yield 1", "await k", "import os", "del k",
]
TOWERS = ["10**10**10", "9**9**9**9", "2**2**2**2**2**2", "exp(exp(exp(100)))",
          "10**(10**10)", "(10**10)**(10**10)", "2^2^2^2^2^2", "k**101", "k**1001",
          "(k+1)**(10**9)", "sqrt(sqrt(sqrt(10**1000)))", "10**-10**10", "E**E**E**E**E",
          "2**(1/10**6)", "(2**4096)**(1/3)", "log(log(log(0.5)))", "exp(-exp(1000))",
          "1" * 40, "9" * 31 + "**2", "1e999", "-1e999", "1e-999", "nan", "inf", "oo", "zoo",
          "1/0", "0**-1", "log(0)", "sqrt(-1)", "(-1)**(1/2)", "log(-2)", "I", "E**(I*pi)",
          "(" * 70 + "1" + ")" * 70, "-" * 600 + "1", "1+" * 300 + "1", "k" * 501,
          "\x00", "1\x00", "\ufeff1", "k\u200b", "\U0001f600", "\\", "\n", "   ",
          "", "1 2", "1,2", "1;2", "(", ")", "**", "k**", "exp()", "exp(", "log k"]
HOSTILE_TEXT = PAYLOADS + TOWERS


def hostile_numbers(*, allow_negative: bool = False) -> st.SearchStrategy[Any]:
    """Values no numeric parameter accepts (NaN, infinities, non-numbers, code)."""
    return st.one_of(
        st.sampled_from([float("nan"), float("inf"), float("-inf"), None, True, False, 1j,
                         complex(2, 0), [], [2], {}, {"a": 1}, (), object(), b"2", "",
                         "nan", "inf", "1e999", "-1e999", "2**2**2**2**2**2", "x", "k",
                         "sqrt(-1)", "1/0", sp.nan, sp.zoo, sp.oo, sp.I, sp.Symbol("x"),
                         np.array([2.0, 3.0]), np.float64("nan"), Fraction(1, 1) * 0 - 5]),
        st.sampled_from(PAYLOADS),
        st.text(alphabet="abcxyz_.()[]'\"{}:;=lambd", min_size=1, max_size=12)
        .filter(lambda s: s.strip() not in ("e", "E")),
    )


def not_positive() -> st.SearchStrategy[Any]:
    return st.one_of(hostile_numbers(), st.integers(max_value=0),
                     st.floats(max_value=0.0, allow_nan=False))


def not_above_one() -> st.SearchStrategy[Any]:
    return st.one_of(not_positive(), st.just(1), st.just(1.0), st.floats(0.0, 1.0),
                     st.fractions(min_value=0, max_value=1), st.just("1/2"), st.just("cos(0)"))


def bad_counts(maximum: int) -> st.SearchStrategy[Any]:
    """Counts that are zero, negative, huge or not integers."""
    return st.one_of(
        st.integers(max_value=0), st.integers(min_value=maximum + 1,
                                              max_value=max(2 * maximum, 2**300)),
        st.floats(allow_nan=True, allow_infinity=True).filter(
            lambda v: not (math.isfinite(v) and v.is_integer() and 1 <= v <= maximum)),
        st.sampled_from([None, True, "8", "1e3", [8], (8,), {}, 8j, np.array([8]), sp.Integer(2)
                         * sp.pi, Fraction(17, 2)]),
    )


def shown(*values: Any) -> str:
    def one(v: Any) -> str:
        try:
            return repr(v)[:80]
        except ValueError:  # an int over 4300 digits
            return f"<{type(v).__name__}>"
    return ", ".join(one(v) for v in values)


# ----------------------------------------------------------------------------- dims and lengths
@settings(max_examples=120)
@given(dim=bad_counts(MAX_DIM), name=st.sampled_from(
    ["vaswani", "tensor2tensor", "fairseq", "diffusion", "binary", "sine-only",
     "column-exponent"]))
@example(dim=0, name="vaswani")
@example(dim=-2, name="fairseq")
@example(dim=2**70, name="binary")
@example(dim=np.float64("nan"), name="diffusion")
def test_preset_dim(dim: Any, name: str) -> None:
    """A dim that is zero, negative, huge or not an integer is refused, naming dim."""
    if isinstance(dim, sp.Basic):
        dim = 7.5
    refused(lambda: posproof.preset(name, dim=dim), "dim", shown=shown(name, dim))


@settings(max_examples=80)
@given(dim=bad_counts(MAX_DIM), where=st.sampled_from(
    ["rotary", "Rotary", "base_bound", "critical_dimension", "Encoding", "read_config"]))
@example(dim=10**9, where="base_bound")  # hung: a scan over 5·10⁸ pairs per base
@example(dim=3, where="rotary")
def test_other_dims(dim: Any, where: str) -> None:
    calls = {
        "rotary": lambda: posproof.rotary(10000, dim),
        "Rotary": lambda: rope.Rotary(None, dim),
        "base_bound": lambda: explore.base_bound(64, dim, highest=1e3),
        "critical_dimension": lambda: explore.critical_dimension(10000, dim, 64),
        "Encoding": lambda: posproof.Encoding(posproof.Geometric(), "split", dim),
        "read_config": lambda: configs.read_config({"rope_theta": 1e4, "head_dim": dim}),
    }
    if where in ("base_bound", "critical_dimension", "read_config") and dim in (1, 1.0):
        dim = 0
    refused(calls[where], "dim", shown=shown(where, dim))


@settings(max_examples=100)
@given(length=bad_counts(1 << 24), where=st.sampled_from(
    ["table", "positions", "run_checks", "check", "kernel_first_negative", "base_bound",
     "band_coverage", "dtype_audit", "explore", "critical_dimension"]))
@example(length=float("nan"), where="run_checks")
@example(length=1.5, where="kernel_first_negative")
@example(length=10**15, where="base_bound")
def test_lengths(length: Any, where: str) -> None:
    """Lengths that are zero, negative, huge or not integers are refused, naming the length."""
    enc = posproof.preset("vaswani", dim=8)
    calls = {
        "table": (lambda: enc.table(length), ("length", "position")),
        "positions": (lambda: enc.positions(length), ("length",)),
        "run_checks": (lambda: posproof.measure.checks.run_checks(enc, max_len=length),
                       ("max_len",)),
        "check": (lambda: posproof.check(enc, max_len=length), ("max_len",)),
        "kernel_first_negative": (lambda: explore.kernel_first_negative([1], length),
                                  ("length",)),
        "base_bound": (lambda: explore.base_bound(length, 8), ("length",)),
        "band_coverage": (lambda: explore.band_coverage([1], length), ("length",)),
        "dtype_audit": (lambda: explore.dtype_audit([1], length), ("length",)),
        "explore": (lambda: explore.explore([posproof.rotary(10000, 8)], length), ("length",)),
        "critical_dimension": (lambda: explore.critical_dimension(10000, 8, length),
                               ("length",)),
    }
    call, names = calls[where]
    if where in ("table", "positions", "run_checks", "check") and isinstance(
            length, int) and length > 1 << 24:
        length = 10**12 + 1  # tables go up to 10^9 rows: refuse just past that, not build it
    if where in ("table", "positions") and length == 0:
        survives(call, shown(where, length))  # zero rows is a valid table
        return
    if where == "table" and ( not isinstance(length, int | np.integer)
                             or isinstance(length, bool)):
        survives(call, shown(where, length))  # a table also takes the positions themselves
        return
    refused(call, *names, shown=shown(where, length))


# ----------------------------------------------------------------------------- bases
BASE_TAKERS = {
    "vaswani": (lambda b: posproof.preset("vaswani", dim=8, base=b), not_above_one, "base"),
    "sine-only": (lambda b: posproof.preset("sine-only", dim=4, base=b), not_positive, "base"),
    "column-exponent": (lambda b: posproof.preset("column-exponent", dim=4, base=b),
                        not_positive, "base"),
    "Geometric": (lambda b: posproof.Geometric(b), not_above_one, "base"),
    "diffusion": (lambda b: posproof.preset("diffusion", dim=8, max_period=b), not_above_one,
                  "max_period"),
    "Diffusion": (lambda b: posproof.Diffusion(b), not_above_one, "max_period"),
    "binary": (lambda b: posproof.preset("binary", dim=8, numerator=b), not_positive,
               "numerator"),
    "t2t-min": (lambda b: posproof.preset("tensor2tensor", dim=8, min_timescale=b),
                not_positive, "min_timescale"),
    "t2t-max": (lambda b: posproof.TensorToTensor(1, b), not_above_one, "max_timescale"),
    "rotary": (lambda b: posproof.rotary(b, 8), not_above_one, "rope_theta"),
    "critical_dimension": (lambda b: explore.critical_dimension(b, 8, 64), not_above_one,
                           "rope_theta"),
    "expression": (lambda b: posproof.preset("expression", dim=8, expression="b**(-2*k/d)",
                                             base=b), not_positive, "base"),
}


@settings(max_examples=220)
@given(data=st.data(), taker=st.sampled_from(sorted(BASE_TAKERS)))
def test_bases(data: st.DataObject, taker: str) -> None:
    """Bases that are 0, 1, negative, NaN, infinite or not numbers are refused, naming them."""
    call, strategy, name = BASE_TAKERS[taker]
    base = data.draw(strategy(), label="base")
    if taker == "expression":  # b enters ω = b^(−2k/d): the message names the expression
        refused(lambda: call(base), name, "expression", shown=shown(taker, base))
        return
    refused(lambda: call(base), name, "frequency", shown=shown(taker, base))


@settings(max_examples=40)
@given(base=st.one_of(st.integers(10**20, 10**400), st.floats(1e20, 1e308),
                      st.sampled_from(["10**999", "pi**600", "exp(1000)", "E**E**E"])),
       name=st.sampled_from(["vaswani", "rotary", "expression"]))
@example(base=10**5000, name="vaswani")
def test_enormous_bases_finish(base: Any, name: str) -> None:
    """Enormous (valid) bases: the proofs and tables finish in time, or are refused."""
    def run() -> None:
        if name == "rotary":
            rot = posproof.rotary(base, 8)
            posproof.prove_rotary(rot, general=False)
            rot.apply(np.ones((2, 8)), [0, 10**6])
            return
        params = {"expression": "b**(-2*k/d)"} if name == "expression" else {}
        enc = posproof.preset(name, dim=8, base=base, **params)
        posproof.prove(enc, theorems=["translation[row]", "norm"])
        enc.table(16)
    survives(run, shown(name, base))


# ----------------------------------------------------------------------------- presets, Encoding
PRESET_PARAMS = {
    "layout": (st.one_of(hostile_numbers(), st.text(max_size=10)), ("layout",)),
    "offset": (st.one_of(hostile_numbers(), st.floats(0.1, 0.9), st.integers(10**15 + 1)),
               ("offset",)),
    "odd_dim": (st.one_of(hostile_numbers(), st.text(max_size=8)), ("odd_dim",)),
    "padding_idx": (st.one_of(hostile_numbers(), st.integers(max_value=-1)), ("padding_idx",)),
    "start_index": (st.one_of(hostile_numbers(), st.floats(0.1, 0.9)), ("offset", "start")),
    "name": (st.one_of(st.sampled_from([5, [], b"x", 1.5]), st.text(min_size=201)),
             ("name",)),
    "frequencies": (st.one_of(hostile_numbers(), st.lists(not_positive(), min_size=4,
                                                          max_size=4)), ("frequencies",)),
    "expression": (st.sampled_from(HOSTILE_TEXT[:-1]), ("expression",)),
    "bse": (st.integers(), ("bse",)),
}
PRESET_FOR = {"padding_idx": "fairseq", "start_index": "tensor2tensor",
              "frequencies": "explicit", "expression": "expression"}


@settings(max_examples=200)
@given(data=st.data(), param=st.sampled_from(sorted(PRESET_PARAMS)))
@example(data=None, param="padding_idx")  # padding_idx='a' raised TypeError (str + int)
def test_preset_params(data: st.DataObject | None, param: str) -> None:
    """Every preset parameter refuses hostile values and names itself."""
    strategy, names = PRESET_PARAMS[param]
    if data is None:
        values = ["a", None, 1.5]
    else:
        values = [data.draw(strategy, label=param)]
    for value in values:
        if param == "odd_dim" and isinstance(value, str) and value in ("error", "pad"):
            continue
        if param == "layout" and isinstance(value, str) and (
                value.lower() in posproof.LAYOUTS or value.lower() in
                posproof.model.layouts.ALIASES):
            continue
        name = PRESET_FOR.get(param, "vaswani")
        dim = 7 if param == "odd_dim" else 8
        refused(lambda v=value: posproof.preset(name, dim=dim, **{param: v}), *names,
                shown=shown(name, param, value))


@pytest.mark.parametrize("value", [None, 5, "1,2", {1: 2}, [[1], [2]], [float("nan"), 1],
                                   [0, 1], [1], [1, 2, 3], np.array([[1.0, 2.0]])])
def test_explicit_frequencies(value: Any) -> None:
    """frequencies=None or 5 raised TypeError ('not iterable'); a dict was read as its keys."""
    refused(lambda: posproof.preset("explicit", dim=4, frequencies=value), "frequenc",
            shown=shown(value))


@settings(max_examples=60)
@given(x=st.one_of(st.sampled_from(PAYLOADS), hostile_numbers().filter(
    lambda v: not isinstance(v, (int, float, complex, sp.Basic, np.floating)) or
    (isinstance(v, bool) and False))), method=st.sampled_from(["vector", "translation",
                                                             "rotation", "rotation_entries"]))
@example(x=f"__import__('os').system('touch {SENTINEL}')", method="vector")  # sympify ran it
@example(x="__import__('os').getcwd()", method="rotation")  # sympify ran it
def test_symbolic_arguments_never_run(x: Any, method: str) -> None:
    """Encoding.vector / translation and Rotary.rotation took strings through ``sympify``,
    which runs them as Python; strings and non-numbers are now refused."""
    if isinstance(x, (list, tuple, dict)) and not x:
        x = "[]"
    if method in ("vector", "translation"):
        obj = posproof.preset("vaswani", dim=4)
    else:
        obj = posproof.rotary(10000, 4)
    name = {"vector": "x", "translation": "delta"}.get(method, "m")
    if isinstance(x, (int, float, complex, np.ndarray, sp.Basic, Fraction)):
        survives(lambda: getattr(obj, method)(x), shown(method, x))
        return
    refused(lambda: getattr(obj, method)(x), f"{name}=", shown=shown(method, x))


def arrays_hostile() -> st.SearchStrategy[Any]:
    """Things that are not a flat list of finite real numbers."""
    return st.one_of(
        st.sampled_from([["a"], "abc", b"12", [[1, 2], [3]], [1j], [float("nan")],
                         [float("inf")], [None], [object()], [{}], [[1, [2]]],
                         np.array([1 + 2j]), np.array(["1"]), np.array([object()]),
                         {"a": 1}, [10**400], [-float("inf"), 1]]),
        st.lists(st.one_of(st.text(max_size=3), st.none(), st.just(float("nan"))),
                 min_size=1, max_size=4),
    )


@settings(max_examples=80)
@given(positions=arrays_hostile(), where=st.sampled_from(["table", "angles", "apply",
                                                           "decay_curve"]))
@example(positions=["a"], where="table")            # ValueError from numpy
@example(positions=[[1, 2], [3]], where="table")    # ValueError (ragged)
@example(positions="abc", where="angles")           # ValueError from numpy
@example(positions=[1e300], where="decay_curve")    # OverflowError (int64)
def test_positions(positions: Any, where: str) -> None:
    enc, rot = posproof.preset("vaswani", dim=8), posproof.rotary(10000, 8)
    calls = {
        "table": (lambda: enc.table(positions), "positions"),
        "angles": (lambda: rot.angles(positions), "positions"),
        "apply": (lambda: rot.apply(np.ones((1, 8)), positions), "positions"),
        "decay_curve": (lambda: explore.decay_curve([1, 0.5], positions), "deltas"),
    }
    call, name = calls[where]
    refused(call, name, "x has shape", shown=shown(where, positions))


@pytest.mark.parametrize("x", ["abc", [["a"]], [[1j] * 8], [[None] * 8], object()])
def test_rotary_apply_x(x: Any) -> None:
    refused(lambda: posproof.rotary(10000, 8).apply(x, [0]), "x ", shown=shown(x))


# ----------------------------------------------------------------------------- scaling
SCALING_PARAMS = {
    "linear": ["factor"],
    "ntk": ["factor"],
    "dynamic": ["factor", "original_max_position_embeddings", "seq_len"],
    "yarn": ["factor", "original_max_position_embeddings", "beta_fast", "beta_slow",
             "attention", "mscale", "mscale_all_dim", "truncate"],
    "llama3": ["factor", "low_freq_factor", "high_freq_factor",
               "original_max_position_embeddings"],
    "longrope": ["short_factor", "long_factor", "original_max_position_embeddings", "factor",
                 "attention", "seq_len"],
}
SCALING_BASE = {"linear": {"factor": 2}, "ntk": {"factor": 2},
                "dynamic": {"factor": 2, "seq_len": 4096},
                "yarn": {"factor": 4}, "llama3": {"factor": 8},
                "longrope": {"short_factor": [1, 2], "long_factor": [2, 4], "seq_len": 8192}}
SCALING_CASES = [(rule, p) for rule, ps in SCALING_PARAMS.items() for p in ps]


def scaling_values(param: str) -> st.SearchStrategy[Any]:
    if param == "truncate":
        return st.sampled_from([None, "no", 1, 0, "true", [], 2.5, float("nan")])
    if param in ("short_factor", "long_factor"):
        return st.one_of(hostile_numbers(), st.lists(not_positive(), min_size=2, max_size=2),
                         st.lists(st.floats(1, 2), min_size=0, max_size=5).filter(
                             lambda v: len(v) != 2),
                         st.just([[1], [2]]), st.just({"a": 1, "b": 2}), st.just("12"))
    if param in ("original_max_position_embeddings", "seq_len"):  # huge ones are valid here
        return bad_counts(2**300).filter(lambda v: v is not None and not (
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            and v > 0 and float(v).is_integer()))
    return not_positive().filter(lambda v: v is not None)


@settings(max_examples=260)
@given(data=st.data(), case=st.sampled_from(SCALING_CASES))
@example(data=None, case=("linear", "factor"))
def test_scaling_params(data: st.DataObject | None, case: tuple[str, str]) -> None:
    """Every rule refuses hostile parameters, naming the parameter."""
    rule, param = case
    value = float("nan") if data is None else data.draw(scaling_values(param), label=param)
    params = {**SCALING_BASE[rule], param: value}
    dim = 4 if rule == "longrope" else 8
    names = (param, "factor") if param in ("short_factor", "long_factor") else (param,)
    refused(lambda: posproof.rotary(10000, dim, scaling=rule, **params), *names,
            shown=shown(rule, param, value))
    refused(lambda: scaling.make_scaling(rule, 10000, **params).frequencies(dim), *names,
            shown=shown(rule, param, value))


@settings(max_examples=40)
@given(kind=st.one_of(st.text(max_size=8), hostile_numbers()),
       extra=st.sampled_from([{}, {"bogus": 1}]))
def test_scaling_kind_and_unknown_params(kind: Any, extra: dict[str, Any]) -> None:
    if isinstance(kind, str) and kind.lower() in (*scaling.SCALINGS, *scaling.ALIASES):
        kind = kind + "?"
    if kind is None:
        kind = "none?"
    refused(lambda: scaling.make_scaling(kind, 10000, **extra), "scaling", shown=shown(kind))


@settings(max_examples=60)
@given(prf=st.one_of(hostile_numbers().filter(lambda v: v is not None),  # None: not given
                    st.floats(max_value=0.0), st.floats(1.0001, 1e300),
                     st.sampled_from([10**400, "2", "-1/2"])))
@example(prf=float("nan"))            # TypeError: cannot create mpf from nan
@example(prf="abc")                   # ValueError from SymPy
@example(prf="__import__('os').getcwd()")  # sympify ran it
@example(prf=[1])                     # AttributeError
@example(prf=float("inf"))            # TypeError
def test_partial_rotary_factor(prf: Any) -> None:
    refused(lambda: posproof.rotary(10000, 64, partial_rotary_factor=prf),
            "partial_rotary_factor", shown=shown(prf))


@settings(max_examples=40)
@given(theorems=st.one_of(st.integers(), st.lists(st.text(max_size=5), min_size=1,
                                                 max_size=3), st.just([None]), st.just([[]])),
       seed=st.one_of(st.just(None), st.integers(max_value=-1), st.text(min_size=1, max_size=3),
                      st.floats(allow_nan=True).filter(lambda v: not float(v).is_integer())))
@example(theorems=["rotary:relative"], seed="a")  # TypeError in random
@example(theorems=5, seed=-1)
def test_prove_rotary_arguments(theorems: Any, seed: Any) -> None:
    rot = posproof.rotary(10000, 4)
    if theorems == ["rotary:relative"]:
        refused(lambda: posproof.prove_rotary(rot, theorems=theorems, seed=seed), "seed",
                shown=shown(seed))
        return
    refused(lambda: posproof.prove_rotary(rot, theorems=theorems), "theorem", shown=shown(theorems))
    refused(lambda: posproof.prove_rotary(rot, theorems=[], seed=seed), "seed", shown=shown(seed))


# ----------------------------------------------------------------------------- expressions
@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_parse_expression_hostile_list(text: str) -> None:
    """Python syntax, attribute access, dunders, lambdas, towers, NUL bytes, …: refused."""
    symbols = {"k": sp.Symbol("k", integer=True, nonnegative=True)}
    exc = refused(lambda: parse_expression(text, symbols, what="frequency expression"),
                  "frequency expression", shown=shown(text))
    assert isinstance(exc, InvalidExpression)
    if 0 < len(text.strip()) < 40 and text.isprintable() and "'" not in text:
        assert text.strip().replace("^", "**")[:20] in str(exc) or text.strip()[:20] in str(exc)


@settings(max_examples=200)
@given(text=st.one_of(
    st.text(alphabet="kdnb0123456789.+-*/^()e_ ,:[]'\"lambdaxsqrtpi", max_size=40),
    st.lists(st.sampled_from(["k", "d", "b", "2", "10", "**", "*", "-", "/", "+", "(", ")",
                              "exp(", "log(", "sqrt(", "pi", "1e999", "9**9", "__", ".",
                              "lambda", ":", "[", "]", "'", "os", "import"]),
             max_size=25).map("".join)))
@example(text="9**9**9**9")
@example(text="exp(exp(exp(k)))")
def test_parse_expression_fuzz(text: str) -> None:
    """Random formula-like text: an exact expression or InvalidExpression, in time."""
    symbols = {"k": schedules.K, "d": schedules.D, "n": schedules.N, "b": schedules.B}
    survives(lambda: parse_expression(text, symbols), shown(text))


@settings(max_examples=120)
@given(text=st.one_of(st.sampled_from(HOSTILE_TEXT), st.lists(
    st.sampled_from(["cos(w*delta)", "sin(w*delta)", "-", ",", ";", "w", "delta", "**99",
                     "__class__", "9**9**9", "exp(", ")", "1", "0"]),
    max_size=12).map("".join)))
@example(text="cos(w*delta), sin(w*delta); -sin(w*delta)")
@example(text=f"__import__('os').system('touch {SENTINEL}'), 0; 0, 1")
def test_parse_block(text: str) -> None:
    survives(lambda: parse_block(text), shown(text))


#: Expressions that parse (symbols count for little) but blow up once k, d, n, b are numbers.
ENORMOUS = ["exp(exp(exp(k)))", "d**d**d", "(n**n)**n", "b**(k*1000)", "b**(-b*k)",
            "2**(-k*100)", "exp(exp(k))", "exp(d*10)", "b**(d**2)", "n**n**2", "exp(b)",
            "k**100*b**100", "(b**100)**(1/7)", "exp(-exp(d))", "log(log(log(k)))+1"]


@settings(max_examples=60)
@given(text=st.sampled_from(ENORMOUS), dim=st.sampled_from([8, 64, 512]),
       general=st.booleans())
@example(text="exp(exp(exp(k)))", dim=64, general=False)  # hung in SymPy's evalf
@example(text="d**d**d", dim=64, general=False)           # hung building 64**(64**64)
@example(text="b**(-b*k)", dim=64, general=False)         # 40000-digit rationals
@example(text="exp(exp(exp(k)))", dim=8, general=True)
def test_enormous_expression_schedules(text: str, dim: int, general: bool) -> None:
    """An ``expression`` schedule with enormous frequencies is refused, or ``prove`` answers
    (``unknown`` at worst), in time."""
    def run() -> Any:
        enc = posproof.preset("expression", dim=dim, expression=text)
        report = posproof.prove(enc, theorems=["translation[row]", "norm"], general=general)
        return {p.status for p in report.theorems}
    result = survives(run, shown(text, dim))
    assert result is None or result <= {"proved", "refuted", "unknown"}


# ----------------------------------------------------------------------------- prove / checks
@settings(max_examples=40)
@given(arg=st.sampled_from(["theorems", "claim_block", "encoding"]),
       value=st.one_of(hostile_numbers(), st.sampled_from(HOSTILE_TEXT[:50]),
                       st.lists(st.text(max_size=4), min_size=1, max_size=2)))
def test_prove_arguments(arg: str, value: Any) -> None:
    enc = posproof.preset("vaswani", dim=4)
    if arg == "encoding":
        refused(lambda: posproof.prove(value), "encoding", shown=shown(value))
        return
    if arg == "theorems" and (not isinstance(value, (list, str)) or value == []):
        value = [value]  # theorems=5 itself: see test_prove_non_list_arguments; [] is valid
    if arg == "claim_block" and not isinstance(value, str):
        value = str(value)
    if arg == "convention" and value in ("row", "column"):
        value = "diagonal"
    kwargs = {arg: value, "theorems": []} if arg != "theorems" else {arg: value}
    names = {"theorems": ("theorem",), "convention": ("convention",),
             "claim_block": ("block", "claim")}[arg]
    if arg == "theorems" and isinstance(value, str):  # a name is iterated char by char
        survives(lambda: posproof.prove(enc, **kwargs), shown(arg, value))
        return
    refused(lambda: posproof.prove(enc, **kwargs), *names, shown=shown(arg, value))


@settings(max_examples=40)
@given(name=st.sampled_from(["budget", "timeout"]), value=hostile_numbers(allow_negative=True))
def test_prove_budgets(name: str, value: Any) -> None:
    """issue 27: the work budget (whole units >= 0) and the safety net (seconds > 0); None is
    no limit, anything else hostile is refused naming the parameter."""
    enc = posproof.preset("vaswani", dim=4)
    call = lambda: posproof.prove(enc, theorems=["norm"], **{name: value})  # noqa: E731
    if value is None:
        assert survives(call, shown(name, value)).theorems[0].status == "proved"
        return
    refused(call, name, shown=shown(name, value))


@pytest.mark.parametrize("kwargs", [{"theorems": 5}, {"claim_block": 5},
                                    {"claim_block": "1, 0; 0, 1", "convention": float("nan")},
                                    {"claim_block": "1, 0; 0, 1", "convention": "diagonal"}])
def test_prove_non_list_arguments(kwargs: dict[str, Any]) -> None:
    refused(lambda: posproof.prove(posproof.preset("vaswani", dim=4), **{"theorems": [],
                                                                         **kwargs}),
            *kwargs, shown=shown(kwargs))


CHECK_ARGS = {
    "dps": st.one_of(bad_counts(1000), st.integers(0, 49)),
    "checks": st.one_of(st.integers(), st.just([5]), st.lists(st.text(max_size=6), min_size=1,
                                                              max_size=2), st.just({})),
    "dtypes": st.one_of(st.integers(), st.lists(st.sampled_from(["int8", "float128x", "", "x"]),
                                                min_size=1, max_size=2)),
    "seed": st.one_of(st.integers(max_value=-1), st.just("x"), st.just(1.5), st.just(None)),
    "near_tol": st.one_of(not_positive().filter(lambda v: v is not None)),
    "near_range": st.sampled_from([(0, 5), (5, 1), (1,), "ab", 5, (1, 10**9), (1.5, 3)]),
}


@settings(max_examples=90)
@given(data=st.data(), arg=st.sampled_from(sorted(CHECK_ARGS)))
@example(data=None, arg="checks")   # checks=5: TypeError, not iterable
@example(data=None, arg="dtypes")   # dtypes=5: TypeError, not iterable
def test_check_arguments(data: st.DataObject | None, arg: str) -> None:
    value = 5 if data is None else data.draw(CHECK_ARGS[arg], label=arg)
    if arg == "checks" and isinstance(value, list) and all(v in posproof.CHECKS for v in value):
        value = [*value, "nope"]
    enc = posproof.preset("vaswani", dim=4)
    name = {"checks": "check", "dtypes": "dtype", "near_range": "near_range"}.get(arg, arg)
    kwargs = {"max_len": 64, "checks": ["bounds"], arg: value}
    refused(lambda: posproof.measure.checks.run_checks(enc, **kwargs), name,
            shown=shown(arg, value))


# ----------------------------------------------------------------------------- explore
EXPLORE_CALLS: dict[str, tuple[Callable[[Any], Any], st.SearchStrategy[Any], tuple[str, ...]]] = {
    "kfn-frequencies": (lambda v: explore.kernel_first_negative(v, 64),
                        st.one_of(hostile_numbers().filter(  # lists: the branch below
                            lambda v: not isinstance(v, (np.ndarray, list))),
                            st.lists(hostile_numbers(), min_size=1,
                                                              max_size=3), st.just([])),
                        ("frequenc",)),
    "kfn-dps": (lambda v: explore.kernel_first_negative([1, 0.5], 64, dps=v),
                st.one_of(bad_counts(1000), st.integers(1001, 10**9)), ("dps",)),
    "decay-frequencies": (lambda v: explore.decay_curve(v, [1, 2]),
                          st.one_of(hostile_numbers().filter(  # lists: the branch below
                              lambda v: not isinstance(v, (np.ndarray, list))), st.just([]),
                                    st.lists(hostile_numbers(), min_size=1, max_size=2)),
                          ("frequenc",)),
    "band-frequencies": (lambda v: explore.band_coverage(v, 64),
                         st.one_of(st.just([]), st.lists(hostile_numbers(), min_size=1,
                                                         max_size=2)), ("frequenc",)),
    "band-bands": (lambda v: explore.band_coverage([1], 64, bands=v),
                   st.sampled_from([5, 1.5, object()]), ("bands",)),
    "audit-dtypes": (lambda v: explore.dtype_audit([1], 64, dtypes=v),
                     st.one_of(st.integers(), st.lists(st.sampled_from(["int8", "x", "", "i"]),
                                                       min_size=1, max_size=2)), ("dtype",)),
    "critical-train": (lambda v: explore.critical_dimension(10000, 8, v),
                       bad_counts(1 << 24), ("length",)),
    "explore-encodings": (lambda v: explore.explore(v, 64),
                          st.sampled_from([None, 5, [], [5], ["rope:dim=8"], [None], "x",
                                           {"a": 1}]), ("encoding", "encodings")),
    "explore-train": (lambda v: explore.explore([posproof.rotary(10000, 4)], 64,
                                                train_length=v, proofs=False),
                      bad_counts(1 << 24).filter(lambda v: v is not None), ("train_length",)),
    "explore-dtypes": (lambda v: explore.explore([posproof.rotary(10000, 4)], 64, dtypes=v,
                                                 proofs=False),
                       st.sampled_from([5, ["int8"], [None], ["x"]]), ("dtype",)),
    "explore-seed": (lambda v: explore.explore([posproof.rotary(10000, 4)], 64, seed=v),
                     st.sampled_from([-1, "x", 1.5, None]), ("seed",)),
    "explore-base-work": (lambda v: explore.explore([posproof.rotary(10000, 4)], 64,
                                                    base_bounds=True, base_work=v,
                                                    proofs=False, dtypes=[]),
                          st.sampled_from([-1, 1.5, "x", float("nan"), True]), ("base_work",)),
    "explore-base-time-limit": (lambda v: explore.explore([posproof.rotary(10000, 4)], 64,
                                                          base_bounds=True, base_time_limit=v,
                                                          proofs=False, dtypes=[]),
                                st.sampled_from([-1.0, float("nan"), "x"]), ("time_budget",)),
}
BASE_BOUND_ARGS = {
    "lowest": st.one_of(not_above_one(), st.just(1e13)),
    "highest": st.one_of(not_positive(), st.just(float("inf")), st.just(1.5), st.just(1e16)),
    "rel_tol": st.one_of(not_positive(), st.just(1.0), st.just(1e-20)),
    "work_budget": st.sampled_from([-1, 1.5, "x", float("nan"), float("inf"), True, 10**19,
                                    "1e9"]),
    "time_budget": st.sampled_from([-1.0, float("nan"), float("inf"), "x", True]),
}


@settings(max_examples=170)
@given(data=st.data(), which=st.sampled_from(sorted(EXPLORE_CALLS)))
@example(data=None, which="kfn-frequencies")    # None: TypeError, not iterable
@example(data=None, which="decay-frequencies")  # []: RuntimeWarning, mean of empty slice
@example(data=None, which="kfn-dps")            # dps=10**7: hung
def test_explore_functions(data: st.DataObject | None, which: str) -> None:
    call, strategy, names = EXPLORE_CALLS[which]
    if data is None:
        value = {"kfn-frequencies": None, "decay-frequencies": [], "kfn-dps": 10**7}[which]
    else:
        value = data.draw(strategy, label=which)
    refused(lambda: call(value), *names, shown=shown(which, value))


@settings(max_examples=70)
@given(data=st.data(), arg=st.sampled_from(sorted(BASE_BOUND_ARGS)))
@example(data=None, arg="lowest")   # lowest=nan: ValueError; lowest=0: ZeroDivisionError
def test_base_bound_arguments(data: st.DataObject | None, arg: str) -> None:
    values = ([float("nan"), 0] if data is None
              else [data.draw(BASE_BOUND_ARGS[arg], label=arg)])
    for value in values:
        kwargs = {"highest": 1e3, arg: value}
        refused(lambda kw=kwargs: explore.base_bound(64, 8, **kw),
                arg.rstrip("s"), "highest", shown=shown(arg, value))


# ----------------------------------------------------------------------------- configs
VALID = {"rope_theta": 10000, "head_dim": 8, "max_position_embeddings": 4096}
CONFIG_KEYS = ["rope_theta", "head_dim", "max_position_embeddings", "hidden_size",
               "num_attention_heads", "model_type", "partial_rotary_factor", "rotary_dim",
               "rope_scaling", "rope_parameters", "text_config", "rotary_pct",
               "rotary_emb_base", "n_head", "n_embd", "original_max_position_embeddings"]
SCALING_KEYS = ["type", "rope_type", "factor", "original_max_position_embeddings",
                "beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor",
                "short_factor", "long_factor", "attention_factor", "truncate", "mscale",
                "rope_theta", "mscale_all_dim", "zzz"]

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
              st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
              st.sampled_from(["linear", "dynamic", "yarn", "llama3", "longrope", "default",
                               "su", "pi/4", "0.5", "1e999", "nan", 10**400, 0, -1, 1e-300])),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.sampled_from(SCALING_KEYS), children,
                                               max_size=4)),
    max_leaves=10)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(top=st.dictionaries(st.sampled_from(CONFIG_KEYS), json_values, max_size=4),
       scaling_block=st.one_of(st.none(), st.dictionaries(st.sampled_from(SCALING_KEYS),
                                                          json_values, max_size=5)),
       as_file=st.booleans(), seq_len=st.one_of(st.none(), st.sampled_from([-1, 0, 8192, "x"])))
@example(top={"num_attention_heads": [1], "hidden_size": 64}, scaling_block=None,
         as_file=False, seq_len=None)  # TypeError: int / list
@example(top={"model_type": [1]}, scaling_block=None, as_file=False,
         seq_len=None)  # TypeError: unhashable
@example(top={"partial_rotary_factor": "pi/4"}, scaling_block=None, as_file=False,
         seq_len=None)  # ValueError from Fraction
@example(top={}, scaling_block={"type": "dynamic", "factor": 2,
                                "original_max_position_embeddings": "abc"},
         as_file=False, seq_len=None)  # ValueError from int()
def test_config_fuzz(top: dict[str, Any], scaling_block: dict[str, Any] | None,
                     as_file: bool, seq_len: Any, tmp_path_factory: Any) -> None:
    """Configs mutated with random JSON: read, or refused with a PosproofError, in time."""
    cfg = {**VALID, **top}
    if scaling_block is not None:
        cfg["rope_scaling"] = scaling_block
    source: Any = cfg
    if as_file:
        path = tmp_path_factory.mktemp("cfg") / "config.json"
        try:
            path.write_text(json.dumps(cfg), encoding="utf-8")
        except ValueError:  # json.dumps: an integer over 4300 digits
            return
        source = str(path)

    def run() -> Any:
        found = configs.read_config(source, seq_len=seq_len)
        found.rotary(seq_len if isinstance(seq_len, int) and seq_len > 0 else None)
        return found
    survives(run, shown(cfg))


MALFORMED_FILES: dict[str, bytes] = {
    "empty": b"",
    "spaces": b"   \n",
    "not-utf8": b"\xff\xfe{\"rope_theta\": 1}",
    "latin1": '{"model_type": "caf\xe9"}'.encode("latin-1"),
    "utf16": '{"rope_theta": 10000}'.encode("utf-16"),
    "nul": b"{\"rope_theta\": 1\x00}",
    "nan": b'{"rope_theta": NaN, "head_dim": 64}',
    "infinity": b'{"rope_theta": Infinity, "head_dim": 64}',
    "-infinity": b'{"rope_theta": -Infinity, "head_dim": 64}',
    "huge-int": b'{"rope_theta": ' + b"9" * 5000 + b', "head_dim": 64}',
    "huge-exp": b'{"rope_theta": 1e999, "head_dim": 64}',
    "deep-list": b"[" * 100_000 + b"]" * 100_000,
    "deep-dict": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "list": b"[1, 2]",
    "string": b'"config"',
    "number": b"42",
    "null": b"null",
    "trailing-comma": b'{"rope_theta": 1e4,}',
    "truncated": b'{"rope_theta": 1e4, "head_dim"',
    "single-quotes": b"{'rope_theta': 1e4}",
    "comment": b'{"rope_theta": 1e4 // the base\n}',
    "theta-string": b'{"rope_theta": "ten thousand", "head_dim": 64}',
    "theta-payload": ('{"rope_theta": "__import__(\'os\').system(\'touch ' + SENTINEL
                      + '\')", "head_dim": 64}').encode(),
    "theta-list": b'{"rope_theta": [10000], "head_dim": 64}',
    "theta-true": b'{"rope_theta": true, "head_dim": 64}',
    "head-dim-float": b'{"rope_theta": 1e4, "head_dim": 63.5}',
    "head-dim-huge": b'{"rope_theta": 1e4, "head_dim": 1e300}',
    "longrope-short": (b'{"rope_theta": 1e4, "head_dim": 8, "max_position_embeddings": 8192,'
                       b' "rope_scaling": {"type": "longrope", "short_factor": [1, 2],'
                       b' "long_factor": [1, 2, 3, 4]}}'),
    "longrope-strings": (b'{"rope_theta": 1e4, "head_dim": 4, "max_position_embeddings": 8192,'
                         b' "rope_scaling": {"type": "longrope", "short_factor": ["1", "2"],'
                         b' "long_factor": [1, 2]}}'),
    "longrope-nan": (b'{"rope_theta": 1e4, "head_dim": 4, "max_position_embeddings": 8192,'
                     b' "rope_scaling": {"type": "longrope", "short_factor": [NaN, 1],'
                     b' "long_factor": [1, 2]}}'),
    "longrope-nested": (b'{"rope_theta": 1e4, "head_dim": 4, "max_position_embeddings": 8192,'
                        b' "rope_scaling": {"type": "longrope", "short_factor": [[1], [2]],'
                        b' "long_factor": [1, 2]}}'),
    "longrope-missing": (b'{"rope_theta": 1e4, "head_dim": 4, "max_position_embeddings": 8,'
                         b' "rope_scaling": {"type": "longrope", "short_factor": [1, 1]}}'),
    "scaling-list": b'{"rope_theta": 1e4, "head_dim": 64, "rope_scaling": [1]}',
    "scaling-type-dict": (b'{"rope_theta": 1e4, "head_dim": 64, "rope_scaling": '
                          b'{"type": {"a": 1}, "factor": 2}}'),
    "factor-nan": (b'{"rope_theta": 1e4, "head_dim": 64, "rope_scaling": '
                   b'{"type": "linear", "factor": NaN}}'),
    "factor-huge-int": (b'{"rope_theta": 1e4, "head_dim": 64, "rope_scaling": '
                        b'{"type": "linear", "factor": ' + b"1" * 4400 + b"}}"),
    "model-type-list": b'{"rope_theta": 1e4, "head_dim": 64, "model_type": ["llama"]}',
    "heads-string": (b'{"rope_theta": 1e4, "head_dim": 64, "num_attention_heads": "8", '
                     b'"hidden_size": 512}'),
}


@pytest.mark.parametrize("name", sorted(MALFORMED_FILES))
def test_malformed_config_files(name: str, tmp_path: Any) -> None:
    """Malformed files are refused with a message naming the file (or the key)."""
    path = tmp_path / f"{name}.json"
    path.write_bytes(MALFORMED_FILES[name])
    refused(lambda: configs.read_config(str(path)), name, str(path), shown=name)


@pytest.mark.parametrize("source", [None, 5, 1.5, b"\xff", "a\x00b", ["config.json"],
                                    "/nonexistent/config.json", "", ".", "/"])
def test_config_sources(source: Any) -> None:
    """Not a path, a NUL byte, a missing file or a directory: refused, naming it."""
    refused(lambda: configs.read_config(source), "config", shown=shown(source))


@pytest.mark.parametrize("kwargs", [{"layer": ["full"]}, {"layer": 5}, {"layout": "diagonal"},
                                    {"seq_len": -5}, {"seq_len": "x"},
                                    {"default_theta": float("nan")},
                                    {"default_theta": object()}])
def test_read_config_keywords(kwargs: dict[str, Any]) -> None:
    cfg = {"head_dim": 64, "max_position_embeddings": 64,
           "rope_scaling": {"type": "dynamic", "factor": 2}}
    if "layer" in kwargs:
        cfg = {"head_dim": 64, "rope_theta": 1e4,
               "rope_parameters": {"full": {"rope_type": "default"}}}
    elif "default_theta" not in kwargs:
        cfg["rope_theta"] = 1e4
    name = next(iter(kwargs))
    refused(lambda: configs.read_config(cfg, **kwargs), name.replace("default_", "rope_"),
            name, shown=shown(kwargs))


@settings(max_examples=120)
@given(text=st.one_of(
    st.lists(st.sampled_from(["rope", "vaswani", "sin", ":", ",", "=", "base", "dim", "nan",
                              "1e999", "-1", "0", "8", "scaling", "longrope", "yarn", "factor",
                              "short_factor", "1;x", "truncate", "config", "/etc", "name",
                              "__import__('os')", "seq_len", "partial_rotary_factor", "9" * 30,
                              "layout", "diag", "offset", "expression", "k**k**k"]),
             max_size=12).map("".join),
    st.text(max_size=30)))
@example(text="vaswani:dim=8,name=x")   # TypeError: preset() got multiple values for 'name'
@example(text="rope:partial_rotary_factor=nan")  # TypeError: cannot create mpf from nan
@example(text="rope:dim=" + "9" * 5000)
def test_parse_spec(text: str) -> None:
    """Spec strings (``rope:base=…,dim=…``): an encoding, or a PosproofError, in time."""
    if os.path.exists(text.strip()) or text.strip().lower().endswith(".json"):
        text = "rope:" + text
    survives(lambda: configs.parse_spec(text), shown(text))


# ----------------------------------------------------------------------------- arrays
def malformed_tables() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from([
            np.zeros(()), np.zeros((0,)), np.zeros((0, 8)), np.zeros((8, 0)), np.zeros(8),
            np.zeros((2, 3, 8)), np.full((16, 8), np.nan), np.full((16, 8), np.inf),
            np.zeros((16, 8), dtype=complex), np.zeros((16, 8), dtype=object),
            np.array([["a"] * 8] * 16), np.zeros((16, 8), dtype=bool),
            [[0.0] * 8, [0.0] * 7], [[None] * 8] * 4, "table", b"\x00" * 64, None, 5, 1.5,
            {"weight": 1}, object(), [[1j] * 8] * 4, np.zeros((1, 1)),
            np.zeros((16, 8), dtype=np.int64), np.zeros((16, 8), dtype="datetime64[s]"),
        ]),
        st.integers(1, 20).flatmap(lambda n: st.lists(
            st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.none(),
                               st.text(max_size=2)), min_size=1, max_size=6),
            min_size=1, max_size=n)),
    )


@settings(max_examples=150)
@given(table=malformed_tables(), what=st.sampled_from(["assert_encoding", "check_encoding",
                                                       "identify", "check_rotary",
                                                       "gram_is_toeplitz"]))
def test_malformed_tables(table: Any, what: str) -> None:
    """Wrong shape or dtype, NaN/inf, object, empty, 0-d, ragged, complex arrays: a
    PosproofError (or, for a well-formed table that merely disagrees, an AssertionError from
    ``assert_encoding``), never another exception."""
    calls = {
        "assert_encoding": lambda: assert_encoding(table, "vaswani"),
        "check_encoding": lambda: check_encoding(table, "vaswani"),
        "identify": lambda: identify(table),
        "check_rotary": lambda: check_rotary(table, head_dim=8),
        "gram_is_toeplitz": lambda: posproof.gram_is_toeplitz(table),
    }
    if what == "assert_encoding":  # a well-formed table that merely disagrees: AssertionError
        with contextlib.suppress(AssertionError):
            survives(calls[what], shown(what, table))
        return
    survives(calls[what], shown(what, table))


@settings(max_examples=20)
@example(kwargs={"first_position": float("nan")})  # ValueError: arange cannot compute length
@example(kwargs={"first_position": sp.I})          # TypeError: cannot convert complex
@example(kwargs={"dim": "8"})                      # TypeError from '8' % 2
@example(kwargs={"dtype": np.array([2.0, 3.0])})   # ValueError: truth value of an array
@given(kwargs=st.fixed_dictionaries({}, optional={
    "dim": bad_counts(MAX_DIM).filter(lambda v: v is not None), "base": not_above_one(),
    "max_len": bad_counts(10**9),
    # None is these two keywords' default (accepted): every other hostile value is refused
    "dtype": st.one_of(hostile_numbers(), st.sampled_from(["int8", "float128x"]))
    .filter(lambda v: v is not None),
    "first_position": st.one_of(hostile_numbers(), st.just(-(10**30)))
    .filter(lambda v: v is not None)}).filter(bool))
def test_assert_encoding_keywords(kwargs: dict[str, Any]) -> None:
    table = posproof.preset("vaswani", dim=8).table(64)
    exc = refused(lambda: check_encoding(table, "vaswani", **kwargs), *kwargs,
                  "position", "dtype", shown=shown(kwargs))
    assert isinstance(exc, PosproofError)


# ----------------------------------------------------------------------------- found later
# Inputs the default (random) profile found after the CI profile had passed: each was
# accepted or raised something other than a PosproofError.
@pytest.mark.parametrize(("call", "names"), [
    (lambda: posproof.preset("vaswani", dim=7, odd_dim=np.array([2.0, 3.0])), ("odd_dim",)),
    (lambda: explore.decay_curve([Fraction(-5)], [1, 2]), ("frequencies[0]",)),
    (lambda: explore.kernel_first_negative([0], 64), ("frequencies[0]",)),
    (lambda: posproof.gram_is_toeplitz(np.zeros((8, 8), complex)), ("complex",)),
    (lambda: check_encoding(posproof.preset("vaswani", dim=8).table(64), "vaswani", dtype=""),
     ("dtype",)),
    (lambda: check_encoding(posproof.preset("vaswani", dim=8).table(64), "vaswani",
                            max_len=0), ("max_len",)),
], ids=["odd_dim-array", "negative-frequency", "zero-frequency", "complex-table",
        "empty-dtype", "max_len-0"])
def test_found_by_random_runs(call: Callable[[], Any], names: tuple[str, ...]) -> None:
    refused(call, *names, shown=names[0])
