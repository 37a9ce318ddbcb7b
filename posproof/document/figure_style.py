"""How every figure is built and saved: matplotlib imported lazily, one fixed style applied in
``matplotlib.rc_context`` (never globally), explicit axes, and :func:`save_figure`, which writes
PNG, SVG or PDF without dates, version strings or random SVG ids (byte-identical files).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, UnknownName

__all__ = [
    "FIGURE_FORMATS",
    "axes",
    "colorbar",
    "figure",
    "require_matplotlib",
    "save_figure",
    "sparse_log",
    "style",
]


#: Formats :func:`save_figure` writes reproducibly.
FIGURE_FORMATS = ("png", "svg", "pdf")

#: rc parameters every figure is built and saved under (never set globally).
STYLE: dict[str, Any] = {
    "svg.hashsalt": "posproof",     # deterministic SVG ids
    "svg.fonttype": "path",         # glyphs as paths: no dependence on the reader's fonts
    "pdf.compression": 6,
    "font.family": "DejaVu Sans",   # shipped with matplotlib: the same glyphs everywhere
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "legend.fontsize": 8.0,
    "xtick.labelsize": 8.0,
    "ytick.labelsize": 8.0,
    "figure.dpi": 100.0,
    "savefig.dpi": 110.0,
    "savefig.facecolor": "white",
    "axes.grid": False,
    "image.interpolation": "nearest",
    "path.simplify": False,          # every point drawn as computed
}

#: Metadata that would otherwise hold dates and version strings.
_METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": "posproof", "Format": None, "Type": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": "posproof", "Producer": None},
}


# --------------------------------------------------------------------------- plumbing
def require_matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise InvalidParameter("figures need matplotlib; install it with "
                               "pip install 'posproof[plot]' (or pass --no-figures)") from None
    return matplotlib


@contextmanager
def style() -> Iterator[Any]:
    """matplotlib, with :data:`STYLE` in force for the duration of the block only."""
    mpl = require_matplotlib()
    with mpl.rc_context(STYLE):
        yield mpl


def figure(width: float, height: float) -> Any:
    """An explicit Figure (no pyplot); margins are set by :func:`axes`, not by a layout
    engine (constrained layout doubles the cost of every save)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def axes(fig: Any, *, colorbar: bool = False, title_lines: int = 1, left: float = 0.75,
          bottom: float = 0.55) -> tuple[Any, Any]:
    """One main axes with fixed margins in inches, and a colour-bar axes beside it if asked."""
    width, height = fig.get_size_inches()
    right = 1.05 if colorbar else 0.2
    top = 0.22 + 0.2 * title_lines
    rect = (left / width, bottom / height, 1 - (left + right) / width,
            1 - (bottom + top) / height)
    ax = fig.add_axes(rect)
    cax = None
    if colorbar:
        cax = fig.add_axes(((width - right + 0.15) / width, rect[1], 0.14 / width, rect[3]))
    return ax, cax


def sparse_log(axis: Any) -> None:
    """Major ticks only on a log axis: minor ticks cost more to draw than the whole plot."""
    from matplotlib.ticker import LogLocator, NullLocator

    axis.set_major_locator(LogLocator(base=10, numticks=8))
    axis.set_minor_locator(NullLocator())


def save_figure(fig: Any, stem: str | Path, formats: Sequence[str] = ("png", "svg")
                ) -> list[Path]:
    """Write ``fig`` as ``stem.png``, ``stem.svg`` … with no dates or versions inside.

    Returns the paths written.  Two calls with the same figure give the same bytes.

    >>> import tempfile
    >>> from posproof import preset
    >>> from posproof.document.plots import gram_figure
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = save_figure(gram_figure(preset("vaswani", dim=8), length=8), Path(tmp) / "g")
    ...     [p.name for p in paths]
    ['g.png', 'g.svg']
    """
    out = []
    stem = Path(stem)
    for fmt in formats:
        if fmt not in FIGURE_FORMATS:
            raise UnknownName(f"figure format={fmt!r} is not known; use "
                              f"{', '.join(FIGURE_FORMATS)}")
        path = stem.with_name(f"{stem.name}.{fmt}")
        with style():
            fig.savefig(path, format=fmt, metadata=_METADATA[fmt])
        out.append(path)
    return out


def colorbar(fig: Any, mappable: Any, cax: Any, label: str) -> None:
    bar = fig.colorbar(mappable, cax=cax)
    bar.set_label(label)
