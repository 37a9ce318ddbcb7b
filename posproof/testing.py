"""Property checks for your own positional-encoding implementation, for any pytest suite.

One line in a test fails CI when a table, a rotation or a dtype drifts from the
specification, and the failure says what is wrong::

    from posproof.testing import assert_encoding, assert_rotary

    def test_table():
        assert_encoding(model.pos_table, "vaswani", base=10000)

    def test_rope():
        assert_rotary(my_apply_rope, head_dim=64, base=10000, layout="half")

:func:`assert_encoding` compares a table (or a callable returning one for given
positions) with a spec at positions that include large ones, with a tolerance
that grows with the angle, ``16·(eps + eps·|x·ω|)`` for the impl's dtype.  On
failure it tests hypotheses against the impl and names the most likely one:
sin and cos swapped, another layout, an exponent over n−1, an offset, angles
formed in float16, a pair of dims with different frequencies, another base, or
a random table.  :func:`assert_rotary` checks the relative property and norm
preservation at large positions, then fingerprints the convention (pairing,
rotation direction, frequency order, base) against the canonical RoPE —
a flipped rotation passes every shift-invariance test, so only the fingerprint
catches it.  ``check_encoding`` and ``check_rotary`` return the report
without raising.

>>> import posproof
>>> table = posproof.preset("vaswani", dim=64).table(512, dtype="float32")
>>> assert_encoding(table, "vaswani").ok
True
>>> swapped = posproof.preset("vaswani", dim=64, layout="interleaved-cos").table(512)
>>> assert_encoding(swapped, "vaswani")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AssertionError: impl disagrees with preset("vaswani", dim=64) ...
most likely: matches the spec with sin and cos swapped ...
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import MAX_DIM, InvalidParameter, PosproofError, check_int
from .identify import (
    TOLERANCE,
    Identification,
    _measure,
    _nice,
    _ranges,
    as_array,
    dtype_eps,
    identify,
    phasors,
)

__all__ = [
    "DEFAULT_MAX_LEN",
    "Identification",
    "ImplReport",
    "InvalidImplementation",
    "assert_encoding",
    "assert_rotary",
    "check_encoding",
    "check_rotary",
    "default_positions",
    "identify",
]

#: Positions up to this many are checked for a callable impl (``max_len``).
DEFAULT_MAX_LEN = 8192

#: Largest position used by :func:`assert_rotary` unless ``max_position`` says otherwise.
DEFAULT_MAX_POSITION = 1 << 16


class InvalidImplementation(PosproofError, TypeError):
    """The object under test is not a table, a callable or a module posproof can read."""


# --------------------------------------------------------------------------- the report
@dataclass
class ImplReport:
    """What a check of an implementation found; ``ok`` is the verdict.

    ``checks`` lists each property with its ``status`` (``"pass"`` or
    ``"fail"``); ``explanation`` is the most likely reason for a failure;
    ``message`` is the text :func:`assert_encoding` raises.
    """

    ok: bool
    kind: str
    spec: dict[str, Any]
    dtype: str
    n_positions: int
    max_position: int
    max_error: float = 0.0
    score: float = 0.0
    worst: dict[str, Any] = field(default_factory=dict)
    bad_positions: list[int] = field(default_factory=list)
    bad_dims: list[int] = field(default_factory=list)
    n_bad_positions: int = 0
    n_bad_dims: int = 0
    position_ranges: str = ""
    dim_ranges: str = ""
    explanation: str | None = None
    hypotheses: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    fingerprint: dict[str, Any] | None = None
    identification: dict[str, Any] | None = None
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with a ``"checks"`` list (``name``, ``status``, values).

        >>> import posproof
        >>> check_encoding(posproof.preset("vaswani", dim=8).table(64)).to_dict()["checks"][0]
        {'name': 'matches_spec', 'status': 'pass', 'score': 0.0, 'max_error': 0.0}
        """
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["status"] = "pass" if self.ok else "fail"
        return out


def _label(spec: Any) -> str:
    return _spec_label(spec.to_dict())


