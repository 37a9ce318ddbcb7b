"""Issue 29, items 1/1b for rotary and multi-axis grids: a declared angle dtype widens the
tolerance only by that dtype's rounding model (θ formed in it from its exponent, m·θ rounded
once more: 4·eps + eps_angles + γ_k·|m·θ|, k = 2·|ln θ| + 4), not 16·eps_angles·|m·θ|; a
declared dtype whose model leaves most entries unjudged is unknown, no pass.

The bugs below hide under the old 16·eps_angles tolerance (a 12.5 % relative angle error
for bfloat16, 1.6 % for float16) and are caught by the model; the correct implementations,
angles formed in bfloat16 / float16 / float32 the usual ways, still pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import posproof
from posproof.model.multiaxis import multi_preset
from posproof.testing import check_rotary
from posproof.testing.absolute.grid import check_multi_encoding
from posproof.testing.core.judging import Tolerance

torch = pytest.importorskip("torch")

H = 128
BASE = 10000.0


def _rotate_half(x: Any) -> Any:
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def _rotate_every_two(x: Any) -> Any:
    out = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1)
    return out.flatten(-2)


def torch_rope(*, angles: str = "float32", inv_freq_in: str = "float32",
               layout: str = "half", freq_factor: float = 1.0,
               column_index: bool = False) -> Callable[[Any, Any], Any]:
    """HF's rotary: inv_freq = 1 / base ** (arange(0, d, 2) / d) in float32, positions ×
    inv_freq in float32 (positions as float32, exact below 2²⁴), the angles then rounded to
    ``angles`` (the dtype they are formed in), cos and sin in float32.  ``inv_freq_in``: the
    inverse frequencies rounded to that dtype first; ``freq_factor``: every frequency off by
    that factor (a bug); ``column_index``: ``base ** (c / d)`` with the channel index c (the
    column-index bug: channels 2k+1 turn base^(1/d) slower than 2k), adjacent pairs."""
    if column_index:
        inv_freq = 1.0 / (BASE ** (torch.arange(0, H).float() / H))
    else:
        inv_freq = 1.0 / (BASE ** (torch.arange(0, H, 2, dtype=torch.int64).float() / H))
    inv_freq = (inv_freq * freq_factor).to(getattr(torch, inv_freq_in)).float()

    def apply(x: Any, positions: Any) -> Any:
        x = torch.as_tensor(x)
        t = torch.as_tensor(positions).float()
        freqs = torch.outer(t, inv_freq).to(getattr(torch, angles)).float()
        if column_index:
            emb = freqs
        elif layout == "half":
            emb = torch.cat((freqs, freqs), dim=-1)
        else:
            emb = torch.repeat_interleave(freqs, 2, dim=-1)
        rotate = _rotate_half if layout == "half" else _rotate_every_two
        return x * emb.cos() + rotate(x) * emb.sin()

    return apply


def numpy_rope(angles: str, *, how: str = "outer") -> Callable[[Any, Any], Any]:
    """NumPy: θ rounded to ``angles`` (float16 or float32), positions × θ rounded to it."""
    dt = np.dtype(angles)
    if how == "exp":          # the tutorial's div_term, every step in the dtype
        theta = np.exp(np.arange(0, H, 2, dtype=dt) * dt.type(-np.log(BASE) / H))
    else:
        theta = (1.0 / BASE ** (np.arange(0, H, 2) / H)).astype(dt)

    def apply(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        ang = np.outer(np.asarray(positions, dtype=np.float64),
                       theta.astype(np.float64)).astype(dt).astype(np.float64)
        emb = np.concatenate([ang, ang], axis=-1)
        half = np.concatenate([-x[..., H // 2:], x[..., :H // 2]], axis=-1)
        return x * np.cos(emb) + half * np.sin(emb)

    return apply


# ------------------------------------------------------------------ bugs the model catches
BUGS = {
    # 10000 ** (c / d) over every channel (adjacent pairs): channel 2k+1 7.5 % slow
    "column-index bf16": ({"column_index": True, "angles": "bfloat16", "layout": "adjacent"},
                          "bfloat16", "adjacent"),
    # every frequency 3 % fast under bfloat16 angles (the model allows 1.6 % at θ = 1)
    "frequency 3% bf16": ({"freq_factor": 1.03, "angles": "bfloat16"}, "bfloat16", "half"),
    # every frequency 1 % fast under float16 angles (the model allows 0.2 % at θ = 1)
    "frequency 1% fp16": ({"freq_factor": 1.01, "angles": "float16"}, "float16", "half"),
}


@pytest.mark.parametrize("name", sorted(BUGS))
def test_a_bug_hidden_by_16_eps_angles_does_not_pass(name: str) -> None:
    kwargs, angles, layout = BUGS[name]
    report = check_rotary(torch_rope(**kwargs), head_dim=H, layout=layout, angles=angles,
                          max_position=4096)
    assert not report.ok, report.message
    assert report.checks[0]["status"] == "fail"
    assert "γ_k" in report.checks[0]["tolerance"]
    with pytest.raises(AssertionError):
        posproof.testing.assert_rotary(torch_rope(**kwargs), head_dim=H, layout=layout,
                                       angles=angles, max_position=4096)


def test_the_old_rule_hid_them() -> None:
    """The same comparison under the old 16·eps_angles: every bug above within it (so the
    test above fails on the old code)."""
    for kwargs, angles, layout in BUGS.values():
        rot = posproof.rotary(BASE, H, layout=layout)
        positions = np.arange(0, 4096, 7)
        basis = np.eye(H)[:, None, None, :]
        y = np.asarray(torch_rope(**kwargs)(np.broadcast_to(
            basis, (H, 1, positions.size, H)).copy(), positions))[:, 0]
        expected = rot.apply(np.broadcast_to(basis, (H, 1, positions.size, H)).copy(),
                             positions)[:, 0]
        theta = np.zeros(H)
        for (i, j), w in zip(rot.pairs, rot.frequencies_float, strict=True):
            theta[i] = theta[j] = w
        mtheta = np.multiply.outer(positions.astype(np.float64), theta)
        old = Tolerance.of("float32", angles, model=False)
        assert np.all(np.abs(y - expected) <= old.out + old.angle * mtheta), kwargs
        new = Tolerance.of("float32", angles)
        assert not np.all(np.abs(y - expected) <= new.bound(mtheta, theta)), kwargs


# ------------------------------------------------------------------ correct ways still pass
CORRECT = {
    "torch float32 (HF)": (lambda: torch_rope(angles="float32"), "float32"),
    "torch bf16 angles": (lambda: torch_rope(angles="bfloat16"), "bfloat16"),
    "torch bf16 inv_freq": (lambda: torch_rope(angles="bfloat16", inv_freq_in="bfloat16"),
                            "bfloat16"),
    "torch fp16 angles": (lambda: torch_rope(angles="float16", inv_freq_in="float16"),
                          "float16"),
    "torch adjacent bf16": (lambda: torch_rope(angles="bfloat16", layout="adjacent"),
                            "bfloat16"),
    "numpy fp16": (lambda: numpy_rope("float16"), "float16"),
    "numpy fp16 exp": (lambda: numpy_rope("float16", how="exp"), "float16"),
    "numpy fp32": (lambda: numpy_rope("float32"), "float32"),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_low_precision_angles_pass(name: str) -> None:
    make, angles = CORRECT[name]
    layout = "adjacent" if "adjacent" in name else "half"
    report = check_rotary(make(), head_dim=H, layout=layout, angles=angles,
                          max_position=4096)
    assert report.ok, report.message
    assert "γ_k" in report.tolerance["formula"]
    assert report.evidence is not None


# ------------------------------------------------------------------ mostly unjudged
def test_bfloat16_angles_at_65536_positions_are_unknown_not_pass() -> None:
    """At the default max_position (65536) bfloat16 angles leave most drawn entries
    unjudged (γ_k·m·θ ≥ 2): the check does not pass, even for the exact rotation."""
    rot = posproof.rotary(BASE, 64)
    report = check_rotary(rot.apply, head_dim=64, dtype="float64", angles="bfloat16")
    assert not report.ok
    assert report.checks[0]["status"] == "unknown"
    assert report.label == "unknown"
    assert "most entries not judged under angles='bfloat16'" in report.message
    assert "max_position" in report.message
    # at 4096 the same rotation is judged on most entries: a pass, labelled partial
    near = check_rotary(rot.apply, head_dim=64, dtype="float64", angles="bfloat16",
                        max_position=4096)
    assert near.ok, near.message


# ------------------------------------------------------------------ multi-axis grids
def _sincos2d(freq_factor: float, angles: str) -> np.ndarray:
    enc = multi_preset("sincos-2d", dim=64)
    pos = enc.grid((64, 64))
    out = np.empty((pos.shape[0], 64))
    for b in enc.blocks:
        w = np.asarray(b.encoding.column_frequencies_float) * freq_factor
        ang = np.multiply.outer(pos[:, b.axis].astype(np.float64),
                                w.astype(angles).astype(np.float64))
        ang = ang.astype(angles if angles != "bfloat16" else "float32").astype(np.float64)
        funcs = np.asarray(b.encoding.column_funcs)
        out[:, b.columns] = np.where(funcs == "sin", np.sin(ang), np.cos(ang))
    return out


def test_multi_axis_grid_is_judged_under_the_model() -> None:
    """A 2-D sin-cos grid whose frequencies are 1 % fast, angles in float16: within the old
    16·eps16 (1.6 %), beyond the model (0.2 % at ω = 1); the correct float16 grid passes."""
    bug = check_multi_encoding(_sincos2d(1.01, "float16"), "sincos-2d", grid=(64, 64),
                               dim=64, angles="float16")
    assert not bug.ok
    assert bug.checks[0]["status"] == "fail"
    assert "γ_k" in bug.checks[0]["tolerance"]
    good = check_multi_encoding(_sincos2d(1.0, "float16"), "sincos-2d", grid=(64, 64),
                                dim=64, angles="float16")
    assert good.ok, good.message


# ------------------------------------------------------------------ posproof check-impl
def test_check_impl_rope_spec_with_angles_uses_the_model(tmp_path: Any,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """``check-impl FILE:ATTR rope:dim=128 --rotary --angles bfloat16``: the 3 % frequency
    bug fails (exit 1) and the tolerance printed is the model; the correct bfloat16 rotary
    passes (exit 0)."""
    from pathlib import Path

    from posproof.cli import app as cli

    here = Path(__file__).resolve().parent
    (tmp_path / "user_rope_model.py").write_text(
        f"import sys\nsys.path.insert(0, {str(here)!r})\n"
        "from test_rotary_rounding_model import torch_rope\n"
        "BUG = torch_rope(freq_factor=1.03, angles='bfloat16')\n"
        "GOOD = torch_rope(angles='bfloat16')\n")
    path = tmp_path / "user_rope_model.py"
    status = cli.main(["check-impl", f"{path}:BUG", "rope:dim=128", "--rotary",
                       "--angles", "bfloat16", "--max-position", "4096"])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert "γ_k" in out
    assert "16·(eps + eps_bfloat16" not in out
    status = cli.main(["check-impl", f"{path}:GOOD", "rope:dim=128", "--rotary",
                       "--angles", "bfloat16", "--max-position", "4096"])
    out, err = capsys.readouterr()
    assert status == 0, out + err


# ------------------------------------------------------------------ multi-axis rotary
def _mrope16(factor: float) -> Callable[[Any, Any], Any]:
    """M-RoPE with θ·``factor`` rounded to float16 and m·θ rounded to float16 (positions
    exact), the rotation in float64."""
    from posproof.model.multirope import mrope

    rot = mrope(10000, 32, [4, 6, 6])

    def apply(x: Any, positions: Any) -> Any:
        pos = np.asarray(positions)
        theta = (rot.frequencies_float * factor).astype(np.float16).astype(np.float64)
        ang = (pos[np.asarray(rot.pair_axes)].T * theta[None, :]).astype(np.float16)
        return rot.rotary.rotate(np.asarray(x, dtype=np.float64), ang.astype(np.float64))

    return apply


def test_multi_axis_rotary_is_judged_under_the_model() -> None:
    """check_multi_rotary under angles="float16": the exact M-RoPE with float16 angles
    passes, every frequency 1 % fast fails (the old 16·eps16 allowed 1.6 %)."""
    from posproof.model.multirope import mrope
    from posproof.testing.rope.grid import check_multi_rotary

    rot = mrope(10000, 32, [4, 6, 6])
    good = check_multi_rotary(_mrope16(1.0), rot, dtype="float64", angles="float16",
                              max_position=1024)
    assert good.ok, good.message
    assert "γ_k" in good.tolerance["formula"]
    bug = check_multi_rotary(_mrope16(1.01), rot, dtype="float64", angles="float16",
                             max_position=1024)
    assert not bug.ok
    assert bug.checks[0]["status"] == "fail"
