"""``check_multi_rotary``: axial RoPE and M-RoPE against the exact multi-axis rotation.

``apply_fn(x, positions)`` gets ``x`` of shape ``(batch, heads, seq, head_dim)``
and positions of shape ``(k, seq)`` (HF's ``position_ids`` layout without the
batch axis: for Qwen2-VL three rows t, h, w).  Every basis vector is rotated at
text tokens (all axes equal), a vision grid and random positions, and compared
with :meth:`MultiAxisRotary.apply <posproof.model.multirope.MultiAxisRotary.apply>`.
On a failure each candidate mistake rotates the basis under its hypothesis and is
reported only when that reproduces the impl within tolerance: axes swapped,
``mrope_section`` read reversed, interleaved against consecutive sections, the
sections applied per channel over the whole head instead of per pair over each
half, the other layout (half against adjacent pairs).

>>> from posproof.model.multirope import mrope
>>> rot = mrope(10000, 16, [2, 3, 3])
>>> bad = mrope(10000, 16, [3, 3, 2])
>>> check_multi_rotary(bad.apply, rot, dtype="float64").explanation  # doctest: +ELLIPSIS
'mrope_section read reversed: [3, 3, 2] instead of [2, 3, 3]... — confirmed: ...'
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ...errors import InvalidParameter, PosproofError, check_int
from ..absolute.read import Applier, angles_name, read_precision_explains, rotary_report
from ..core.arrays import dtype_eps
from ..core.audited import audited, entry_sign, failure_evidence, no_comparison
from ..core.judging import (
    Coverage,
    axes_coverage,
    axes_shortfall,
    judge,
    judges_little,
    nothing_judged,
    partial_label,
)
from ..core.reports import ImplReport
from ..identification import TOLERANCE, ranges

__all__ = ["check_multi_rotary", "is_multi_rotary_spec", "multi_rotary_spec"]

_EPS32 = 2.0**-23


def is_multi_rotary_spec(spec: Any) -> bool:
    """Whether ``spec`` describes a multi-axis rotary (an object, a name, an M-RoPE config).

    >>> is_multi_rotary_spec("mrope"), is_multi_rotary_spec("rope:dim=8")
    (True, False)
    """
    from ...model.multirope import MULTI_ROTARIES, MultiAxisRotary

    if isinstance(spec, MultiAxisRotary):
        return True
    if isinstance(spec, str):
        return spec.lower() in MULTI_ROTARIES
    if isinstance(spec, dict):
        text = str(spec)
        return "mrope_section" in text
    return getattr(spec, "mrope_section", None) is not None


def multi_rotary_spec(spec: Any, params: dict[str, Any]) -> Any:
    """A :class:`~posproof.model.multirope.MultiAxisRotary` from an object, a name with
    ``params`` (``"mrope"``, ``mrope_section=…``) or a HF config dict / RopeConfig.

    >>> multi_rotary_spec("mrope", {"head_dim": 8, "mrope_section": [2, 1, 1]}).pair_axes
    (0, 0, 1, 2)
    """
    from ...model.configs import RopeConfig, read_config
    from ...model.multirope import MultiAxisRotary, mrope_from_config, multi_rotary

    if isinstance(spec, MultiAxisRotary):
        rot = spec
    elif isinstance(spec, str):
        return multi_rotary(spec, **params)
    elif isinstance(spec, dict):
        rot = mrope_from_config(read_config(spec))
    elif isinstance(spec, RopeConfig):
        rot = mrope_from_config(spec)
    else:
        raise InvalidParameter(f"spec={spec!r} is not a MultiAxisRotary, 'mrope', 'axial-rope' "
                               "or an M-RoPE config")
    if params:
        raise InvalidParameter(f"{', '.join(params)} given with a built spec; pass them with "
                               "the name instead (spec='mrope', mrope_section=…)")
    return rot


def _positions(rot: Any, max_position: int, seed: int) -> np.ndarray:
    """(k, S): 16 text tokens (all axes equal), a small grid, 32 random positions."""
    k = rot.axes
    text = np.tile(np.arange(16, dtype=np.int64), (k, 1))
    side = 4
    grid = np.stack(np.meshgrid(*[np.arange(side)] * min(k, 3), indexing="ij"), 0).reshape(
        min(k, 3), -1)
    grid = np.concatenate([np.full((k - min(k, 3), grid.shape[1]), 16), grid], 0) + 16
    rng = np.random.default_rng(seed)
    rand = rng.integers(0, max_position, size=(k, 32))
    return np.concatenate([text, grid, rand], axis=1).astype(np.int64)


def mtheta_pos(pos: np.ndarray, axis_c: np.ndarray) -> np.ndarray:
    """|position| each channel turns with, shape (S, h): the axis position of its pair."""
    return np.abs(pos[axis_c].T.astype(np.float64))


def _rotate_channels(x: np.ndarray, pos: np.ndarray, theta_c: np.ndarray, axis_c: np.ndarray,
                     layout: str) -> np.ndarray:
    """x·cos + rotate(x)·sin with angle ``pos[axis_c[c]]·theta_c[c]`` per channel c
    (rotate_half for ``"half"``, rotate_every_two for ``"adjacent"``): the form HF's code
    takes, in which a channel's cos may read another axis than its partner's."""
    ang = pos[axis_c].T.astype(np.float64) * theta_c            # (S, h)
    h = x.shape[-1]
    if layout == "half":
        rot = np.concatenate([-x[..., h // 2:], x[..., : h // 2]], axis=-1)
    else:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
    return x * np.cos(ang) + rot * np.sin(ang)


def _channels(rot: Any) -> tuple[np.ndarray, np.ndarray]:
    """(θ per channel, axis per channel) of ``rot`` (passthrough: θ = 0, axis 0)."""
    h = rot.head_dim
    theta_c, axis_c = np.zeros(h), np.zeros(h, dtype=np.int64)
    for (i, j), w, a in zip(rot.pairs, rot.frequencies_float, rot.pair_axes, strict=True):
        theta_c[[i, j]] = w
        axis_c[[i, j]] = a
    return theta_c, axis_c


def _sections(rot: Any) -> tuple[list[int], bool] | None:
    """(mrope_section, interleaved) when ``rot``'s pair axes are an M-RoPE assignment."""
    from ...model.multirope import mrope_axes

    secs = [list(rot.pair_axes).count(a) for a in range(rot.axes)]
    for flag in (False, True):
        try:
            if mrope_axes(secs, rot.n_pairs, interleaved=flag) == list(rot.pair_axes):
                return secs, flag
        except PosproofError:    # not an M-RoPE assignment under this flag
            continue
    return None


