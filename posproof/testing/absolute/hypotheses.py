"""Candidate explanations of a wrong table, each one a table regenerated under its hypothesis.

A hypothesis is a change to the spec that real code makes by mistake: sin and
cos swapped, another layout, an exponent over n − 1 or over the column index,
a base, an offset or a scale off (fitted from the data), a padding row, angles
or positions formed in a low-precision dtype, …  Each is a :class:`Model` — a
table described column by column — and :func:`rank` regenerates every model
at the impl's positions and measures the residual against the impl.  A
hypothesis is *confirmed* only when its regeneration reproduces the impl
within the dtype's tolerance::

    |impl − regenerated| ≤ 4·eps_out·a + 16·eps_path·|x·ω|·a      (a = max(1, |scale|))

``eps_out`` is the eps of the values (the table's dtype, or the dtype the
angles are formed in when that is coarser: sin of a float16 angle is usually
stored in float16); ``eps_path`` covers a different rounding path for the
same angle (float64 or float32; never float16 or bfloat16, whose hypotheses
replicate the rounding instead of tolerating it).

>>> import posproof
>>> enc = posproof.preset("vaswani", dim=8)
>>> pos = np.arange(64)
>>> hyps = [h for h in structural(enc) if h.key == "swap"]
>>> impl = posproof.preset("vaswani", dim=8, layout="interleaved-cos").table(64)
>>> best = rank(impl, pos, hyps, eps=2.0**-52, eps_path=2.0**-52, spec=Model.of(enc))[0]
>>> best.key, best.confirmed, best.residual < 1e-15
('swap', True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..core.arrays import dtype_eps
from ..core.judging import Tolerance, judges_little
from ..identification import TOLERANCE
from ..identification.families import nice
from ..identification.measure import column_frequencies

__all__ = [
    "ULPS",
    "Hypothesis",
    "Model",
    "Outcome",
    "factor_names",
    "fitted",
    "measured_frequencies",
    "order",
    "padding",
    "precision",
    "rank",
    "score_hypothesis",
    "structural",
]

#: Output ulps a regeneration may differ by (sin and cos rounded in another library).
ULPS = 4.0

_EPS32 = 2.0**-23
_EPS64 = 2.0**-52


@dataclass
class Model:
    """A table column by column: ``amplitude · func_j(ω_j · (x + shift))``.

    ``angles``: None (formed in float64), or ``(dtype, freqs, product)``: the
    frequencies ``freqs`` (per column, as the impl's code computed them),
    positions and frequencies rounded to ``dtype``, their product formed in
    ``product`` (``dtype`` or ``"float32"`` then rounded to ``dtype``).
    ``positions_dtype``: positions rounded to it first (angles in float64).
    """

    funcs: np.ndarray
    omega: np.ndarray
    shift: int = 0
    amplitude: float = 1.0
    zero_positions: tuple[int, ...] = ()
    angles: tuple[str, np.ndarray, str] | None = None
    positions_dtype: str | None = None
    keep: np.ndarray | None = None      # columns to keep (a truncated wider table)

    @classmethod
    def of(cls, enc: Any) -> Model:
        """The model of an :class:`~posproof.Encoding` (its padding row zero)."""
        zero = () if enc.padding_idx is None else (int(enc.padding_idx),)
        return cls(np.asarray(enc.column_funcs), enc.column_frequencies_float.copy(),
                   zero_positions=zero)

    def regenerate(self, positions: np.ndarray) -> np.ndarray:
        """The table at ``positions`` (float64), shape ``(len(positions), dim)``."""
        from ...measure.numeric import dtype_model, round_to_dtype

        x = positions.astype(np.float64) + self.shift
        with np.errstate(over="ignore", invalid="ignore"):
            if self.angles is not None:
                name, freqs, product = self.angles
                model = dtype_model(name)
                if product == name:
                    ang = model.multiply(x[:, None], freqs[None, :])
                else:
                    x32 = round_to_dtype(model.round(x), product)
                    w32 = round_to_dtype(freqs, product)
                    ang = model.round(dtype_model(product).multiply(x32[:, None], w32[None, :]))
            else:
                if self.positions_dtype is not None:
                    x = round_to_dtype(x, self.positions_dtype)
                ang = np.multiply.outer(x, self.omega)
            out = np.zeros(ang.shape)
            sin, cos = self.funcs == "sin", self.funcs == "cos"
            out[:, sin] = np.sin(ang[:, sin])
            out[:, cos] = np.cos(ang[:, cos])
        if self.amplitude != 1.0:
            out *= self.amplitude
        for z in self.zero_positions:
            out[positions + self.shift == z] = 0.0
        return out if self.keep is None else out[:, self.keep]


@dataclass
class Hypothesis:
    """One candidate explanation: ``cause`` names the bug, ``how`` says what was regenerated."""

    key: str
    cause: str
    how: str
    model: Model
    eps_out: float | None = None        # eps of the values under this hypothesis
    eps_path: float | None = None       # rounding-path allowance for the angles


@dataclass
class Outcome:
    """A hypothesis with its regeneration's residual against the impl."""

    key: str
    cause: str
    how: str
    residual: float
    tolerance: float
    score: float
    confirmed: bool
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"hypothesis": self.cause, "key": self.key, "regenerated": self.how,
                "residual": self.residual, "tolerance": self.tolerance,
                "score": self.score if math.isfinite(self.score) else None,
                "fits": self.confirmed}


