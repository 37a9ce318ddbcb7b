"""Why a rotary embedding disagrees with its spec: the fingerprint's reading, confirmed.

The convention fingerprint (pairing, direction, frequency order, base, rotary
dim, amplitude) is *measured*; it becomes an explanation only when a rotation
regenerated under that reading reproduces the impl's rotation of every basis
vector, at every checked position, within the dtype's tolerance.  Candidates:
each single change of the spec (another layout, R(−m), reversed frequencies,
another base or rotary dim, an offset, a scale, angles formed in a
low-precision dtype) and all the fingerprint's differences at once; the first
confirmed (simplest first) is reported with its residual, else "no explanation
confirmed" with what the fingerprint shows.

>>> import posproof
>>> from posproof.testing import check_rotary
>>> rot = posproof.rotary(10000, 8)
>>> check_rotary(lambda x, p: rot.apply(x, p + 3), head_dim=8).explanation  # doctest: +ELLIPSIS
'positions offset by 3: ... — confirmed: regenerating with R(m + 3) reproduces the impl to ...'
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..absolute.hypotheses import ULPS, Outcome, order
from ..core.arrays import dtype_eps
from ..core.judging import VACUOUS, judges_little
from ..identification import TOLERANCE

_EPS32 = 2.0**-23


@dataclass
class RotModel:
    """A rotation of channel pairs: ``amplitude · R(sign · θ_k · (m + shift))`` per pair."""

    head_dim: int
    pairs: list[tuple[int, int]]
    theta: np.ndarray                 # per pair
    sign: float = 1.0
    amplitude: float = 1.0
    shift: int = 0
    angles: str | None = None         # dtype m·θ is formed in (None: float64)
    channel: np.ndarray | None = None  # per channel φ_c, when a pair's two channels differ
    positions: str | None = None      # dtype the positions are rounded to (None: exact)

    @classmethod
    def of(cls, rot: Any) -> RotModel:
        return cls(rot.head_dim, list(rot.pairs), rot.frequencies_float.copy())

    def regenerate(self, positions: np.ndarray) -> np.ndarray:
        """``y[b, s, c]``: channel c of R(positions[s])·e_b, shape (h, S, h)."""
        from ...measure.numeric import angles_in_dtype, round_to_dtype

        h, s_count = self.head_dim, positions.size
        x = positions.astype(np.float64) + self.shift
        freq = self.theta if self.channel is None else self.channel
        with np.errstate(over="ignore", invalid="ignore"):
            if self.positions:
                x = round_to_dtype(x, self.positions)
            ang = (angles_in_dtype(x, freq, self.angles) if self.angles
                   else np.multiply.outer(x, freq))
            cos, sin = self.amplitude * np.cos(ang), self.sign * self.amplitude * np.sin(ang)
        y = np.zeros((h, s_count, h))
        if self.pairs:
            first = np.array([i for i, _ in self.pairs])
            second = np.array([j for _, j in self.pairs])
            if self.channel is None:         # one angle per pair
                cos_1 = cos_2 = cos.T
                sin_1 = sin_2 = sin.T
            else:                            # x·cos(m·φ) + rotate(x)·sin(m·φ), φ per channel
                cos_1, cos_2, sin_1, sin_2 = (cos[:, first].T, cos[:, second].T,
                                              sin[:, first].T, sin[:, second].T)
            y[first, :, first] = cos_1
            y[first, :, second] = sin_2
            y[second, :, first] = -sin_1
            y[second, :, second] = cos_2
        for c in sorted(set(range(h)) - {c for pr in self.pairs for c in pr}):
            y[c, :, c] = 1.0
        return y

    def channel_theta(self) -> np.ndarray:
        if self.channel is not None:
            return np.abs(self.channel)
        out = np.zeros(self.head_dim)
        for (i, j), t in zip(self.pairs, self.theta, strict=True):
            out[i] = out[j] = abs(t)
        return out


@dataclass
class RotHypothesis:
    key: str
    cause: str
    how: str
    model: RotModel
    eps_out: float | None = None


def explain_rotary(y: np.ndarray, positions: np.ndarray, rot: Any, fp: Any,
                   conv: dict[str, Any], eps: float, eps_angle: float
                   ) -> tuple[str, list[dict[str, Any]]]:
    """(the explanation, the hypotheses tested as dicts, best first)."""
    diffs = list(conv.get("differences") or [])
    _, outcomes = _tested(y, positions, rot, fp, diffs, eps, eps_angle)
    confirmed = [(i, o) for i, o in enumerate(outcomes) if o.confirmed]
    ranked = sorted(outcomes, key=order)
    if confirmed:
        best = min(confirmed)[1]
        ranked = [best] + [o for o in ranked if o is not best]
        where = (f" at the {best.extra['judged']} of {best.extra['total']} entries its "
                 "tolerance judges (at the others |m·θ| is too large to tell values apart)"
                 if best.extra.get("judged") else "")
        text = (f"{best.cause} — confirmed: regenerating with {best.how} reproduces the impl "
                f"to {best.residual:.2g}{where} (every {'judged ' if where else ''}entry "
                f"within its tolerance, the worst at {best.score:.2g} of it)")
        return text, [o.to_dict() for o in ranked[:12]]
    text = (f"no explanation confirmed: none of {len(outcomes)} hypotheses reproduces the "
            "impl within its tolerance")
    closest = ranked[0] if ranked else None
    if closest is not None and math.isfinite(closest.residual):
        text += (f" (closest: {closest.cause.split(':')[0]}, off by {closest.residual:.2g} > "
                 f"{closest.tolerance:.2g})")
    if diffs:
        text += "; what the fingerprint shows: " + "; ".join(diffs)
    return text, [o.to_dict() for o in ranked[:12]]


def _tested(y: np.ndarray, positions: np.ndarray, rot: Any, fp: Any, diffs: list[str],
            eps: float, eps_angle: float) -> tuple[list[RotHypothesis], list[Outcome]]:
    """Every hypothesis and its regeneration's outcome against ``y``, in the order of
    simplicity."""
    hyps = list(_hypotheses(rot, fp, diffs, eps_angle, positions))
    eps_path = max(min(eps_angle, _EPS32), min(eps, _EPS32))
    spec = RotModel.of(rot).regenerate(positions)
    return hyps, [_score(h, y, positions, eps, eps_path, spec, eps_angle) for h in hyps]


def explain_nonfinite(y: np.ndarray, positions: np.ndarray, rot: Any, fp: Any,
                      conv: dict[str, Any], eps: float, eps_angle: float
                      ) -> tuple[str, list[dict[str, Any]]] | None:
    """An impl that returns NaN or inf at some positions, explained: a hypothesis is confirmed
    when its regeneration reproduces the impl at every finite position and is NaN or inf at
    exactly the others (float16 positions or angles overflow past 65504).  None without one."""
    from ..core.judging import ranges

    bad = ~np.isfinite(y).all(axis=(0, 2))
    ok = ~bad
    if ok.sum() < 2 or not bad.any():
        return None
    diffs = list(conv.get("differences") or [])
    hyps, outcomes = _tested(y[:, ok], positions[ok], rot, fp, diffs, eps, eps_angle)
    for h, o in zip(hyps, outcomes, strict=True):
        if not o.confirmed:
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            regen = h.model.regenerate(positions)
        if not np.array_equal(~np.isfinite(regen).all(axis=(0, 2)), bad):
            continue
        where = ranges([int(v) for v in positions[bad]])
        text = (f"{o.cause} — confirmed: regenerating with {o.how} reproduces the impl to "
                f"{o.residual:.2g} at the {int(ok.sum())} positions where it is finite (every "
                f"entry within its tolerance, the worst at {o.score:.2g} of it), and its NaN or "
                f"inf at positions {where}, where {h.model.angles or h.model.positions} "
                "overflows (past 65504)")
        o.cause = text.split(" — confirmed")[0]
        return text, [o.to_dict()]
    return None


def _score(h: RotHypothesis, y: np.ndarray, positions: np.ndarray, eps: float,
           eps_path: float, spec: np.ndarray, eps_check: float) -> Outcome:
    m = h.model
    regen = m.regenerate(positions)
    amp = max(1.0, abs(m.amplitude))
    e_out = max(eps, h.eps_out or 0.0)
    mt = np.multiply.outer(np.abs(positions.astype(np.float64) + m.shift), m.channel_theta())
    tol = (ULPS * e_out + TOLERANCE * eps_path * mt) * amp
    spec_mt = np.multiply.outer(np.abs(positions.astype(np.float64)),
                                RotModel(m.head_dim, m.pairs, m.theta).channel_theta())
    near = (ULPS * e_out + TOLERANCE * eps_check * spec_mt) * amp
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.nan_to_num(np.abs(y - regen), nan=math.inf)
        ratio = diff / tol[None]
        noop = bool(np.all(np.abs(regen - spec) <= near[None]))
        blind = bool(np.all(np.abs(y - spec) <= near[None]))
    b, s, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    score, resid = float(ratio[b, s, c]), float(diff.max())
    judged = tol < VACUOUS * amp             # (S, h): where the tolerance can tell values apart
    extra = {}
    if not judged.all() and judged.any():    # the residual where it is judged, and how much
        resid = float(diff[:, judged].max())
        extra = {"judged": int(judged.sum()) * m.head_dim, "total": int(judged.size) *
                 m.head_dim}
    if noop or blind or judges_little(tol, amp):  # changes nothing, cannot be told from the
        score = math.inf                            # spec, or its tolerance accepts anything
    return Outcome(h.key, h.cause, h.how, resid, float(tol[s, c]), score, score <= 1.0, extra)


def _cause(diffs: list[str], prefix: str, default: str) -> str:
    """The fingerprint's own sentence for this difference, when it has one."""
    return next((d for d in diffs if d.startswith(prefix)), default)


