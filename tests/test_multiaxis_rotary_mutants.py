"""check_multi_rotary from both sides of each threshold (issue 21 §3): NaN outputs, positions
beyond the first 16, and the angle tolerance (float64 unless ``angles=`` says otherwise)."""

from __future__ import annotations

import numpy as np
import pytest

from posproof.model.multirope import mrope
from posproof.testing import check_rotary
from posproof.testing.rope.grid import check_multi_rotary

ROT = mrope(10000, 32, [4, 6, 6])


def _exact(dtype=np.float32):
    def apply_fn(x, positions):
        return ROT.apply(np.asarray(x, dtype=np.float64), positions).astype(dtype)
    return apply_fn


def _angles32(x, positions):
    """M-RoPE as HF forms it: m·θ in float32 (positions and θ rounded first)."""
    pos = np.asarray(positions)
    axes = np.asarray(ROT.pair_axes)
    theta = ROT.frequencies_float.astype(np.float32)
    ang = pos[axes].T.astype(np.float32) * theta[None, :]             # (L, pairs) float32
    out = ROT.rotary.rotate(np.asarray(x, dtype=np.float64), ang.astype(np.float64))
    return out.astype(np.float32)


def test_a_nan_output_at_one_position_fails() -> None:
    good = check_multi_rotary(_exact(), ROT)
    assert good.ok
    assert good.checks[0]["status"] == "pass"

    def nan_at_one(x, positions):
        out = _exact()(x, positions)
        out[..., 20, :] = np.nan
        return out

    bad = check_multi_rotary(nan_at_one, ROT)
    assert not bad.ok
    assert bad.checks[0]["status"] == "fail"
    assert 20 in bad.bad_positions


def test_positions_reach_max_position() -> None:
    """An impl right only below position 1024 (a cached table of 1024 rows, clamped) fails at
    the default max_position 4096 and passes when every position drawn is below 1024."""
    def clamped(x, positions):
        return _exact()(x, np.minimum(np.asarray(positions), 1023))

    bad = check_multi_rotary(clamped, ROT)
    assert not bad.ok
    assert bad.max_position >= 1024
    good = check_multi_rotary(clamped, ROT, max_position=1024)
    assert good.ok
    assert good.max_position <= 1023
    # an impl right only below 16 fails even at max_position=17 (a position of 16 is drawn)
    assert not check_multi_rotary(lambda x, p: _exact()(x, np.minimum(np.asarray(p), 15)),
                                  ROT, max_position=64).ok


def test_float32_angles_need_angles_float32() -> None:
    """m·θ formed in float32 is outside the default tolerance (angles in float64, whatever
    the output dtype) and within angles="float32"; the exact rotation is within both."""
    default = check_multi_rotary(_angles32, ROT, dtype="float32")
    assert not default.ok
    assert default.tolerance["angles"] == "float64"
    assert check_multi_rotary(_angles32, ROT, dtype="float32", angles="float32").ok
    assert check_multi_rotary(_exact(), ROT, dtype="float32").ok
    # via the public entry point too
    assert not check_rotary(_angles32, ROT, dtype="float32").ok
    assert check_rotary(_angles32, ROT, dtype="float32", angles="float32").ok


@pytest.mark.parametrize("out", [np.float64, np.float32])
def test_the_coarser_of_input_and_output_is_judged(out) -> None:
    """float64 in, float32 out: judged at float32 (4·eps32), so the float32-rounded exact
    rotation passes; float64 in and out: a float32 rounding is 2³⁰ times too coarse."""
    rep = check_multi_rotary(lambda x, p: _exact(out)(x, p).astype(out), ROT, dtype="float64")
    assert rep.ok
    assert rep.dtype == np.dtype(out).name
    coarse = check_multi_rotary(lambda x, p: _exact(np.float32)(x, p).astype(np.float64), ROT,
                                dtype="float64")
    assert not coarse.ok


def test_a_coarser_input_dtype_is_judged_even_when_the_output_is_wider() -> None:
    """float16 in, float64 out (the impl widens its float16 result): judged at float16."""
    def widened(x, p):
        return _exact(np.float16)(x, p).astype(np.float64)

    rep = check_multi_rotary(widened, ROT, dtype="float16")
    assert rep.ok
    assert rep.dtype == "float16"
    # the other side: a float16 rounding is too coarse when the input is float32
    assert not check_multi_rotary(widened, ROT, dtype="float32").ok
