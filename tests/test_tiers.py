"""The two test tiers are what the README, CONTRIBUTING.md and CI say they are.

The full suite (``python -m pytest -n auto``) is the README's test command and exactly what
``.ci/run`` runs; the fast tier (``python -m pytest -m "not slow" -n auto``) leaves out the
tests marked ``slow`` and keeps every module (their doctests), a smoke test of every command
(tests/test_smoke.py) and of every family (tests/test_families.py), and the small cases of
the soundness corpora.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
FULL = "python -m pytest -n auto"
FAST = 'python -m pytest -m "not slow" -n auto'


def _text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _readme_test_command() -> str:
    lines = [line for line in _text("README.md").splitlines()
             if line.startswith("python3 -m venv") and "[test," in line]
    assert len(lines) == 1, lines
    return lines[0]


def test_ci_runs_the_readme_full_command() -> None:
    readme = _readme_test_command()
    ci = [line for line in _text(".ci/run").splitlines()
          if line.strip() and not line.startswith("#")][-1]
    assert readme.endswith(f"&& {ci}"), (readme, ci)
    assert ci.endswith(f"&& {FULL}"), ci


@pytest.mark.parametrize("page", ["README.md", "CONTRIBUTING.md"])
def test_the_docs_name_both_tiers(page: str) -> None:
    text = _text(page)
    assert FAST in text
    assert FULL in text


def test_the_fast_tier_leaves_out_exactly_the_slow_marker() -> None:
    config = tomllib.loads(_text("pyproject.toml"))
    pytest_options = config["tool"]["pytest"]["ini_options"]
    markers = [m.split(":")[0] for m in pytest_options["markers"]]
    assert markers == ["slow"]
    assert "--strict-markers" in pytest_options["addopts"]      # a typo is an error
    assert "--doctest-modules" in pytest_options["addopts"]     # every module in both tiers
    assert "posproof" in pytest_options["testpaths"]
    extra = config["project"]["optional-dependencies"]["test"]
    assert any(re.match(r"pytest-xdist>=\d", dep) for dep in extra), extra


def test_the_soundness_corpus_keeps_its_small_cases_in_the_fast_tier(
        pytestconfig: pytest.Config) -> None:
    """d = 8 (and the general-d theorems, the claims) fast; the same at d = 33 slow."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import test_soundness
    finally:
        sys.path.remove(str(ROOT / "tests"))
    params = test_soundness.test_true_statement_is_proved.pytestmark[0].args[1]
    slow = {p.id for p in params if any(m.name == "slow" for m in p.marks)}
    fast = {p.id for p in params} - slow
    assert slow
    assert all("d=33" in pid for pid in slow)
    assert {pid.replace("d=33", "d=8") for pid in slow} <= fast
