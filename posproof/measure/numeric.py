"""The numeric half: lambdified tables, the offset kernel at GEMM speed, error bounds.

Everything here is derived from the exact expressions of an :class:`Encoding`
and carries an explicit error bound, so that :mod:`posproof.measure.checks` can
certify the few numbers that matter in mpmath.

**Lambdified functions.**  :func:`lambdify_pair` turns the generic pair
``[sin(w*x), cos(w*x)]`` into NumPy code (one entry at a time, so constant
entries keep their shape — sympy#19259); tables and translation matrices are
assembled from it blockwise, fed with the frequencies computed in mpmath and
rounded once to float64 (never through Python's float ``**``).  A
:class:`Lambdified` keeps the expression it came from.

**The offset kernel.**  By the dot-product theorem, PE(x)·PE(y) = f(x − y) with

    f(Δ) = Σ_k cos(ω_k Δ)            (n = number of (sin, cos) pairs)

so ‖PE(x) − PE(y)‖² = 2(n − f(x − y)) and every pairwise question about L
positions is a question about f on Δ = 0 … L−1.  :class:`OffsetKernel`
evaluates f as a matrix product: with Δ = qB + r, r ∈ [−B/2, B/2),

    f(qB ± r) = Σ_k cos φ_k(q) cos ψ_k(r) ∓ Σ_k sin φ_k(q) sin ψ_k(r),

φ_k(q) = ω_k·qB, ψ_k(r) = ω_k·r: two real GEMMs of shape (Q × n)·(n × B/2)
(the real part of A·Bᵀ with A[q,k] = e^{iφ_k(q)}, B[r,k] = e^{iψ_k(r)},
using cos(a−b) = cos(a+b) + 2 sin a sin b to fold ±r: 2·L·n flops), streamed
in chunks of about 2²¹ values, so any L streams in bounded memory.

**Phases in exact fixed point.**  The angle step ω_k·B mod 2π is computed
once in mpmath and stored as a 64-bit fixed-point fraction of a turn,
a_k = round(2⁶⁴·frac(ω_k B / 2π)) (and b_k likewise for ω_k).  Then
q·a_k mod 2⁶⁴ is exact integer arithmetic (uint64 wraps modulo one turn), so
the phase of every term is reduced modulo 2π without error growth in x·ω:

**Error bound** (u = 2⁻⁵³, t = 4u the budget for one NumPy sin/cos — measured
at ≤ 0.51 ulp on x86-64 —, Q = largest q of the scan, R = B/2):

* phase of φ_k(q): fixed-point rounding q·2⁻⁶⁵ turns, int→float conversion
  2⁻⁵⁴ turns, scaling by 2π/2⁶⁴ ≤ 2u·π:  δφ ≤ π(Q·2⁻⁶⁴ + 3u + u²); same for ψ
  with R;
* sin/cos values: each within t, so each term cos φ cos ψ ∓ sin φ sin ψ is
  within 2√2·t + 2t² of the value at the rounded phases, which is within
  δφ + δψ of the exact term;
* the two GEMMs: any summation order (blocked, FMA) obeys Higham's
  |fl(Σ aᵢbᵢ) − Σ aᵢbᵢ| ≤ γ_n Σ|aᵢbᵢ|, γ_n = nu/(1 − nu), and
  |cos φ cos ψ| + |sin φ sin ψ| ≤ 1, so the two sums err by ≤ γ_n·n(1 + 2√2t + 2t²);
  the final ± adds u·n.

    ε = n(δφ + δψ + 2√2t + 2t²) + γ_n n (1 + 2√2t + 2t²) + u n      (× 1.000001)

This is a rigorous worst case, independent of the BLAS, for the exact
frequencies (not their float64 roundings): 8.2e-12 for n = 256 (d = 512)
and 3.1e-11 for n = 512 at L = 10⁶, dominated by γ_n·n; the errors observed
against mpmath are 6e-14 and 2e-13.

>>> kernel = OffsetKernel(Encoding(Geometric(10000), "interleaved", 8))
>>> kernel.n, kernel.values(0, 3).round(6).tolist()
(4, [4.0, 3.535256, 2.563718])
>>> kernel.bound(3) < 1e-13
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter

from ..errors import InvalidEncoding, InvalidParameter, UnknownName, check_int
from ..model.encoding import DELTA, Encoding, X, resolve_dtype
from ..precise import DEFAULT_DPS, mp_values

__all__ = [
    "MAX_DENSE_DIM",
    "MAX_LEN",
    "MAX_SCAN_WORK",
    "Crossing",
    "DtypeModel",
    "Extreme",
    "Lambdified",
    "OffsetKernel",
    "U",
    "angles_in_dtype",
    "apply_translation",
    "check_scan",
    "check_scan_work",
    "dtype_model",
    "first_unrepresentable_integer",
    "gram_is_toeplitz",
    "lambdify_encoding",
    "lambdify_pair",
    "rotate_pairs",
    "round_to_dtype",
    "toeplitz_deviation",
    "translation_blocks",
    "translation_matrix",
    "translation_residual",
]

#: Unit roundoff of float64.
U = 2.0 ** -53
#: Error budget of one NumPy float64 sin or cos, in units of u (measured ≤ 0.51).
TRIG_ULPS = 4
#: Longest scan accepted.  Scans stream in chunks, so memory is not the limit;
#: time is (about L·n / 5·10⁹ seconds on two cores).
MAX_LEN = 10**9
#: Largest scan work L·d accepted by the numeric checks (``check``, ``verify``,
#: ``derive``): the scans cost time in proportion to L·d, so at d = 512 L is at
#: most 67 108 864 and at d = 65536 at most 524 288 (each about a minute or less
#: on two cores within 4 GiB; see docs/cli.md, "Limits").
MAX_SCAN_WORK = 1 << 35
#: Kernel values computed per chunk (≈ 16 MB of float64).
CHUNK_VALUES = 1 << 21
#: At most this many kernel values are kept in memory (128 MB); longer scans stream.
CACHE_VALUES = 1 << 24

W = sp.Symbol("w", positive=True)
_RAD_PER_UNIT = math.tau * 2.0 ** -64          # exact power-of-two scaling of fl(2π)
_MAX_BLOCK = 4096
_CALL_BLOCK = 4096
_FIXED_DPS = 80                                 # digits for the fixed-point phases


# --------------------------------------------------------------------------- lambdify
@dataclass(frozen=True)
class Lambdified:
    """A NumPy function generated by ``sympy.lambdify``, with the expression it came from.

    ``expr`` is the exact SymPy expression, ``args`` its arguments in call
    order, ``func`` the generated function.

    >>> pair = lambdify_pair()
    >>> pair.expr
    Matrix([[sin(w*x), cos(w*x)]])
    >>> pair(0.0, 1.0).tolist()
    [0.0, 1.0]
    """

    expr: Any
    args: tuple[sp.Symbol, ...]
    func: Callable[..., Any] = field(repr=False)

    def __call__(self, *values: Any) -> Any:
        return self.func(*values)


def _entrywise(exprs: Sequence[sp.Expr], args: Sequence[sp.Symbol]) -> Callable[..., np.ndarray]:
    """Lambdify each entry alone and stack on a last axis (sympy#19259: a matrix
    with constant entries comes back with the wrong shape).

    >>> _entrywise([X, sp.Integer(0)], [X])([1.0, 2.0]).tolist()
    [[1.0, 0.0], [2.0, 0.0]]
    """
    # The NumPy printer and a namespace holding numpy: the code modules="numpy" generates
    # (numpy.sin, numpy.cos), without its ``from numpy import *``, which imports numpy.f2py
    # and friends and costs 0.2-0.4 s of every cold start.
    funcs = [sp.lambdify(list(args), e, modules=[{"numpy": np}], printer=NumPyPrinter)
             for e in exprs]

    def func(*values: Any) -> np.ndarray:
        arrays = [np.asarray(v, dtype=np.float64) for v in values]
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        return np.stack([np.broadcast_to(np.asarray(f(*arrays), dtype=np.float64), shape)
                         for f in funcs], axis=-1)

    return func


@lru_cache(maxsize=1)
def lambdify_pair() -> Lambdified:
    """The generic pair ``[sin(w·x), cos(w·x)]`` as NumPy code in ``(x, w)``.

    Arrays broadcast; the result has shape ``broadcast(x, w).shape + (2,)``.

    >>> lambdify_pair()([0.0, 1.0], [[1.0], [2.0]]).shape
    (2, 2, 2)
    """
    expr = sp.ImmutableMatrix([[sp.sin(W * X), sp.cos(W * X)]])
    return Lambdified(expr, (X, W), _entrywise(list(expr), (X, W)))


def lambdify_encoding(encoding: Encoding) -> Lambdified:
    """PE as NumPy code: ``f(positions)`` has shape ``(len(positions), dim)``.

    ``expr`` is the exact row ``encoding.vector()``; the numbers come from the
    lambdified generic pair fed with ``encoding.column_frequencies_float``
    (each column is sin or cos of ω_j·x, or a zero column).  The row at
    ``padding_idx`` is zero, as in :meth:`Encoding.table`.

    >>> pe = lambdify_encoding(Encoding(Geometric(100), "split", 4))
    >>> pe.expr
    Matrix([[sin(x), sin(x/10), cos(x), cos(x/10)]])
    >>> pe([0, 1]).round(3).tolist()
    [[0.0, 0.0, 1.0, 1.0], [0.841, 0.1, 0.54, 0.995]]
    """
    pair = lambdify_pair()
    funcs = np.asarray(encoding.column_funcs)
    freqs = encoding.column_frequencies_float
    padding = encoding.padding_idx

    def table(positions: Any) -> np.ndarray:
        pos = _positions(positions)
        values = pair(pos[:, None], freqs[None, :])            # (m, dim, 2)
        out = np.where(funcs == "sin", values[..., 0], values[..., 1])
        out[:, funcs == "zero"] = 0.0
        if padding is not None:
            out[pos == padding] = 0.0
        return out

    return Lambdified(encoding.vector(), (X,), table)


def _positions(positions: Any) -> np.ndarray:
    pos = np.asarray(positions, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(pos)):
        bad = pos[~np.isfinite(pos)][0]
        raise InvalidParameter(f"positions contain {bad}; pass finite positions")
    return pos


def _pair_frequencies(encoding: Encoding) -> list[sp.Expr]:
    """The exact frequency of each (sin, cos) pair; refuse encodings without pairs."""
    problems = encoding.broken_pairs()
    if not problems and encoding.n_pairs == 0:
        problems = [f"dim={encoding.dim} holds no (sin, cos) pair"]
    if problems:
        raise InvalidEncoding(
            f"{encoding.name}: the dot-product theorem needs (sin, cos) pairs of one frequency, "
            f"and {problems[0]}; numeric kernel checks do not apply")
    return [encoding.frequencies[encoding.column_freq_index[s]] for s, _ in encoding.pairs]


#: Largest dim for which :func:`translation_matrix` forms the dense dim × dim T(Δ)
#: (128 MiB of float64); numeric code applies T blockwise (:func:`apply_translation`).
MAX_DENSE_DIM = 4096


def translation_blocks(encoding: Encoding, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """sin(ω_k Δ) and cos(ω_k Δ) per pair: the n blocks of T(Δ), O(d) numbers.

    >>> s, c = translation_blocks(Encoding(Geometric(10000), "interleaved", 4), math.pi / 2)
    >>> s.round(3).tolist(), c.round(3).tolist()
    ([1.0, 0.016], [0.0, 1.0])
    """
    _pair_frequencies(encoding)
    pairs = np.asarray(encoding.pairs, dtype=np.int64).reshape(-1, 2)
    omega = encoding.column_frequencies_float[pairs[:, 0]]
    sc = lambdify_pair()(float(delta), omega)                  # (n, 2): sin, cos
    return sc[:, 0], sc[:, 1]


def rotate_pairs(encoding: Encoding, rows: Any, sin: Any, cos: Any) -> np.ndarray:
    """``rows · T`` for the block-diagonal T with pair k's block built from ``sin[k]``, ``cos[k]``.

    Row convention, as :func:`translation_matrix`: the sin column s and the cos
    column c of pair k become ``row_s·cos + row_c·sin`` and
    ``row_c·cos − row_s·sin``; columns outside the pairs (padding) are kept.
    O(rows · d) time and memory: T is never formed.  ``rows`` has shape
    ``(..., dim)``.

    >>> enc = Encoding(Geometric(10000), "split", 4)
    >>> rows = np.arange(8.0).reshape(2, 4)
    >>> s, c = translation_blocks(enc, 0.7)
    >>> bool(np.allclose(rotate_pairs(enc, rows, s, c), rows @ translation_matrix(enc, 0.7)))
    True
    """
    rows = np.asarray(rows, dtype=np.float64)
    pairs = np.asarray(encoding.pairs, dtype=np.int64).reshape(-1, 2)
    s_col, c_col = pairs[:, 0], pairs[:, 1]
    out = rows.copy()
    rs, rc = rows[..., s_col], rows[..., c_col]
    out[..., s_col] = rs * cos + rc * sin
    out[..., c_col] = rc * cos - rs * sin
    return out


def apply_translation(encoding: Encoding, rows: Any, delta: float, convention: str = "row"
                      ) -> np.ndarray:
    """``rows · T(Δ)`` in O(rows · d), for T(Δ) in the given convention (never formed).

    With the row convention, ``apply_translation(enc, enc.table([x]), Δ)`` is
    the row PE(x + Δ) up to rounding; the column convention's T(Δ) is the
    transpose, so ``rows · T_column(Δ) = rows · T_row(−Δ)``.

    >>> enc = Encoding(Geometric(10000), "interleaved", 8)
    >>> moved = apply_translation(enc, enc.table([3]), 4.0)
    >>> bool(np.allclose(moved, enc.table([7])))
    True
    """
    if convention not in ("row", "column"):
        raise UnknownName(f"convention={convention!r} is not known; use 'row' or 'column'")
    sin, cos = translation_blocks(encoding, delta)
    return rotate_pairs(encoding, rows, sin if convention == "row" else -sin, cos)


def translation_matrix(encoding: Encoding, delta: float, convention: str = "row") -> np.ndarray:
    """The numeric T(Δ), shape ``(dim, dim)``, built blockwise from the frequencies.

    Row convention: PE(x+Δ) = PE(x)·T(Δ); column convention: the transpose.
    Each block is the lambdified pair at (Δ, ω_k) placed at the layout's
    (sin, cos) columns, as in :meth:`Encoding.translation`; padding columns
    carry 1 on the diagonal.  The matrix is dense (dim² numbers): it is
    refused above ``dim`` = :data:`MAX_DENSE_DIM`; to move rows, use
    :func:`apply_translation`, which never forms it.

    >>> translation_matrix(Encoding(Geometric(10000), "interleaved", 2), math.pi / 2).round(12)
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    if convention not in ("row", "column"):
        raise UnknownName(f"convention={convention!r} is not known; use 'row' or 'column'")
    if encoding.dim > MAX_DENSE_DIM:
        raise InvalidParameter(
            f"translation_matrix: dim={encoding.dim} exceeds {MAX_DENSE_DIM}, the largest dense "
            f"dim × dim T(Δ) formed; use apply_translation(encoding, rows, delta), which applies "
            "T(Δ) pair by pair")
    sin, cos = translation_blocks(encoding, delta)
    out = rotate_pairs(encoding, np.eye(encoding.dim), sin, cos)
    return out if convention == "row" else out.T.copy()