def _hypotheses(rot: Any, basis: np.ndarray, pos: np.ndarray) -> list[tuple[str, str, Any]]:
    """(key, cause, rotated basis or a thunk) in the order of simplicity."""
    from ...model.multirope import MultiAxisRotary, mrope_axes

    names = rot.axis_names
    out: list[tuple[str, str, Any]] = []
    for perm in itertools.permutations(range(rot.axes)):
        if list(perm) == list(range(rot.axes)):
            continue
        moved = ", ".join(f"the pairs of axis {names[a]} (pairs {ranges(rot.axis_pairs(a))}) "
                          f"turn with the positions of axis {names[perm[a]]}"
                          for a in range(rot.axes) if perm[a] != a)
        other = rot.with_axes([perm[a] for a in rot.pair_axes])
        out.append(("swapped-axes", f"axes swapped: {moved}",
                    lambda r=other: r.apply(basis, pos)))
    axial = rot.name.startswith("axial-rope")
    if axial:
        out += _axial_hypotheses(rot, basis, pos)
    found = None if axial else _sections(rot)
    if found is not None:
        secs, flag = found
        if secs != secs[::-1]:
            try:
                rev = rot.with_axes(mrope_axes(secs[::-1], rot.n_pairs, interleaved=flag))
                out.append(("sections-reversed", f"mrope_section read reversed: {secs[::-1]} "
                            f"instead of {secs} (the axes t, h, w take {secs[::-1]} pairs)",
                            lambda r=rev: r.apply(basis, pos)))
            except PosproofError:    # reversed sections do not fit
                pass
        try:
            other = rot.with_axes(mrope_axes(secs, rot.n_pairs, interleaved=not flag))
            text = ("interleaved assignment (Qwen3-VL mrope_interleaved: pair k → h if k%3 = "
                    "1, w if k%3 = 2) where the spec has consecutive sections (Qwen2-VL)"
                    if not flag else "consecutive sections (Qwen2-VL) where the spec is "
                    "interleaved (Qwen3-VL mrope_interleaved)")
            out.append(("interleaving", text, lambda r=other: r.apply(basis, pos)))
        except PosproofError:        # no interleaved form
            pass
        if rot.layout == "half" and not flag and rot.rotary.rotary_dim == rot.head_dim:
            theta_c, _ = _channels(rot)
            axis_c = np.array([a for a, s in enumerate(secs) for _ in range(2 * s)])
            doubled = [2 * s for s in secs]
            out.append(("sections-full-head",
                        f"mrope_section applied per channel over the whole head ({doubled} of "
                        f"{rot.head_dim} channels, one chunk per axis) instead of per frequency "
                        f"pair over each half ({secs} in both halves: HF repeats the sections, "
                        "mrope_section * 2, and takes chunk i from axis i % 3)",
                        lambda: _rotate_channels(basis, pos, theta_c, axis_c, "half")))
    for a in range(rot.axes):
        for shift in (1, -1):
            moved_pos = pos.copy()
            moved_pos[a] += shift
            out.append(("offset", f"axis {names[a]} off by {shift:+d}: its pairs turn with "
                        f"p_{names[a]} {'+' if shift > 0 else '−'} 1 (an off-by-one position "
                        "on that axis; text tokens then differ from plain RoPE)",
                        lambda q=moved_pos: rot.apply(basis, q)))
    for shift in itertools.product((-1, 0, 1), repeat=rot.axes):
        if sum(1 for v in shift if v) >= 2:             # one axis alone: above
            moved_pos = pos + np.asarray(shift, dtype=pos.dtype)[:, None]
            text = ", ".join(f"p_{names[a]} {'+' if v > 0 else '−'} 1"
                             for a, v in enumerate(shift) if v)
            out.append(("offset-axes", f"off by one on several axes at once: the pairs turn "
                        f"with ({text})", lambda q=moved_pos: rot.apply(basis, q)))
    out += _base_hypotheses(rot, basis, pos)
    other_layout = "adjacent" if rot.layout == "half" else "half"
    wrong = MultiAxisRotary(rot.frequencies, rot.pair_axes, rot.head_dim, layout=other_layout,
                            axes=rot.axes, axis_names=rot.axis_names)
    text = {"adjacent": "pairs (2k, 2k+1): the adjacent layout (rotate_every_two, FLUX, "
                        "GPT-J) where the spec rotates the halves (k, k + n, rotate_half)",
            "half": "pairs (k, k + n): the half layout (rotate_half) where the spec rotates "
                    "adjacent pairs (2k, 2k+1)"}[other_layout]
    out.append(("layout", text, lambda: wrong.apply(basis, pos)))
    return out


