"""posproof.check and the ``check`` / ``verify`` commands: verdicts, certification, bad input.

Each check is run on small lengths (speed is measured in benchmarks/, not
here); the numbers it reports are compared with independent computations
(mpmath, or an O(L²) brute force) where that is cheap.
"""

from __future__ import annotations

import io
import json

import mpmath
import numpy as np
import pytest

import posproof
import posproof.measure.checks_dtype as checks_dtype
from posproof import CHECKS, InvalidParameter, UnknownName, check, preset
from posproof.cli.app import main, render_markdown, render_table
from posproof.cli.options import ProgressBar
from posproof.measure.numeric import OffsetKernel


@pytest.fixture(scope="module")
def small_report() -> posproof.Report:
    return check(preset("vaswani", dim=32), max_len=5000)


# --------------------------------------------------------------------------- the API
def test_every_check_passes_on_a_sound_encoding(small_report: posproof.Report) -> None:
    """The original schedule passes every check honestly, each saying how it was certified."""
    assert [c.name for c in small_report.checks] == list(CHECKS)
    assert all(c.status == "pass" for c in small_report.checks), [
        (c.name, c.note) for c in small_report.checks if not c.ok]
    assert small_report.ok
    assert small_report.exit_status() == 0
    for c in small_report.checks:
        assert c.certified, c.name
        assert "summary" in c.values


def test_separation_is_the_brute_force_minimum(small_report: posproof.Report) -> None:
    """min ‖PE(x+Δ) − PE(x)‖ over Δ ≥ 1 equals the minimum over all pairs of rows (L = 600)."""
    enc = preset("vaswani", dim=32)
    report = check(enc, max_len=600, checks=["separation"])
    table = enc.table(600)
    gram = table @ table.T
    sq = np.diag(gram)[:, None] + np.diag(gram)[None, :] - 2 * gram
    np.fill_diagonal(sq, np.inf)
    i, j = np.unravel_index(np.argmin(sq), sq.shape)
    values = report["separation"].values
    assert values["at_offset"] == abs(int(i) - int(j))
    assert abs(float(values["min_distance_mp"]) - np.sqrt(sq[i, j])) < 1e-9
    assert "argmin Δ=" in report["separation"].certified
    assert "certified to 50 digits by interval arithmetic" in report["separation"].certified


def test_decay_values_are_certified_in_mpmath(small_report: posproof.Report) -> None:
    """The first negative offset has f < 0 in mpmath, the offset before it f ≥ 0."""
    values = small_report["decay"].values
    delta = values["first_negative"]
    kernel = OffsetKernel(preset("vaswani", dim=32))
    assert kernel.mp(delta) < 0 <= kernel.mp(delta - 1)
    assert float(values["first_negative_value_mp"]) == pytest.approx(float(kernel.mp(delta)))
    rise = values["first_increase"]
    assert kernel.mp(rise + 1) > kernel.mp(rise)
    assert kernel.mp(rise) <= kernel.mp(rise - 1)


def test_dtype_audit_reports_the_dtype_limits(small_report: posproof.Report) -> None:
    """First unrepresentable positions are computed; phase errors are checked in mpmath."""
    values = small_report["dtype_audit"].values
    assert values["float16"]["first_unrepresentable_position"] == 2049
    assert values["bfloat16"]["first_unrepresentable_position"] == 257
    assert values["float32"]["first_unrepresentable_position"] == 16777217
    bf16_first = values["bfloat16"]["phase_error_above_0.01_rad_from"]
    fp16_first = values["float16"]["phase_error_above_0.01_rad_from"]
    assert isinstance(bf16_first, int)
    assert isinstance(fp16_first, int)
    assert bf16_first < fp16_first
    # the values, recomputed independently: x·ω formed in the dtype (torch.outer of the
    # rounded position and frequency), its worst error over ω, first position above 0.01 rad
    import ml_dtypes

    omega = preset("vaswani", dim=32).frequencies_float
    for name, dt, first in (("float16", np.float16, fp16_first),
                            ("bfloat16", ml_dtypes.bfloat16, bf16_first)):
        x = np.arange(first + 1, dtype=np.float64)
        formed = (x.astype(dt)[:, None] * omega.astype(dt)[None]).astype(np.float64)
        worst = np.abs(formed - x[:, None] * omega[None]).max(axis=1)
        assert worst[first] > 0.01
        assert worst[:first].max() <= 0.01
        for pos, err in values[name]["phase_error_rad"]:
            fx = np.array([pos], dtype=np.float64)
            mine = np.abs((fx.astype(dt)[:, None] * omega.astype(dt)[None]).astype(np.float64)
                          - pos * omega).max()
            assert err == pytest.approx(mine, rel=1e-9, abs=1e-300), (name, pos)
    errors = dict(values["float16"]["phase_error_rad"])
    assert errors[1000] > errors[10]        # grows with the position
    assert values["bfloat16"]["residual_angles_in_dtype"] > values["float32"][
        "residual_angles_in_dtype"]


