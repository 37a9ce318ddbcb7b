"""Every classic bug in tests/bug_corpus.py gets its own *confirmed* explanation; no correct
table gets any; an explanation that does not reproduce the table within tolerance is not given.

The confusion matrix itself is printed by ``python scripts/bug_confusion.py``.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from bug_corpus import (
    ALL_BUGS,
    ALL_CORRECT,
    BUGS,
    ROTARY_BUGS,
    D,
    L,
    column_index,
    hf_rope,
    run,
    tutorial,
)

import posproof
from posproof.testing import check_encoding

ROOT = Path(__file__).resolve().parent.parent


def test_the_corpus_has_25_distinct_bugs() -> None:
    assert len(BUGS) >= 25
    assert len({b.id for b in BUGS}) == len(BUGS)
    assert len({b.expected for b in BUGS}) >= 20       # not 25 variants of one bug
    assert all(b.expected for b in ALL_BUGS)
    assert len({b.expected for b in ROTARY_BUGS}) == len(ROTARY_BUGS)


@pytest.mark.parametrize("bug", ALL_BUGS, ids=[b.id for b in ALL_BUGS])
def test_bug_gets_its_own_confirmed_explanation(bug: object) -> None:
    report, given = run(bug)
    assert not report.ok, f"{bug.id}: the buggy table passes"
    assert given == bug.expected, f"{bug.id}: {report.explanation}"
    best = report.hypotheses[0]
    assert best["fits"]
    assert best["score"] <= 1.0
    assert math.isfinite(best["residual"])
    assert f"— confirmed: regenerating with {best['regenerated']} reproduces the impl to " \
        f"{best['residual']:.2g}" in report.explanation
    assert report.explanation in report.message


@pytest.mark.parametrize("ok", ALL_CORRECT, ids=[b.id for b in ALL_CORRECT])
def test_correct_table_passes_with_no_explanation(ok: object) -> None:
    report, given = run(ok)
    assert given == "pass", report.message
    assert report.explanation is None or report.explanation == ""


def test_a_near_miss_is_not_confirmed() -> None:
    """The column-index table with a 1e-6 defect: the hypothesis no longer reproduces it, so
    the report says no explanation is confirmed, names the closest with its residual, and
    shows the structural facts instead."""
    table = column_index()
    table[700, 9] += 1e-6
    report = check_encoding(table, "vaswani")
    assert not report.ok
    assert report.explanation.startswith("no explanation confirmed: none of ")
    assert "closest: dims 2i and 2i+1 use different frequencies, off by 1e-06 > " in \
        report.explanation
    assert "what the table shows: dims 2i and 2i+1 use different frequencies" in \
        report.explanation
    assert not any(h["fits"] for h in report.hypotheses)
    assert report.message.splitlines()[-1] == report.explanation      # not "most likely: …"
    # the same table without the defect: confirmed
    assert run(BUGS[0])[1] == "column-index"


def test_the_issue_13_table_is_not_called_bfloat16() -> None:
    """`pos / 10000 ** (i / d)` used to get "most likely: bfloat16 angles"."""
    report = check_encoding(column_index(), "vaswani")
    assert "bfloat16" not in report.explanation
    assert report.explanation.startswith("dims 2i and 2i+1 use different frequencies")


def test_float32_angles_without_angles_option_are_confirmed_as_such() -> None:
    """A correct float32 tutorial table fails the default (float64-angles) check: the
    explanation regenerates it with angles in float32 and the message names angles=."""
    report = check_encoding(tutorial(), "vaswani")
    assert not report.ok
    assert report.hypotheses[0]["key"] == "angles-float32"
    assert report.explanation.startswith("float32 angles")
    assert 'angles="float32"' in report.message


def test_low_precision_hypotheses_are_not_confused() -> None:
    """float16 angles are not explained as bfloat16 ones, nor the reverse; a table within the
    declared angles= tolerance passes."""
    keys = {b.id: run(b)[1] for b in BUGS if b.expected.startswith("angles-")}
    assert keys == {b.id: b.expected for b in BUGS if b.expected.startswith("angles-")}
    bf16 = next(b for b in BUGS if b.expected == "angles-bfloat16").build()
    assert check_encoding(bf16, "vaswani", angles="bfloat16").ok


def test_every_hypothesis_is_a_regeneration_ranked_by_residual() -> None:
    report = check_encoding(posproof.preset("vaswani", dim=D, layout="split").table(L),
                            "vaswani")
    residuals = [h["residual"] for h in report.hypotheses[1:]]
    assert residuals == sorted(residuals)
    assert report.hypotheses[0]["key"] == "layout"
    assert not any(h["fits"] for h in report.hypotheses[1:] if h["key"] == "swap")


class TestRealPackage:
    """positional-encodings' PositionalEncoding1D and broken copies of it."""

    @pytest.fixture(autouse=True)
    def _library(self) -> None:
        self.torch = pytest.importorskip("torch")
        self.pe = pytest.importorskip("positional_encodings.torch_encodings")

    def table(self, channels: int = 64, width: int = 64) -> np.ndarray:
        module = self.pe.PositionalEncoding1D(channels)
        return module(self.torch.zeros(1, 2048, width))[0].numpy()

    def test_the_package_passes_when_its_float32_angles_are_declared(self) -> None:
        assert check_encoding(self.table(), "vaswani", angles="float32").ok
        report = check_encoding(self.table(), "vaswani")
        assert report.hypotheses[0]["key"] == "angles-float32"

    def test_concatenated_copy_is_explained_as_split(self, monkeypatch: object) -> None:
        torch = self.torch
        monkeypatch.setattr(self.pe, "get_emb",
                            lambda s: torch.cat((s.sin(), s.cos()), dim=-1))
        report = check_encoding(self.table(), "vaswani", angles="float32")
        assert not report.ok
        assert report.explanation.startswith("matches the split layout, not interleaved — "
                                             "confirmed: regenerating with layout split")

    def test_cos_first_copy_is_explained_as_swapped(self, monkeypatch: object) -> None:
        torch = self.torch
        monkeypatch.setattr(self.pe, "get_emb", lambda s: torch.flatten(
            torch.stack((s.cos(), s.sin()), dim=-1), -2, -1))
        report = check_encoding(self.table(), "vaswani", angles="float32")
        assert report.hypotheses[0]["key"] == "swap"
        assert report.hypotheses[0]["fits"]

    def test_module_built_for_more_channels_is_explained(self) -> None:
        """PositionalEncoding1D(128) applied to 64 channels: the first 64 columns of a
        128-dim table, so the exponent divides by 128."""
        report = check_encoding(self.table(channels=128), "vaswani", angles="float32")
        assert report.explanation.startswith("the exponent divides by 128, not d = 64")


