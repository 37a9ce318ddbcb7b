"""``check_rotary`` and ``assert_rotary``: a rotary embedding against the canonical RoPE.

Besides the values at large positions, the relative property and norm
preservation, the convention fingerprint (pairing, rotation direction,
frequency order, base) is measured from the rotation of basis vectors — a
flipped rotation passes every shift-invariance test, so only it catches one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from ...errors import InvalidParameter, check_int
from ...evidence import sampled_label
from ..absolute.check import angles_name, suggest_angles
from ..absolute.read import Applier, Tolerance, read_precision_explains, rotary_report
from ..core.arrays import dtype_eps
from ..core.audited import audited, entry_sign, failure_evidence, no_comparison
from ..core.judging import Coverage, judge, nothing_judged
from ..core.reports import (
    ImplReport,
    encoding_label,
    nonfinite,
    rotary_message,
)
from ..identification import TOLERANCE
from ..identification.families import nice
from ..identification.measure import measure_phases
from .explain import explain_nonfinite, explain_rotary

#: Largest position used by :func:`assert_rotary` unless ``max_position`` says otherwise.
DEFAULT_MAX_POSITION = 1 << 16
#: Largest head_dim checked: every basis vector of the head is rotated at 96
#: positions, h²·96 numbers per array (≈ 200 MB at 512; within 4 GiB in all).
MAX_HEAD_DIM = 512


def _rotary_spec(spec: Any, head_dim: int | None, base: Any, layout: str,
                 rotary_dim: int | None) -> Any:
    from ...model.configs import RopeConfig, parse_spec, read_config
    from ...model.rope import Rotary, rotary

    if isinstance(spec, (dict, RopeConfig)):        # a model's config: its rotary
        spec = spec if isinstance(spec, RopeConfig) else read_config(spec)
        spec = spec.rotary()
    elif isinstance(spec, str):
        spec = parse_spec(spec)            # a SPEC, or a config.json path
    if spec is None:
        if head_dim is None:
            raise InvalidParameter("pass head_dim= (or spec=posproof.rotary(...)): the number "
                                   "of channels of one attention head")
        return rotary(base, head_dim, layout=layout, rotary_dim=rotary_dim)
    if not isinstance(spec, Rotary):
        raise InvalidParameter(f"spec={spec!r} is not a posproof Rotary, a rope:… spec string, "
                               "a config (dict, RopeConfig or config.json path) or None")
    if head_dim is not None and head_dim != spec.head_dim:
        raise InvalidParameter(f"head_dim={head_dim} disagrees with the spec's "
                               f"head_dim={spec.head_dim}")
    return spec


@dataclass
class _Fingerprint:
    pairs: list[tuple[int, int]]
    layout: str
    rotary_dim: int
    direction: int               # +1 canonical, −1 flipped, 0 mixed/unknown
    theta: np.ndarray            # per pair, in pair order (pair index k)
    order: str                   # "decreasing" | "increasing" | "other"
    base: str | None
    amplitude: float
    phase0: np.ndarray
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"layout": self.layout, "rotary_dim": self.rotary_dim,
                "direction": {1: "canonical", -1: "flipped", 0: "mixed"}[self.direction],
                "frequency_order": self.order, "base": self.base,
                "amplitude": self.amplitude, "theta": [float(v) for v in self.theta[:8]],
                "notes": self.notes}


def _fingerprint(y: np.ndarray, head_dim: int, eps: float,
                 declared: Tolerance | None = None) -> _Fingerprint | str:
    """Convention of a rotation from its action on basis vectors at positions 0 … S−1.

    ``y[b, s, c]`` is channel c of R(s)·e_b.  Returns a string when no pairing exists.
    ``declared``: the tolerance of a declared angle dtype; the base is then fitted within
    what that dtype's rounding model lets each θ be off by.
    """
    noise = TOLERANCE * eps
    s_count = y.shape[1]
    off = np.abs(y).sum(axis=1)
    diag = off[np.arange(head_dim), np.arange(head_dim)].copy()
    off[np.arange(head_dim), np.arange(head_dim)] = 0.0
    partner = np.where(off.max(axis=1) > noise * s_count, off.argmax(axis=1), -1)
    pairs: list[tuple[int, int]] = []
    passthrough = []
    for b in range(head_dim):
        p = int(partner[b])
        if p < 0:
            if abs(diag[b] / s_count - 1) > 1e-2:
                return f"channel {b} is neither rotated nor passed through unchanged"
            passthrough.append(b)
        elif partner[p] != b:
            return (f"channel {b} mixes with channel {p}, which mixes with {int(partner[p])}: "
                    "not a rotation of channel pairs")
        elif b < p:
            pairs.append((b, p))
    if not pairs:
        return "no channel is rotated: the impl returns x unchanged"
    r = 2 * len(pairs)
    if pairs == [(2 * k, 2 * k + 1) for k in range(len(pairs))]:
        layout = "adjacent"
    elif pairs == [(k, k + len(pairs)) for k in range(len(pairs))]:
        layout = "half"
    else:
        layout = "other"
    first = np.stack([y[i, :, j] for i, j in pairs], axis=1)
    second = np.stack([y[i, :, i] for i, j in pairs], axis=1)
    amp = np.sqrt(first**2 + second**2)
    amplitude = float(np.median(amp))
    notes = []
    if np.abs(amp - amplitude).max() > 64 * noise * max(amplitude, 1):
        notes.append("cos² + sin² is not constant: cos and sin disagree (not a rotation)")
    scale = amplitude if amplitude > 0 else 1.0
    theta, _, phase0, reliable, signs = measure_phases(first / scale, second / scale, noise)
    votes = signs[reliable]
    direction = 0 if votes.size and np.any(votes != votes[0]) else (
        int(votes[0]) if votes.size else 1)
    finite = theta[theta > 10 * noise]
    if finite.size >= 2 and np.all(np.diff(theta) <= 1e-12 * theta[:-1] + 1e-15):
        order = "decreasing"
    elif finite.size >= 2 and np.all(np.diff(theta) >= -1e-12 * theta[1:] - 1e-15):
        order = "increasing"
    else:
        order = "other" if finite.size >= 2 else "decreasing"
    base = _fit_base(np.sort(theta)[::-1], r, eps, s_count, declared)
    return _Fingerprint(pairs, layout, r, direction, theta, order, base, amplitude, phase0,
                        notes)


def _fit_base(theta: np.ndarray, r: int, eps: float, s_count: int,
              declared: Tolerance | None = None) -> str | None:
    """The simplest base b with θ_k = b^(−2k/r) for the measured θ (decreasing); with a
    declared angle dtype, each θ within twice its model's relative error γ_k(θ) + u."""
    n = theta.size
    if n < 2 or abs(theta[0] - 1) > 1e-3:
        return None
    k = np.arange(n, dtype=np.float64)
    sigma = TOLERANCE * eps * math.sqrt(12.0 / s_count**3) + 1e-300
    good = theta > 50 * sigma
    if good.sum() < 2:
        return None
    slope = float(np.polyfit(k[good], np.log(theta[good]), 1, w=theta[good])[0])
    raw = math.exp(-slope * r / 2)
    for _, cand in nice(raw):
        if cand <= 1:
            continue
        model = np.exp(-k * 2 * math.log(float(cand)) / r)
        if np.all(np.abs(model - theta) <= _fit_tolerance(model, eps, s_count, declared)):
            return str(cand)
    return f"{raw:.6g}"