def _spec_base(rot: Any) -> float | None:
    """The base (rope_theta, FLUX's theta) of a multi-axis rotary: θ = base^(−e) per pair."""
    inner = getattr(rot, "rotary", None)
    base = None
    if inner is not None and inner.n_pairs >= 2 and not rot.name.startswith("axial-rope"):
        base = float(inner.frequencies_float[1]) ** (-inner.n_pairs)
    else:
        for a in range(rot.axes):
            pairs = rot.axis_pairs(a)
            if len(pairs) >= 2:      # axial: θ_1 of an axis of d_a dims is theta^(−2/d_a)
                base = float(rot.frequencies_float[pairs[1]]) ** (-len(pairs))
                break
    if base is None:
        return None
    return float(round(base)) if abs(base - round(base)) <= 1e-6 * base else base


#: Bases a multi-axis rotary is seen with (rope_theta of Qwen2-VL 1e6, FLUX 10000, …).
_BASES = (100.0, 10000.0, 500000.0, 1000000.0, 10000000.0)


def _base_hypotheses(rot: Any, basis: np.ndarray, pos: np.ndarray
                     ) -> list[tuple[str, str, Any]]:
    """Another base/theta on every axis: θ' = B^(−e) = θ^(ln B / ln b), regenerated."""
    b = _spec_base(rot)
    if b is None or not math.isfinite(b) or b <= 1:
        return []
    theta_c, axis_c = _channels(rot)
    out: list[tuple[str, str, Any]] = []
    for big in _BASES:
        if abs(big - b) <= 1e-9 * b:
            continue
        with np.errstate(divide="ignore"):
            other = np.where(theta_c > 0, theta_c ** (math.log(big) / math.log(b)), 0.0)
        out.append(("base", f"base/theta {big:g}, not {b:g}: every axis turns with θ = "
                    f"{big:g}^(−e) (rope_theta / theta taken from another model's config)",
                    lambda t=other: _rotate_channels(basis, pos, t, axis_c, rot.layout)))
    return out