def _hypotheses(rot: Any, fp: Any, diffs: list[str], eps_angle: float,
                positions: np.ndarray | None = None) -> Iterator[RotHypothesis]:
    """Single changes of the spec, simplest first, then all measured differences at once."""
    from ...errors import PosproofError
    from ...model.rope import Rotary
    from ...model.schedules import Geometric

    spec = RotModel.of(rot)
    h = rot.head_dim
    measured = fp if not isinstance(fp, str) else None
    if isinstance(fp, str) and fp.startswith("no channel is rotated"):
        yield RotHypothesis("identity", fp, "x unchanged", RotModel(h, [], np.zeros(0)))
    other = "adjacent" if rot.layout == "half" else "half"
    layout = RotModel.of(rot.with_layout(other))
    yield RotHypothesis("layout", _cause(diffs, f"matches the {other} layout", f"matches the "
                        f"{other} layout, not {rot.layout}"), f"layout {other}", layout)
    flip = _cause(diffs, "rotation direction is flipped", "rotation direction is flipped: "
                  "the impl applies R(−m)")
    yield RotHypothesis("direction", flip, "R(−m)", replace(spec, sign=-1.0))
    yield RotHypothesis("layout+direction", f"matches the {other} layout, not {rot.layout}, "
                        "and the rotation direction is flipped", f"layout {other} and R(−m)",
                        replace(layout, sign=-1.0))
    yield from _mixups(rot, spec)
    yield from _column_index(rot, spec)
    if rot.n_pairs >= 2:
        yield RotHypothesis("reversed", _cause(diffs, "frequency order is reversed",
                                               "frequency order is reversed: θ_k increases "
                                               "with the pair index k"),
                            "θ reversed", replace(spec, theta=spec.theta[::-1].copy()))
    if rot.n_pairs >= 2 and np.all(spec.theta > 0):
        yield RotHypothesis("inverted", "angles pos/θ instead of pos·θ: the impl divides the "
                            "position by θ_k (θ inverted, θ_k = b^(+2k/d): the exponent's "
                            "sign flipped), so it agrees with the spec only at position 0",
                            "θ inverted (1/θ_k)", replace(spec, theta=1.0 / spec.theta))
    params = rot.schedule.params()
    if rot.schedule.family != "geometric" and "base" in params:
        try:
            plain = rot.with_schedule(Geometric(params["base"]))
        except PosproofError:
            plain = None
        if plain is not None:
            yield RotHypothesis("scaling-dropped", f"the {rot.name} scaling is not applied: "
                                f"the impl uses the plain frequencies of base {params['base']} "
                                "(rope_scaling / rope_type ignored or lost in conversion)",
                                f"base {params['base']}, no scaling", RotModel.of(plain))
    yield from _exponents(rot, spec)
    fitted = None
    if measured is not None and measured.base is not None and \
            rot.schedule.family == "geometric":
        try:
            fitted = Geometric(measured.base)
        except PosproofError:
            fitted = None
        if fitted is not None and str(fitted.base) != str(rot.schedule.params().get("base")):
            cause = _cause(diffs, "base ", f"base {measured.base}")
            spec_base = _spec_base(rot)
            if spec_base is not None and abs(float(fitted.base) - spec_base ** 2) <= \
                    1e-9 * spec_base ** 2:
                cause += (f" (= {_base_text(spec_base)}²: the frequencies an exponent 4i/d "
                          "instead of 2i/d gives, 2·i/d with i already even)")
            yield RotHypothesis("base", cause,
                                f"base {measured.base}",
                                RotModel.of(rot.with_schedule(fitted)))
        else:
            fitted = None
    b = _spec_base(rot)
    if b is not None:        # after the base: when the fit finds b², it says so itself
        k = np.arange(rot.n_pairs, dtype=np.float64)
        bt, r = _base_text(b), rot.rotary_dim
        yield RotHypothesis(
            "exponent-4i/d", f"exponent 4i/d instead of 2i/d: θ_i = {bt}^(−4i/{r}) (2·i/d "
            "with i already even, arange(0, d, 2) doubled again), the frequencies of an "
            f"effective base {_base_text(b * b)} = {bt}², not {bt}",
            f"θ_i = {bt}^(−4i/{r})", replace(spec, theta=b ** (-4 * k / r)))
    if measured is not None and measured.rotary_dim != rot.rotary_dim and \
            2 <= measured.rotary_dim <= h:
        part = Rotary(rot.schedule, h, rotary_dim=measured.rotary_dim, layout=rot.layout)
        yield RotHypothesis("rotary-dim", _cause(diffs, "rotates ", f"rotates "
                                                 f"{measured.rotary_dim} of {h} channels"),
                            f"rotary_dim={measured.rotary_dim}", RotModel.of(part))
    if measured is not None and abs(measured.amplitude - 1) > 1e-3 and measured.amplitude > 0 \
            and not measured.notes:  # cos² + sin² not constant: no common scale to regenerate
        a = float(measured.amplitude)
        yield RotHypothesis("scale", _cause(diffs, "cos and sin are scaled", f"cos and sin "
                                            f"are scaled by {a:.6g}"), f"cos, sin × {a:.6g}",
                            replace(spec, amplitude=a))
    for shift in _shifts(measured):
        sign = "+" if shift > 0 else "−"
        yield RotHypothesis("offset", f"positions offset by {shift}: the impl rotates position "
                            f"m by R(m {sign} {abs(shift)})", f"R(m {sign} {abs(shift)})",
                            replace(spec, shift=shift))
    for name in ("float32", "float16", "bfloat16"):
        e = dtype_eps(name)
        if e <= eps_angle:
            continue
        wider = "float64" if name == "float32" else "float32 or float64"
        yield RotHypothesis(f"angles-{name}", f"{name} angles: the impl equals the spec with "
                            f"m·θ formed in {name} (positions and θ rounded to {name}"
                            f"{phase_loss(name, spec.theta, positions)}); form "
                            f"the angles in {wider} and round only cos and sin",
                            f"m·θ in {name}", replace(spec, angles=name), eps_out=e)
    for name in ("float16", "bfloat16"):
        if dtype_eps(name) <= eps_angle:
            continue
        yield RotHypothesis(f"positions-{name}", positions_cause(name, spec.theta, positions),
                            f"positions rounded to {name}", replace(spec, positions=name))
    combined = _combined(rot, measured, fitted)
    if combined is not None and len(diffs) >= 2:
        yield RotHypothesis("fingerprint", "; ".join(diffs), "the measured convention "
                            f"({combined[1]})", combined[0])


