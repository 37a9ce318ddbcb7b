"""Config dicts modelled on the real config.json of each model (issue 23's test models).

The shapes of the real files are kept (their keys, rope blocks, vision configs); the values
that decide positions are the real ones, except where noted: a switch length far beyond what a
unit test should run (Mistral's 4096-token sliding window, Phi-3's 4096 original context) is
moved to a small value in the ``*_small`` variants, and the real value is checked once in a test
marked slow.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

LLAMA3_8B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 8192, "rope_theta": 500000.0,
    "rms_norm_eps": 1e-05, "vocab_size": 128256, "bos_token_id": 128000,
    "eos_token_id": 128001, "hidden_act": "silu", "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.40.0.dev0"}

# The example: Llama with dynamic NTK, factor 2, 64 positions.
LLAMA_DYNAMIC = {**LLAMA3_8B, "max_position_embeddings": 64, "rope_theta": 10000.0,
                 "head_dim": 16, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}

MISTRAL_7B = {
    "architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "max_position_embeddings": 32768, "rope_theta": 10000.0,
    "sliding_window": 4096, "rms_norm_eps": 1e-05, "vocab_size": 32000, "bos_token_id": 1,
    "eos_token_id": 2, "hidden_act": "silu", "torch_dtype": "bfloat16"}
MISTRAL_SMALL_WINDOW = {**MISTRAL_7B, "sliding_window": 12}

QWEN2_7B = {
    "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
    "intermediate_size": 18944, "num_attention_heads": 28, "num_hidden_layers": 28,
    "num_key_value_heads": 4, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
    "sliding_window": 131072, "use_sliding_window": False, "max_window_layers": 28,
    "rms_norm_eps": 1e-06, "vocab_size": 152064, "bos_token_id": 151643,
    "eos_token_id": 151643, "hidden_act": "silu", "torch_dtype": "bfloat16"}

GEMMA_7B = {
    "architectures": ["GemmaForCausalLM"], "model_type": "gemma", "hidden_size": 3072,
    "intermediate_size": 24576, "num_attention_heads": 16, "num_hidden_layers": 28,
    "num_key_value_heads": 16, "head_dim": 256, "max_position_embeddings": 8192,
    "rope_theta": 10000.0, "rms_norm_eps": 1e-06, "vocab_size": 256000, "bos_token_id": 2,
    "eos_token_id": 1, "pad_token_id": 0, "hidden_act": "gelu", "torch_dtype": "bfloat16"}

_PHI3_SHORT = [1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.25, 1.25, 1.4, 1.45, 1.45, 1.45, 1.55,
               1.85, 1.9, 1.9, 1.95, 2.0, 2.05, 2.1, 2.15, 2.2, 2.25, 2.3, 2.4, 2.5, 2.55,
               2.6, 2.65, 2.65, 2.7, 2.7, 2.75, 2.75, 2.8, 2.8, 2.8, 2.85, 2.85, 2.9, 2.9,
               2.95, 2.95, 3.0, 3.0, 3.0, 3.0, 3.0]
_PHI3_LONG = [1.08, 1.1, 1.14, 1.34, 1.59, 1.6, 1.62, 2.62, 3.23, 3.29, 4.93, 7.07, 7.36,
              7.63, 8.02, 9.79, 11.86, 13.29, 15.05, 16.65, 20.78, 29.63, 31.73, 35.96,
              36.76, 37.54, 37.57, 37.62, 38.35, 38.36, 38.71, 39.38, 42.96, 43.79, 45.31,
              45.71, 46.78, 46.84, 47.3, 47.74, 48.28, 48.32, 49.69, 51.5, 52.28, 55.12,
              57.86, 60.31]
PHI3_MINI_128K = {
    "architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 3072,
    "intermediate_size": 8192, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 32, "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
    "rope_scaling": {"type": "longrope", "short_factor": _PHI3_SHORT,
                     "long_factor": _PHI3_LONG},
    "sliding_window": 262144, "rms_norm_eps": 1e-05, "vocab_size": 32064, "bos_token_id": 1,
    "eos_token_id": 32000, "pad_token_id": 32000, "hidden_act": "silu",
    "torch_dtype": "bfloat16"}
PHI3_SMALL_SWITCH = {**PHI3_MINI_128K, "original_max_position_embeddings": 40,
                     "max_position_embeddings": 1280}

GPT2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_ctx": 1024,
        "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "vocab_size": 50257,
        "activation_function": "gelu_new", "bos_token_id": 50256, "eos_token_id": 50256,
        "layer_norm_epsilon": 1e-05}

OPT_125M = {"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": 768,
            "ffn_dim": 3072, "num_attention_heads": 12, "num_hidden_layers": 12,
            "max_position_embeddings": 2048, "word_embed_proj_dim": 768, "vocab_size": 50272,
            "do_layer_norm_before": True, "bos_token_id": 2, "eos_token_id": 2,
            "pad_token_id": 1, "activation_function": "relu"}

BLOOM_560M = {"architectures": ["BloomForCausalLM"], "model_type": "bloom", "n_embed": 1024,
              "n_head": 16, "n_layer": 24, "vocab_size": 250880, "bos_token_id": 1,
              "eos_token_id": 2, "pad_token_id": 3, "layer_norm_epsilon": 1e-05,
              "apply_residual_connection_post_layernorm": False}

T5_SMALL = {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5",
            "d_model": 512, "d_kv": 64, "d_ff": 2048, "num_layers": 6,
            "num_decoder_layers": 6, "num_heads": 8, "relative_attention_num_buckets": 32,
            "relative_attention_max_distance": 128, "vocab_size": 32128,
            "decoder_start_token_id": 0, "pad_token_id": 0, "eos_token_id": 1,
            "feed_forward_proj": "relu", "is_encoder_decoder": True}

QWEN2_VL_7B = {
    "architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl",
    "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "max_position_embeddings": 32768,
    "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "sliding_window": 32768, "use_sliding_window": False, "max_window_layers": 28,
    "rms_norm_eps": 1e-06, "vocab_size": 152064, "bos_token_id": 151643,
    "eos_token_id": 151645, "image_token_id": 151655, "video_token_id": 151656,
    "vision_start_token_id": 151652, "vision_end_token_id": 151653, "vision_token_id": 151654,
    "vision_config": {"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16,
                      "in_chans": 3, "hidden_size": 3584, "patch_size": 14,
                      "spatial_merge_size": 2, "spatial_patch_size": 14,
                      "temporal_patch_size": 2}}

# Issue 28: local/global layers (Gemma 2: alternating, Gemma 3: five local to one global, local
# base 10000, global 10^6), softcapping (Gemma 2), partial rotary (Phi-2 0.4, Pythia 0.25).
GEMMA2_2B = {
    "architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2",
    "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "bos_token_id": 2,
    "cache_implementation": "hybrid", "eos_token_id": 1, "head_dim": 256,
    "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 2304, "intermediate_size": 9216, "max_position_embeddings": 8192,
    "num_attention_heads": 8, "num_hidden_layers": 26, "num_key_value_heads": 4,
    "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
    "rope_theta": 10000.0, "sliding_window": 4096, "torch_dtype": "float32",
    "transformers_version": "4.42.4", "vocab_size": 256000}
GEMMA2_SMALL_WINDOW = {**GEMMA2_2B, "sliding_window": 12}

GEMMA3_1B = {
    "architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text",
    "attention_bias": False, "attn_logit_softcapping": None, "bos_token_id": 2,
    "cache_implementation": "hybrid", "eos_token_id": [1, 106],
    "final_logit_softcapping": None, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "intermediate_size": 6912,
    "max_position_embeddings": 32768, "num_attention_heads": 4, "num_hidden_layers": 26,
    "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000, "rope_scaling": None,
    "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6,
    "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0", "vocab_size": 262144}
GEMMA3_SMALL_WINDOW = {**GEMMA3_1B, "sliding_window": 10}

PHI2 = {
    "architectures": ["PhiForCausalLM"], "model_type": "phi", "bos_token_id": 50256,
    "eos_token_id": 50256, "hidden_act": "gelu_new", "hidden_size": 2560,
    "intermediate_size": 10240, "layer_norm_eps": 1e-05, "max_position_embeddings": 2048,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
    "partial_rotary_factor": 0.4, "qk_layernorm": False, "rope_scaling": None,
    "rope_theta": 10000.0, "tie_word_embeddings": False, "torch_dtype": "float16",
    "vocab_size": 51200}

PYTHIA_160M = {
    "architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "bos_token_id": 0,
    "eos_token_id": 0, "hidden_act": "gelu", "hidden_size": 768, "intermediate_size": 3072,
    "layer_norm_eps": 1e-05, "max_position_embeddings": 2048, "num_attention_heads": 12,
    "num_hidden_layers": 12, "rotary_emb_base": 10000, "rotary_pct": 0.25,
    "tie_word_embeddings": False, "torch_dtype": "float16", "transformers_version": "4.24.0",
    "use_parallel_residual": True, "vocab_size": 50304}

# Issue 28: an encoder-decoder model with learned absolute tables on both sides (facebook/
# bart-large); its decoder takes no position ids.
BART_LARGE = {
    "architectures": ["BartForConditionalGeneration"], "model_type": "bart", "d_model": 1024,
    "encoder_layers": 12, "decoder_layers": 12, "encoder_attention_heads": 16,
    "decoder_attention_heads": 16, "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096,
    "max_position_embeddings": 1024, "vocab_size": 50265, "pad_token_id": 1, "bos_token_id": 0,
    "eos_token_id": 2, "decoder_start_token_id": 2, "is_encoder_decoder": True,
    "scale_embedding": False, "activation_function": "gelu"}


def write(tmp_path: Path, config: dict, name: str = "config.json") -> Path:
    """Write ``config`` as ``tmp_path/name`` (a copy: the test may not touch the module's)."""
    path = tmp_path / name
    path.write_text(json.dumps(copy.deepcopy(config)), encoding="utf-8")
    return path
