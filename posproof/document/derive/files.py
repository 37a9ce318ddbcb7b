"""The files of a derivation: :func:`write_derivation` writes the Markdown and LaTeX documents,
:func:`draw_figures_for` the figures of :mod:`posproof.document.plots` (imported lazily:
matplotlib only loads when a figure is drawn); the same inputs give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...errors import InvalidParameter, UnknownName
from ...measure.checks import DEFAULT_MAX_LEN
from ...model.encoding import Encoding
from .derivation import (
    Derivation,
    derive,  # noqa: F401 (the doctests use it)
)

__all__ = [
    "DOCUMENT_FORMATS",
    "draw_figures_for",
    "parse_formats",
    "write_derivation",
]


#: Document formats :func:`write_derivation` writes.
DOCUMENT_FORMATS = ("md", "tex")


def write_derivation(derivation: Derivation, out: str | Path, *,
                     formats: Sequence[str] = DOCUMENT_FORMATS,
                     figure_formats: Sequence[str] = ("png", "svg"),
                     draw_figures: bool = True, stem: str = "derivation") -> list[Path]:
    """Write ``stem.md`` / ``stem.tex`` and ``figures/*`` into ``out``; return the paths.

    The files are byte-identical from run to run.  ``draw_figures=False``
    writes the documents only (their figures drawn elsewhere, e.g. by
    :func:`draw_figures` in another process).  An unwritable ``out`` raises
    :class:`posproof.errors.InvalidParameter`.

    >>> import tempfile
    >>> from posproof import preset
    >>> doc = derive(preset("vaswani", dim=4), max_len=50, general=False, figures=["gram"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in write_derivation(doc, tmp, figure_formats=["png"])]
    ['gram.png', 'derivation.md', 'derivation.tex']
    """
    formats = parse_formats(formats, DOCUMENT_FORMATS, "format")
    written: list[Path] = []
    if derivation.figures and draw_figures:
        written += draw_figures_for(derivation.encoding, out, derivation.figures,
                                    length=derivation.max_len, formats=figure_formats)
    directory = Path(out)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for fmt in formats:
            text = derivation.markdown() if fmt == "md" else derivation.latex()
            path = directory / f"{stem}.{fmt}"
            path.write_text(text, encoding="utf-8" if fmt == "md" else "ascii")
            written.append(path)
    except OSError as exc:
        raise InvalidParameter(f"--out={str(out)!r} cannot be written "
                               f"({exc.strerror or exc}); pass a writable directory") from None
    return written


def draw_figures_for(encoding: Encoding, out: str | Path, names: Sequence[str], *,
                     length: int = DEFAULT_MAX_LEN,
                     formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Draw the named figures of a derivation into ``out/figures``; return the paths.

    ``length`` is the context length L of the document (its ``max_len``).

    >>> import tempfile
    >>> from posproof import preset
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in draw_figures_for(preset("vaswani", dim=8), tmp, ["gram"])]
    ['gram.png', 'gram.svg']
    >>> draw_figures_for(preset("vaswani", dim=8), ".", ["gram"], formats=["svg"])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: figure formats ['svg'] lack png, which the documents ...
    """
    from ..plots import FIGURE_FORMATS, FIGURES, save_figure

    figure_formats = parse_formats(formats, FIGURE_FORMATS, "figure format")
    if "png" not in figure_formats:
        raise InvalidParameter(f"figure formats {figure_formats} lack png, which the "
                               "documents include; add png")
    specs = {f.name: f for f in FIGURES}
    for name in names:
        if name not in specs:
            raise UnknownName(f"figure={name!r} is not known; use one of {', '.join(specs)}")
    written: list[Path] = []
    fig_dir = Path(out) / "figures"
    try:
        fig_dir.mkdir(parents=True, exist_ok=True)
        for name in names:
            fig = specs[name].draw(encoding, length)
            written += save_figure(fig, fig_dir / name, figure_formats)
    except OSError as exc:
        raise InvalidParameter(f"--out={str(out)!r} cannot be written "
                               f"({exc.strerror or exc}); pass a writable directory") from None
    return written


def parse_formats(given: Sequence[str] | str, allowed: Sequence[str], what: str) -> list[str]:
    items = given.split(",") if isinstance(given, str) else list(given)
    out = []
    for item in (str(i).strip().lower().lstrip(".") for i in items):
        if not item:
            continue
        if item not in allowed:
            raise UnknownName(f"{what}={item!r} is not known; use {', '.join(allowed)} "
                              "(comma-separated)")
        if item not in out:
            out.append(item)
    if not out:
        raise InvalidParameter(f"no {what} given; use {', '.join(allowed)}")
    return out