def _axial_hypotheses(rot: Any, basis: np.ndarray, pos: np.ndarray
                      ) -> list[tuple[str, str, Any]]:
    """FLUX-style axial RoPE: ``axes_dims`` read in reverse order (each axis its own θ)."""
    from ...model.multirope import axial_rope

    dims = [2 * len(rot.axis_pairs(a)) for a in range(rot.axes)]
    if dims == dims[::-1]:
        return []
    theta = None
    for a in range(rot.axes):
        pairs = rot.axis_pairs(a)
        if len(pairs) >= 2:          # θ_1 of an axis of d_a dims is theta^(−2/d_a)
            value = float(rot.frequencies_float[pairs[1]]) ** (-dims[a] / 2)
            theta = round(value) if abs(value - round(value)) <= 1e-6 * value else value
            break
    if theta is None:
        return []
    wrong = axial_rope(dims[::-1], theta, layout=rot.layout)
    return [("axes-dims-reversed", f"axes_dims read reversed: {dims[::-1]} instead of {dims} "
             "(each axis then rotates another number of channels, with its own θ)",
             lambda: wrong.apply(basis, pos))]


def _integer_positions(pos: np.ndarray) -> np.ndarray:
    """Positions as the int64 the impl is told it gets (an impl may index a buffer with them);
    a non-integer position is refused."""
    if not np.all(pos == np.round(pos)) or np.abs(pos).max(initial=0) > 2**53:
        raise InvalidParameter("positions must be whole numbers (the impl gets int64 positions "
                               "of shape (k, seq)); got a non-integer one")
    return pos.astype(np.int64)


