"""Encoding: a schedule, a layout, a dimension and an offset.

Column j of PE(x) is ``f_j(ω_j x)`` with f_j ∈ {sin, cos, 0}.  For an encoding
built from a schedule and a layout, columns come in pairs (sin ω_k x, cos ω_k x)
at the layout's places; :meth:`Encoding.from_columns` builds any other
column list (the broken encodings that the proof engine must refute).

>>> enc = Encoding(Geometric(10000), "interleaved", 4)
>>> enc.vector()
Matrix([[sin(x), cos(x), sin(x/100), cos(x/100)]])
>>> enc.translation(convention="row")[:2, :2]
Matrix([
[cos(delta), -sin(delta)],
[sin(delta),  cos(delta)]])
>>> enc.table(3).shape
(3, 4)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
import sympy as sp

from .. import validated
from ..errors import (
    InvalidEncoding,
    InvalidParameter,
    UnknownName,
    check_dim,
    check_finite,
    check_int,
)
from ..precise import mp_values
from .layouts import Layout, get_layout
from .schedules import Schedule

__all__ = [
    "CONVENTIONS",
    "Encoding",
    "as_positions",
    "as_symbolic",
    "negate",
    "resolve_dtype",
    "trig",
]

X = sp.Symbol("x", real=True)
DELTA = sp.Symbol("delta", real=True)
CONVENTIONS = ("row", "column")

#: Above this many pairs, exact expressions are built unevaluated (exact, much faster).
_EVALUATE_UP_TO = 16


def resolve_dtype(dtype: Any) -> np.dtype:
    """A NumPy floating dtype from a name or dtype; ``bfloat16`` needs ml_dtypes.

    >>> resolve_dtype("float32")
    dtype('float32')
    >>> resolve_dtype("float128x")
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: dtype='float128x' is not known; use float16, bfloat16, float32 or float64
    """  # noqa: E501
    if str(dtype) == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:  # pragma: no cover - ml_dtypes is a dependency
            raise UnknownName("dtype='bfloat16' needs the ml_dtypes package") from None
        return np.dtype(ml_dtypes.bfloat16)
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        resolved = None
    if resolved is None or resolved.kind != "f":
        raise UnknownName(
            f"dtype={dtype!r} is not known; use float16, bfloat16, float32 or float64")
    return resolved


def as_symbolic(name: str, value: Any) -> sp.Expr:
    """A SymPy expression or a number for ``name``; strings are refused, never run through
    ``sympify`` (which evaluates them as Python).

    >>> as_symbolic("x", 3)
    3
    >>> as_symbolic("x", "__import__('os')")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: x="__import__('os')" is a string; pass a SymPy expression (such as posproof.model.encoding.X) or a number
    """  # noqa: E501
    if isinstance(value, (str, bytes)):
        raise InvalidParameter(f"{name}={value!r} is a string; pass a SymPy expression (such as "
                               "posproof.model.encoding.X) or a number")
    try:
        expr = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError, ValueError):
        raise InvalidParameter(f"{name}={value!r} is not a SymPy expression or a number") from None
    if not isinstance(expr, sp.Expr) or expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise InvalidParameter(f"{name}={value!r} is not a finite SymPy expression or number")
    return expr


def as_positions(name: str, positions: Any) -> np.ndarray:
    """``positions`` as a flat float64 array, shape ``(L,)``; refuses text, ragged lists,
    complex and non-finite values.

    >>> as_positions("positions", [0, 2]).tolist()
    [0.0, 2.0]
    """
    if isinstance(positions, (str, bytes)):
        raise InvalidParameter(f"{name}={positions!r} is a string; pass numbers")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            raw = np.asarray(positions)
            if raw.dtype.kind in "USVMmc":
                raise TypeError(f"{raw.dtype} values are not real numbers")
            pos = raw.astype(np.float64).reshape(-1)
    except (TypeError, ValueError, OverflowError, np.exceptions.ComplexWarning) as exc:
        shown = repr(positions)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise InvalidParameter(f"{name}={shown} is not a flat list of real numbers "
                               f"({type(exc).__name__}: {exc})") from None
    for value in pos[~np.isfinite(pos)][:1]:
        check_finite(name, float(value))
    return pos


@lru_cache(maxsize=1 << 16)
def trig(func: str, freq: sp.Expr, var: sp.Expr, evaluate: bool) -> sp.Expr:
    if func == "zero":
        return sp.Integer(0)
    f = sp.sin if func == "sin" else sp.cos
    if evaluate:
        return f(freq * var)
    return f(sp.Mul(freq, var, evaluate=False), evaluate=False)


def _merge_equal(freqs: Sequence[sp.Expr], bits: int = 128
                 ) -> tuple[list[int], list[tuple[int, int]]]:
    """Frequencies written differently but equal (``sqrt(8)/2`` and ``sqrt(2)``;
    ``log(8)/log(2)/3·c`` and ``c``) share one index.

    Returns ``(canon, undecided)``: ``canon[k]`` is the index of the first frequency equal
    to ``freqs[k]`` (proved by :func:`posproof.validated.compare`: exact rewriting to 0);
    two frequencies keep distinct indices only when certified different (disjoint interval
    enclosures, or a certified sign), or when undecided — those pairs are listed in
    ``undecided``.  Enclosures at ``bits`` bits sort the frequencies, so only those whose
    enclosures overlap are compared (no quadratic work for a table of distinct values).

    >>> _merge_equal([sp.sqrt(2), sp.sqrt(8) / 2, sp.Integer(3)])
    ([0, 0, 2], [])
    """
    n = len(freqs)
    canon = list(range(n))
    ends: list[tuple[Any, Any, int]] = []
    loose: list[int] = []
    for k, f in enumerate(freqs):
        try:
            lo, hi = validated.bounds(validated.enclose(f, prec=bits))
            ends.append((lo, hi, k))
        except validated.Unenclosable:
            loose.append(k)
    ends.sort(key=lambda t: t[0])
    candidates: list[tuple[int, int]] = []
    for a, (_lo, hi, k) in enumerate(ends):
        for lo2, _hi2, k2 in ends[a + 1:]:
            if lo2 > hi:
                break
            candidates.append((min(k, k2), max(k, k2)))
    candidates += [(min(a, b), max(a, b)) for a in loose for b in range(n) if b != a]
    undecided = []

    def root(k: int) -> int:
        while canon[k] != k:
            k = canon[k]
        return k
    for a, b in sorted(set(candidates)):
        ra, rb = root(a), root(b)
        if ra == rb:
            continue
        order = validated.compare(freqs[a], freqs[b])
        if order == 0:
            canon[max(ra, rb)] = min(ra, rb)
        elif order is None:
            undecided.append((a, b))
    canon = [root(k) for k in range(n)]
    pairs = sorted({(min(canon[a], canon[b]), max(canon[a], canon[b])) for a, b in undecided
                    if canon[a] != canon[b]})
    return canon, pairs


@lru_cache(maxsize=1 << 16)
def negate(expr: sp.Expr) -> sp.Expr:
    return -expr


class Encoding:
    """A positional encoding PE: positions → R^dim.

    Parameters
    ----------
    schedule : Schedule
        The frequencies (see :mod:`posproof.model.schedules`).
    layout : str or Layout
        Where each (sin, cos) pair sits (see :mod:`posproof.model.layouts`).
    dim : int
        The encoded dimension d; odd d needs ``odd_dim="pad"``.
    offset : int
        Position of the first token: ``table(L)`` holds positions offset … offset+L−1.
    padding_idx : int, optional
        A position whose row of the table is zero (fairseq).
    """

    def __init__(self, schedule: Schedule, layout: str | Layout = "interleaved",
                 dim: int = 512, *, offset: int = 0, odd_dim: str = "error",
                 padding_idx: int | None = None, name: str | None = None) -> None:
        if not isinstance(schedule, Schedule):
            raise InvalidParameter(
                f"schedule={schedule!r} is not a Schedule; build one from posproof.model.schedules")
        self.schedule: Schedule | None = schedule
        self.layout = get_layout(layout)
        self.dim = check_dim(dim, odd_dim=odd_dim)
        self.odd_dim = odd_dim
        self.offset = check_int("offset", offset, minimum=-(10**15), maximum=10**15)
        self.padding_idx = (None if padding_idx is None
                            else check_int("padding_idx", padding_idx, minimum=0))
        self.name = name or schedule.family
        n = self.dim // 2
        freqs = schedule.frequencies(self.dim)
        sin_cols, cos_cols = self.layout.columns(n)
        funcs = ["zero"] * self.dim
        col_freq: list[int] = [-1] * self.dim
        for k in range(n):
            funcs[sin_cols[k]], col_freq[sin_cols[k]] = "sin", k
            funcs[cos_cols[k]], col_freq[cos_cols[k]] = "cos", k
        self._set_columns(freqs, tuple(funcs), tuple(col_freq))

    @classmethod
    def from_columns(cls, columns: Sequence[tuple[str, Any]], *,
                     layout: str | Layout = "interleaved", name: str = "custom",
                     offset: int = 0) -> Encoding:
        """An encoding given column by column as ``(func, frequency)``.

        ``func`` is ``"sin"``, ``"cos"`` or ``"zero"``; the layout names which
        columns are meant to be partners.  This is how broken encodings (a
        sine-only table, pairs with mismatched frequencies) are described.

        >>> bad = Encoding.from_columns([("sin", 1), ("cos", 2)])
        >>> bad.broken_pairs()
        ['dims 0 and 1 use different frequencies (1 and 2); no rotation T(Δ) exists']
        """
        from .schedules import exact_number

        self = cls.__new__(cls)
        self.schedule = None
        self.layout = get_layout(layout)
        if isinstance(columns, (str, bytes)) or not isinstance(columns, Sequence) or not columns:
            raise InvalidEncoding("columns must be a non-empty list of (func, frequency)")
        self.dim = check_dim(len(columns), odd_dim="pad")
        self.odd_dim = "pad"
        self.offset = check_int("offset", offset)
        self.padding_idx = None
        self.name = name
        freqs: list[sp.Expr] = []
        index: dict[sp.Expr, int] = {}
        funcs, col_freq = [], []
        for j, column in enumerate(columns):
            func, value = column
            if func not in ("sin", "cos", "zero"):
                raise UnknownName(f"columns[{j}] func={func!r}; use 'sin', 'cos' or 'zero'")
            funcs.append(func)
            if func == "zero":
                col_freq.append(-1)
                continue
            freq = exact_number(f"columns[{j}] frequency", value)
            if freq not in index:
                if validated.sign(freq, budget_bits=1 << 12) != 1:
                    raise InvalidParameter(f"columns[{j}] frequency={freq} must be > 0 (its "
                                           "sign must be certain)")
                index[freq] = len(freqs)
                freqs.append(freq)
            col_freq.append(index[freq])
        canon, undecided = _merge_equal(freqs)
        kept = sorted(set(canon))
        renumber = {old: new for new, old in enumerate(kept)}
        self._set_columns(tuple(freqs[k] for k in kept), tuple(funcs),
                          tuple(-1 if k < 0 else renumber[canon[k]] for k in col_freq))
        self._undecided = frozenset(frozenset((renumber[canon[a]], renumber[canon[b]]))
                                    for a, b in undecided)
        return self

    def _set_columns(self, freqs: tuple[sp.Expr, ...], funcs: tuple[str, ...],
                     col_freq: tuple[int, ...]) -> None:
        self.frequencies: tuple[sp.Expr, ...] = freqs
        self.column_funcs = funcs
        self.column_freq_index = col_freq
        #: Pairs of frequency indices whose equality could not be decided (from_columns).
        self._undecided: frozenset[frozenset[int]] = frozenset()

    # ------------------------------------------------------------------ structure
    @property
    def n_pairs(self) -> int:
        return self.dim // 2

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """The (sin column, cos column) partner of each pair, from the layout."""
        sin_cols, cos_cols = self.layout.columns(self.n_pairs)
        return list(zip(sin_cols, cos_cols, strict=True))

    def column_frequency(self, j: int) -> sp.Expr | None:
        idx = self.column_freq_index[j]
        return None if idx < 0 else self.frequencies[idx]

    def broken_pairs(self) -> list[str]:
        """Reasons why no block rotation T(Δ) exists for this layout (empty when sound)."""
        problems = []
        for s, c in self.pairs:
            fs, fc = self.column_funcs[s], self.column_funcs[c]
            if (fs, fc) != ("sin", "cos"):
                problems.append(f"dims {s} and {c} hold ({fs}, {fc}), not a (sin, cos) pair; "
                                "no rotation T(Δ) exists")
            elif self.column_freq_index[s] != self.column_freq_index[c]:
                if self.frequencies_undecided(s, c):
                    problems.append(
                        f"dims {s} and {c}: whether their frequencies "
                        f"({self.column_frequency(s)} and {self.column_frequency(c)}) are equal "
                        "could not be decided (no certified sign, no exact rewriting to 0)")
                    continue
                problems.append(
                    f"dims {s} and {c} use different frequencies ({self.column_frequency(s)} "
                    f"and {self.column_frequency(c)}); no rotation T(Δ) exists")
        for j in range(2 * self.n_pairs, self.dim):
            if self.column_funcs[j] != "zero":
                problems.append(f"dim {j} is a padding column but holds {self.column_funcs[j]}")
        return problems

    def frequencies_undecided(self, i: int, j: int) -> bool:
        """Whether columns i and j have frequencies whose equality could not be decided
        (distinct indices are otherwise certified different: :func:`_merge_equal`)."""
        a, b = self.column_freq_index[i], self.column_freq_index[j]
        return a >= 0 and b >= 0 and a != b and frozenset((a, b)) in self._undecided

    @cached_property
    def frequencies_float(self) -> np.ndarray:
        """The distinct frequencies in float64, shape ``(len(frequencies),)``."""
        return np.array([float(v) for v in mp_values(self.frequencies, 30)], dtype=np.float64)

    @property
    def column_frequencies_float(self) -> np.ndarray:
        """Frequency of each column in float64 (0 for zero columns), shape ``(dim,)``."""
        idx = np.asarray(self.column_freq_index)
        if not self.frequencies:
            return np.zeros(self.dim)
        return np.where(idx >= 0, self.frequencies_float[np.maximum(idx, 0)], 0.0)

    # ------------------------------------------------------------------ exact objects
    def vector(self, x: Any = X) -> sp.ImmutableMatrix:
        """The exact row vector PE(x), shape ``(1, dim)``.

        >>> Encoding(Geometric(100), "split", 4).vector(0)
        Matrix([[0, 0, 1, 1]])
        """
        x = as_symbolic("x", x)
        evaluate = self.n_pairs <= _EVALUATE_UP_TO or x.is_number
        entries = [trig(f, self.column_frequency(j), x, evaluate)   # type: ignore[arg-type]
                   for j, f in enumerate(self.column_funcs)]
        return sp.ImmutableMatrix(1, self.dim, entries)

    def translation_entries(self, delta: Any = DELTA,
                            convention: str = "row") -> dict[tuple[int, int], sp.Expr]:
        """Non-zero entries ``{(i, j): expr}`` of T(Δ); see :meth:`translation`."""
        if convention not in CONVENTIONS:
            raise UnknownName(f"convention={convention!r} is not known; use 'row' or 'column'")
        problems = self.broken_pairs()
        if problems:
            raise InvalidEncoding(f"{self.name}: " + "; ".join(problems[:3]))
        delta = as_symbolic("delta", delta)
        evaluate = self.n_pairs <= _EVALUATE_UP_TO or delta.is_number
        out: dict[tuple[int, int], sp.Expr] = {}
        for s, c in self.pairs:
            w = self.column_frequency(s)
            cos, sin = trig("cos", w, delta, evaluate), trig("sin", w, delta, evaluate)  # type: ignore[arg-type]
            # Row convention: PE(x+Δ)_s = PE_s cos + PE_c sin, PE(x+Δ)_c = PE_c cos − PE_s sin.
            block = {(s, s): cos, (c, s): sin, (s, c): negate(sin), (c, c): cos}
            for (i, j), value in block.items():
                out[(i, j) if convention == "row" else (j, i)] = value
        for j in range(2 * self.n_pairs, self.dim):
            out[(j, j)] = sp.Integer(1)
        return out

    def translation(self, delta: Any = DELTA, convention: str = "row") -> sp.ImmutableSparseMatrix:
        """The exact block-diagonal T(Δ), shape ``(dim, dim)``.

        Row convention: PE(x+Δ) = PE(x)·T(Δ); column convention:
        PE(x+Δ)ᵀ = T(Δ)·PE(x)ᵀ (the transpose).  For the interleaved layout
        each 2×2 block on (sin, cos) is, in the row convention::

            [ cos ωΔ   −sin ωΔ ]
            [ sin ωΔ    cos ωΔ ]

        >>> Encoding(Geometric(10000), "interleaved", 2).translation(convention="column")
        Matrix([
        [ cos(delta), sin(delta)],
        [-sin(delta), cos(delta)]])
        """
        return sp.ImmutableSparseMatrix(self.dim, self.dim,
                                        self.translation_entries(delta, convention))

    # ------------------------------------------------------------------ numbers
    def positions(self, length: int) -> np.ndarray:
        """Positions of ``length`` tokens: offset … offset+length−1, shape ``(length,)``."""
        length = check_int("length", length, minimum=0, maximum=10**9)
        return np.arange(self.offset, self.offset + length, dtype=np.int64)

    def table(self, positions: int | Iterable[float] | np.ndarray,
              dtype: Any = np.float64) -> np.ndarray:
        """The numeric table, shape ``(len(positions), dim)``.

        ``positions`` is a count of tokens (rows at offset, offset+1, …) or
        the positions themselves.  Angles are formed in float64 and the result
        is rounded to ``dtype``; the row at ``padding_idx`` is zero.

        >>> Encoding(Geometric(10000), "interleaved", 2).table([0, 1]).round(4)
        array([[0.    , 1.    ],
               [0.8415, 0.5403]])
        """
        resolved = resolve_dtype(dtype)
        if isinstance(positions, (int, np.integer)) and not isinstance(positions, bool):
            pos = self.positions(int(positions)).astype(np.float64)
        else:
            pos = as_positions("positions", positions)
        freq = self.column_frequencies_float
        angles = np.multiply.outer(pos, freq)
        funcs = np.asarray(self.column_funcs)
        out = np.zeros_like(angles)
        out[:, funcs == "sin"] = np.sin(angles[:, funcs == "sin"])
        out[:, funcs == "cos"] = np.cos(angles[:, funcs == "cos"])
        if self.padding_idx is not None:
            out[pos == self.padding_idx] = 0.0
        return out.astype(resolved)

    # ------------------------------------------------------------------ description
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description of the encoding."""
        out: dict[str, Any] = {"name": self.name, "dim": self.dim, "layout": self.layout.name,
                               "offset": self.offset}
        if self.schedule is not None:
            out["schedule"] = {"family": self.schedule.family, **self.schedule.params()}
        else:
            out["columns"] = [[f, str(self.column_frequency(j))]
                              for j, f in enumerate(self.column_funcs)]
        if self.dim % 2:
            out["odd_dim"] = self.odd_dim
        if self.padding_idx is not None:
            out["padding_idx"] = self.padding_idx
        return out

    def __repr__(self) -> str:
        params = ""
        if self.schedule is not None:
            params = "".join(f", {k}={v}" for k, v in self.schedule.params().items())
        return (f"Encoding({self.name}, dim={self.dim}, layout={self.layout.name}"
                f"{params}, offset={self.offset})")
