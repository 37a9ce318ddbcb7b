"""Named encodings as published, with their parameters explicit.

>>> preset("vaswani", dim=8)
Encoding(vaswani, dim=8, layout=interleaved, base=10000, offset=0)
>>> preset("fairseq", dim=8).offset
2
>>> sorted(PRESETS)  # doctest: +NORMALIZE_WHITESPACE
['binary', 'column-exponent', 'diffusion', 'explicit', 'expression', 'fairseq',
 'sine-only', 'tensor2tensor', 'vaswani']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import sympy as sp

from ..errors import InvalidParameter, UnknownName, check_dim, check_int
from .encoding import Encoding
from .schedules import (
    BinaryDials,
    Diffusion,
    Explicit,
    Expression,
    Geometric,
    TensorToTensor,
    exact_number,
)

__all__ = ["PRESETS", "parameters", "preset"]


def _vaswani(dim: int, base: Any = 10000, layout: str = "interleaved", **kw: Any) -> Encoding:
    return Encoding(Geometric(base), layout, dim, **kw)


def _t2t(dim: int, min_timescale: Any = 1, max_timescale: Any = 10000, start_index: int = 0,
         layout: str = "split", odd_dim: str = "pad", offset: int | None = None,
         **kw: Any) -> Encoding:
    schedule = TensorToTensor(min_timescale, max_timescale)
    first = start_index if offset is None else offset
    if offset is not None and start_index not in (0, offset):
        raise InvalidParameter(f"start_index={start_index} and offset={offset} disagree; "
                               "pass one of them (start_index is tensor2tensor's name)")
    return Encoding(schedule, layout, dim, offset=first, odd_dim=odd_dim, **kw)


def _fairseq(dim: int, padding_idx: int = 1, layout: str = "split", odd_dim: str = "pad",
             offset: int | None = None, **kw: Any) -> Encoding:
    """fairseq: real positions start at padding_idx + 1 (``offset`` overrides that)."""
    schedule = TensorToTensor(1, 10000, strict=True)
    padding_idx = check_int("padding_idx", padding_idx, minimum=0)
    first = padding_idx + 1 if offset is None else offset
    return Encoding(schedule, layout, dim, offset=first, padding_idx=padding_idx,
                    odd_dim=odd_dim, **kw)


def _diffusion(dim: int, max_period: Any = 10000, layout: str = "split-cos",
               odd_dim: str = "pad", **kw: Any) -> Encoding:
    return Encoding(Diffusion(max_period), layout, dim, odd_dim=odd_dim, **kw)


def _binary(dim: int, numerator: Any = sp.pi, layout: str = "interleaved", **kw: Any) -> Encoding:
    return Encoding(BinaryDials(numerator), layout, dim, **kw)


def _explicit(dim: int, frequencies: Any = (), layout: str = "interleaved",
              **kw: Any) -> Encoding:
    if not isinstance(frequencies, (str, bytes, Mapping)) and isinstance(frequencies, Iterable):
        frequencies = tuple(frequencies)   # anything else: Explicit says why it is refused
    return Encoding(Explicit(frequencies), layout, dim, **kw)


def _expression(dim: int, expression: str = "", base: Any = 10000,
                layout: str = "interleaved", **kw: Any) -> Encoding:
    if not expression:
        raise InvalidParameter("preset 'expression' needs expression='...', e.g. 'b**(-2*k/d)'")
    return Encoding(Expression(expression, base), layout, dim, **kw)


def _sine_only(dim: int, base: Any = 10000) -> Encoding:
    """Every column a sine, PE(x, j) = sin(x·b^(−j/d)): the first failed guess."""
    d = check_dim(dim, odd_dim="pad")
    b = exact_number("base", base)
    cols = [("sin", sp.Pow(b, sp.Rational(-j, d), evaluate=False) if j else 1) for j in range(d)]
    return Encoding.from_columns(cols, name="sine-only")


def _column_exponent(dim: int, base: Any = 10000) -> Encoding:
    """The classic bug: column j uses b^(−2j/d) instead of b^(−2⌊j/2⌋/d)."""
    d = check_dim(dim)
    b = exact_number("base", base)
    cols = [("sin" if j % 2 == 0 else "cos",
             sp.Pow(b, sp.Rational(-2 * j, d), evaluate=False) if j else 1) for j in range(d)]
    return Encoding.from_columns(cols, name="column-exponent")


PRESETS: dict[str, Callable[..., Encoding]] = {
    "vaswani": _vaswani,
    "tensor2tensor": _t2t,
    "fairseq": _fairseq,
    "diffusion": _diffusion,
    "binary": _binary,
    "explicit": _explicit,
    "expression": _expression,
    "sine-only": _sine_only,
    "column-exponent": _column_exponent,
}

_ALIASES = {"original": "vaswani", "transformer": "vaswani", "pytorch": "vaswani",
            "t2t": "tensor2tensor", "binary-dials": "binary", "timestep": "diffusion"}


def preset(name: str, /, dim: int = 512, **params: Any) -> Encoding:
    """A named encoding; ``params`` are the family's parameters (``base=``, ``layout=``, …).

    >>> preset("tensor2tensor", dim=7).to_dict()["odd_dim"]
    'pad'
    >>> preset("vaswani", dim=8, bse=10)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: preset 'vaswani' does not take bse=10; it takes base, layout, offset, odd_dim, padding_idx, name
    """  # noqa: E501
    key = _ALIASES.get(str(name).lower(), str(name).lower())
    try:
        factory = PRESETS[key]
    except KeyError:
        raise UnknownName(
            f"preset={name!r} is not known; use one of {', '.join(sorted(PRESETS))}") from None
    allowed = parameters(factory)
    for param, value in params.items():
        if param not in allowed:
            raise InvalidParameter(f"preset {key!r} does not take {param}={value!r}; "
                                   f"it takes {', '.join(allowed)}")
    label = params.get("name")
    if label is not None and (not isinstance(label, str) or len(label) > 200):
        raise InvalidParameter(f"name={label!r} is not a short string; pass a label such as "
                               "'my-encoding'")
    enc = factory(dim, **params)
    enc.name = label or key
    return enc


def parameters(factory: Callable[..., Encoding]) -> list[str]:
    import inspect

    names = [p for p in inspect.signature(factory).parameters if p not in ("dim", "kw")]
    if "kw" in inspect.signature(factory).parameters:
        names += [p for p in ("offset", "odd_dim", "padding_idx", "name") if p not in names]
    return names