def _spec_label(d: dict[str, Any]) -> str:
    """A preset(...) / rotary(...) call that describes a spec's ``to_dict()``."""
    if d.get("kind") == "rotary":
        return (f"rotary(base={d.get('base')}, head_dim={d['head_dim']}, layout={d['layout']}"
                + (f", rotary_dim={d['rotary_dim']}" if d["rotary_dim"] != d["head_dim"] else "")
                + ")")
    sched = d.get("schedule")
    if sched is None:
        return f"{d['name']}(dim={d['dim']})"
    params = {k: v for k, v in sched.items() if k != "family"}
    defaults = _PRESET_DEFAULTS.get(d["name"], {})
    shown = [f"{k}={v}" for k, v in params.items() if defaults.get(k) != str(v)]
    if d["layout"] != _DEFAULT_LAYOUT.get(d["name"], "interleaved"):
        shown.append(f"layout={d['layout']!r}")
    if d["offset"] != _DEFAULT_OFFSET.get(d["name"], 0) and d["name"] != "fairseq":
        shown.append(f"offset={d['offset']}")
    if d["name"] == "fairseq" and d.get("padding_idx") != 1:
        shown.append(f"padding_idx={d.get('padding_idx')}")
    return f'preset("{d["name"]}", dim={d["dim"]}' + "".join(f", {s}" for s in shown) + ")"


_PRESET_DEFAULTS = {
    "vaswani": {"base": "10000"}, "diffusion": {"max_period": "10000"},
    "tensor2tensor": {"min_timescale": "1", "max_timescale": "10000"},
    "fairseq": {"min_timescale": "1", "max_timescale": "10000"}, "binary": {"numerator": "pi"},
}
_DEFAULT_LAYOUT = {"tensor2tensor": "split", "fairseq": "split", "diffusion": "split-cos"}
_DEFAULT_OFFSET = {"fairseq": 2}


# --------------------------------------------------------------------------- impls
def _torch() -> Any:
    """torch if the user imported it; posproof never imports it."""
    return sys.modules.get("torch")


def _is_array(obj: Any) -> bool:
    return (isinstance(obj, (np.ndarray, list, tuple)) or hasattr(obj, "__array__")
            or (hasattr(obj, "detach") and hasattr(obj, "cpu"))
            or (hasattr(obj, "numpy") and not callable(obj)))


