"""The public surface: ``__all__``, the error hierarchy, lazy imports, the strategies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

import posproof
from posproof import errors
from posproof.testing.strategies import (
    EDGE_DIMS,
    MAX_POSITION,
    dims,
    encodings,
    perturbed_encodings,
    positions,
    preset_specs,
)

ROOT = Path(__file__).resolve().parents[1]
#: find() settings: stop at the first hit, skip shrinking (we only ask "is it reachable?").
REACH = settings(max_examples=500, phases=[Phase.generate], database=None)


def test_all_agrees_with_the_exports() -> None:
    """Every name in __all__ exists, and every public non-module attribute is in __all__."""
    exported = set(posproof.__all__)
    assert len(exported) == len(posproof.__all__), "duplicates in __all__"
    missing = [name for name in exported if not hasattr(posproof, name)]
    assert not missing
    public = {name for name, value in vars(posproof).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert public - exported == set(), "public but not in __all__"


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from posproof import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(posproof.__all__)


def test_contract_names_are_exported() -> None:
    for name in ("preset", "prove", "Encoding", "Report", "Proof", "PosproofError"):
        assert name in posproof.__all__


def _fresh_python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600, check=True)
    return done.stdout.strip()


def test_import_does_not_import_matplotlib() -> None:
    """Heavy imports are lazy: a fresh ``import posproof`` (and a proof) leaves matplotlib out."""
    code = ("import sys, posproof\n"
            "posproof.prove(posproof.preset('vaswani', dim=4), theorems=['norm'])\n"
            "print(sorted(m for m in ('matplotlib', 'hypothesis', 'pytest') if m in sys.modules))")
    assert _fresh_python(code) == "[]"


def test_json_is_identical_across_processes_and_hash_seeds() -> None:
    """Deterministic JSON does not depend on set order (PYTHONHASHSEED) or on the process."""
    code = ("import posproof\n"
            "print(posproof.prove(posproof.preset('binary', dim=6)).to_json())")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "12345"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600, check=True)
    here = posproof.prove(posproof.preset("binary", dim=6)).to_json()
    assert done.stdout == here + "\n"
    assert json.loads(here)["ok"] is True


@pytest.mark.parametrize("name", ["InvalidParameter", "InvalidEncoding", "InvalidExpression",
                                  "UnknownName"])
def test_errors_are_posproof_errors_and_valueerrors(name: str) -> None:
    cls = getattr(posproof, name)
    assert issubclass(cls, posproof.PosproofError)
    assert issubclass(cls, ValueError)


def test_check_helpers_name_the_value() -> None:
    with pytest.raises(errors.InvalidParameter, match=r"max_len=0 is too small"):
        errors.check_length("max_len", 0)
    with pytest.raises(errors.InvalidParameter, match=r"base=nan is not a finite number"):
        errors.check_finite("base", float("nan"))


# --------------------------------------------------------------------------- strategies
@pytest.mark.parametrize("target", EDGE_DIMS)
def test_dims_reach_the_edge_cases(target: int) -> None:
    assert find(dims(), lambda d: d == target, settings=REACH) == target
    assert find(dims(with_policy=True), lambda p: p[0] == target, settings=REACH) == (
        target, "pad" if target % 2 else "error")


def test_dims_validate_their_bounds() -> None:
    with pytest.raises(ValueError, match="min_value=0"):
        dims(0, 4)


@pytest.mark.parametrize("target", [0, -1, MAX_POSITION, -MAX_POSITION])
def test_positions_reach_the_edge_cases(target: int) -> None:
    assert find(positions(), lambda x: x == target, settings=REACH) == target


@given(positions())
def test_positions_are_bounded_integers(x: int) -> None:
    assert isinstance(x, int)
    assert abs(x) <= MAX_POSITION


@settings(max_examples=60)
@given(preset_specs(max_dim=64))
def test_preset_specs_build_valid_encodings(spec: tuple[str, dict]) -> None:
    name, params = spec
    enc = posproof.preset(name, **params)
    assert 1 <= enc.dim <= 64
    assert enc.broken_pairs() == []
    assert enc.dim % 2 == 0 or params.get("odd_dim") == "pad"
    if name == "fairseq":
        assert enc.dim >= 4


@pytest.mark.parametrize("name", ["vaswani", "tensor2tensor", "fairseq", "diffusion", "binary",
                                  "explicit", "expression"])
def test_every_preset_is_reachable(name: str) -> None:
    enc = find(encodings(max_dim=8), lambda e: e.name == name, settings=REACH)
    assert enc.name == name


def test_encodings_reach_dims_one_two_three() -> None:
    for d in EDGE_DIMS:
        assert find(encodings(max_dim=8), lambda e, d=d: e.dim == d, settings=REACH).dim == d


@given(perturbed_encodings())
def test_perturbed_encodings_are_broken(case: tuple[posproof.Encoding, int]) -> None:
    enc, column = case
    assert enc.column_funcs[column] in ("sin", "cos")
    assert enc.broken_pairs(), enc.to_dict()


@given(st.data())
def test_encodings_respect_max_dim(data: st.DataObject) -> None:
    max_dim = data.draw(st.integers(1, 12))
    enc = data.draw(encodings(max_dim=max_dim))
    assert enc.dim <= max(max_dim, 1)