def _screen_rows(n: int) -> np.ndarray:
    """A few rows, the largest positions among them: wrong hypotheses fail fast there."""
    if n <= 48:
        return np.arange(n)
    return np.unique(np.concatenate([np.arange(16), np.linspace(16, n - 17, 16).astype(int),
                                     np.arange(n - 16, n)]))


def _check_bound(spec_tol: float | Tolerance, pos: np.ndarray, omega: np.ndarray,
                 e_out: float, amp: float) -> np.ndarray:
    """What the check accepts around the spec's table, with ``e_out`` the output's eps:
    ``16·eps_check·|x·ω|`` for an angle eps, a declared dtype's rounding model (its angle
    term and the eps of the angles) for a :class:`Tolerance`."""
    xw = np.multiply.outer(np.abs(pos.astype(np.float64)), np.abs(omega))
    if isinstance(spec_tol, Tolerance):
        xw *= spec_tol.angle_of(omega)
        xw += ULPS * e_out + (spec_tol.eps_angle if spec_tol.angles is not None else 0.0)
    else:
        xw *= TOLERANCE * spec_tol
        xw += ULPS * e_out
    return xw * amp


def score_hypothesis(h: Hypothesis, t: np.ndarray, pos: np.ndarray, eps: float, eps_path: float,
           spec: tuple[np.ndarray, float | Tolerance] | None = None
           ) -> tuple[float, float, float]:
    """(score, residual, tolerance at the worst entry) of ``h`` on rows ``t`` at ``pos``.

    ``spec``: the spec's own table at ``pos`` and the angle eps of the check (or the
    check's :class:`Tolerance`, a declared dtype's rounding model); a
    hypothesis whose regeneration passes the check changes nothing there and
    explains nothing (score inf), and so does one whose output tolerance (``e_out``) is wide
    enough to accept the spec's own table (it cannot tell the impl from the spec).
    """
    m = h.model
    regen = m.regenerate(pos)
    if regen.shape != t.shape:
        return math.inf, math.inf, 0.0
    amp = max(1.0, abs(m.amplitude))
    e_out = max(eps, h.eps_out or 0.0)
    e_path = h.eps_path if h.eps_path is not None else eps_path
    omega = m.omega if m.keep is None else m.omega[m.keep]
    tol = np.multiply.outer(np.abs(pos.astype(np.float64) + m.shift), np.abs(omega))
    tol *= TOLERANCE * e_path * amp
    tol += ULPS * e_out * amp
    if tol.size and judges_little(tol, amp):    # a tolerance that accepts anything at most
        return math.inf, math.inf, float(tol.max())     # entries confirms nothing
    with np.errstate(invalid="ignore", over="ignore"):
        if spec is not None and spec[0].shape == regen.shape:
            check = _check_bound(spec[1], pos, omega, eps, amp)
            if np.all(np.abs(regen - spec[0]) <= check):
                return math.inf, math.inf, 0.0
        diff = np.abs(t - regen)
        ratio = np.nan_to_num(diff / tol, nan=math.inf)
        if spec is not None and spec[0].shape == t.shape and t.size:
            # the spec rounded like this hypothesis's values (e_out) already reproduces the
            # impl: the hypothesis cannot be told from the spec (noise in a short table)
            near = _check_bound(spec[1], pos, omega, e_out, amp)
            if np.all(np.abs(t - spec[0]) <= near):
                return math.inf, float(np.nan_to_num(diff, nan=math.inf).max()), float(
                    tol.max())
    if not ratio.size:
        return 0.0, 0.0, float(ULPS * e_out)
    i = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    return float(ratio[i]), float(np.nan_to_num(diff, nan=math.inf).max()), float(tol[i])