def _shifts(fp: Any) -> list[int]:
    """Offsets read from the phase at position 0 of the fast pairs, and their neighbours."""
    if fp is None:
        return []
    usable = fp.theta > 1e-2
    if not usable.any():
        return []
    shift = round(float(np.median([math.remainder(p, 2 * math.pi) / t for p, t in
                                   zip(fp.phase0[usable], fp.theta[usable], strict=True)])))
    return [shift] if shift else []


def _combined(rot: Any, fp: Any, fitted: Any) -> tuple[RotModel, str] | None:
    """Every measured difference at once: layout, direction, base, order, rotary dim, scale."""
    from ...errors import PosproofError
    from ...model.rope import Rotary

    if fp is None:
        return None
    layout = fp.layout if fp.layout in ("half", "adjacent") else rot.layout
    try:
        base = Rotary(fitted or rot.schedule, rot.head_dim, rotary_dim=fp.rotary_dim,
                      layout=layout)
    except PosproofError:
        return None
    model = RotModel.of(base)
    parts = [f"layout {layout}"] + ([f"base {fp.base}"] if fitted else [])
    if fp.rotary_dim != rot.rotary_dim:
        parts.append(f"rotary_dim={fp.rotary_dim}")
    if fp.order == "increasing":
        model.theta = model.theta[::-1].copy()
        parts.append("θ reversed")
    if fp.direction == -1:
        model.sign = -1.0
        parts.append("R(−m)")
    if abs(fp.amplitude - 1) > 1e-3 and fp.amplitude > 0 and not fp.notes:
        model.amplitude = float(fp.amplitude)
        parts.append(f"× {fp.amplitude:.6g}")
    return model, ", ".join(parts)