def _cells(line: str) -> list[str]:
    """A Markdown row without its residual column (numbers vary with the platform's libm)."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells[:5] if len(cells) == 6 else cells


@pytest.mark.slow  # full tier: the script in a subprocess, every case again
def test_script_prints_the_confusion_matrix_that_docs_show() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bug_confusion.py"),
                          "--markdown"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "confusion matrix" in out.stdout
    n, k = len(ALL_BUGS), len(ALL_CORRECT)
    assert f"{n} of {n} bugs get their own confirmed explanation" in out.stdout
    assert f"{k} of {k} correct impls pass with none" in out.stdout
    # docs/bugs.md shows this run's tables (regenerate them with the same command)
    rows = [_cells(line) for line in out.stdout.splitlines() if line.startswith("| ")]
    doc = (ROOT / "docs" / "bugs.md").read_text(encoding="utf-8")
    shown = [_cells(line) for line in doc.splitlines() if line.startswith("| ")]
    assert shown == rows, "docs/bugs.md is stale: python scripts/bug_confusion.py --markdown"
    assert f"{n} of {n} bugs get their own confirmed explanation" in doc


@pytest.mark.parametrize(("length", "noise", "dtype"), [
    (16, 1e-3, np.float32), (16, 3e-3, np.float32), (64, 1e-3, np.float32),
    (1024, 1e-7, np.float64), (1024, 1e-8, np.float64)])
def test_noise_gets_no_explanation(length: int, noise: float, dtype: type) -> None:
    """A correct table plus random noise fails, and no hypothesis is confirmed for it: a
    low-precision hypothesis whose own rounding would hide the noise (bfloat16 angles in a
    16-row table, float32 angles under 1e-7) cannot be told from the spec and is not given."""
    rng = np.random.default_rng(length)
    table = posproof.preset("vaswani", dim=D).table(length)
    report = check_encoding((table + rng.normal(scale=noise, size=table.shape)).astype(dtype),
                            "vaswani")
    assert not report.ok
    assert report.explanation.startswith("no explanation confirmed"), report.explanation
    assert not any(h["fits"] for h in report.hypotheses)


def test_rotary_noise_gets_no_explanation() -> None:
    """A flipped rotation plus noise: the fingerprint still reads R(−m), but no regeneration
    reproduces the impl, so the report says so and shows the fingerprint's reading."""
    torch = pytest.importorskip("torch")
    from posproof.testing import check_rotary

    flipped = ROTARY_BUGS[0].build()

    def noisy(x: object, p: object) -> object:
        y = flipped(x, p)
        return y + 1e-4 * torch.sin(torch.arange(y.numel()).reshape(y.shape))

    report = check_rotary(noisy, head_dim=64)
    assert report.explanation.startswith("no explanation confirmed: none of ")
    assert "what the fingerprint shows: rotation direction is flipped" in report.explanation
    assert not any(h["fits"] for h in report.hypotheses)


def test_rotary_float32_angles_without_the_option_are_confirmed_as_such() -> None:
    pytest.importorskip("torch")
    from posproof.testing import check_rotary

    report = check_rotary(hf_rope(), head_dim=64)
    assert not report.ok
    assert report.hypotheses[0]["key"] == "angles-float32"
    assert report.explanation.startswith("float32 angles")