def rank(t: np.ndarray, pos: np.ndarray, hyps: Any, *, eps: float, eps_path: float,
         spec: Model | None = None, eps_check: float | Tolerance = _EPS64
         ) -> list[Outcome]:
    """Every hypothesis scored against the impl rows ``t`` at ``pos``, confirmed ones first,
    then by residual (the closest regeneration first).

    A hypothesis is screened on a few rows, then confirmed on all of them (and
    must change the ``spec``'s table there by more than the check's tolerance, angle
    eps ``eps_check``, or the check's :class:`Tolerance` under a declared angle dtype: a
    no-op explains nothing).
    """
    screen = _screen_rows(pos.size)
    base = None
    out = []
    for h in hyps:
        score, resid, tol = score_hypothesis(h, t[screen], pos[screen], eps, eps_path)
        if score <= 1.0:
            if base is None and spec is not None:      # the spec's table, once, when needed
                base = (spec.regenerate(pos), eps_check)
            score, resid, tol = score_hypothesis(h, t, pos, eps, eps_path, base)
        out.append(Outcome(h.key, h.cause, h.how, resid, tol, score, score <= 1.0))
    return sorted(out, key=order)


def order(o: Outcome) -> tuple[bool, float]:
    """Confirmed first, then by residual: the closest regeneration of the impl."""
    return (not o.confirmed, o.residual)


