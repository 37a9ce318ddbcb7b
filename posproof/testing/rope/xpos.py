"""``check_xpos``: xPos against the exact model (what ``assert_rotary`` runs for an XPos spec).

The contract is torchscale's ``XPOS.forward``: ``apply_fn(x, downscale)`` scales and
rotates ``x`` of shape ``(batch, L, head_dim)`` at positions 0 … L−1, queries with
``downscale=False``, keys with ``downscale=True``.  Checked: (1) queries and keys at
L = 64 against :meth:`posproof.model.xpos.XPos.apply` (float64 reference) within
``16·eps·(1 + |p·θ_max|)`` of each row's largest value, eps of the working precision read
from the output (its dtype), at least float32's (torchscale forms ζ^(p/B) and its angles in
float32); (2) the precision trap: at the
first length where *uncentred* scales leave float32
(:func:`posproof.measure.xpos.xpos_scale_limits`), float32 outputs must stay finite.  A
failure is explained by the hypotheses that reproduce it: keys not inverted (scores
then grow as ζ^((m+n)/B), not relative), positions not centred.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import InvalidParameter
from ...measure.xpos import xpos_scale_limits
from ...model.xpos import XPos
from ..core.arrays import TOLERANCE, as_array, dtype_eps
from ..core.audited import audited
from ..core.precision import precision_note, stored_precision
from ..core.reports import ImplReport, InvalidImplementation

__all__ = ["XPOS_ANGLES", "check_xpos", "identify_xpos", "xpos_angles"]

def _call(apply_fn: Any, x: np.ndarray, downscale: bool) -> tuple[np.ndarray, str]:
    """apply_fn on torch tensors when torch is installed (torchscale needs them), else NumPy;
    the output as float64 and the dtype it came in."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is in the test extras
        torch = None
    try:
        out = apply_fn(x if torch is None else torch.from_numpy(x), downscale)
    except Exception as exc:
        raise InvalidImplementation(f"apply_fn(x, downscale={downscale}) raised "
                                    f"{type(exc).__name__}: {exc}") from None
    arr, dtype = as_array(out, what="the output of apply_fn", finite=False)
    return arr, dtype


#: Rounding errors allowed per output entry, in ulps of the working precision, times
#: (1 + |p·θ|) for the angle (formed in the working precision, as torchscale does).
_ULPS = TOLERANCE


def _bound(want: np.ndarray, pos: np.ndarray, spec: XPos, eps: float) -> np.ndarray:
    """Per entry: 16·eps·(1 + |p·θ_max|)·‖want‖∞ of its row: the scaled rotation keeps each
    pair's norm times its scale, so the row's largest entry bounds what rounding can move."""
    theta = float(np.max(spec.rotary.frequencies_float))
    row = np.max(np.abs(want), axis=-1, keepdims=True)
    return _ULPS * eps * (1.0 + np.abs(pos)[None, :, None] * theta) * np.maximum(row, 1e-300)


def _close(a: np.ndarray, b: np.ndarray, bound: np.ndarray) -> bool:
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(a - b) <= bound))