def _fit_tolerance(model: np.ndarray, eps: float, s_count: int,
                   declared: Tolerance | None = None) -> np.ndarray:
    """How far a measured θ_k may be from a base's θ_k = ``model`` and still fit it: the
    phase noise over ``s_count`` positions, twice the output's rounding, and with a declared
    angle dtype twice its model's relative error γ_k(θ) + u."""
    sigma = TOLERANCE * eps * math.sqrt(12.0 / s_count**3) + 1e-300
    tol = 10 * sigma + 2 * TOLERANCE * eps * model
    if declared is not None and declared.angles is not None:
        tol = tol + 2 * (declared.angle_of(model) + declared.eps_angle) * model
    return tol


@audited
def check_rotary(apply_fn: Any, spec: Any = None, *, head_dim: int | None = None,
                 base: Any = None, layout: str | None = None, rotary_dim: int | None = None,
                 max_position: int = DEFAULT_MAX_POSITION, dtype: str = "float32",
                 angles: str | None = None, inputs: str = "auto", seed: int = 0,
                 **params: Any) -> ImplReport:
    """Check a rotary embedding ``apply_fn(x, positions) -> rotated x``; see :func:`assert_rotary`.

    A multi-axis spec (a ``MultiAxisRotary``, ``"mrope"`` / ``"axial-rope"`` with their
    ``params``, an M-RoPE config) goes to
    :func:`~posproof.testing.rope.grid.check_multi_rotary` (positions ``(k, seq)``).

    >>> import posproof
    >>> rot = posproof.rotary(10000, 16, layout="half")
    >>> report = check_rotary(rot.apply, head_dim=16)
    >>> report.ok, [c["name"] for c in report.checks]
    (True, ['matches_spec', 'relative_property', 'norm_preservation', 'convention'])
    """
    from ...model.xpos import XPos
    from .grid import check_multi_rotary, is_multi_rotary_spec

    if isinstance(spec, XPos):  # xPos: apply_fn(x, downscale), torchscale's contract
        from .xpos import check_xpos

        return check_xpos(apply_fn, spec, seed=seed, angles=angles)
    if is_multi_rotary_spec(spec):
        for key, value in (("head_dim", head_dim), ("layout", layout), (
                "theta" if str(spec).lower() == "axial-rope" else "base", base)):
            if value is not None:
                params[key] = value
        return check_multi_rotary(
            apply_fn, spec, dtype=dtype, angles=angles, inputs=inputs, seed=seed,
            max_position=4096 if max_position == DEFAULT_MAX_POSITION else max_position,
            **params)
    from ...model.rope import spelled  # the spellings posproof.rotary takes: dim, theta

    head_dim = spelled(params, "head_dim", head_dim, None, ("dim",))
    base = spelled(params, "base", base, None, ("theta", "rope_theta"))
    if params:
        raise InvalidParameter(f"{', '.join(params)}: parameters of a multi-axis spec "
                               "('mrope', 'axial-rope'); a 1-D rotary takes head_dim= (or "
                               "dim=), base= (or theta=), layout=, rotary_dim=")
    rot = _rotary_spec(spec, head_dim, 10000 if base is None else base, layout or "half",
                       rotary_dim)
    angles = angles_name(angles)
    max_position = check_int("max_position", max_position, minimum=64, maximum=2**40)
    h = rot.head_dim
    if h > MAX_HEAD_DIM:
        raise InvalidParameter(f"head_dim={h} is too large; at most {MAX_HEAD_DIM} is checked "
                               f"(every basis vector is rotated: h² numbers per position)")
    apply = Applier(apply_fn, str(dtype), inputs)
    rng = np.random.default_rng(seed)
    consecutive = np.arange(64, dtype=np.int64)
    large = np.concatenate([rng.integers(64, max_position, size=31), [max_position - 1]])
    positions = np.concatenate([consecutive, large]).astype(np.int64)
    basis = np.broadcast_to(np.eye(h)[:, None, None, :], (h, 1, positions.size, h)).copy()
    y = apply(basis, positions)[:, 0]                                  # (b, s, c)
    report, tolerance, eps = rotary_report("rotary", rot.to_dict(), dtype, apply, angles,
                                           int(positions.size), int(positions.max()))
    label = encoding_label(rot)
    if not np.all(np.isfinite(y)):
        report.evidence = no_comparison("the impl returns NaN or inf: no real value to compare")
        nonfinite(report, label, positions[~np.isfinite(y).all(axis=(0, 2))])
        fp = _fingerprint(y[:, :64], h, eps, tolerance) if np.all(
            np.isfinite(y[:, :64])) else \
            "the impl returns NaN or inf at positions below 64"
        found = explain_nonfinite(y, positions, rot, fp, _convention_check(fp, rot), eps,
                                  tolerance.eps_angle)
        if found is not None:
            first_line = report.message
            report.explanation, report.hypotheses = found
            report.message = f"{first_line}\nmost likely: {report.explanation}"
        return report
    expected = rot.apply(basis, positions)[:, 0]
    theta_c = np.zeros(h)
    for (i, j), w in zip(rot.pairs, rot.frequencies_float, strict=True):
        theta_c[i] = theta_c[j] = w
    mtheta = np.multiply.outer(positions.astype(np.float64), theta_c)
    tol = tolerance.bound(mtheta, theta_c)
    ratio = np.abs(y - expected) / tol[None]
    report.score = float(ratio.max())
    report.max_error = float(np.abs(y - expected).max())
    xabs = np.abs(positions.astype(np.float64))
    cov = Coverage(h, population=max_position * h * h)     # positions drawn below max
    cov.add(tol, xabs, np.arange(h), tolerance, weight=h)
    first = {"name": "matches_spec", "status": "fail", "score": round(report.score, 6),
             "max_error": report.max_error, "tolerance": report.tolerance["formula"]}
    matches = judge(first, report.score, cov) == "pass"
    far = Coverage(h)                 # the positions drawn from [64, max_position) alone
    far.add(tol[consecutive.size:], xabs[consecutive.size:], np.arange(h), tolerance, weight=h)
    if matches and angles is not None and not (cov.meaningful and far.meaningful):
        # a declared angle dtype whose model judges fewer than half the entries — of all,
        # or of those drawn from the range beyond the first 64 positions — has shown
        # little: the entries it judged agree, the rest say nothing — no pass
        first["status"] = "unknown"
        first["label"] = "unknown"
        report.explanation = (
            f"most entries not judged under angles={angles!r} (at positions 64 to "
            f"{max_position - 1}: {far.judged} of {far.total} judged): {cov.unjudged()}; "
            f"the {cov.judged} judged entries agree — check a smaller max_position")
    checks = [first]
    accepting = None
    for a in ("float32", "float16", "bfloat16") if not matches and angles is None else ():
        wide = Tolerance.of(report.dtype, a)
        bound = wide.bound(mtheta, theta_c)
        if np.all(np.abs(y - expected) <= bound[None]):
            wide_cov = Coverage(h)
            wide_cov.add(bound, xabs, np.arange(h), wide, weight=h)
            accepting = (a, wide_cov)
            break
    by_precision = None if matches else read_precision_explains(
        apply, report.dtype, np.abs(y - expected), mtheta, angles,
        lambda bound, tol: _coverage_of(h, bound, xabs, tol), theta_c)
    if by_precision is not None:
        accepting = None
    fp = _fingerprint(y[:, :64], h, eps, tolerance)
    rel, norm = _relative_and_norm(apply, rot, fp, h, max_position, tolerance, rng)
    precision = None if matches else _rotary_precision(y, positions, rot, eps)
    conv = _convention_check(fp, rot, ignore_base=precision is not None)
    report.check_evidence = {"relative_property": rel.pop("evidence"),
                             "norm_preservation": norm.pop("evidence"),
                             "convention": _convention_evidence(fp, rot, y, conv, eps,
                                                                tolerance)}
    checks += [rel, norm, conv]
    report.fingerprint = fp.to_dict() if isinstance(fp, _Fingerprint) else {"error": fp}
    report.checks = checks
    report.ok = all(c["status"] == "pass" for c in checks)
    b, s, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    if report.score == 0:       # every entry exact: audit the largest position's cos(m·θ_0)
        b, s, c = 0, int(np.argmax(positions)), 0
    details = {"tolerance": report.tolerance["formula"], "score": report.score,
               "positions": [int(positions.min()), int(positions.max())], "check": "matches_spec"}
    if first["status"] != "unknown":
        worst = entry_sign(
            f"R({int(positions[s])})·e_{int(b)} channel {int(c)}",
            rot.rotation_entry(int(positions[s]), int(c), int(b)), float(y[b, s, c]),
            float(tol[s, c]), within=first["status"] == "pass")
    if report.ok:
        report.evidence = cov.evidence("exhaustive comparison at sampled positions", details)
        report.evidence.items.append(worst)
        return report
    if first["status"] == "fail":
        report.evidence = failure_evidence("exhaustive comparison at sampled positions", worst,
                                           details)
    if first["status"] == "unknown" and report.explanation is None:
        report.explanation = nothing_judged(tolerance, cov)
    if first["status"] == "unknown" and matches and all(
            c["status"] == "pass" for c in checks[1:]):
        report.message = f"impl not judged against {label}: {report.explanation}"
        return report
    bad = ratio > 1.0
    report.bad_positions = sorted({int(positions[i]) for i in np.flatnonzero(bad.any(axis=(0, 2)))})
    report.n_bad_positions = len(report.bad_positions)
    report.bad_dims = [int(i) for i in np.flatnonzero(bad.any(axis=(0, 1)))]
    report.n_bad_dims = len(report.bad_dims)
    report.worst = {"position": int(positions[s]), "input_channel": int(b),
                    "output_channel": int(c), "impl": float(y[b, s, c]),
                    "expected": float(expected[b, s, c]),
                    "difference": float(abs(y[b, s, c] - expected[b, s, c])),
                    "tolerance": float(tol[s, c])}
    if by_precision is not None:
        report.explanation = by_precision
        report.hypotheses = [{"key": "precision-read", "hypothesis": by_precision, "fits": True}]
    elif first["status"] != "unknown":
        at = dtype_eps(apply.read) if apply.read is not None else eps   # what the values carry
        report.explanation, report.hypotheses = explain_rotary(
            y, positions, rot, fp, conv, max(eps, at),
            max(tolerance.eps_angle, at) if at > eps else tolerance.eps_angle)
    suggest_angles(report, accepting)
    report.message = rotary_message(report, label)
    return report


