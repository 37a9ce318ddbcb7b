"""posproof.check's tolerances, tested from both sides (issue 13 §1).

Each check gets a defect a little beyond its tolerance (float32 drift in the
float64 table, a Gram entry off by twice the bound, T(Δ) rounded to float32)
that must fail, and one within it (an ulp or a quarter of the bound) that must
pass; the reported tolerance values are compared with the documented formulas.
A tolerance multiplied by 2²⁹ (what the test audit tried) fails the first
kind; one that is too tight fails the second.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

import numpy as np
import pytest

import posproof.measure.translation as translation
from posproof import check, preset
from posproof.measure.numeric import TRIG_ULPS, U

D = 16
N = D // 2
T_TRIG = TRIG_ULPS * U


def perturbed(change: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> object:
    """vaswani, d = 16, whose float64 table goes through ``change(table, positions)``."""
    base = preset("vaswani", dim=D)

    class Perturbed(type(base)):  # type: ignore[misc]
        def table(self, positions: object, dtype: object = np.float64) -> np.ndarray:
            t = super().table(positions, dtype)
            pos = (np.arange(self.offset, self.offset + positions) if isinstance(positions, int)
                   else np.asarray(positions))
            return change(t.copy(), pos)

    enc = copy.copy(base)
    enc.__class__ = Perturbed
    return enc


def run(enc: object, name: str) -> object:
    return check(enc, max_len=300, checks=[name])[name]


# --------------------------------------------------------------------------- bounds
def test_bounds_tolerance_from_both_sides() -> None:
    exact = run(preset("vaswani", dim=D), "bounds")
    tol = exact.values["tolerance_norm_squared"]
    # documented: n/2 pairs × (2√2·t + 2t²) from sin, cos, + γ_d·n·(1 + 3t) from the sum, ×1.01
    gamma = D * U / (1 - D * U)
    assert tol == pytest.approx(1.01 * (N / 2 * (2 * math.sqrt(2) * T_TRIG + 2 * T_TRIG**2)
                                        + gamma * N * (1 + 3 * T_TRIG)), rel=1e-12)
    assert exact.status == "pass"
    # within: every entry an ulp low (‖PE‖² off by 4u·n ≪ tol; |PE_i| stays ≤ 1)
    inside = run(perturbed(lambda t, p: t * (1 - 2 * U)), "bounds")
    assert inside.status == "pass", inside.note
    # beyond: float32 drift (6e-8 per entry, 1e6 × tol)
    drift = run(perturbed(lambda t, p: t.astype(np.float32).astype(np.float64)), "bounds")
    assert drift.status == "fail"
    # beyond: one row whose ‖PE‖² is off by 3·tol (entries scaled by 1 + 1.5·tol/n)
    def scaled_row(t: np.ndarray, p: np.ndarray) -> np.ndarray:
        t[p == 5] *= 1 + 1.5 * tol / N
        return t

    row = run(perturbed(scaled_row), "bounds")
    assert row.status == "fail"
    assert row.values["worst_row_position"] == 5


# --------------------------------------------------------------------------- toeplitz
def test_toeplitz_tolerance_from_both_sides() -> None:
    exact = run(preset("vaswani", dim=D), "toeplitz")
    block = exact.values["blocks"][0]
    assert exact.status == "pass"
    assert block["first_position"] == 0
    # documented: 4·Σ_ω(2.01u·x_max·ω + t) + 2γ_d·‖PE‖² + 4u·‖PE‖², ‖PE‖² = n
    freq = np.abs(preset("vaswani", dim=D).column_frequencies_float)
    gamma = D * U / (1 - D * U)
    x_max = block["rows"] - 1
    tol = block["tolerance"]
    assert tol == pytest.approx(4 * float((2.01 * U * x_max * freq + T_TRIG).sum())
                                + 2 * gamma * N + 4 * U * N, rel=1e-9)
    assert block["deviation"] < tol / 8

    def bump(size: float) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        def change(t: np.ndarray, p: np.ndarray) -> np.ndarray:
            t[p == 0, 1] += size          # cos(0) = 1: the Gram entry (0, 0) moves by ≈ 2·size
            return t
        return change

    # within: a quarter of the bound (the Gram matrix moves by about tol/2)
    assert run(perturbed(bump(tol / 4)), "toeplitz").status == "pass"
    # beyond: the Gram diagonal off by about 2·tol, a little more than its bound
    beyond = run(perturbed(bump(tol)), "toeplitz")
    assert beyond.status == "fail"
    assert beyond.values["blocks"][0]["deviation"] > tol
    # float32 drift in the float64 table
    assert run(perturbed(lambda t, p: t.astype(np.float32).astype(np.float64)),
               "toeplitz").status == "fail"


# --------------------------------------------------------------------------- translation
def test_translation_residual_tolerance_from_both_sides(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    exact = run(preset("vaswani", dim=D), "translation_residual")
    values = exact.values
    assert exact.status == "pass"
    # documented: 4u(|(x+Δ)ω| + 2|xω| + 2|Δω|) + 16t per column, at x, Δ below x_max, Δ_max
    top = 4 * U * (values["x_max"] + values["delta_max"] + 2 * values["x_max"]
                   + 2 * values["delta_max"]) + 16 * T_TRIG
    assert 16 * T_TRIG <= values["tolerance_at_worst_ratio"] <= top
    assert values["max_residual_over_tolerance"] < 0.5
    real = translation.translation_blocks       # the blocks of T(Δ) the check applies pair by pair

    def rounded(to: Callable[[np.ndarray], np.ndarray]) -> Callable[..., tuple[np.ndarray, ...]]:
        return lambda enc, d: tuple(to(np.asarray(b, dtype=np.float64)) for b in real(enc, d))

    # within: T(Δ) one ulp off
    monkeypatch.setattr(translation, "translation_blocks", rounded(lambda m: m * (1 + 2 * U)))
    assert run(preset("vaswani", dim=D), "translation_residual").status == "pass"
    # beyond: T(Δ) rounded to float32
    monkeypatch.setattr(translation, "translation_blocks",
                        rounded(lambda m: m.astype(np.float32).astype(np.float64)))
    drift = run(preset("vaswani", dim=D), "translation_residual")
    assert drift.status == "fail"
    assert "exceeds its tolerance" in drift.note


# --------------------------------------------------------------------------- kernel checks
@pytest.mark.parametrize(("factor", "status"), [(0.5, "pass"), (2.0, "unknown")])
def test_kernel_bound_from_both_sides(monkeypatch: pytest.MonkeyPatch, factor: float,
                                      status: str) -> None:
    """separation, near_return and decay compare the float64 kernel with its certified value
    within the kernel's bound: a certified value off by half the bound passes, by twice the
    bound is a toolkit inconsistency (unknown)."""
    from posproof.measure.numeric import OffsetKernel

    names = ["separation", "near_return", "decay"]
    exact = check(preset("vaswani", dim=D), max_len=1000, checks=names)
    bound = exact["separation"].values["kernel_bound"]
    # a few ulps of f(0) = n per term: between n·u and 64·n·u for d = 16
    assert N * U < bound < 64 * N * U
    assert {exact[n].values["kernel_bound"] for n in names} == {bound}
    real = OffsetKernel.mp
    monkeypatch.setattr(OffsetKernel, "mp",
                        lambda self, delta, dps=50: real(self, delta, dps) + factor * bound)
    report = check(preset("vaswani", dim=D), max_len=1000, checks=names)
    assert [c.status for c in report.checks] == [status] * 3
