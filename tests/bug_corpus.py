"""Classic positional-encoding bugs, each built the way real code builds it, with the
explanation posproof must confirm for it.

Every :class:`Bug` builds a table, a callable of positions, or (spec ``"rope"``)
a rotary ``apply(x, positions)`` with NumPy or PyTorch code in
the style of the tutorial, paper or library it comes from, and names the spec
the author meant and the hypothesis key (see ``posproof/testing/absolute/hypotheses.py``)
that must be *confirmed* for it.  :data:`CORRECT` lists correct tables that must
pass with no explanation at all.  Used by ``tests/test_bug_corpus.py`` and
``scripts/bug_confusion.py`` (the confusion matrix: bug → explanation given).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

D, L = 64, 1024


@dataclass(frozen=True)
class Bug:
    id: str
    source: str                       # where it is seen (pitfalls.md, the issue, a project)
    build: Callable[[], Any]          # the impl: a table or a callable of positions
    expected: str                     # hypothesis key that must be confirmed ("" = none)
    spec: str = "vaswani"
    params: dict[str, Any] = field(default_factory=dict)
    kwargs: dict[str, Any] = field(default_factory=dict)   # check_encoding options
    name: str = ""                    # the explanation's first words, when not the key's


# --------------------------------------------------------------------------- code, as written
def _torch() -> Any:
    import torch

    return torch


def tutorial(d: int = D, max_len: int = L, *, sign: float = -1.0, log: Callable = math.log,
             base: float = 10000.0, exp_dim: int | None = None) -> np.ndarray:
    """The PyTorch tutorial's PositionalEncoding buffer (float32), with the knobs bugs turn."""
    torch = _torch()
    position = torch.arange(max_len).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2) * (sign * log(base) / (exp_dim or d)))
    pe = torch.zeros(max_len, d)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.numpy()


def loop_table(d: int = D, max_len: int = L, exponent: Callable[[int], float] | None = None,
               cos_exponent: Callable[[int], float] | None = None) -> np.ndarray:
    """The blog-post double loop: ``for pos: for i in range(0, d, 2): …`` (float64)."""
    exponent = exponent or (lambda i: i / d)
    cos_exponent = cos_exponent or exponent
    pe = np.zeros((max_len, d))
    for i in range(0, d, 2):
        pe[:, i] = np.sin(np.arange(max_len) / 10000 ** exponent(i))
        pe[:, i + 1] = np.cos(np.arange(max_len) / 10000 ** cos_exponent(i))
    return pe


def column_index(d: int = D, max_len: int = L, twice: bool = False) -> np.ndarray:
    """``pos / 10000 ** (i / d)`` (or ``2 * i / d``) over every column i, then sin/cos by parity."""
    pos = np.arange(max_len)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / np.power(10000, (2 * i if twice else i) / d)
    angle[:, 0::2] = np.sin(angle[:, 0::2])
    angle[:, 1::2] = np.cos(angle[:, 1::2])
    return angle


