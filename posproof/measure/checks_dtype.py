"""The ``dtype_audit`` check: per dtype (float32, float16, bfloat16…), the first integer position it
cannot hold, the phase error of x·ω formed in it (certified in mpmath), and translation
residuals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath
import numpy as np

from ..evidence import Evidence
from ..report import Check
from .checks_context import Context, inconsistent
from .dtypes import U, angles_in_dtype, dtype_model, first_unrepresentable_integer
from .translation import rotate_pairs

__all__ = ["PHASE_LIMIT", "PHASE_SCAN_MAX", "dtype_audit"]

#: Phase error (radians) above which an angle formed in a dtype is called wrong.
PHASE_LIMIT = 0.01
#: Positions scanned for the first phase error above PHASE_LIMIT.
PHASE_SCAN_MAX = 10**7


def _phase_errors(positions: np.ndarray, omega: np.ndarray, dtype: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """max over ω of |x·ω formed in dtype − x·ω| per position, and its float64 error bound."""
    angles = angles_in_dtype(positions, omega, dtype)
    exact = positions[:, None] * omega[None, :]
    with np.errstate(invalid="ignore"):
        err = np.abs(angles - exact)
    bound = 3.01 * U * np.abs(exact) + U * np.where(np.isfinite(err), err, 0.0)
    worst = np.argmax(np.where(np.isnan(err), np.inf, err), axis=1)
    rows = np.arange(positions.size)
    return err[rows, worst], bound[rows, worst]


def _phase_error_mp(x: int, omegas: Sequence[mpmath.mpf], omega_f: np.ndarray, dtype: str,
                    dps: int) -> mpmath.mpf:
    """max over ω of |x·ω formed in dtype − x·ω| in mpmath.

    Only the frequencies whose float64 error is within twice its bound of the
    float64 maximum can hold the maximum; those are recomputed.
    """
    angles = angles_in_dtype(np.array([float(x)]), omega_f, dtype)[0]
    if not np.all(np.isfinite(angles)):
        return mpmath.inf
    exact = x * omega_f
    err = np.abs(angles - exact)
    bound = 3.01 * U * np.abs(exact) + U * err
    ks = np.flatnonzero(err >= err.max() - 2 * bound.max())
    with mpmath.workdps(dps + 30):
        return max(abs(mpmath.mpf(float(angles[k])) - x * omegas[k]) for k in ks.tolist())


def _first_phase_exceed(ctx: Context, dtype: str, omega: np.ndarray,
                        omegas: Sequence[mpmath.mpf]) -> tuple[int | None, int, bool]:
    """First position whose phase error exceeds PHASE_LIMIT; (x, rechecked, consistent)."""
    model = dtype_model(dtype)
    unit = first_unrepresentable_integer(dtype)          # 2^p + 1: roundoff 2^-p
    e = 1.0 / (unit - 1)
    eta = _half_smallest_subnormal(model)                  # absolute rounding of tiny values
    start, stop = ctx.enc.offset, ctx.enc.offset + min(ctx.length, PHASE_SCAN_MAX)
    rechecked = 0
    for lo, hi in _growing_ranges(max(start, 0), stop):
        x_hi = float(hi)
        # rigorous a-priori bound: |fl(fl(x)·fl(ω)) − xω| ≤ 3.01e|xω| + x·η (+ overflow)
        reach = 3.01 * e * x_hi * omega + 1.01 * x_hi * eta + eta
        keep = reach > PHASE_LIMIT * (1 - 1e-9)
        if not keep.any() and x_hi < _dtype_max(model):
            continue
        pos = np.arange(lo, hi, dtype=np.float64)
        err, bound = _phase_errors(pos, omega[keep] if keep.any() else omega, dtype)
        # NaN (0·∞: a frequency the dtype cannot hold) is no phase at all: it exceeds
        maybe = np.flatnonzero(~(err <= PHASE_LIMIT - bound))
        for i in maybe.tolist():
            x = int(pos[i])
            if err[i] - bound[i] > PHASE_LIMIT:
                return x, rechecked, _confirm_exceed(x, omegas, omega, dtype, ctx.dps)
            rechecked += 1
            if _phase_error_mp(x, omegas, omega, dtype, ctx.dps) > PHASE_LIMIT:
                return x, rechecked, True
    return None, rechecked, True


def _growing_ranges(start: int, stop: int, first: int = 64, largest: int = 8192
                    ) -> list[tuple[int, int]]:
    """[start, stop) cut in pieces of 64, 128, … 8192 (early crossings stay cheap).

    >>> _growing_ranges(0, 300)
    [(0, 64), (64, 192), (192, 300)]
    """
    out, lo, size = [], start, first
    while lo < stop:
        out.append((lo, min(lo + size, stop)))
        lo, size = lo + size, min(2 * size, largest)
    return out


def _confirm_exceed(x: int, omegas: Sequence[mpmath.mpf], omega: np.ndarray, dtype: str,
                    dps: int) -> bool:
    here = _phase_error_mp(x, omegas, omega, dtype, dps)
    if not here > PHASE_LIMIT:
        return False
    if x - 1 < 0:
        return True
    return bool(_phase_error_mp(x - 1, omegas, omega, dtype, dps) <= PHASE_LIMIT)


def _half_smallest_subnormal(model: Any) -> float:
    if model.dtype is not None and model.dtype.kind == "f":
        return float(np.finfo(model.dtype).smallest_subnormal) / 2
    return 2.0 ** -134                                       # bfloat16: float32's exponent range


def _dtype_max(model: Any) -> float:
    if model.dtype is not None and model.dtype.kind == "f":
        return float(np.finfo(model.dtype).max)
    return 3.38e38


def _dtype_residuals(ctx: Context, dtype: str) -> dict[str, float]:
    """Translation residual with the table rounded to the dtype, and with angles formed in it."""
    enc = ctx.enc
    model = dtype_model(dtype)
    top = min(max(ctx.length, 2), 32768)
    rng = np.random.default_rng(ctx.seed + 3)
    x = rng.integers(top // 4, top // 2 + 1, 4).astype(np.float64)
    d = rng.integers(1, top // 2 + 1, 4).astype(np.float64)
    freq = enc.column_frequencies_float
    funcs = np.asarray(enc.column_funcs)

    def rows(angles: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            out = np.where(funcs == "sin", np.sin(angles), np.cos(angles))
        out[..., funcs == "zero"] = 0.0
        return model.round(out)

    pair_sin = np.asarray(enc.pairs, dtype=np.int64).reshape(-1, 2)[:, 0]
    rounded, formed = 0.0, 0.0
    for xi, di in zip(x, d, strict=True):
        sin_d, cos_d = ctx.translation(di)
        rounded = max(rounded, float(np.abs(
            model.round(enc.table([xi + di])[0])
            - rotate_pairs(enc, model.round(enc.table([xi])[0]), model.round(sin_d),
                           model.round(cos_d))).max()))
        ang_x = angles_in_dtype([xi], freq, dtype)[0]
        ang_xd = angles_in_dtype([xi + di], freq, dtype)[0]
        ang_d = angles_in_dtype([di], freq, dtype)[0]
        with np.errstate(invalid="ignore"):
            moved = rotate_pairs(enc, rows(ang_x), model.round(np.sin(ang_d[pair_sin])),
                                 model.round(np.cos(ang_d[pair_sin])))
            formed = max(formed, float(np.nan_to_num(
                np.abs(rows(ang_xd) - moved), nan=np.inf).max()))
    return {"positions_below": top, "residual_table_rounded": rounded,
            "residual_angles_in_dtype": formed}


def dtype_audit(ctx: Context) -> Check:
    enc, length = ctx.enc, ctx.length
    omega = enc.frequencies_float
    last = enc.offset + length - 1
    omegas = ctx.omega_mp(last)          # enough digits for every angle ω·x, x ≤ last
    report_at = sorted({10**k for k in range(1, 19) if enc.offset <= 10**k <= last} | {last})
    values: dict[str, Any] = {}
    lines = []
    consistent = True
    has_pairs = not enc.broken_pairs()
    for dtype in ctx.dtypes:
        model = dtype_model(dtype)
        unit = first_unrepresentable_integer(dtype)
        # the definition, checked: unit − 1 survives the round trip, unit does not
        consistent = consistent and (model.round([float(unit - 1)])[0] == unit - 1
                                     and model.round([float(unit)])[0] != unit)
        errors = []
        for x in report_at:
            err, bnd = _phase_errors(np.array([float(x)]), omega, dtype)
            exact = _phase_error_mp(x, omegas, omega, dtype, ctx.dps)
            if exact == mpmath.inf:
                consistent = consistent and not np.isfinite(err[0])
                errors.append([x, "overflow"])
                continue
            consistent = consistent and abs(float(exact) - float(err[0])) <= float(bnd[0]) + 1e-300
            errors.append([x, float(exact)])
        first, _rechecked, ok = _first_phase_exceed(ctx, dtype, omega, omegas)
        consistent = consistent and ok
        entry: dict[str, Any] = {
            "implementation": model.implementation,
            "first_unrepresentable_position": unit,
            "phase_error_rad": errors,
            f"phase_error_above_{PHASE_LIMIT}_rad_from": (
                first if first is not None
                else f"none up to {enc.offset + min(length, PHASE_SCAN_MAX)}"),
        }
        if has_pairs:
            entry.update(_dtype_residuals(ctx, dtype))
        values[dtype] = entry
        lines.append(f"{dtype}: exact ≤ {unit - 1}, phase > {PHASE_LIMIT} rad "
                      + (f"from x={first}" if first is not None else "nowhere up to L"))
    values["summary"] = "; ".join(lines)
    certified = (f"angles x·ω formed in each dtype (x and ω rounded, product rounded), compared "
                 f"with x·ω in mpmath at {ctx.dps} digits at the reported positions and at each "
                 "first crossing; float64 scan bound 3u|xω|")
    if not consistent:
        return Check("dtype_audit", "fail", values, certified,
                     inconsistent("a phase error or a representable-integer limit"))
    return Check("dtype_audit", "pass", values, certified, evidence=Evidence(
        "float64 phase errors with rigorous bounds, each decision rechecked in mpmath", "all",
        details={"positions_scanned_for_the_first_phase_error": min(length, PHASE_SCAN_MAX)},
        unaudited="a measurement, not a judgement: the dtype's angles are formed by NumPy and "
        "their phase errors reported (each rechecked in mpmath); the check fails only on a "
        "toolkit inconsistency"))