def test_emulated_bfloat16_gives_the_same_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ml_dtypes, bfloat16 is emulated on float32 bit patterns, with the same numbers."""
    enc = preset("vaswani", dim=16)
    real = check(enc, max_len=3000, checks=["dtype_audit"], dtypes=["bfloat16"])
    original = checks_dtype.dtype_model
    monkeypatch.setattr(checks_dtype, "dtype_model",
                        lambda t, **kw: original(t, emulate_bfloat16=True))
    emulated = check(enc, max_len=3000, checks=["dtype_audit"], dtypes=["bfloat16"])
    a, b = real["dtype_audit"].values["bfloat16"], emulated["dtype_audit"].values["bfloat16"]
    assert b["implementation"] == "emulated"
    assert {k: v for k, v in a.items() if k != "implementation"} == {
        k: v for k, v in b.items() if k != "implementation"}


def test_periodic_encoding_collides_and_its_period_is_confirmed() -> None:
    """Binary dials (d = 8): period 32 proved and confirmed; separation fails with a reason."""
    report = check(preset("binary", dim=8), max_len=200)
    assert report["periodicity"].status == "pass"
    assert report["periodicity"].values["integer_period"] == 32
    assert report["periodicity"].values["distance_at_period_mp"] == "0.0"
    sep = report["separation"]
    assert sep.status == "fail"
    assert sep.values["at_offset"] == 32
    assert "positions x and x+32 have the same encoding" in sep.note
    assert report["near_return"].values["effective_period"] <= 32
    assert not report.ok
    assert report.exit_status() == 1


def test_irrational_period_never_repeats_at_integers() -> None:
    """Frequencies 1 and 1/2 have period 4π: integer positions never return exactly."""
    report = check(preset("explicit", dim=4, frequencies=[1, "1/2"]), max_len=1000,
                   checks=["periodicity", "separation"])
    assert report["periodicity"].values["period"] == "4*pi"
    assert report["periodicity"].values["integer_period"] is None
    assert report.ok


def test_broken_encodings_fail_with_reasons() -> None:
    """Sine-only: no kernel, no T; the Gram matrix is not Toeplitz, the norm not constant."""
    report = check(preset("sine-only", dim=8), max_len=300)
    statuses = {c.name: c.status for c in report.checks}
    assert statuses["toeplitz"] == statuses["bounds"] == statuses["separation"] == "fail"
    assert statuses["dtype_audit"] == "pass"
    assert "not applicable: dims 0 and 1 hold (sin, sin)" in report["separation"].note
    assert "depends on more than x − y" in report["toeplitz"].note
    assert "the norm is not constant" in report["bounds"].note


def test_float64_disagreeing_with_mpmath_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toolkit inconsistency makes the check unknown with a note, never a silent pass (nor a
    "fail": a bug of the toolkit proves nothing about the encoding)."""
    real_mp = OffsetKernel.mp

    def wrong(self: OffsetKernel, delta: int, dps: int = 50) -> mpmath.mpf:
        return real_mp(self, delta, dps) + 1e-6

    monkeypatch.setattr(OffsetKernel, "mp", wrong)
    report = check(preset("vaswani", dim=16), max_len=1000, checks=["separation", "decay"])
    assert not report.ok
    for c in report.checks:
        assert c.status == "unknown", c.name
        assert "toolkit inconsistency" in c.note
        assert "please report" in c.note