def _text_evidence(rot: Any, y: np.ndarray, pos: np.ndarray, ratio: np.ndarray,
                   tol: np.ndarray, text: np.ndarray, within: bool) -> Any:
    """The evidence of ``text_tokens_plain_rope``: its worst entry (the largest
    |difference|/tolerance at the text positions, all axes equal) against R(m)'s exact entry,
    a Sign the audit recomputes; without text positions, why there is nothing to compare."""
    from ...evidence import Evidence

    method = "comparison at the text positions (every axis at the same position)"
    cols = np.flatnonzero(text)
    if cols.size == 0:
        return Evidence(method, "all", unaudited="no text position (all axes equal) among "
                                                 "the positions checked")
    sub = ratio[:, cols]
    b, k, c = np.unravel_index(int(np.argmax(sub)), sub.shape)
    if sub[b, k, c] == 0:           # every entry exact: the farthest text position, channel 0
        b, k, c = 0, int(np.argmax(np.abs(pos[0, cols]))), 0
    s = int(cols[k])
    if not np.isfinite(y[b, s, c]):
        return no_comparison("the impl returns NaN or inf at a text position: no real value "
                             "to compare")
    at = [int(v) for v in pos[:, s]]
    item = entry_sign(f"text position {at[0]}: R{tuple(at)}·e_{int(b)} channel {int(c)}",
                      rot.rotation_entry(at, int(c), int(b)), float(y[b, s, c]),
                      float(tol[s, c]), within)
    if not within:
        return failure_evidence(method, item, {"check": "text_tokens_plain_rope"})
    return Evidence(method, "all", items=[item], details={"check": "text_tokens_plain_rope",
                                                          "positions": int(cols.size)})


