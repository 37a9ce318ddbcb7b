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


# ---------------------------------------------------------------- issue 28: one per model type
# Modelled on the published config.json of each checkpoint named beside it; the positional
# fields (rope_theta / rope_scaling / rope_parameters, partial rotary, head_dim, rotary_dim,
# max_position_embeddings, sliding windows and layer types, ALiBi and T5 settings) as
# published, the widths as published (check-model shrinks them).  Checkpoint → config.
_LLAMA_LIKE = {"hidden_act": "silu", "rms_norm_eps": 1e-05, "bos_token_id": 1,
               "eos_token_id": 2, "torch_dtype": "bfloat16"}

MIXTRAL_8X7B = {  # mistralai/Mixtral-8x7B-v0.1
    **_LLAMA_LIKE, "architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "max_position_embeddings": 32768,
    "rope_theta": 1000000.0, "sliding_window": None, "num_local_experts": 8,
    "num_experts_per_tok": 2, "router_aux_loss_coef": 0.02, "vocab_size": 32000}

LLAMA_SCALING_CONFLICT = {  # the case: both blocks, transformers takes rope_scaling
    **LLAMA3_8B, "max_position_embeddings": 64, "rope_theta": 10000.0, "head_dim": 16,
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
    "rope_scaling": {"type": "dynamic", "factor": 2.0}}

