"""Where each (sin, cos) pair sits, and the permutations between layouts.

Pair k (frequency ω_k) puts sin(ω_k x) in one column and cos(ω_k x) in another:

================  ====================  =====================================
name              columns of pair k     used by
================  ====================  =====================================
``interleaved``   sin 2k,  cos 2k+1     original paper, PyTorch tutorial
``interleaved-cos`` cos 2k, sin 2k+1    some derivations of the translation
``split``         sin k,   cos n+k      tensor2tensor, fairseq
``split-cos``     cos k,   sin n+k      diffusion timestep embeddings
================  ====================  =====================================

An odd d puts one zero column last (``odd_dim="pad"``).

>>> LAYOUTS["split"].columns(3)
([0, 1, 2], [3, 4, 5])
>>> permutation("interleaved", "split", 4)
[0, 2, 4, 6, 1, 3, 5, 7]
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..errors import UnknownName

__all__ = ["ALIASES", "LAYOUTS", "Layout", "get_layout", "permutation"]


@dataclass(frozen=True)
class Layout:
    """Column of sin and cos for pair k as affine maps ``a*k + b0 + b1*n``."""

    name: str
    sin_at: tuple[int, int, int]  # (a, b0, b1): column = a*k + b0 + b1*n
    cos_at: tuple[int, int, int]
    description: str

    def sin_column(self, k: int | sp.Expr, n: int | sp.Expr) -> int | sp.Expr:
        a, b0, b1 = self.sin_at
        return a * k + b0 + b1 * n

    def cos_column(self, k: int | sp.Expr, n: int | sp.Expr) -> int | sp.Expr:
        a, b0, b1 = self.cos_at
        return a * k + b0 + b1 * n

    def columns(self, n: int) -> tuple[list[int], list[int]]:
        """``(sin_columns, cos_columns)``, each of length n."""
        return ([int(self.sin_column(k, n)) for k in range(n)],
                [int(self.cos_column(k, n)) for k in range(n)])

    @property
    def cos_first(self) -> bool:
        return self.cos_at[1:] < self.sin_at[1:]


LAYOUTS: dict[str, Layout] = {
    layout.name: layout
    for layout in (
        Layout("interleaved", (2, 0, 0), (2, 1, 0), "sin,cos,sin,cos,… (original paper)"),
        Layout("interleaved-cos", (2, 1, 0), (2, 0, 0), "cos,sin,cos,sin,…"),
        Layout("split", (1, 0, 0), (1, 0, 1), "[sin… | cos…] (tensor2tensor, fairseq)"),
        Layout("split-cos", (1, 0, 1), (1, 0, 0), "[cos… | sin…] (diffusion timesteps)"),
    )
}

ALIASES = {
    "sincos": "interleaved", "sin,cos": "interleaved", "adjacent": "interleaved",
    "cossin": "interleaved-cos", "cos,sin": "interleaved-cos",
    "halves": "split", "sin|cos": "split", "concat": "split", "half": "split",
    "cos|sin": "split-cos", "halves-cos": "split-cos",
}


def get_layout(name: str | Layout) -> Layout:
    """Look a layout up by name or alias.

    >>> get_layout("sin|cos").name
    'split'
    >>> get_layout("diagonal")
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: layout='diagonal' is not known; use one of interleaved, interleaved-cos, split, split-cos
    """  # noqa: E501
    if isinstance(name, Layout):
        return name
    key = ALIASES.get(str(name).lower(), str(name).lower())
    try:
        return LAYOUTS[key]
    except KeyError:
        raise UnknownName(
            f"layout={name!r} is not known; use one of {', '.join(LAYOUTS)}") from None


def permutation(source: str | Layout, target: str | Layout, n: int,
                pad: bool = False) -> list[int]:
    """Column map ``perm`` with ``PE_target[:, j] == PE_source[:, perm[j]]``.

    The permutation matrix P with ``PE_target = PE_source · P`` has
    ``P[perm[j], j] = 1``.
    """
    src, dst = get_layout(source), get_layout(target)
    d = 2 * n + int(pad)
    perm = [0] * d
    for k in range(n):
        perm[int(dst.sin_column(k, n))] = int(src.sin_column(k, n))
        perm[int(dst.cos_column(k, n))] = int(src.cos_column(k, n))
    if pad:
        perm[d - 1] = d - 1
    return perm


def partition_lemma(layout: Layout) -> tuple[bool, str]:
    """Decide, for every n at once, whether the layout's columns partition range(2n).

    Both maps are affine in k; with equal slopes a ∈ {1, 2} this is exact:
    slope 2 needs offsets {0, 1} (evens and odds), slope 1 needs {0, n}
    (two halves).
    """
    (a, s0, s1), (c, c0, c1) = layout.sin_at, layout.cos_at
    if a == c == 2 and s1 == c1 == 0 and {s0, c0} == {0, 1}:
        return True, (f"sin at {a}k+{s0}, cos at {c}k+{c0}: the evens and the odds of "
                      "0 … 2n−1, each hit once for k = 0 … n−1")
    if a == c == 1 and {(s0, s1), (c0, c1)} == {(0, 0), (0, 1)}:
        return True, ("one member at k, the other at n+k: the halves 0 … n−1 and "
                      "n … 2n−1, each hit once for k = 0 … n−1")
    return False, f"layout {layout.name!r} is not of a recognised affine form"
