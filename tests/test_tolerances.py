"""The tolerances of assert_rotary, tested from both sides.

A defect just beyond a tolerance fails, just inside passes, and the tolerance
reported is the documented one: 4·eps of the output + 16·eps64·|m·θ| by
default (the exact rotation rounded to the dtype); with ``angles=``, that dtype's
rounding model, 4·eps + eps_angles + γ_k·|m·θ| with γ_k = k·u/(1 − k·u),
k = 2·|ln θ| + 4 (θ formed in the dtype from its exponent, m·θ rounded once
more).  assert_encoding's are in test_testing.py, posproof.check's in
test_check_thresholds.py; check-impl ``--angles`` / ``--scale`` and the plugin's
``--posproof-angles`` in test_cli_testing.py and test_plugin.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import posproof
from posproof.testing import check_rotary
from posproof.testing.absolute.read import Tolerance
from posproof.testing.rope.check import relative_property

H = 32
ROT = posproof.rotary(10000, H)
EPS32, EPS64 = 2.0**-23, 2.0**-52
U32 = 2.0**-24


def gamma32(theta: float) -> float:
    """The model's angle coefficient for float32 angles at frequency θ (k roundings of u)."""
    k = 2 * abs(np.log(theta)) + 4
    return k * U32 / (1 - k * U32)


def bumped(delta: float, position: int, channel: int, out_channel: int):
    """ROT.apply with R(position)·e_channel off by ``delta`` in ``out_channel`` (float64 out)."""
    def apply(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        y = ROT.apply(np.asarray(x, dtype=np.float64), pos)
        hit = np.flatnonzero(np.asarray(pos) == position)
        y[..., hit, out_channel] += delta * x[..., hit, channel]
        return y
    return apply


def float32_angles(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """HF's rotary: inv_freq @ position_ids in float32, rotate_half."""
    ang = np.outer(pos.astype(np.float32), ROT.frequencies_float.astype(np.float32))
    cos = np.tile(np.cos(ang.astype(np.float64)), 2)
    sin = np.tile(np.sin(ang.astype(np.float64)), 2)
    half = np.concatenate([-x[..., H // 2:], x[..., :H // 2]], -1)
    return x * cos + half * sin


def test_rotary_default_tolerance_from_both_sides() -> None:
    """R(m)·e_0 off by 0.9 × (4·eps32 + 16·eps64·|m·θ|) passes, by 1.1 × fails."""
    m, theta = 10, 1.0                        # channel 0 and its partner 16 turn at θ_0 = 1
    tol = 4 * EPS32 + 16 * EPS64 * m * theta
    for factor, ok in ((0.9, True), (1.1, False)):
        report = check_rotary(bumped(factor * tol, m, 0, 0), head_dim=H)
        assert report.ok is ok, (factor, report.checks)
        assert report.tolerance["out"] == 4 * EPS32
        assert report.tolerance["angle"] == 16 * EPS64
    assert report.worst["tolerance"] == pytest.approx(tol, rel=1e-12)
    assert (report.worst["position"], report.worst["input_channel"]) == (m, 0)


def test_rotary_float32_angles_fail_by_default_and_pass_when_declared() -> None:
    report = check_rotary(float32_angles, head_dim=H)
    assert not report.ok
    assert report.accepted_with_angles == "float32"
    assert 'angles="float32"' in report.message
    declared = check_rotary(float32_angles, head_dim=H, angles="float32")
    assert declared.ok, declared.message
    assert declared.tolerance["angle"] == pytest.approx(gamma32(1.0), rel=1e-9)   # γ_4
    assert declared.tolerance["angle"] < 16 * EPS32 / 7           # not the old 16·eps32
    assert "k = 2·|ln θ| + 4, u = 2^−24" in declared.tolerance["formula"]
    assert "m·θ rounded to float32" in declared.tolerance["formula"]


def test_rotary_declared_angles_tolerance_from_both_sides() -> None:
    m = 5000
    theta = float(ROT.frequencies_float[1])    # channel 1, partner 17
    tol = 4 * EPS32 + EPS32 + gamma32(theta) * m * theta      # the model, ≈ 1/8 of 16·eps
    for factor, ok in ((0.9, True), (1.1, False)):
        report = check_rotary(bumped(factor * tol, m, 1, 1), head_dim=H, angles="float32",
                              max_position=m + 1)
        status = {c["name"]: c["status"] for c in report.checks}
        assert (status["matches_spec"] == "pass") is ok, (factor, report.checks)


def pairs_and_theta() -> tuple[list[tuple[int, int]], np.ndarray]:
    return ROT.pairs, ROT.frequencies_float


def test_relative_property_tolerance_from_both_sides() -> None:
    """An angle error at one position of 0.9 × / 1.1 × the per-pair bound of the relative
    property, 4·|q|·|k|·(16·eps + angle·2·span·θ), passes / fails (slow pair 15)."""
    pairs, theta = pairs_and_theta()
    q = np.zeros(H)
    k = np.zeros(H)
    q[15], k[15] = 1.0, 1.0                                  # pair (15, 31) only
    m, n, s = 1000, 3000, 500
    tol = Tolerance.of("float64")
    bound = 4 * (16 * EPS64 + tol.angle * 2 * (n + s) * theta[15])

    def skewed(err: float):
        def apply(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
            shift = np.where(np.asarray(pos) == n + s, err / theta[15], 0.0)
            return ROT.apply(x, np.asarray(pos, dtype=np.float64) + shift)
        return apply

    for factor, ok in ((0.9, True), (1.1, False)):
        # the dot of the pair is cos((n+s−m−s)θ + err): off by ≈ |sin(...)|·err
        angle = (n - m) * theta[15]
        err = factor * bound / abs(np.sin(angle))
        rel, norm = relative_property(skewed(err), pairs, theta, q, k, [m], [n], [s], tol)
        assert (rel["status"] == "pass") is ok, (factor, rel)
        assert norm["status"] == "pass"
