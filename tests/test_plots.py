"""Figures: labelled, non-empty, reproducible byte for byte, and no global matplotlib state."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from posproof import preset
from posproof.errors import InvalidParameter, UnknownName

matplotlib = pytest.importorskip("matplotlib")

from posproof.document import plots  # noqa: E402  (after the importorskip)

ROOT = Path(__file__).resolve().parents[1]


def _png_pixels(fig: object) -> np.ndarray:
    from matplotlib.image import imread

    buffer = io.BytesIO()
    with matplotlib.rc_context(plots.STYLE):
        fig.savefig(buffer, format="png")  # type: ignore[attr-defined]
    buffer.seek(0)
    return imread(buffer)


@pytest.mark.parametrize(("name", "n_axes"), [
    ("heatmap", 2), ("dot_product", 2), ("distance", 2), ("curve3d", 2),
    ("gram", 2), ("wavelength", 1), ("dtype_error", 1)])
def test_every_figure_is_labelled_and_not_empty(name: str, n_axes: int) -> None:
    """Titles, axis labels, colour bars (heatmap, distance, gram), and pixels that vary."""
    spec = {f.name: f for f in plots.FIGURES}[name]
    fig = spec.draw(preset("vaswani", dim=32), 2000)
    axes = fig.axes
    main = axes[0]
    assert main.get_title() or fig._suptitle is not None
    if name != "curve3d":
        assert main.get_xlabel()
        assert main.get_ylabel()
    assert len(axes) == n_axes
    if name in ("heatmap", "distance", "gram"):
        assert axes[1].get_ylabel()                  # the colour bar says what it measures
    pixels = _png_pixels(fig)
    assert pixels.shape[0] > 300
    assert float(pixels[..., :3].std()) > 0.05


@pytest.mark.parametrize("name", [f.name for f in plots.FIGURES])
def test_every_figure_is_byte_reproducible_in_svg(name: str, tmp_path: Path) -> None:
    """SVG ids and metadata are fixed: two drawings give the same bytes (PNG: test_derive)."""
    spec = {f.name: f for f in plots.FIGURES}[name]
    enc = preset("vaswani", dim=16)
    first = plots.save_figure(spec.draw(enc, 1000), tmp_path / "a", ["svg"])[0]
    second = plots.save_figure(spec.draw(enc, 1000), tmp_path / "b", ["svg"])[0]
    assert first.read_bytes() == second.read_bytes()


def test_save_figure_is_byte_reproducible_without_dates(tmp_path: Path) -> None:
    enc = preset("binary", dim=8)
    first = plots.save_figure(plots.gram_figure(enc, 16), tmp_path / "a", ["png", "svg", "pdf"])
    second = plots.save_figure(plots.gram_figure(enc, 16), tmp_path / "b", ["png", "svg", "pdf"])
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    svg = (tmp_path / "a.svg").read_text(encoding="utf-8")
    assert "<dc:date>" not in svg
    assert "Matplotlib v" not in svg
    assert b"Software" not in (tmp_path / "a.png").read_bytes()
    assert b"CreationDate" not in (tmp_path / "a.pdf").read_bytes()


def test_global_rcparams_are_untouched(tmp_path: Path) -> None:
    """Figures are built and saved inside rc_context: matplotlib.rcParams is as before."""
    before = dict(matplotlib.rcParams)
    fig = plots.dtype_error_figure(preset("vaswani", dim=8), max_position=1000)
    plots.save_figure(fig, tmp_path / "dtype", ["png", "svg"])
    after = dict(matplotlib.rcParams)
    assert before == after


def test_no_pyplot_and_no_matplotlib_on_import() -> None:
    """Drawing uses explicit Figure objects: pyplot stays unimported; posproof alone imports
    no matplotlib at all."""
    code = ("import sys, posproof, posproof.document.plots; a = 'matplotlib' in sys.modules; "
            "from posproof import preset; "
            "posproof.document.plots.gram_figure(preset('vaswani', dim=4), 8);"
            " print(a, 'matplotlib.pyplot' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True, timeout=120)
    assert done.stdout.split() == ["False", "False"]


def test_curve3d_binary_closes_and_geometric_does_not() -> None:
    fig = plots.curve3d_figure()
    titles = [ax.get_title() for ax in fig.axes]
    assert "= 0.5000: closes on itself" in titles[0]
    assert "never closes" in titles[1]


@pytest.mark.parametrize("enc", [preset("vaswani", dim=32), preset("vaswani", dim=512),
                                 preset("tensor2tensor", dim=64), preset("binary", dim=8)],
                         ids=lambda e: f"{e.name}-{e.dim}")
def test_curve3d_labels_name_the_plotted_columns_and_their_frequency_ratio(enc) -> None:
    """Each axis says which column it shows and which frequency that column turns at, and
    the title's ratio is the ratio of exactly those frequencies (not of columns 2 and 0)."""
    import re

    ax = plots.curve3d_figure([enc]).axes[0]
    label = re.compile(r"PE\(x\)\$_\{(\d+)\}\$ = (sin|cos) ω\$_\{(\d+)\}\$x")
    shown = [label.fullmatch(text) for text in (ax.get_xlabel(), ax.get_ylabel(),
                                                ax.get_zlabel())]
    assert all(shown), (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel())
    (c0, f0, k0), (c1, f1, k1), (c2, f2, k2) = [(int(m[1]), m[2], int(m[3])) for m in shown]
    assert (f0, f1, f2) == ("sin", "cos", "sin")
    assert (c0, c1) in enc.pairs
    assert c2 in {s for s, _ in enc.pairs}
    assert [enc.column_freq_index[c] for c in (c0, c1, c2)] == [k0, k1, k2]
    assert k0 == k1 != k2
    title = re.search(r"ω\$_\{(\d+)\}\$/ω\$_\{(\d+)\}\$ = ([0-9.]+)", ax.get_title())
    assert title is not None, ax.get_title()
    assert (int(title[1]), int(title[2])) == (k2, k0)
    omega = enc.frequencies_float
    assert float(title[3]) == pytest.approx(omega[k2] / omega[k0], abs=5e-5)


