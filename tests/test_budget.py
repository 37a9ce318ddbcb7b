"""Budgets of the proof engine (issue 12 §5, issue 27 item 1): each theorem has a
deterministic work budget (units charged before each step, from the sizes of what it works
on), so a verdict never depends on the clock or the machine's load; a theorem out of budget
is unknown with the reason naming ``--budget``; the SIGALRM safety net (wall clock) stops a
runaway step, says so, and is never left armed; prove works (work budget only) outside the
main thread."""

from __future__ import annotations

import json
import signal
import threading
import time

import pytest
from test_cli import assert_one_line_error, run

from posproof import InvalidParameter, preset, prove
from posproof.families import prove as prove_spec
from posproof.proofs.theorems.budget import (
    DEFAULT_BUDGET,
    DEFAULT_TIMEOUT,
    Budget,
    OutOfBudget,
    check_budget,
    check_timeout,
    within,
)

HAIR = "cos(w*delta) + 10**-40, -sin(w*delta); sin(w*delta), cos(w*delta)"
DISGUISED = ("cos(w*delta)*(sin(delta)**2 + cos(delta)**2), -sin(w*delta); "
             "sin(w*delta), cos(w*delta)")
LLAMA3 = ("rope:dim=128,base=500000,scaling=llama3,factor=8,low_freq_factor=1,"
          "high_freq_factor=4,original_max_position_embeddings=8192")


def _no_alarm_left() -> None:
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), "5", True])
def test_a_bad_timeout_is_refused(bad) -> None:
    with pytest.raises(InvalidParameter, match="timeout"):
        check_timeout(bad)
    with pytest.raises(InvalidParameter, match="timeout"):
        prove(preset("vaswani", dim=8), theorems=["norm"], timeout=bad)


@pytest.mark.parametrize("bad", [-1, 1.5, float("inf"), float("nan"), "5", True, [10]])
def test_a_bad_budget_is_refused(bad) -> None:
    with pytest.raises(InvalidParameter, match="budget"):
        check_budget(bad)
    with pytest.raises(InvalidParameter, match="budget"):
        prove(preset("vaswani", dim=8), theorems=["norm"], budget=bad)


def test_budget_zero_or_none_is_no_limit() -> None:
    assert check_budget(0) is None
    assert check_budget(None) is None
    assert check_budget(12.0) == 12
    b = Budget(None)
    b.charge("anything", 10**12)
    assert b.spent == 10**12


# --------------------------------------------------------------------------- work budget
def test_a_theorem_out_of_budget_is_unknown_with_the_reason() -> None:
    proof = prove(preset("vaswani", dim=8), theorems=[], claim_block=DISGUISED,
                  budget=10).theorems[0]
    assert proof.status == "unknown"
    assert "work budget of 10 units" in proof.note
    assert "--budget" in proof.note
    assert "budget=" in proof.note
    assert "wall-clock" not in proof.note
    _no_alarm_left()


def test_a_tiny_budget_gives_the_same_answer_every_time() -> None:
    """Out of work is deterministic: the same theorems stop at the same step, same notes."""
    enc = preset("vaswani", dim=8)
    runs = [[(p.name, p.status, p.note) for p in prove(enc, budget=300, general=True).theorems]
            for _ in range(2)]
    assert runs[0] == runs[1]
    notes = [note for _, status, note in runs[0] if status == "unknown"]
    assert notes
    assert all("work budget of 300 units" in n and "--budget" in n for n in notes)
    # a larger budget decides more, never less
    more = {p.name: p.status for p in prove(enc, budget=3000, general=True).theorems}
    for name, status, _ in runs[0]:
        if status != "unknown":
            assert more[name] == status


def test_the_same_claim_with_a_budget_is_decided() -> None:
    enc = preset("vaswani", dim=8)
    assert prove(enc, theorems=[], claim_block=DISGUISED).theorems[0].status == "proved"
    assert prove(enc, theorems=[], claim_block=HAIR, budget=None,
                 timeout=None).theorems[0].status == "refuted"
    _no_alarm_left()


def test_a_step_is_refused_before_it_runs() -> None:
    """The step that would exceed the budget is not started: what it needs is in the note."""
    ran = []

    def step() -> None:
        b = Budget(100)
        b.charge("the first step", 60)
        ran.append(1)
        b.charge("the expansion", 50)
        ran.append(2)

    result, why = within(Budget(100), step)
    assert result is None
    assert ran == [1]
    assert "the expansion needs 50 units, 40 were left" in why
    with pytest.raises(OutOfBudget):
        step()
    _no_alarm_left()