def _coverage_of(h: int, bound: np.ndarray, xabs: np.ndarray, tol: Tolerance) -> Coverage:
    cov = Coverage(h)
    cov.add(bound, xabs, np.arange(h), tol, weight=h)
    return cov


def assert_rotary(apply_fn: Any, spec: Any = None, **kwargs: Any) -> ImplReport:
    """Fail with an explanation unless ``apply_fn`` is the canonical RoPE of the spec.

    ``apply_fn(x, positions)`` rotates ``x`` of shape ``(batch, heads, seq,
    head_dim)`` at ``positions`` (1-d int64, length seq); NumPy in, or torch
    tensors when NumPy is refused (``inputs="torch"`` to insist).  The spec is
    a :class:`posproof.Rotary`, a ``rope:…`` string, or ``head_dim=``,
    ``base=``, ``layout=`` (``"half"``: HF ``rotate_half``; ``"adjacent"``:
    GPT-J, RoFormer), ``rotary_dim=``.  Checked, at positions up to
    ``max_position``: the rotation of every basis vector against the spec
    (tolerance ``4·eps + 16·eps64·|m·θ|``, the exact rotation rounded to the
    dtype; ``angles="float32"`` — or ``"float16"``, ``"bfloat16"`` — when the
    impl forms m·θ in that dtype on purpose, as HF's float32
    ``inv_freq @ position_ids`` does: that dtype's rounding model,
    ``4·eps + eps_angles + γ_k·|m·θ|``, ``γ_k = k·u/(1 − k·u)``,
    ``k = 2·|ln θ| + 4`` — θ formed in that dtype from its exponent, m·θ rounded
    once more, m exact — and a declared dtype whose model leaves most entries
    unjudged gives ``unknown``, no pass); the relative property
    ⟨R(m)q, R(n)k⟩ = ⟨R(m+s)q, R(n+s)k⟩ = ⟨q, R(n−m)k⟩ for random q, k;
    norm preservation (within ``64·eps``, plus ``2·eps_angles`` with ``angles=``: cos
    and sin each within one ulp of that dtype); and the convention fingerprint —
    pairing, rotation direction, frequency order, base.  Each check carries evidence the
    independent audit re-checks (its deciding comparison as a Sign); the relative property
    and the norms, at 16 random (m, n, shift), are labelled sampled.  With an
    :class:`posproof.XPos` spec, ``apply_fn(x, downscale)`` is checked as xPos
    (:func:`posproof.testing.rope.xpos.check_xpos`: keys inverted, scales centred;
    ``angles=`` only ``"float32"``, the contract its tolerance models).

    Several axes (axial RoPE, M-RoPE): ``spec`` a ``MultiAxisRotary``, ``"mrope"``
    with ``mrope_section=…`` (``base=``, ``head_dim=``, ``interleaved=``),
    ``"axial-rope"`` with ``axes_dims=…``, or a HF config dict with
    ``mrope_section``; ``apply_fn`` then gets positions of shape ``(k, seq)`` and a
    failure names the axis and the confirmed mistake (axes swapped, sections
    reversed or applied over the whole head, interleaving, layout); see
    :func:`~posproof.testing.rope.grid.check_multi_rotary`.

    >>> import posproof
    >>> rot = posproof.rotary(10000, 8)
    >>> assert_rotary(lambda x, pos: rot.apply(x, -pos), head_dim=8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: impl disagrees with rotary(base=10000, head_dim=8, layout=half)...
    most likely: rotation direction is flipped...
    """
    __tracebackhide__ = True  # pytest: the failure points at the caller's line
    report = check_rotary(apply_fn, spec, **kwargs)
    if not report.ok:
        raise AssertionError(report.message)
    return report