def pair_index(d: int = D, max_len: int = L) -> np.ndarray:
    """``pos / 10000 ** (i / d)`` with i = 0 … d/2 − 1 the pair index (2i/d meant)."""
    pos = np.arange(max_len)[:, None]
    angle = pos / np.power(10000, np.arange(d // 2)[None, :] / d)
    pe = np.zeros((max_len, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe


def tensor2tensor(d: int = D, max_len: int = L, *, over_n: bool = False,
                  interleave: bool = False) -> np.ndarray:
    """tensor2tensor's get_timing_signal_1d in NumPy: [sin | cos], exponent over n−1."""
    num_timescales = d // 2
    increment = math.log(10000.0) / (num_timescales - (0 if over_n else 1))
    inv = np.exp(np.arange(num_timescales) * -increment)
    scaled = np.arange(max_len)[:, None] * inv[None, :]
    if interleave:
        out = np.empty((max_len, d))
        out[:, 0::2], out[:, 1::2] = np.sin(scaled), np.cos(scaled)
        return out
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)


def diffusion(d: int = D, max_len: int = L, *, minus_one: bool = False,
              flip: bool = True) -> np.ndarray:
    """diffusers' get_timestep_embedding (flip_sin_to_cos=True → [cos | sin])."""
    torch = _torch()
    half = d // 2
    exponent = -math.log(10000) * torch.arange(half, dtype=torch.float64)
    exponent = exponent / (half - (1 if minus_one else 0))
    emb = torch.arange(max_len, dtype=torch.float64)[:, None] * torch.exp(exponent)[None, :]
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip:
        emb = torch.cat([emb[:, half:], emb[:, :half]], dim=-1)
    return emb.numpy()


def angles_in(dtype_name: str, max_len: int = L, d: int = D) -> np.ndarray:
    """HF-style cache: inv_freq in float32, positions and the product in a low dtype."""
    torch = _torch()
    dtype = getattr(torch, dtype_name)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    t = torch.arange(max_len, dtype=dtype)
    freqs = torch.outer(t, inv_freq.to(dtype))
    pe = torch.zeros(max_len, d)
    pe[:, 0::2] = torch.sin(freqs.float())
    pe[:, 1::2] = torch.cos(freqs.float())
    return pe.numpy()


def numpy_fp16_angles(max_len: int = L, d: int = D) -> np.ndarray:
    """A NumPy model run in half precision: angles and sin/cos in float16."""
    pos = np.arange(max_len, dtype=np.float16)[:, None]
    div = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d)).astype(np.float16)
    ang = pos * div
    pe = np.zeros((max_len, d), dtype=np.float16)
    pe[:, 0::2], pe[:, 1::2] = np.sin(ang), np.cos(ang)
    return pe


def float32_in_float64(max_len: int = L, d: int = D) -> np.ndarray:
    """Computed in float32, saved after ``.double()``; checked as a float64 table."""
    return tutorial(d, max_len).astype(np.float64)


def fp16_positions(max_len: int = 4096, d: int = D) -> np.ndarray:
    """Positions built in half precision (integers past 2048 collide), the rest in float32."""
    torch = _torch()
    position = torch.arange(max_len, dtype=torch.half).float().unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    pe = torch.zeros(max_len, d)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.numpy()


def _np_tutorial(d: int = D, max_len: int = L, *, start: int = 0, base: float = 10000.0,
                 freq: Callable[[np.ndarray], np.ndarray] | None = None,
                 funcs: tuple[Callable, Callable] = (np.sin, np.cos)) -> np.ndarray:
    """The NumPy version (float64), with the positions and frequencies bugs change."""
    position = np.arange(start, start + max_len)[:, None]
    div_term = np.exp(np.arange(0, d, 2) * (-math.log(base) / d))
    if freq is not None:
        div_term = freq(div_term)
    pe = np.zeros((max_len, d))
    pe[:, 0::2] = funcs[0](position * div_term)
    pe[:, 1::2] = funcs[1](position * div_term)
    return pe


def _sin_cos_swapped() -> np.ndarray:
    pe = _np_tutorial()
    return pe[:, [j + 1 if j % 2 == 0 else j - 1 for j in range(D)]]


def _concatenated() -> np.ndarray:
    position = np.arange(L)[:, None]
    div_term = np.exp(np.arange(0, D, 2) * (-math.log(10000.0) / D))
    return np.concatenate([np.sin(position * div_term), np.cos(position * div_term)], axis=1)


def _padding_zeroed() -> np.ndarray:
    pe = _np_tutorial()
    pe[0] = 0.0                 # "mask the padding position"
    return pe


def _fairseq_without_padding() -> np.ndarray:
    """fairseq's SinusoidalPositionalEmbedding.get_embedding, `emb[padding_idx] = 0` left out."""
    half = D // 2
    emb = math.log(10000) / (half - 1)
    emb = np.exp(np.arange(half, dtype=np.float64) * -emb)
    emb = np.arange(L, dtype=np.float64)[:, None] * emb[None, :]
    return np.concatenate([np.sin(emb), np.cos(emb)], axis=1)


def _cos_unwritten() -> np.ndarray:
    position = np.arange(L)[:, None]
    div_term = np.exp(np.arange(0, D, 2) * (-math.log(10000.0) / D))
    pe = np.zeros((L, D))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 0::2] = np.sin(position * div_term)       # copy-paste: meant 1::2 = cos
    return pe


