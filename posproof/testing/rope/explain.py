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
from ..core.judging import judges_little
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

    @classmethod
    def of(cls, rot: Any) -> RotModel:
        return cls(rot.head_dim, list(rot.pairs), rot.frequencies_float.copy())

    def regenerate(self, positions: np.ndarray) -> np.ndarray:
        """``y[b, s, c]``: channel c of R(positions[s])·e_b, shape (h, S, h)."""
        from ...measure.numeric import angles_in_dtype

        h, s_count = self.head_dim, positions.size
        x = positions.astype(np.float64) + self.shift
        with np.errstate(over="ignore", invalid="ignore"):
            ang = (angles_in_dtype(x, self.theta, self.angles) if self.angles
                   else np.multiply.outer(x, self.theta))
            cos, sin = self.amplitude * np.cos(ang), self.sign * self.amplitude * np.sin(ang)
        y = np.zeros((h, s_count, h))
        if self.pairs:
            first = np.array([i for i, _ in self.pairs])
            second = np.array([j for _, j in self.pairs])
            y[first, :, first] = cos.T
            y[first, :, second] = sin.T
            y[second, :, first] = -sin.T
            y[second, :, second] = cos.T
        for c in sorted(set(range(h)) - {c for pr in self.pairs for c in pr}):
            y[c, :, c] = 1.0
        return y

    def channel_theta(self) -> np.ndarray:
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
    hyps = list(_hypotheses(rot, fp, diffs, eps_angle))
    eps_path = max(min(eps_angle, _EPS32), min(eps, _EPS32))
    spec = RotModel.of(rot).regenerate(positions)
    outcomes = [_score(h, y, positions, eps, eps_path, spec, eps_angle) for h in hyps]
    confirmed = [(i, o) for i, o in enumerate(outcomes) if o.confirmed]
    ranked = sorted(outcomes, key=order)
    if confirmed:
        best = min(confirmed)[1]
        ranked = [best] + [o for o in ranked if o is not best]
        text = (f"{best.cause} — confirmed: regenerating with {best.how} reproduces the impl "
                f"to {best.residual:.2g} (every entry within its tolerance, the worst at "
                f"{best.score:.2g} of it)")
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
    if noop or blind or judges_little(tol, amp):  # changes nothing, cannot be told from the
        score = math.inf                            # spec, or its tolerance accepts anything
    return Outcome(h.key, h.cause, h.how, resid, float(tol[s, c]), score, score <= 1.0)


def _cause(diffs: list[str], prefix: str, default: str) -> str:
    """The fingerprint's own sentence for this difference, when it has one."""
    return next((d for d in diffs if d.startswith(prefix)), default)


def _hypotheses(rot: Any, fp: Any, diffs: list[str], eps_angle: float
                ) -> Iterator[RotHypothesis]:
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
    if rot.n_pairs >= 2:
        yield RotHypothesis("reversed", _cause(diffs, "frequency order is reversed",
                                               "frequency order is reversed: θ_k increases "
                                               "with the pair index k"),
                            "θ reversed", replace(spec, theta=spec.theta[::-1].copy()))
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
    fitted = None
    if measured is not None and measured.base is not None and \
            rot.schedule.family == "geometric":
        try:
            fitted = Geometric(measured.base)
        except PosproofError:
            fitted = None
        if fitted is not None and str(fitted.base) != str(rot.schedule.params().get("base")):
            yield RotHypothesis("base", _cause(diffs, "base ", f"base {measured.base}"),
                                f"base {measured.base}",
                                RotModel.of(rot.with_schedule(fitted)))
        else:
            fitted = None
    if measured is not None and measured.rotary_dim != rot.rotary_dim and \
            2 <= measured.rotary_dim <= h:
        part = Rotary(rot.schedule, h, rotary_dim=measured.rotary_dim, layout=rot.layout)
        yield RotHypothesis("rotary-dim", _cause(diffs, "rotates ", f"rotates "
                                                 f"{measured.rotary_dim} of {h} channels"),
                            f"rotary_dim={measured.rotary_dim}", RotModel.of(part))
    if measured is not None and abs(measured.amplitude - 1) > 1e-3 and measured.amplitude > 0:
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
                            f"m·θ formed in {name} (positions and θ rounded to {name}); form "
                            f"the angles in {wider} and round only cos and sin",
                            f"m·θ in {name}", replace(spec, angles=name), eps_out=e)
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
    if abs(fp.amplitude - 1) > 1e-3 and fp.amplitude > 0:
        model.amplitude = float(fp.amplitude)
        parts.append(f"× {fp.amplitude:.6g}")
    return model, ", ".join(parts)