def test_reports_are_deterministic_and_json_has_the_contract() -> None:
    """Two runs give byte-identical JSON with "checks" objects holding name, status, values."""
    enc = preset("vaswani", dim=16)
    a = check(enc, max_len=2000).to_json()
    b = check(preset("vaswani", dim=16), max_len=2000).to_json()
    assert a == b
    data = json.loads(a)
    assert data["theorems"] == []
    assert {c["name"] for c in data["checks"]} == set(CHECKS)
    for c in data["checks"]:
        assert c["status"] in ("pass", "fail")
        assert "certified" in c


def test_progress_is_reported_per_check() -> None:
    """progress(label, done, total) is called with each check's name, done never above total."""
    calls = []
    check(preset("vaswani", dim=8), max_len=3000, checks=["separation", "decay"],
          progress=lambda label, done, total: calls.append((label, done, total)))
    assert {label for label, _, _ in calls} == {"separation", "decay"}
    assert all(0 <= done <= total for _, done, total in calls)


def test_near_return_options() -> None:
    """A given range and tolerance are used; the effective period is certified in mpmath."""
    enc = preset("explicit", dim=4, frequencies=[1, "1/2"])
    report = check(enc, max_len=1000, checks=["near_return"], near_range=(100, 500),
                   near_tol=0.05)
    values = report["near_return"].values
    assert values["range"] == [100, 500]
    assert values["at_offset"] == 377
    table = enc.table(1000)
    dist = np.sqrt(((table[2:] - table[0]) ** 2).sum(axis=1))   # Δ = 2, 3, …
    assert values["effective_period"] == 2 + int(np.argmax(dist < 0.05)) == 88   # 88 ≈ 28π
    assert float(values["effective_period_distance_mp"]) < 0.05


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"max_len": 0}, InvalidParameter, "max_len=0 is too small; it must be >= 1"),
    ({"max_len": float("nan")}, InvalidParameter, "max_len=nan is not an integer"),
    ({"max_len": 10**12}, InvalidParameter, "at most 1000000000 is accepted"),
    ({"dps": 20}, InvalidParameter, "dps=20 is too small; it must be >= 50 .certification"),
    ({"checks": ["sepration"]}, UnknownName, "check='sepration' is not known; use one of bounds"),
    ({"dtypes": ["float8"]}, UnknownName, "dtype='float8' is not known; use float16, bfloat16"),
    ({"near_tol": float("nan")}, InvalidParameter, "near_tol=nan is not a finite number"),
    ({"near_tol": -1}, InvalidParameter, "near_tol=-1.0 must be > 0"),
    ({"near_range": (10, 5)}, InvalidParameter, r"near_range=\(10, 5\) must satisfy"),
    ({"near_range": 3}, InvalidParameter, "near_range=3; pass two offsets"),
    ({"seed": -1}, InvalidParameter, "seed=-1 is too small"),
])
def test_bad_input_is_refused_with_a_clear_message(kwargs: dict, error: type,
                                                   message: str) -> None:
    """Each bad parameter raises a posproof error (a ValueError) saying what to do."""
    with pytest.raises(error, match=message):
        check(preset("vaswani", dim=8), **{"max_len": 100, **kwargs})
    assert issubclass(error, ValueError)


def test_not_an_encoding_is_refused() -> None:
    """The first argument must be an Encoding."""
    with pytest.raises(InvalidParameter, match="is not an Encoding; build one with"):
        check("vaswani")  # type: ignore[arg-type]


