"""Identify an unknown 1-D sinusoidal table: layout, schedule, parameters, offset, padding.

The engine behind :func:`~posproof.testing.identification.identify` (which adds
tables over a grid of positions, :mod:`posproof.testing.identification.grid`).

A table of shape ``(n_positions, dim)`` from a checkpoint, a converted model or
somebody else's code goes in; what produced it comes out, or a plain "matches
no known schedule".  The method, for each way of pairing the columns
(adjacent ``(2k, 2k+1)`` or halves ``(k, n+k)``):

1. a pair of columns is a (sin, cos) pair of one frequency only if
   sin² + cos² = 1 on every row;
2. each pair's frequency is the phase advance between rows (the angle of
   Σ z_{i+1}·conj(z_i), z = cos + i·sin, refined by least squares over the
   rows); its sign says which column holds the sine;
3. the frequency list is fitted against each family — ω_k = b^(−k/n)
   (original paper, diffusion), (1/min)·(max/min)^(−k/(n−1)) (tensor2tensor,
   fairseq), c/2^(k+1) (binary dials) — and the parameters are snapped to
   the simplest numbers the data allow (10000 rather than 10000.00037);
4. the offset comes from the phases at the first row, unwrapped from the
   slowest pair to the fastest;
5. the whole table is compared with the fitted :class:`~posproof.Encoding`;
   it is a match only when every entry agrees within the noise of the
   table's dtype, ``16·eps·(1 + |x·ω|)`` (angles formed in the dtype lose
   |x·ω|·eps);
6. when nothing matches at the dtype's noise, the table's scale and working
   precision are read from its values (:mod:`posproof.testing.identification.precision`: a
   float32 table stored as float64, a table times 1/√d) and steps 1–5 run
   again on the rescaled table at that precision.

>>> import posproof
>>> table = posproof.preset("tensor2tensor", dim=64).table(200, dtype="float32")
>>> found = identify_1d(table)
>>> found.matched, found.preset, found.layout, found.params
(True, 'tensor2tensor', 'split', {'min_timescale': '1', 'max_timescale': '10000'})
>>> identify_1d(np.random.default_rng(0).normal(size=(200, 64))).summary
'matches no known schedule: no pairing of the columns gives (sin, cos) pairs (sin² + cos² = 1)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from ...errors import InvalidParameter
from ..core.arrays import as_array, dtype_eps, dtype_name
from ..core.arrays import phasors as phasors
from ..core.arrays import tolerance as tolerance
from ..core.judging import ranges
from .families import (
    TOLERANCE,
    Candidate,
    call_text,
    candidates,
    first_row_offset,
    fmt,
    preset_calls,
    screen,
)
from .measure import (
    Pairs,
    column_frequencies,
    layout_name,
    longest_run,
    measure_phases,
    pairings,
    residual,
)

__all__ = [
    "TOLERANCE",
    "Identification",
    "as_array",
    "audit_identification",
    "dtype_eps",
    "identify_1d",
    "identify_read",
    "ranges",
    "read_table",
]


#: Rows used to measure the frequencies (all rows are used to validate).
_FIT_ROWS = 512


@dataclass
class Identification:
    """What :func:`identify_1d` (and :func:`~posproof.testing.identification.identify` of a
    1-D table) found.  ``matched`` is True only for a validated match.

    ``params`` and ``presets`` say how to rebuild the table with
    :func:`posproof.preset`; ``offset`` is the position of row 0;
    ``residual`` is the largest |table − fitted| and ``score`` the largest
    ratio of a difference to its tolerance (≤ 1 for a match).  ``precision``
    is the working precision read from the values when it is narrower than
    ``dtype`` (a float32 table stored as float64), ``scale`` the constant the
    table is multiplied by (1.0 when none); the fitted encoding is unscaled.
    """

    matched: bool
    summary: str
    rows: int
    dim: int
    dtype: str
    family: str | None = None
    preset: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    presets: list[str] = field(default_factory=list)
    layout: str | None = None
    exponent: str | None = None
    offset: int | None = None
    odd_dim_padding: bool = False
    zero_rows: list[int] = field(default_factory=list)
    residual: float | None = None
    score: float | None = None
    frequencies: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    encoding: Any = field(default=None, repr=False)
    precision: str | None = None
    scale: float = 1.0
    angles: str | None = None
    coverage: dict[str, Any] | None = None
    #: What the match rests on (:class:`~posproof.evidence.Evidence`): the entry nearest its
    #: tolerance against the fitted encoding's exact value, a Sign the audit recomputes; an
    #: unmatched table's says why there is nothing to re-check.
    evidence: Any = field(default=None, repr=False)

    @property
    def status(self) -> str:
        """``pass`` for a validated match, ``fail`` for none (the verdict line's count)."""
        return "pass" if self.matched else "fail"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the fitted encoding as its own ``to_dict()``).

        >>> identify_1d(posproof.preset("vaswani", dim=8).table(64)).to_dict()["params"]
        {'base': '10000'}
        """
        out = {k: getattr(self, k) for k in (
            "matched", "summary", "rows", "dim", "dtype", "family", "preset", "params",
            "presets", "layout", "exponent", "offset", "odd_dim_padding", "zero_rows",
            "residual", "score", "frequencies", "notes", "precision", "scale", "angles",
            "coverage")}
        out["encoding"] = self.encoding.to_dict() if self.encoding is not None else None
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_dict()
        return out

    def __str__(self) -> str:
        lines = [f"table: {self.rows} positions × {self.dim} dims, {self.dtype}",
                 f"verdict: {self.summary}"]
        if self.layout:
            lines.append(f"layout: {self.layout}")
        if self.family:
            params = ", ".join(f"{k}={v}" for k, v in self.params.items())
            lines.append(f"schedule: {self.family} (exponent over {self.exponent})"
                         if self.exponent else f"schedule: {self.family}")
            if params:
                lines.append(f"parameters: {params}")
        if self.offset is not None:
            lines.append(f"offset: {self.offset} (position of row 0)")
        if self.odd_dim_padding:
            lines.append("odd dim: last column is zero padding")
        if self.zero_rows:
            lines.append(f"zero rows: {ranges(self.zero_rows)}")
        if self.residual is not None:
            lines.append(f"residual: max |table − fitted| = {self.residual:.3g} "
                         f"({self.score:.3g} of the {self.precision or self.dtype} "
                         "tolerance" + (f", angles formed in {self.angles}" if self.angles
                                        else "") + ")")
        if self.coverage and self.coverage.get("not_judged"):
            lines.append(f"judged: {self.coverage['judged']} of {self.coverage['entries']} "
                         f"entries ({self.coverage['not_judged']})")
        if self.presets:
            lines.append("rebuild with: " + "; ".join(self.presets))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def read_table(table: Any, dtype: str | None = None) -> tuple[np.ndarray, str]:
    """``table`` as a 2-d float64 array (axes of length 1 dropped) and the precision name
    identify assumes (``dtype`` when given, else the array's own), checked for size.

    >>> read_table(np.zeros((3, 4)))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: table has 3 rows; identify needs at least 4 consecutive positions
    """  # noqa: E501
    arr, dtname = as_array(table)
    if arr.ndim != 2:
        squeezed = arr.reshape([s for s in arr.shape if s != 1] or [1]) if arr.ndim > 2 else arr
        if squeezed.ndim != 2:
            raise InvalidParameter(
                f"table has shape {arr.shape}; pass a 2-d array of shape (n_positions, dim)")
        arr = squeezed
    if dtype is not None:
        dtname = dtype_name(dtype)
    rows, dim = arr.shape
    if rows < 4:
        raise InvalidParameter(
            f"table has {rows} rows; identify needs at least 4 consecutive positions")
    if dim < 2:
        raise InvalidParameter(f"table has {dim} column(s); identify needs dim >= 2")
    return arr, dtname


def identify_1d(table: Any, *, dtype: str | None = None) -> Identification:
    """The 1-D identification of ``table`` (no grid search): what
    :func:`~posproof.testing.identification.identify` answers for a 1-D table, and what the
    multi-axis search runs on the columns of one axis.

    >>> identify_1d(posproof.preset("vaswani", dim=8).table(16)).matched
    True
    """
    arr, dtname = read_table(table, dtype)
    return identify_read(arr, dtname, fixed=dtype is not None)


def identify_read(arr: np.ndarray, dtname: str, *, fixed: bool = False) -> Identification:
    """:func:`identify_1d` of an array from :func:`read_table` (``fixed``: ``dtname`` was
    given, do not read a narrower working precision from the values)."""
    result = _identify_at(arr, dtname)
    if result.matched:
        return result
    return _rescaled(arr, dtname, fixed=fixed) or result


def _rescaled(arr: np.ndarray, dtname: str, fixed: bool) -> Identification | None:
    """The match of ``arr`` at the scale and working precision read from its values
    (:mod:`posproof.testing.identification.precision`; the precision stays ``dtname`` when
    ``fixed``), validated on every row; None without one."""
    from .precision import Estimate, estimate

    est = estimate(arr, dtname)
    if fixed:
        est = Estimate(est.scale, est.scale_text, None)
    if est.scale == 1.0 and est.precision is None:
        return None
    found = _identify_at(arr / est.scale, est.precision or dtname)
    if not found.matched:
        return None
    found.dtype, found.precision, found.scale = dtname, est.precision, est.scale
    if found.evidence is not None:          # the values compared: the table ÷ its scale
        found.evidence.details["values"] = f"table ÷ {est.scale_text or est.scale}"
    extra = []
    if est.scale_text is not None:
        extra.append(f"scaled by {est.scale_text}")
        found.presets = [f"{est.scale_text.split(' = ')[0]} * {p}.table(...)"
                         for p in found.presets]
    if est.precision is not None:
        extra.append(f"values carry {est.precision} precision (stored as {dtname})")
    found.summary += "; " + "; ".join(extra)
    return found


def _identify_at(arr: np.ndarray, dtname: str) -> Identification:
    """identify at the noise level of ``dtname``."""
    rows, dim = arr.shape
    eps = dtype_eps(dtname)
    noise = TOLERANCE * eps
    result = Identification(False, "", rows, dim, dtname)

    zero = np.abs(arr).max(axis=1) <= noise
    result.zero_rows = [int(i) for i in np.flatnonzero(zero)]
    pad = dim % 2 == 1 and float(np.abs(arr[:, -1]).max()) <= noise
    result.odd_dim_padding = pad
    width = dim - int(pad)
    if zero.all():
        result.summary = "matches no known schedule: every row is zero"
        return result
    if width % 2:
        result.summary = (f"matches no known schedule: {width} non-padding columns cannot form "
                          "(sin, cos) pairs")
        return result
    n = width // 2
    start, stop = longest_run(~zero)
    if stop - start < 4:
        result.summary = ("matches no known schedule: fewer than 4 consecutive non-zero rows "
                          "to measure frequencies on")
        return result
    fit = arr[start:min(stop, start + _FIT_ROWS)]
    live_rows = np.flatnonzero(~zero)
    sample = arr[np.unique(np.concatenate([
        live_rows[:_FIT_ROWS], live_rows[np.linspace(0, live_rows.size - 1, _FIT_ROWS,
                                                     dtype=np.int64)]]))]

    measured: list[Pairs] = []
    broken: dict[str, int] = {}
    for pairing, first, second in pairings(n):
        norm_dev = np.abs(sample[:, first] ** 2 + sample[:, second] ** 2 - 1).max(axis=0)
        bad = int((norm_dev > 4 * noise).sum())
        if bad:
            broken[pairing] = bad
            continue
        omega, sigma, phase0, reliable, signs = measure_phases(fit[:, first], fit[:, second], noise)
        votes = signs[reliable]
        if votes.size and np.any(votes != votes[0]):
            result.notes.append(
                f"{pairing} pairs are (sin, cos) pairs, but the sine comes first in "
                f"{int((votes > 0).sum())} pairs and second in {int((votes < 0).sum())}: "
                "not a known layout")
            continue
        sin_first = bool(votes[0] > 0) if votes.size else True
        if not sin_first:
            omega, sigma, phase0, _, _ = measure_phases(fit[:, second], fit[:, first], noise)
        sin_cols, cos_cols = (first, second) if sin_first else (second, first)
        measured.append(Pairs(pairing, layout_name(pairing, sin_first), sin_cols, cos_cols,
                               omega, sigma, phase0, start))

    if not measured:
        result.summary = _no_pairs_summary(fit[:, :width], noise, broken, result)
        return result

    trials: list[_Trial] = []
    quick_rows = np.arange(start, min(stop, start + _FIT_ROWS))
    for pairs in measured:
        ranked = screen(candidates(pairs.omega, pairs.sigma), pairs.omega, pairs.sigma, eps)
        for _, cand in ranked[:8]:
            first_pos = first_row_offset(cand.omega, pairs.phase0)
            offset = round(first_pos - pairs.first_row)
            resid, score = residual(arr, quick_rows, cand.omega, pairs, offset, eps, zero, pad)
            trials.append(_Trial(cand, pairs, offset, resid, score))
    # validate on every row, simplest parameters first
    trials.sort(key=lambda t: (t.score > 1.0, t.cand.simplicity, t.score))
    matches: list[_Trial] = []
    all_rows = np.arange(rows)
    for trial in trials:
        if trial.score > 1.0 or (matches and (
                trial.cand.simplicity > matches[0].cand.simplicity
                or (trial.cand.family, trial.pairs.layout) in
                {(m.cand.family, m.pairs.layout) for m in matches})):
            continue
        if rows > quick_rows.size:
            trial.residual, trial.score = residual(arr, all_rows, trial.cand.omega,
                                                    trial.pairs, trial.offset, eps, zero, pad)
        if trial.score <= 1.0:
            matches.append(trial)
    if not matches:
        closest = min(trials, key=lambda t: t.score) if trials else None
        _describe_unmatched(result, measured, closest)
        return result
    chosen = matches[0]
    _fill_match(result, arr, chosen, eps, zero, pad)
    for other in matches[1:]:
        result.notes.append(
            f"also consistent with {other.cand.family} "
            + ", ".join(f"{k}={fmt(v)}" for k, v in other.cand.params.items())
            + f" in layout {other.pairs.layout}: the table is too short or too coarse "
            "to tell them apart")
    return result


@dataclass
class _Trial:
    cand: Candidate
    pairs: Pairs
    offset: int
    residual: float
    score: float


def _no_pairs_summary(block: np.ndarray, noise: float, broken: dict[str, int],
                      result: Identification) -> str:
    """Why no pairing works: pairs of mismatched frequencies, or not sinusoids at all."""
    omega, sinusoid = column_frequencies(block, noise)
    if sinusoid.all() and block.shape[1] >= 2:
        mismatched = [(j, j + 1) for j in range(0, block.shape[1] - 1, 2)
                      if abs(omega[j] - omega[j + 1]) > 1e-3 * max(omega[j], 1e-3)]
        if mismatched:
            shown = ", ".join(f"dims {a} and {b}: ω = {omega[a]:.6g} and {omega[b]:.6g}"
                              for a, b in mismatched[:3])
            result.notes.append(f"every column is a sinusoid of the position, but {shown}")
            result.frequencies = [float(w) for w in omega]
            return ("matches no known schedule: dims 2i and 2i+1 use different frequencies; "
                    "no rotation T(Δ) exists")
    if any("not a known layout" in note for note in result.notes):
        return ("matches no known schedule: the columns form (sin, cos) pairs, but the sine "
                "is not always on the same side of its pair")
    if broken:
        result.notes.append("; ".join(f"{pairing} pairing: {count} pairs with sin² + cos² ≠ 1"
                                      for pairing, count in broken.items()))
    return ("matches no known schedule: no pairing of the columns gives (sin, cos) pairs "
            "(sin² + cos² = 1)")


def _describe_unmatched(result: Identification, measured: list[Pairs],
                        closest: _Trial | None) -> None:
    pairs = measured[0] if closest is None else closest.pairs
    result.layout = pairs.layout
    result.frequencies = [float(w) for w in pairs.omega]
    if closest is not None:
        cand = closest.cand
        result.notes.append(
            f"closest: {cand.family} "
            + ", ".join(f"{k}={fmt(v)}" for k, v in cand.params.items())
            + f", offset {closest.offset}, residual {closest.residual:.3g} "
            f"({closest.score:.3g} × the tolerance)")
    shown = ", ".join(f"{w:.6g}" for w in pairs.omega[:6])
    result.summary = (f"matches no known schedule: (sin, cos) pairs in layout {pairs.layout}, "
                      f"but the frequencies ({shown}{', …' if pairs.omega.size > 6 else ''}) "
                      "follow none of the known families")


def _fill_match(result: Identification, arr: np.ndarray, trial: _Trial, eps: float,
                zero: np.ndarray, pad: bool) -> None:
    from ...model.presets import preset

    dim = arr.shape[1]
    cand, pairs, offset = trial.cand, trial.pairs, trial.offset
    zero_positions = [int(offset + r) for r in np.flatnonzero(zero)]
    calls = preset_calls(cand.family, cand.params, pairs.layout, dim, offset, zero_positions,
                          pad)
    name, kwargs = calls[0]
    enc = preset(name, dim=dim, **kwargs)
    omega = enc.column_frequencies_float[pairs.sin_cols]
    resid, score, angles, cov, worst = _decide(arr, omega, pairs, offset, eps, zero, pad,
                                               result.dtype)
    result.matched = score <= 1.0 and (cov.judged > 0 if angles is None else cov.meaningful)
    result.angles = angles
    result.coverage = cov.to_dict()
    result.family = cand.family
    result.exponent = {"geometric": "n", "tensor2tensor": "n-1", "binary": None}[cand.family]
    result.preset = name
    result.params = {k: fmt(v) for k, v in cand.params.items()}
    result.presets = [call_text(nm, dim, kw) for nm, kw in calls]
    result.layout = pairs.layout
    result.offset = offset
    result.residual, result.score = resid, score
    result.frequencies = [float(w) for w in pairs.omega]
    result.encoding = enc
    if cand.note:
        result.notes.append(cand.note)
    if zero_positions:
        result.notes.append(f"rows at positions {ranges(zero_positions)} are zero "
                            "(padding rows, as fairseq's padding_idx)")
    if pairs.omega.size == 1:
        result.notes.append("a single (sin, cos) pair: the layouts interleaved and split "
                            "coincide")
    shown = {k: v for k, v in kwargs.items()
             if k not in ("offset", "start_index", "layout", "odd_dim")}
    params = ", ".join(f"{k}={fmt(v) if isinstance(v, sp.Basic) else v}"
                       for k, v in shown.items())
    result.summary = (f"matches {name} ({params}), layout {pairs.layout}, offset {offset}"
                      + (", odd dim padded with a zero column" if pad else ""))
    if result.matched and angles is not None:
        result.summary += (
            f"; angles formed in {angles}: within the tolerance of angles=\"{angles}\" "
            "(assert_encoding's default, angles formed in float64, fails)")
    if result.matched and not cov.complete:
        result.summary += f"; {cov.label()[len('pass ('):-1]}"
    if not result.matched:
        result.summary = "matches no known schedule: " + result.summary[len("matches "):]
        if score <= 1.0:
            result.summary += (f"; it agrees only where the tolerance of angles formed in "
                               f"{result.dtype} judges little ({cov.judged} of {cov.total} "
                               "entries): not a match")
    if result.matched:                 # what the match rests on, re-checked by the audit
        result.evidence = _match_evidence(arr, enc, offset, worst, cov)
        audit_identification(result)


def audit_identification(result: Any) -> Any:
    """Audit a match's evidence (:mod:`posproof.audit`): a match the auditor does not confirm
    is no match — ``matched`` becomes False and the summary says why (never the opposite).
    Returns ``result``."""
    from ...audit import audit

    ev = result.evidence
    if ev is None or not result.matched:
        return result
    verdict = ev.audit if ev.audit is not None else audit(ev)
    if not verdict.agrees:
        result.matched = False
        verb = "disagrees with" if verdict.status == "refuted" else "could not confirm"
        result.summary = (f"not confirmed: the independent audit ({verdict.engine}) {verb} "
                          f"the evidence of '{result.summary}': {verdict.detail}")
    return result


def _match_evidence(arr: np.ndarray, enc: Any, offset: int, worst: list[Any], cov: Any) -> Any:
    """The evidence of a match: the entry nearest its tolerance (the largest
    |table − exact|/tolerance), ``tolerance − |table − exact| > 0`` with the exact value
    sin(ω·x) (cos) of the fitted encoding at position x = offset + row; ``all`` when every
    entry was judged, a sample of the judged ones otherwise."""
    from ..core.audited import entry_sign

    method = "comparison of every row with the fitted encoding"
    if not worst:
        from ..core.audited import no_comparison

        return no_comparison("no (sin, cos) entry to compare: the match rests on zero "
                             "rows and a padding column")
    _, row, col, bound = worst
    x = int(offset + row)
    func, w = enc.column_funcs[col], enc.column_frequency(col)
    exact = sp.Integer(0) if func == "zero" or w is None else (
        sp.sin if func == "sin" else sp.cos)(w * x)
    ev = cov.evidence(method, {"check": "identify"})
    ev.items.append(entry_sign(f"position {x}, dim {col}", exact, float(arr[row, col]),
                               bound, True))
    return ev


def _decide(arr: np.ndarray, omega: np.ndarray, pairs: Pairs, offset: int, eps: float,
            zero: np.ndarray, pad: bool, dtname: str
            ) -> tuple[float, float, str | None, Any, list[Any]]:
    """The verdict assert_encoding reaches on the fitted table (one tolerance, one rule):
    its default tolerance (angles formed in float64), else angles formed in ``dtname`` —
    the noise identify searches at — when that judges half the entries at least.

    Returns (residual, score, angles, coverage, the worst entry: [ratio, row, column,
    tolerance])."""
    from ..core.judging import Coverage, Tolerance

    rows = np.arange(arr.shape[0])
    out = None
    for angles in (None, dtname) if dtname != "float64" else (None,):
        cov = Coverage(arr.shape[1])
        worst: list[Any] = []
        resid, score = residual(arr, rows, omega, pairs, offset, eps, zero, pad,
                                Tolerance.of(dtname, angles, model=True), cov, worst)
        out = (resid, score, angles, cov, worst)
        if score <= 1.0 and (cov.judged > 0 if angles is None else cov.meaningful):
            return out
    return out  # type: ignore[return-value]
