"""Issue 29, item 1b: a declared angle dtype widens the tolerance only by what that dtype's
rounding of ω and of x·ω can produce (the model: ω formed in the dtype from its exponent,
2·|ln ω| + 3 roundings, x·ω rounded once more), not 16·eps_angles·|x·ω|; a table the declared
dtype leaves mostly unjudged is no pass."""

from __future__ import annotations

import numpy as np
import pytest

import posproof
from posproof.testing import assert_encoding, check_encoding
from posproof.testing.core.judging import Tolerance

torch = pytest.importorskip("torch")

L, D = 3000, 384
X = np.arange(L)[:, None].astype(np.float64)
COL = np.arange(D)


def _table(angle: np.ndarray) -> np.ndarray:
    out = np.empty((angle.shape[0], 2 * angle.shape[1]))
    out[:, 0::2], out[:, 1::2] = np.sin(angle), np.cos(angle)
    return out


def test_column_index_bug_does_not_pass_under_bfloat16_angles() -> None:
    """``10000 ** (i / d)`` with the column index: odd columns 2.4 % slow, far above what
    bfloat16 angles can err on the fast columns (4 roundings of 2^−8 at ω ≈ 1)."""
    w = 10000.0 ** (-(COL / D))
    angle = X * w[None]
    bug = np.where(COL % 2 == 0, np.sin(angle), np.cos(angle))
    report = check_encoding(bug, "vaswani", angles="bfloat16")
    assert not report.ok
    assert report.checks[0]["status"] in ("fail", "unknown")
    assert "dims 2i and 2i+1 use different frequencies" in report.message
    with pytest.raises(AssertionError):
        assert_encoding(bug, "vaswani", angles="bfloat16")


@pytest.mark.parametrize("way", ["rounded", "exp", "pow"])
def test_correct_tables_with_bfloat16_angles_pass(way: str) -> None:
    x = torch.arange(L)[:, None]
    if way == "rounded":                              # ω in float64, cast, x·ω in bfloat16
        w = torch.tensor(10000.0 ** (-np.arange(0, D, 2) / D)).to(torch.bfloat16)
    elif way == "exp":                                # the tutorial's div_term, in bfloat16
        w = torch.exp(torch.arange(0, D, 2, dtype=torch.bfloat16)
                      * torch.tensor(-np.log(10000.0) / D, dtype=torch.bfloat16))
    else:                                             # 1 / base ** (2i / d), in bfloat16
        w = 1.0 / (torch.tensor(10000.0, dtype=torch.bfloat16)
                   ** (torch.arange(0, D, 2, dtype=torch.bfloat16) / D))
    angle = (x * w[None]).double().numpy()
    report = check_encoding(_table(angle), "vaswani", angles="bfloat16")
    assert report.ok, report.message
    assert report.label.startswith("pass (judged ")


def test_the_angle_term_is_the_model_not_16_eps() -> None:
    tol = Tolerance.of("float64", angles="bfloat16", model=True)
    u = 2.0 ** -8
    assert tol.angle_of(np.array([1.0]))[0] == pytest.approx(4 * u / (1 - 4 * u), rel=1e-9)
    k = 2 * abs(np.log(1e-4)) + 4
    assert tol.angle_of(np.array([1e-4]))[0] == pytest.approx(k * u / (1 - k * u), rel=1e-9)
    # at position 16, ω = 1: about 0.25 rad, not 16·2^−7·16 = 2 rad
    assert tol.at(16, 1.0) == pytest.approx(4 * 2.0 ** -52 + 2.0 ** -7 + 16 * 4 * u / (1 - 4 * u))
    assert tol.at(16, 1.0) < 0.3
    assert "k = 2·|ln ω| + 4, u = 2^−8" in tol.formula
    # the model is the default (the rotary checks use it too); the old flat 16·eps_angles
    # only on request
    assert Tolerance.of("float64", angles="bfloat16") == tol
    assert Tolerance.of("float64", angles="bfloat16", model=False).angle == 16 * 2.0 ** -7


def test_mostly_unjudged_under_a_declared_dtype_is_no_pass() -> None:
    """From position 126 on, bfloat16 angles leave the fastest column unjudged; a table whose
    columns are all fast (d = 2) is judged on its first rows only: unknown, not a pass."""
    enc = posproof.preset("vaswani", dim=2)
    table = enc.table(np.arange(0, 1000))
    report = check_encoding(table, enc, angles="bfloat16")
    assert not report.ok
    assert report.checks[0]["status"] == "unknown"
    assert "most entries not judged" in report.message
