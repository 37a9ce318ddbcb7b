"""Hypothesis strategies for encodings, positions and broken variants of both.

Use them from your own property tests (``hypothesis`` is a test dependency, so
this module is never imported by ``import posproof``)::

    from hypothesis import given
    from posproof import prove
    from posproof.testing.strategies import encodings

    @given(encodings(max_dim=16))
    def test_translation(enc):
        assert prove(enc, theorems=["translation[row]"]).ok

Every strategy draws *small parameters* (a preset name, a dim, a base, a
layout) and builds the :class:`~posproof.Encoding` from them, so shrinking
ends on a readable example such as ``preset("vaswani", dim=1, odd_dim="pad")``.
The edge cases that real bug reports are about are always reachable, and are
drawn more often than uniformly: d ∈ {1, 2, 3} (odd dims come with
``odd_dim="pad"``), position 0, negative positions, and positions as large as
10**7, where angles built in low precision go wrong.

>>> from posproof.testing.strategies import dims, encodings, positions
>>> strategy = encodings(max_dim=8)   # building a strategy draws nothing
>>> EDGE_DIMS
(1, 2, 3)
>>> MAX_POSITION
10000000
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp
from hypothesis import strategies as st

from ..model.encoding import Encoding
from ..model.layouts import LAYOUTS
from ..model.presets import preset

__all__ = [
    "EDGE_DIMS",
    "EXPRESSIONS",
    "MAX_POSITION",
    "PRESET_NAMES",
    "bases",
    "dims",
    "encodings",
    "explicit_frequencies",
    "layouts",
    "numerators",
    "perturbed_encodings",
    "positions",
    "preset_specs",
    "presets",
]

#: Dimensions every dims() strategy reaches: the sizes that crash real code.
EDGE_DIMS = (1, 2, 3)

#: Largest |position| drawn by positions().
MAX_POSITION = 10**7

#: Presets that build a sound encoding (every theorem true); the deliberately broken
#: presets ``sine-only`` and ``column-exponent`` are left out.
PRESET_NAMES = ("vaswani", "tensor2tensor", "fairseq", "diffusion", "binary", "explicit",
                "expression")

#: Frequency formulas in k, d, n (= d/2) and b accepted by ``preset("expression")``;
#: each gives a finite positive ω_k for every d >= 1.
EXPRESSIONS = (
    "b**(-2*k/d)",       # the original schedule, typed by hand
    "b^(-k/n)",          # the same, with ^ and n
    "1/(k+1)",           # harmonic: every ratio rational, so the curve is periodic
    "2*pi/2**(k+1)",     # binary dials with numerator 2π
    "exp(-k*log(b)/n)",  # the original schedule written the way PyTorch code does
    "exp(-k)",           # e^(−k): ratios irrational
    "sqrt(2)/(k+2)",     # an irrational common factor: still periodic
)

#: Preset names whose encodings need at least this many columns.
_MIN_DIM = {"fairseq": 4, "explicit": 2}


def dims(min_value: int = 1, max_value: int = 64, *,
         with_policy: bool = False) -> st.SearchStrategy[Any]:
    """Encoded dimensions d in [min_value, max_value], with 1, 2 and 3 drawn often.

    With ``with_policy=True`` draws ``(d, odd_dim)`` pairs: ``"pad"`` for odd d
    (append one zero column), ``"error"`` for even d, ready to pass as
    ``preset(name, dim=d, odd_dim=odd_dim)``.
    """
    if min_value < 1 or max_value < min_value:
        raise ValueError(f"dims(min_value={min_value}, max_value={max_value}): need "
                         "1 <= min_value <= max_value")
    edges = [d for d in EDGE_DIMS if min_value <= d <= max_value]
    plain = st.integers(min_value, max_value)
    strategy = st.one_of(st.sampled_from(edges), plain) if edges else plain
    if with_policy:
        return strategy.map(lambda d: (d, "pad" if d % 2 else "error"))
    return strategy


def bases() -> st.SearchStrategy[Any]:
    """Bases b > 1 of the geometric schedule: integers, exact fractions, and famous values.

    10000 (the original paper), 500000 (Llama 3), 1000000 and small bases such as
    2 and 3/2 are drawn often; floats such as ``1e4`` appear too (read exactly).
    """
    famous = st.sampled_from([10000, 500000, 1000000, 10, 2, 1e4, 2.5, Fraction(3, 2)])
    integers = st.integers(2, 10**6)
    fractions = st.fractions(min_value=Fraction(11, 10), max_value=10**4,
                             max_denominator=64).filter(lambda f: f > 1)
    return st.one_of(famous, integers, fractions)


def numerators() -> st.SearchStrategy[Any]:
    """Numerators c of binary dials ω_j = c/2^j: π (default), 2π, or a positive rational."""
    return st.one_of(st.sampled_from([sp.pi, 2 * sp.pi, "2*pi", 1]),
                     st.fractions(min_value=Fraction(1, 8), max_value=8, max_denominator=16)
                     .filter(lambda f: f > 0))


def layouts() -> st.SearchStrategy[str]:
    """One of the four canonical layout names (see :data:`posproof.LAYOUTS`)."""
    return st.sampled_from(list(LAYOUTS))


def positions(max_abs: int = MAX_POSITION) -> st.SearchStrategy[int]:
    """Integer positions in [−max_abs, max_abs]: 0, ±1 and ±max_abs drawn often."""
    edges = st.sampled_from([0, 1, -1, 2, max_abs, -max_abs, 2**24 + 1 if max_abs > 2**24
                             else max_abs])
    return st.one_of(edges, st.integers(-max_abs, max_abs))


def explicit_frequencies(n: int, *, unique: bool = False) -> st.SearchStrategy[list[Fraction]]:
    """A list of n positive rational frequencies (exact ``Fraction`` values).

    Repeated values are allowed (two pairs may share a frequency) unless ``unique``.
    """
    value = st.fractions(min_value=Fraction(1, 1000), max_value=50,
                         max_denominator=1000).filter(lambda f: f > 0)
    return st.lists(value, min_size=n, max_size=n, unique=unique)


def presets() -> st.SearchStrategy[str]:
    """Names of the presets that build sound encodings (:data:`PRESET_NAMES`)."""
    return st.sampled_from(PRESET_NAMES)


@st.composite
def preset_specs(draw: st.DrawFn, max_dim: int = 64,
                 names: tuple[str, ...] = PRESET_NAMES) -> tuple[str, dict[str, Any]]:
    """``(name, params)`` with ``preset(name, **params)`` a valid, sound encoding.

    ``params`` always holds ``dim``; odd dims come with ``odd_dim="pad"``.
    """
    name = draw(st.sampled_from(names))
    low = _MIN_DIM.get(name, 1)
    if max_dim < low:
        name, low = "vaswani", 1
    dim, policy = draw(dims(low, max(low, max_dim), with_policy=True))
    params: dict[str, Any] = {"dim": dim}
    if policy == "pad":
        params["odd_dim"] = "pad"
    if name == "vaswani":
        params["base"] = draw(bases())
        params["layout"] = draw(layouts())
    elif name == "tensor2tensor":
        lo = draw(st.sampled_from([1, 2, Fraction(1, 2)]))
        params["min_timescale"] = lo
        params["max_timescale"] = lo * draw(st.sampled_from([10000, 100, 3]))
        params["layout"] = draw(st.sampled_from(["split", *LAYOUTS]))
    elif name == "fairseq":
        params["padding_idx"] = draw(st.integers(0, 3))
    elif name == "diffusion":
        params["max_period"] = draw(st.one_of(st.just(10000), bases()))
    elif name == "binary":
        params["numerator"] = draw(numerators())
        params["layout"] = draw(layouts())
    elif name == "explicit":
        params["frequencies"] = draw(explicit_frequencies(dim // 2))
        params["layout"] = draw(layouts())
    elif name == "expression":
        params["expression"] = draw(st.sampled_from(EXPRESSIONS))
        params["base"] = draw(st.one_of(st.just(10000), st.integers(2, 10**5)))
        params["layout"] = draw(layouts())
    if name in ("vaswani", "binary", "explicit", "expression"):
        params["offset"] = draw(st.sampled_from([0, 0, 1, 2, -3, 10**6]))
    return name, params


@st.composite
def encodings(draw: st.DrawFn, max_dim: int = 64,
              names: tuple[str, ...] = PRESET_NAMES) -> Encoding:
    """Valid encodings built from the presets in ``names``, with dim <= max_dim.

    Every theorem posproof states is true of these encodings (they are built
    from a schedule and a layout), so ``prove(enc)`` must never refute one.
    """
    name, params = draw(preset_specs(max_dim, names))
    return preset(name, **params)


@st.composite
def perturbed_encodings(draw: st.DrawFn, max_dim: int = 16) -> tuple[Encoding, int]:
    """``(enc, column)``: a sound encoding with one column's frequency scaled by r ≠ 1.

    The encoding is rebuilt with :meth:`Encoding.from_columns` (same layout),
    so its pair containing ``column`` has mismatched frequencies: no rotation
    T(Δ) exists, and the translation, dot-product and norm theorems are false
    (the frequencies of the source encoding are distinct, so no other column
    supplies the missing partner).
    """
    name, params = draw(preset_specs(max_dim, ("vaswani", "binary", "explicit")))
    params["dim"] = max(params["dim"], 2)
    if name == "explicit":  # distinct frequencies: no other pair can stand in for the broken one
        params["frequencies"] = draw(explicit_frequencies(params["dim"] // 2, unique=True))
    base = preset(name, **params)
    live = [j for j, f in enumerate(base.column_funcs) if f != "zero"]
    column = draw(st.sampled_from(live))
    factor = draw(st.fractions(min_value=Fraction(1, 4), max_value=4, max_denominator=12)
                  .filter(lambda f: f != 1 and f > 0))
    columns = []
    for j, func in enumerate(base.column_funcs):
        freq = base.column_frequency(j)
        if j == column:
            freq = sp.Rational(factor.numerator, factor.denominator) * freq
        columns.append((func, 1 if freq is None else freq))
    enc = Encoding.from_columns(columns, layout=base.layout, name=f"perturbed-{name}")
    return enc, column


# --------------------------------------------------------------------------- rotary q / k
# (appended for posproof.testing: query/key vectors of the right float width)

#: Hypothesis float widths of the NumPy dtypes rotary vectors come in.
_WIDTHS = {"float16": 16, "float32": 32, "float64": 64}


def rotary_vectors(head_dim: int, *, shape: tuple[int, ...] = (), dtype: str = "float32",
                   max_abs: float = 8.0) -> st.SearchStrategy[Any]:
    """Arrays of shape ``(*shape, head_dim)`` for query or key vectors of a rotary embedding.

    Elements are drawn at the float width of ``dtype`` (``width=32`` for
    float32, so every value is exactly representable in the array), never NaN
    or infinite, with ``|value| <= max_abs``.

    >>> strategy = rotary_vectors(64, shape=(4,), dtype="float32")   # draws nothing yet
    >>> rotary_vectors(8, dtype="bfloat16")
    Traceback (most recent call last):
    ...
    ValueError: rotary_vectors(dtype='bfloat16'): use float16, float32 or float64
    """
    import numpy as np
    from hypothesis.extra import numpy as hnp

    if dtype not in _WIDTHS:
        raise ValueError(f"rotary_vectors(dtype={dtype!r}): use float16, float32 or float64")
    if head_dim < 1 or not max_abs > 0:
        raise ValueError(f"rotary_vectors(head_dim={head_dim}, max_abs={max_abs}): need "
                         "head_dim >= 1 and max_abs > 0")
    elements = st.floats(-max_abs, max_abs, width=_WIDTHS[dtype], allow_nan=False,
                         allow_infinity=False, allow_subnormal=False)
    return hnp.arrays(np.dtype(dtype), (*shape, head_dim), elements=elements)


def query_key_pairs(head_dim: int, *, dtype: str = "float32",
                    max_abs: float = 8.0) -> st.SearchStrategy[tuple[Any, Any]]:
    """``(q, k)``: two vectors of shape ``(head_dim,)`` from :func:`rotary_vectors`.

    >>> strategy = query_key_pairs(16, dtype="float64")
    """
    vec = rotary_vectors(head_dim, dtype=dtype, max_abs=max_abs)
    return st.tuples(vec, vec)


__all__ += ["query_key_pairs", "rotary_vectors"]