def _evidence(spec: XPos, x: np.ndarray, pos: np.ndarray, q: tuple, k: tuple, within: bool
              ) -> Any:
    """The entry with the largest |difference|/tolerance (queries or keys) as a Sign: its
    exact value ζ_k^(±(p − c)/B)·(R(p)·x)_channel from the rationals x, ζ_k and R(p)'s exact
    entries; a NaN or inf output has nothing to re-check."""
    import sympy as sp

    from ..core.audited import entry_sign, failure_evidence, no_comparison

    with np.errstate(invalid="ignore"):
        ratios = [np.nan_to_num(np.abs(g - w) / b, nan=np.inf) for g, w, b in (q, k)]
    key = bool(ratios[1].max() > ratios[0].max())
    got, _, bound = k if key else q
    b, p, c = np.unravel_index(int(np.argmax(ratios[key])), ratios[key].shape)
    if ratios[key].max() == 0:      # every entry exact: audit the last position
        b, p, c = 0, pos.size - 1, 0
    if not np.isfinite(got[b, p, c]):
        return no_comparison("the impl returns NaN or inf: no real value to compare")
    m = int(pos[p])
    partner = c ^ 1                                   # adjacent layout: pairs (2k, 2k+1)
    rotated = sum(spec.rotary.rotation_entry(m, int(c), j)
                  * sp.Rational(*float(x[b, p, j]).as_integer_ratio()) for j in (c, partner))
    expo = sp.Rational(m - spec.centre(pos.size), spec.scale_base) * (-1 if key else 1)
    exact = spec.zeta(int(c) // 2) ** expo * rotated
    item = entry_sign(f"{'key' if key else 'query'} {int(b)} at position {m}, channel {int(c)}",
                      exact, float(got[b, p, c]),
                      float(bound[b, p, min(int(c), bound.shape[2] - 1)]), within)
    details = {"check": "matches_spec"}
    if within:
        from ...evidence import Evidence

        return Evidence("exhaustive comparison", "all", items=[item], details=details)
    return failure_evidence("exhaustive comparison", item, details)


#: The angle dtype the xPos check's tolerance models (torchscale forms ζ^(p/B) and its
#: angles in float32): the only ``angles=`` it takes.
XPOS_ANGLES = "float32"


def xpos_angles(angles: Any) -> None:
    """Refuse a declared angle dtype the xPos check has no rounding model for: its tolerance
    is torchscale's contract (ζ^(p/B) and the angles formed in float32), which a float16 or
    bfloat16 model would widen and a float64 one narrow.

    >>> xpos_angles(None), xpos_angles("float32")
    (None, None)
    >>> xpos_angles("bfloat16")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: angles='bfloat16': the xPos check has no rounding model for angles formed in bfloat16; its tolerance is torchscale's contract, 16·eps·(1 + |p·θ_max|)·max|row| with ζ^(p/B) and the angles formed in float32 — drop angles= (or pass angles='float32')
    """  # noqa: E501
    from ..absolute.read import angles_name

    name = angles_name(angles)
    if name is not None and name != XPOS_ANGLES:
        raise InvalidParameter(
            f"angles={name!r}: the xPos check has no rounding model for angles formed in "
            f"{name}; its tolerance is torchscale's contract, {_ULPS:g}·eps·(1 + |p·θ_max|)"
            f"·max|row| with ζ^(p/B) and the angles formed in {XPOS_ANGLES} — drop angles= "
            f"(or pass angles={XPOS_ANGLES!r})")


@audited
def check_xpos(apply_fn: Any, spec: XPos, *, seed: int = 0, long: bool = True,
               angles: Any = None) -> ImplReport:
    """Check ``apply_fn(x, downscale)`` against the xPos ``spec``; ``report.ok`` is the verdict.

    ``angles``: None or ``"float32"`` (the contract the tolerance models); any other declared
    angle dtype is refused (:func:`xpos_angles`).

    >>> import numpy as np
    >>> xp = XPos(8)
    >>> ok = lambda x, down: xp.apply(np.asarray(x), np.arange(x.shape[1]), key=down)
    >>> check_xpos(ok, xp, long=False).ok
    True
    >>> bad = lambda x, down: xp.apply(np.asarray(x), np.arange(x.shape[1]), key=False)
    >>> print(check_xpos(bad, xp, long=False).explanation)  # doctest: +ELLIPSIS
    the key scale is not inverted (downscale=True must use ζ^(−n/B))...
    """
    if not isinstance(spec, XPos):
        raise InvalidParameter(f"spec={spec!r} is not an XPos; build one with "
                               "posproof.XPos(head_dim)")
    xpos_angles(angles)
    rng = np.random.default_rng(seed)
    h, length = spec.head_dim, 64
    x = rng.standard_normal((2, length, h))
    pos = np.arange(length)
    (got_q, dt_q), (got_k, dt_k) = _call(apply_fn, x, False), _call(apply_fn, x, True)
    if got_q.shape != x.shape or got_k.shape != x.shape:
        raise InvalidImplementation(f"apply_fn returned shape {got_q.shape}; expected "
                                    f"{x.shape} (batch, L, head_dim)")
    # judged at the output's dtype, at least float32 (torchscale's contract: ζ^(p/B) and the
    # angles formed in float32); a coarser precision read from the values is said, not allowed
    dtype = dt_q if dtype_eps(dt_q) >= dtype_eps(dt_k) else dt_k
    eps = max(dtype_eps(dtype), dtype_eps("float32"))
    read = stored_precision(np.concatenate([got_q.ravel(), got_k.ravel()]), dtype)
    report = ImplReport(False, "xpos", spec.to_dict(), dtype, length, length - 1,
                        precision_note=precision_note(read, dtype)
                        if read is not None and dtype_eps(read) > eps else "")
    want_q, want_k = spec.apply(x, pos), spec.apply(x, pos, key=True)
    bound_q, bound_k = _bound(want_q, pos, spec, eps), _bound(want_k, pos, spec, eps)
    q_ok, k_ok = _close(got_q, want_q, bound_q), _close(got_k, want_k, bound_k)
    report.max_error = float(max(np.abs(got_q - want_q).max(), np.abs(got_k - want_k).max()))
    report.score = float(max(np.max(np.abs(got_q - want_q) / bound_q),
                             np.max(np.abs(got_k - want_k) / bound_k)))
    report.checks.append({"name": "matches_spec", "status": "pass" if q_ok and k_ok else "fail",
                          "max_error": report.max_error, "score": report.score,
                          "tolerance": f"{_ULPS:g}·eps·(1 + |p·θ_max|)·max|row|, eps of "
                                       f"{dtype} (at least float32's: torchscale forms ζ^(p/B) "
                                       "and the angles in float32)"})
    report.evidence = _evidence(spec, x, pos, (got_q, want_q, bound_q), (got_k, want_k, bound_k),
                                q_ok and k_ok)
    limits = {r["dtype"]: r for r in xpos_scale_limits(spec, ["float32"])}["float32"]
    reasons = []
    if not (q_ok and k_ok):
        uncentred = XPos(h, base=spec.rotary.schedule.base, scale_base=spec.scale_base,
                         gamma=spec.gamma, centred=not spec.centred)
        if q_ok and _close(got_k, want_q, bound_q):
            reasons.append("the key scale is not inverted (downscale=True must use ζ^(−n/B)): "
                           "the score then scales as ζ^((m+n)/B), so it is not relative")
        un_q, un_k = uncentred.apply(x, pos), uncentred.apply(x, pos, key=True)
        if _close(got_q, un_q, _bound(un_q, pos, spec, eps)) and _close(
                got_k, un_k, _bound(un_k, pos, spec, eps)):
            reasons.append(
                "the scale positions are " + ("not centred" if spec.centred else "centred")
                + f": the scores are unchanged, but uncentred scales ζ^(±p/B) leave float32 from "
                  f"length {limits['first_length_uncentred']} (centred: "
                  f"{limits['first_length_centred']})")
        if not reasons:
            reasons.append("no single explanation reproduces the outputs (checked: keys not "
                           "inverted, centring)")
    if long and q_ok and k_ok and limits["first_length_uncentred"] is not None:
        n_long = limits["first_length_uncentred"]
        with np.errstate(over="ignore", invalid="ignore"):
            xl = np.ones((1, n_long, h), dtype=np.float32)
            finite = all(bool(np.isfinite(_call(apply_fn, xl, d)[0]).all())
                         for d in (False, True))
        report.checks.append({"name": "float32_long_length", "length": n_long,
                              "status": "pass" if finite else "fail"})
        from ...evidence import Evidence

        report.check_evidence["float32_long_length"] = Evidence(
            f"float32 outputs at length {n_long}", "all",
            details={"check": "float32_long_length", "length": n_long},
            unaudited=f"whether float32 outputs at length {n_long} are finite, read from "
                      "the outputs themselves: no number to re-check (the length is the "
                      "validated overflow threshold of the uncentred scales)")
        if not finite:
            reasons.append(f"at length {n_long} in float32 the outputs hold inf/nan: the "
                           f"per-position scales are not centred (uncentred ζ_0^(−p/B) "
                           f"overflows from position {limits['overflow_position']}; torchscale "
                           f"centres at ⌈L/2⌉ and lasts to length "
                           f"{limits['first_length_centred']})")
    report.ok = not reasons
    report.explanation = "; ".join(reasons) or None
    report.message = ("" if report.ok else
                      f"impl disagrees with {spec!r}: {report.explanation}")
    return report


def identify_xpos(zeta: Any) -> dict[str, Any]:
    """Name the xPos behind a ζ vector (torchscale's ``scale`` buffer, one value per pair).

    γ is read from ζ_0 = γ/(1+γ) and named as the nearest fraction with denominator ≤ 100;
    every ζ_k is then compared with (2k/d + γ)/(1 + γ), d = 2·len, within 8·eps of the
    array's dtype.  ``matched`` is False (with the residual) when no γ fits.

    >>> r = identify_xpos(np.array([float(z) for z in XPos(8).zetas()], dtype=np.float32))
    >>> r["matched"], r["gamma"], r["head_dim"]
    (True, '2/5', 8)
    >>> identify_xpos([0.3, 0.5, 0.6, 0.9])["matched"]
    False
    """
    from fractions import Fraction

    arr = np.asarray(zeta)
    if arr.ndim != 1 or arr.size < 1 or not np.issubdtype(arr.dtype, np.floating):
        raise InvalidParameter(f"an xPos ζ vector is 1-d floating (one value per pair); got "
                               f"shape {arr.shape}, dtype {arr.dtype}")
    eps = float(np.finfo(arr.dtype).eps)
    z = arr.astype(np.float64)
    if not (np.all(np.isfinite(z)) and 0 < z[0] < 1):
        raise InvalidParameter("ζ_0 must be finite and in (0, 1) for an xPos scale vector")
    gamma = Fraction(z[0] / (1 - z[0])).limit_denominator(100)
    n = z.size
    want = np.array([(2 * k / (2 * n) + float(gamma)) / (1 + float(gamma)) for k in range(n)])
    residual = float(np.abs(z - want).max())
    matched = residual <= 8 * eps
    return {"matched": bool(matched), "gamma": str(gamma), "head_dim": 2 * n,
            "residual": residual, "tolerance": 8 * eps,
            "spec": f"XPos({2 * n}, gamma='{gamma}')" if matched else None}
