"""A tolerance that covers the whole range of values judges nothing (issue 21 §1, §2, §5).

|entries| ≤ |scale|, so at an entry whose tolerance is ≥ 2×|scale| any value passes: such
entries are not judged.  A check passes only on judged entries and says how many it judged;
``angles=`` is suggested only when its tolerance judges half the table at least and no
mistake reproduces the table; identify reaches the verdict assert_encoding reaches.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import posproof
from posproof.measure.numeric import dtype_model
from posproof.testing import assert_encoding, check_encoding, check_rotary, identify
from posproof.testing.core.judging import VACUOUS, Coverage, Tolerance, judges_little


def _column_index_bug(rows: int = 2048, d: int = 512) -> np.ndarray:
    """``pos / 10000 ** (j / d)`` over the column index j instead of 2⌊j/2⌋ (float64)."""
    pos = np.arange(rows, dtype=np.float64)[:, None]
    j = np.arange(d)
    ang = pos / 10000 ** (j / d)
    return np.where(j % 2 == 0, np.sin(ang), np.cos(ang))


def _float16_angles(rows: int = 2048, dim: int = 64) -> np.ndarray:
    """vaswani with positions and frequencies rounded to float16 and x·ω formed in float16."""
    enc = posproof.preset("vaswani", dim=dim)
    m = dtype_model("float16")
    x = m.round(np.arange(rows, dtype=np.float64))
    w = m.round(enc.column_frequencies_float)
    a = m.multiply(x[:, None], w[None, :])
    funcs = np.asarray(enc.column_funcs)
    return np.where(funcs == "sin", np.sin(a), np.cos(a)).astype(np.float16)


# ------------------------------------------------------------------ the rule itself
def test_an_entry_is_judged_only_below_two() -> None:
    tol = Tolerance.of("float64", angles="bfloat16", model=False)  # 16·(eps64 + 2⁻⁷·|x·ω|)
    # 0.125·x ≥ 2 from x = 16 (the eps64 term tips x = 16 over; x = 15.99 stays under)
    x = np.array([15.99, 16.0, 17.0])
    cov = Coverage(1)
    cov.add(tol.entries(x, np.array([1.0])), x, np.arange(1), tol)
    assert (cov.judged, cov.total) == (1, 3)
    assert cov.first_position() == 16
    assert VACUOUS == 2.0
    scaled = Tolerance.of("float64", angles="bfloat16", scale=4.0, model=False)  # up to 4
    cov = Coverage(1)
    cov.add(scaled.entries(x, np.array([1.0])), x, np.arange(1), scaled)
    assert cov.judged == 1                                  # 0.5·x ≥ 8 = 2×|scale| alike
    assert judges_little(np.array([1.9, 2.0, 2.1]))
    assert not judges_little(np.array([1.9, 1.99, 2.1]))


# ------------------------------------------------------------------ §1 the column-index bug
@pytest.fixture(scope="module")
def bug() -> np.ndarray:
    return _column_index_bug()


def test_the_column_index_bug_is_not_offered_angles_bfloat16(bug: np.ndarray) -> None:
    report = check_encoding(bug, "vaswani")
    assert not report.ok
    assert report.accepted_with_angles is None
    assert 'pass angles="bfloat16"' not in report.message
    assert report.hypotheses[0]["key"] == "column-index"
    assert "the table is within it" not in report.message


def test_angles_bfloat16_fails_the_bug(bug: np.ndarray) -> None:
    """Issue 29 §1b: the declared dtype's rounding model (ω formed in bfloat16, x·ω rounded)
    is far narrower than the bug on the fast odd columns: a fail, naming the bug."""
    report = check_encoding(bug, "vaswani", angles="bfloat16")
    assert not report.ok
    assert report.checks[0]["status"] == "fail"
    assert set(report.bad_dims) <= set(range(1, 512, 2))
    assert "dims 2i and 2i+1 use different frequencies" in report.message
    assert json.loads(json.dumps(report.to_dict(), default=str))["label"] == "fail"


def test_a_table_judged_nowhere_does_not_pass() -> None:
    """Rows from 128 on: under angles="bfloat16" the fastest column's tolerance (4 roundings
    of 2^−8 times x, plus the output's) is ≥ 2 at every row; a table of the fastest pair
    only is judged nowhere."""
    enc = posproof.preset("vaswani", dim=2)                    # ω = 1 only
    table = np.zeros((64, 2))                                  # anything at all
    report = check_encoding(table, enc, first_position=128, angles="bfloat16")
    assert not report.ok
    assert report.checks[0]["status"] == "unknown"
    assert report.label == "unknown"
    assert report.message.startswith("impl not judged against")
    with pytest.raises(AssertionError, match="nothing judged"):
        assert_encoding(table, enc, first_position=128, angles="bfloat16")
    # from position 8 the negated table fails where it is judged
    failed = check_encoding(-enc.table(np.arange(8, 72)), enc, first_position=8,
                            angles="bfloat16")
    assert not failed.ok
    assert failed.checks[0]["status"] == "fail"
    # the right table starting at 120 is judged on its first rows only: most entries unjudged,
    # no pass; from 0 it is judged everywhere and passes
    few = check_encoding(enc.table(np.arange(120, 184)), enc, first_position=120,
                         angles="bfloat16")
    assert not few.ok
    assert few.checks[0]["status"] == "unknown"
    assert "most entries not judged" in few.message
    good = check_encoding(enc.table(np.arange(0, 64)), enc, angles="bfloat16")
    assert good.ok
    assert good.label == "pass"


def test_a_complete_pass_is_a_bare_pass_with_evidence_all() -> None:
    report = assert_encoding(posproof.preset("vaswani", dim=64).table(2048), "vaswani")
    assert report.label == "pass"
    assert report.evidence.coverage == "all"
    assert "coverage" not in report.checks[0]


def test_a_callable_checked_at_some_positions_is_a_sample() -> None:
    enc = posproof.preset("vaswani", dim=16)
    report = assert_encoding(enc.table, enc)              # 576 of the 8192 default positions
    assert report.evidence.coverage == "sample"
    assert (report.evidence.covered, report.evidence.total) == (576 * 16, 8192 * 16)
    assert report.label == f"pass (sampled: {576 * 16} of {8192 * 16} entries)"


# ------------------------------------------------------------------ §2 one verdict everywhere
@pytest.fixture(scope="module")
def f16() -> np.ndarray:
    return _float16_angles()


def test_identify_and_assert_encoding_agree_on_float16_angles(f16: np.ndarray) -> None:
    found = identify(f16)
    default = check_encoding(f16, "vaswani")
    widened = check_encoding(f16, "vaswani", angles="float16")
    assert not default.ok                              # the default check: angles in float64
    assert default.accepted_with_angles == "float16"
    assert widened.ok
    # identify: a match only under the tolerance of angles formed in float16, on the
    # entries that tolerance judges — the numbers assert_encoding reports
    assert found.matched
    assert found.angles == "float16"
    assert "assert_encoding's default, angles formed in float64, fails" in found.summary
    assert found.coverage["judged"] == widened.evidence.covered == 125288
    assert found.coverage["entries"] == widened.evidence.total == 2048 * 64
    assert found.coverage["not_judged_from_position"] == 1020
    assert "positions ≥ 1020" in default.message
    assert widened.label == ("pass (judged 125288 of 131072 entries; positions ≥ 1020 not "
                             "judged at this dtype)")


def test_identify_of_a_rounded_exact_table_needs_no_angles() -> None:
    table = posproof.preset("vaswani", dim=64).table(2048, dtype="float16")
    found = identify(table)
    assert found.matched
    assert found.angles is None
    assert found.coverage == {"judged": 2048 * 64, "entries": 2048 * 64}
    assert check_encoding(table, "vaswani").ok


def test_identify_refuses_a_match_judged_at_less_than_half() -> None:
    """bfloat16 angles over 8192 rows of dim 8: the tolerance of angles formed in bfloat16
    is ≥ 2 at most entries; identify does not call that a match, and assert_encoding does
    not suggest angles="bfloat16"."""
    enc = posproof.preset("vaswani", dim=8)
    m = dtype_model("bfloat16")
    x = m.round(np.arange(8192, dtype=np.float64))
    a = m.multiply(x[:, None], m.round(enc.column_frequencies_float)[None, :])
    funcs = np.asarray(enc.column_funcs)
    import ml_dtypes

    table = np.where(funcs == "sin", np.sin(a), np.cos(a)).astype(ml_dtypes.bfloat16)
    found = identify(table)
    assert not found.matched
    assert "judges little (24968 of 65536 entries): not a match" in found.summary
    report = check_encoding(table, enc)
    assert not report.ok
    # positions rounded to bfloat16 (collided from 256 on): float16's model does not hold it
    assert report.accepted_with_angles is None
    # the bfloat16 tolerance alone: within it, but judged at less than half — not suggested
    from posproof.testing.absolute.check import suggest_angles
    from posproof.testing.core.reports import ImplReport

    probe = ImplReport(False, "encoding", {}, "bfloat16", 0, 0)
    cov = Coverage(8)
    cov.judged, cov.total = 11522, 32768
    cov.first[0] = 15
    suggest_angles(probe, ("bfloat16", cov))
    assert probe.accepted_with_angles is None
    assert "judges little (judged 11522 of 32768 entries" in probe.angles_note
    cov.judged = 16384                                     # exactly half: suggested
    suggest_angles(probe, ("bfloat16", cov))
    assert probe.accepted_with_angles == "bfloat16"
    assert check_encoding(table, enc, angles="float16").label != "pass"


def test_check_impl_prints_the_same_verdict(f16: np.ndarray, tmp_path, capsys) -> None:
    from posproof.cli.testing import main

    path = tmp_path / "pe16.py"
    np.save(tmp_path / "t.npy", f16)
    path.write_text(f"import numpy as np\nT = np.load({str(tmp_path / 't.npy')!r})\n")
    assert main(["check-impl", f"{path}:T", "--preset", "vaswani"]) == 1
    out = capsys.readouterr().out
    assert 'pass angles="float16"' in out
    assert "positions ≥ 1020" in out
    assert main(["check-impl", f"{path}:T", "--preset", "vaswani", "--angles", "float16",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["label"].startswith("pass (judged 125288 of 131072 entries")
    assert data["evidence"]["coverage"] == "sample"


# ------------------------------------------------------------------ rotary
def test_rotary_with_float16_angles_at_large_positions_is_judged_in_part() -> None:
    rot = posproof.rotary(10000, 16)
    def apply_fn(x, pos):
        return rot.apply(np.asarray(x, dtype=np.float64), pos)

    report = check_rotary(apply_fn, rot, dtype="float64", angles="float16",
                          max_position=16384)
    assert report.ok, report.message
    assert report.label.startswith("pass (judged ")
    assert report.evidence.coverage == "sample"
    # up to 65536, float16's rounding model judges fewer than half the entries drawn
    # beyond the first 64 positions: unknown, no pass
    far = check_rotary(apply_fn, rot, dtype="float64", angles="float16")
    assert not far.ok
    assert far.label == "unknown"
    assert "most entries not judged under angles='float16'" in far.message
    full = check_rotary(apply_fn, rot, dtype="float64", max_position=4096)
    # 96 positions of 4096, every basis vector (16) and channel (16): a sample, every
    # entry of it judged
    assert full.ok
    assert full.label == f"pass (sampled: {96 * 256} of {4096 * 256} entries)"
    assert full.evidence.coverage == "sample"
    assert (full.evidence.covered, full.evidence.total) == (96 * 256, 4096 * 256)