@audited
def check_multi_rotary(apply_fn: Any, spec: Any, *, dtype: str = "float32",
                       angles: str | None = None, inputs: str = "auto",
                       max_position: int = 4096, positions: Any = None, seed: int = 0,
                       **params: Any) -> ImplReport:
    """Check ``apply_fn(x, positions)`` — positions of shape ``(k, seq)`` — against a
    multi-axis rotary spec; the report :func:`~posproof.testing.assert_rotary` raises on.

    ``spec``: a :class:`~posproof.model.multirope.MultiAxisRotary`, ``"mrope"`` /
    ``"axial-rope"`` with that function's ``params``, or a HF config dict /
    :class:`~posproof.model.configs.RopeConfig` with ``mrope_section``.
    ``positions``: the positions to test, shape ``(k, seq)`` (default: 16 text
    tokens, a 4×4(×4) grid, 32 random ones below ``max_position``).
    ``angles="float32"`` when the impl forms m·θ in float32 (HF does).
    """
    from ...model.multiaxis import as_axis_positions
    rot = multi_rotary_spec(spec, params)
    angles = angles_name(angles)
    max_position = check_int("max_position", max_position, minimum=16, maximum=2**40)
    pos = (_positions(rot, max_position, seed) if positions is None else
           _integer_positions(as_axis_positions("positions", positions, rot.axes,
                                                rows_first=False)))
    h = rot.head_dim
    apply = Applier(apply_fn, str(dtype), inputs,
                    positions=f"int64 positions of shape ({rot.axes}, seq) (one row per axis)")
    basis = np.broadcast_to(np.eye(h)[:, None, None, :], (h, 1, pos.shape[1], h)).copy()
    y = apply(basis, pos)[:, 0]                                             # (b, s, c)
    report, tolerance, eps = rotary_report("multi-axis rotary", rot.to_dict(), dtype, apply,
                                           angles, int(pos.shape[1]), int(pos.max()))
    label = repr(rot)
    expected = rot.apply(basis, pos)[:, 0]
    theta_c, axis_c = _channels(rot)
    mtheta = np.abs(pos[axis_c].T * theta_c)                                # (S, h)
    tol = tolerance.bound(mtheta, theta_c)
    with np.errstate(invalid="ignore"):
        ratio = np.nan_to_num(np.abs(y - expected) / tol[None], nan=math.inf)
    report.score = float(ratio.max())
    report.max_error = float(np.nan_to_num(np.abs(y - expected), nan=math.inf).max())
    text = np.all(pos == pos[:1], axis=0)
    text_score = float(ratio[:, text].max()) if text.any() else 0.0
    cov = Coverage(h, population=None if positions is not None else
                   max(int(pos.shape[1]), max_position ** rot.axes) * h * h)
    xabs = mtheta_pos(pos, axis_c)
    cov.add(tol, xabs, np.arange(h), tolerance, weight=h)
    paired = np.full(h, -1, dtype=np.int64)         # a channel passed through: no axis
    for (i, j), a in zip(rot.pairs, rot.pair_axes, strict=True):
        paired[[i, j]] = a
    per_axis = axes_coverage(tol, xabs, paired, rot.axis_names, tolerance, weight=h)
    first = {"name": "matches_spec", "status": "fail", "score": round(report.score, 6),
             "max_error": report.max_error, "tolerance": report.tolerance["formula"]}
    status = judge(first, report.score, cov)
    short = axes_shortfall(per_axis, angles is not None) if status == "pass" else None
    if status == "pass" and ((angles is not None and not cov.meaningful) or short):
        # a declared angle dtype whose rounding model judges fewer than half the entries —
        # of all, or of one axis's: an axis left unjudged does not hide behind the others
        status = first["status"] = first["label"] = "unknown"
        first["coverage"] = {**cov.to_dict(), "axes": {k: c.to_dict()
                                                       for k, c in per_axis.items()}}
        report.checks = [first]
        report.score = math.inf
        report.explanation = (
            f"most entries {'of one axis ' if cov.meaningful else ''}not judged"
            + (f" under angles={angles!r}" if angles is not None else "")
            + f" ({short or 'of all axes'}): {cov.unjudged()}; the {cov.judged} judged "
            "entries agree")
        report.message = f"impl not judged against {label}: {report.explanation}"
        return report
    if status == "pass" and not cov.complete:        # a partial pass names its axes
        first["label"] = partial_label(first["label"], per_axis)
        first["coverage"]["axes"] = {k: c.to_dict() for k, c in per_axis.items()}
    report.checks = [
        first,
        {"name": "text_tokens_plain_rope", "status": "pass" if text_score <= 1 else "fail",
         "score": round(text_score, 6), "positions": int(text.sum())}]
    report.check_evidence["text_tokens_plain_rope"] = _text_evidence(
        rot, y, pos, ratio, tol, text, text_score <= 1)
    report.ok = status == "pass"
    b, s, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    if report.score == 0:       # every entry exact: audit the farthest position's channel 0
        b, s, c = 0, int(np.argmax(np.abs(pos).sum(axis=0))), 0
    method = "exhaustive comparison at sampled positions"
    details = {"tolerance": report.tolerance["formula"], "score": report.score,
               "check": "matches_spec"}
    if status != "unknown" and np.isfinite(y[b, s, c]):
        at = [int(v) for v in pos[:, s]]
        worst = entry_sign(f"R{tuple(at)}·e_{int(b)} channel {int(c)}",
                           rot.rotation_entry(at, int(c), int(b)), float(y[b, s, c]),
                           float(tol[s, c]), within=status == "pass")
        report.evidence = (cov.evidence(method, details) if report.ok
                           else failure_evidence(method, worst, details))
        if report.ok:
            report.evidence.items.append(worst)
    elif status == "fail":
        report.evidence = no_comparison("the impl returns NaN or inf: no real value to compare")
    if report.ok:
        return report
    if status == "unknown":
        report.score = math.inf
        report.explanation = nothing_judged(tolerance, cov)
        report.message = f"impl not judged against {label}: {report.explanation}"
        return report
    bad = ratio > 1.0
    bad_c = np.flatnonzero(bad.any(axis=(0, 1)))
    report.bad_dims = [int(c) for c in bad_c]
    report.n_bad_dims = int(bad_c.size)
    bad_s = np.flatnonzero(bad.any(axis=(0, 2)))
    report.bad_positions = [int(s) for s in bad_s[:64]]
    report.n_bad_positions = int(bad_s.size)
    report.worst = {"position": [int(v) for v in pos[:, s]], "input_channel": int(b),
                    "output_channel": int(c), "impl": float(y[b, s, c]),
                    "expected": float(expected[b, s, c]),
                    "difference": float(abs(y[b, s, c] - expected[b, s, c])),
                    "tolerance": float(tol[s, c])}
    per_axis = [f"axis {rot.axis_names[a]}: {np.isin(rot.axis_channels(a), bad_c).sum()} of "
                f"{len(rot.axis_channels(a))} channels disagree" for a in range(rot.axes)]
    report.checks[0]["axes"] = per_axis
    eps_path = max(min(tolerance.eps_angle, _EPS32), min(eps, _EPS32))

    def coverage(bound: np.ndarray, tol_: Any) -> Coverage:
        wide = Coverage(h)
        wide.add(bound, mtheta_pos(pos, axis_c), np.arange(h), tol_, weight=h)
        return wide
    by_precision = read_precision_explains(apply, report.dtype, np.abs(y - expected), mtheta,
                                           angles, coverage, theta_c)
    if by_precision is not None:
        report.explanation = by_precision
        report.hypotheses = [{"key": "precision-read", "hypothesis": by_precision, "fits": True}]
    else:
        at = dtype_eps(apply.read) if apply.read is not None else eps   # what the values carry
        _explain(report, rot, y, expected, basis, pos, max(eps, at), max(eps_path, at)
                 if at > eps else eps_path, per_axis, text_score)
    w = report.worst
    lines = [f"impl disagrees with {label}: "
             + ", ".join(f"{ch['name']}: {ch['status']}" for ch in report.checks),
             f"disagreeing channels: {'; '.join(per_axis)}",
             f"worst: position {tuple(w['position'])}, R(p)·e_{w['input_channel']} channel "
             f"{w['output_channel']}: impl {w['impl']:.9g}, expected {w['expected']:.9g}, "
             f"|difference| {w['difference']:.3g} > tolerance {w['tolerance']:.3g} "
             f"({report.tolerance['formula']})"]
    if report.precision_note:
        lines.append(report.precision_note)
    if text_score > 1:
        lines.append("text tokens (every axis at the same position) do not reduce to plain "
                     "RoPE with the same base and head_dim")
    lines.append(report.explanation if report.explanation.startswith("no explanation")
                 else f"most likely: {report.explanation}")
    report.message = "\n".join(lines)
    return report


