"""The model types ``posproof check-model`` builds: one table, imported without torch.

:data:`TYPES` maps a transformers ``model_type`` to how positions enter its attention, the
auto class that builds it and a note; ``posproof check-model --list`` and the list in
docs/check-model.md are generated from it (tests/test_model_types.py keeps the doc in step).
:data:`REFUSED` names model types check-model knows it cannot handle, with the reason.  Both
are plain data: a config of another type is refused in one line before torch or transformers
is imported.

Positions (the ``family`` of :class:`posproof.whole.build.ModelInfo`):

* ``rope``: rotary position embeddings, position ids in, every rule of transformers'
  ``ROPE_INIT_FUNCTIONS`` (partial rotary, interleaved pairs, per-layer bases, scaling);
* ``mrope``: multimodal rotary (M-RoPE); text tokens take three equal position rows;
* ``alibi``: linear biases computed inside attention (no position input);
* ``t5``: T5's bucketed relative biases (no position input);
* ``absolute``: a learned or sinusoidal table indexed by position;
* ``rope|alibi``: Falcon, rotary unless its config sets ``alibi: true``.
"""

from __future__ import annotations

__all__ = ["REFUSED", "TYPES", "doc_with_table", "refusal", "table_lines"]

_CAUSAL = "AutoModelForCausalLM"
_SEQ2SEQ = "AutoModelForSeq2SeqLM"

#: model_type → (positions, auto class, note).
TYPES: dict[str, tuple[str, str, str]] = {
    # rotary, half-split pairs (rotate_half)
    "llama": ("rope", _CAUSAL, "every rope_type: linear, dynamic, yarn, llama3, longrope"),
    "mistral": ("rope", _CAUSAL, "sliding window"),
    "mixtral": ("rope", _CAUSAL, "mixture of experts (eager experts in float64)"),
    "qwen2": ("rope", _CAUSAL, "sliding window on layers ≥ max_window_layers"),
    "qwen2_moe": ("rope", _CAUSAL, "mixture of experts"),
    "qwen3": ("rope", _CAUSAL, "q/k norm before the rotation"),
    "qwen3_moe": ("rope", _CAUSAL, "mixture of experts"),
    "gemma": ("rope", _CAUSAL, "head_dim 256"),
    "gemma2": ("rope", _CAUSAL, "alternating sliding/global layers, logit softcapping"),
    "gemma3_text": ("rope", _CAUSAL, "local layers base 10000, global layers their own base"),
    "phi": ("rope", _CAUSAL, "partial rotary (partial_rotary_factor 0.4)"),
    "phi3": ("rope", _CAUSAL, "LongRoPE short/long factors"),
    "phimoe": ("rope", _CAUSAL, "LongRoPE, mixture of experts"),
    "stablelm": ("rope", _CAUSAL, "partial rotary (0.25)"),
    "gpt_neox": ("rope", _CAUSAL, "partial rotary (rotary_pct 0.25)"),
    "persimmon": ("rope", _CAUSAL, "partial rotary (0.5)"),
    "nemotron": ("rope", _CAUSAL, "partial rotary (0.5)"),
    "olmo": ("rope", _CAUSAL, ""),
    "olmo2": ("rope", _CAUSAL, "q/k norm over all heads"),
    "olmoe": ("rope", _CAUSAL, "mixture of experts"),
    "granite": ("rope", _CAUSAL, "attention multiplier"),
    "granitemoe": ("rope", _CAUSAL, "mixture of experts"),
    "starcoder2": ("rope", _CAUSAL, "sliding window"),
    "helium": ("rope", _CAUSAL, ""),
    "cohere": ("rope", _CAUSAL, "interleaved pairs"),
    "cohere2": ("rope", _CAUSAL, "interleaved pairs; only the sliding layers rotate"),
    "glm": ("rope", _CAUSAL, "interleaved pairs, partial rotary (0.5)"),
    "glm4": ("rope", _CAUSAL, "interleaved pairs, partial rotary (0.5)"),
    "gptj": ("rope", _CAUSAL, "interleaved pairs (rotate_every_two), rotary_dim 64 of 256"),
    "codegen": ("rope", _CAUSAL, "interleaved pairs, rotary_dim"),
    "deepseek_v2": ("rope", _CAUSAL, "MLA: decoupled rotary keys (qk_rope_head_dim), YaRN"),
    "deepseek_v3": ("rope", _CAUSAL, "MLA: decoupled rotary keys, interleaved, YaRN"),
    "dbrx": ("rope", _CAUSAL, "mixture of experts"),
    "exaone4": ("rope", _CAUSAL, "llama3 scaling, sliding layers"),
    "smollm3": ("rope", _CAUSAL, "every fourth layer without rotation (no_rope_layers)"),
    "ministral": ("rope", _CAUSAL, "sliding window"),
    "arcee": ("rope", _CAUSAL, "YaRN"),
    "seed_oss": ("rope", _CAUSAL, ""),
    "ernie4_5": ("rope", _CAUSAL, "interleaved pairs"),
    "ernie4_5_moe": ("rope", _CAUSAL, "interleaved pairs, mixture of experts"),
    "glm4_moe": ("rope", _CAUSAL, "partial rotary (0.5), mixture of experts"),
    "gpt_oss": ("rope", _CAUSAL, "YaRN, alternating sliding (128) and full layers, sinks, "
                "mixture of experts"),
    "apertus": ("rope", _CAUSAL, "llama3 scaling"),
    "bitnet": ("rope", _CAUSAL, ""),
    "olmo3": ("rope", _CAUSAL, "sliding layers (three of four)"),
    # multimodal rotary
    "qwen2_vl": ("mrope", "Qwen2VLForConditionalGeneration", "M-RoPE sections, text tokens"),
    # ALiBi
    "bloom": ("alibi", _CAUSAL, "ALiBi slopes of n_head"),
    "mpt": ("alibi", _CAUSAL, "ALiBi (attn_config.alibi, alibi_bias_max)"),
    "falcon": ("rope|alibi", _CAUSAL, "rotary, or ALiBi with alibi: true"),
    # T5 buckets
    "t5": ("t5", _SEQ2SEQ, "relative buckets, encoder–decoder"),
    "mt5": ("t5", _SEQ2SEQ, "relative buckets, encoder–decoder"),
    "umt5": ("t5", _SEQ2SEQ, "relative buckets in every layer, encoder–decoder"),
    "longt5": ("t5", _SEQ2SEQ, "relative buckets, local attention in the encoder"),
    # absolute tables
    "gpt2": ("absolute", _CAUSAL, "learned table"),
    "opt": ("absolute", _CAUSAL, "learned table, offset 2"),
    "gpt_neo": ("absolute", _CAUSAL, "learned table, alternating local attention"),
    "gpt_bigcode": ("absolute", _CAUSAL, "learned table, multi-query"),
    "biogpt": ("absolute", _CAUSAL, "learned table"),
    "bart": ("absolute", _SEQ2SEQ, "learned tables, encoder–decoder"),
    "mbart": ("absolute", _SEQ2SEQ, "learned tables, encoder–decoder"),
    "pegasus": ("absolute", _SEQ2SEQ, "sinusoidal tables, encoder–decoder"),
    "marian": ("absolute", _SEQ2SEQ, "sinusoidal tables, encoder–decoder"),
    "whisper": ("absolute", "AutoModelForSpeechSeq2Seq", "learned decoder table; the audio "
                "encoder is fed log-mel frames"),
}