# --------------------------------------------------------------------------- hypotheses
def structural(enc: Any) -> Iterator[Hypothesis]:
    """Parameter-free changes of the spec, simplest first."""
    from ...model.encoding import Encoding
    from ...model.schedules import Diffusion, Geometric, TensorToTensor

    if enc.schedule is None:
        return
    spec = Model.of(enc)
    lay = enc.layout.name
    kw = {"offset": enc.offset, "odd_dim": enc.odd_dim, "padding_idx": enc.padding_idx}
    swap = {"interleaved": "interleaved-cos", "interleaved-cos": "interleaved",
            "split": "split-cos", "split-cos": "split"}[lay]
    yield Hypothesis("swap", f"matches the spec with sin and cos swapped (layout {swap}, "
                     f"not {lay})", f"layout {swap}",
                     Model.of(Encoding(enc.schedule, swap, enc.dim, **kw)))
    for other in (("split", "split-cos") if lay.startswith("interleaved")
                  else ("interleaved", "interleaved-cos")):
        yield Hypothesis("layout", f"matches the {other} layout, not {lay}",
                         f"layout {other}", Model.of(Encoding(enc.schedule, other, enc.dim, **kw)))
    sched, n = enc.schedule, enc.n_pairs
    if isinstance(sched, (Geometric, Diffusion)) and n >= 2:
        base = sched.base if isinstance(sched, Geometric) else sched.max_period
        yield Hypothesis("n-1", "frequencies follow an exponent over n−1, as in tensor2tensor "
                         f"(ω_k = {base}^(−k/(n−1))), not over n",
                         "an exponent over n−1",
                         Model.of(Encoding(TensorToTensor(1, base), lay, enc.dim, **kw)))
    if isinstance(sched, TensorToTensor) and sched.min_timescale == 1 and n >= 2:
        yield Hypothesis("n", "frequencies follow an exponent over n, as in the original paper "
                         f"(ω_k = {sched.max_timescale}^(−k/n)), not over n−1 as in "
                         "tensor2tensor", "an exponent over n",
                         Model.of(Encoding(Geometric(sched.max_timescale), lay, enc.dim, **kw)))
    sin_cols = spec.funcs == "sin"
    cos_cols = spec.funcs == "cos"
    if isinstance(sched, (Geometric, Diffusion)) and n >= 2:
        b = float(sched.base if isinstance(sched, Geometric) else sched.max_period)
        d, j = enc.dim, np.arange(enc.dim, dtype=np.float64)
        live = spec.funcs != "zero"
        if lay.startswith("interleaved"):
            yield Hypothesis(
                "column-index", "dims 2i and 2i+1 use different frequencies: the exponent "
                f"runs over the column index j (`pos / {b:g} ** (j / d)`, ω_j = b^(−j/d)) "
                "instead of 2⌊j/2⌋/d: no rotation T(Δ) exists", "ω_j = b^(−j/d)",
                replace(spec, omega=np.where(live, b ** (-j / d), 0.0)))
            yield Hypothesis(
                "column-index-2j", "dims 2i and 2i+1 use different frequencies: the exponent "
                f"is 2j/d over the column index j (`{b:g} ** (2 * j / d)` for every column) "
                "instead of 2⌊j/2⌋/d: no rotation T(Δ) exists", "ω_j = b^(−2j/d)",
                replace(spec, omega=np.where(live, b ** (-2 * j / d), 0.0)))
            for label, expo in (("2j/d", 2 * j / d), ("j/d", j / d)):
                yield Hypothesis(
                    "cos-column-index", "dims 2i and 2i+1 use different frequencies: the sin "
                    f"columns are right but the cos line's exponent is {label} over its own "
                    f"column index j = 2k+1 (`{b:g} ** ({label.replace('/', ' / ')})`) instead "
                    "of 2k/d: no rotation T(Δ) exists", f"cos columns with ω_j = b^(−{label})",
                    replace(spec, omega=np.where(cos_cols & live, b ** -expo, spec.omega)))
        w = spec.omega
        with np.errstate(divide="ignore"):
            logw = np.where(w > 0, np.log(np.where(w > 0, w, 1.0)), 0.0)
        yield Hypothesis(
            "exponent-doubled", "the exponent is doubled: 2·i/d with i already the even "
            f"column index (ω_k = {b:g}^(−4k/d), base {b:g}² in effect)", "ω_k = b^(−4k/d)",
            replace(spec, omega=np.where(live, np.exp(2 * logw), 0.0)))
        yield Hypothesis(
            "sign", "the exponent has the wrong sign: frequencies are multiplied by the base "
            f"instead of divided (ω_k = {b:g}^(+2k/d); `exp(+…)` or `pos * b ** (2i/d)`)",
            "ω_k = b^(+2k/d)", replace(spec, omega=np.where(live, np.exp(-logw), 0.0)))
        yield Hypothesis(
            "log10", f"log10 instead of the natural log: ω_k = exp(−2k·log10({b:g})/d), a base "
            f"of e^{math.log10(b):g} ≈ {math.exp(math.log10(b)):.4g}, not {b:g}",
            "ω_k = exp(−2k·log10(b)/d)",
            replace(spec, omega=np.where(live, np.exp(logw * math.log10(b) / math.log(b)),
                                         0.0)))
        yield Hypothesis(
            "integer-division", "integer division in the exponent: 2i // d = 0, every "
            "frequency is 1 (cast the column index to float before dividing)", "ω_k = 1",
            replace(spec, omega=np.where(live, 1.0, 0.0)))
    idx = np.asarray(enc.column_freq_index)
    if enc.frequencies and len(enc.frequencies) >= 2:
        rev = enc.frequencies_float[::-1]
        yield Hypothesis("reversed", "frequency order is reversed: ω increases with the pair "
                         "index (a flipped frequency vector)", "frequencies reversed",
                         replace(spec, omega=np.where(idx >= 0, rev[np.maximum(idx, 0)], 0.0)))
    if sin_cols.any() and cos_cols.any():
        yield Hypothesis("sine-only", "the cos columns hold sin (a copy-paste: cos never "
                         "computed): no rotation T(Δ) exists", "sin in every column",
                         replace(spec, funcs=np.where(cos_cols, "sin", spec.funcs)))
        yield Hypothesis("cosine-only", "the sin columns hold cos (a copy-paste: sin never "
                         "computed)", "cos in every column",
                         replace(spec, funcs=np.where(sin_cols, "cos", spec.funcs)))
        yield Hypothesis("cos-unwritten", "the cos columns are zero: never written (the cos "
                         "line assigns the sin columns again, or is missing)",
                         "zero cos columns", replace(spec, funcs=np.where(cos_cols, "zero",
                                                                        spec.funcs)))
        yield Hypothesis("sin-unwritten", "the sin columns are zero: never written",
                         "zero sin columns", replace(spec, funcs=np.where(sin_cols, "zero",
                                                                        spec.funcs)))


