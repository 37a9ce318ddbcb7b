"""Figures of an encoding, reproducible byte for byte (matplotlib, imported lazily).

``import posproof`` does not import matplotlib: every function here imports
it when called (``pip install 'posproof[plot]'``).  No pyplot and no global
state: each function builds an explicit :class:`matplotlib.figure.Figure`
inside ``matplotlib.rc_context`` (Agg for PNG, the SVG backend for SVG), and
:func:`save_figure` writes it without dates, version strings or random SVG
ids, so the same inputs give byte-identical files (the style and the saving live in
:mod:`posproof.document.figure_style`).

==================  ==========================================================
figure              what it shows
==================  ==========================================================
``heatmap``         the table PE(x)_i, positions against dimensions
``dot_product``     PE(x)·PE(x+Δ)/n against the offset Δ (the offset kernel of
                    :mod:`posproof.measure.kernel`) for several d and bases
``distance``        ‖PE(x) − PE(y)‖ for positions x, y
``curve3d``         three coordinates of the curve of positions: binary dials
                    close on themselves, a geometric schedule does not
``gram``            the Gram matrix PE(x)·PE(y) (Toeplitz when the dot-product
                    theorem holds)
``wavelength``      the wavelength 2π/ω_k of each pair against the context length
``dtype_error``     the phase error of x·ω formed in float32, float16, bfloat16
==================  ==========================================================

>>> from posproof import preset
>>> fig = encoding_heatmap(preset("vaswani", dim=16), length=32)
>>> fig.axes[0].get_xlabel()
'dimension i'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidParameter, UnknownName, check_int
from ..model.encoding import Encoding
from .figure_style import FIGURE_FORMATS as FIGURE_FORMATS
from .figure_style import STYLE as STYLE
from .figure_style import axes, colorbar, figure, save_figure, sparse_log, style
from .figure_style import (
    require_matplotlib as require_matplotlib,  # posproof.cli.derive imports it from here
)

__all__ = [
    "FIGURES",
    "FIGURE_FORMATS",
    "FigureSpec",
    "curve3d_figure",
    "distance_figure",
    "dot_product_figure",
    "dtype_error_figure",
    "encoding_heatmap",
    "gram_figure",
    "save_figure",
    "standard_figures",
    "wavelength_figure",
]


def _title(enc: Encoding) -> str:
    """A short name for an encoding in titles: ``vaswani, d=512, base 10000``."""
    params = enc.to_dict().get("schedule", {})
    extra = ", ".join(f"{k} {v}" for k, v in params.items()
                      if k in ("base", "max_timescale", "max_period", "numerator"))
    return f"{enc.name}, d={enc.dim}" + (f", {extra}" if extra else "")


def _pairs_sound(enc: Encoding) -> bool:
    return not enc.broken_pairs() and enc.n_pairs > 0


def _kernel(enc: Encoding) -> Any:
    from ..measure.numeric import OffsetKernel

    return OffsetKernel(enc)


def _length(name: str, value: Any, maximum: int = 4096) -> int:
    return check_int(name, value, minimum=2, maximum=maximum)


# --------------------------------------------------------------------------- figures
def encoding_heatmap(enc: Encoding, length: int = 128) -> Any:
    """The table PE(x)_i for positions offset … offset+length−1 against dimensions i.

    >>> from posproof import preset
    >>> encoding_heatmap(preset("tensor2tensor", dim=8), length=16).axes[0].get_ylabel()
    'position x'
    """
    length = _length("length", length)
    table = enc.table(length)
    first = enc.offset
    with style():
        fig = figure(7.2, 4.2)
        ax, cax = axes(fig, colorbar=True)
        image = ax.imshow(table, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1,
                          extent=(-0.5, enc.dim - 0.5, first + length - 0.5, first - 0.5))
        ax.set_xlabel("dimension i")
        ax.set_ylabel("position x")
        ax.set_title(f"The encoding PE(x)$_i$ ({_title(enc)}, layout {enc.layout.name})")
        colorbar(fig, image, cax, "value of PE(x)$_i$")
    return fig


def _variants(enc: Encoding) -> list[Encoding]:
    """The encoding itself, then geometric schedules at other d and bases (for comparison)."""
    from ..model.presets import preset

    out = [enc]
    seen = {(enc.name, enc.dim, enc.to_dict().get("schedule", {}).get("base"))}
    for dim, base in ((64, 10000), (512, 10000), (512, 100), (512, 500000)):
        key = ("vaswani", dim, str(base))
        if key not in seen:
            seen.add(key)
            out.append(preset("vaswani", dim=dim, base=base))
    return out


def _kernel_values(enc: Encoding, deltas: np.ndarray) -> tuple[np.ndarray, str]:
    """f(Δ)/n from the offset kernel, or PE(0)·PE(Δ)/n from the table without pairs."""
    n = max(enc.n_pairs, 1)
    if _pairs_sound(enc):
        return _kernel(enc)(deltas) / n, _title(enc)
    table = enc.table(np.concatenate([[0.0], deltas.astype(np.float64)]))
    return table[1:] @ table[0] / n, f"{_title(enc)} (x = 0 only)"


def dot_product_figure(encodings: Encoding | Sequence[Encoding], length: int = 20000,
                       points: int = 600) -> Any:
    """PE(x)·PE(x+Δ)/n against Δ = 1 … length−1 (log scale), one curve per encoding.

    By the dot-product theorem the value depends on Δ only; it is computed
    with :class:`posproof.measure.kernel.OffsetKernel` (exact fixed-point phases).
    Given a single encoding, a first panel shows it alone on a linear scale
    (Δ up to 1024, where exact returns show), and the second compares it with
    geometric schedules at other d and bases.  Encodings without (sin, cos)
    pairs are drawn from their table as PE(0)·PE(Δ)/n, marked "(x = 0 only)".

    >>> from posproof import preset
    >>> fig = dot_product_figure(preset("vaswani", dim=8), length=100)
    >>> len(fig.axes), len(fig.axes[1].get_lines()) >= 2
    (2, True)
    """
    single = isinstance(encodings, Encoding)
    encs = _variants(encodings) if single else list(encodings)
    if not encs:
        raise InvalidParameter("encodings=[] is empty; pass at least one Encoding")
    length = check_int("length", length, minimum=3, maximum=10**9)
    points = check_int("points", points, minimum=8, maximum=100000)
    deltas = np.unique(np.concatenate([
        np.arange(1, min(length, 64)),
        np.round(np.geomspace(1, length - 1, points)).astype(np.int64)]))
    with style():
        fig = figure(7.2, 4.0 if not single else 6.4)
        if single:
            top, ax = _stacked(fig)
            near = np.arange(0, min(length, 1025))
            values, label = _kernel_values(encs[0], near)
            top.plot(near, values, lw=1.0, color="black", label=label)
            top.axhline(0.0, color="0.5", lw=0.6)
            top.set_xlim(0, near[-1])
            top.set_xlabel("offset Δ")
            top.set_ylabel("PE(x)·PE(x+Δ) / n")
            top.set_title("Dot product against offset: a function of Δ alone (n = d/2 pairs)")
            top.legend(loc="upper right", framealpha=0.9)
        else:
            ax, _ = axes(fig)
            ax.set_title("Dot product against offset: a function of Δ alone (n = d/2 pairs)")
        for i, enc in enumerate(encs):
            values, label = _kernel_values(enc, deltas)
            ax.plot(deltas, values, lw=1.6 if i == 0 else 1.0,
                    color="black" if i == 0 else None, label=label, zorder=3 if i == 0 else 2)
        ax.axhline(0.0, color="0.5", lw=0.6)
        ax.set_xscale("log")
        sparse_log(ax.xaxis)
        ax.set_xlim(1, length)
        ax.set_xlabel("offset Δ (log scale)")
        ax.set_ylabel("PE(x)·PE(x+Δ) / n")
        if single:
            ax.set_title("… compared with geometric schedules at other d and bases", fontsize=9)
        ax.legend(loc="lower left", framealpha=0.9)
    return fig


def _stacked(fig: Any) -> tuple[Any, Any]:
    """Two axes one above the other, with the margins of :func:`axes`."""
    width, height = fig.get_size_inches()
    left, right, bottom, top, gap = 0.75, 0.2, 0.55, 0.45, 0.85
    h = (height - bottom - top - gap) / 2
    w = 1 - (left + right) / width
    upper = fig.add_axes((left / width, (bottom + h + gap) / height, w, h / height))
    lower = fig.add_axes((left / width, bottom / height, w, h / height))
    return upper, lower


def distance_figure(enc: Encoding, length: int = 128) -> Any:
    """‖PE(x) − PE(y)‖ for the first ``length`` positions x, y.

    With (sin, cos) pairs this is √(2(n − f(x − y))), f the offset kernel;
    otherwise it is computed from the table.

    >>> from posproof import preset
    >>> distance_figure(preset("binary", dim=8), length=40).axes[0].get_title()[:8]
    'Distance'
    """
    length = _length("length", length)
    pos = np.arange(length)
    if _pairs_sound(enc):
        f = _kernel(enc)(np.arange(length))
        dist = np.sqrt(np.maximum(2.0 * (enc.n_pairs - f), 0.0))[np.abs(pos[:, None] - pos)]
        how = "from the offset kernel"
    else:
        table = enc.table(length)
        sq = (table * table).sum(axis=1)
        dist = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * table @ table.T, 0.0))
        how = "from the table"
    first = enc.offset
    with style():
        fig = figure(5.6, 4.6)
        ax, cax = axes(fig, colorbar=True, title_lines=2)
        image = ax.imshow(dist, cmap="viridis", origin="upper",
                          extent=(first - 0.5, first + length - 0.5,
                                  first + length - 0.5, first - 0.5))
        ax.set_xlabel("position y")
        ax.set_ylabel("position x")
        ax.set_title(f"Distance ‖PE(x) − PE(y)‖ ({_title(enc)})\n{how}; zero only on the "
                     "diagonal means positions stay apart", fontsize=9)
        colorbar(fig, image, cax, "‖PE(x) − PE(y)‖")
    return fig


def _curve_columns(enc: Encoding) -> tuple[int, int, int, int, int, float]:
    """(sin col, cos col of the fastest pair, sin col of the pair nearest half its speed,
    frequency index k of the fast pair, k of the slow pair, ω_slow / ω_fast).

    >>> from posproof.model.presets import preset
    >>> s0, c0, s1, k0, k1, ratio = _curve_columns(preset("vaswani", dim=512))
    >>> (s0, c0, s1, k0, k1), round(ratio, 4)
    ((0, 1, 38, 0, 19), 0.5048)
    """
    freqs = enc.frequencies_float
    idx = [enc.column_freq_index[s] for s, _ in enc.pairs]
    omega = freqs[idx]
    fast = int(np.argmax(omega))
    ratios = omega / omega[fast]
    ratios[fast] = np.inf
    slow = int(np.argmin(np.abs(ratios - 0.5)))
    s0, c0 = enc.pairs[fast]
    return (s0, c0, enc.pairs[slow][0], int(idx[fast]), int(idx[slow]),
            float(omega[slow] / omega[fast]))


def curve3d_figure(encodings: Sequence[Encoding] | None = None, turns: float = 6.0) -> Any:
    """Three coordinates of the curve x ↦ PE(x), one 3-D panel per encoding.

    Coordinates: sin and cos of the fastest pair (frequency ω_k0), and sin of
    the pair whose frequency ω_k1 is nearest half of it, for x over ``turns``
    turns of that slower pair; dots mark the integer positions.  Each axis
    names its column and what it holds (``PE(x)_38 = sin ω_19 x``), and the
    title gives the ratio of exactly those frequencies (``ω_19/ω_0``).  The
    default compares binary dials (ratio exactly 1/2: the curve closes on itself) with the original
    schedule at d = 512 (ratio 10^(−19/64) ≈ 0.5048, irrational: it never closes).

    >>> len(curve3d_figure().axes)
    2
    """
    from ..model.presets import preset

    if encodings is None:
        encodings = [preset("binary", dim=8), preset("vaswani", dim=512)]
    encs = [e for e in encodings if _pairs_sound(e) and e.n_pairs >= 2]
    if not encs:
        raise InvalidParameter("curve3d_figure needs encodings with at least two (sin, cos) "
                               "pairs of one frequency each")
    with style():
        fig = figure(4.0 * len(encs) + 0.4, 4.4)
        for i, enc in enumerate(encs):
            s0, c0, s1, k0, k1, ratio = _curve_columns(enc)
            w = enc.column_frequencies_float
            x_max = turns * 2 * math.pi / w[s1]
            xs = np.linspace(0.0, x_max, 4000)
            ints = np.arange(0, math.floor(x_max) + 1, dtype=np.float64)
            ax = fig.add_subplot(1, len(encs), i + 1, projection="3d")
            ax.plot(np.sin(w[s0] * xs), np.cos(w[c0] * xs), np.sin(w[s1] * xs), lw=0.7,
                    color="tab:blue" if i == 0 else "tab:red")
            ax.scatter(np.sin(w[s0] * ints), np.cos(w[c0] * ints), np.sin(w[s1] * ints), s=6,
                       color="black", depthshade=False)
            ax.set_xlabel(f"PE(x){_sub(s0)} = sin ω{_sub(k0)}x", labelpad=-2)
            ax.set_ylabel(f"PE(x){_sub(c0)} = cos ω{_sub(k0)}x", labelpad=-2)
            ax.set_zlabel(f"PE(x){_sub(s1)} = sin ω{_sub(k1)}x", labelpad=-2)
            for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
                axis.set_ticks([-1.0, 0.0, 1.0])
            ax.tick_params(labelsize=7, pad=0)
            closes = "closes on itself" if abs(ratio - 0.5) < 1e-12 else "never closes"
            ax.set_title(f"{_title(enc)}\nω{_sub(k1)}/ω{_sub(k0)} = {ratio:.4f}: {closes}",
                         fontsize=9)
        fig.suptitle("Three coordinates of the curve of positions (dots: integer x)", y=0.985)
        fig.subplots_adjust(left=0.0, right=0.95, bottom=0.02, top=0.84, wspace=0.12)
    return fig


def _sub(j: int) -> str:
    return f"$_{{{j}}}$"


def gram_figure(enc: Encoding, length: int = 64) -> Any:
    """The Gram matrix G[x, y] = PE(x)·PE(y) of the first ``length`` positions.

    The title says whether it is Toeplitz (:func:`posproof.measure.gram.gram_is_toeplitz`).

    >>> from posproof import preset
    >>> "Toeplitz: yes" in gram_figure(preset("vaswani", dim=8), length=16).axes[0].get_title()
    True
    """
    from ..measure.numeric import gram_is_toeplitz

    length = _length("length", length)
    table = enc.table(length)
    gram = table @ table.T
    top = max(float(np.abs(gram).max()), 1e-300)
    toeplitz = "yes" if gram_is_toeplitz(table) else "NO"
    first = enc.offset
    with style():
        fig = figure(5.6, 4.6)
        ax, cax = axes(fig, colorbar=True, title_lines=2)
        image = ax.imshow(gram, cmap="RdBu_r", vmin=-top, vmax=top,
                          extent=(first - 0.5, first + length - 0.5,
                                  first + length - 0.5, first - 0.5))
        ax.set_xlabel("position y")
        ax.set_ylabel("position x")
        ax.set_title(f"Gram matrix PE(x)·PE(y) ({_title(enc)})\nconstant along diagonals "
                     f"(Toeplitz: {toeplitz})", fontsize=9)
        colorbar(fig, image, cax, "PE(x)·PE(y)")
    return fig


def wavelength_figure(enc: Encoding, context: int | None = None) -> Any:
    """The wavelength 2π/ω of each pair k (log scale), with 2π, the slowest claimed
    wavelength 2π·b of a geometric schedule, and the context length marked.

    >>> from posproof import preset
    >>> wavelength_figure(preset("vaswani", dim=16), context=512).axes[0].get_yscale()
    'log'
    """
    freqs = enc.frequencies_float
    if _pairs_sound(enc):
        omega = freqs[[enc.column_freq_index[s] for s, _ in enc.pairs]]
        xlabel = "pair k"
    else:
        omega = freqs
        xlabel = "distinct frequency index"
    wavelength = 2 * math.pi / omega
    params = enc.to_dict().get("schedule", {})
    with style():
        fig = figure(6.4, 3.8)
        ax, _ = axes(fig)
        ax.plot(np.arange(omega.size), wavelength, marker=".", ms=3, lw=1, color="black",
                label=f"2π/ω$_k$ ({_title(enc)})")
        ax.axhline(2 * math.pi, color="tab:green", ls=":", lw=1, label="2π")
        base = params.get("base") or params.get("max_timescale") or params.get("max_period")
        if base is not None:
            try:
                b = float(base)
            except ValueError:
                b = None
            if b is not None and math.isfinite(b):
                ax.axhline(2 * math.pi * b, color="tab:purple", ls=":", lw=1,
                           label=f"2π·{base} (the paper's slowest)")
        if context is not None:
            ax.axhline(float(context), color="tab:red", ls="--", lw=1,
                       label=f"context length L = {context}")
        ax.set_yscale("log")
        sparse_log(ax.yaxis)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("wavelength (positions)")
        ax.set_title("Wavelength of each pair: pairs above L never complete a turn")
        ax.legend(loc="center left", framealpha=0.9)
    return fig


def dtype_error_figure(enc: Encoding, dtypes: Sequence[str] = ("float32", "float16", "bfloat16"),
                       max_position: int = 10**6, points: int = 400) -> Any:
    """Phase error max_k |fl(x·ω_k) − x·ω_k| of the angle formed in each dtype, against x.

    The angle is formed as PyTorch does (x and ω rounded to the dtype, the
    product rounded in it; :func:`posproof.measure.dtypes.angles_in_dtype`), the
    reference is x·ω in float64 (its own error, ≈ 1e-16·x·ω, is far below
    every curve).  Dotted lines: the first integer position each dtype cannot
    hold; dashed: 0.01 rad.

    >>> from posproof import preset
    >>> dtype_error_figure(preset("vaswani", dim=8), max_position=1000).axes[0].get_xscale()
    'log'
    """
    from ..measure.numeric import angles_in_dtype, dtype_model, first_unrepresentable_integer

    max_position = check_int("max_position", max_position, minimum=2, maximum=10**12)
    points = check_int("points", points, minimum=8, maximum=100000)
    pos = np.unique(np.round(np.geomspace(1, max_position, points)).astype(np.int64))
    pos = pos.astype(np.float64)
    omega = enc.frequencies_float
    exact = pos[:, None] * omega[None, :]
    colors = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")
    lowest = math.inf
    with style():
        fig = figure(6.4, 3.8)
        ax, _ = axes(fig)
        for i, dtype in enumerate(dtypes):
            name = dtype_model(dtype).name
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.abs(angles_in_dtype(pos, omega, name) - exact).max(axis=1)
            finite = np.isfinite(err)
            color = colors[i % len(colors)]
            label = name
            if not finite.all():
                label += " (ends where x·ω overflows to inf)"
            shown = np.where(finite & (err > 0), err, np.nan)
            if np.isfinite(shown).any():
                lowest = min(lowest, float(np.nanmin(shown)))
            ax.plot(pos, shown, lw=1, color=color, label=label)
            unit = first_unrepresentable_integer(name)
            if unit <= max_position:
                ax.axvline(unit, color=color, ls=":", lw=0.8,
                           label=f"x = {unit}: first integer {name} cannot hold")
        ax.axhline(0.01, color="0.3", ls="--", lw=0.8, label="0.01 rad")
        ax.set_xscale("log")
        ax.set_yscale("log")
        sparse_log(ax.xaxis)
        sparse_log(ax.yaxis)
        if math.isfinite(lowest):
            ax.set_ylim(lowest / 3, None)
        ax.set_xlabel("position x (log scale)")
        ax.set_ylabel("max over k of |angle error| (rad)")
        ax.set_title(f"Angle x·ω formed in low precision ({_title(enc)})")
        ax.legend(loc="upper left", frameon=False, fontsize=7)
    return fig


# --------------------------------------------------------------------------- the standard set
@dataclass(frozen=True)
class FigureSpec:
    """One figure of a derivation document: file name, caption, and how to draw it."""

    name: str
    caption: str
    draw: Callable[[Encoding, int], Any]


def _curve_pair(enc: Encoding, length: int) -> Any:
    from ..model.presets import preset

    other = enc if (_pairs_sound(enc) and enc.n_pairs >= 2 and enc.schedule is not None
                    and enc.schedule.family != "binary") else preset("vaswani", dim=512)
    return curve3d_figure([preset("binary", dim=8), other])


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("heatmap", "The encoding as a table: position against dimension.",
               lambda enc, length: encoding_heatmap(enc, 128)),
    FigureSpec("dot_product", "PE(x)·PE(x+Δ)/n against the offset Δ (the offset kernel): "
               "this encoding up to Δ = 1024, then (log scale) beside geometric schedules at "
               "other d and bases.",
               lambda enc, length: dot_product_figure(enc, min(max(length, 1000), 20000))),
    FigureSpec("distance", "Distances between the first 128 positions.",
               lambda enc, length: distance_figure(enc, 128)),
    FigureSpec("curve3d", "Three coordinates of the curve of positions: binary dials close "
               "on themselves, a geometric schedule never does.", _curve_pair),
    FigureSpec("gram", "The Gram matrix of the first 64 positions.",
               lambda enc, length: gram_figure(enc, 64)),
    FigureSpec("wavelength", "The wavelength 2π/ω of each pair against the context length.",
               lambda enc, length: wavelength_figure(enc, length)),
    FigureSpec("dtype_error", "Phase error of the angle x·ω formed in float32, float16 and "
               "bfloat16, against the position.",
               lambda enc, length: dtype_error_figure(enc, max_position=max(length, 100))),
)


def standard_figures(enc: Encoding, directory: str | Path, *, length: int = 10**6,
                     formats: Sequence[str] = ("png", "svg"),
                     names: Sequence[str] | None = None) -> dict[str, list[Path]]:
    """Draw and save the figures of :data:`FIGURES` for ``enc`` into ``directory``.

    ``length`` is the context length L (the checks' ``max_len``).  Returns
    ``{name: [paths]}``; the files are byte-identical from run to run.

    >>> import tempfile
    >>> from posproof import preset
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = standard_figures(preset("vaswani", dim=8), tmp, length=100, formats=["png"],
    ...                            names=["gram", "wavelength"])
    ...     sorted(p.name for paths in out.values() for p in paths)
    ['gram.png', 'wavelength.png']
    """
    wanted = [f.name for f in FIGURES] if names is None else list(names)
    known = {f.name: f for f in FIGURES}
    for name in wanted:
        if name not in known:
            raise UnknownName(f"figure={name!r} is not known; use one of {', '.join(known)}")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in wanted:
        fig = known[name].draw(enc, length)
        out[name] = save_figure(fig, directory / name, formats)
    return out