def _json(report) -> str:
    data = report.to_dict()
    data.pop("seconds", None)
    return json.dumps(data, sort_keys=True, default=str)


def test_time_flies_and_nothing_changes(monkeypatch) -> None:
    """A clock that jumps 10^4 s at every reading changes no verdict, note or number: the
    budget is work, not time (the safety net is a real timer, armed for 600 s)."""
    specs = ["sine-only:dim=8", "vaswani:dim=8", LLAMA3]
    quiet = [_json(prove_spec(s)) for s in specs]
    readings = []

    def flying(real):
        def clock() -> float:
            readings.append(1)
            return real() + 1e4 * len(readings)
        return clock
    for name in ("monotonic", "perf_counter", "time"):
        monkeypatch.setattr(time, name, flying(getattr(time, name)))
    assert time.monotonic() - time.monotonic() < -5e3     # the clock does fly
    flown = [_json(prove_spec(s)) for s in specs]
    monkeypatch.undo()
    for spec, a, b in zip(specs, quiet, flown, strict=True):
        assert a == b, spec
    assert '"refuted"' in quiet[0]
    assert '"proved"' in quiet[2]
    _no_alarm_left()


def test_the_defaults_are_what_the_cli_help_says(capsys) -> None:
    status, out, _ = run(capsys, "prove", "--help")
    assert status == 0
    text = " ".join(out.split())
    assert f"(default {DEFAULT_BUDGET}; 0: no limit)" in text
    assert f"(default {DEFAULT_TIMEOUT:g}; 0: none)" in text


# --------------------------------------------------------------------------- safety net
def test_the_safety_net_stops_a_step_that_never_checks_the_budget() -> None:
    def runaway() -> int:
        n = 0
        while True:  # no charge: only the SIGALRM net can stop it
            n += 1

    result, reason = within(Budget(None, 0.05), runaway)
    assert result is None
    assert "wall-clock safety limit of 0.05 s" in reason
    assert "--time-limit" in reason
    assert "depends on the machine" in reason
    _no_alarm_left()


def test_the_work_budget_turns_into_a_reason() -> None:
    def step() -> None:
        Budget(1).charge("the expansion", 2)

    assert within(Budget(10, 5), step) == (
        None, "not decided within the work budget of 10 units per theorem (the expansion "
              "needs 2 units, 1 was left); raise it with budget= or --budget UNITS "
              "(0: no limit)")
    _no_alarm_left()


def test_a_sigalrm_handler_of_someone_else_is_left_alone() -> None:
    fired = []

    def theirs(signum, frame) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, theirs)
    try:
        assert within(Budget(None, 5), lambda: 7) == (7, None)
        assert signal.getsignal(signal.SIGALRM) is theirs
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert fired == []


def test_prove_in_another_thread_uses_the_work_budget_only() -> None:
    out: dict[str, str] = {}

    def work() -> None:
        enc = preset("vaswani", dim=8)
        out["hair"] = prove(enc, theorems=[], claim_block=HAIR).theorems[0].status
        out["tiny"] = prove(enc, theorems=[], claim_block=DISGUISED,
                            budget=10).theorems[0].status

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(120)
    assert not thread.is_alive()
    assert out == {"hair": "refuted", "tiny": "unknown"}
    _no_alarm_left()


# --------------------------------------------------------------------------- the command line
@pytest.mark.parametrize("option", ["--timeout", "--time-limit"])
@pytest.mark.parametrize("bad", ["-1", "abc", "inf", "nan", ""])
def test_prove_refuses_a_bad_time_limit_in_one_line(capsys, option: str, bad: str) -> None:
    status, out, err = run(capsys, "prove", "--dim", "8", "--theorem", "norm", option, bad)
    assert_one_line_error(status, out, err, "--time-limit")
    assert "--timeout" in err


@pytest.mark.parametrize("bad", ["-1", "abc", "1.5", "1e6", "inf", "", "٣", "9" * 40])
def test_prove_refuses_a_bad_budget_in_one_line(capsys, bad: str) -> None:
    status, out, err = run(capsys, "prove", "--dim", "8", "--theorem", "norm", "--budget", bad)
    assert_one_line_error(status, out, err, "--budget")