def _relative_and_norm(apply: Applier, rot: Any, fp: _Fingerprint | str, h: int,
                       max_position: int, tol: Tolerance, rng: np.random.Generator
                       ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The relative property and norm preservation at 16 random (m, n, shift), random q, k."""
    count = 16
    m = rng.integers(0, max_position // 2, size=count)
    n = m + rng.integers(0, max_position // 4, size=count)
    s = rng.integers(1, max_position // 4, size=count)
    q, k = rng.normal(size=h), rng.normal(size=h)
    pairs = fp.pairs if isinstance(fp, _Fingerprint) else rot.pairs
    theta = fp.theta if isinstance(fp, _Fingerprint) else rot.frequencies_float
    return relative_property(apply, pairs, theta, q, k, m, n, s, tol,
                             population=(max_position // 2) * (max_position // 4)
                             * max(max_position // 4 - 1, 1))


def relative_property(apply: Any, pairs: list[tuple[int, int]], theta: np.ndarray,
                      q: np.ndarray, k: np.ndarray, m: Any, n: Any, s: Any, tol: Tolerance,
                      population: int | None = None
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
    """⟨R(m)q, R(n)k⟩ against shifted positions and against ⟨q, R(n−m)k⟩; ‖R(m)q‖ = ‖q‖.

    ``apply(x, positions)`` rotates x of shape (1, 1, seq, h).  Per pair, the
    tolerance is ``4·|q_pair|·|k_pair|·(16·eps + 2·eps_angles + angle(θ)·2·span·θ)``
    (``angle(θ)`` of ``tol``: 16·eps64 by default, the rounding model's γ_k(θ) with
    ``angles=``, whose cos and sin are within eps_angles; span the largest position);
    channels outside the pairs, ``16·eps·(1 + |q|·|k|)``; the norms, relative to ‖q‖,
    ``64·eps`` — plus ``2·eps_angles`` with ``angles=`` (the rounding model: cos and sin of
    the rounded angle each within one ulp of that dtype, so each pair's 2×2 rotation is off
    by at most 2·eps_angles in norm; the angle's own rounding keeps it a rotation).
    Returns the ``relative_property`` and ``norm_preservation`` check dicts, each with its
    ``evidence``: the deciding (worst) comparison as a Sign the audit recomputes, over the
    ``len(m)`` triples drawn of ``population`` (a sample when fewer).

    >>> import posproof
    >>> rot = posproof.rotary(10000, 8)
    >>> rel, norm = relative_property(rot.apply, rot.pairs, rot.frequencies_float,
    ...     np.ones(8), np.arange(8.0), [1000], [5000], [7], Tolerance.of("float64"))
    >>> rel["status"], norm["status"], norm["tolerance"] == 64 * 2**-52
    ('pass', 'pass', True)
    >>> [len(c["evidence"].items) for c in (rel, norm)]
    [1, 1]
    """
    m, n, s = (np.asarray(v, dtype=np.int64).reshape(-1) for v in (m, n, s))
    count, h = m.size, q.size
    eps = dtype_eps(tol.dtype)
    pos_q = np.concatenate([m, m + s, np.zeros(count, dtype=np.int64)]).astype(np.int64)
    pos_k = np.concatenate([n, n + s, n - m]).astype(np.int64)
    xq = np.broadcast_to(q, (1, 1, pos_q.size, h)).copy()
    xk = np.broadcast_to(k, (1, 1, pos_k.size, h)).copy()
    rq = np.asarray(apply(xq, pos_q), dtype=np.float64).reshape(pos_q.size, h)
    rk = np.asarray(apply(xk, pos_k), dtype=np.float64).reshape(pos_k.size, h)
    q, k = q.astype(np.float64), k.astype(np.float64)
    passthrough = sorted(set(range(h)) - {c for pr in pairs for c in pr})
    # per pair: its own dot product and tolerance (slow pairs are checked tightly)
    dots = np.stack([rq[:, i] * rk[:, i] + rq[:, j] * rk[:, j] for i, j in pairs], axis=1)
    size = np.array([math.hypot(q[i], q[j]) * math.hypot(k[i], k[j]) for i, j in pairs])
    span = np.maximum.reduce([m, n, m + s, n + s]).astype(np.float64)
    extra = 2 * tol.eps_angle if tol.angles is not None else 0.0
    bound = 4 * size * (TOLERANCE * eps + extra + tol.angle_of(theta) * 2
                        * np.multiply.outer(span, np.abs(theta)))
    if passthrough:
        dots_p = (rq[:, passthrough] * rk[:, passthrough]).sum(axis=1)
        p_tol = TOLERANCE * eps * (1 + float(np.abs(q[passthrough]) @ np.abs(k[passthrough])))
        p_err = np.abs(dots_p[:count] - dots_p[count:2 * count]) / p_tol
    else:
        p_err = np.zeros(0)
    shifted = _over(np.abs(dots[:count] - dots[count:2 * count]), bound)
    relative = _over(np.abs(dots[:count] - dots[2 * count:]), bound)
    worst = int(np.argmax(np.maximum(shifted.max(axis=1), relative.max(axis=1))))
    rel_score = float(max(shifted.max(), relative.max(), p_err.max(initial=0)))
    rel = {"name": "relative_property", "status": "pass" if rel_score <= 1 else "fail",
           "score": round(rel_score, 6),
           "worst": {"m": int(m[worst]), "n": int(n[worst]), "shift": int(s[worst])}}
    triples = f"{count} random (m, n, shift)"
    # the comparisons, worst first: (ratio, a, b, tolerance, what a and b are)
    with np.errstate(invalid="ignore"):
        cands = [(shifted, dots[:count], dots[count:2 * count], bound,
                  lambda i, c: f"pair {c}: ⟨R({m[i]})q, R({n[i]})k⟩ vs "
                               f"⟨R({m[i] + s[i]})q, R({n[i] + s[i]})k⟩"),
                 (relative, dots[:count], dots[2 * count:], bound,
                  lambda i, c: f"pair {c}: ⟨R({m[i]})q, R({n[i]})k⟩ vs ⟨q, R({n[i] - m[i]})k⟩")]
        if passthrough:
            cands.append((p_err[:, None], dots_p[:count, None], dots_p[count:2 * count, None],
                          np.full((count, 1), p_tol),
                          lambda i, c: f"channels passed through: ⟨q, k⟩ at (m, n) = "
                                       f"({m[i]}, {n[i]}) vs shifted by {s[i]}"))
    rel["evidence"] = _worst_comparison(
        "relative property at " + triples, cands, rel["status"] == "pass", count, population)
    # the norms: relative to ‖q‖ (‖k‖), within the output's rounding and, with a declared
    # angle dtype, the rounding model's cos and sin (each within one ulp of that dtype)
    norm_tol = TOLERANCE * 4 * eps + (2 * tol.eps_angle if tol.angles is not None else 0.0)
    formula = (f"{TOLERANCE * 4:g}·eps, eps of {tol.dtype}" + (
        f" + 2·eps_{tol.angles} (the model: cos and sin of the angle rounded to "
        f"{tol.angles} each within one ulp of it, so a pair's 2×2 rotation is off by at most "
        f"2·eps_{tol.angles} in norm; the angle's own rounding keeps it a rotation)"
        if tol.angles is not None else " (the rotation rounded to the output's dtype)"))
    deviation, norm_items = 0.0, []
    for vec, rotated, name in ((q, rq, "q"), (k, rk, "k")):
        size = float(np.linalg.norm(vec))
        if size == 0:
            continue
        dev = _over(np.abs(np.linalg.norm(rotated, axis=1) - size), size)
        deviation = max(deviation, float(dev.max()))
        norm_items.append((float(dev.max()), vec, rotated, int(np.argmax(dev)), name, size))
    norm = {"name": "norm_preservation", "status": "pass" if deviation <= norm_tol else "fail",
            "max_relative_deviation": deviation, "tolerance": norm_tol,
            "tolerance_formula": formula}
    norm["evidence"] = _norm_evidence(norm_items, norm_tol, pos_q, pos_k,
                                      norm["status"] == "pass", count, population)
    for c in (rel, norm):          # a pass over a sample of the triples says so
        if c["status"] == "pass" and c["evidence"].sampled:
            c["label"] = sampled_label(count, c["evidence"].total, "triples (m, n, shift)")
    return rel, norm


def _worst_comparison(method: str, cands: list[tuple[Any, ...]], within: bool, count: int,
                      population: int | None) -> Any:
    """The evidence of a comparison of the impl's numbers a and b within a tolerance: its
    worst entry (the largest |a − b|/tolerance; with none off, the one with the largest
    tolerance) as the Sign ``tolerance − |a − b| > 0`` (a pass) or ``|a − b| − tolerance > 0``
    (a fail), a and b read exactly."""
    from ...evidence import Evidence

    entries = []
    for ratio, a, b, bound, where in cands:
        ratio = np.nan_to_num(np.asarray(ratio, dtype=np.float64), nan=np.inf)
        if ratio.size == 0:
            continue
        for i, c in (np.unravel_index(int(np.argmax(ratio)), ratio.shape),
                     np.unravel_index(int(np.argmax(bound)), ratio.shape)):
            entries.append(((float(ratio[i, c]), float(bound[i, c])), float(a[i, c]),
                            float(b[i, c]), float(bound[i, c]), where(i, c)))
    best = max(entries, key=lambda e: e[0], default=None)
    if best is None or (within and best[3] <= 0):
        return Evidence(method, "all", unaudited="no comparison with a positive tolerance "
                                                  "(q or k is zero on every pair)")
    _, a, b, tol_value, where = best
    item = entry_sign(where, sp.Rational(*b.as_integer_ratio()), a, tol_value, within)
    return _sampled(method, item, within, count, population, "triples (m, n, shift)")


def _sampled(method: str, item: Any, within: bool, count: int, population: int | None,
             what: str) -> Any:
    from ...evidence import Evidence

    if not within:
        return failure_evidence(method, item)
    if population is not None and population > count:
        return Evidence(method, "sample", items=[item], covered=count, total=population,
                        details={"sampled": what})
    return Evidence(method, "all", items=[item])


def _norm_evidence(items: list[tuple[Any, ...]], norm_tol: float, pos_q: np.ndarray,
                   pos_k: np.ndarray, within: bool, count: int, population: int | None) -> Any:
    """The worst ‖R(m)v‖ against the exact ‖v‖ = √(Σ v_c²) (v's float64 entries read exactly)
    and the tolerance norm_tol·‖v‖, as a Sign the audit recomputes."""
    from ...evidence import Evidence

    method = f"norms at {3 * count} positions per vector"
    if not items:
        return Evidence(method, "all", unaudited="q and k are zero: no norm to compare")
    _, vec, rotated, row, name, size = max(items, key=lambda t: t[0])
    exact = sp.sqrt(sum(sp.Rational(*float(v).as_integer_ratio()) ** 2 for v in vec))
    at = int((pos_q if name == "q" else pos_k)[row])
    item = entry_sign(f"‖R({at})·{name}‖ vs ‖{name}‖", exact,
                      float(np.linalg.norm(rotated[row])), norm_tol * size, within)
    return _sampled(method, item, within, count, population, "triples (m, n, shift)")


def _over(diff: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """diff / bound, 0 where both are 0 (a pair q or k leaves empty), inf where only bound is."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(diff == 0, 0.0, diff / bound)


def _convention_check(fp: _Fingerprint | str, rot: Any, *,
                      ignore_base: bool = False) -> dict[str, Any]:
    if isinstance(fp, str):
        return {"name": "convention", "status": "fail", "differences": [fp]}
    diffs = [d for d in _convention_differences(fp, rot)
             if not (ignore_base and (d.startswith("base ") or "no RoPE base" in d))]
    return {"name": "convention", "status": "fail" if diffs else "pass", "differences": diffs,
            **fp.to_dict()}


def _convention_evidence(fp: _Fingerprint | str, rot: Any, y: np.ndarray,
                         conv: dict[str, Any], eps: float, declared: Tolerance | None) -> Any:
    """The evidence of the convention check, as Signs the audit recomputes:

    * the direction: at position 1, channel j of R(1)·e_i for the spec's fastest pair (i, j)
      times its exact value sin θ is positive (the same direction; negative: flipped);
    * the frequencies: the measured θ_k (phase fit at positions 0–63) farthest from the
      spec's exact θ_k, against the tolerance the check fits with (:func:`_fit_tolerance`
      for a base, 10⁻³·max θ otherwise).

    A pass rests on both; a fail on those that show it, or, for a structural difference
    (which channels mix, the order of θ), says so."""
    from ...evidence import Evidence, Sign

    method = "convention fingerprint: every basis vector rotated at positions 0–63"
    if isinstance(fp, str):
        return no_comparison(f"no rotation of channel pairs to compare: {fp}")
    passed = conv["status"] == "pass"
    items: list[Any] = []
    k0 = int(np.argmax(rot.frequencies_float))
    i, j = rot.pairs[k0]
    if (i, j) in fp.pairs and fp.direction != 0 and passed == (fp.direction == 1):
        items.append(Sign(
            f"R(1)·e_{i} channel {j} × its exact value sin θ_{k0}: "
            + ("the same direction" if fp.direction == 1 else "the opposite direction"),
            sp.Symbol("impl") * rot.rotation_entry(1, j, i),
            "positive" if fp.direction == 1 else "negative",
            env={"impl": float(y[i, 1, j])}, engine="float64 comparison"))
    n = rot.n_pairs
    if fp.rotary_dim == rot.rotary_dim and fp.theta.size == n and n >= 2:
        order = np.argsort(-rot.frequencies_float, kind="stable")
        expected = rot.frequencies_float[order]
        measured = np.sort(fp.theta)[::-1]
        spec_base = rot.schedule.params().get("base")
        fitted = (rot.schedule.family == "geometric" and fp.base is not None
                  and spec_base is not None)
        tol = (_fit_tolerance(expected, eps, 64, declared) if fitted
               else np.full(n, 1e-3 * float(expected.max())))
        ratio = np.abs(measured - expected) / tol
        kk = int(np.argmax(ratio))
        within = bool(ratio[kk] <= 1)
        if within == passed:
            items.append(entry_sign(
                f"θ of the {kk}-th fastest pair, measured vs the spec's", rot.frequencies[
                    int(order[kk])], float(measured[kk]), float(tol[kk]), within))
    details = {"check": "convention", "layout": fp.layout, "direction": fp.direction,
               "frequency_order": fp.order, "base": fp.base}
    if passed:
        return Evidence(method, "structural", items=items, details=details,
                        unaudited=None if items else "no pair to re-check")
    if items:
        ev = failure_evidence(method, items[0], details)
        ev.items.extend(items[1:])
        return ev
    diffs = conv.get("differences") or ["a structural difference"]
    return Evidence(method, "all", details=details,
                    unaudited=f"a structural difference, read from which channels mix and "
                              f"how θ is ordered (no number to re-check): {diffs[0]}")


def _convention_differences(fp: _Fingerprint, rot: Any) -> list[str]:
    n = rot.n_pairs
    diffs = []
    names = {"adjacent": "pairs (2k, 2k+1): the adjacent layout (GPT-J, RoFormer)",
             "half": f"pairs (k, k+{fp.rotary_dim // 2}): the half layout (GPT-NeoX, HF "
                     "rotate_half)"}
    if fp.rotary_dim != rot.rotary_dim:
        diffs.append(f"rotates {fp.rotary_dim} of {rot.head_dim} channels, not "
                     f"{rot.rotary_dim} (rotary_dim / partial_rotary_factor)")
    elif fp.layout != rot.layout:
        shown = names.get(fp.layout, "pairs " + ", ".join(map(str, fp.pairs[:4])) + ", …")
        spec_pairs = ("(2k, 2k+1)" if rot.layout == "adjacent" else f"(k, k+{n})")
        diffs.append(f"matches the {fp.layout} layout, not {rot.layout}: {shown}, "
                     f"not {spec_pairs}")
    if fp.direction == -1:
        diffs.append("rotation direction is flipped: the impl applies R(−m) (the sign of sin "
                     "is reversed, rotate_half/rotate_every_two negated the wrong half); "
                     "⟨R(−m)q, R(−n)k⟩ still depends on n−m only, so shift-invariance tests "
                     "pass — only this fingerprint against the canonical RoPE catches it")
    elif fp.direction == 0:
        diffs.append("pairs turn in different directions (mixed sin signs)")
    if fp.order == "increasing" and n >= 2:
        diffs.append("frequency order is reversed: θ_k increases with the pair index k")
    elif fp.order == "other" and n >= 2:
        diffs.append("frequencies are not monotone in the pair index k")
    spec_base = rot.schedule.params().get("base")
    if fp.base is not None and spec_base is not None and fp.base != str(spec_base) and \
            rot.schedule.family == "geometric":
        diffs.append(f"base {fp.base}, not {spec_base}")
    elif rot.schedule.family != "geometric" and fp.theta.size >= 2 and \
            fp.rotary_dim == rot.rotary_dim:
        # a scaled schedule (llama3, yarn, linear, …): its own frequencies, not its base's
        expected = np.sort(rot.frequencies_float)[::-1]
        measured = np.sort(fp.theta)[::-1]
        if np.abs(measured - expected).max() > 1e-3 * expected.max():
            rule = rot.to_dict().get("scaling") or rot.schedule.family
            got = (f"the frequencies of a plain RoPE of base {fp.base}" if fp.base is not None
                   else "θ = " + ", ".join(f"{t:.4g}" for t in measured[:4]) + ", …")
            diffs.append(f"frequencies are not the spec's ({rule} scaling of base {spec_base}): "
                         f"measured {got}")
    elif fp.base is None and fp.theta.size >= 2 and rot.schedule.family == "geometric" and \
            fp.rotary_dim == rot.rotary_dim:
        expected = np.sort(rot.frequencies_float)[::-1]
        measured = np.sort(fp.theta)[::-1]
        if np.abs(measured - expected).max() > 1e-3 * expected.max():
            diffs.append("frequencies follow no RoPE base: θ = "
                         + ", ".join(f"{t:.4g}" for t in measured[:4]) + ", …")
    if abs(fp.amplitude - 1) > 1e-3 and abs(fp.amplitude - rot.attention_factor_float) > 1e-3 \
            and not fp.notes:        # a scale only when cos² + sin² is one constant
        diffs.append(f"cos and sin are scaled by {fp.amplitude:.6g} (an attention factor?)")
    diffs += fp.notes
    return diffs


def _rotary_precision(y: np.ndarray, positions: np.ndarray, rot: Any,
                      eps: float) -> str | None:
    """'float16 angles' and friends: y equals the spec's rotation by m·θ formed in a
    low-precision dtype (positions, θ and their product rounded to it)."""
    from ...measure.numeric import angles_in_dtype

    h = rot.head_dim
    first = np.array([i for i, _ in rot.pairs])
    second = np.array([j for _, j in rot.pairs])
    theta = rot.frequencies_float
    for name in ("float32", "float16", "bfloat16"):
        e = dtype_eps(name)
        if e <= eps:
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            ang = angles_in_dtype(positions, theta, name)
            cos, sin = np.cos(ang), np.sin(ang)
        if not (np.all(np.isfinite(cos)) and np.all(np.isfinite(sin))):
            continue
        model = np.zeros_like(y)
        model[first, :, first] = cos.T
        model[first, :, second] = sin.T
        model[second, :, first] = -sin.T
        model[second, :, second] = cos.T
        for c in rot.passthrough:
            model[c, :, c] = 1.0
        tol = TOLERANCE * (e + eps * np.multiply.outer(positions.astype(np.float64),
                                                       np.full(h, theta.max())))
        if np.all(np.abs(y - model) <= tol[None]):
            wider = "float64" if name == "float32" else "float32 or float64"
            return (f"{name} angles: the impl equals the spec with m·θ formed in {name} "
                    f"(positions and θ rounded to {name}); form the angles in {wider} and "
                    "round only cos and sin")
    return None