def translation_residual(encoding: Encoding, x: Sequence[int], delta: Sequence[int]
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Per-column ``|table(x+Δ) − table(x)·T(Δ)|`` and the float64 tolerance for it.

    Both results have shape ``(len(x), dim)``.  The tolerance follows the
    rounding of the angles (each angle x·ω is formed in float64 with error
    ≤ 2u|xω|, the frequencies themselves being rounded) and of sin, cos and
    the two-term products:
    ``4u(|(x+Δ)ω| + 2|xω| + 2|Δω|) + 16t``.

    >>> enc = Encoding(Geometric(10000), "interleaved", 8)
    >>> res, tol = translation_residual(enc, [10**6], [12345])
    >>> bool((res <= tol).all()), res.shape
    (True, (1, 8))
    """
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ds = np.asarray(delta, dtype=np.float64).reshape(-1)
    if xs.shape != ds.shape:
        raise InvalidParameter(f"x has {xs.size} positions and delta {ds.size}; pass as many")
    _positions(xs)
    _positions(ds)
    pe = lambdify_encoding(encoding)
    freq = np.abs(encoding.column_frequencies_float)
    moved, base = pe(xs + ds), pe(xs)
    res = np.empty_like(moved)
    for i, d in enumerate(ds):
        res[i] = np.abs(moved[i] - apply_translation(encoding, base[i], d))
    t = TRIG_ULPS * U
    tol = (4 * U * (np.abs(xs + ds)[:, None] * freq + 2 * np.abs(xs)[:, None] * freq
                    + 2 * np.abs(ds)[:, None] * freq) + 16 * t)
    return res, tol


# --------------------------------------------------------------------------- the kernel
@dataclass
class Extreme:
    """The certified largest kernel value over a range, i.e. the closest approach.

    ``delta`` is the smallest offset attaining it; ``f`` its float64 value
    (within ``bound`` of the exact value), ``f_mp`` the exact value in
    mpmath; ``distance`` = √(2(n − f)) in float64 (within ``distance_bound``)
    and ``distance_mp`` = √(4 Σ sin²(ω_k Δ/2)) in mpmath.  ``candidates`` is
    how many offsets within 2·bound of the float64 maximum were recomputed in
    mpmath (``truncated``: more were within it and the largest float64 values
    were kept); ``consistent`` is False
    when a float64 value disagreed with mpmath beyond its bound.
    """

    delta: int
    f: float
    f_mp: mpmath.mpf
    bound: float
    distance: float
    distance_bound: float
    distance_mp: mpmath.mpf
    candidates: int
    truncated: bool = False
    consistent: bool = True
    dps: int = DEFAULT_DPS


@dataclass
class Crossing:
    """The certified first offset at which a kernel condition holds.

    ``delta`` is the first offset; ``value`` the float64 value there (kernel
    value, or difference f(Δ+1) − f(Δ)), ``value_mp`` and ``previous_mp`` the
    mpmath values at ``delta`` and ``delta − 1``; ``rechecked`` counts the
    earlier offsets within the bound that were recomputed in mpmath.
    """

    delta: int
    value: float
    value_mp: mpmath.mpf
    previous_mp: mpmath.mpf | None
    bound: float
    rechecked: int = 0
    consistent: bool = True
    dps: int = DEFAULT_DPS


def _work_dps(dps: int, delta: int) -> int:
    """Working digits for cos(ω·Δ): dps plus the digits of Δ, in steps of 10 (few caches)."""
    return dps + 10 + 10 * (len(str(delta)) // 10 + 1)


def _block_for(length: int) -> int:
    b = math.isqrt(max(int(length), 1) - 1) + 1
    b += b % 2
    return min(max(b, 2), _MAX_BLOCK)


def _kernel_bound(n: int, q_max: int, r_max: int) -> float:
    t = TRIG_ULPS * U
    d_phi = math.pi * (q_max * 2.0 ** -64 + 3 * U + U * U)
    d_psi = math.pi * (r_max * 2.0 ** -64 + 3 * U + U * U)
    trig = 2 * math.sqrt(2) * t + 2 * t * t
    gamma = n * U / (1 - n * U)
    eps = n * (d_phi + d_psi + trig) + gamma * n * (1 + trig) + U * n
    return eps * (1 + 1e-6)


class OffsetKernel:
    """f(Δ) = Σ_k cos(ω_k Δ) for an encoding's pairs; PE(x)·PE(y) = f(x − y).

    ``source`` is an :class:`Encoding` (its (sin, cos) pairs must share one
    frequency: the dot-product theorem) or a sequence of exact frequencies.
    See the module docstring for the algorithm and the error bound.

    >>> k = OffsetKernel([1, sp.Rational(1, 2)])
    >>> k.expr
    Sum(cos(delta*omega[k]), (k, 0, 1))
    >>> float(k.mp(3)) == math.cos(3) + math.cos(1.5)
    True
    """

    def __init__(self, source: Encoding | Sequence[Any]) -> None:
        if isinstance(source, Encoding):
            freqs = _pair_frequencies(source)
            self.name = source.name
        else:
            from ..model.schedules import exact_number

            if isinstance(source, (str, bytes)) or not isinstance(source, Sequence) or not source:
                raise InvalidParameter(
                    f"frequencies={source!r}; pass an Encoding or a non-empty list of numbers")
            freqs = [exact_number(f"frequencies[{i}]", v) for i, v in enumerate(source)]
            self.name = "kernel"
        self.frequencies: tuple[sp.Expr, ...] = tuple(freqs)
        self.n = len(freqs)
        self._mp_cache: dict[int, list[mpmath.mpf]] = {}
        self._value_cache: dict[tuple[str, int, int], mpmath.mpf] = {}
        mp = self._omega_mp(_FIXED_DPS)
        self.omega = np.array([float(w) for w in mp], dtype=np.float64)
        if not np.all(np.isfinite(self.omega)):
            raise InvalidParameter(f"{self.name}: a frequency is not finite ({self.omega})")
        self._fixed: dict[int, np.ndarray] = {}
        self._plans: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._cache: np.ndarray | None = None
        self._cache_bound = 0.0

    # ------------------------------------------------------------------ exact side
    @property
    def expr(self) -> sp.Expr:
        """The kernel as a SymPy sum over the pair index."""
        k = sp.Symbol("k", integer=True, nonnegative=True)
        return sp.Sum(sp.cos(sp.IndexedBase("omega")[k] * DELTA), (k, 0, self.n - 1))

    def _omega_mp(self, dps: int) -> list[mpmath.mpf]:
        if dps not in self._mp_cache:
            self._mp_cache[dps] = mp_values(self.frequencies, dps)
        return self._mp_cache[dps]

    def mp(self, delta: int, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """f(Δ) in mpmath with ``dps`` significant digits, from the exact frequencies.

        >>> mpmath.nstr(OffsetKernel([1]).mp(10**7, 30), 12)
        '-0.907270386182'
        """
        delta = abs(int(delta))
        key = ("f", delta, dps)
        if key not in self._value_cache:
            work = _work_dps(dps, delta)
            omegas = self._omega_mp(work)
            with mpmath.workdps(work):
                value = mpmath.fsum(mpmath.cos(w * delta) for w in omegas)
            with mpmath.workdps(dps):
                self._value_cache[key] = +value
        return self._value_cache[key]

    def distance_mp(self, delta: int, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """‖PE(x+Δ) − PE(x)‖ = √(4 Σ sin²(ω_k Δ/2)) in mpmath (no cancellation near 0).

        >>> OffsetKernel([sp.pi / 2]).distance_mp(4)
        mpf('0.0')
        """
        delta = abs(int(delta))
        key = ("distance", delta, dps)
        if key not in self._value_cache:
            work = _work_dps(dps, delta)
            omegas = self._omega_mp(work)
            with mpmath.workdps(work):
                value = 2 * mpmath.sqrt(mpmath.fsum(mpmath.sin(w * delta / 2) ** 2
                                                    for w in omegas))
            with mpmath.workdps(dps):
                tiny = value < mpmath.mpf(10) ** (-(dps - 5))
                self._value_cache[key] = mpmath.mpf(0) if tiny else +value
        return self._value_cache[key]

    # ------------------------------------------------------------------ fixed point
    def _turns(self, scale: int) -> np.ndarray:
        """round(2⁶⁴·frac(ω_k·scale/2π)) as uint64, shape ``(n,)``."""
        if scale not in self._fixed:
            magnitude = math.log10(float(np.abs(self.omega).max()) * scale + 1)
            extra = 40 * math.ceil(max(0.0, magnitude - 30) / 40)
            omegas = self._omega_mp(_FIXED_DPS + extra)
            with mpmath.workdps(_FIXED_DPS + extra):
                two_pi = 2 * mpmath.pi
                words = []
                for w in omegas:
                    turns = w * scale / two_pi
                    frac = turns - mpmath.floor(turns)
                    words.append(int(mpmath.nint(frac * 2**64)) % 2**64)
            self._fixed[scale] = np.array(words, dtype=np.uint64)
        return self._fixed[scale]

    @staticmethod
    def _angles(mult: np.ndarray, turns: np.ndarray) -> np.ndarray:
        """mult·turns mod one turn, in radians in [−π, π), shape ``(len(mult), n)``."""
        prod = np.multiply(mult.astype(np.uint64)[:, None], turns[None, :])  # wraps mod 2⁶⁴
        return prod.view(np.int64).astype(np.float64) * _RAD_PER_UNIT

    def _plan(self, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if block not in self._plans:
            half = block // 2
            psi = self._angles(np.arange(half + 1, dtype=np.int64), self._turns(1))
            self._plans[block] = (self._turns(block), np.ascontiguousarray(np.cos(psi).T),
                                  np.ascontiguousarray(np.sin(psi).T))
        return self._plans[block]

    def _rows(self, block: int, q0: int, q1: int) -> np.ndarray:
        """f(Δ) for Δ ∈ [q0·B − B/2, q1·B − B/2), shape ``((q1 − q0)·B,)``."""
        half = block // 2
        a_turns, cos_b, sin_b = self._plan(block)
        phi = self._angles(np.arange(q0, q1, dtype=np.int64), a_turns)
        c = np.cos(phi) @ cos_b                                   # (m, half + 1)
        s = np.sin(phi) @ sin_b
        out = np.empty((q1 - q0, block))
        np.subtract(c[:, :half], s[:, :half], out=out[:, half:])  # Δ = qB + r, r = 0 … B/2−1
        np.add(c[:, half:0:-1], s[:, half:0:-1], out=out[:, :half])  # Δ = qB − r, r = B/2 … 1
        return out.reshape(-1)

    # ------------------------------------------------------------------ float64 side
    def bound(self, stop: int) -> float:
        """Error bound of every float64 value of a scan over Δ ∈ [0, stop).

        >>> OffsetKernel([1] * 256).bound(10**6) < 1e-11
        True
        """
        stop = max(int(stop), 1)
        block = _block_for(stop)
        half = block // 2
        return _kernel_bound(self.n, (stop - 1 + half) // block, half)

    def chunks(self, start: int, stop: int, *, progress: Callable[[int, int], None] | None = None
               ) -> Iterator[tuple[int, np.ndarray]]:
        """``(first Δ, values)`` pieces covering Δ ∈ [start, stop) in order, each ≤ 2²¹ values.

        Memory stays bounded whatever the length; every value is within
        :meth:`bound` ``(stop)`` of f (or of the cached scan's bound).

        >>> [(s, v.size) for s, v in OffsetKernel([1]).chunks(0, 5)]
        [(0, 5)]
        """
        start, stop = int(start), int(stop)
        if start < 0 or stop < start:
            raise InvalidParameter(f"offsets [{start}, {stop}) are not a range of Δ ≥ 0")
        cache = self._cache
        if cache is not None and stop <= cache.size:
            for lo in range(start, stop, CHUNK_VALUES):
                hi = min(lo + CHUNK_VALUES, stop)
                yield lo, cache[lo:hi]
                if progress is not None:
                    progress(hi - start, stop - start)
            return
        block = _block_for(stop)
        half = block // 2
        rows = max(1, CHUNK_VALUES // block)
        q_start = (start + half) // block
        q_stop = (stop - 1 + half) // block + 1 if stop > start else q_start
        for q0 in range(q_start, q_stop, rows):
            q1 = min(q0 + rows, q_stop)
            base = q0 * block - half
            values = self._rows(block, q0, q1)
            lo, hi = max(start, base), min(stop, base + values.size)
            yield lo, values[lo - base:hi - base]
            if progress is not None:
                progress(hi - start, stop - start)

    def values(self, start: int, stop: int) -> np.ndarray:
        """f(Δ) for Δ ∈ [start, stop) in float64, shape ``(stop − start,)``.

        Refuses more than ``CACHE_VALUES`` values; use :meth:`chunks` then.

        >>> OffsetKernel([1]).values(0, 3).round(4).tolist()
        [1.0, 0.5403, -0.4161]
        """
        count = int(stop) - int(start)
        if count > CACHE_VALUES:
            raise InvalidParameter(
                f"values({start}, {stop}) would hold {count} numbers; at most {CACHE_VALUES} "
                "are materialised; iterate over chunks(start, stop) instead")
        parts = [v for _, v in self.chunks(start, stop)]
        return np.concatenate(parts) if parts else np.empty(0)

    def materialize(self, length: int, progress: Callable[[int, int], None] | None = None
                    ) -> bool:
        """Keep f(0 … length−1) in memory when it fits (≤ 2²⁴ values); True if kept.

        >>> OffsetKernel([1]).materialize(100)
        True
        """
        length = int(length)
        if length > CACHE_VALUES:
            return False
        if self._cache is None or self._cache.size < length:
            self._cache = None
            cache = np.empty(length)
            for lo, values in self.chunks(0, length, progress=progress):
                cache[lo:lo + values.size] = values
            self._cache, self._cache_bound = cache, self.bound(length)
        return True

    def scan_bound(self, stop: int) -> float:
        """The bound that applies to :meth:`chunks` ``(·, stop)`` (the cache's when it is used).

        >>> k = OffsetKernel([1]); _ = k.materialize(10); k.scan_bound(5) == k.bound(10)
        True
        """
        if self._cache is not None and stop <= self._cache.size:
            return self._cache_bound
        return self.bound(stop)

    def __call__(self, deltas: Any) -> np.ndarray:
        """f at arbitrary integer offsets, shape of ``deltas``; within :meth:`call_bound`.

        >>> OffsetKernel([1, 2]).__call__([0, -3]).round(4).tolist()
        [2.0, -0.0298]
        """
        d = np.abs(np.asarray(deltas, dtype=np.int64))
        flat = d.reshape(-1)
        half = _CALL_BLOCK // 2
        q = (flat + half) // _CALL_BLOCK
        r = flat - q * _CALL_BLOCK
        phase = (np.multiply(q.astype(np.uint64)[:, None], self._turns(_CALL_BLOCK)[None, :])
                 + np.multiply(r.astype(np.uint64)[:, None], self._turns(1)[None, :]))
        angles = phase.view(np.int64).astype(np.float64) * _RAD_PER_UNIT
        return np.cos(angles).sum(axis=1).reshape(d.shape)

    def call_bound(self, delta_max: int) -> float:
        """Error bound of :meth:`__call__` for offsets up to ``|Δ| ≤ delta_max``.

        >>> OffsetKernel([1] * 256).call_bound(10**7) < 1e-11
        True
        """
        q_max = (abs(int(delta_max)) + _CALL_BLOCK // 2) // _CALL_BLOCK
        t = TRIG_ULPS * U
        phase = math.pi * ((q_max + _CALL_BLOCK // 2) * 2.0 ** -64 + 3 * U + U * U)
        gamma = self.n * U / (1 - self.n * U)
        return (self.n * (phase + t) + gamma * self.n * (1 + t)) * (1 + 1e-6)

    # ------------------------------------------------------------------ certified reductions
    def maximum(self, start: int, stop: int, *, dps: int = DEFAULT_DPS, keep: int = 64,
                progress: Callable[[int, int], None] | None = None) -> Extreme:
        """The certified maximum of f over Δ ∈ [start, stop): the closest approach.

        Every offset whose float64 value is within 2ε of the float64 maximum
        is a candidate (no other can hold the true maximum); up to ``keep`` of
        them (the largest) are recomputed in mpmath and the largest exact
        value wins, the smallest offset on ties.

        >>> ext = OffsetKernel([sp.pi / 2, sp.pi / 4]).maximum(1, 20)
        >>> ext.delta, ext.distance_mp
        (8, mpf('0.0'))
        """
        if stop <= start:
            raise InvalidParameter(f"the range [{start}, {stop}) of offsets is empty")
        eps = self.scan_bound(stop)
        best = -math.inf
        truncated = False
        cand_d = np.empty(0, dtype=np.int64)
        cand_v = np.empty(0)
        for lo, values in self.chunks(start, stop, progress=progress):
            top = float(values.max())
            if top < best - 2 * eps:
                continue
            best = max(best, top)
            idx = np.flatnonzero(values >= best - 2 * eps)
            cand_d = np.concatenate([cand_d[cand_v >= best - 2 * eps], lo + idx])
            cand_v = np.concatenate([cand_v[cand_v >= best - 2 * eps], values[idx]])
            if cand_d.size > 4 * keep:
                order = np.lexsort((cand_d, -cand_v))[:keep]
                cand_d, cand_v, truncated = cand_d[order], cand_v[order], True
        truncated = truncated or cand_d.size > keep
        order = np.lexsort((cand_d, -cand_v))[:keep]
        cand_d, cand_v = cand_d[order], cand_v[order]
        total = int(cand_d.size)
        consistent = True
        exact = []
        for d, v in zip(cand_d.tolist(), cand_v.tolist(), strict=True):
            value = self.mp(d, dps)
            exact.append(value)
            if abs(float(value) - v) > eps:
                consistent = False
        with mpmath.workdps(dps):
            top_mp = max(exact)
            tie = mpmath.mpf(10) ** (-(dps - 10)) * self.n
            winners = [d for d, e in zip(cand_d.tolist(), exact, strict=True)
                       if top_mp - e <= tie]
        delta = min(winners)
        i = cand_d.tolist().index(delta)
        f = float(cand_v[i])
        dist, dist_bound = _distance(self.n, f, eps)
        return Extreme(delta=delta, f=f, f_mp=exact[i], bound=eps, distance=dist,
                       distance_bound=dist_bound, distance_mp=self.distance_mp(delta, dps),
                       candidates=total, truncated=truncated, consistent=consistent, dps=dps)

    def first_crossing(self, threshold: float | mpmath.mpf, *, below: bool = True,
                       start: int = 0, stop: int, dps: int = DEFAULT_DPS,
                       max_recheck: int = 256,
                       progress: Callable[[int, int], None] | None = None) -> Crossing | None:
        """The first Δ ∈ [start, stop) with f(Δ) < threshold (``below``) or > threshold.

        A float64 value beyond the threshold by more than its bound settles
        it; values within the bound are recomputed in mpmath (at most
        ``max_recheck``).  ``None`` when no offset in the range crosses.

        >>> c = OffsetKernel([1]).first_crossing(0, stop=10)
        >>> c.delta, c.value_mp > -1, c.previous_mp > 0
        (2, True, True)
        """
        eps = self.scan_bound(stop) + U * (abs(float(threshold)) + self.n)
        thr = float(threshold)
        rechecked = 0
        with mpmath.workdps(dps):
            exact_thr = mpmath.mpf(threshold)
            # an exact tie (cos(π/2) = 0) is not a crossing, whatever the last digit says
            tiny = self.n * mpmath.mpf(10) ** (-(dps - 10))

        def holds(value: mpmath.mpf) -> bool:
            with mpmath.workdps(dps):
                return bool(value < exact_thr - tiny if below else value > exact_thr + tiny)

        for lo, values in self.chunks(start, stop, progress=progress):
            maybe = values < thr + eps if below else values > thr - eps
            # each candidate returns or is rechecked: no more than max_recheck + 1 are looked at
            for i in np.flatnonzero(maybe)[:max_recheck + 1].tolist():
                v = float(values[i])
                sure = v < thr - eps if below else v > thr + eps
                delta = lo + i
                if not sure:
                    if rechecked >= max_recheck:
                        raise InvalidParameter(
                            f"{self.name}: more than {max_recheck} kernel values lie within "
                            f"{eps:.1e} of the threshold {thr}; pass another threshold")
                    rechecked += 1
                    if not holds(self.mp(delta, dps)):
                        continue
                return self._crossing(delta, v, eps, rechecked, dps, start, holds)
        return None

    def _crossing(self, delta: int, value: float, eps: float, rechecked: int, dps: int,
                  start: int, holds: Callable[[mpmath.mpf], bool]) -> Crossing:
        exact = self.mp(delta, dps)
        previous = self.mp(delta - 1, dps) if delta - 1 >= start else None
        consistent = (abs(float(exact) - value) <= eps and holds(exact)
                      and (previous is None or not holds(previous)))
        return Crossing(delta=delta, value=value, value_mp=exact, previous_mp=previous,
                        bound=eps, rechecked=rechecked, consistent=consistent, dps=dps)

    def first_increase(self, *, start: int = 0, stop: int, dps: int = DEFAULT_DPS,
                       max_recheck: int = 256,
                       progress: Callable[[int, int], None] | None = None) -> Crossing | None:
        """The first Δ ∈ [start, stop−1) with f(Δ+1) > f(Δ): where f stops decreasing.

        ``value`` is the float64 difference f(Δ+1) − f(Δ); ``value_mp`` and
        ``previous_mp`` are the exact differences at Δ and Δ − 1.

        >>> OffsetKernel([1]).first_increase(stop=10).delta
        3
        """
        eps = 2 * self.scan_bound(stop) + 4 * U * self.n
        with mpmath.workdps(dps):
            tiny = 2 * self.n * mpmath.mpf(10) ** (-(dps - 10))   # exact ties do not rise
        prev_last: float | None = None
        rechecked = 0
        for lo, values in self.chunks(start, stop, progress=progress):
            ext = values if prev_last is None else np.concatenate([[prev_last], values])
            first = lo if prev_last is None else lo - 1
            prev_last = float(values[-1]) if values.size else prev_last
            diff = np.diff(ext)
            for i in np.flatnonzero(diff > -eps)[:max_recheck + 1].tolist():
                delta = first + i
                if diff[i] <= eps:
                    if rechecked >= max_recheck:
                        raise InvalidParameter(
                            f"{self.name}: more than {max_recheck} kernel steps lie within "
                            f"{eps:.1e} of 0; the kernel is too flat to locate its first rise")
                    rechecked += 1
                    if not self._diff_mp(delta, dps) > tiny:
                        continue
                exact = self._diff_mp(delta, dps)
                previous = self._diff_mp(delta - 1, dps) if delta - 1 >= start else None
                consistent = (abs(float(exact) - float(diff[i])) <= eps and exact > tiny
                              and (previous is None or not previous > tiny))
                return Crossing(delta=delta, value=float(diff[i]), value_mp=exact,
                                previous_mp=previous, bound=eps, rechecked=rechecked,
                                consistent=consistent, dps=dps)
        return None

    def _diff_mp(self, delta: int, dps: int) -> mpmath.mpf:
        a, b = self.mp(delta + 1, dps), self.mp(delta, dps)
        with mpmath.workdps(dps + 5):
            return a - b


def _distance(n: int, f: float, eps: float) -> tuple[float, float]:
    """√(2(n − f)) from a float64 f within eps, and a bound on its error."""
    sq = 2.0 * (n - f)
    err = 2 * eps + 4 * U * (n + abs(f))
    dist = math.sqrt(max(sq, 0.0))
    lo, hi = math.sqrt(max(sq - err, 0.0)), math.sqrt(max(sq + err, 0.0))
    return dist, max(hi - dist, dist - lo) * (1 + 1e-9)


# --------------------------------------------------------------------------- Gram / Toeplitz
def toeplitz_deviation(table: Any) -> float:
    """max |G[i, j] − G[i+1, j+1]| of the Gram matrix G = table·tableᵀ.

    ``table`` has shape ``(n_positions, dim)`` and any float dtype; the Gram
    matrix is formed in float64.  Zero exactly when G depends on i − j only.

    >>> toeplitz_deviation(np.eye(3))
    0.0
    """
    t = _as_table(table)
    gram = t @ t.T
    if gram.shape[0] < 2:
        return 0.0
    return float(np.abs(gram[1:, 1:] - gram[:-1, :-1]).max())


def gram_is_toeplitz(table: Any, tol: float | None = None) -> bool:
    """Whether the Gram matrix of ``table`` (shape ``(n_positions, dim)``) is Toeplitz.

    True when :func:`toeplitz_deviation` ≤ ``tol``.  The default tolerance
    scales with the table's dtype and size:
    ``R·(4·eps_dtype + 4·(dim + n_positions)·u)`` with R the largest squared
    row norm — rounding of the entries, of the float64 dot products, and of
    angles x·ω for positions up to about n_positions.  Tables at large
    positions (angles ≫ n_positions) need an explicit ``tol`` of about
    ``4·dim·u·max|x·ω|``.

    >>> from posproof import preset
    >>> gram_is_toeplitz(preset("vaswani", dim=16).table(64))
    True
    >>> gram_is_toeplitz(preset("sine-only", dim=16).table(64))
    False
    """
    t = _as_table(table)
    if tol is None:
        eps = _eps_of(np.asarray(table).dtype)
        rows = float((t * t).sum(axis=1).max()) if t.size else 0.0
        tol = rows * (4 * eps + 4 * (t.shape[1] + t.shape[0]) * U)
    else:
        tol = float(tol)
        if not (math.isfinite(tol) and tol >= 0):
            raise InvalidParameter(f"tol={tol!r} is not a finite number ≥ 0")
    return toeplitz_deviation(t) <= tol


def _as_table(table: Any) -> np.ndarray:
    try:
        raw = np.asarray(table)
        if raw.dtype.kind == "c":
            raise TypeError("complex")
        t = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise InvalidParameter(
            f"table of type {type(table).__name__} is not numeric or is complex; pass a real "
            "array of shape (n_positions, dim)") from None
    if t.ndim != 2:
        raise InvalidParameter(
            f"table has shape {t.shape}; pass a 2-d array of shape (n_positions, dim)")
    if not np.all(np.isfinite(t)):
        raise InvalidParameter("table holds NaN or infinite values; pass a finite table")
    return t


def _eps_of(dtype: np.dtype) -> float:
    """Machine epsilon of a float dtype (bfloat16 too); u for integers (cast exactly)."""
    if dtype.kind == "f":
        return float(np.finfo(dtype).eps)
    if dtype.name == "bfloat16":
        import ml_dtypes

        return float(ml_dtypes.finfo(dtype).eps)
    return U


# --------------------------------------------------------------------------- dtypes
_ALIASES = {"fp16": "float16", "half": "float16", "bf16": "bfloat16", "fp32": "float32",
            "single": "float32", "fp64": "float64", "double": "float64"}


def _round_bfloat16_bits(values: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 (nearest, ties to even) on their bit patterns."""
    f32 = np.asarray(values, dtype=np.float32)
    bits = f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f32), f32, out)


@dataclass(frozen=True)
class DtypeModel:
    """How a floating dtype rounds: ``round`` and ``multiply`` return float64 arrays.

    ``implementation`` says where the rounding comes from: ``numpy``,
    ``ml_dtypes``, or ``emulated`` (bfloat16 without ml_dtypes: float32 bit
    patterns rounded to nearest even, as ml_dtypes and PyTorch convert).
    """

    name: str
    implementation: str
    dtype: np.dtype | None

    def round(self, values: Any) -> np.ndarray:
        """Values rounded to the dtype, returned as float64 (exactly); same shape.

        >>> dtype_model("float16").round([2049.0, 1e5]).tolist()
        [2048.0, inf]
        """
        a = np.asarray(values, dtype=np.float64)
        if self.dtype is None:
            with np.errstate(over="ignore"):
                return _round_bfloat16_bits(a.astype(np.float32)).astype(np.float64)
        with np.errstate(over="ignore"):
            return a.astype(self.dtype).astype(np.float64)

    def multiply(self, a: Any, b: Any) -> np.ndarray:
        """The product of the rounded operands, rounded in the dtype (float64 result).

        >>> dtype_model("bfloat16", emulate_bfloat16=True).multiply([3.0], [1 / 3]).tolist()
        [1.0]
        """
        ra, rb = self.round(a), self.round(b)
        if self.dtype is None:
            with np.errstate(over="ignore"):
                prod = ra.astype(np.float32) * rb.astype(np.float32)  # exact for 8-bit significands
            return _round_bfloat16_bits(prod).astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            return (ra.astype(self.dtype) * rb.astype(self.dtype)).astype(np.float64)


def dtype_model(dtype: Any, *, emulate_bfloat16: bool = False) -> DtypeModel:
    """The :class:`DtypeModel` for a dtype name (``float32``, ``float16``, ``bfloat16``…).

    >>> dtype_model("bf16").round([257.0]).tolist()
    [256.0]
    >>> dtype_model("bfloat16", emulate_bfloat16=True).implementation
    'emulated'
    >>> dtype_model("float8")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: dtype='float8' is not known; use float16, bfloat16, ...
    """
    name = _ALIASES.get(str(dtype).lower(), str(dtype))
    if name == "bfloat16":
        if not emulate_bfloat16:
            try:
                import ml_dtypes
            except ImportError:
                pass
            else:
                return DtypeModel("bfloat16", "ml_dtypes", np.dtype(ml_dtypes.bfloat16))
        return DtypeModel("bfloat16", "emulated", None)
    resolved = resolve_dtype(name)
    return DtypeModel(resolved.name, "numpy", resolved)


def round_to_dtype(values: Any, dtype: Any) -> np.ndarray:
    """``values`` rounded to ``dtype`` and returned as float64, same shape.

    >>> round_to_dtype([2049.0, 0.1], "float16").tolist()
    [2048.0, 0.0999755859375]
    """
    return dtype_model(dtype).round(values)


def first_unrepresentable_integer(dtype: Any) -> int:
    """The smallest positive integer the dtype cannot hold, found by rounding.

    A binary format with p significant bits holds every integer up to 2^p, and
    2^p + 1 is the first it cannot: this tries 2^p + 1 for p = 1, 2, … and
    returns the first that does not survive a round trip.

    >>> [first_unrepresentable_integer(t) for t in ("float16", "bfloat16", "float32")]
    [2049, 257, 16777217]
    """
    model = dtype_model(dtype)
    if model.dtype is not None and model.dtype.itemsize > 8:     # long double: no float64 probe
        return 2 ** (np.finfo(model.dtype).nmant + 1) + 1
    for p in range(1, 54):
        m = 2**p + 1
        if float(m) != m or int(model.round([float(m)])[0]) != m:
            return m
    raise AssertionError("unreachable: float64 cannot hold 2**53 + 1")  # pragma: no cover


def angles_in_dtype(positions: Any, frequencies: Any, dtype: Any) -> np.ndarray:
    """x·ω formed in ``dtype``: x and ω rounded to it, the product rounded in it.

    This is what ``torch.outer(arange(L, dtype=dtype), inv_freq.to(dtype))``
    computes.  Shape ``(len(positions), len(frequencies))``, as float64
    (``inf`` where the dtype overflows).

    >>> angles_in_dtype([1044.27], [1.0], "float16").tolist()
    [[1044.0]]
    """
    pos = np.asarray(positions, dtype=np.float64).reshape(-1)
    freq = np.asarray(frequencies, dtype=np.float64).reshape(-1)
    return dtype_model(dtype).multiply(pos[:, None], freq[None, :])


def check_max_len(max_len: Any) -> int:
    """Validate a scan length L (1 ≤ L ≤ MAX_LEN).

    >>> check_max_len(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: max_len=0 is too small; it must be >= 1 (the number of ...)
    """
    try:
        return check_int("max_len", max_len, minimum=1, maximum=MAX_LEN)
    except InvalidParameter as exc:
        text = str(exc)
        if "too large" in text:
            text += (" (scans stream in chunks, so memory is not the limit, but time is: "
                     "about L·n/5e9 seconds; pass a smaller max_len)")
        elif "too small" in text:
            text += " (the number of positions to scan, such as 100000)"
        raise InvalidParameter(text) from None


def check_scan(encoding: Encoding, max_len: Any) -> int:
    """Validate a scan length L for ``encoding``: 1 ≤ L ≤ MAX_LEN and L·d ≤ MAX_SCAN_WORK.

    >>> check_scan(Encoding(Geometric(10000), "interleaved", 64), 10**9)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: max_len=1000000000 at dim=64 is too large: ... 536870912 ...
    """
    return check_scan_work("max_len", check_max_len(max_len), encoding.dim)


def check_scan_work(name: str, length: int, dim: int, limit: int = MAX_SCAN_WORK) -> int:
    """``length`` when ``length·dim`` ≤ ``limit``; otherwise InvalidParameter naming
    ``name`` and the longest length accepted at this ``dim``."""
    if length * dim > limit:
        raise InvalidParameter(
            f"{name}={length} at dim={dim} is too large: L·d must be at most "
            f"{limit} (the scan limit, about a minute on two cores), so {name} <= "
            f"{limit // dim} at this dim")
    return length