def _odd_truncated() -> np.ndarray:
    return _np_tutorial(D, L)[:, :D - 1]


def _integer_division() -> np.ndarray:
    position = np.arange(L)[:, None]
    i = np.arange(0, D, 2)
    div_term = 1.0 / 10000 ** (i // D)               # Python-2 style integer division
    pe = np.zeros((L, D))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def _callable_offset() -> Callable[[np.ndarray], np.ndarray]:
    """A module whose forward adds padding_idx + 1 to the positions it is given."""
    def forward(positions: np.ndarray) -> np.ndarray:
        x = (np.asarray(positions) + 2)[:, None]
        div_term = np.exp(np.arange(0, D, 2) * (-math.log(10000.0) / D))
        pe = np.zeros((x.shape[0], D))
        pe[:, 0::2], pe[:, 1::2] = np.sin(x * div_term), np.cos(x * div_term)
        return pe
    return forward


BUGS: list[Bug] = [
    Bug("column-index i/d", "issue 13: pos / 10000 ** (i / d)", column_index, "column-index"),
    Bug("exponent i/d, pair index", "issue 29: 10000 ** (i / d) with i the pair index",
        pair_index, "exponent-dim"),
    Bug("column-index 2i/d", "pitfalls: 2j/d instead of 2(j//2)/d", lambda: column_index(
        twice=True), "column-index-2j"),
    Bug("blog loop 2i/d, cos 2(i+1)/d", "blog posts: i steps by 2 and is doubled again",
        lambda: loop_table(exponent=lambda i: 2 * i / D,
                           cos_exponent=lambda i: 2 * (i + 1) / D), "column-index-2j"),
    Bug("cos line over the column index", "docs/guide.md: cos(pos / 10000 ** (2j / d)), j odd",
        lambda: loop_table(exponent=lambda i: i / D, cos_exponent=lambda i: 2 * (i + 1) / D),
        "cos-column-index"),
    Bug("blog loop 2i/d both", "blog posts: 2*i/d with i already even",
        lambda: loop_table(exponent=lambda i: 2 * i / D), "exponent-doubled"),
    Bug("sin/cos swapped", "pitfalls: cos first vs sin first", _sin_cos_swapped, "swap"),
    Bug("concatenated, not interleaved", "pitfalls: concatenated vs interleaved",
        _concatenated, "layout"),
    Bug("interleaved, not split", "tensor2tensor spec, interleaved impl",
        lambda: tensor2tensor(interleave=True), "layout", spec="tensor2tensor"),
    Bug("exponent over n−1", "pitfalls: n vs n−1 (tensor2tensor code, paper spec)",
        lambda: tensor2tensor(interleave=True), "n-1"),
    Bug("exponent over n", "pitfalls: n vs n−1 (paper code, tensor2tensor spec)",
        lambda: tensor2tensor(over_n=True), "n", spec="tensor2tensor"),
    Bug("diffusion half−1", "guided-diffusion / DDPM code, diffusers spec",
        lambda: diffusion(minus_one=True), "n-1", spec="diffusion"),
    Bug("diffusion flip_sin_to_cos", "diffusers: flip_sin_to_cos=False against the spec",
        lambda: diffusion(flip=False), "swap", spec="diffusion"),
    Bug("bfloat16 angles", "transformers#29285: angle table built in bf16",
        lambda: angles_in("bfloat16"), "angles-bfloat16"),
    Bug("float16 angles", "gpt-neox#1003: fp16 angle 1044.27 → 1045", lambda: angles_in(
        "float16"), "angles-float16"),
    Bug("float16 angles, NumPy half model", "a NumPy model run in float16",
        numpy_fp16_angles, "angles-float16"),
    Bug("float32 angles, float64 table", "computed in float32, stored after .double()",
        float32_in_float64, "angles-float32", kwargs={"dtype": "float64"}),
    Bug("float16 positions", "pitfalls: fp16 positions quantised past 2048", fp16_positions,
        "positions-float16"),
    Bug("positions start at 1", "torch.arange(1, L + 1)", lambda: _np_tutorial(start=1),
        "offset"),
    Bug("positions offset by padding_idx + 1", "fairseq/OPT offset 2, called with raw ids",
        _callable_offset, "offset", kwargs={"dim": D}),
    Bug("padding row zeroed", "pe[0] = 0 against a spec with no padding row", _padding_zeroed,
        "padding-row"),
    Bug("fairseq padding row not zeroed", "fairseq: emb[padding_idx] = 0 left out",
        _fairseq_without_padding, "padding-missing", spec="fairseq",
        kwargs={"first_position": 0}),
    Bug("base 500000", "Llama 3 rope_theta against base 10000",
        lambda: _np_tutorial(base=500000.0), "base"),
    Bug("base 1000 typo", "10000 written as 1000", lambda: _np_tutorial(base=1000.0), "base"),
    Bug("exponent over 2·d", "d_model 128 in the exponent of a 64-dim table",
        lambda: tutorial(exp_dim=2 * D), "exponent-dim"),
    Bug("exponent sign flipped", "exp(+log(10000)/d …): multiplied, not divided",
        lambda: _np_tutorial(freq=lambda w: 1 / w), "sign"),
    Bug("frequencies reversed", "inv_freq.flip(0)", lambda: _np_tutorial(
        freq=lambda w: w[::-1]), "reversed"),
    Bug("log10 for ln", "np.log10(10000.0) in the exponent", lambda: tutorial(log=math.log10),
        "log10"),
    Bug("integer division", "Python 2 / integer tensors: 2i // d = 0", _integer_division,
        "integer-division"),
    Bug("angles × 2π", "Fourier-feature code: sin(2π·x·ω)", lambda: _np_tutorial(
        freq=lambda w: 2 * math.pi * w), "frequency-factor"),
    Bug("positions / 4", "linear position interpolation applied to the table",
        lambda: _np_tutorial(freq=lambda w: w / 4), "frequency-factor"),
    Bug("scaled by √d", "tutorials: pe * math.sqrt(d_model)",
        lambda: _np_tutorial() * math.sqrt(D), "scale"),
    Bug("scaled by dim ** −0.5", "x-transformers' ScaledSinusoidalEmbedding",
        lambda: _np_tutorial() * D ** -0.5, "scale"),
    Bug("sin in every column", "copy-paste: pe[:, 1::2] = sin(…)", lambda: _np_tutorial(
        funcs=(np.sin, np.sin)), "sine-only"),
    Bug("cos columns never written", "copy-paste: the cos line writes 0::2 again",
        _cos_unwritten, "cos-unwritten"),
    Bug("odd d truncated", "transformers#8226: odd d built as d+1 and cut", _odd_truncated,
        "truncated"),
]

#: Correct tables (with the options their authors would pass): must pass, no explanation.
CORRECT: list[Bug] = [
    Bug("tutorial float32", "PyTorch tutorial (float32 angles, declared)", tutorial, "",
        kwargs={"angles": "float32"}),
    Bug("numpy float64", "the NumPy tutorial", _np_tutorial, ""),
    Bug("stored float16", "a float64 table cast to float16", lambda: _np_tutorial().astype(
        np.float16), ""),
    Bug("tensor2tensor", "get_timing_signal_1d", tensor2tensor, "", spec="tensor2tensor"),
    Bug("diffusers", "get_timestep_embedding(flip_sin_to_cos=True)", diffusion, "",
        spec="diffusion"),
    Bug("fairseq", "fairseq get_embedding with the padding row", lambda: _with_padding(
        _fairseq_without_padding()), "", spec="fairseq", kwargs={"first_position": 0}),
    Bug("scaled, declared", "x-transformers scale, scale= passed",
        lambda: _np_tutorial() * D ** -0.5, "", kwargs={"scale": D ** -0.5}),
]


def _with_padding(table: np.ndarray) -> np.ndarray:
    table = table.copy()
    table[1] = 0.0
    return table


# ---------------------------------------------------------------- rotary, as HF writes it
H = 64


def _rotate_half(x: Any) -> Any:
    torch = _torch()
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def _rotate_half_flipped(x: Any) -> Any:          # the wrong half negated
    torch = _torch()
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((x2, -x1), dim=-1)


def _rotate_every_two(x: Any) -> Any:             # GPT-J
    torch = _torch()
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def hf_rope(*, base: float = 10000.0, rotate: Callable[[Any], Any] = _rotate_half,
            angles: str = "float32", shift: int = 0, rotary_dim: int | None = None,
            flip_freq: bool = False, scale: float = 1.0,
            interleave: bool = False, exponent: str = "2i/d", exp_dim: int | None = None,
            positions_in: str | None = None, divide: bool = False
            ) -> Callable[[Any, Any], Any]:
    """HF's LlamaRotaryEmbedding + apply_rotary_pos_emb in torch, with the knobs bugs turn.

    ``exponent``: ``"2i/d"`` (correct: arange(0, d, 2) / d), ``"i/d"`` (arange(0, d // 2) / d),
    ``"c/d"`` (arange(0, d) / d over every column, cos/sin not duplicated), ``"n-1"``
    (arange(0, d // 2) / (d // 2 − 1)); ``exp_dim``: the d the exponent divides by (default
    the rotated dims); ``positions_in``: the position ids built in that dtype first;
    ``divide``: the angles pos / θ (a kernel dividing by inv_freq)."""
    torch = _torch()
    dim = rotary_dim or H
    over = exp_dim or dim
    index = {"2i/d": lambda: torch.arange(0, dim, 2, dtype=torch.int64).float() / over,
             "i/d": lambda: torch.arange(0, dim // 2).float() / over,
             "c/d": lambda: torch.arange(0, dim).float() / over,
             "n-1": lambda: torch.arange(0, dim // 2).float() / (dim // 2 - 1)}[exponent]()
    inv_freq = 1.0 / (base ** index)
    if flip_freq:
        inv_freq = inv_freq.flip(0)

    def apply(x: Any, positions: Any) -> Any:
        x = torch.as_tensor(x)
        dtype = getattr(torch, angles)
        t = torch.as_tensor(positions) + shift
        if positions_in is not None:
            t = t.to(getattr(torch, positions_in)).float()
        t = t.to(dtype)
        freqs = (torch.outer(t, 1.0 / inv_freq.to(dtype)) if divide
                 else torch.outer(t, inv_freq.to(dtype))).float()
        emb = (freqs if exponent == "c/d" else torch.repeat_interleave(freqs, 2, dim=-1)
               if interleave else torch.cat((freqs, freqs), dim=-1))
        cos, sin = emb.cos() * scale, emb.sin() * scale
        rot, rest = x[..., :dim], x[..., dim:]
        out = rot * cos + rotate(rot) * sin
        return torch.cat((out, rest), dim=-1)

    return apply


ROTARY_BUGS: list[Bug] = [
    Bug("rope: rotate_half negates the wrong half", "nanochat#489: R(−m)",
        lambda: hf_rope(rotate=_rotate_half_flipped), "direction", spec="rope"),
    Bug("rope: GPT-J pairs, half spec", "transformers#25199: adjacent vs half",
        lambda: hf_rope(rotate=_rotate_every_two, interleave=True), "layout", spec="rope"),
    Bug("rope: rope_theta 500000, spec 10000", "airllm#369: rope_theta defaulted",
        lambda: hf_rope(base=500000.0), "base", spec="rope"),
    Bug("rope: partial_rotary_factor 0.5", "rotary_dim 32 of head_dim 64",
        lambda: hf_rope(rotary_dim=32), "rotary-dim", spec="rope"),
    Bug("rope: position_ids + 1", "positions from 1 (cache_position off by one)",
        lambda: hf_rope(shift=1), "offset", spec="rope"),
    Bug("rope: inv_freq flipped", "frequency order reversed", lambda: hf_rope(flip_freq=True),
        "reversed", spec="rope"),
    Bug("rope: attention factor on cos/sin", "YaRN mscale applied under a default spec",
        lambda: hf_rope(scale=1.1), "scale", spec="rope"),
    Bug("rope: float16 angle table", "gpt-neox#1003", lambda: hf_rope(angles="float16"),
        "angles-float16", spec="rope", kwargs={"max_position": 60000}),
    Bug("rope: bfloat16 angle table", "transformers#29285", lambda: hf_rope(angles="bfloat16"),
        "angles-bfloat16", spec="rope"),
    Bug("rope: llama3 rope_scaling dropped", "pitfalls: Llama-3 banding dropped (HF default "
        "init on a llama3 config)", lambda: hf_rope(base=500000.0), "scaling-dropped",
        spec="rope", params={"spec": "rope:base=500000,dim=64,scaling=llama3,factor=8,"
                                     "original_max_position_embeddings=8192"}),
    Bug("rope: rotary never applied", "apply_rotary_pos_emb skipped",
        lambda: (lambda x, p: x), "identity", spec="rope"),
    Bug("rope: GPT-J pairs, R(−m), base 500000", "three conventions off at once",
        lambda: _gptj_flipped(), "fingerprint", spec="rope"),
    Bug("rope: repeat_interleave cos/sin, rotate_half", "pitfalls: half-split vs interleaved "
        "mixed up when converting (transformers#25199, nanotron#427)",
        lambda: hf_rope(interleave=True), "mixup", spec="rope"),
    Bug("rope: exponent i/d", "issue 29: 10000 ** (i / d) with the pair index",
        lambda: hf_rope(exponent="i/d"), "exponent-i/d", spec="rope"),
    Bug("rope: exponent over the column index", "pitfalls: 2j/d instead of 2(j//2)/d, "
        "arange(0, d) / d", lambda: hf_rope(exponent="c/d"), "column-index", spec="rope"),
    Bug("rope: exponent over n−1", "pitfalls: n vs n−1 in the exponent",
        lambda: hf_rope(exponent="n-1"), "exponent-n-1", spec="rope"),
    Bug("rope: exponent over head_dim, partial rotary", "pitfalls: exponent over head_dim vs "
        "rotary_dim", lambda: hf_rope(rotary_dim=32, exp_dim=H), "exponent-head-dim",
        spec="rope", kwargs={"rotary_dim": 32}),
    Bug("rope: pos / θ", "pitfalls: a kernel using pos/θ instead of pos·θ (flashinfer#3819)",
        lambda: hf_rope(divide=True), "inverted", spec="rope"),
    Bug("rope: float16 position ids", "pitfalls: fp16 positions quantised past 2048",
        lambda: hf_rope(positions_in="float16"), "positions-float16", spec="rope",
        kwargs={"max_position": 32768}),
]

#: The same bugs met another way: the reverse mix-up, float16 angles at the default largest
#: position (65535 overflows float16) and at 4k positions.
ROTARY_VARIANTS: list[Bug] = [
    Bug("rope: cat cos/sin, rotate_every_two", "pitfalls: the mix-up the other way round",
        lambda: hf_rope(rotate=_rotate_every_two), "mixup", spec="rope"),
    Bug("rope: mix-up against an adjacent spec", "repeat_interleave + rotate_half checked "
        "against GPT-J's layout", lambda: hf_rope(interleave=True), "mixup", spec="rope",
        kwargs={"layout": "adjacent"}),
    Bug("rope: float16 angles, default positions", "gpt-neox#1003 at max_position 65536",
        lambda: hf_rope(angles="float16"), "angles-float16", spec="rope"),
    Bug("rope: float16 angles, 4k positions", "gpt-neox#1003 at 4k",
        lambda: hf_rope(angles="float16"), "angles-float16", spec="rope",
        kwargs={"max_position": 4096}),
    Bug("rope: exponent i/d, base 500000", "10000 ** (i / d) with rope_theta 500000",
        lambda: hf_rope(exponent="i/d", base=500000.0), "exponent-i/d", spec="rope",
        params={"base": 500000}),
    Bug("rope: exponent over the column index, adjacent", "GPT-J layout, arange(0, d) / d",
        lambda: hf_rope(exponent="c/d", rotate=_rotate_every_two), "column-index",
        spec="rope", kwargs={"layout": "adjacent"}),
    Bug("rope: bfloat16 position ids", "pitfalls: bf16 positions quantised past 256",
        lambda: hf_rope(positions_in="bfloat16"), "positions-bfloat16", spec="rope"),
    Bug("rope: exponent 4i/d", "blog posts: 2 * i / d with i already even",
        lambda: hf_rope(exp_dim=H // 2), "exponent-4i/d", spec="rope"),
    Bug("rope: exponent 4i/d, base 100", "2 * i / d with i already even, base 100",
        lambda: hf_rope(exp_dim=H // 2, base=100.0), "base", spec="rope",
        params={"base": 100}, name="base 10000, not 100 (= 100²: the frequencies an "
        "exponent 4i/d"),
]


def first_words(bug: Bug) -> str:
    """What the first line of the bug's explanation must start with: the bug's name."""
    return bug.name or ROTARY_NAMES[bug.expected]


#: The first words of the explanation for each rotary key: the bug's name.
ROTARY_NAMES: dict[str, str] = {
    "direction": "rotation direction is flipped",
    "layout": "matches the adjacent layout, not half",
    "base": "base 500000, not 10000",
    "rotary-dim": "rotates 32 of 64 channels, not 64",
    "offset": "positions offset by 1",
    "reversed": "frequency order is reversed",
    "scale": "cos and sin are scaled by 1.1",
    "angles-float16": "float16 angles",
    "angles-bfloat16": "bfloat16 angles",
    "scaling-dropped": "the rope-llama3 scaling is not applied",
    "identity": "no channel is rotated",
    "fingerprint": "matches the adjacent layout, not half",
    "mixup": "half-split/interleaved mix-up",
    "exponent-i/d": "exponent i/d instead of 2i/d",
    "column-index": "exponent over the column index",
    "exponent-n-1": "exponent over n−1",
    "exponent-4i/d": "exponent 4i/d instead of 2i/d",
    "exponent-head-dim": "exponent over head_dim 64, not rotary_dim 32",
    "positions-float16": "positions rounded to float16",
    "positions-bfloat16": "positions rounded to bfloat16",
    "inverted": "angles pos/θ instead of pos·θ",
}

ROTARY_CORRECT: list[Bug] = [
    Bug("rope: HF float32", "LlamaRotaryEmbedding (float32 angles, declared)", hf_rope, "",
        spec="rope", kwargs={"angles": "float32"}),
    Bug("rope: GPT-J adjacent", "rotate_every_two, adjacent spec", lambda: hf_rope(
        rotate=_rotate_every_two, interleave=True), "", spec="rope",
        kwargs={"angles": "float32", "layout": "adjacent"}),
]


def _gptj_flipped() -> Callable[[Any, Any], Any]:
    torch = _torch()

    def flipped(x: Any) -> Any:
        x1, x2 = x[..., ::2], x[..., 1::2]
        return torch.stack((x2, -x1), dim=-1).flatten(-2)

    return hf_rope(rotate=flipped, interleave=True, base=500000.0)


#: Every bug (tables and rotations) and every correct impl.
ALL_BUGS = BUGS + ROTARY_BUGS + ROTARY_VARIANTS
ALL_CORRECT = CORRECT + ROTARY_CORRECT


def run(bug: Bug) -> tuple[Any, str]:
    """(the report of check_encoding / check_rotary on the bug's impl, the key of the
    confirmed explanation)."""
    from posproof.testing import check_encoding, check_rotary

    if bug.spec == "rope":
        kw = {**bug.params, **bug.kwargs}
        report = check_rotary(bug.build(), **({} if "spec" in kw else {"head_dim": H}), **kw)
    else:
        report = check_encoding(bug.build(), bug.spec, **bug.params, **bug.kwargs)
    return report, given(report)


def given(report: Any) -> str:
    """The key of the explanation the report confirms; "" for none, "pass" when it passed."""
    if report.ok:
        return "pass"
    first = report.hypotheses[0] if report.hypotheses else {}
    return str(first.get("key", "?")) if first.get("fits") else ""