def test_check_impl_prints_the_confirmed_explanation(tmp_path: Path) -> None:
    """check-impl on a user's file: the confirmed explanation with its residual, and for a
    noisy copy, "no explanation confirmed" with the structural facts."""
    (tmp_path / "usermod.py").write_text(
        "import numpy as np\n"
        "pos = np.arange(1024)[:, None]\n"
        "i = np.arange(64)[None, :]\n"
        "PE = pos / np.power(10000, i / 64)\n"
        "PE[:, 0::2] = np.sin(PE[:, 0::2])\n"
        "PE[:, 1::2] = np.cos(PE[:, 1::2])\n"
        "NOISY = PE + 1e-6 * np.cos(np.arange(PE.size).reshape(PE.shape))\n"
        "import posproof\n"
        "ROT = posproof.rotary(10000, 16)\n"
        "def flipped(x, p):\n"
        "    return ROT.apply(x, -np.asarray(p))\n", encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}

    def check_impl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "posproof", "check-impl", *args],
                              capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=300)

    out = check_impl("usermod.py:PE")
    assert out.returncode == 1, out.stderr
    assert ("use different frequencies: the exponent runs over the column index j"
            in out.stdout)
    assert "— confirmed: regenerating with ω_j = b^(−j/d) reproduces the impl to" in out.stdout
    out = check_impl("usermod.py:NOISY", "--json")
    data = __import__("json").loads(out.stdout)
    assert data["explanation"].startswith("no explanation confirmed")
    assert "(closest: dims 2i and 2i+1 use different frequencies, off by 1e-06 > " in \
        data["explanation"]
    assert "what the table shows: identify: " in data["explanation"]
    assert not any(h["fits"] for h in data["hypotheses"])
    out = check_impl("usermod.py:flipped", "--rotary", "--dim", "16")
    assert out.returncode == 1
    assert "rotation direction is flipped" in out.stdout
    assert "— confirmed: regenerating with R(−m) reproduces the impl to" in out.stdout


class TestRealLlamaRope:
    """transformers' LlamaRotaryEmbedding + apply_rotary_pos_emb, and broken copies of it."""

    @pytest.fixture(autouse=True)
    def _library(self) -> None:
        self.torch = pytest.importorskip("torch")
        self.llama = pytest.importorskip("transformers.models.llama.modeling_llama")

    def apply(self, theta: float = 10000.0) -> object:
        config = self.llama.LlamaConfig(
            hidden_size=256, num_attention_heads=4, head_dim=64, max_position_embeddings=4096,
            rope_parameters={"rope_type": "default", "rope_theta": theta})
        emb = self.llama.LlamaRotaryEmbedding(config)

        def apply(x: object, positions: object) -> object:
            cos, sin = emb(x, positions[None])
            return self.llama.apply_rotary_pos_emb(x, x, cos, sin)[0]

        return apply

    def check(self, fn: object, **kw: object) -> object:
        from posproof.testing import check_rotary

        return check_rotary(fn, head_dim=64, **kw)

    def test_the_library_passes_and_its_float32_angles_are_confirmed(self) -> None:
        assert self.check(self.apply(), angles="float32").ok
        assert self.check(self.apply()).hypotheses[0]["key"] == "angles-float32"

    def test_flipped_copy(self, monkeypatch: pytest.MonkeyPatch) -> None:
        torch = self.torch

        def rotate_half_flipped(x: object) -> object:   # the wrong half negated
            x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
            return torch.cat((x2, -x1), dim=-1)

        monkeypatch.setattr(self.llama, "rotate_half", rotate_half_flipped)
        report = self.check(self.apply(), angles="float32")
        assert report.hypotheses[0]["key"] == "direction"
        assert "— confirmed: regenerating with R(−m) reproduces the impl to" in \
            report.explanation

    def test_wrong_theta_and_adjacent_spec(self) -> None:
        report = self.check(self.apply(theta=500000.0), angles="float32")
        assert report.explanation.startswith("base 500000, not 10000 — confirmed")
        report = self.check(self.apply(), angles="float32", layout="adjacent")
        assert report.explanation.startswith("matches the half layout, not adjacent")
        assert report.hypotheses[0]["fits"]


@pytest.mark.parametrize(("length", "dim"), [(1, 4), (3, 2), (8, 1), (50, 3)])
def test_tiny_tables_are_explained_without_crashing(length: int, dim: int) -> None:
    """dim 1 (only a zero column) and one-row tables: the explanation machinery has nothing
    to fit and says so instead of raising."""
    kw = {"odd_dim": "pad"} if dim % 2 else {}
    table = np.random.default_rng(dim).normal(size=(length, dim))
    report = check_encoding(table, "vaswani", **kw)
    assert not report.ok
    assert report.explanation.startswith("no explanation confirmed")
