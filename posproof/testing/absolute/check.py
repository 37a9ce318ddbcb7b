"""``check_encoding`` and ``assert_encoding``: a positional-encoding table against its spec."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...errors import MAX_DIM, InvalidParameter, PosproofError, check_int
from ..core.arrays import as_array, dtype_eps
from ..core.audited import audited, entry_sign, failure_evidence, no_comparison
from ..core.judging import Coverage, judge, nothing_judged
from ..core.precision import precision_explanation, precision_note, stored_precision
from ..core.reports import (
    ImplReport,
    InvalidImplementation,
    encoding_label,
    encoding_message,
    nonfinite,
)
from ..core.reports import suggest_angles as suggest_angles
from ..identification import ranges
from .explain import explain_encoding
from .read import (
    DEFAULT_MAX_LEN,
    Tolerance,
    angles_name,
    call,
    certify,
    compare,
    default_positions,
    encoding_spec,
    expected,
    squeeze,
    table_of,
)

__all__ = ["angles_name", "assert_encoding", "check_encoding"]


@audited
def check_encoding(impl: Any, spec: Any = "vaswani", *, dim: int | None = None,
                   positions: Sequence[int] | np.ndarray | None = None,
                   first_position: int | None = None, max_len: int = DEFAULT_MAX_LEN,
                   dtype: str | None = None, angles: str | None = None,
                   scale: float = 1.0, seed: int = 0, explain: bool = True,
                   grid: Sequence[int] | None = None, **params: Any) -> ImplReport:
    """Compare ``impl`` with ``spec``; the report of :func:`assert_encoding`, without raising.

    ``impl``: a table of shape ``(n_positions, dim)`` (NumPy, PyTorch, JAX…;
    an embedding module's ``weight``), or a callable mapping a 1-d int64 array
    of positions to such a table.  Row i of a table is position
    ``first_position + i`` (default: the spec's offset; for a spec with a
    padding row, 0 when that row of the table is zero, as in fairseq's weights).
    ``spec``: an :class:`~posproof.Encoding` or a preset name, with ``params``
    passed to :func:`posproof.preset`.  ``dtype`` overrides the precision
    expected of the values (default: the impl's dtype).

    The tolerance (a :class:`~posproof.testing.absolute.read.Tolerance`): by default
    the exact table rounded to the dtype, ``4·eps`` of the output plus
    ``16·eps64·|x·ω|`` — a float16 or bfloat16 table whose angles x·ω were
    formed in float16/bfloat16 fails.  ``angles="float32"`` (``"float16"``,
    ``"bfloat16"``) says the impl forms x·ω in that dtype on purpose and
    widens the tolerance by that dtype's rounding model only: ω formed in it
    from its exponent (2·|ln ω| + 3 roundings of u = 2^−p) and x·ω rounded to
    it, ``4·eps + eps_angles + γ_k·|x·ω|`` with γ_k = k·u/(1 − k·u),
    k = 2·|ln ω| + 4; a table this leaves mostly unjudged is ``unknown``, no
    pass.  ``scale`` is a constant the
    impl multiplies the table by (``1/√d``, ``√d``): the impl must equal
    ``scale × spec``, tolerances scaled alike.

    >>> import posproof
    >>> enc = posproof.preset("vaswani", dim=16)
    >>> check_encoding(lambda pos: enc.table(pos + 2), enc).explanation  # doctest: +ELLIPSIS
    'offset by 2 positions: the impl at x equals the spec at x + 2 — confirmed: ...'

    Several axes: ``spec`` a multi-axis preset (``"sincos-2d"``, ``"pe-2d"``,
    ``"pe-3d"``) or a ``MultiAxisEncoding``, and ``grid=(H, W)`` (``(T, H, W)``):
    the rows are the grid's positions, row-major; see
    :func:`~posproof.testing.absolute.grid.check_multi_encoding`.
    """
    from ...model.multiaxis import MultiAxisEncoding, is_multi_preset

    if grid is not None or isinstance(spec, MultiAxisEncoding) or (
            isinstance(spec, str) and is_multi_preset(spec)):
        from .grid import check_multi_encoding

        if positions is not None or first_position is not None:
            raise InvalidParameter("positions= and first_position= are for a 1-D table; a "
                                   "multi-axis table takes grid=")
        return check_multi_encoding(impl, spec, grid=grid, dim=dim, dtype=dtype, angles=angles,
                                    scale=scale, explain=explain, **params)
    if dim is not None:
        dim = check_int("dim", dim, minimum=1, maximum=MAX_DIM)
    max_len = check_int("max_len", max_len, minimum=1, maximum=10**9)
    if first_position is not None:
        first_position = check_int("first_position", first_position, minimum=-(10**15),
                                   maximum=10**15)
    from ...model.encoding import resolve_dtype

    for name, value in (("dtype", dtype), ("angles", angles)):
        try:
            if value is not None and isinstance(value, (str, np.dtype, type)):
                resolve_dtype(value)
            elif value is not None:
                raise TypeError
        except (PosproofError, TypeError, ValueError):
            raise InvalidParameter(f"{name}={value!r} is not a dtype name; use float16, "
                                   "bfloat16, float32 or float64") from None
    angles = angles_name(angles)
    scale = _check_scale(scale)
    table_like = table_of(impl)
    if table_like is None and not callable(impl):
        raise InvalidImplementation(
            f"impl of type {type(impl).__name__} is neither a table (an array of shape "
            "(n_positions, dim)) nor a callable returning one for given positions")
    if table_like is not None:
        table, impl_dtype = as_array(table_like, what="the table")
        table = squeeze(table, "the table")
        enc = encoding_spec(spec, table.shape[1] if dim is None else dim, params)
        start = first_position
        if start is None:
            start = enc.offset
            pad_row = enc.padding_idx
            if (pad_row is not None and pad_row < table.shape[0]
                    and not np.any(table[pad_row])):
                start = 0
        pos = np.arange(start, start + table.shape[0], dtype=np.int64)
        calls: Callable[[np.ndarray], np.ndarray] | None = None
    else:
        if positions is None:
            probe_dim = dim
            enc_offset = spec.offset if hasattr(spec, "offset") else None
            if enc_offset is None:
                if probe_dim is None:
                    first, _ = call(impl, np.arange(2, dtype=np.int64))
                    probe_dim = first.shape[1]
                enc_offset = encoding_spec(spec, probe_dim, dict(params)).offset
            pos = default_positions(max_len, enc_offset, seed)
        else:
            raw = np.asarray(positions).reshape(-1)
            if raw.dtype.kind not in "iub" and (raw.dtype.kind != "f" or not np.all(
                    np.isfinite(raw) & (raw == np.round(raw)) & (np.abs(raw) <= 2**53))):
                raise InvalidParameter("positions must be whole numbers (the impl gets a 1-d "
                                       "int64 array of positions)")
            pos = raw.astype(np.int64)
            if pos.size == 0:
                raise InvalidParameter("positions is empty; pass at least one position")
        table, impl_dtype = call(impl, pos)
        enc = encoding_spec(spec, table.shape[1] if dim is None else dim, params)

        def calls(p: np.ndarray) -> np.ndarray:
            return call(impl, p)[0]

    # the working precision read from the values (core/precision.py): it explains a failure,
    # it never widens the verdict's tolerance
    read = None if dtype is not None else stored_precision(table, impl_dtype)
    dtname = angles_name(dtype) if dtype is not None else impl_dtype
    tol = Tolerance.of(dtname, angles, scale, model=True)
    eps = dtype_eps(dtname)
    report = ImplReport(False, "encoding", enc.to_dict(), dtname, int(pos.size),
                        int(np.abs(pos).max()) if pos.size else 0,
                        precision_note=precision_note(read, impl_dtype))
    label = encoding_label(enc)
    if not np.all(np.isfinite(table)):
        report.evidence = no_comparison("the impl returns NaN or inf: no real value to compare")
        return nonfinite(report, label, pos[~np.isfinite(table).all(axis=1)])
    if table.shape[1] != enc.dim:
        report.evidence = no_comparison(f"{table.shape[1]} columns, not {enc.dim}")
        report.score = math.inf
        report.explanation = (
            f"the impl has {table.shape[1]} columns, the spec {enc.dim}"
            + (" (a dropped column: odd d returned as d−1, transformers#8226?)"
               if table.shape[1] == enc.dim - 1 else "")
            + ("; the table looks transposed (dim × positions): pass table.T"
               if table.shape[0] == enc.dim else ""))
        report.checks = [{"name": "matches_spec", "status": "fail",
                          "columns": table.shape[1], "expected": enc.dim}]
        report.message = f"impl disagrees with {label}: {report.explanation}"
        return report
    omega = enc.column_frequencies_float
    cmp = compare(table, pos, enc, tol, scale=scale)
    cov = cmp.coverage
    if calls is not None:       # a callable is checked at some positions of its range
        cov.population = max(cov.total, (max_len if positions is None else pos.size) * enc.dim)
    report.score, report.max_error = cmp.score, cmp.max_error
    report.tolerance = _tolerance_dict(tol, scale)
    check: dict[str, Any] = {"name": "matches_spec", "status": "fail",
                             "score": round(report.score, 6), "max_error": report.max_error,
                             "tolerance": tol.formula}
    status = judge(check, cmp.score, cov)
    if status == "pass" and angles is not None and not cov.meaningful:
        # a declared angle dtype whose tolerance judges fewer than half the entries has
        # shown little: not a pass (the entries it judged agreed; the rest say nothing)
        status = check["status"] = "unknown"
        report.checks = [check]
        report.explanation = (f"most entries not judged under angles={angles!r}: "
                              f"{cov.unjudged()}; the {cov.judged} judged entries agree")
        report.message = f"impl not judged against {label}: {report.explanation}"
        return report
    report.checks = [check]
    report.ok = status == "pass"                  # a pass needs judged entries
    method = "exhaustive comparison" if cov.population is None else "sampled comparison"
    worst = (_worst_entry(table, pos, enc, tol, scale, cmp.worst, within=report.ok,
                          score=cmp.score) if pos.size and table.size else None)
    if report.ok:
        report.evidence = cov.evidence(method, {"tolerance": tol.formula,
                                                "score": report.score, "check": "matches_spec"})
        if worst is not None:
            report.evidence.items.append(worst)
        return report
    if status == "unknown":     # every entry within a tolerance that judges none of them
        report.score = math.inf
        report.explanation = nothing_judged(tol, cov)
        report.message = f"impl not judged against {label}: {report.explanation}"
        return report
    report.evidence = failure_evidence(method, worst, {"tolerance": tol.formula,
                                                       "score": report.score})
    by_precision = (_read_precision_explains(table, pos, enc, read, dtname, angles, scale)
                    if read is not None else None)
    accepting = (_accepting_angles(table, pos, enc, dtname, scale)
                 if angles is None and by_precision is None else None)
    rows, cols = np.flatnonzero(cmp.bad_rows), np.flatnonzero(cmp.bad_cols)
    report.bad_positions = [int(pos[r]) for r in rows[:64]]
    report.bad_dims = [int(c) for c in cols[:64]]
    report.n_bad_positions, report.n_bad_dims = int(rows.size), int(cols.size)
    report.position_ranges = ranges([int(v) for v in pos[rows]])
    report.dim_ranges = ranges([int(v) for v in cols])
    r, c = cmp.worst
    x = int(pos[r])
    expected_value = scale * float(expected(enc, pos[r:r + 1])[0, c])
    certified = certify(enc, x, int(c))
    report.worst = {"position": x, "dim": int(c), "impl": float(table[r, c]),
                    "expected": scale * certified if certified is not None else expected_value,
                    "difference": float(abs(table[r, c] - expected_value)),
                    "tolerance": tol.at(x, float(omega[c]))}
    if by_precision is not None:
        report.explanation = by_precision
        report.hypotheses = [{"key": "precision-read", "hypothesis": by_precision, "fits": True}]
    elif explain:
        unscaled = table if scale == 1.0 else table / scale
        # the hypotheses are regenerated at the precision the values carry (read from them)
        at = read if read is not None and dtype_eps(read) > eps else dtname
        explain_encoding(report, unscaled, pos, enc, dtype_eps(at),
                         max(tol.eps_angle, dtype_eps(at)) if at != dtname else tol.eps_angle,
                         calls, at, check=None if angles is None else Tolerance.of(at, angles))
    suggest_angles(report, accepting)
    report.message = encoding_message(report, label, tol)
    return report


def _worst_entry(table: np.ndarray, pos: np.ndarray, enc: Any, tol: Tolerance, scale: float,
                 worst: tuple[int, int], within: bool, score: float) -> Any:
    """The entry with the largest |difference|/tolerance as a Sign the audit recomputes from
    the exact value scale·sin(ω·x) (cos, 0), the impl's value and the tolerance used there."""
    import sympy as sp

    r, c = int(worst[0]), int(worst[1])
    if score == 0 and pos.size > 1:
        r = int(np.argmax(np.abs(pos)))     # no entry off (score 0): the largest position
    x = int(pos[r])
    func, w = enc.column_funcs[c], enc.column_frequency(c)
    if func == "zero" or w is None or (enc.padding_idx is not None and x == enc.padding_idx):
        exact, wf = sp.Integer(0), 0.0
    else:
        exact = sp.Rational(*float(scale).as_integer_ratio()) * (
            sp.sin if func == "sin" else sp.cos)(w * x)
        wf = float(enc.frequencies_float[enc.column_freq_index[c]])
    bound = float(tol.entries(np.array([abs(float(x))]), np.array([wf]))[0, 0])
    return entry_sign(f"position {x}, dim {c}", exact, float(table[r, c]), bound, within)


def _read_precision_explains(table: np.ndarray, pos: np.ndarray, enc: Any, read: str,
                             stored: str, angles: str | None, scale: float) -> str | None:
    """The confirmed explanation when the table, judged at the precision read from its values
    (with angles formed in at most that precision), matches the spec on a meaningful part."""
    for a in ([angles] if angles is not None else [None, "float32", "float16", "bfloat16"]):
        if a is not None and angles is None and dtype_eps(a) > dtype_eps(read):
            continue                 # angles coarser than the values: not this explanation
        cmp = compare(table, pos, enc, Tolerance.of(read, a, scale, model=True), scale=scale)
        if cmp.score <= 1.0 and cmp.coverage.meaningful:
            option = f'dtype="{read}"' + (f', angles="{a}"' if a is not None else "")
            extra = f" with angles formed in {a}" if a is not None else ""
            return precision_explanation(read, stored, option, extra)
    return None


def _check_scale(scale: Any) -> float:
    from ...errors import check_finite

    value = check_finite("scale", scale)
    if value == 0:
        raise InvalidParameter("scale=0 would make every table zero; pass the constant the "
                               "impl multiplies its table by, e.g. 1/math.sqrt(dim)")
    return float(value)


def _tolerance_dict(tol: Tolerance, scale: float) -> dict[str, Any]:
    return {"formula": tol.formula, "out": tol.out, "angle": tol.angle,
            "angles": tol.angles or "float64", "scale": scale}


def _accepting_angles(table: np.ndarray, pos: np.ndarray, enc: Any, dtname: str,
                      scale: float) -> tuple[str, Coverage] | None:
    """The most precise ``angles=`` dtype whose tolerance the table is within, if any, and
    what that tolerance judges: it must judge half the entries at least (a tolerance of 2
    and more accepts any value, so a table within it there has shown nothing)."""
    for name in ("float32", "float16", "bfloat16"):
        cmp = compare(table, pos, enc, Tolerance.of(dtname, name, scale, model=True),
                      scale=scale)
        if cmp.score <= 1.0:
            return name, cmp.coverage
    return None


def assert_encoding(impl: Any, spec: Any = "vaswani", **kwargs: Any) -> ImplReport:
    """Fail with an explanation unless ``impl`` matches ``spec`` (see :func:`check_encoding`).

    Raises ``AssertionError`` naming the disagreeing positions and dims, the
    worst difference against its tolerance, and the most likely explanation.
    Returns the :class:`ImplReport` when it passes.

    >>> import posproof
    >>> assert_encoding(posproof.preset("tensor2tensor", dim=32).table(100),
    ...                 "tensor2tensor").ok
    True
    >>> assert_encoding(np.ones((4, 4)), "vaswani")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: impl disagrees with preset("vaswani", dim=4) at 4 of 4 positions ...
    """
    __tracebackhide__ = True  # pytest: the failure points at the caller's line
    report = check_encoding(impl, spec, **kwargs)
    if not report.ok:
        raise AssertionError(report.message)
    return report
