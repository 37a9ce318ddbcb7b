"""Budgets of the proof engine (issue 12 §5): a theorem out of budget is unknown with the
reason, the SIGALRM safety net stops a runaway step and is never left armed, and prove
works (cooperative deadline only) outside the main thread."""

from __future__ import annotations

import json
import signal
import threading

import pytest
from test_cli import assert_one_line_error, run

from posproof import InvalidParameter, preset, prove
from posproof.proofs.theorems.budget import Deadline, OutOfBudget, check_timeout, within

HAIR = "cos(w*delta) + 10**-40, -sin(w*delta); sin(w*delta), cos(w*delta)"
DISGUISED = ("cos(w*delta)*(sin(delta)**2 + cos(delta)**2), -sin(w*delta); "
             "sin(w*delta), cos(w*delta)")


def _no_alarm_left() -> None:
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), "5", True])
def test_a_bad_timeout_is_refused(bad) -> None:
    with pytest.raises(InvalidParameter, match="timeout"):
        check_timeout(bad)
    with pytest.raises(InvalidParameter, match="timeout"):
        prove(preset("vaswani", dim=8), theorems=["norm"], timeout=bad)


def test_a_theorem_out_of_budget_is_unknown_with_the_reason() -> None:
    proof = prove(preset("vaswani", dim=8), theorems=[], claim_block=DISGUISED,
                  timeout=1e-9).theorems[0]
    assert proof.status == "unknown"
    assert "budget" in proof.note
    assert "--timeout" in proof.note
    _no_alarm_left()


def test_the_same_claim_with_a_budget_is_decided() -> None:
    enc = preset("vaswani", dim=8)
    assert prove(enc, theorems=[], claim_block=DISGUISED, timeout=30).theorems[0].status \
        == "proved"
    assert prove(enc, theorems=[], claim_block=HAIR, timeout=None).theorems[0].status \
        == "refuted"
    _no_alarm_left()


def test_the_safety_net_stops_a_step_that_never_checks_the_deadline() -> None:
    def runaway() -> int:
        n = 0
        while True:  # no deadline check: only the SIGALRM net can stop it
            n += 1

    result, reason = within(Deadline(0.05), runaway)
    assert result is None
    assert "safety timer" in reason
    _no_alarm_left()


def test_the_cooperative_deadline_turns_into_a_reason() -> None:
    def step() -> None:
        Deadline(0).check("the expansion")

    assert within(Deadline(10), step) == (None, "the expansion did not finish within 0 s")
    with pytest.raises(OutOfBudget):
        step()
    _no_alarm_left()


def test_a_sigalrm_handler_of_someone_else_is_left_alone() -> None:
    fired = []

    def theirs(signum, frame) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, theirs)
    try:
        assert within(Deadline(5), lambda: 7) == (7, None)
        assert signal.getsignal(signal.SIGALRM) is theirs
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert fired == []


def test_prove_in_another_thread_uses_the_cooperative_deadline_only() -> None:
    out: dict[str, str] = {}

    def work() -> None:
        enc = preset("vaswani", dim=8)
        out["hair"] = prove(enc, theorems=[], claim_block=HAIR, timeout=30).theorems[0].status
        out["tiny"] = prove(enc, theorems=[], claim_block=DISGUISED,
                            timeout=1e-9).theorems[0].status

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(120)
    assert not thread.is_alive()
    assert out == {"hair": "refuted", "tiny": "unknown"}
    _no_alarm_left()


# --------------------------------------------------------------------------- the command line
@pytest.mark.parametrize("bad", ["-1", "abc", "inf", "nan", ""])
def test_prove_refuses_a_bad_timeout_in_one_line(capsys, bad: str) -> None:
    status, out, err = run(capsys, "prove", "--dim", "8", "--theorem", "norm", "--timeout", bad)
    assert_one_line_error(status, out, err, "--timeout")


def test_prove_with_a_tiny_timeout_says_unknown_and_why(capsys) -> None:
    status, out, _ = run(capsys, "prove", "--dim", "8", "--theorem", "norm", "--claim-block",
                         DISGUISED, "--timeout", "0.000000001", "--json")
    assert status == 1
    claim = next(t for t in json.loads(out)["theorems"] if t["name"].startswith("claim"))
    assert claim["status"] == "unknown"
    assert "budget" in claim["note"]


def test_prove_refutes_a_claim_wrong_by_a_hair_from_the_command_line(capsys) -> None:
    status, out, _ = run(capsys, "prove", "--dim", "8", "--theorem", "norm", "--claim-block",
                         HAIR, "--timeout", "0", "--json")
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
    proof = prove(enc, theorems=[], claim_block=block, timeout=None).theorems[0]
    assert proof.status == "proved"
    assert any("32 groups reduce to 1 generic identity" in s.statement for s in proof.steps), \
        [s.statement for s in proof.steps]


def test_a_false_claim_stops_at_the_first_group_certainly_false() -> None:
    """The search starts at the first group whose own identity is certainly false, not after
    every group's symbolic attempt."""
    proof = prove(preset("vaswani", dim=64), theorems=[], claim_block=HAIR,
                  timeout=None).theorems[0]
    assert proof.status == "refuted"
    assert any("does not reduce to 0 on dims [0, 1]" in s.statement for s in proof.steps), \
        [s.statement for s in proof.steps]


def test_a_timer_swallowed_by_a_bare_except_is_still_a_timeout():
    """mpmath's interval comparison catches everything (a bare ``except:``) and returns
    NotImplemented, so the safety timer's exception surfaces as a TypeError: after the
    timer fired, that failure is the timeout's, not a traceback."""
    import time as _time

    from mpmath.ctx_iv import MPIntervalContext

    from posproof.proofs.theorems.budget import Deadline, within

    ctx = MPIntervalContext()
    x = ctx.mpf(2)

    def spin() -> None:
        end = _time.monotonic() + 30
        while _time.monotonic() < end:
            if not (x > 0):                 # the timer lands inside mpmath's bare except
                raise AssertionError("2 > 0")

    result, why = within(Deadline(0.05), spin)
    assert result is None and "safety timer" in why


def test_a_genuine_error_without_the_timer_still_raises():
    from posproof.proofs.theorems.budget import Deadline, within

    def broken() -> None:
        raise TypeError("a real bug")

    with pytest.raises(TypeError, match="a real bug"):
        within(Deadline(5), broken)
