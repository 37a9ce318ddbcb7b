"""Every rotary bug of tests/bug_corpus.py comes back with its *name* as the first line of the
explanation (issue 29 item 7a): check_rotary, assert_rotary and ``posproof check-impl``.

The name is confirmed by regeneration (the bug's rotation reproduces the impl within
tolerance), and the message carries no unrelated hint: no "angles formed in lower
precision on purpose?" line under a wrong layout, base or exponent, no "an attention
factor?" scale under a rotation that is not one.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from bug_corpus import ROTARY_BUGS, ROTARY_VARIANTS, H, first_words, hf_rope, pair_index, run

import posproof
from posproof.cli import app as cli
from posproof.testing import assert_encoding, assert_rotary, check_encoding, check_rotary

NAMED = ROTARY_BUGS + ROTARY_VARIANTS
GENERIC_ANGLES = "angles formed in lower precision on purpose?"
PRECISION = ("angles-", "positions-")
TESTS = Path(__file__).resolve().parent


def _first_line(report: object) -> str:
    return (report.explanation or "").splitlines()[0]


@pytest.mark.parametrize("bug", NAMED, ids=[b.id for b in NAMED])
def test_check_rotary_names_the_bug_first(bug: object) -> None:
    report, given = run(bug)
    assert not report.ok
    assert given == bug.expected, report.explanation
    assert _first_line(report).startswith(first_words(bug)), report.explanation
    best = report.hypotheses[0]
    assert best["fits"]
    assert best["score"] <= 1.0
    assert f"most likely: {first_words(bug)}" in report.message
    if not bug.expected.startswith(PRECISION):            # no unrelated hints
        assert GENERIC_ANGLES not in report.message
        assert "angles=" not in report.message, report.message
    if bug.expected != "scale":
        assert "attention factor" not in report.message


@pytest.mark.parametrize("bug", [b for b in NAMED if b.expected in (
    "mixup", "exponent-i/d", "column-index", "positions-float16", "exponent-head-dim")]
    + [ROTARY_VARIANTS[2]], ids=lambda b: b.id)
def test_assert_rotary_raises_with_the_name(bug: object) -> None:
    kw = {**bug.params, **bug.kwargs}
    with pytest.raises(AssertionError) as raised:
        assert_rotary(bug.build(), **({} if "spec" in kw else {"head_dim": H}), **kw)
    lines = str(raised.value).splitlines()
    named = [ln for ln in lines if ln.startswith("most likely: ")]
    assert len(named) == 1
    assert named[0].startswith(f"most likely: {first_words(bug)}")


def test_mixup_gets_no_scale_suggestion() -> None:
    """repeat_interleave'd cos/sin under rotate_half: cos² + sin² is not constant, so the
    fingerprint's median radius (0.757) is no attention factor and is not suggested."""
    report = check_rotary(hf_rope(interleave=True), head_dim=H)
    conv = next(c for c in report.checks if c["name"] == "convention")
    assert not any("scaled by" in d for d in conv["differences"])
    assert not any(h["key"] == "scale" for h in report.hypotheses)
    assert "0.757" not in report.explanation


def test_exponent_bug_says_the_effective_base() -> None:
    report = check_rotary(hf_rope(exponent="i/d"), head_dim=H)
    assert _first_line(report).startswith(
        "exponent i/d instead of 2i/d: θ_i = 10000^(−i/64)")
    assert "effective base 100 = √10000, not 10000" in report.explanation
    assert not report.explanation.startswith("base 100")
    # rope_theta 500000: √500000 is no simple number, the exponent is still named
    report = check_rotary(hf_rope(exponent="i/d", base=500000.0), head_dim=H, base=500000)
    assert "effective base 707.107 = √500000" in _first_line(report)


def test_exponent_bug_in_a_table_says_i_over_d_and_the_effective_base() -> None:
    """`pos / 10000 ** (i / d)` over the pair index in a sinusoidal table: the same frequencies
    as an exponent over 2d; both readings are named on the first line, with the base."""
    report = check_encoding(pair_index(), "vaswani")
    first = _first_line(report)
    assert report.hypotheses[0]["fits"]
    assert "exponent i/d instead of 2i/d" in first
    assert "effective base 100 = √10000, not 10000" in first
    with pytest.raises(AssertionError, match="exponent i/d instead of 2i/d"):
        assert_encoding(pair_index(), "vaswani")