#: model_type → why check-model refuses it.
REFUSED: dict[str, str] = {
    "jamba": "its attention layers carry no positions (the Mamba layers order the tokens)",
    "mamba": "a state-space model: no attention positions",
    "mamba2": "a state-space model: no attention positions",
    "rwkv": "a recurrent model: no attention positions",
    "llama4_text": "chunked attention with NoPE layers is not modelled",
    "qwen3_next": "its linear-attention layers carry no positions",
    "xglm": "its eager attention fills masked scores with float64's minimum in a float32 "
            "tensor: no float64 forward",
    "bert": "an encoder-only model: no cache, no decoding",
    "roberta": "an encoder-only model: no cache, no decoding",
}


def refusal(model_type: object) -> str | None:
    """The one-line reason a config of ``model_type`` is refused, or None when it is built.

    >>> refusal("llama") is None
    True
    >>> refusal("mamba").split(": ")[0]
    "model_type='mamba' is refused"
    """
    if isinstance(model_type, str) and model_type in TYPES:
        return None
    if isinstance(model_type, str) and model_type in REFUSED:
        return f"model_type={model_type!r} is refused: {REFUSED[model_type]}"
    return (f"model_type={model_type!r} is not one check-model knows; it knows "
            f"{len(TYPES)} types ({', '.join(sorted(TYPES))}): posproof check-model --list")


_WORDS = {"rope": "rotary", "mrope": "M-RoPE", "alibi": "ALiBi", "t5": "T5 buckets",
          "absolute": "absolute table", "rope|alibi": "rotary or ALiBi"}


def table_lines() -> list[str]:
    """The Markdown table of :data:`TYPES` (``check-model --list`` and docs/check-model.md).

    >>> table_lines()[:2]
    ['| model_type | positions | class | notes |', '|---|---|---|---|']
    """
    out = ["| model_type | positions | class | notes |", "|---|---|---|---|"]
    for kind in sorted(TYPES):
        family, cls, note = TYPES[kind]
        out.append(f"| {kind} | {_WORDS[family]} | {cls} | {note} |")
    return out


_START = "<!-- model types: generated from posproof.whole.types.table_lines() -->"
_END = "<!-- end of model types -->"


def doc_with_table(text: str) -> str:
    r"""``text`` (docs/check-model.md) with its model-type table and count regenerated
    (``python scripts/gen_docs.py --cli`` writes it).

    >>> doc_with_table(f"{_START}\nold\n{_END}\n N model types").count("| llama |")
    1
    """
    import re

    start = text.index(_START) + len(_START)
    end = text.index(_END)
    text = text[:start] + "\n" + "\n".join(table_lines()) + "\n" + text[end:]
    refused = "; ".join(f"`{k}` ({REFUSED[k]})" for k in sorted(REFUSED))
    text = re.sub(r"^Refused, in one line and before torch is imported: .*$",
                  lambda _: f"Refused, in one line and before torch is imported: {refused}.",
                  text, count=1, flags=re.M)
    return re.sub(r"\b(\d+|N) model types\b", f"{len(TYPES)} model types", text, count=1)
