"""Rotary embeddings (RoPE): the rotation R(m) and its layouts.

What is proved about them (:func:`~posproof.proofs.rotary.prove_rotary`) is
:mod:`posproof.proofs.rotary`.

q ↦ R(m)·q acts on column vectors of the head dimension h.  The first
``rotary_dim`` = r channels form n = r/2 pairs, each rotated by the 2×2 block

    [ cos mθ_k   −sin mθ_k ]
    [ sin mθ_k    cos mθ_k ]

and the h − r pass-through channels are left alone (R is the identity there).
Where pair k sits is the *layout*:

============  ====================  ============================================
layout        pair k                used by
============  ====================  ============================================
``adjacent``  (2k, 2k+1)            RoFormer, Meta Llama (complex), GPT-J
``half``      (k, k + r/2)          GPT-NeoX, HF ``rotate_half`` (Llama in HF)
============  ====================  ============================================

Relation to :meth:`posproof.Encoding.translation` (exact, checked by the
``encoding_correspondence`` theorem).  With the same schedule and dim r:

* adjacent: R(m) = ``Encoding(s, "interleaved", r).translation(m, convention="row")``
  = ``Encoding(s, "interleaved-cos", r).translation(m, convention="column")``;
* half:     R(m) = ``Encoding(s, "split", r).translation(m, convention="row")``
  = ``Encoding(s, "split-cos", r).translation(m, convention="column")``.

The column forms say what RoPE *is*: R(m) is the column-convention
translation of the cos-first sinusoidal encoding, R(m)·(cos xθ, sin xθ)ᵀ =
(cos (x+m)θ, sin (x+m)θ)ᵀ.  The row forms are the same matrices: the
row-convention T(Δ) of the sin-first layouts equals R(Δ) entry for entry.
The two RoPE layouts differ by the permutation P of
:func:`posproof.model.layouts.permutation` ("interleaved" → "split"):
R_half(m) = Pᵀ·R_adjacent(m)·P, i.e. ``q_half = q_adjacent[perm]``.

>>> rot = Rotary(Geometric(10000), 4, layout="adjacent")
>>> rot.rotation()[:2, :2]
Matrix([
[cos(m), -sin(m)],
[sin(m),  cos(m)]])
>>> rot.pairs
[(0, 1), (2, 3)]
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property, lru_cache
from typing import Any

import numpy as np
import sympy as sp

from ..errors import InvalidEncoding, InvalidParameter, UnknownName, check_int
from ..precise import mp_value
from .encoding import Encoding, as_positions, as_symbolic
from .layouts import permutation
from .scaling import attention_factor, float_frequencies
from .schedules import Geometric, Schedule

__all__ = ["ENCODING_LAYOUT", "ROTARY_LAYOUTS", "M", "Rotary", "get_rotary_layout", "rotary",
           "spelled"]

#: The symbolic position m of R(m).
M = sp.Symbol("m", real=True)

ROTARY_LAYOUTS = ("adjacent", "half")
#: The sinusoidal layout whose row-convention translation T(m) equals R(m).
ENCODING_LAYOUT = {"adjacent": "interleaved", "half": "split"}
_LAYOUT_ALIASES = {
    "adjacent": "adjacent", "interleaved": "adjacent", "pairs": "adjacent", "gptj": "adjacent",
    "gpt-j": "adjacent", "roformer": "adjacent", "meta": "adjacent", "every-two": "adjacent",
    "rotate_every_two": "adjacent", "complex": "adjacent",
    "half": "half", "halves": "half", "split": "half", "neox": "half", "gpt-neox": "half",
    "rotate_half": "half", "rotate-half": "half", "hf": "half",
}


def get_rotary_layout(name: str) -> str:
    """Normalise a RoPE layout name.

    >>> get_rotary_layout("rotate_half"), get_rotary_layout("gptj")
    ('half', 'adjacent')
    >>> get_rotary_layout("diagonal")
    Traceback (most recent call last):
    ...
    posproof.errors.UnknownName: layout='diagonal' is not a RoPE layout; use 'adjacent' (pairs 2k, 2k+1: RoFormer, Meta, GPT-J) or 'half' (pairs k, k+r/2: GPT-NeoX, HF rotate_half)
    """  # noqa: E501
    key = _LAYOUT_ALIASES.get(str(name).lower().replace(" ", ""))
    if key is None:
        raise UnknownName(
            f"layout={name!r} is not a RoPE layout; use 'adjacent' (pairs 2k, 2k+1: RoFormer, "
            "Meta, GPT-J) or 'half' (pairs k, k+r/2: GPT-NeoX, HF rotate_half)")
    return key


@lru_cache(maxsize=256)
def _frequencies(schedule: Schedule, r: int) -> tuple[sp.Expr, ...]:
    return tuple(schedule.frequencies(r))


def _trig(func: Any, freq: sp.Expr, var: sp.Expr, evaluate: bool) -> sp.Expr:
    if evaluate:
        return func(freq * var)
    return func(sp.Mul(freq, var, evaluate=False), evaluate=False)


class Rotary:
    """A rotary embedding: frequencies (a schedule), head dim, rotary dim and layout.

    Parameters
    ----------
    schedule : Schedule
        Frequencies of the rotated pairs, computed for the *rotary* dim r (as HF
        and GPT-NeoX do); :class:`~posproof.model.schedules.Geometric` or a rule of
        :mod:`posproof.model.scaling`.
    head_dim : int
        Channels of one attention head, h.
    rotary_dim : int, optional
        Rotated channels r (even, 2 ≤ r ≤ h); default h.  Channels r … h−1 pass through.
    layout : str
        ``"half"`` (default: HF ``rotate_half``) or ``"adjacent"``.

    Examples
    --------
    >>> Rotary(Geometric(10000), 8, rotary_dim=4).passthrough
    [4, 5, 6, 7]
    >>> Rotary(Geometric(10000), 128, rotary_dim=160)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidEncoding: rotary_dim=160 is larger than head_dim=128; use rotary_dim <= 128 (partial_rotary_factor <= 1)
    """  # noqa: E501

    def __init__(self, schedule: Schedule | None = None, head_dim: int = 128, *,
                 rotary_dim: int | None = None, layout: str = "half",
                 name: str | None = None) -> None:
        schedule = Geometric(10000) if schedule is None else schedule
        if not isinstance(schedule, Schedule):
            raise InvalidParameter(f"schedule={schedule!r} is not a Schedule; build one with "
                                   "posproof.model.scaling.make_scaling or posproof.Geometric")
        self.schedule = schedule
        self.head_dim = check_int("head_dim", head_dim, minimum=2, maximum=1 << 16)
        r = self.head_dim if rotary_dim is None else check_int("rotary_dim", rotary_dim)
        if r > self.head_dim:
            raise InvalidEncoding(
                f"rotary_dim={r} is larger than head_dim={self.head_dim}; use rotary_dim <= "
                f"{self.head_dim} (partial_rotary_factor <= 1)")
        if r < 2 or r % 2:
            raise InvalidEncoding(
                f"rotary_dim={r} must be an even number >= 2 (RoPE rotates pairs of channels); "
                "round it to an even number")
        self.rotary_dim = r
        self.layout = get_rotary_layout(layout)
        self.frequencies: tuple[sp.Expr, ...] = _frequencies(schedule, r)
        self.attention_factor: sp.Expr = attention_factor(schedule)
        rule = getattr(schedule, "rope_type", schedule.family)
        self.name = name or ("rope" if rule in ("geometric", "default") else f"rope-{rule}")

    # ------------------------------------------------------------------ structure
    @property
    def n_pairs(self) -> int:
        return self.rotary_dim // 2

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Channels (i, j) of each pair: (2k, 2k+1) adjacent, (k, k+r/2) half."""
        n = self.n_pairs
        if self.layout == "adjacent":
            return [(2 * k, 2 * k + 1) for k in range(n)]
        return [(k, k + n) for k in range(n)]

    @property
    def passthrough(self) -> list[int]:
        """Channels that are not rotated: rotary_dim … head_dim−1."""
        return list(range(self.rotary_dim, self.head_dim))

    @cached_property
    def frequencies_float(self) -> np.ndarray:
        """Float64 frequencies (exact values rounded from mpmath), shape ``(rotary_dim//2,)``."""
        return float_frequencies(self.schedule, self.rotary_dim)

    @property
    def attention_factor_float(self) -> float:
        return float(mp_value(self.attention_factor, 30))

    def with_layout(self, layout: str) -> Rotary:
        """The same frequencies and dims in another layout.

        >>> Rotary(Geometric(10000), 4).with_layout("adjacent").pairs
        [(0, 1), (2, 3)]
        """
        return Rotary(self.schedule, self.head_dim, rotary_dim=self.rotary_dim, layout=layout,
                      name=self.name)

    def with_schedule(self, schedule: Schedule, name: str | None = None) -> Rotary:
        """The same dims and layout with other frequencies.

        >>> Rotary(Geometric(10000), 4).with_schedule(Geometric(100)).frequencies
        (1, 1/10)
        """
        return Rotary(schedule, self.head_dim, rotary_dim=self.rotary_dim, layout=self.layout,
                      name=name or self.name)

    def encoding(self) -> Encoding:
        """The sinusoidal Encoding whose row-convention T(m) is R(m) on the rotated channels.

        >>> rot = Rotary(Geometric(10000), 4, layout="half")
        >>> from posproof.model.encoding import DELTA
        >>> rot.encoding().translation(convention="row") == rot.rotation(DELTA)
        True
        """
        return Encoding(self.schedule, ENCODING_LAYOUT[self.layout], self.rotary_dim,
                        name=self.name)

    def permutation(self) -> list[int]:
        """``perm`` with q_half = q_adjacent[perm] (identity on pass-through channels).

        >>> Rotary(Geometric(10000), 6, rotary_dim=4).permutation()
        [0, 2, 1, 3, 4, 5]
        """
        return permutation("interleaved", "split", self.n_pairs) + self.passthrough

    # ------------------------------------------------------------------ exact objects
    def rotation_entries(self, m: Any = M) -> dict[tuple[int, int], sp.Expr]:
        """Non-zero entries ``{(i, j): expr}`` of R(m) (column vectors); see :meth:`rotation`.

        >>> sorted(Rotary(Geometric(10000), 4, rotary_dim=2).rotation_entries(1).items())
        [((0, 0), cos(1)), ((0, 1), -sin(1)), ((1, 0), sin(1)), ((1, 1), cos(1)), ((2, 2), 1), ((3, 3), 1)]
        """  # noqa: E501
        m = as_symbolic("m", m)
        return self.rotation_entries_at([m] * self.n_pairs)

    def rotation_entries_at(self, positions: list[sp.Expr]) -> dict[tuple[int, int], sp.Expr]:
        """Non-zero entries of the rotation whose pair k turns by ``positions[k]·θ_k``.

        One position per pair: R(m) is ``[m] * n_pairs``; a multi-axis rotary
        (:mod:`posproof.model.multirope`) gives each pair its own axis' position.

        >>> sorted(Rotary(Geometric(100), 4).rotation_entries_at([0, 1]).items())[:2]
        [((0, 0), 1), ((0, 2), 0)]
        """
        out: dict[tuple[int, int], sp.Expr] = {}
        if len(positions) != self.n_pairs:
            raise InvalidParameter(f"{len(positions)} positions were given for {self.n_pairs} "
                                   "pairs; pass one position per pair")
        for (i, j), w, raw in zip(self.pairs, self.frequencies, positions, strict=True):
            m = as_symbolic("m", raw)
            evaluate = self.n_pairs <= 16 or m.is_number
            cos, sin = _trig(sp.cos, w, m, evaluate), _trig(sp.sin, w, m, evaluate)
            out[(i, i)], out[(i, j)], out[(j, i)], out[(j, j)] = cos, -sin, sin, cos
        for c in self.passthrough:
            out[(c, c)] = sp.Integer(1)
        return out

    def rotation_entry(self, m: Any, row: int, col: int) -> sp.Expr:
        """The exact entry ``(row, col)`` of R(m) (column vectors), one pair's only.

        >>> Rotary(Geometric(10000), 4, rotary_dim=2).rotation_entry(3, 1, 0)
        sin(3)
        """
        for (i, j), w in zip(self.pairs, self.frequencies, strict=True):
            if row in (i, j) and col in (i, j):
                return self.rotation_entries_at_pair(m, w, (i, j))[(row, col)]
        return sp.Integer(1 if row == col and row in self.passthrough else 0)

    @staticmethod
    def rotation_entries_at_pair(m: Any, w: sp.Expr, pair: tuple[int, int]
                                 ) -> dict[tuple[int, int], sp.Expr]:
        """The four entries of one pair's rotation by m·w."""
        i, j = pair
        m = as_symbolic("m", m)
        cos, sin = _trig(sp.cos, w, m, True), _trig(sp.sin, w, m, True)
        return {(i, i): cos, (i, j): -sin, (j, i): sin, (j, j): cos}

    def rotation(self, m: Any = M) -> sp.ImmutableSparseMatrix:
        """The exact R(m), shape ``(head_dim, head_dim)``, acting on column vectors.

        >>> Rotary(Geometric(100), 4, layout="half").rotation(0) == sp.eye(4)
        True
        """
        return sp.ImmutableSparseMatrix(self.head_dim, self.head_dim, self.rotation_entries(m))

    # ------------------------------------------------------------------ numbers
    def angles(self, positions: Iterable[float] | np.ndarray,
               dtype: Any = np.float64) -> np.ndarray:
        """m·θ_k formed in ``dtype`` (positions and θ rounded to it first); shape ``(L, r//2)``.

        >>> Rotary(Geometric(10000), 4).angles([0, 2]).tolist()
        [[0.0, 0.0], [2.0, 0.02]]
        """
        from .encoding import resolve_dtype

        dt = resolve_dtype(dtype)
        pos = as_positions("positions", positions).astype(dt)
        return np.multiply.outer(pos, self.frequencies_float.astype(dt)).astype(dt)

    def apply(self, x: Any, positions: Iterable[int] | np.ndarray, *,
              scaled: bool = False) -> np.ndarray:
        """Rotate ``x`` of shape ``(..., L, head_dim)`` at ``positions`` (shape ``(L,)``), float64.

        Half layout as HF ``x·cos + rotate_half(x)·sin``; adjacent as GPT-J's
        ``rotate_every_two``.  ``scaled=True`` multiplies cos and sin by the
        attention factor, as HF does.

        >>> rot = Rotary(Geometric(10000), 2)
        >>> rot.apply(np.array([[1.0, 0.0]]), [np.pi / 2 * 0 + 1]).round(4)
        array([[0.5403, 0.8415]])
        """
        try:
            x = as_positions("x", x).reshape(np.shape(x))
        except InvalidParameter as exc:
            raise InvalidParameter(f"x is not an array of finite real numbers ({exc}); pass an "
                                   f"array of shape (..., L, {self.head_dim})") from None
        pos = as_positions("positions", positions)
        if x.ndim < 2 or x.shape[-1] != self.head_dim or x.shape[-2] != pos.size:
            raise InvalidParameter(
                f"x has shape {x.shape}; expected (..., {pos.size}, {self.head_dim}) for "
                f"{pos.size} positions and head_dim={self.head_dim}")
        return self.rotate(x, np.multiply.outer(pos, self.frequencies_float), scaled=scaled)

    def rotate(self, x: np.ndarray, angles: np.ndarray, *, scaled: bool = False) -> np.ndarray:
        """Rotate ``x`` (float64, shape ``(..., L, head_dim)``) by ``angles`` of shape
        ``(L, rotary_dim//2)``, pair k of row l by ``angles[l, k]``; what :meth:`apply` does
        once the angles m·θ_k are formed (a multi-axis rotary forms them per axis).

        >>> Rotary(Geometric(10000), 2).rotate(np.array([[1.0, 0.0]]), np.array([[0.0]]))
        array([[1., 0.]])
        """
        cos, sin = np.cos(angles), np.sin(angles)
        if scaled:
            cos, sin = cos * self.attention_factor_float, sin * self.attention_factor_float
        r = self.rotary_dim
        rot, rest = x[..., :r], x[..., r:]
        if self.layout == "half":
            cos2, sin2 = np.concatenate([cos, cos], -1), np.concatenate([sin, sin], -1)
            half = r // 2
            rotated_half = np.concatenate([-rot[..., half:], rot[..., :half]], -1)
            out = rot * cos2 + rotated_half * sin2
        else:
            cos2, sin2 = np.repeat(cos, 2, -1), np.repeat(sin, 2, -1)
            every_two = np.stack([-rot[..., 1::2], rot[..., 0::2]], -1).reshape(rot.shape)
            out = rot * cos2 + every_two * sin2
        return np.concatenate([out, rest], -1)

    # ------------------------------------------------------------------ description
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description.

        >>> Rotary(Geometric(10000), 8, rotary_dim=4).to_dict()["rotary_dim"]
        4
        """
        rule = getattr(self.schedule, "rope_type", "default")
        out: dict[str, Any] = {"name": self.name, "kind": "rotary", "head_dim": self.head_dim,
                               "rotary_dim": self.rotary_dim, "layout": self.layout,
                               "scaling": rule, **self.schedule.params()}
        if self.attention_factor != 1:
            out["attention_factor"] = str(self.attention_factor)
        return out

    def __repr__(self) -> str:
        params = "".join(f", {k}={v}" for k, v in self.schedule.params().items()
                         if len(str(v)) < 40)
        return (f"Rotary({self.name}, head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, "
                f"layout={self.layout}{params})")


def rotary(base: Any = 10000, dim: int = 128, *, scaling: str | None = None,
           layout: str = "half", rotary_dim: int | None = None,
           partial_rotary_factor: Any = None, name: str | None = None,
           **params: Any) -> Rotary:
    """A rotary embedding from plain parameters (``dim`` is the head dim).

    ``partial_rotary_factor`` gives rotary_dim = int(dim·factor) as HF computes it.
    The spellings of the ``rope:`` spec grammar, of HF configs and of
    :func:`~posproof.testing.assert_rotary` are accepted too: ``head_dim=`` for ``dim``,
    ``theta=`` / ``rope_theta=`` for ``base``, ``rope_type=`` / ``type=`` for ``scaling``,
    ``attention_factor=`` for ``attention`` (given twice with different values: an error).

    >>> rotary(500000, 128, scaling="llama3", factor=8, original_max_position_embeddings=8192)
    Rotary(rope-llama3, head_dim=128, rotary_dim=128, layout=half, base=500000, factor=8, low_freq_factor=1, high_freq_factor=4, original_max_position_embeddings=8192)
    >>> rotary(10000, 64, partial_rotary_factor=0.25).rotary_dim
    16
    >>> rotary(theta=500000, head_dim=64).to_dict() == rotary(500000, 64).to_dict()
    True
    """  # noqa: E501
    from .scaling import make_scaling

    base, dim = spelled(params, "base", base, 10000, ("theta", "rope_theta")), spelled(
        params, "dim", dim, 128, ("head_dim",))
    scaling = spelled(params, "scaling", scaling, None, ("rope_type", "type"))
    if "attention_factor" in params:
        params["attention"] = spelled(params, "attention", params.pop("attention", None),
                                       None, ("attention_factor",))

    if partial_rotary_factor is not None:
        if rotary_dim is not None:
            raise InvalidParameter("pass rotary_dim or partial_rotary_factor, not both")
        from .schedules import exact_number

        factor = float(mp_value(exact_number("partial_rotary_factor", partial_rotary_factor), 20))
        if not 0 < factor <= 1:
            raise InvalidParameter(f"partial_rotary_factor={partial_rotary_factor!r} must be in "
                                   "(0, 1]; it is the fraction of head channels that rotate")
        rotary_dim = int(check_int("dim", dim) * factor)
    schedule = make_scaling(scaling, base, **params)
    return Rotary(schedule, dim, rotary_dim=rotary_dim, layout=layout, name=name)


def spelled(params: dict[str, Any], key: str, value: Any, default: Any,
             aliases: tuple[str, ...]) -> Any:
    """``value`` of ``key``, or the one alias of it found in ``params`` (popped); a value
    given under two names must be the same.

    >>> spelled({"head_dim": 64}, "dim", 128, 128, ("head_dim",))
    64
    >>> spelled({"head_dim": 64}, "dim", 32, 128, ("head_dim",))
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: dim=32 and head_dim=64 name the same parameter with two values; pass one
    """  # noqa: E501
    given = [(k, params.pop(k)) for k in aliases if k in params]
    if not given:
        return value
    seen = [*([(key, value)] if value is not default else []), *given]
    if len({str(v) for _, v in seen}) > 1:
        raise InvalidParameter(" and ".join(f"{k}={v!r}" for k, v in seen)
                               + " name the same parameter with two values; pass one")
    return given[0][1]