def test_column_index_bug_under_bfloat16_angles_is_named_first() -> None:
    """`10000 ** (i / d)` with the column index in a 3000 × 384 table under
    angles="bfloat16": the bug (a 2.4 % slower odd column) is above bfloat16's rounding model,
    so its regeneration is no no-op and is named on the first line, confirmed."""
    x = np.arange(3000, dtype=np.float64)[:, None]
    col = np.arange(384)
    angle = x * 10000.0 ** (-(col / 384))[None]
    bug = np.where(col % 2 == 0, np.sin(angle), np.cos(angle))
    report = check_encoding(bug, "vaswani", angles="bfloat16")
    assert not report.ok
    first = _first_line(report)
    assert report.hypotheses[0]["fits"]
    assert report.hypotheses[0]["key"] == "column-index"
    assert first.startswith("dims 2i and 2i+1 use different frequencies: the exponent runs "
                            "over the column index j")
    assert "confirmed: regenerating" in first
    assert "most likely: dims 2i and 2i+1" in report.message
    assert "no explanation confirmed" not in report.message


def test_float16_angles_at_the_default_positions_are_named_with_the_phase_loss() -> None:
    """Past 65504 float16 overflows (NaN); the explanation regenerates the float16 angles at
    the finite positions and NaN exactly at the others, and says how far the angles are off
    at the 4k–32k positions where users meet the bug."""
    report = check_rotary(hf_rope(angles="float16"), head_dim=H)
    assert report.checks[0]["name"] == "finite"
    assert _first_line(report).startswith("float16 angles")
    loss = re.search(r"by ([0-9.e+-]+) rad at position (\d+)", report.explanation)
    assert loss is not None
    assert 4096 <= int(loss.group(2)) <= 32768
    assert float(loss.group(1)) > 0.1
    assert "and its NaN or inf at positions 65535, where float16 overflows" in \
        report.explanation
    assert report.hypotheses[0]["fits"]


def test_nan_past_65504_alone_is_not_called_float16() -> None:
    """A float32 rotation with NaN injected past 65504: the NaN positions fit float16's
    overflow, the finite values do not fit float16 angles; nothing is confirmed."""
    good = hf_rope()

    def impl(x: object, positions: object) -> object:
        out = good(x, positions).clone()
        out[..., np.asarray(positions) > 65504, :] = float("nan")
        return out

    report = check_rotary(impl, head_dim=H)
    assert not report.ok
    assert report.explanation.startswith("the impl returns NaN or inf at positions 65535")
    assert not report.hypotheses


def test_generic_angles_line_stays_where_precision_is_plausible() -> None:
    """The spec's convention with a small unexplained angle error (a phase of 10⁻³ rad): a
    precision choice is plausible there and the angles= line is still shown; a wrong base
    does not get it."""
    rot = posproof.rotary(10000, 16)
    theta = rot.frequencies_float

    def off(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        ang = np.multiply.outer(np.asarray(positions, dtype=np.float64), theta) + 1e-3
        cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
        half = np.concatenate([-x[..., 8:], x[..., :8]], -1)
        return x * cos + half * sin

    report = check_rotary(off, head_dim=16, dtype="float64")
    assert not report.ok
    assert report.explanation.startswith("no explanation confirmed")
    # 10⁻³ rad is within bfloat16's rounding model (eps_bfloat16 = 2⁻⁷ at any position):
    # the angles= line names it
    assert report.accepted_with_angles == "bfloat16"
    assert 'pass angles="bfloat16"' in report.message
    assert "its rounding model" in report.message
    wrong = check_rotary(posproof.rotary(500000, 16).apply, head_dim=16, dtype="float64")
    assert GENERIC_ANGLES not in wrong.message


# ----------------------------------------------------------------- posproof check-impl
_MODULE = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
from bug_corpus import hf_rope
MIXUP = hf_rope(interleave=True)
EXPONENT = hf_rope(exponent="i/d")
FP16 = hf_rope(angles="float16")
BASE = hf_rope(base=500000.0)
"""


@pytest.mark.parametrize(("attr", "name"), [
    ("MIXUP", "half-split/interleaved mix-up"),
    ("EXPONENT", "exponent i/d instead of 2i/d"),
    ("FP16", "float16 angles"),
    ("BASE", "base 500000, not 10000"),
])
def test_check_impl_names_the_bug(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  attr: str, name: str) -> None:
    (tmp_path / "user_rope.py").write_text(_MODULE)
    status = cli.main(["check-impl", f"{tmp_path / 'user_rope.py'}:{attr}", "rope:dim=64",
                       "--rotary"])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    named = [ln for ln in out.splitlines() if ln.startswith("most likely: ")]
    assert len(named) == 1, out
    assert named[0].startswith(f"most likely: {name}"), out
    if attr != "FP16":
        assert GENERIC_ANGLES not in out
        assert "attention factor" not in out