def _explain(report: ImplReport, rot: Any, y: np.ndarray, expected: np.ndarray,
             basis: np.ndarray, pos: np.ndarray, eps: float, eps_path: float,
             per_axis: list[str], text_score: float) -> None:
    theta_max = float(rot.frequencies_float.max()) if rot.n_pairs else 0.0
    tol = TOLERANCE * (eps + eps_path * np.abs(pos).max(axis=0)[:, None] * theta_max)
    results = []
    for key, cause, make in _hypotheses(rot, basis, pos):
        regen = make()[:, 0]
        diff = float(np.abs(y - regen).max())
        noop = bool(np.all(np.abs(regen - expected) <= tol[None]))
        fits = (bool(np.all(np.abs(y - regen) <= tol[None])) and not noop
                and not judges_little(np.broadcast_to(tol, regen.shape[1:])))
        results.append({"hypothesis": cause, "key": key, "residual": diff, "fits": fits})
    confirmed = [r for r in results if r["fits"]]
    report.hypotheses = (confirmed + sorted((r for r in results if not r["fits"]),
                                            key=lambda r: r["residual"]))[:12]
    if confirmed:
        best = confirmed[0]
        report.explanation = (f"{best['hypothesis']} — confirmed: rotating every basis vector "
                              f"under it reproduces the impl to {best['residual']:.2g} (within "
                              "the tolerance at every position)")
        others = list(dict.fromkeys(r["hypothesis"].split(":")[0] for r in confirmed[1:]
                                    if r["key"] != best["key"]))
        if others:                  # several reproduce the impl: each is named
            report.explanation += "; also reproduced by: " + "; ".join(others[:3])
        return
    text = (f"no explanation confirmed: none of {len(results)} hypotheses (axes swapped, "
            "sections reversed or over the whole head, interleaving, layout) reproduces the "
            "impl within its tolerance; what is known: " + "; ".join(per_axis))
    if text_score <= 1:
        text += "; text tokens (all axes equal) match plain RoPE"
    report.explanation = text
