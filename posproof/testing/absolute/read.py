"""A table under test against its spec: reading the impl, the expected values, the comparison.

The impl is a table of shape ``(n_positions, dim)`` or a callable returning
one for a 1-d int64 array of positions; the spec's values are formed in
float64 and compared entrywise with a :class:`Tolerance`: by default the
exact table rounded to the impl's dtype (``4·eps`` of the output, and the
float64 rounding of the angle ``16·eps64·|x·ω|``); with ``angles=`` the
angles x·ω may carry the error of that dtype's rounding model,
``4·eps + eps_angles + γ_k·|x·ω|`` (:class:`~posproof.testing.core.judging.Tolerance`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InvalidParameter, PosproofError, check_int
from ..core.arrays import as_array, dtype_eps, phasors
from ..core.judging import OUTPUT_ULPS, VACUOUS, Coverage, Tolerance
from ..core.precision import precision_note, stored_precision
from ..core.reports import InvalidImplementation, describe, imported_torch
from ..identification import TOLERANCE

__all__ = [
    "ANGLE_DTYPES",
    "DEFAULT_MAX_LEN",
    "OUTPUT_ULPS",
    "VACUOUS",
    "Applier",
    "Coverage",
    "Tolerance",
    "angles_name",
    "call",
    "certify",
    "compare",
    "default_positions",
    "encoding_spec",
    "expected",
    "read_precision_explains",
    "rotary_report",
    "squeeze",
    "table_of",
]

#: Positions up to this many are checked for a callable impl (``max_len``).
DEFAULT_MAX_LEN = 8192

#: The names ``angles=`` accepts: the precision the impl forms x·ω in, on purpose.
ANGLE_DTYPES = ("float64", "float32", "float16", "bfloat16")


def _is_array(obj: Any) -> bool:
    return (isinstance(obj, (np.ndarray, list, tuple)) or hasattr(obj, "__array__")
            or (hasattr(obj, "detach") and hasattr(obj, "cpu"))
            or (hasattr(obj, "numpy") and not callable(obj)))


def table_of(impl: Any) -> Any | None:
    """The array behind ``impl``: itself, or the 2-d ``weight`` of an embedding module."""
    if _is_array(impl):
        return impl
    weight = getattr(impl, "weight", None)
    if weight is not None and _is_array(weight) and len(getattr(weight, "shape", ())) == 2:
        return weight
    return None


def squeeze(arr: np.ndarray, what: str, expected_rows: int | None = None) -> np.ndarray:
    if arr.ndim > 2 and all(s == 1 for s in arr.shape[:-2]):
        arr = arr.reshape(arr.shape[-2:])
    if arr.ndim != 2:
        ones = [i for i, n in enumerate(arr.shape) if n == 1]
        hint = ""
        if arr.ndim - len(ones) == 2 and ones:
            squeeze = "".join(f".squeeze({i})" for i in reversed(ones))
            tutorial = " (the PyTorch tutorial's (max_len, 1, d) buffer)" if ones == [1] \
                and arr.ndim == 3 else ""
            hint = f"; pass table{squeeze}{tutorial}"
        raise InvalidParameter(f"{what} has shape {arr.shape}; expected a table of shape "
                               f"(n_positions, dim){hint}")
    if expected_rows is not None and arr.shape[0] != expected_rows:
        raise InvalidImplementation(
            f"{what} returned {arr.shape[0]} rows for {expected_rows} positions; it must "
            "return one row per position, shape (len(positions), dim)")
    return arr


def call(impl: Any, positions: np.ndarray) -> tuple[np.ndarray, str]:
    """impl(positions) as a float64 table; torch modules get a LongTensor of positions."""
    torch = imported_torch()
    wants_torch = torch is not None and isinstance(impl, torch.nn.Module)
    arg: Any = torch.as_tensor(positions) if wants_torch else positions
    try:
        out = impl(arg)
    except Exception as first:
        if torch is not None and not wants_torch:
            try:
                out = impl(torch.as_tensor(positions))
            except Exception:
                raise _call_error(impl, first) from None
        else:
            raise _call_error(impl, first) from None
    arr, dtype = as_array(out, what=f"the table returned by {describe(impl)}", finite=False)
    return squeeze(arr, f"the table returned by {describe(impl)}", positions.size), dtype


def _call_error(impl: Any, exc: BaseException) -> InvalidImplementation:
    return InvalidImplementation(
        f"calling {describe(impl)}(positions) raised {type(exc).__name__}: {exc}; the impl "
        "must accept a 1-d int64 array (or LongTensor) of positions and return a table of "
        "shape (len(positions), dim) — wrap it, e.g. lambda pos: module(pos)")


def default_positions(max_len: int = DEFAULT_MAX_LEN, offset: int = 0,
                      seed: int = 0) -> np.ndarray:
    """Positions a callable impl is checked at: the first 256, the last 256 before
    ``offset + max_len`` and 64 random ones between (sorted, int64).

    >>> p = default_positions(8192)
    >>> p[:3].tolist(), p[-1].item(), len(p)
    ([0, 1, 2], 8191, 576)
    >>> default_positions(10, offset=2).tolist()
    [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    """
    max_len = check_int("max_len", max_len, minimum=1, maximum=10**9)
    if max_len <= 576:
        return np.arange(offset, offset + max_len, dtype=np.int64)
    rng = np.random.default_rng(seed)
    middle = 256 + rng.choice(max_len - 512, size=64, replace=False)  # O(64) memory
    rel = np.concatenate([np.arange(256), np.sort(middle), np.arange(max_len - 256, max_len)])
    return (offset + rel).astype(np.int64)


def encoding_spec(spec: Any, dim: int | None, params: dict[str, Any]) -> Any:
    from ...model.encoding import Encoding
    from ...model.presets import preset

    if isinstance(spec, Encoding):
        if params:
            raise InvalidParameter(f"spec is an Encoding; parameters {sorted(params)} apply "
                                   "only to a preset name")
        return spec
    if isinstance(spec, str):
        if dim is None:
            raise InvalidParameter("pass dim= with a preset name when the impl is a callable")
        if dim % 2 and "odd_dim" not in params and spec not in ("sine-only",
                                                                  "column-exponent"):
            params = {**params, "odd_dim": "pad"}
        return preset(spec, dim=dim, **params)
    raise InvalidParameter(f"spec={spec!r} is not an Encoding or a preset name such as "
                           "'vaswani'")


def expected(enc: Any, positions: np.ndarray) -> np.ndarray:
    """enc's table at ``positions`` (float64, angles in float64), shape (len, dim)."""
    idx = np.asarray(enc.column_freq_index)
    funcs = np.asarray(enc.column_funcs)
    ph = phasors(enc.frequencies_float, positions)
    out = np.zeros((positions.size, enc.dim))
    sin, cos = funcs == "sin", funcs == "cos"
    out[:, sin] = ph.imag[:, idx[sin]]
    out[:, cos] = ph.real[:, idx[cos]]
    if enc.padding_idx is not None:
        out[positions == enc.padding_idx] = 0.0
    return out


def _ratio(table: np.ndarray, expected: np.ndarray, positions: np.ndarray, omega: np.ndarray,
           eps: float, eps_angle: float) -> np.ndarray:
    """|table − expected| / (16·(eps + eps_angle·|x·ω|)), elementwise."""
    tol = np.multiply.outer(np.abs(positions.astype(np.float64)), omega)
    tol *= TOLERANCE * eps_angle
    tol += TOLERANCE * eps
    diff = np.abs(table - expected)
    diff /= tol
    return diff


@dataclass
class _Comparison:
    score: float
    max_error: float
    bad_rows: np.ndarray
    bad_cols: np.ndarray
    worst: tuple[int, int]
    coverage: Coverage


def _as_index(cols: np.ndarray) -> slice | np.ndarray:
    """A slice when the columns form an arithmetic progression (a view, not a copy)."""
    if cols.size == 0:
        return cols
    if cols.size == 1:
        return slice(int(cols[0]), int(cols[0]) + 1)
    step = int(cols[1] - cols[0])
    if step > 0 and np.all(np.diff(cols) == step):
        return slice(int(cols[0]), int(cols[-1]) + 1, step)
    return cols


def compare(table: np.ndarray, pos: np.ndarray, enc: Any, tol_: Tolerance,
             chunk: int = 512, scale: float = 1.0) -> _Comparison:
    """Entrywise comparison of ``table`` with ``scale × enc`` at ``pos``, in cache-sized row
    chunks; ``score`` is the largest |difference| / tolerance."""
    rows, dim = table.shape
    idx = np.asarray(enc.column_freq_index)
    funcs = np.asarray(enc.column_funcs)
    freqs = enc.frequencies_float
    groups = []
    for func in ("sin", "cos", "zero"):
        cols = np.flatnonzero(funcs == func)
        if cols.size:
            gather = idx[cols]
            if func != "zero" and np.array_equal(gather, np.arange(freqs.size)):
                gather = None
            groups.append((func, cols, _as_index(cols), gather))
    bad_rows = np.zeros(rows, dtype=bool)
    bad_cols = np.zeros(dim, dtype=bool)
    score = max_error = 0.0
    worst = (0, 0)
    pad_row = enc.padding_idx
    coverage = Coverage(dim)
    for lo in range(0, rows, chunk):
        p = pos[lo:lo + chunk]
        block = table[lo:lo + chunk]
        ph = phasors(freqs, p)
        xabs = np.abs(p.astype(np.float64))
        for func, cols, where, gather in groups:
            got = block[:, where]
            if func == "zero":
                expected = np.zeros_like(got)
                w = np.zeros(cols.size)
            else:
                part = ph.imag if func == "sin" else ph.real
                expected = part if gather is None else part[:, gather]
                if scale != 1.0:
                    expected = scale * expected
                w = freqs if gather is None else freqs[gather]
            if pad_row is not None and np.any(p == pad_row):
                expected = np.where((p == pad_row)[:, None], 0.0, expected)
            diff = np.abs(got - expected)
            max_error = max(max_error, float(diff.max()))
            tol = tol_.entries(xabs, w)
            coverage.add(tol, xabs, cols, tol_)
            with np.errstate(over="ignore"):      # a huge entry: inf, judged bad below
                diff /= tol
            m = float(diff.max())
            bad = diff > 1.0
            if bad.any():
                bad_rows[lo:lo + chunk] |= bad.any(axis=1)
                bad_cols[cols[bad.any(axis=0)]] = True
            if m > score:
                score = m
                r, c = np.unravel_index(int(np.argmax(diff)), diff.shape)
                worst = (lo + int(r), int(cols[c]))
    return _Comparison(score, max_error, bad_rows, bad_cols, worst, coverage)


def _score(table: np.ndarray, expected: np.ndarray, positions: np.ndarray, omega: np.ndarray,
           eps: float, eps_angle: float) -> float:
    if table.shape != expected.shape:
        return math.inf
    with np.errstate(invalid="ignore"):
        r = _ratio(table, expected, positions, omega, eps, eps_angle)
    return float(np.nan_to_num(r, nan=math.inf).max()) if r.size else 0.0


def certify(enc: Any, position: int, dim: int) -> float | None:
    """The spec's value at (position, dim) in mpmath at 30 digits."""
    import mpmath

    from ...precise import mp_value

    func = enc.column_funcs[dim]
    if func == "zero" or (enc.padding_idx is not None and position == enc.padding_idx):
        return 0.0
    with mpmath.workdps(30):
        w = mp_value(enc.column_frequency(dim), 30)
        value = (mpmath.sin if func == "sin" else mpmath.cos)(w * position)
        return float(value)


def angles_name(value: Any) -> str | None:
    """The canonical dtype name of ``angles=`` / ``dtype=`` (``np.float16`` → ``float16``)."""
    if value is None:
        return None
    from ...measure.numeric import dtype_model

    try:
        if isinstance(value, (np.dtype, type)):
            value = np.dtype(value).name
        return dtype_model(value).name
    except (PosproofError, TypeError):
        raise InvalidParameter(f"angles={value!r} is not a dtype name; use "
                               + ", ".join(ANGLE_DTYPES)) from None


class Applier:
    """Calls the user's apply_fn with NumPy arrays or torch tensors, whichever it takes."""

    def __init__(self, fn: Any, dtype: str, inputs: str,
                 positions: str = "a 1-d int64 array (or LongTensor) of positions") -> None:
        if not callable(fn):
            raise InvalidImplementation(
                f"apply_fn of type {type(fn).__name__} is not callable; pass a function "
                "apply_fn(x, positions) -> rotated x, x of shape (..., seq, head_dim)")
        if inputs not in ("auto", "numpy", "torch"):
            raise InvalidParameter(f"inputs={inputs!r}; use 'auto', 'numpy' or 'torch'")
        if inputs == "torch" and imported_torch() is None:
            raise InvalidParameter("inputs='torch' but torch is not imported; import torch "
                                   "before calling assert_rotary")
        self.fn, self.dtype, self.mode = fn, dtype, inputs
        self.positions = positions
        self.out_dtype = dtype
        self.read: str | None = None
        self.stored_dtype = dtype

    def _np(self, x: np.ndarray, pos: np.ndarray) -> Any:
        from ...model.encoding import resolve_dtype

        return self.fn(x.astype(resolve_dtype(self.dtype)), pos)

    def _torch(self, x: np.ndarray, pos: np.ndarray) -> Any:
        torch = imported_torch()
        return self.fn(torch.tensor(x).to(getattr(torch, self.dtype)), torch.as_tensor(pos))

    def __call__(self, x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        if self.mode == "auto":
            torch = imported_torch()
            try:
                out = self._np(x, pos)
                self.mode = "numpy"
            except Exception as first:
                if torch is None:
                    raise self._error(first) from None
                try:
                    out = self._torch(x, pos)
                except Exception:
                    raise self._error(first) from None
                self.mode = "torch"
        else:
            try:
                out = self._np(x, pos) if self.mode == "numpy" else self._torch(x, pos)
            except Exception as exc:
                raise self._error(exc) from None
        arr, out_dtype = as_array(out, what=f"the output of {describe(self.fn)}", finite=False)
        # the working precision read from the values (float32 output handed back as float64):
        # it explains a failure, it does not widen the tolerance
        self.read = stored_precision(arr, out_dtype)
        self.out_dtype = self.stored_dtype = out_dtype
        if arr.shape != x.shape:
            try:
                arr = arr.reshape(x.shape)
            except ValueError:
                raise InvalidImplementation(
                    f"{describe(self.fn)} returned shape {arr.shape} for x of shape "
                    f"{x.shape}; a rotary embedding keeps the shape") from None
        return arr

    def _error(self, exc: BaseException) -> InvalidImplementation:
        return InvalidImplementation(
            f"calling {describe(self.fn)}(x, positions) raised {type(exc).__name__}: {exc}; "
            f"apply_fn must take x of shape (batch, heads, seq, head_dim) and {self.positions} "
            "and return the rotated x")


def rotary_report(kind: str, spec: dict[str, Any], dtype: Any, apply: Applier,
                  angles: str | None, count: int, top: int) -> tuple[Any, Tolerance, float]:
    """The report a rotary check starts from, its tolerance and eps: the dtype judged is the
    coarser of the input's and the output's (``count`` positions, the largest ``top``)."""
    from ..core.reports import ImplReport

    eps_in, eps_out = dtype_eps(str(dtype)), dtype_eps(apply.out_dtype)
    name = str(dtype) if eps_in >= eps_out else apply.out_dtype
    report = ImplReport(False, kind, spec, name, count, top)
    if apply.read is not None and dtype_eps(apply.read) > dtype_eps(name):
        report.precision_note = precision_note(apply.read, apply.stored_dtype)
    tolerance = Tolerance.of(name, angles)
    report.tolerance = {"formula": rotary_formula(tolerance),
                        "out": tolerance.out, "angle": tolerance.angle,
                        "angles": angles or "float64", "scale": 1.0}
    return report, tolerance, max(eps_in, eps_out)


def rotary_formula(tol: Tolerance) -> str:
    """:attr:`Tolerance.formula` in a rotary's letters: m·θ for x·ω, θ for ω."""
    return tol.formula.replace("x·ω", "m·θ").replace("ω", "θ")


def read_precision_explains(apply: Applier, judged: str, deviation: np.ndarray,
                            mtheta: np.ndarray, angles: str | None,
                            coverage: Callable[[np.ndarray, Tolerance], Any],
                            theta: np.ndarray) -> str | None:
    """The confirmed explanation of a rotary failure by the precision read from the outputs:
    within the tolerance of that precision (angles at most that coarse) on a meaningful part.
    ``mtheta`` (positions × channels) and ``theta`` (each channel's frequency)."""
    from ..core.precision import precision_explanation

    read = apply.read
    if read is None or dtype_eps(read) <= dtype_eps(judged):
        return None
    options = [angles] if angles is not None else [None, *(
        a for a in ("float32", "float16", "bfloat16") if dtype_eps(a) <= dtype_eps(read))]
    for a in options:
        tol = Tolerance.of(read, a)
        bound = tol.bound(mtheta, theta)
        if np.all(deviation <= bound[None]) and coverage(bound, tol).meaningful:
            option = f'dtype="{read}"' + (f', angles="{a}"' if a is not None else "")
            return precision_explanation(read, judged, option,
                                         f" with m·θ formed in {a}" if a else "")
    return None