def test_gram_title_reports_toeplitz() -> None:
    assert "Toeplitz: yes" in plots.gram_figure(preset("vaswani", dim=8), 32).axes[0].get_title()
    assert "Toeplitz: NO" in plots.gram_figure(preset("sine-only", dim=8), 32).axes[0].get_title()


def test_figures_of_a_broken_encoding_still_draw() -> None:
    """No (sin, cos) pairs: the kernel does not apply, so the table is used (and said so)."""
    broken = preset("sine-only", dim=8)
    fig = plots.dot_product_figure([broken], length=200)
    assert "(x = 0 only)" in fig.axes[0].get_legend().get_texts()[0].get_text()
    assert "from the table" in plots.distance_figure(broken, 16).axes[0].get_title()


def test_dtype_error_marks_overflow_and_integer_limits() -> None:
    fig = plots.dtype_error_figure(preset("vaswani", dim=8), max_position=10**5)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "float16 (ends where x·ω overflows to inf)" in labels
    assert "x = 2049: first integer float16 cannot hold" in labels


def test_bad_input() -> None:
    with pytest.raises(UnknownName, match="figure format='gif'"):
        plots.save_figure(plots.gram_figure(preset("vaswani", dim=4), 8), "x", ["gif"])
    with pytest.raises(UnknownName, match="figure='pie'"):
        plots.standard_figures(preset("vaswani", dim=4), ".", names=["pie"])
    with pytest.raises(InvalidParameter, match="length=1 is too small"):
        plots.encoding_heatmap(preset("vaswani", dim=4), length=1)
    with pytest.raises(InvalidParameter, match="empty"):
        plots.dot_product_figure([])
