"""The ``posproof`` command: exit statuses 0 / 1 / 2, JSON output, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from posproof.cli.app import main

ROOT = Path(__file__).resolve().parents[1]
PWNED = "/tmp/pwned_pp"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """main(argv) → (status, stdout, stderr); argparse usage errors count as their exit code."""
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        status = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status: int, out: str, err: str, *needles: str) -> None:
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_verify_with_no_arguments_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    """The main job on the embedded default (d = 512, base 10000) proves everything."""
    status, out, err = run(capsys, "verify")
    assert status == 0, out
    assert "d=512" in out
    assert "verdict: OK" in out
    assert err == ""


def test_prove_json_parses(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "prove", "--dim", "8", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["encoding"]["dim"] == 8
    assert {t["status"] for t in data["theorems"]} == {"proved"}
    assert all({"name", "status"} <= set(t) for t in data["theorems"])


def test_prove_json_is_byte_identical_across_runs(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, "prove", "--dim", "8", "--general", "--json")[1]
    second = run(capsys, "prove", "--dim", "8", "--general", "--json")[1]
    assert first == second


def test_sine_only_is_refuted_with_status_one(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "prove", "--preset", "sine-only", "--dim", "8")
    assert status == 1
    assert "refuted" in out
    assert err == ""
    assert "counterexample x=0" in out


def test_column_exponent_is_refuted(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "prove", "--preset", "column-exponent", "--dim", "8", "--json")
    assert status == 1
    statuses = {t["name"]: t["status"] for t in json.loads(out)["theorems"]}
    assert statuses["translation[row]"] == "refuted"


def test_table_lists_every_theorem(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "prove", "--preset", "binary", "--dim", "8")
    assert status == 0
    assert "periodicity" in out
    assert "translation[row]" in out
    assert "verdict: OK" in out


def test_hostile_expression_is_refused_and_not_run(capsys: pytest.CaptureFixture[str]) -> None:
    if os.path.exists(PWNED):  # pragma: no cover - left over from an older run
        os.remove(PWNED)
    status, out, err = run(capsys, "prove", "--dim", "8", "--expression",
                           f"__import__('os').system('touch {PWNED}')")
    assert_one_line_error(status, out, err, "frequency expression", "not allowed")
    assert not os.path.exists(PWNED)


@pytest.mark.parametrize(("argv", "needles"), [
    (["--expression", "10**10**10"], ["10**10**10", "beyond 1000"]),
    (["--dim", "0"], ["dim=0"]),
    (["--dim", "-4"], ["dim=-4"]),
    (["--dim", "7"], ["dim=7 is odd", "odd_dim='pad'"]),
    (["--dim", "1000000000"], ["dim=1000000000 is too large"]),
    (["--dim", "2.5"], ["--dim='2.5' is not an integer"]),
    (["--dim", "abc"], ["--dim='abc'"]),
    (["--base", "1"], ["base=1 must be > 1"]),
    (["--base", "0.5"], ["base=1/2 must be > 1"]),
    (["--base", "nan"], ["base 'nan'"]),
    (["--base", "inf"], ["base 'inf'"]),
    (["--base", "1e400"], ["'1e400'", "too large to be finite"]),
    (["--preset", "nosuch"], ["'nosuch' is not known", "alibi, t5, xpos"]),
    (["--layout", "diagonal"], ["layout='diagonal' is not known"]),
    (["--preset", "fairseq", "--dim", "2"], ["dim=2", "use dim >= 4"]),
    (["--frequencies", "1, -1", "--dim", "4"], ["frequencies[1]=-1 must be > 0"]),
    (["--frequencies", "1, 1/3", "--dim", "8"], ["2 frequencies were given for dim=8"]),
    (["--offset", "1.5"], ["--offset='1.5' is not an integer"]),
    (["--theorem", "nosuch"], ["theorem='nosuch' is not known"]),
    (["--claim-block", "1, 2, 3"], ["is not 2×2"]),
])
def test_bad_input_is_one_line_and_status_two(capsys: pytest.CaptureFixture[str],
                                              argv: list[str], needles: list[str]) -> None:
    status, out, err = run(capsys, "prove", *(["--dim", "8"] if "--dim" not in argv else []),
                           *argv)
    assert_one_line_error(status, out, err, "posproof: error:", *needles)


@pytest.mark.parametrize("argv", [["bogus"], ["prove", "--odd-dim", "drop"],
                                  ["prove", "--seed", "x"], ["prove", "--convention", "diag"]])
def test_usage_errors_are_one_line_and_status_two(capsys: pytest.CaptureFixture[str],
                                                  argv: list[str]) -> None:
    status, out, err = run(capsys, *argv)
    assert_one_line_error(status, out, err, "error:")


def test_no_command_prints_help_and_returns_two(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys)
    assert status == 2
    assert "usage:" in out


def test_exp_tower_in_the_cli_is_refused_at_once(capsys: pytest.CaptureFixture[str],
                                                limit: object) -> None:
    with limit(5):  # type: ignore[operator]
        status, out, err = run(capsys, "prove", "--dim", "8", "--expression", "9**9**9**9")
    assert_one_line_error(status, out, err, "beyond 1000")


def test_dim_one_in_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: prove --dim 1 --odd-dim pad once escaped with an IndexError traceback."""
    status, out, err = run(capsys, "prove", "--dim", "1", "--odd-dim", "pad")
    assert status == 0, out
    assert err == ""


def test_transposed_claim_block_in_the_cli_is_refuted(capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: --claim-block once could not be typed (parse_block rejected sin and cos)."""
    status, out, err = run(capsys, "prove", "--dim", "8", "--claim-block",
                           "cos(w*delta), sin(w*delta); -sin(w*delta), cos(w*delta)")
    assert status == 1, err
    assert "claim[row]" in out
    assert "refuted" in out


def test_python_dash_m_runs_in_a_subprocess() -> None:
    """``python -m posproof`` runs the same command as main()."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "posproof", "prove", "--dim", "4", "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
