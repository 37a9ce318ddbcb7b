"""posproof.testing is grouped in subpackages by stage and family (issue 22); the flat module
paths of before keep working: each is the new module itself (same object, so ``monkeypatch``
targets and ``from ... import`` agree)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import posproof.testing

OLD_TO_NEW = {
    "alibi": "bias.alibi", "t5": "bias.t5", "t5_identify": "bias.t5_identify",
    "tables": "absolute.read", "encodings": "absolute.check", "explain": "absolute.explain",
    "hypotheses": "absolute.hypotheses", "multiaxis_tables": "absolute.grid",
    "rotary": "rope.check", "explain_rotary": "rope.explain", "multiaxis_rotary": "rope.grid",
    "xpos": "rope.xpos", "arrays": "core.arrays", "judging": "core.judging",
    "reports": "core.reports", "identification_1d": "identification.table",
    "identification_multiaxis": "identification.grid",
    "identification_measure": "identification.measure",
    "identification_families": "identification.families",
    "identification_precision": "identification.precision",
}


@pytest.mark.parametrize(("old", "new"), sorted(OLD_TO_NEW.items()))
def test_old_flat_path_is_the_new_module(old: str, new: str) -> None:
    module = importlib.import_module(f"posproof.testing.{old}")
    assert module is importlib.import_module(f"posproof.testing.{new}")
    assert getattr(posproof.testing, old) is module          # attribute after a bare import


def test_no_flat_module_left_but_the_entry_points() -> None:
    root = Path(posproof.testing.__file__).parent
    flat = sorted(p.stem for p in root.glob("*.py"))
    assert flat == ["__init__", "position_ids", "pytest_plugin", "strategies"]
    assert sorted(p.name for p in root.iterdir() if (p / "__init__.py").exists()) == [
        "absolute", "bias", "core", "identification", "rope"]


def test_public_api_unchanged() -> None:
    from posproof.testing import (  # noqa: F401
        DEFAULT_MAX_LEN,
        AlibiReport,
        Identification,
        ImplReport,
        InvalidImplementation,
        assert_alibi,
        assert_encoding,
        assert_position_ids,
        assert_rotary,
        assert_t5_buckets,
        check_alibi,
        check_encoding,
        check_position_ids,
        check_rotary,
        check_t5_buckets,
        default_positions,
        identify,
        identify_alibi,
    )
    assert callable(posproof.testing.identify)               # not shadowed by a subpackage
    with pytest.raises(AttributeError):
        _ = posproof.testing.no_such_module
