"""Certified metrics of a set of pair frequencies: the kernel B(m), decay, bands, dtypes.

The float64 computations carry a rigorous error bound; extremes (and values
within the bound of a decision) are recomputed in mpmath at ≥ 50 digits inside
``mpmath.workdps``.  Re-exported by :mod:`posproof.explore`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from ...errors import MAX_DIM, InvalidParameter, check_int, check_sequence
from ...model.encoding import Encoding, as_positions
from ...model.schedules import Geometric, Schedule
from ...precise import DEFAULT_DPS, mp_value, mp_values

__all__ = [
    "DTYPES",
    "MAX_EXPLORE_DIM",
    "MAX_EXPLORE_WORK",
    "MAX_LENGTH",
    "U",
    "band_coverage",
    "check_explore_size",
    "critical_dimension",
    "decay_curve",
    "decay_deltas",
    "dtype_audit",
    "kernel_first_negative",
    "length_arg",
    "offset_kernel",
    "pair_frequencies",
]

U = 2.0 ** -53
DTYPES = ("float32", "float16", "bfloat16")
MAX_LENGTH = 1 << 24
#: Largest L·d of one explored encoding: explore scans the kernel, the decay curve
#: and each dtype over L for every pair, about 5 times the work of a check scan.
MAX_EXPLORE_WORK = 1 << 33
#: Largest dim explored: its proofs take about a minute at 8192 on two cores and
#: minutes beyond (posproof prove and check take up to errors.MAX_DIM).
MAX_EXPLORE_DIM = 4096


def check_explore_size(length: int, dim: int) -> None:
    """Refuse an encoding explore cannot finish in a minute or two within 4 GiB.

    >>> check_explore_size(4096, 8192)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: dim=8192 is too large for explore; at most 4096 is explored (its proofs take minutes beyond); posproof prove and check take larger d
    """  # noqa: E501
    from ..scan_limits import check_scan_work

    if dim > MAX_EXPLORE_DIM:
        raise InvalidParameter(f"dim={dim} is too large for explore; at most {MAX_EXPLORE_DIM} "
                               "is explored (its proofs take minutes beyond); posproof prove "
                               "and check take larger d")
    check_scan_work("length", length, dim, MAX_EXPLORE_WORK)


def length_arg(length: Any) -> int:
    return check_int("length", length, minimum=1, maximum=MAX_LENGTH)


def _nstr(value: Any, digits: int = 12) -> str:
    return mpmath.nstr(value, digits) if isinstance(value, mpmath.mpf) else str(value)


def pair_frequencies(obj: Any) -> tuple[sp.Expr, ...]:
    """The exact pair frequencies of a :class:`~posproof.model.rope.Rotary` or an :class:`Encoding`.

    >>> pair_frequencies(Encoding(Geometric(100), "split", 4))
    (1, 1/10)
    """
    from ...model.rope import Rotary

    if isinstance(obj, Rotary):
        return obj.frequencies
    if isinstance(obj, Encoding):
        problems = obj.broken_pairs()
        if problems:
            raise InvalidParameter(f"{obj.name}: {problems[0]}; the kernel needs (sin, cos) "
                                   "pairs that share one frequency")
        return tuple(obj.column_frequency(s) for s, _ in obj.pairs)
    from ...model.schedules import exact_number, is_positive

    if isinstance(obj, (Sequence, np.ndarray)) and not isinstance(obj, (str, bytes)):
        values = tuple(exact_number(f"frequencies[{i}]", v) for i, v in enumerate(obj))
        for i, v in enumerate(values):
            if not is_positive(v):
                raise InvalidParameter(f"frequencies[{i}]={v} is not > 0; a frequency is a "
                                       "positive angle per position")
        if not values:
            raise InvalidParameter("frequencies=[] is empty; pass at least one frequency")
        if len(values) > MAX_DIM // 2:
            raise InvalidParameter(f"{len(values)} frequencies are too many; at most "
                                   f"{MAX_DIM // 2} are accepted")
        return values
    raise InvalidParameter(f"frequencies={obj!r} is neither a Rotary, an Encoding nor a list of "
                           "frequencies")


@dataclass(frozen=True)
class _Fixed(Schedule):
    """Exact frequencies given as they are (already validated), for building a kernel."""

    values: tuple[sp.Expr, ...] = ()
    family = "fixed"

    def frequencies(self, d: int) -> tuple[sp.Expr, ...]:
        return self.values


def offset_kernel(source: Any) -> Any:
    """An OffsetKernel for a Rotary, an Encoding or exact frequencies (through an Encoding,
    which skips re-validating every frequency)."""
    from ...model.rope import Rotary
    from ..kernel import OffsetKernel

    if isinstance(source, Rotary):
        source = source.encoding()
    if not isinstance(source, Encoding):
        values = pair_frequencies(source)
        source = Encoding(_Fixed(values), "interleaved", 2 * len(values))
    return OffsetKernel(source)


# --------------------------------------------------------------------------- kernel B(m)
def kernel_first_negative(frequencies: Sequence[Any], length: int, *,
                          dps: int = DEFAULT_DPS, kernel: Any = None) -> dict[str, Any]:
    """The first m ∈ 0 … L with B(m) = Σ_k cos(mθ_k) < 0, certified (``m=None``: none).

    The scan is :class:`posproof.measure.kernel.OffsetKernel` (a chunked GEMM with a
    rigorous float64 bound); every value within the bound of 0 is decided by the
    certified sign of the exact B(m) (interval arithmetic from the exact frequencies,
    precision raised as needed; an exact zero is proved, and is not negative).  When a
    sign cannot be decided, ``decided`` is False, ``m`` is None and ``undecided_at``
    names the offset.

    >>> kernel_first_negative([1], 10)["m"]
    2
    >>> kernel_first_negative([1, sp.Rational(1, 100)], 10)["m"] is None
    True
    >>> kernel_first_negative([1, sp.pi - 1 + sp.Rational(1, 10**45)], 20)["m"]
    1
    """
    length = length_arg(length)
    dps = check_int("dps", dps, minimum=15, maximum=1000)
    kernel = kernel or offset_kernel(frequencies)
    crossing = kernel.first_crossing(0, below=True, start=0, stop=length + 1, dps=dps)
    out: dict[str, Any] = {"length": length, "bound": kernel.scan_bound(length + 1),
                           "certified": f"float64 GEMM scan (bound "
                                        f"{kernel.scan_bound(length + 1):.1e}); values within "
                                        "the bound decided by certified signs (interval "
                                        f"arithmetic), values to {dps} digits",
                           "decided": True}
    if crossing is None:
        out.update(m=None, summary=f"B(m) ≥ 0 for every m ≤ {length}")
        return out
    if not crossing.decided:
        out.update(m=None, decided=False, undecided_at=crossing.delta, consistent=True,
                   rechecked=crossing.rechecked,
                   summary=f"undecided: {crossing.note}")
        return out
    out.update(m=crossing.delta, value_mp=_nstr(crossing.value_mp, 15),
               previous_mp=(None if crossing.previous_mp is None
                            else _nstr(crossing.previous_mp, 15)),
               consistent=crossing.consistent, rechecked=crossing.rechecked,
               summary=f"B({crossing.delta}) = {_nstr(crossing.value_mp, 6)} < 0")
    return out


# --------------------------------------------------------------------------- decay
def decay_curve(frequencies: Sequence[Any], deltas: Any) -> dict[str, Any]:
    """RoFormer's (1/n)·Σ_{j=1..n}|S_j|, S_j = Σ_{i<j} e^{iΔθ_i}, at the given offsets.

    Returns ``deltas``, ``values`` (float64, shape ``(len(deltas),)``), the
    a-priori ``bound`` on their error, and the smallest value (over Δ > 0) and
    the value at the largest Δ recomputed in mpmath at 50 digits.

    >>> c = decay_curve([1, sp.Rational(1, 100)], [0, 1, 2])
    >>> c["values"].round(4).tolist(), c["at_zero"]
    ([1.5, 1.38, 1.0487], '3/2')
    """
    freqs = pair_frequencies(frequencies)
    n = len(freqs)
    theta = np.array([float(v) for v in mp_values(freqs, 30)])
    if isinstance(deltas, (int, np.integer)) and not isinstance(deltas, bool):
        deltas = [deltas]
    given = as_positions("deltas", deltas)
    if (given.size == 0 or np.any(given < 0) or np.any(given > 1e15)
            or np.any(given != np.round(given))):
        raise InvalidParameter("deltas must be a non-empty list of whole offsets "
                               "0 ≤ Δ ≤ 10^15")
    d = given.astype(np.int64)
    values = np.empty(d.size)
    step = max(1, (1 << 21) // max(n, 1))
    for lo in range(0, d.size, step):
        ang = np.multiply.outer(d[lo:lo + step].astype(np.float64), theta)
        s = np.cumsum(np.cos(ang) + 1j * np.sin(ang), axis=1)
        values[lo:lo + step] = np.abs(s).mean(axis=1)
    # |fl(Δ·θ) − Δθ| ≤ 1.01·(2u)|Δθ| (θ rounded once, product rounded once); each e^{iφ}
    # within that plus 8u; a cumulative sum of ≤ n terms of modulus ≤ 1 adds ≤ 1.01·n²u.
    bound = n * (2.02 * U * float(d.max()) * float(theta.max()) + 8 * U) + 1.01 * n * n * U
    positive = np.flatnonzero(d > 0)
    out: dict[str, Any] = {"deltas": d, "values": values, "bound": bound,
                           "at_zero": str(sp.Rational(n + 1, 2)),
                           "certified": f"float64, error ≤ {bound:.1e}; extremes in mpmath at "
                                        f"{DEFAULT_DPS} digits"}
    if positive.size:
        i_min = int(positive[np.argmin(values[positive])])
        thetas = mp_values(freqs, _angle_dps(float(theta.max()), int(d.max())))
        out["min"] = {"delta": int(d[i_min]), "value": float(values[i_min]),
                      "value_mp": _nstr(_decay_mp(thetas, int(d[i_min])), 15)}
        out["last"] = {"delta": int(d[-1]),
                       "value_mp": _nstr(_decay_mp(thetas, int(d[-1])), 15)}
    return out


def _angle_dps(theta_max: float, delta_max: int, extra: int = 10) -> int:
    """Digits that keep DEFAULT_DPS digits of every angle Δ·θ ≤ delta_max·theta_max (its
    integer part costs log10(Δθ) digits): the precision grows with the size of the angle."""
    top = abs(theta_max) * abs(delta_max)
    lost = math.ceil(math.log10(top + 1)) if math.isfinite(top) else 400
    return DEFAULT_DPS + extra + lost


def _decay_mp(thetas: Sequence[mpmath.mpf], delta: int) -> mpmath.mpf:
    """The decay value at Δ in mpmath, from frequencies given to :func:`_angle_dps` digits."""
    dps = _angle_dps(float(max(abs(t) for t in thetas)), delta)
    with mpmath.workdps(dps):
        total, acc = mpmath.mpf(0), mpmath.mpc(0)
        for w in thetas:
            acc += mpmath.expj(w * delta)
            total += abs(acc)
        value = total / len(thetas)
    with mpmath.workdps(DEFAULT_DPS):
        return +value


def decay_deltas(length: int, dense: int = 2048, sparse: int = 512) -> np.ndarray:
    d = np.arange(min(length, dense) + 1)
    if length > dense:
        d = np.union1d(d, np.unique(np.geomspace(dense, length, sparse).astype(np.int64)))
    return d



# --------------------------------------------------------------------------- bands
def critical_dimension(base: Any, dim: int, train_length: int) -> dict[str, Any]:
    """Liu et al.'s d_extra = 2·⌈(d/2)·log_b(T/(2π))⌉, exact (ceil decided in mpmath).

    Clipped to [0, d].  ``pairs_covered`` counts pairs with period 2π·b^(2k/d) ≤ T
    (equal to d_extra/2 for the geometric schedule).

    >>> critical_dimension(10000, 128, 4096)["d_extra"]
    92
    """
    from ...model.scaling.base import ceil
    from ...model.scaling.rules import check_base

    b = check_base(base)
    dim, train_length = check_int("dim", dim, minimum=2, maximum=MAX_DIM), length_arg(train_length)
    x = sp.Rational(dim, 2) * sp.log(sp.Integer(train_length) / (2 * sp.pi)) / sp.log(b)
    value = 2 * ceil(x, "critical dimension")
    clipped = min(max(int(value), 0), dim)
    covered = band_coverage(Geometric(b).frequencies(dim), train_length)["pairs_covered"]
    return {"d_extra": clipped, "unclipped": int(value), "pairs_covered": covered,
            "x": _nstr(mp_value(x, 30), 15), "train_length": train_length,
            "certified": "exact expression; ceil decided in mpmath with a certified margin"}


def band_coverage(frequencies: Sequence[Any], length: int,
                  bands: Sequence[str] | None = None) -> dict[str, Any]:
    """Which pairs have a wavelength 2π/θ_k that fits in L (decided exactly).

    >>> band_coverage([1, sp.Rational(1, 100), sp.Rational(1, 10000)], 1000)["covered"]
    [0, 1]
    """
    from ...model.scaling import decide

    freqs = pair_frequencies(frequencies)
    length = length_arg(length)
    theta = mp_values(freqs, 30)
    with mpmath.workdps(30):
        wave = [2 * mpmath.pi / t for t in theta]
    covered = []
    for k, (t, w) in enumerate(zip(freqs, wave, strict=True)):
        # 30-digit values err by < 10^-25 relatively: a wider gap decides; else decide exactly
        if abs(w - length) > mpmath.mpf(10) ** -20 * length:
            fits = w <= length
        else:
            fits = decide(2 * sp.pi / t, length) <= 0
        if fits:
            covered.append(k)
    wavelengths = [float(v) for v in wave]
    out = {"length": length, "covered": covered, "pairs_covered": len(covered), "pairs": len(freqs),
           "wavelengths": wavelengths,
           "certified": "each comparison 2π/θ_k ≤ L decided in mpmath with a certified margin"}
    if bands is not None:
        out["bands"] = [str(b) for b in check_sequence("bands", bands)]
    return out


# --------------------------------------------------------------------------- dtypes
def dtype_audit(frequencies: Sequence[Any], length: int,
                dtypes: Sequence[str] = DTYPES) -> dict[str, Any]:
    """Per dtype: first integer position it cannot hold, and the phase error of m·θ in it.

    The angle is formed as torch does, ``fl(fl(m)·fl(θ))`` in the dtype, for
    every m ∈ 0 … L−1 and every pair whose a-priori error bound
    3.01·ε·mθ + 2ε can still beat the worst error found (pairs in decreasing
    θ).  fl(m)·fl(θ) is exact in float64 (two ≤ 24-bit significands), so only
    the final rounding is done in the dtype; the float64 reference m·θ has
    error ≤ 3.01u|mθ|.  The worst case is recomputed in mpmath at 50 digits
    with the exact θ, together with the cosine error it causes.  Positions
    that overflow the dtype (float16 beyond 65519) are reported, not scored.

    >>> audit = dtype_audit([1, sp.Rational(1, 100)], 4096, ["float16"])
    >>> fp16 = audit["float16"]
    >>> fp16["first_unrepresentable_integer"], fp16["max_phase_error_at"], fp16["max_phase_error"]
    (2049, {'m': 2049, 'pair': 0}, '1.0')
    """
    from ..dtypes import dtype_model, first_unrepresentable_integer

    freqs = pair_frequencies(frequencies)
    length = length_arg(length)
    dtypes = check_sequence("dtypes", dtypes, strings=True)
    theta_f = np.array([float(v) for v in mp_values(freqs, 30)])
    work = _angle_dps(float(theta_f.max()), length, extra=20)
    thetas_mp = mp_values(freqs, work)
    theta = np.array([float(v) for v in thetas_mp])
    order = np.argsort(-theta)
    pos = np.arange(length, dtype=np.float64)
    out: dict[str, Any] = {}
    for name in dtypes:
        model = dtype_model(name)
        unit = first_unrepresentable_integer(name)
        eps = 1.0 / (unit - 1)
        pos_r = model.round(pos)
        finite = np.isfinite(pos_r)
        first_overflow = None if finite.all() else int(np.argmin(finite))
        usable = pos_r[finite]
        exact_pos = pos[finite]
        top = float(exact_pos[-1]) if exact_pos.size else 0.0
        best, where = -1.0, (0, 0)
        for k in order.tolist():
            if 3.01 * eps * top * theta[k] + 2 * eps < best:
                break
            t_r = float(model.round([theta[k]])[0])
            ang = model.round(usable * t_r)
            with np.errstate(invalid="ignore"):
                err = np.abs(ang - exact_pos * theta[k])
            err = np.where(np.isfinite(err), err, -1.0)
            i = int(np.argmax(err))
            if err[i] > best:
                best, where = float(err[i]), (int(exact_pos[i]), k)
        m, k = where
        angle = float(model.round([float(model.round([float(m)])[0])
                                   * float(model.round([theta[k]])[0])])[0])
        with mpmath.workdps(work):
            exact = m * thetas_mp[k]
            phase = abs(mpmath.mpf(angle) - exact) if math.isfinite(angle) else mpmath.inf
            cos_err = (abs(mpmath.cos(mpmath.mpf(angle)) - mpmath.cos(exact))
                       if math.isfinite(angle) else mpmath.inf)
        out[name] = {
            "implementation": model.implementation,
            "first_unrepresentable_integer": unit,
            "first_overflow_position": first_overflow,
            "max_phase_error": _nstr(phase, 10), "max_phase_error_at": {"m": m, "pair": k},
            "cos_error_there": _nstr(cos_err, 10),
            "float64_reference_bound": f"{3.01 * U * max(length - 1, 1) * float(theta.max()):.1e}",
            "certified": f"float64 reference (error ≤ 3.01u|mθ|) over m < {length}"
                         + (f" (m < {first_overflow}: larger positions overflow)"
                            if first_overflow is not None else "")
                         + f"; the worst case recomputed in mpmath at {DEFAULT_DPS} digits"}
    return out
