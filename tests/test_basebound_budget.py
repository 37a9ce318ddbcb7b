"""The base search's answers do not depend on the clock: a deterministic work budget, and a
safety net in CPU seconds that says so when it fires (issue 27)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from posproof.cli.app import main
from posproof.measure.explore import base_bound, basebound

TIMING = ("seconds", "audit_seconds")


def _answer(bb: Any) -> str:
    """Everything the search reports, its timings excepted, with the answer for base 10000."""
    data = {k: v for k, v in bb.to_dict().items() if k not in TIMING}
    data["entry_10000"] = bb.entry(10000)
    data["summary"] = bb.summary()
    return json.dumps(data, sort_keys=True, default=str)


@pytest.fixture
def time_flies(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """time.perf_counter and time.monotonic jump 10⁴ s at every call (as a machine under
    heavy load would seem to a wall-clock budget)."""
    now = [0.0]

    def jump() -> float:
        now[0] += 1e4
        return now[0]
    monkeypatch.setattr(time, "perf_counter", jump)
    monkeypatch.setattr(time, "monotonic", jump)
    return now


@pytest.mark.parametrize(("length", "first_only"), [
    pytest.param(65536, False, marks=pytest.mark.slow), (2048, True)])
def test_time_flies_and_the_answer_is_the_same(length: int, first_only: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """rope base 10000, d = 128: the whole range at L = 65536 (and a row of Men et al.'s
    table, first island only) gives exactly the same answer when every clock reading jumps
    10⁴ s: no verdict, count or number depends on the wall clock."""
    quiet = _answer(base_bound(length, 128, first_only=first_only))
    now = [0.0]

    def jump() -> float:
        now[0] += 1e4
        return now[0]
    monkeypatch.setattr(time, "perf_counter", jump)
    monkeypatch.setattr(time, "monotonic", jump)
    flown = base_bound(length, 128, first_only=first_only)
    assert now[0] >= 2e4                     # the clock was read, and jumped
    assert flown.undecided == 0
    assert flown.stopped_by is None
    assert _answer(flown) == quiet


def test_a_tiny_work_budget_is_a_deterministic_undecided_answer(time_flies: list[float]
                                                                ) -> None:
    """A work budget too small to decide the range: the rest is undecided, the same answer at
    every run (the clock jumping), and the answer names the option that raises the budget."""
    runs = [base_bound(1024, 128, work_budget=2 * 10**6) for _ in range(2)]
    assert _answer(runs[0]) == _answer(runs[1])
    bb = runs[0]
    assert bb.undecided >= 1
    assert bb.stopped_by == "work budget"
    assert bb.work > 2 * 10**6
    assert bb.work_budget == 2 * 10**6
    assert any("--base-work" in n and "work_budget=" in n for n in bb.notes)
    assert "--base-work" in bb.summary()
    # the full budget decides the same range: the smallest good base is certified there
    assert base_bound(1024, 128).bound is not None
    assert bb.bound is None


def test_explore_shares_the_work_budget_and_reports_it(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """explore --base-work N: the JSON carries the budget, the work used and what stopped
    the search; the human output names the option."""
    argv = ["explore", "rope:base=10000,dim=128", "--length", "1024", "--base-bound",
            "--no-proofs", "--dtypes", "", "--base-work", "2000000"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    bound = data["base_bounds"]["128"]
    assert bound["work_budget"] == 2 * 10**6
    assert bound["stopped_by"] == "work budget"
    assert bound["undecided"] >= 1
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"work budget \(2e\+06 units\) ran out: raise it with --base-work", out)
    assert main([*argv[:-2], "--json"]) == 0    # the default budget decides it
    bound = json.loads(capsys.readouterr().out)["base_bounds"]["128"]
    assert bound["undecided"] == 0
    assert bound["stopped_by"] is None
    assert bound["work_budget"] == basebound.WORK_BUDGET
    assert bound["work"] > 0


def test_the_cli_help_states_the_code_defaults() -> None:
    """--base-work and --base-time-limit's help quote WORK_BUDGET and TIME_LIMIT (the CLI
    does not import the search to build its parser)."""
    import argparse

    from posproof.cli.app import make_parser

    parser = make_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    explore = commands.choices["explore"]
    helps = {a.option_strings[0]: a.help for a in explore._actions if a.option_strings}
    assert f"(default {basebound.WORK_BUDGET:.0e})".replace("e+", "e") in helps["--base-work"]
    assert f"(default {basebound.TIME_LIMIT:g})" in helps["--base-time-limit"]
    # --islands auto's threshold (issue 27 item 6) and the modes are the code's too
    island_work = f"{basebound.ISLAND_WORK:.0e}".replace("e+0", "e").replace("e+", "e")
    assert f"until {island_work} work units past the first island" in helps["--islands"]
    action = next(a for a in explore._actions if "--islands" in a.option_strings)
    assert tuple(action.choices) == basebound.ISLANDS