def padding(enc: Any, t: np.ndarray, pos: np.ndarray) -> Iterator[Hypothesis]:
    """A zero row the spec does not have, or a padding row the impl did not zero."""
    spec = Model.of(enc)
    if enc.padding_idx is not None and np.any(pos == enc.padding_idx):
        yield Hypothesis("padding-missing", f"the padding row (position {enc.padding_idx}) is "
                         "not zero: the impl does not zero it (emb[padding_idx] = 0)",
                         "no zero padding row", replace(spec, zero_positions=()))
    zero = np.flatnonzero(~np.any(t, axis=1))
    if 0 < zero.size <= 2:
        rows = tuple(int(pos[z]) for z in zero)
        if set(rows) - set(spec.zero_positions):
            shown = " and ".join(map(str, rows))
            yield Hypothesis("padding-row", f"the row of position {shown} is zero: a padding "
                             "row the spec does not have (pass the spec's padding_idx, or use "
                             "preset('fairseq'))", f"row {shown} zeroed",
                             replace(spec, zero_positions=spec.zero_positions + rows))


def precision(enc: Any, eps_path: float) -> Iterator[Hypothesis]:
    """Angles x·ω (or positions only) formed in a dtype coarser than the tolerance allows."""
    spec = Model.of(enc)
    for name in ("float32", "float16", "bfloat16"):
        e = dtype_eps(name)
        if e <= eps_path:
            continue
        wider = "float64" if name == "float32" else "float32 or float64"
        cause = (f"{name} angles: the errors grow with |x·ω| as when x·ω is formed in {name} "
                 f"(an angle table built in low precision; form x·ω in {wider} and round only "
                 "the result)")
        for i, (label, freqs) in enumerate(_frequency_paths(enc)):
            for product in ((name, "float32") if name != "float32" else (name,)):
                how = (f"angles in {name}" + (f" (frequencies {label})" if i else "")
                       + (", product in float32" if product != name else ""))
                yield Hypothesis(f"angles-{name}", cause, how,
                                 replace(spec, angles=(name, freqs, product)), eps_out=e,
                                 eps_path=_EPS32)
        if name != "float32":
            limit = 2 ** (round(-math.log2(e)) + 1)
            yield Hypothesis(f"positions-{name}", f"positions rounded to {name}: integer "
                             f"positions past {limit} collide (`arange(L, dtype={name})`); "
                             "keep positions in int64 or float32", f"positions in {name}",
                             replace(spec, positions_dtype=name), eps_out=_EPS32,
                             eps_path=_EPS32)


