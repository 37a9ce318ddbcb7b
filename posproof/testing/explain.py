"""Why a table disagrees with its spec: hypotheses tested against the impl, best one named.

Sin and cos swapped, another layout, an exponent over n−1, an offset, a scale,
angles formed in low precision, a truncated odd dim, another schedule found by
:func:`~posproof.identify.identify`, or pairs of dims with different frequencies.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..identify import TOLERANCE, dtype_eps, identify
from .reports import ImplReport
from .tables import _expected, _score


def _sample(n: int) -> np.ndarray:
    """Row indices for hypothesis tests: the first 256, the last 128, 128 between."""
    if n <= 512:
        return np.arange(n)
    return np.unique(np.concatenate([np.arange(256), np.linspace(256, n - 129, 128)
                                     .astype(np.int64), np.arange(n - 128, n)]))


def _alternatives(enc: Any) -> list[tuple[str, Any]]:
    """Single-change variants of the spec, with the sentence that names each."""
    from ..encoding import Encoding
    from ..schedules import Diffusion, Geometric, TensorToTensor

    if enc.schedule is None:
        return []
    out: list[tuple[str, Any]] = []
    lay = enc.layout.name
    kw = {"offset": enc.offset, "odd_dim": enc.odd_dim, "padding_idx": enc.padding_idx}
    swap = {"interleaved": "interleaved-cos", "interleaved-cos": "interleaved",
            "split": "split-cos", "split-cos": "split"}[lay]
    out.append((f"matches the spec with sin and cos swapped (layout {swap}, not {lay})",
                Encoding(enc.schedule, swap, enc.dim, **kw)))
    others = ("split", "split-cos") if lay.startswith("interleaved") else (
        "interleaved", "interleaved-cos")
    for other in others:
        out.append((f"matches the {other} layout, not {lay}",
                    Encoding(enc.schedule, other, enc.dim, **kw)))
    sched = enc.schedule
    if isinstance(sched, (Geometric, Diffusion)) and enc.n_pairs >= 2:
        base = sched.base if isinstance(sched, Geometric) else sched.max_period
        out.append(("frequencies follow an exponent over n−1, as in tensor2tensor "
                    f"(ω_k = {base}^(−k/(n−1))), not over n",
                    Encoding(TensorToTensor(1, base), lay, enc.dim, **kw)))
    if isinstance(sched, TensorToTensor) and sched.min_timescale == 1 and enc.n_pairs >= 2:
        out.append(("frequencies follow an exponent over n, as in the original paper "
                    f"(ω_k = {sched.max_timescale}^(−k/n)), not over n−1 as in tensor2tensor",
                    Encoding(Geometric(sched.max_timescale), lay, enc.dim, **kw)))
    return out


def _explain_encoding(report: ImplReport, table: np.ndarray, pos: np.ndarray, enc: Any,
                      eps: float, eps_angle: float,
                      calls: Callable[[np.ndarray], np.ndarray] | None, dtname: str) -> None:
    """Test hypotheses against the impl; put the best one in ``report.explanation``."""
    rows = _sample(pos.size)
    t, p = table[rows], pos[rows]
    omega = enc.column_frequencies_float
    tested: list[dict[str, Any]] = []

    def test(name: str, expected: np.ndarray, at: np.ndarray = p, w: np.ndarray = omega,
             e_angle: float = eps_angle) -> bool:
        score = _score(t, expected, at, w, eps, e_angle)
        tested.append({"hypothesis": name, "score": score if math.isfinite(score) else None,
                       "fits": score <= 1.0})
        return score <= 1.0

    def done(text: str) -> None:
        report.explanation = text
        report.hypotheses = tested

    for text, alt in _alternatives(enc):
        if test(text, _expected(alt, p), w=alt.column_frequencies_float):
            return done(text)
    for shift in (1, 2, -1, -2, 3, -3, 4, -4):
        sign = "+" if shift > 0 else "−"
        text = (f"offset by {_positions(shift)}: the impl at x equals the spec at "
                f"x {sign} {abs(shift)}")
        if test(text, _expected(enc, p + shift), at=p + shift):
            return done(text)
    expected = _expected(enc, p)
    denom = float((expected * expected).sum())
    if denom > 0:
        alpha = float((t * expected).sum()) / denom
        if abs(alpha - 1) > 1e-3 and alpha != 0:
            text = f"scaled by {alpha:.6g}: the impl equals {alpha:.6g} × the spec"
            if test(text, alpha * expected):
                return done(text)
    precision = _precision_hypothesis(t, p, enc, eps, eps_angle, test)
    if precision:
        return done(precision)
    truncated = _truncation_hypothesis(t, p, enc, test)
    if truncated:
        return done(truncated)
    # no single change: ask identify what the impl is
    block = _consecutive_block(table, pos, calls)
    found = identify(block[0], dtype=dtname) if block is not None else None
    if found is not None:
        report.identification = found.to_dict()
        text = _diff_identification(found, enc, int(block[1]))  # type: ignore[index]
        if text:
            tested.append({"hypothesis": text, "score": found.score, "fits": found.matched})
            return done(text)
    pairs = _pair_frequency_mismatch(block[0] if block is not None else None, enc, eps)
    if pairs:
        tested.append({"hypothesis": pairs, "score": None, "fits": True})
        return done(pairs)
    if found is not None and not found.matched and found.layout is None:
        valid = _valid_pairs(block[0] if block is not None else None, enc)
        if valid:                  # pairs at speeds no schedule has: not a random table
            tested.append({"hypothesis": valid, "score": None, "fits": True})
            return done(valid)
        return done("a random table: matches no known schedule")
    if found is not None and not found.matched:
        return done(f"none of the hypotheses fits; identify says: {found.summary}")
    return done("none of the hypotheses fits (sin/cos swap, layouts, exponent over n−1, "
                "offsets, low-precision angles, another schedule)")


def _precision_hypothesis(t: np.ndarray, p: np.ndarray, enc: Any, eps: float,
                          eps_angle: float, test: Callable[..., bool]) -> str | None:
    """'float16 angles' and friends: errors that grow with |x·ω| like a low-precision angle."""
    from ..numeric import angles_in_dtype

    omega = enc.column_frequencies_float
    funcs = np.asarray(enc.column_funcs)
    idx = np.asarray(enc.column_freq_index)
    fits: list[tuple[float, str]] = []
    for name in ("float32", "float16", "bfloat16"):
        e = dtype_eps(name)
        if e <= eps_angle:
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            ang = angles_in_dtype(p, enc.frequencies_float, name)
            model = np.zeros_like(t)
            model[:, funcs == "sin"] = np.sin(ang[:, idx[funcs == "sin"]])
            model[:, funcs == "cos"] = np.cos(ang[:, idx[funcs == "cos"]])
            rms = float(np.sqrt(np.nanmean((t - model) ** 2))) if t.size else 0.0
        if _score(t, _expected(enc, p), p, omega, max(eps, e), e) <= 1.0:
            fits.append((rms if math.isfinite(rms) else math.inf, name))
    if not fits:
        return None
    best = fits[0]
    for rms, name in fits[1:]:
        if rms < best[0] / 4:
            best = (rms, name)
    name = best[1]
    wider = "float64" if name == "float32" else "float32 or float64"
    text = (f"{name} angles: the errors grow with |x·ω| as when x·ω is formed in {name} "
            f"(an angle table built in low precision; form x·ω in {wider} and round only "
            "the result)")
    test(text, _expected(enc, p), e_angle=dtype_eps(name))
    return text


def _truncation_hypothesis(t: np.ndarray, p: np.ndarray, enc: Any,
                           test: Callable[..., bool]) -> str | None:
    """An odd-d impl that truncates the even table of d+1 columns instead of padding."""
    from ..encoding import Encoding

    if enc.dim % 2 == 0 or enc.schedule is None:
        return None
    even = Encoding(enc.schedule, enc.layout, enc.dim + 1, offset=enc.offset)
    full = _expected(even, p)
    text = (f"dim {enc.dim} is odd: the spec pads with a zero last column (odd_dim='pad'), "
            f"but the impl is the table of dim {enc.dim + 1} with its last column cut off")
    if test(text, full[:, :enc.dim], w=even.column_frequencies_float[:enc.dim]):
        return text
    return None


def _consecutive_block(table: np.ndarray, pos: np.ndarray,
                       calls: Callable[[np.ndarray], np.ndarray] | None
                       ) -> tuple[np.ndarray, int] | None:
    """(table rows at consecutive positions, first position) for identify."""
    if pos.size >= 8 and np.all(np.diff(pos[: min(pos.size, 256)]) == 1):
        n = min(pos.size, 2048)
        if np.all(np.diff(pos[:n]) == 1):
            return table[:n], int(pos[0])
        return table[:256], int(pos[0])
    if calls is not None:
        start = int(pos.min()) if pos.size else 0
        block = np.arange(start, start + 256, dtype=np.int64)
        return calls(block), start
    return None


def _diff_identification(found: Any, enc: Any, first: int) -> str | None:
    """How what identify found differs from the spec, in words."""
    if not found.matched or found.encoding is None:
        return None
    spec_sched = enc.schedule
    diffs: list[str] = []
    lay, flay = enc.layout.name, found.layout
    if flay != lay:
        same_pairing = lay.split("-")[0] == flay.split("-")[0]
        diffs.append(f"sin and cos swapped (layout {flay}, not {lay})" if same_pairing
                     else f"matches the {flay} layout, not {lay}")
    family = getattr(spec_sched, "family", None)
    fam = {"diffusion": "geometric"}.get(family, family)
    params = found.params
    if fam != found.family:
        if found.family == "tensor2tensor" and fam == "geometric":
            diffs.append("frequencies follow an exponent over n−1, as in tensor2tensor")
        elif found.family == "geometric" and fam == "tensor2tensor":
            diffs.append("frequencies follow an exponent over n, as in the original paper, "
                         "not over n−1")
        else:
            diffs.append(f"{found.family} frequencies, not {family}")
    if found.family == "geometric" and fam == "geometric":
        base = getattr(spec_sched, "base", None) or getattr(spec_sched, "max_period", None)
        if params.get("base") != str(base).replace("**", "^"):
            diffs.append(f"base {params.get('base')}, not {base}")
    if found.family == "tensor2tensor" and fam == "tensor2tensor":
        for key in ("min_timescale", "max_timescale"):
            if params.get(key) != str(getattr(spec_sched, key)):
                diffs.append(f"{key} {params.get(key)}, not {getattr(spec_sched, key)}")
    if found.family == "binary" and fam == "binary" and params.get("numerator") != str(
            spec_sched.numerator):
        diffs.append(f"numerator {params.get('numerator')}, not {spec_sched.numerator}")
    shift = found.offset - first
    if shift:
        diffs.append(f"offset by {_positions(shift)}: the impl at x equals the spec at x "
                     f"{'+' if shift > 0 else '−'} {abs(shift)}")
    if not diffs:
        return None
    return "; ".join(diffs) + f" (identified as {found.presets[0]})"


def _pair_frequency_mismatch(block: np.ndarray | None, enc: Any, eps: float) -> str | None:
    """'dims 2i and 2i+1 use different frequencies', with the dims named."""
    from ..identify import _column_frequencies

    if block is None or block.shape[0] < 8 or block.shape[1] != enc.dim:
        return None
    omega, sinusoid = _column_frequencies(block, TOLERANCE * eps)
    bad = []
    for s, c in enc.pairs:
        if sinusoid[s] and sinusoid[c] and abs(omega[s] - omega[c]) > 1e-3 * max(omega[s], 1e-3):
            bad.append((s, c))
    if not bad:
        return None
    shown = ", ".join(f"dims {s} and {c}: ω = {omega[s]:.6g} and {omega[c]:.6g}"
                      for s, c in bad[:3])
    return (f"dims 2i and 2i+1 use different frequencies ({shown}"
            f"{', …' if len(bad) > 3 else ''}; {len(bad)} of {len(enc.pairs)} pairs): "
            "no rotation T(Δ) exists — an exponent over the column index j instead of 2⌊j/2⌋?")


def _positions(n: int) -> str:
    """``1 position``, ``2 positions``, ``-1 position``.

    >>> _positions(1), _positions(-2), _positions(-1)
    ('1 position', '-2 positions', '-1 position')
    """
    return f"{n} position{'' if abs(n) == 1 else 's'}"


def _valid_pairs(block: np.ndarray | None, enc: Any) -> str | None:
    """When the columns are (sin, cos) pairs turning at constant speeds the spec does not
    have: say so, with the measured sin² + cos² − 1, the speeds and their constancy.

    Pairings tried: the spec's, then adjacent (2i, 2i+1) and split (i, i+n).  A pair
    counts when |sin² + cos² − 1| ≤ 1e-6 at every row and its angle step
    z(x+1)·conj(z(x)) (z = cos + i·sin) varies by at most 1e-6 over the rows: the
    measured values are printed, so the statement can be checked.
    """
    if block is None or block.ndim != 2 or block.shape[0] < 8 or block.shape[1] < 2:
        return None
    t = np.asarray(block, dtype=np.float64)
    d = t.shape[1]
    n = d // 2
    pairings = [list(enc.pairs), [(2 * i, 2 * i + 1) for i in range(n)],
                [(i, i + n) for i in range(n)]]
    for pairs in pairings:
        if len(pairs) != n or not pairs:
            continue
        s_idx = np.array([a for a, _ in pairs])
        c_idx = np.array([b for _, b in pairs])
        z = t[:, c_idx] + 1j * t[:, s_idx]
        norm_err = float(np.abs(np.abs(z) ** 2 - 1).max())
        step = z[1:] * np.conj(z[:-1])
        mean = step.mean(axis=0)
        drift = float(np.abs(step - mean).max())
        if norm_err > 1e-6 or drift > 1e-6:
            continue
        speeds = np.angle(mean)
        shown = ", ".join(f"{w:.6g}" for w in speeds[:6]) + (", …" if n > 6 else "")
        names = "; ".join(f"dims {a} and {b}" for a, b in pairs[:2]) + ("; …" if n > 2 else "")
        text = (f"valid (sin, cos) pairs ({names}: |sin² + cos² − 1| ≤ {norm_err:.1g}) "
                f"turning by constant angles per position (within {drift:.1g}) of {shown} "
                "rad (mod 2π), which no known schedule gives")
        spec = np.asarray(enc.frequencies_float, dtype=np.float64)
        if spec.size == n and np.all(spec > 0):
            gap = float(np.abs(np.exp(1j * speeds) - np.exp(1j / spec)).max())
            if gap <= 1e-6:
                text += (f"; they are the spec's frequencies inverted (1/ω_k, within "
                         f"{gap:.1g}): the base multiplies where it should divide")
        return text
    return None