# ------------------------------------------------------------------ named classic bugs
def _spec_base(rot: Any) -> float | None:
    """The base b of a plain geometric spec (θ_k = b^(−2k/r)), else None."""
    if rot.schedule.family != "geometric" or rot.n_pairs < 2:
        return None
    base = float(rot.schedule.params().get("base", 0))
    return base if math.isfinite(base) and base > 1 else None


def _base_text(b: float) -> str:
    return str(round(b)) if abs(b - round(b)) <= 1e-9 * b else f"{b:.6g}"


def _mixups(rot: Any, spec: RotModel) -> Iterator[RotHypothesis]:
    """cos/sin laid out for one pairing, x rotated with the other op (HF's rotate_half on
    ``repeat_interleave``d frequencies, or rotate_every_two on ``cat((freqs, freqs))``)."""
    n, r = rot.n_pairs, rot.rotary_dim
    if n < 2:
        return
    theta = spec.theta
    c = np.arange(r)
    half = [(k, k + n) for k in range(n)]
    adjacent = [(2 * k, 2 * k + 1) for k in range(n)]
    name = "half-split/interleaved mix-up"
    phi = np.zeros(rot.head_dim)
    phi[:r] = theta[c // 2]
    yield RotHypothesis(
        "mixup", f"{name}: cos and sin are built for adjacent pairs (repeat_interleave: channel "
        "c turns with θ_(c//2)) but x is rotated with rotate_half (pairs (k, k+n)), so the two "
        "channels of a pair turn with different angles and no rotation T(Δ) exists; build "
        "cos/sin with torch.cat((freqs, freqs), -1) for rotate_half, or rotate adjacent pairs "
        "(rotate_every_two) with repeat_interleave",
        "repeat_interleave cos/sin under rotate_half",
        RotModel(rot.head_dim, half, theta.copy(), channel=phi))
    phi = np.zeros(rot.head_dim)
    phi[:r] = theta[c % n]
    yield RotHypothesis(
        "mixup", f"{name}: cos and sin are built for half-split pairs (torch.cat((freqs, freqs)): "
        "channel c turns with θ_(c mod n)) but x is rotated pairwise (rotate_every_two, pairs "
        "(2k, 2k+1)), so the two channels of a pair turn with different angles and no rotation "
        "T(Δ) exists; build cos/sin with repeat_interleave for rotate_every_two, or rotate "
        "with rotate_half",
        "cat((freqs, freqs)) cos/sin under rotate_every_two",
        RotModel(rot.head_dim, adjacent, theta.copy(), channel=phi))


def _column_index(rot: Any, spec: RotModel) -> Iterator[RotHypothesis]:
    """Frequencies over the column index c (``base ** (arange(0, d) / d)``): the two channels
    of a pair turn with different frequencies."""
    b = _spec_base(rot)
    if b is None:
        return
    r = rot.rotary_dim
    for factor, expo in ((1, "c/d"), (2, "2c/d")):
        phi = np.zeros(rot.head_dim)
        phi[:r] = b ** (-factor * np.arange(r, dtype=np.float64) / r)
        yield RotHypothesis(
            "column-index", f"exponent over the column index: channel c turns with "
            f"{_base_text(b)}^(−{expo}) (d = {r}) instead of its pair's θ_k = "
            f"{_base_text(b)}^(−2k/d), so dims 2i and 2i+1 (the two channels of a pair) use "
            "different frequencies and no rotation T(Δ) exists; take the exponent over the pair "
            "index k: arange(0, d, 2) / d",
            f"θ_c = b^(−{expo}) per channel", replace(spec, channel=phi))


def _exponents(rot: Any, spec: RotModel) -> Iterator[RotHypothesis]:
    """Exponents over the wrong count: head_dim for rotary_dim, i/d for 2i/d (effective base
    √b), n−1.  (4i/d, base b², is told by the base hypothesis.)"""
    b = _spec_base(rot)
    if b is None:
        return
    n, r, h = rot.n_pairs, rot.rotary_dim, rot.head_dim
    k = np.arange(n, dtype=np.float64)
    bt = _base_text(b)
    root = math.sqrt(b)
    if r < h:              # first: with h = 2r the same frequencies as i/d over r
        same = (f" (the same frequencies as an exponent i/d instead of 2i/d: effective base "
                f"{_base_text(root)} = √{bt})" if h == 2 * r else "")
        yield RotHypothesis(
            "exponent-head-dim", f"exponent over head_dim {h}, not rotary_dim {r}: θ_k = "
            f"{bt}^(−2k/{h}) (a partial rotary embedding's frequencies divide by the rotated "
            f"channels){same}", f"θ_k = {bt}^(−2k/{h})",
            replace(spec, theta=b ** (-2 * k / h)))
    yield RotHypothesis(
        "exponent-i/d", f"exponent i/d instead of 2i/d: θ_i = {bt}^(−i/{r}) with i = 0 … "
        f"{n - 1} the pair index (torch.arange(0, d // 2) / d where arange(0, d, 2) / d was "
        f"meant), the frequencies of an effective base {_base_text(root)} = √{bt}, not {bt}",
        f"θ_i = {bt}^(−i/{r})", replace(spec, theta=b ** (-k / r)))
    if n >= 3:
        yield RotHypothesis(
            "exponent-n-1", f"exponent over n−1 = {n - 1} instead of n = {n}: θ_k = "
            f"{bt}^(−k/{n - 1}) (tensor2tensor's num_timescales − 1), so the slowest pair turns "
            f"with 1/{bt} instead of {bt}^(−{n - 1}/{n})",
            f"θ_k = {bt}^(−k/{n - 1})", replace(spec, theta=b ** (-k / (n - 1))))


def phase_loss(name: str, theta: np.ndarray, positions: np.ndarray | None, *,
               only_positions: bool = False) -> str:
    """How far m·θ formed in ``name`` (``only_positions``: m rounded to ``name``, the product
    exact) is from the exact angle at the checked positions: the precision loss users meet at
    4k–32k, long before float16 overflows past 65504."""
    from ...measure.numeric import angles_in_dtype, round_to_dtype

    if positions is None or theta.size == 0:
        return ""
    x = np.unique(positions[(positions > 0) & (positions <= 65504)]).astype(np.float64)
    if x.size == 0:
        return ""
    with np.errstate(over="ignore", invalid="ignore"):
        ang = (np.multiply.outer(round_to_dtype(x, name), theta) if only_positions
               else angles_in_dtype(x, theta, name))
        err = np.abs(ang - np.multiply.outer(x, theta)).max(axis=1)
    err = np.nan_to_num(err, nan=math.inf)
    big = np.flatnonzero(err > 0.1)
    if big.size == 0:
        return f"; the angles are off by up to {err.max():.2g} rad at the checked positions"
    first = int(x[big[0]])
    mid = np.flatnonzero((x >= 4096) & (x <= 32768))
    at = mid[np.argmax(err[mid])] if mid.size else big[-1]
    return (f"; the angle m·θ is off by more than 0.1 rad from position {first} on, by "
            f"{err[at]:.2g} rad at position {int(x[at])}")


def positions_cause(name: str, theta: np.ndarray, positions: np.ndarray | None) -> str:
    from ...measure.numeric import first_unrepresentable_integer

    m = first_unrepresentable_integer(name)
    return (f"positions rounded to {name}: the position ids are built in {name} (arange(…, "
            f"dtype={name}), position_ids.to({name})), which holds no integer past {m - 1} "
            f"exactly ({m} → {m - 1})"
            f"{phase_loss(name, theta, positions, only_positions=True)}; build positions as "
            "integers or float32 and form m·θ in float32")