def _frequency_paths(enc: Any) -> list[tuple[str, np.ndarray]]:
    """Per-column frequencies as code computes them: float64, or in float32 the tutorial way."""
    from ...model.schedules import Geometric

    spec = Model.of(enc)
    out = [("float64", spec.omega)]
    sched = enc.schedule
    if isinstance(sched, Geometric) and enc.n_pairs >= 1:
        b, d = float(sched.base), 2 * enc.n_pairs
        k2 = (2 * np.arange(enc.n_pairs)).astype(np.float32)
        tut = np.exp(k2 * np.float32(-math.log(b) / d))                     # PyTorch tutorial
        hf = np.float32(1.0) / (np.float32(b) ** (k2 / np.float32(d)))      # HF inv_freq
        idx = np.asarray(enc.column_freq_index)
        for label, w in (("exp in float32", tut), ("1 / b ** (2k/d) in float32", hf)):
            col = np.where(idx >= 0, w.astype(np.float64)[np.maximum(idx, 0)], 0.0)
            out.append((label, col))
    return out


# --------------------------------------------------------------------------- fitted
def measured_frequencies(block: np.ndarray | None, eps: float) -> np.ndarray | None:
    """Each column's frequency from consecutive rows (NaN where not a clean sinusoid)."""
    if block is None or block.shape[0] < 8:
        return None
    omega, ok = column_frequencies(block.astype(np.float64), TOLERANCE * max(eps, _EPS32))
    return np.where(ok, omega, np.nan)


def fitted(enc: Any, t: np.ndarray, pos: np.ndarray, omega_meas: np.ndarray | None
           ) -> Iterator[Hypothesis]:
    """Hypotheses with a parameter fitted from the data: offset, scale, base, frequency factor."""
    spec = Model.of(enc)
    yield from _offsets(enc, spec, t, pos)
    regen = spec.regenerate(pos)
    denom = float((regen * regen).sum())
    if denom > 0:
        alpha = float((t * regen).sum()) / denom
        if alpha != 0 and abs(alpha - 1) > 1e-3:
            shown, why = _snap(alpha, enc.dim)
            yield Hypothesis("scale", f"scaled by {shown}: the impl equals {shown} × the spec"
                             + why, f"the spec × {shown}", replace(spec, amplitude=alpha))
    if omega_meas is None or enc.schedule is None:
        return
    live = (spec.omega > 1e-4) & (spec.omega < 0.5) & np.isfinite(omega_meas) & (
        omega_meas > 1e-6) & (omega_meas < 0.5)
    if live.sum() >= 1:
        factor = float(np.median(omega_meas[live] / spec.omega[live]))
        if abs(factor - 1) > 1e-6:
            for text, value in factor_names(factor):
                yield Hypothesis("frequency-factor", f"every frequency is multiplied by {text}"
                                 + (" (positions divided by "
                                    f"{1 / value:.6g}: linear position interpolation?)"
                                    if value < 1 else ""),
                                 f"ω × {text}", replace(spec, omega=spec.omega * value))
    yield from _bases(enc, spec, omega_meas)


def _offsets(enc: Any, spec: Model, t: np.ndarray, pos: np.ndarray) -> Iterator[Hypothesis]:
    """Shifts s with impl(x) = spec(x + s), the best few by their first rows."""
    rows = min(4, t.shape[0])
    shifts = np.arange(-2048, 2049)
    shifts = shifts[shifts != 0]
    x = (pos[:rows, None] + shifts[None, :]).astype(np.float64)       # (rows, S)
    live = np.flatnonzero(spec.funcs != "zero")
    if live.size == 0 or rows == 0:
        return
    if live.size > 24:      # a spread of columns, fast to slow, tells the shifts apart
        live = live[np.unique(np.linspace(0, live.size - 1, 24).astype(int))]
    ang = x[:, :, None] * spec.omega[None, None, live]
    vals = np.where(spec.funcs[live] == "sin", np.sin(ang), np.cos(ang))
    err = np.abs(vals - t[:rows, None, live]).max(axis=(0, 2))
    for s in shifts[np.argsort(err)[:2]]:
        s = int(s)
        unit = "position" if abs(s) == 1 else "positions"
        yield Hypothesis("offset", f"offset by {s} {unit}: the impl at x equals the spec "
                         f"at x {'+' if s > 0 else '−'} {abs(s)}", f"the spec at x + {s}",
                         replace(spec, shift=s))