def _describe(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or type(obj).__name__


def _table_of(impl: Any) -> Any | None:
    """The array behind ``impl``: itself, or the 2-d ``weight`` of an embedding module."""
    if _is_array(impl):
        return impl
    weight = getattr(impl, "weight", None)
    if weight is not None and _is_array(weight) and len(getattr(weight, "shape", ())) == 2:
        return weight
    return None


def _squeeze(arr: np.ndarray, what: str, expected_rows: int | None = None) -> np.ndarray:
    if arr.ndim > 2 and all(s == 1 for s in arr.shape[:-2]):
        arr = arr.reshape(arr.shape[-2:])
    if arr.ndim != 2:
        raise InvalidParameter(
            f"{what} has shape {arr.shape}; expected a table of shape (n_positions, dim)")
    if expected_rows is not None and arr.shape[0] != expected_rows:
        raise InvalidImplementation(
            f"{what} returned {arr.shape[0]} rows for {expected_rows} positions; it must "
            "return one row per position, shape (len(positions), dim)")
    return arr


def _call(impl: Any, positions: np.ndarray) -> tuple[np.ndarray, str]:
    """impl(positions) as a float64 table; torch modules get a LongTensor of positions."""
    torch = _torch()
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
    arr, dtype = as_array(out, what=f"the table returned by {_describe(impl)}", finite=False)
    return _squeeze(arr, f"the table returned by {_describe(impl)}", positions.size), dtype


def _call_error(impl: Any, exc: BaseException) -> InvalidImplementation:
    return InvalidImplementation(
        f"calling {_describe(impl)}(positions) raised {type(exc).__name__}: {exc}; the impl "
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
    middle = rng.choice(np.arange(256, max_len - 256), size=64, replace=False)
    rel = np.concatenate([np.arange(256), np.sort(middle), np.arange(max_len - 256, max_len)])
    return (offset + rel).astype(np.int64)


# --------------------------------------------------------------------------- specs
def _encoding_spec(spec: Any, dim: int | None, params: dict[str, Any]) -> Any:
    from .encoding import Encoding
    from .presets import preset

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


def _expected(enc: Any, positions: np.ndarray) -> np.ndarray:
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


def _compare(table: np.ndarray, pos: np.ndarray, enc: Any, eps: float, eps_angle: float,
             chunk: int = 512) -> _Comparison:
    """Entrywise comparison of ``table`` with ``enc`` at ``pos``, in cache-sized row chunks."""
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
                w = freqs if gather is None else freqs[gather]
            if pad_row is not None and np.any(p == pad_row):
                expected = np.where((p == pad_row)[:, None], 0.0, expected)
            diff = np.abs(got - expected)
            max_error = max(max_error, float(diff.max()))
            tol = np.multiply.outer(xabs, w * (TOLERANCE * eps_angle))
            tol += TOLERANCE * eps
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
    return _Comparison(score, max_error, bad_rows, bad_cols, worst)


def _score(table: np.ndarray, expected: np.ndarray, positions: np.ndarray, omega: np.ndarray,
           eps: float, eps_angle: float) -> float:
    if table.shape != expected.shape:
        return math.inf
    with np.errstate(invalid="ignore"):
        r = _ratio(table, expected, positions, omega, eps, eps_angle)
    return float(np.nan_to_num(r, nan=math.inf).max()) if r.size else 0.0


def _certify(enc: Any, position: int, dim: int) -> float | None:
    """The spec's value at (position, dim) in mpmath at 30 digits."""
    import mpmath

    from .precise import mp_value

    func = enc.column_funcs[dim]
    if func == "zero" or (enc.padding_idx is not None and position == enc.padding_idx):
        return 0.0
    with mpmath.workdps(30):
        w = mp_value(enc.column_frequency(dim), 30)
        value = (mpmath.sin if func == "sin" else mpmath.cos)(w * position)
        return float(value)


# --------------------------------------------------------------------------- encodings
def check_encoding(impl: Any, spec: Any = "vaswani", *, dim: int | None = None,
                   positions: Sequence[int] | np.ndarray | None = None,
                   first_position: int | None = None, max_len: int = DEFAULT_MAX_LEN,
                   dtype: str | None = None, angle_dtype: str | None = None, seed: int = 0,
                   explain: bool = True, **params: Any) -> ImplReport:
    """Compare ``impl`` with ``spec``; the report of :func:`assert_encoding`, without raising.

    ``impl``: a table of shape ``(n_positions, dim)`` (NumPy, PyTorch, JAX…;
    an embedding module's ``weight``), or a callable mapping a 1-d int64 array
    of positions to such a table.  Row i of a table is position
    ``first_position + i`` (default: the spec's offset; for a spec with a
    padding row, 0 when that row of the table is zero, as in fairseq's weights).
    ``spec``: an :class:`~posproof.Encoding` or a preset name, with ``params``
    passed to :func:`posproof.preset`.  ``dtype`` overrides the precision
    expected of the values (default: the impl's dtype) and ``angle_dtype`` that
    of the angles x·ω.

    >>> import posproof
    >>> enc = posproof.preset("vaswani", dim=16)
    >>> check_encoding(lambda pos: enc.table(pos + 2), enc).explanation
    'offset by 2 positions: the impl at x equals the spec at x + 2'
    """
    if dim is not None:
        dim = check_int("dim", dim, minimum=1, maximum=MAX_DIM)
    if first_position is not None:
        first_position = check_int("first_position", first_position, minimum=-(10**15),
                                   maximum=10**15)
    for name, value in (("dtype", dtype), ("angle_dtype", angle_dtype)):
        if value is not None and not isinstance(value, (str, np.dtype, type)):
            raise InvalidParameter(f"{name}={value!r} is not a dtype name; use float16, "
                                   "bfloat16, float32 or float64")
    table_like = _table_of(impl)
    if table_like is None and not callable(impl):
        raise InvalidImplementation(
            f"impl of type {type(impl).__name__} is neither a table (an array of shape "
            "(n_positions, dim)) nor a callable returning one for given positions")
    if table_like is not None:
        table, impl_dtype = as_array(table_like, what="the table")
        table = _squeeze(table, "the table")
        enc = _encoding_spec(spec, table.shape[1] if dim is None else dim, params)
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
                    first, _ = _call(impl, np.arange(2, dtype=np.int64))
                    probe_dim = first.shape[1]
                enc_offset = _encoding_spec(spec, probe_dim, dict(params)).offset
            pos = default_positions(max_len, enc_offset, seed)
        else:
            pos = np.asarray(positions, dtype=np.int64).reshape(-1)
            if pos.size == 0:
                raise InvalidParameter("positions is empty; pass at least one position")
        table, impl_dtype = _call(impl, pos)
        enc = _encoding_spec(spec, table.shape[1] if dim is None else dim, params)

        def calls(p: np.ndarray) -> np.ndarray:
            return _call(impl, p)[0]

    dtname = dtype or impl_dtype
    eps = dtype_eps(dtname)
    eps_angle = dtype_eps(angle_dtype) if angle_dtype else eps
    report = ImplReport(False, "encoding", enc.to_dict(), dtname, int(pos.size),
                        int(np.abs(pos).max()) if pos.size else 0)
    label = _label(enc)
    if not np.all(np.isfinite(table)):
        return _nonfinite(report, label, pos[~np.isfinite(table).all(axis=1)])
    if table.shape[1] != enc.dim:
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
    cmp = _compare(table, pos, enc, eps, eps_angle)
    report.score, report.max_error = cmp.score, cmp.max_error
    report.ok = cmp.score <= 1.0
    report.checks = [{"name": "matches_spec", "status": "pass" if report.ok else "fail",
                      "score": round(report.score, 6), "max_error": report.max_error}]
    if report.ok:
        return report
    rows, cols = np.flatnonzero(cmp.bad_rows), np.flatnonzero(cmp.bad_cols)
    report.bad_positions = [int(pos[r]) for r in rows[:64]]
    report.bad_dims = [int(c) for c in cols[:64]]
    report.n_bad_positions, report.n_bad_dims = int(rows.size), int(cols.size)
    report.position_ranges = _ranges([int(v) for v in pos[rows]])
    report.dim_ranges = _ranges([int(v) for v in cols])
    r, c = cmp.worst
    x = int(pos[r])
    expected_value = float(_expected(enc, pos[r:r + 1])[0, c])
    certified = _certify(enc, x, int(c))
    tol = TOLERANCE * (eps + eps_angle * abs(x) * omega[c])
    report.worst = {"position": x, "dim": int(c), "impl": float(table[r, c]),
                    "expected": certified if certified is not None else expected_value,
                    "difference": float(abs(table[r, c] - expected_value)), "tolerance": tol}
    if explain:
        _explain_encoding(report, table, pos, enc, eps, eps_angle, calls, dtname)
    report.message = _encoding_message(report, label, dtname, angle_dtype)
    return report


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


def _sample(n: int) -> np.ndarray:
    """Row indices for hypothesis tests: the first 256, the last 128, 128 between."""
    if n <= 512:
        return np.arange(n)
    return np.unique(np.concatenate([np.arange(256), np.linspace(256, n - 129, 128)
                                     .astype(np.int64), np.arange(n - 128, n)]))


def _alternatives(enc: Any) -> list[tuple[str, Any]]:
    """Single-change variants of the spec, with the sentence that names each."""
    from .encoding import Encoding
    from .schedules import Diffusion, Geometric, TensorToTensor

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
        text = (f"offset by {shift} positions: the impl at x equals the spec at "
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
        return done("a random table: matches no known schedule")
    if found is not None and not found.matched:
        return done(f"none of the hypotheses fits; identify says: {found.summary}")
    return done("none of the hypotheses fits (sin/cos swap, layouts, exponent over n−1, "
                "offsets, low-precision angles, another schedule)")


def _precision_hypothesis(t: np.ndarray, p: np.ndarray, enc: Any, eps: float,
                          eps_angle: float, test: Callable[..., bool]) -> str | None:
    """'float16 angles' and friends: errors that grow with |x·ω| like a low-precision angle."""
    from .numeric import angles_in_dtype

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
    from .encoding import Encoding

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
        diffs.append(f"offset by {shift} positions: the impl at x equals the spec at x "
                     f"{'+' if shift > 0 else '−'} {abs(shift)}")
    if not diffs:
        return None
    return "; ".join(diffs) + f" (identified as {found.presets[0]})"


def _pair_frequency_mismatch(block: np.ndarray | None, enc: Any, eps: float) -> str | None:
    """'dims 2i and 2i+1 use different frequencies', with the dims named."""
    from .identify import _column_frequencies

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


def _encoding_message(report: ImplReport, label: str, dtname: str,
                      angle_dtype: str | None) -> str:
    w = report.worst
    lines = [
        f"impl disagrees with {label} at {report.n_bad_positions} of {report.n_positions} "
        f"positions ({report.position_ranges}) and {report.n_bad_dims} of "
        f"{report.spec['dim']} dims ({report.dim_ranges})",
        f"worst: position {w['position']}, dim {w['dim']}: impl {w['impl']:.9g}, expected "
        f"{w['expected']:.9g} (mpmath, 30 digits), |difference| {w['difference']:.3g} > "
        f"tolerance {w['tolerance']:.3g} = 16·(eps + eps·|x·ω|), eps of {dtname}"
        + (f" (angles: {angle_dtype})" if angle_dtype else ""),
    ]
    if report.explanation:
        lines.append(f"most likely: {report.explanation}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- rotary
def _rotary_spec(spec: Any, head_dim: int | None, base: Any, layout: str,
                 rotary_dim: int | None) -> Any:
    from .configs import parse_spec
    from .rope import Rotary, rotary

    if isinstance(spec, str):
        spec = parse_spec(spec)
    if spec is None:
        if head_dim is None:
            raise InvalidParameter("pass head_dim= (or spec=posproof.rotary(...)): the number "
                                   "of channels of one attention head")
        return rotary(base, head_dim, layout=layout, rotary_dim=rotary_dim)
    if not isinstance(spec, Rotary):
        raise InvalidParameter(f"spec={spec!r} is not a posproof Rotary, a rope:… spec string "
                               "or None")
    if head_dim is not None and head_dim != spec.head_dim:
        raise InvalidParameter(f"head_dim={head_dim} disagrees with the spec's "
                               f"head_dim={spec.head_dim}")
    return spec


class _Applier:
    """Calls the user's apply_fn with NumPy arrays or torch tensors, whichever it takes."""

    def __init__(self, fn: Any, dtype: str, inputs: str) -> None:
        if not callable(fn):
            raise InvalidImplementation(
                f"apply_fn of type {type(fn).__name__} is not callable; pass a function "
                "apply_fn(x, positions) -> rotated x, x of shape (..., seq, head_dim)")
        if inputs not in ("auto", "numpy", "torch"):
            raise InvalidParameter(f"inputs={inputs!r}; use 'auto', 'numpy' or 'torch'")
        if inputs == "torch" and _torch() is None:
            raise InvalidParameter("inputs='torch' but torch is not imported; import torch "
                                   "before calling assert_rotary")
        self.fn, self.dtype, self.mode = fn, dtype, inputs
        self.out_dtype = dtype

    def _np(self, x: np.ndarray, pos: np.ndarray) -> Any:
        from .encoding import resolve_dtype

        return self.fn(x.astype(resolve_dtype(self.dtype)), pos)

    def _torch(self, x: np.ndarray, pos: np.ndarray) -> Any:
        torch = _torch()
        return self.fn(torch.tensor(x).to(getattr(torch, self.dtype)), torch.as_tensor(pos))

    def __call__(self, x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        if self.mode == "auto":
            torch = _torch()
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
        arr, self.out_dtype = as_array(out, what=f"the output of {_describe(self.fn)}",
                                       finite=False)
        if arr.shape != x.shape:
            try:
                arr = arr.reshape(x.shape)
            except ValueError:
                raise InvalidImplementation(
                    f"{_describe(self.fn)} returned shape {arr.shape} for x of shape "
                    f"{x.shape}; a rotary embedding keeps the shape") from None
        return arr

    def _error(self, exc: BaseException) -> InvalidImplementation:
        return InvalidImplementation(
            f"calling {_describe(self.fn)}(x, positions) raised {type(exc).__name__}: {exc}; "
            "apply_fn must take x of shape (batch, heads, seq, head_dim) and a 1-d int64 "
            "array (or LongTensor) of positions and return the rotated x")


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


def _fingerprint(y: np.ndarray, head_dim: int, eps: float) -> _Fingerprint | str:
    """Convention of a rotation from its action on basis vectors at positions 0 … S−1.

    ``y[b, s, c]`` is channel c of R(s)·e_b.  Returns a string when no pairing exists.
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
    theta, _, phase0, reliable, signs = _measure(first / scale, second / scale, noise)
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
    base = _fit_base(np.sort(theta)[::-1], r, eps, s_count)
    return _Fingerprint(pairs, layout, r, direction, theta, order, base, amplitude, phase0,
                        notes)


def _fit_base(theta: np.ndarray, r: int, eps: float, s_count: int) -> str | None:
    """The simplest base b with θ_k = b^(−2k/r) for the measured θ (decreasing)."""
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
    for _, cand in _nice(raw):
        if cand <= 1:
            continue
        model = np.exp(-k * 2 * math.log(float(cand)) / r)
        tol = 10 * sigma + 2 * TOLERANCE * eps * model
        if np.all(np.abs(model - theta) <= tol):
            return str(cand)
    return f"{raw:.6g}"


def check_rotary(apply_fn: Any, spec: Any = None, *, head_dim: int | None = None,
                 base: Any = 10000, layout: str = "half", rotary_dim: int | None = None,
                 max_position: int = DEFAULT_MAX_POSITION, dtype: str = "float32",
                 inputs: str = "auto", seed: int = 0) -> ImplReport:
    """Check a rotary embedding ``apply_fn(x, positions) -> rotated x``; see :func:`assert_rotary`.

    >>> import posproof
    >>> rot = posproof.rotary(10000, 16, layout="half")
    >>> report = check_rotary(rot.apply, head_dim=16)
    >>> report.ok, [c["name"] for c in report.checks]
    (True, ['matches_spec', 'relative_property', 'norm_preservation', 'convention'])
    """
    rot = _rotary_spec(spec, head_dim, base, layout, rotary_dim)
    max_position = check_int("max_position", max_position, minimum=64, maximum=2**40)
    h = rot.head_dim
    apply = _Applier(apply_fn, str(dtype), inputs)
    rng = np.random.default_rng(seed)
    consecutive = np.arange(64, dtype=np.int64)
    large = np.concatenate([rng.integers(64, max_position, size=31), [max_position - 1]])
    positions = np.concatenate([consecutive, large]).astype(np.int64)
    basis = np.broadcast_to(np.eye(h)[:, None, None, :], (h, 1, positions.size, h)).copy()
    y = apply(basis, positions)[:, 0]                                  # (b, s, c)
    eps_in, eps_out = dtype_eps(str(dtype)), dtype_eps(apply.out_dtype)
    eps = max(eps_in, eps_out)
    report = ImplReport(False, "rotary", rot.to_dict(),
                        str(dtype) if eps_in >= eps_out else apply.out_dtype, int(positions.size),
                        int(positions.max()))
    label = _label(rot)
    if not np.all(np.isfinite(y)):
        return _nonfinite(report, label, positions[~np.isfinite(y).all(axis=(0, 2))])
    expected = rot.apply(basis, positions)[:, 0]
    theta_c = np.zeros(h)
    for (i, j), w in zip(rot.pairs, rot.frequencies_float, strict=True):
        theta_c[i] = theta_c[j] = w
    tol = TOLERANCE * eps * (1 + np.multiply.outer(positions.astype(np.float64), theta_c))
    ratio = np.abs(y - expected) / tol[None]
    report.score = float(ratio.max())
    report.max_error = float(np.abs(y - expected).max())
    matches = report.score <= 1.0
    checks = [{"name": "matches_spec", "status": "pass" if matches else "fail",
               "score": round(report.score, 6), "max_error": report.max_error}]
    fp = _fingerprint(y[:, :64], h, eps)
    rel, norm = _relative_and_norm(apply, rot, fp, h, max_position, eps, rng)
    checks += [rel, norm]
    precision = None if matches else _rotary_precision(y, positions, rot, eps)
    conv = _convention_check(fp, rot, ignore_base=precision is not None)
    checks.append(conv)
    report.fingerprint = fp.to_dict() if isinstance(fp, _Fingerprint) else {"error": fp}
    report.checks = checks
    report.ok = all(c["status"] == "pass" for c in checks)
    if report.ok:
        return report
    bad = ratio > 1.0
    b, s, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    report.bad_positions = sorted({int(positions[i]) for i in np.flatnonzero(bad.any(axis=(0, 2)))})
    report.n_bad_positions = len(report.bad_positions)
    report.bad_dims = [int(i) for i in np.flatnonzero(bad.any(axis=(0, 1)))]
    report.n_bad_dims = len(report.bad_dims)
    report.worst = {"position": int(positions[s]), "input_channel": int(b),
                    "output_channel": int(c), "impl": float(y[b, s, c]),
                    "expected": float(expected[b, s, c]),
                    "difference": float(abs(y[b, s, c] - expected[b, s, c])),
                    "tolerance": float(tol[s, c])}
    report.explanation = _explain_rotary(conv, fp, precision)
    report.message = _rotary_message(report, label)
    return report


def _nonfinite(report: ImplReport, label: str, where: np.ndarray) -> ImplReport:
    """A failed report for an impl that returns NaN or inf at some positions."""
    where = np.sort(where)
    report.bad_positions = [int(v) for v in where[:64]]
    report.n_bad_positions = int(where.size)
    report.position_ranges = _ranges([int(v) for v in where])
    report.score = math.inf
    hint = (" (float16 overflows past 65504: positions or angles formed in float16?)"
            if where.size and where.min() > 65504 else "")
    report.explanation = f"the impl returns NaN or inf at positions {report.position_ranges}{hint}"
    report.checks = [{"name": "finite", "status": "fail", "positions": report.bad_positions}]
    report.message = f"impl disagrees with {label}: {report.explanation}"
    return report


def assert_rotary(apply_fn: Any, spec: Any = None, **kwargs: Any) -> ImplReport:
    """Fail with an explanation unless ``apply_fn`` is the canonical RoPE of the spec.

    ``apply_fn(x, positions)`` rotates ``x`` of shape ``(batch, heads, seq,
    head_dim)`` at ``positions`` (1-d int64, length seq); NumPy in, or torch
    tensors when NumPy is refused (``inputs="torch"`` to insist).  The spec is
    a :class:`posproof.Rotary`, a ``rope:…`` string, or ``head_dim=``,
    ``base=``, ``layout=`` (``"half"``: HF ``rotate_half``; ``"adjacent"``:
    GPT-J, RoFormer), ``rotary_dim=``.  Checked, at positions up to
    ``max_position``: the rotation of every basis vector against the spec
    (tolerance 16·eps·(1 + |m·θ|)); the relative property
    ⟨R(m)q, R(n)k⟩ = ⟨R(m+s)q, R(n+s)k⟩ = ⟨q, R(n−m)k⟩ for random q, k;
    norm preservation; and the convention fingerprint — pairing, rotation
    direction, frequency order, base.

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


def _relative_and_norm(apply: _Applier, rot: Any, fp: _Fingerprint | str, h: int,
                       max_position: int, eps: float, rng: np.random.Generator
                       ) -> tuple[dict[str, Any], dict[str, Any]]:
    """⟨R(m)q, R(n)k⟩ against shifted positions and against ⟨q, R(n−m)k⟩; ‖R(m)q‖ = ‖q‖."""
    count = 16
    m = rng.integers(0, max_position // 2, size=count)
    n = m + rng.integers(0, max_position // 4, size=count)
    s = rng.integers(1, max_position // 4, size=count)
    q, k = rng.normal(size=h), rng.normal(size=h)
    pos_q = np.concatenate([m, m + s, np.zeros(count, dtype=np.int64)]).astype(np.int64)
    pos_k = np.concatenate([n, n + s, n - m]).astype(np.int64)
    xq = np.broadcast_to(q, (1, 1, pos_q.size, h)).copy()
    xk = np.broadcast_to(k, (1, 1, pos_k.size, h)).copy()
    rq, rk = apply(xq, pos_q)[0, 0], apply(xk, pos_k)[0, 0]
    pairs = fp.pairs if isinstance(fp, _Fingerprint) else rot.pairs
    theta = fp.theta if isinstance(fp, _Fingerprint) else rot.frequencies_float
    passthrough = sorted(set(range(h)) - {c for pr in pairs for c in pr})
    # per pair: its own dot product and tolerance (slow pairs are checked tightly)
    dots = np.stack([rq[:, i] * rk[:, i] + rq[:, j] * rk[:, j] for i, j in pairs], axis=1)
    size = np.array([math.hypot(q[i], q[j]) * math.hypot(k[i], k[j]) for i, j in pairs])
    span = np.maximum.reduce([m, n, m + s, n + s]).astype(np.float64)
    tol = TOLERANCE * 4 * eps * size * (1 + 2 * np.multiply.outer(span, theta))
    if passthrough:
        dots_p = (rq[:, passthrough] * rk[:, passthrough]).sum(axis=1)
        p_tol = TOLERANCE * eps * (1 + float(np.abs(q[passthrough]) @ np.abs(k[passthrough])))
        p_err = np.abs(dots_p[:count] - dots_p[count:2 * count]) / p_tol
    else:
        p_err = np.zeros(0)
    shifted = np.abs(dots[:count] - dots[count:2 * count]) / tol
    relative = np.abs(dots[:count] - dots[2 * count:]) / tol
    worst = int(np.argmax(np.maximum(shifted.max(axis=1), relative.max(axis=1))))
    rel_score = float(max(shifted.max(), relative.max(), p_err.max(initial=0)))
    rel = {"name": "relative_property", "status": "pass" if rel_score <= 1 else "fail",
           "score": round(rel_score, 6),
           "worst": {"m": int(m[worst]), "n": int(n[worst]), "shift": int(s[worst])}}
    norms_q = np.linalg.norm(rq, axis=1) / np.linalg.norm(q)
    norms_k = np.linalg.norm(rk, axis=1) / np.linalg.norm(k)
    deviation = float(max(np.abs(norms_q - 1).max(), np.abs(norms_k - 1).max()))
    norm_tol = TOLERANCE * 4 * eps
    norm = {"name": "norm_preservation", "status": "pass" if deviation <= norm_tol else "fail",
            "max_relative_deviation": deviation, "tolerance": norm_tol}
    return rel, norm


def _convention_check(fp: _Fingerprint | str, rot: Any, *,
                      ignore_base: bool = False) -> dict[str, Any]:
    if isinstance(fp, str):
        return {"name": "convention", "status": "fail", "differences": [fp]}
    diffs = [d for d in _convention_differences(fp, rot)
             if not (ignore_base and (d.startswith("base ") or "no RoPE base" in d))]
    return {"name": "convention", "status": "fail" if diffs else "pass", "differences": diffs,
            **fp.to_dict()}


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
    elif fp.base is None and fp.theta.size >= 2 and rot.schedule.family == "geometric" and \
            fp.rotary_dim == rot.rotary_dim:
        expected = np.sort(rot.frequencies_float)[::-1]
        measured = np.sort(fp.theta)[::-1]
        if np.abs(measured - expected).max() > 1e-3 * expected.max():
            diffs.append("frequencies follow no RoPE base: θ = "
                         + ", ".join(f"{t:.4g}" for t in measured[:4]) + ", …")
    if abs(fp.amplitude - 1) > 1e-3 and abs(fp.amplitude - rot.attention_factor_float) > 1e-3:
        diffs.append(f"cos and sin are scaled by {fp.amplitude:.6g} (an attention factor?)")
    diffs += fp.notes
    return diffs


def _rotary_precision(y: np.ndarray, positions: np.ndarray, rot: Any,
                      eps: float) -> str | None:
    """'float16 angles' and friends: y equals the spec's rotation by m·θ formed in a
    low-precision dtype (positions, θ and their product rounded to it)."""
    from .numeric import angles_in_dtype

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


def _explain_rotary(conv: dict[str, Any], fp: _Fingerprint | str,
                    precision: str | None) -> str:
    diffs = conv.get("differences") or []
    if diffs:
        return "; ".join(diffs)
    if precision:
        return precision
    if isinstance(fp, _Fingerprint):
        # same convention, wrong values: an offset of the positions?
        usable = fp.theta > 1e-2
        if usable.any():
            shift = round(float(np.median(
                [math.remainder(p, 2 * math.pi) / t
                 for p, t in zip(fp.phase0[usable], fp.theta[usable], strict=True)])))
            if shift:
                return (f"positions offset by {shift}: the impl rotates position m by "
                        f"R(m {'+' if shift > 0 else '−'} {abs(shift)})")
    return "the rotation disagrees with the spec at large positions; see the worst entry"


def _rotary_message(report: ImplReport, label: str) -> str:
    w = report.worst
    status = ", ".join(f"{c['name']}: {c['status']}" for c in report.checks)
    lines = [f"impl disagrees with {label}: {status}"]
    if w and report.score > 1:
        lines.append(
            f"worst: position {w['position']}, R(m)·e_{w['input_channel']} channel "
            f"{w['output_channel']}: impl {w['impl']:.9g}, expected {w['expected']:.9g}, "
            f"|difference| {w['difference']:.3g} > tolerance {w['tolerance']:.3g} "
            f"(16·eps·(1 + |m·θ|), eps of {report.dtype}); disagreeing positions: "
            f"{report.n_bad_positions} of {report.n_positions}")
    for c in report.checks:
        if c["name"] == "relative_property" and c["status"] == "fail":
            lines.append(f"relative property fails: ⟨R(m)q, R(n)k⟩ changes under a common "
                         f"shift, e.g. m={c['worst']['m']}, n={c['worst']['n']}, "
                         f"shift {c['worst']['shift']}")
        if c["name"] == "norm_preservation" and c["status"] == "fail":
            lines.append(f"norm not preserved: ‖R(m)q‖/‖q‖ − 1 up to "
                         f"{c['max_relative_deviation']:.3g}")
    if report.explanation:
        lines.append(f"most likely: {report.explanation}")
    return "\n".join(lines)