def test_errors_inside_a_check_name_the_encoding_and_the_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Context at the public boundary: which encoding, which check."""
    def boom(*args: object, **kwargs: object) -> None:
        raise InvalidParameter("kernel too flat")

    monkeypatch.setattr(OffsetKernel, "first_increase", boom)
    with pytest.raises(InvalidParameter, match=r"^vaswani: check decay: kernel too flat$"):
        check(preset("vaswani", dim=8), max_len=100, checks=["decay"])


# --------------------------------------------------------------------------- the CLI
def test_cli_check_prints_the_verdict_table(capsys: pytest.CaptureFixture[str]) -> None:
    """`posproof check` prints one readable line per check and exits 0 when all pass."""
    code = main(["check", "--dim", "16", "--max-len", "2e3", "--check", "separation",
                 "--check", "decay"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "✓ separation" in out
    assert "min ‖PE(x+Δ)−PE(x)‖" in out
    assert "first rises" in out
    assert "verdict: OK — checks 2/2 pass" in out
    assert err == ""                 # stderr is not a terminal: no progress bar


def test_cli_check_json_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    """--json parses; "checks" objects have name, status and their values."""
    code = main(["check", "--preset", "binary", "--dim", "8", "--max-len", "100", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {"encoding", "ok", "theorems", "checks"} <= set(data)
    by_name = {c["name"]: c for c in data["checks"]}
    assert by_name["separation"]["status"] == "fail"
    assert by_name["periodicity"]["integer_period"] == 32


@pytest.mark.parametrize(("argv", "message"), [
    (["check", "--max-len", "0"], "max_len=0 is too small"),
    (["check", "--max-len", "-4"], "max_len=-4 is too small"),
    (["check", "--max-len", "lots"], "--length='lots' is not an integer; pass e.g. 1000000"),
    (["check", "-L", "nan"], "--length='nan' is not an integer"),
    (["check", "--max-len", "1e12"], "at most 1000000000 is accepted"),
    (["check", "--dtype", "float8"], "dtype='float8' is not known"),
    (["check", "--check", "nope"], "check='nope' is not known"),
    (["check", "--dps", "5"], "dps=5 is too small"),
    (["check", "--base", "nan"], "base"),
    (["check", "--dim", "7"], "dim=7 is odd"),
    (["verify", "--report", "/proc/no/such/dir"], "--report='/proc/no/such/dir' cannot be"),
])
def test_cli_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                                argv: list[str], message: str) -> None:
    """Bad input: exit status 2, one line on stderr, no traceback."""
    code = main(argv)
    _out, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert message in err


def test_cli_verify_runs_proofs_and_checks_and_writes_identical_reports(
        tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """verify = proofs + checks; --report writes report.json and summary.md, byte-identical."""
    first, second = tmp_path / "a", tmp_path / "b"  # type: ignore[operator]
    args = ["verify", "--dim", "4", "--max-len", "300", "--json"]
    assert main([*args, "--report", str(first)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["theorems"]
    assert data["checks"]
    assert all(t["status"] == "proved" for t in data["theorems"])
    assert {c["name"] for c in data["checks"]} == set(CHECKS)
    assert main([*args, "--report", str(second)]) == 0
    capsys.readouterr()
    for name in ("report.json", "summary.md"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    summary = (first / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("# posproof verify")
    assert "| ✓ | separation | pass |" in summary
    assert " s)" not in summary                           # no timings in files


def test_render_table_shows_summaries_and_failure_notes() -> None:
    """A failed check shows its note under its line; markdown carries no timing."""
    report = check(preset("binary", dim=8), max_len=100, checks=["separation"])
    table = render_table(report, "posproof check", 0.25)
    assert "✗ separation" in table
    assert "positions collide" in table
    assert "positions x and x+32 have the same encoding" in table
    assert "(0.2 s)" in table or "(0.3 s)" in table
    md = render_markdown(report, "posproof check")
    assert "**verdict: CHECK FAILED — checks 0/1 pass" in md


def test_progress_bar_draws_and_clears() -> None:
    """The tiny progress bar writes one carriage-return line and erases it when closed."""
    stream = io.StringIO()
    bar = ProgressBar(stream)
    bar("separation", 0, 10)
    bar("separation", 5, 10)
    bar("separation", 5, 10)                               # unchanged: not redrawn
    bar.close()
    text = stream.getvalue()
    assert text.count("\r") == 4                            # two draws, then erase and return
    assert "separation" in text
    assert " 50%" in text
    assert "#" * 12 in text
    assert text.endswith("\r")