def _bases(enc: Any, spec: Model, omega_meas: np.ndarray) -> Iterator[Hypothesis]:
    """A geometric spec with another base, or its exponent over another dim."""
    from ...model.schedules import Diffusion, Geometric

    sched = enc.schedule
    if not isinstance(sched, (Geometric, Diffusion)) or enc.n_pairs < 2:
        return
    b = float(sched.base if isinstance(sched, Geometric) else sched.max_period)
    n = enc.n_pairs
    idx = np.asarray(enc.column_freq_index)
    k = np.where(idx >= 0, idx, 0).astype(np.float64)
    good = (idx > 0) & np.isfinite(omega_meas) & (omega_meas > 1e-5) & (omega_meas < 3)
    if good.sum() < 2:
        return
    slope = float((k[good] * np.log(omega_meas[good])).sum() / (k[good] ** 2).sum())
    raw = math.exp(-slope * n)
    m = n * math.log(b) / math.log(raw) if raw > 1 else 0.0
    if raw > 1 and abs(m - round(m)) < 1e-3 * m and round(m) not in (0, n):
        mm = round(m)
        root = math.sqrt(b)
        same = (f", or exponent i/d instead of 2i/d (`{b:g} ** (i / d)` with i the pair index:"
                f" effective base {root:.6g} = √{b:g}, not {b:g})" if mm == 2 * n else "")
        yield Hypothesis("exponent-dim", f"the exponent divides by {2 * mm}, not d = {2 * n}"
                         f"{same}: ω_k = {b:g}^(−2k/{2 * mm}) (the exponent over another dim: "
                         "d_model vs head dim, or rotary_dim)", f"ω_k = b^(−2k/{2 * mm})",
                         replace(spec, omega=np.where(idx >= 0, b ** (-k / mm), 0.0)))
    for _, cand in nice(raw)[:4]:
        value = float(cand)
        if value <= 1 or abs(value - b) < 1e-9 * b:
            continue
        spec_base = sched.base if isinstance(sched, Geometric) else sched.max_period
        yield Hypothesis("base", f"base {cand}, not {spec_base}", f"base {cand}",
                         replace(spec, omega=np.where(idx >= 0, value ** (-k / n), 0.0)))


def _snap(value: float, dim: int) -> tuple[str, str]:
    """A scale factor in simplest form, with the usual reason for it."""
    root = math.sqrt(dim)
    for v, text, why in ((root, f"√{dim} = {root:.6g}", " (the √d embedding scale applied to "
                          "the positional table too)"),
                         (1 / root, f"1/√{dim} = {1 / root:.6g}", " (x-transformers' scaled "
                          "sinusoidal embedding, dim ** −0.5)")):
        if abs(value - v) <= 1e-6 * v:
            return text, why
    return f"{value:.6g}", ""


def factor_names(factor: float) -> list[tuple[str, float]]:
    """Simple values near a measured frequency factor: 2π, 1/2π, p/q."""
    out = []
    for value, text in ((2 * math.pi, "2π"), (1 / (2 * math.pi), "1/(2π)"), (math.pi, "π")):
        if abs(factor - value) < 1e-3 * value:
            out.append((text, value))
    for q in (1, 2, 3, 4, 5, 8, 10, 15, 16, 32):
        p = round(factor * q)
        if p > 0 and abs(factor - p / q) < 1e-3 * factor and math.gcd(p, q) == 1:
            out.append((f"{p}/{q}" if q > 1 else f"{p}", p / q))
    if not out:
        out.append((f"{factor:.6g}", factor))
    return out[:2]