PUBLISHED: dict[str, dict] = {
    "llama": LLAMA3_8B,
    "mistral": MISTRAL_SMALL_WINDOW,
    "mixtral": MIXTRAL_8X7B,
    "qwen2": QWEN2_7B,
    "gemma": GEMMA_7B,
    "phi3": PHI3_SMALL_SWITCH,
    "gpt2": GPT2,
    "opt": OPT_125M,
    "bloom": BLOOM_560M,
    "t5": T5_SMALL,
    "qwen2_vl": QWEN2_VL_7B,
    "qwen2_moe": {  # Qwen/Qwen1.5-MoE-A2.7B
        **_LLAMA_LIKE, "model_type": "qwen2_moe", "hidden_size": 2048,
        "intermediate_size": 5632, "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632, "num_attention_heads": 16,
        "num_key_value_heads": 16, "num_hidden_layers": 24, "num_experts": 60,
        "num_experts_per_tok": 4, "decoder_sparse_step": 1, "max_position_embeddings": 8192,
        "rope_theta": 1000000.0, "sliding_window": 32768, "use_sliding_window": False,
        "max_window_layers": 21, "vocab_size": 151936, "rms_norm_eps": 1e-06},
    "qwen3": {  # Qwen/Qwen3-8B
        **_LLAMA_LIKE, "model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 36, "max_position_embeddings": 40960, "rope_theta": 1000000.0,
        "rope_scaling": None, "sliding_window": None, "use_sliding_window": False,
        "max_window_layers": 36, "vocab_size": 151936, "rms_norm_eps": 1e-06},
    "qwen3_moe": {  # Qwen/Qwen3-30B-A3B
        **_LLAMA_LIKE, "model_type": "qwen3_moe", "hidden_size": 2048,
        "intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32,
        "num_key_value_heads": 4, "head_dim": 128, "num_hidden_layers": 48,
        "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
        "max_position_embeddings": 40960, "rope_theta": 1000000.0, "rope_scaling": None,
        "sliding_window": None, "use_sliding_window": False, "vocab_size": 151936},
    "gemma2": {  # google/gemma-2-9b
        "model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336,
        "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
        "num_hidden_layers": 42, "max_position_embeddings": 8192, "rope_theta": 10000.0,
        "sliding_window": 4096, "attn_logit_softcapping": 50.0,
        "final_logit_softcapping": 30.0, "query_pre_attn_scalar": 256,
        "hidden_activation": "gelu_pytorch_tanh", "vocab_size": 256000, "pad_token_id": 0,
        "bos_token_id": 2, "eos_token_id": 1},
    "gemma3_text": {  # google/gemma-3-1b-pt
        "model_type": "gemma3_text", "hidden_size": 1152, "intermediate_size": 6912,
        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
        "num_hidden_layers": 26, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0, "rope_scaling": None, "sliding_window": 512,
        "sliding_window_pattern": 6, "query_pre_attn_scalar": 256,
        "final_logit_softcapping": None, "attn_logit_softcapping": None,
        "vocab_size": 262144, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 1},
    "phi": {  # microsoft/phi-2
        "model_type": "phi", "hidden_size": 2560, "intermediate_size": 10240,
        "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 2048, "rope_theta": 10000.0,
        "partial_rotary_factor": 0.4, "qk_layernorm": False, "hidden_act": "gelu_new",
        "layer_norm_eps": 1e-05, "vocab_size": 51200, "bos_token_id": 50256,
        "eos_token_id": 50256},
    "phimoe": {  # microsoft/Phi-3.5-MoE-instruct (switch moved to 40 as PHI3_SMALL_SWITCH)
        "model_type": "phimoe", "hidden_size": 4096, "intermediate_size": 6400,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
        "max_position_embeddings": 1280, "original_max_position_embeddings": 40,
        "rope_theta": 10000.0, "rope_scaling": {
            "type": "longrope", "short_factor": [1.0] * 64,
            "long_factor": [1.0 + i / 16 for i in range(64)],
            "short_mscale": 1.243163121016122, "long_mscale": 1.243163121016122,
            "original_max_position_embeddings": 40},
        "sliding_window": 131072, "num_local_experts": 16, "num_experts_per_tok": 2,
        "vocab_size": 32064, "rms_norm_eps": 1e-05, "bos_token_id": 1, "eos_token_id": 32000},
    "stablelm": {  # stabilityai/stablelm-3b-4e1t
        "model_type": "stablelm", "hidden_size": 2560, "intermediate_size": 6912,
        "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 4096, "rope_theta": 10000, "partial_rotary_factor": 0.25,
        "use_qkv_bias": False, "layer_norm_eps": 1e-05, "vocab_size": 50304,
        "bos_token_id": 0, "eos_token_id": 0},
    "gpt_neox": {  # EleutherAI/pythia-160m
        "model_type": "gpt_neox", "hidden_size": 768, "intermediate_size": 3072,
        "num_attention_heads": 12, "num_hidden_layers": 12, "max_position_embeddings": 2048,
        "rotary_emb_base": 10000, "rotary_pct": 0.25, "use_parallel_residual": True,
        "layer_norm_eps": 1e-05, "vocab_size": 50304, "bos_token_id": 0, "eos_token_id": 0},
    "persimmon": {  # adept/persimmon-8b-base
        "model_type": "persimmon", "hidden_size": 4096, "intermediate_size": 16384,
        "num_attention_heads": 64, "num_hidden_layers": 36, "max_position_embeddings": 16384,
        "rope_theta": 25000.0, "partial_rotary_factor": 0.5, "qk_layernorm": True,
        "hidden_act": "relu2", "layer_norm_eps": 1e-05, "vocab_size": 262144,
        "bos_token_id": 71013, "eos_token_id": 71013},
    "nemotron": {  # nvidia/Minitron-4B-Base
        "model_type": "nemotron", "hidden_size": 3072, "intermediate_size": 9216,
        "num_attention_heads": 24, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 32, "max_position_embeddings": 4096, "rope_theta": 10000,
        "partial_rotary_factor": 0.5, "hidden_act": "relu2", "norm_eps": 1e-05,
        "vocab_size": 256000, "bos_token_id": 2, "eos_token_id": 3},
    "olmo": {  # allenai/OLMo-7B-hf
        "model_type": "olmo", "hidden_size": 4096, "intermediate_size": 11008,
        "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 2048, "rope_theta": 10000.0, "clip_qkv": None,
        "vocab_size": 50304, "pad_token_id": 1, "eos_token_id": 50279},
    "olmo2": {  # allenai/OLMo-2-1124-7B
        "model_type": "olmo2", "hidden_size": 4096, "intermediate_size": 11008,
        "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 4096, "rope_theta": 500000, "rms_norm_eps": 1e-06,
        "vocab_size": 100352, "pad_token_id": 100277, "eos_token_id": 100257},
    "olmoe": {  # allenai/OLMoE-1B-7B-0924
        "model_type": "olmoe", "hidden_size": 2048, "intermediate_size": 1024,
        "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 16,
        "max_position_embeddings": 4096, "rope_theta": 10000.0, "num_experts": 64,
        "num_experts_per_tok": 8, "norm_topk_prob": False, "vocab_size": 50304,
        "pad_token_id": 1, "eos_token_id": 50279},
    "granite": {  # ibm-granite/granite-3.0-2b-base
        "model_type": "granite", "hidden_size": 2048, "intermediate_size": 8192,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 40,
        "max_position_embeddings": 4096, "rope_theta": 10000.0, "attention_multiplier":
        0.015625, "embedding_multiplier": 12.0, "residual_multiplier": 0.22,
        "logits_scaling": 8.0, "vocab_size": 49155, "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": 0},
    "granitemoe": {  # ibm-granite/granite-3.0-1b-a400m-base
        "model_type": "granitemoe", "hidden_size": 1024, "intermediate_size": 512,
        "num_attention_heads": 16, "num_key_value_heads": 8, "num_hidden_layers": 24,
        "max_position_embeddings": 4096, "rope_theta": 10000.0, "num_local_experts": 32,
        "num_experts_per_tok": 8, "attention_multiplier": 0.015625,
        "embedding_multiplier": 12.0, "residual_multiplier": 0.22, "logits_scaling": 6.0,
        "vocab_size": 49155, "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0},
    "starcoder2": {  # bigcode/starcoder2-3b (sliding window 4096)
        "model_type": "starcoder2", "hidden_size": 3072, "intermediate_size": 12288,
        "num_attention_heads": 24, "num_key_value_heads": 2, "num_hidden_layers": 30,
        "max_position_embeddings": 16384, "rope_theta": 999999.4420358813,
        "sliding_window": 4096, "use_bias": True, "norm_epsilon": 1e-05,
        "vocab_size": 49152, "bos_token_id": 0, "eos_token_id": 0},
    "helium": {  # kyutai/helium-1-preview-2b
        "model_type": "helium", "hidden_size": 2560, "intermediate_size": 7040,
        "num_attention_heads": 20, "num_key_value_heads": 20, "head_dim": 128,
        "num_hidden_layers": 24, "max_position_embeddings": 4096, "rope_theta": 100000.0,
        "rms_norm_eps": 1e-08, "vocab_size": 48000, "bos_token_id": 1, "eos_token_id": 2},
    "cohere": {  # CohereForAI/c4ai-command-r-v01
        "model_type": "cohere", "hidden_size": 8192, "intermediate_size": 22528,
        "num_attention_heads": 64, "num_key_value_heads": 64, "num_hidden_layers": 40,
        "max_position_embeddings": 8192, "rope_theta": 8000000.0, "logit_scale": 0.0625,
        "use_qk_norm": False, "vocab_size": 256000, "bos_token_id": 5, "eos_token_id": 255001,
        "pad_token_id": 0},
    "cohere2": {  # CohereForAI/c4ai-command-r7b-12-2024 (sliding window 4096, pattern 4)
        "model_type": "cohere2", "hidden_size": 4096, "intermediate_size": 14336,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
        "max_position_embeddings": 8192, "rope_theta": 50000.0, "sliding_window": 4096,
        "sliding_window_pattern": 4, "logit_scale": 0.25, "vocab_size": 256000,
        "bos_token_id": 5, "eos_token_id": 255001, "pad_token_id": 0},
    "glm": {  # THUDM/glm-4-9b-chat-hf
        "model_type": "glm", "hidden_size": 4096, "intermediate_size": 13696,
        "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
        "num_hidden_layers": 40, "max_position_embeddings": 131072, "rope_theta": 10000.0,
        "partial_rotary_factor": 0.5, "attention_bias": True, "rms_norm_eps": 1.5625e-07,
        "vocab_size": 151552, "pad_token_id": 151329, "eos_token_id": [151329, 151336,
                                                                       151338]},
    "glm4": {  # THUDM/GLM-4-9B-0414
        "model_type": "glm4", "hidden_size": 4096, "intermediate_size": 13696,
        "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
        "num_hidden_layers": 40, "max_position_embeddings": 32768, "rope_theta": 10000.0,
        "partial_rotary_factor": 0.5, "attention_bias": True, "rms_norm_eps": 1e-05,
        "vocab_size": 151552, "pad_token_id": 151329, "eos_token_id": [151329, 151336,
                                                                       151338]},
    "gptj": {  # EleutherAI/gpt-j-6b
        "model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 28,
        "n_positions": 2048, "rotary_dim": 64, "n_inner": None,
        "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
        "vocab_size": 50400, "bos_token_id": 50256, "eos_token_id": 50256},
    "codegen": {  # Salesforce/codegen-350M-mono
        "model_type": "codegen", "n_embd": 1024, "n_head": 16, "n_layer": 20, "n_ctx": 2048,
        "n_positions": 2048, "rotary_dim": 32, "n_inner": None,
        "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
        "vocab_size": 51200, "bos_token_id": 1, "eos_token_id": 50256},
    "deepseek_v2": {  # deepseek-ai/DeepSeek-V2-Lite
        "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944,
        "moe_intermediate_size": 1408, "num_attention_heads": 16, "num_key_value_heads": 16,
        "num_hidden_layers": 27, "kv_lora_rank": 512, "q_lora_rank": None,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6,
        "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1, "topk_method": "greedy",
        "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": {"type": "yarn", "factor": 40, "beta_fast": 32, "beta_slow": 1,
                         "mscale": 0.707, "mscale_all_dim": 0.707,
                         "original_max_position_embeddings": 4096},
        "vocab_size": 102400, "bos_token_id": 100000, "eos_token_id": 100001},
    "deepseek_v3": {  # deepseek-ai/DeepSeek-V3
        "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
        "moe_intermediate_size": 2048, "num_attention_heads": 128, "num_key_value_heads": 128,
        "num_hidden_layers": 61, "kv_lora_rank": 512, "q_lora_rank": 1536,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
        "first_k_dense_replace": 3, "n_group": 8, "topk_group": 4,
        "max_position_embeddings": 163840, "rope_theta": 10000,
        "rope_scaling": {"type": "yarn", "factor": 40, "beta_fast": 32, "beta_slow": 1,
                         "mscale": 1.0, "mscale_all_dim": 1.0,
                         "original_max_position_embeddings": 4096},
        "vocab_size": 129280, "bos_token_id": 0, "eos_token_id": 1},
    "dbrx": {  # databricks/dbrx-base
        "model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40,
        "max_seq_len": 32768, "vocab_size": 100352,
        "attn_config": {"clip_qkv": 8, "kv_n_heads": 8, "rope_theta": 500000},
        "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4},
        "rope_theta": 500000},
    "exaone4": {  # LGAI-EXAONE/EXAONE-4.0-32B (three local layers, then a global one; the
        # published layer_types: this pattern over its 64 layers)
        "model_type": "exaone4", "hidden_size": 5120, "intermediate_size": 27392,
        "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 64, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
        "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
        "sliding_window": 4096, "sliding_window_pattern": "LLLG",
        "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 16,
        "vocab_size": 102400,
        "bos_token_id": 1, "eos_token_id": 361},
    "smollm3": {  # HuggingFaceTB/SmolLM3-3B
        "model_type": "smollm3", "hidden_size": 2048, "intermediate_size": 11008,
        "num_attention_heads": 16, "num_key_value_heads": 4, "num_hidden_layers": 36,
        "max_position_embeddings": 65536, "rope_theta": 5000000.0,
        "no_rope_layer_interval": 4, "use_sliding_window": False,
        "vocab_size": 128256, "bos_token_id": 128000, "eos_token_id": 128012},
    "ministral": {  # mistralai/Ministral-8B-Instruct-2410 (window moved to 12)
        "model_type": "ministral", "hidden_size": 4096, "intermediate_size": 12288,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 36, "max_position_embeddings": 32768, "rope_theta": 100000000.0,
        "sliding_window": 12, "vocab_size": 131072, "bos_token_id": 1, "eos_token_id": 2},
    "arcee": {  # arcee-ai/AFM-4.5B
        "model_type": "arcee", "hidden_size": 2560, "intermediate_size": 18432,
        "num_attention_heads": 20, "num_key_value_heads": 4, "head_dim": 128,
        "num_hidden_layers": 36, "max_position_embeddings": 65536, "rope_theta": 10000.0,
        "rope_scaling": {"rope_type": "yarn", "factor": 20.0,
                         "original_max_position_embeddings": 4096},
        "vocab_size": 128004, "bos_token_id": 128000, "eos_token_id": 128001},
    "seed_oss": {  # ByteDance-Seed/Seed-OSS-36B-Base
        "model_type": "seed_oss", "hidden_size": 5120, "intermediate_size": 27648,
        "num_attention_heads": 80, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 64, "max_position_embeddings": 524288, "rope_theta": 10000000.0,
        "attention_bias": True, "vocab_size": 155136, "bos_token_id": 0, "eos_token_id": 2},
    "ernie4_5": {  # baidu/ERNIE-4.5-0.3B-PT
        "model_type": "ernie4_5", "hidden_size": 1024, "intermediate_size": 3072,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128,
        "num_hidden_layers": 18, "max_position_embeddings": 131072, "rope_theta": 500000,
        "use_bias": False, "vocab_size": 103424, "bos_token_id": 1, "eos_token_id": 2},
    "ernie4_5_moe": {  # baidu/ERNIE-4.5-21B-A3B-PT
        "model_type": "ernie4_5_moe", "hidden_size": 2560, "intermediate_size": 12288,
        "num_attention_heads": 20, "num_key_value_heads": 4, "head_dim": 128,
        "num_hidden_layers": 28, "max_position_embeddings": 131072, "rope_theta": 500000,
        "moe_num_experts": 64, "moe_k": 6, "moe_intermediate_size": 1536,
        "moe_num_shared_experts": 2, "moe_layer_start_index": 1, "moe_layer_interval": 1,
        "use_bias": False, "vocab_size": 103424, "bos_token_id": 1, "eos_token_id": 2},
    "glm4_moe": {  # zai-org/GLM-4.5-Air
        "model_type": "glm4_moe", "hidden_size": 4096, "intermediate_size": 10944,
        "moe_intermediate_size": 1408, "num_attention_heads": 96, "num_key_value_heads": 8,
        "head_dim": 128, "num_hidden_layers": 46, "partial_rotary_factor": 0.5,
        "max_position_embeddings": 131072, "rope_theta": 1000000, "n_routed_experts": 128,
        "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1,
        "n_group": 1, "topk_group": 1, "use_qk_norm": False, "attention_bias": True,
        "vocab_size": 151552, "pad_token_id": 151329, "eos_token_id": [151329, 151336,
                                                                       151338]},
    "gpt_oss": {  # openai/gpt-oss-20b
        "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880,
        "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
        "num_hidden_layers": 24, "layer_types": ["sliding_attention", "full_attention"] * 12,
        "sliding_window": 128, "max_position_embeddings": 131072, "rope_theta": 150000,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                         "beta_slow": 1.0, "original_max_position_embeddings": 4096,
                         "truncate": False},
        "num_local_experts": 32, "num_experts_per_tok": 4, "attention_bias": True,
        "vocab_size": 201088, "pad_token_id": 199999, "eos_token_id": 200002},
    "apertus": {  # swiss-ai/Apertus-8B-2509
        "model_type": "apertus", "hidden_size": 4096, "intermediate_size": 21504,
        "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
        "max_position_embeddings": 65536, "rope_theta": 12000000,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
        "vocab_size": 131072, "bos_token_id": 1, "eos_token_id": 68},
    "bitnet": {  # microsoft/bitnet-b1.58-2B-4T
        "model_type": "bitnet", "hidden_size": 2560, "intermediate_size": 6912,
        "num_attention_heads": 20, "num_key_value_heads": 5, "num_hidden_layers": 30,
        "max_position_embeddings": 4096, "rope_theta": 500000.0, "hidden_act": "relu2",
        "vocab_size": 128256, "bos_token_id": 128000, "eos_token_id": 128001},
    "olmo3": {  # allenai/Olmo-3-1025-7B (three sliding layers of 4096, then a full one)
        "model_type": "olmo3", "hidden_size": 4096, "intermediate_size": 11008,
        "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32,
        "max_position_embeddings": 65536, "rope_theta": 500000,
        "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "attention_factor": 1.2079441541679836,
                         "beta_fast": 32, "beta_slow": 1, "original_max_position_embeddings": 8192},
        "sliding_window": 4096,
        "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 8,
        "vocab_size": 100278, "pad_token_id": 100277, "eos_token_id": 100257},
    "mpt": {  # mosaicml/mpt-7b
        "model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32,
        "max_seq_len": 2048, "expansion_ratio": 4, "vocab_size": 50432,
        "attn_config": {"alibi": True, "alibi_bias_max": 8, "attn_type": "multihead_attention",
                        "clip_qkv": None, "qk_ln": False, "prefix_lm": False},
        "no_bias": True, "learned_pos_emb": True},
    "falcon": {  # tiiuae/falcon-7b (rotary)
        "model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71,
        "num_hidden_layers": 32, "alibi": False, "multi_query": True,
        "new_decoder_architecture": False, "parallel_attn": True, "bias": False,
        "max_position_embeddings": 2048, "rope_theta": 10000.0, "vocab_size": 65024,
        "bos_token_id": 11, "eos_token_id": 11},
    "mt5": {  # google/mt5-small
        "model_type": "mt5", "d_model": 512, "d_kv": 64, "d_ff": 1024, "num_layers": 8,
        "num_decoder_layers": 8, "num_heads": 6, "relative_attention_num_buckets": 32,
        "relative_attention_max_distance": 128, "feed_forward_proj": "gated-gelu",
        "vocab_size": 250112, "decoder_start_token_id": 0, "pad_token_id": 0,
        "eos_token_id": 1, "tie_word_embeddings": False},
    "umt5": {  # google/umt5-small
        "model_type": "umt5", "d_model": 512, "d_kv": 64, "d_ff": 1024, "num_layers": 8,
        "num_decoder_layers": 8, "num_heads": 6, "relative_attention_num_buckets": 32,
        "relative_attention_max_distance": 128, "feed_forward_proj": "gated-gelu",
        "vocab_size": 256384, "decoder_start_token_id": 0, "pad_token_id": 0,
        "eos_token_id": 1, "tie_word_embeddings": False},
    "longt5": {  # google/long-t5-local-base
        "model_type": "longt5", "d_model": 768, "d_kv": 64, "d_ff": 2048, "num_layers": 12,
        "num_decoder_layers": 12, "num_heads": 12, "relative_attention_num_buckets": 32,
        "relative_attention_max_distance": 128, "encoder_attention_type": "local",
        "local_radius": 127, "global_block_size": 16, "feed_forward_proj": "gated-gelu",
        "vocab_size": 32128, "decoder_start_token_id": 0, "pad_token_id": 0,
        "eos_token_id": 1, "tie_word_embeddings": False},
    "gpt_neo": {  # EleutherAI/gpt-neo-125m
        "model_type": "gpt_neo", "hidden_size": 768, "num_heads": 12, "num_layers": 12,
        "attention_types": [[["global", "local"], 6]], "window_size": 256,
        "max_position_embeddings": 2048, "vocab_size": 50257, "bos_token_id": 50256,
        "eos_token_id": 50256},
    "gpt_bigcode": {  # bigcode/gpt_bigcode-santacoder
        "model_type": "gpt_bigcode", "n_embd": 2048, "n_head": 16, "n_layer": 24,
        "n_positions": 2048, "multi_query": True, "vocab_size": 49280,
        "bos_token_id": 49152, "eos_token_id": 49152},
    "biogpt": {  # microsoft/biogpt
        "model_type": "biogpt", "hidden_size": 1024, "intermediate_size": 4096,
        "num_attention_heads": 16, "num_hidden_layers": 24, "max_position_embeddings": 1024,
        "scale_embedding": True, "vocab_size": 42384, "bos_token_id": 0, "eos_token_id": 2,
        "pad_token_id": 1},
    "bart": {  # facebook/bart-base
        "model_type": "bart", "d_model": 768, "encoder_layers": 6, "decoder_layers": 6,
        "encoder_attention_heads": 12, "decoder_attention_heads": 12,
        "encoder_ffn_dim": 3072, "decoder_ffn_dim": 3072, "max_position_embeddings": 1024,
        "vocab_size": 50265, "bos_token_id": 0, "eos_token_id": 2, "pad_token_id": 1,
        "decoder_start_token_id": 2, "forced_bos_token_id": 0, "forced_eos_token_id": 2},
    "mbart": {  # facebook/mbart-large-cc25
        "model_type": "mbart", "d_model": 1024, "encoder_layers": 12, "decoder_layers": 12,
        "encoder_attention_heads": 16, "decoder_attention_heads": 16,
        "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096, "max_position_embeddings": 1024,
        "scale_embedding": True, "vocab_size": 250027, "bos_token_id": 0, "eos_token_id": 2,
        "pad_token_id": 1},
    "pegasus": {  # google/pegasus-xsum
        "model_type": "pegasus", "d_model": 1024, "encoder_layers": 16, "decoder_layers": 16,
        "encoder_attention_heads": 16, "decoder_attention_heads": 16,
        "encoder_ffn_dim": 4096, "decoder_ffn_dim": 4096, "max_position_embeddings": 512,
        "scale_embedding": True, "vocab_size": 96103, "decoder_start_token_id": 0,
        "eos_token_id": 1, "pad_token_id": 0},
    "marian": {  # Helsinki-NLP/opus-mt-en-de
        "model_type": "marian", "d_model": 512, "encoder_layers": 6, "decoder_layers": 6,
        "encoder_attention_heads": 8, "decoder_attention_heads": 8, "encoder_ffn_dim": 2048,
        "decoder_ffn_dim": 2048, "max_position_embeddings": 512, "scale_embedding": True,
        "vocab_size": 58101, "decoder_start_token_id": 58100, "eos_token_id": 0,
        "pad_token_id": 58100, "decoder_vocab_size": 58101},
    "whisper": {  # openai/whisper-tiny
        "model_type": "whisper", "d_model": 384, "encoder_layers": 4, "decoder_layers": 4,
        "encoder_attention_heads": 6, "decoder_attention_heads": 6, "encoder_ffn_dim": 1536,
        "decoder_ffn_dim": 1536, "max_source_positions": 1500, "max_target_positions": 448,
        "num_mel_bins": 80, "vocab_size": 51865, "bos_token_id": 50257,
        "eos_token_id": 50257, "pad_token_id": 50257, "decoder_start_token_id": 50258},
}

def write(tmp_path: Path, config: dict, name: str = "config.json") -> Path:
    """Write ``config`` as ``tmp_path/name`` (a copy: the test may not touch the module's)."""
    path = tmp_path / name
    path.write_text(json.dumps(copy.deepcopy(config)), encoding="utf-8")
    return path
