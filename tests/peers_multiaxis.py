"""HF transformers' M-RoPE (Qwen2-VL, Qwen3-VL) as an ``apply_fn(x, positions (3, seq))``: the
real peer the multi-axis tests compare with (tests/test_multiaxis.py, test_multiaxis_assert.py)."""

from __future__ import annotations

import numpy as np
import torch


def hf_apply(config_cls, emb_cls, head_dim, sections, base, interleaved=False,
              row_order=(0, 1, 2)):
    """apply_fn(x, positions (3, seq)) from HF's rotary embedding + rotate_half."""
    from transformers.models.qwen2_vl.modeling_qwen2_vl import apply_rotary_pos_emb

    params = {"rope_type": "default", "rope_theta": float(base), "mrope_section": sections}
    if interleaved:
        params["mrope_interleaved"] = True
    cfg = config_cls(hidden_size=head_dim * 2, num_attention_heads=2, head_dim=head_dim,
                     rope_parameters=params)
    emb = emb_cls(cfg)

    def apply_fn(x, positions):
        xt = torch.as_tensor(np.asarray(x), dtype=torch.float32)
        pos = torch.as_tensor(np.asarray(positions))[list(row_order), None, :]   # (3, 1, L)
        cos, sin = emb(xt, pos)
        q, _ = apply_rotary_pos_emb(xt, xt, cos, sin)
        return q.double().numpy()

    return apply_fn


def qwen2():
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding

    return Qwen2VLTextConfig, Qwen2VLRotaryEmbedding


def qwen3():
    from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding

    return Qwen3VLTextConfig, Qwen3VLTextRotaryEmbedding