def test_prove_with_a_tiny_budget_says_unknown_and_names_the_option(capsys) -> None:
    outs = []
    for _ in range(2):
        status, out, _ = run(capsys, "prove", "--dim", "8", "--theorem", "norm",
                             "--claim-block", DISGUISED, "--budget", "10", "--json")
        assert status == 1
        outs.append(json.loads(out)["theorems"])
    claim = next(t for t in outs[0] if t["name"].startswith("claim"))
    assert claim["status"] == "unknown"
    assert "work budget of 10 units" in claim["note"]
    assert "--budget" in claim["note"]
    assert [(t["name"], t["status"], t.get("note")) for t in outs[0]] == \
        [(t["name"], t["status"], t.get("note")) for t in outs[1]]


def test_prove_with_a_tiny_time_limit_says_the_safety_net_fired(capsys) -> None:
    status, out, _ = run(capsys, "prove", "--dim", "8", "--theorem", "norm", "--claim-block",
                         DISGUISED, "--timeout", "0.000000001", "--json")
    assert status == 1
    claim = next(t for t in json.loads(out)["theorems"] if t["name"].startswith("claim"))
    assert claim["status"] == "unknown"
    assert "wall-clock safety limit" in claim["note"]
    assert "--time-limit" in claim["note"]


def test_rope_refuses_a_budget_it_does_not_use(capsys) -> None:
    status, out, err = run(capsys, "prove", "rope:dim=8,base=10000", "--budget", "5")
    assert_one_line_error(status, out, err, "budget")


def test_prove_refutes_a_claim_wrong_by_a_hair_from_the_command_line(capsys) -> None:
    status, out, _ = run(capsys, "prove", "--dim", "8", "--theorem", "norm", "--claim-block",
                         HAIR, "--timeout", "0", "--budget", "0", "--json")
    assert status == 1
    claim = next(t for t in json.loads(out)["theorems"] if t["name"].startswith("claim"))
    assert claim["status"] == "refuted"


# --------------------------------------------------------------------------- cost per group
def test_a_multiple_of_the_frequency_is_one_generic_identity_for_every_group() -> None:
    """sin(999·ω_k·Δ) is recognised as sin(999·w·Δ) at w = ω_k, so the d/2 groups share one
    generic identity instead of one symbolic proof each."""
    enc = preset("vaswani", dim=64)
    block = ("cos(w*delta) + sin(999*w*delta)**2 + cos(999*w*delta)**2 - 1, -sin(w*delta); "
             "sin(w*delta), cos(w*delta)")
    proof = prove(enc, theorems=[], claim_block=block, budget=None).theorems[0]
    assert proof.status == "proved"
    assert any("32 groups reduce to 1 generic identity" in s.statement for s in proof.steps), \
        [s.statement for s in proof.steps]


def test_a_false_claim_stops_at_the_first_group_certainly_false() -> None:
    """The search starts at the first group whose own identity is certainly false, not after
    every group's symbolic attempt."""
    proof = prove(preset("vaswani", dim=64), theorems=[], claim_block=HAIR,
                  budget=None).theorems[0]
    assert proof.status == "refuted"
    assert any("does not reduce to 0 on dims [0, 1]" in s.statement for s in proof.steps), \
        [s.statement for s in proof.steps]


def test_a_timer_swallowed_by_a_bare_except_is_still_a_timeout():
    """mpmath's interval comparison catches everything (a bare ``except:``) and returns
    NotImplemented, so the safety timer's exception surfaces as a TypeError: after the
    timer fired, that failure is the timeout's, not a traceback."""
    import time as _time

    from mpmath.ctx_iv import MPIntervalContext

    ctx = MPIntervalContext()
    x = ctx.mpf(2)

    def spin() -> None:
        end = _time.monotonic() + 30
        while _time.monotonic() < end:
            if not (x > 0):                 # the timer lands inside mpmath's bare except
                raise AssertionError("2 > 0")

    result, why = within(Budget(None, 0.05), spin)
    assert result is None
    assert "wall-clock safety limit" in why


def test_a_genuine_error_without_the_timer_still_raises():
    def broken() -> None:
        raise TypeError("a real bug")

    with pytest.raises(TypeError, match="a real bug"):
        within(Budget(None, 5), broken)
