"""Tiny models from Hugging Face configs: the positional parameters kept exactly, the rest shrunk.

A config (a ``config.json`` file, a directory holding one, a dict, or a transformers
``PretrainedConfig``) is read without any download; :func:`shrink` keeps every positional
parameter (``head_dim``, ``rope_theta``, ``rope_scaling`` / ``rope_parameters``,
``max_position_embeddings``, ``original_max_position_embeddings``, ``sliding_window``,
ALiBi's ``n_head``, T5's buckets, M-RoPE's sections) and shrinks layers, width and vocabulary;
:func:`build_model` builds the model in float64 with seeded random weights, eval mode and eager
attention.  Its size is counted on the meta device first: a model over :data:`MAX_BYTES` is
refused in one line (``InvalidParameter``).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, UnknownName

__all__ = ["KNOWN", "MAX_BYTES", "ModelInfo", "build_model", "model_info", "read_config_dict",
           "shrink"]

#: Largest tiny model built (float64 parameters and buffers).
MAX_BYTES = 1 << 30

#: model_type → (how positions enter, the transformers auto class).
#: ``rope``: rotary; ``mrope``: multimodal rotary (text tokens: three equal rows);
#: ``alibi``/``t5``: relative biases computed inside (no position input);
#: ``absolute``: a learned position table indexed by position_ids.
KNOWN: dict[str, tuple[str, str]] = {
    "llama": ("rope", "AutoModelForCausalLM"),
    "mistral": ("rope", "AutoModelForCausalLM"),
    "mixtral": ("rope", "AutoModelForCausalLM"),
    "qwen2": ("rope", "AutoModelForCausalLM"),
    "qwen3": ("rope", "AutoModelForCausalLM"),
    "gemma": ("rope", "AutoModelForCausalLM"),
    "phi3": ("rope", "AutoModelForCausalLM"),
    "gemma2": ("rope", "AutoModelForCausalLM"),
    "gemma3_text": ("rope", "AutoModelForCausalLM"),
    "phi": ("rope", "AutoModelForCausalLM"),
    "gpt_neox": ("rope", "AutoModelForCausalLM"),
    "gpt2": ("absolute", "AutoModelForCausalLM"),
    "opt": ("absolute", "AutoModelForCausalLM"),
    "bloom": ("alibi", "AutoModelForCausalLM"),
    "t5": ("t5", "AutoModelForSeq2SeqLM"),
    "bart": ("absolute", "AutoModelForSeq2SeqLM"),
    "whisper": ("absolute", "AutoModelForSpeechSeq2Seq"),
    "qwen2_vl": ("mrope", "Qwen2VLForConditionalGeneration"),
}

_LAYERS = ("num_hidden_layers", "n_layer", "num_layers", "num_decoder_layers")
_HEADS = ("num_attention_heads", "n_head", "num_heads")
_HIDDEN = ("hidden_size", "n_embd", "d_model")
_FFN = ("intermediate_size", "n_inner", "ffn_dim", "d_ff")
_TOKENS = ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id",
           "image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id",
           "vision_token_id")


@dataclass
class ModelInfo:
    """What check-model knows about a model: how positions enter and where behaviour switches."""

    model_type: str
    family: str                       # rope | mrope | alibi | t5 | absolute | callable
    context: int | None = None        # max_position_embeddings (n_positions)
    rope_type: str = "default"
    rope_theta: float | None = None
    head_dim: int | None = None
    rope: dict[str, Any] = field(default_factory=dict)
    original_max: int | None = None
    sliding_window: int | None = None
    n_head: int | None = None

    @property
    def switches(self) -> dict[str, int]:
        """Lengths where the model changes behaviour: name → the first length affected."""
        out: dict[str, int] = {}
        if self.rope_type == "dynamic" and self.original_max:
            out["dynamic NTK rescaling (original_max_position_embeddings)"] = self.original_max
        if self.rope_type == "longrope" and self.original_max:
            out["LongRoPE short/long factor switch"] = self.original_max
        if self.sliding_window and (self.context is None or self.sliding_window < self.context):
            out["sliding window"] = self.sliding_window
        return out

    def to_dict(self) -> dict[str, Any]:
        out = {"model_type": self.model_type, "positions": self.family}
        for key in ("context", "rope_type", "rope_theta", "head_dim", "original_max",
                    "sliding_window", "n_head"):
            value = getattr(self, key)
            if value is not None and not (key == "rope_type" and self.family not in
                                          ("rope", "mrope")):
                out[key] = value
        return out


def read_config_dict(source: Any) -> dict[str, Any]:
    """The config as a plain dict: from a path (file or directory), a dict or a PretrainedConfig."""
    if isinstance(source, dict):
        return copy.deepcopy(source)
    if hasattr(source, "to_dict") and hasattr(source, "model_type"):
        return source.to_dict()
    if isinstance(source, (str, Path)):
        path = Path(source)
        if path.is_dir():
            path = path / "config.json"
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidParameter(f"config {str(source)!r} cannot be read ({exc.strerror}); "
                                   "pass a config.json or a directory holding one") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InvalidParameter(f"config {str(path)!r} is not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise InvalidParameter(f"config {str(path)!r} is not a JSON object")
        return data
    raise InvalidParameter(f"config={source!r} is neither a path, a dict nor a transformers "
                           "config")


def _model_type(data: dict[str, Any]) -> str:
    kind = data.get("model_type")
    if not isinstance(kind, str) or kind not in KNOWN:
        raise UnknownName(f"model_type={kind!r} is not one check-model knows; it knows "
                          f"{', '.join(sorted(KNOWN))}")
    return kind


def _set(data: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    for key in keys:
        if key in data:
            data[key] = value


def _first(data: dict[str, Any], keys: tuple[str, ...], default: Any = None) -> Any:
    for key in keys:
        if data.get(key) is not None:
            return data[key]
    return default


def _rope_block(data: dict[str, Any]) -> dict[str, Any]:
    block = dict(data.get("rope_parameters") or {})
    block.update(data.get("rope_scaling") or {})
    if "type" in block and "rope_type" not in block:
        block["rope_type"] = block["type"]
    return block


def shrink(data: dict[str, Any], *, layers: int = 2, vocab: int = 96) -> dict[str, Any]:
    """The config of a tiny model: positional parameters kept, sizes shrunk.

    >>> cfg = shrink({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
    ...               "num_key_value_heads": 8, "rope_theta": 500000.0})
    >>> cfg["head_dim"], cfg["hidden_size"], cfg["num_key_value_heads"], cfg["rope_theta"]
    (128, 256, 1, 500000.0)
    """
    kind = _model_type(data)
    family = KNOWN[kind][0]
    out = copy.deepcopy(data)
    out.pop("quantization_config", None)
    out.pop("auto_map", None)
    out["architectures"] = None
    text = out["text_config"] if isinstance(out.get("text_config"), dict) else out
    for cfg in {id(out): out, id(text): text}.values():
        _shrink_text(cfg, family, kind, layers, vocab)
    if isinstance(out.get("vision_config"), dict):
        hidden = _first(text, _HIDDEN)
        out["vision_config"].update({"depth": 1, "embed_dim": 16, "num_heads": 2,
                                     "mlp_ratio": 1, "hidden_size": hidden})
    for key in _TOKENS:
        value = out.get(key)
        if isinstance(value, int) and value >= vocab:
            out[key] = vocab - 1 - _TOKENS.index(key)
    return out


def _shrink_text(cfg: dict[str, Any], family: str, kind: str, layers: int, vocab: int) -> None:
    if not any(k in cfg for k in (*_HIDDEN, *_HEADS, *_LAYERS)):
        return
    heads = _first(cfg, _HEADS)
    hidden = _first(cfg, _HIDDEN)
    for name, value in (("attention heads", heads), ("hidden size", hidden),
                        ("head_dim", cfg.get("head_dim"))):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise InvalidParameter(f"the config's {name} is {value!r}; it must be a positive "
                                   "integer")
    for key in _LAYERS:
        if key in cfg or (key == "num_hidden_layers" and family != "t5"):
            cfg[key] = layers
    if "layer_types" in cfg and isinstance(cfg["layer_types"], list):
        cfg["layer_types"] = cfg["layer_types"][:layers]
    if "max_window_layers" in cfg:
        cfg["max_window_layers"] = min(int(cfg["max_window_layers"] or 0), layers)
    cfg["vocab_size"] = vocab
    if family == "alibi":                 # the slopes depend on n_head: keep it
        head_dim = 4
        cfg.pop("n_embed", None)
        cfg["hidden_size"] = int(heads or 8) * head_dim
    elif family == "t5":
        cfg["d_model"], cfg["d_kv"], cfg["d_ff"], cfg["num_heads"] = 16, 8, 32, 2
    else:
        if family in ("rope", "mrope"):
            head_dim = cfg.get("head_dim") or (int(hidden) // int(heads) if hidden and heads
                                                else 64)
        else:
            head_dim = 16
        heads_new = 2
        cfg[next(k for k in _HEADS if k in cfg) if any(k in cfg for k in _HEADS)
            else "num_attention_heads"] = heads_new
        kv = cfg.get("num_key_value_heads")
        if kv is not None:
            cfg["num_key_value_heads"] = 1 if int(kv) < int(heads or kv) else heads_new
        new_hidden = heads_new * int(head_dim)
        _set(cfg, _HIDDEN, new_hidden)
        if not any(k in cfg for k in _HIDDEN):
            cfg["hidden_size"] = new_hidden
        if family in ("rope", "mrope"):
            cfg["head_dim"] = int(head_dim)
        if kind == "opt":
            cfg["word_embed_proj_dim"] = new_hidden
    for key in _FFN:
        if key in cfg and key != "d_ff":
            cfg[key] = 32 if cfg[key] is not None else None
    for key in ("num_local_experts", "num_experts"):
        if key in cfg:
            cfg[key] = min(int(cfg[key]), 2)
    if "num_experts_per_tok" in cfg:
        cfg["num_experts_per_tok"] = 1


def model_info(data: dict[str, Any]) -> ModelInfo:
    """How positions enter the model the config describes, and where it switches behaviour."""
    kind = _model_type(data)
    family = KNOWN[kind][0]
    text = data["text_config"] if isinstance(data.get("text_config"), dict) else data
    rope = _rope_block(data) if family in ("rope", "mrope") else {}
    if family in ("rope", "mrope") and text is not data:
        rope = {**_rope_block(text), **rope}
    context = _first(text, ("max_position_embeddings", "n_positions"))
    info = ModelInfo(kind, family, context=int(context) if context else None)
    if family in ("rope", "mrope"):
        info.rope = rope
        info.rope_type = str(rope.get("rope_type", "default"))
        if info.rope_type == "mrope":
            info.rope_type = "default"
        theta = rope.get("rope_theta", text.get("rope_theta", 10000.0))
        info.rope_theta = float(theta)
        heads = _first(text, _HEADS)
        hidden = _first(text, _HIDDEN)
        info.head_dim = int(text.get("head_dim") or int(hidden) // int(heads))
        original = rope.get("original_max_position_embeddings",
                            text.get("original_max_position_embeddings"))
        if info.rope_type == "dynamic" and context:
            # transformers' dynamic rule rescales past max_position_embeddings (its
            # _compute_dynamic_ntk_parameters ignores original_max_position_embeddings)
            info.original_max = int(context)
        elif info.rope_type == "longrope":
            info.original_max = int(original or context)
        window = text.get("sliding_window")
        if window and text.get("use_sliding_window", True) is not False:
            info.sliding_window = int(window)
    if family == "alibi":
        info.n_head = int(_first(text, _HEADS, 8))
    return info


def _auto_class(kind: str) -> Any:
    import transformers

    return getattr(transformers, KNOWN[kind][1])


def _make(cls: Any, config: Any) -> Any:
    import torch

    make = getattr(cls, "from_config", None) or cls._from_config
    return make(config, dtype=torch.float64)


def build_model(data: dict[str, Any], *, seed: int = 0, layers: int = 2,
                max_bytes: int = MAX_BYTES) -> tuple[Any, Any]:
    """``(model, config)``: the tiny float64 model of ``data`` (already shrunk or not)."""
    import torch
    import transformers

    kind = _model_type(data)
    small = shrink(data, layers=layers)
    small.pop("transformers_version", None)
    try:
        config = transformers.AutoConfig.for_model(kind, **{k: v for k, v in small.items()
                                                             if k != "model_type"})
    except (ValueError, TypeError, KeyError) as exc:
        raise InvalidParameter(f"config of model_type={kind!r} is not accepted by "
                               f"transformers: {str(exc).splitlines()[0]}") from None
    config._attn_implementation = "eager"
    for sub in ("text_config", "vision_config"):
        if getattr(config, sub, None) is not None:
            getattr(config, sub)._attn_implementation = "eager"
    cls = _auto_class(kind)
    try:
        with torch.device("meta"):
            meta = _make(cls, config)
    except (ValueError, TypeError, KeyError, RuntimeError) as exc:
        raise InvalidParameter(f"config of model_type={kind!r} cannot build a model: "
                               f"{str(exc).splitlines()[0]}") from None
    size = sum(t.numel() for t in meta.parameters()) + sum(t.numel() for t in meta.buffers())
    if size * 8 > max_bytes:
        raise InvalidParameter(
            f"the tiny {kind} model would hold {size * 8 / 2**30:.1f} GiB of float64 "
            f"parameters and buffers (over {max_bytes / 2**30:g} GiB; its position table or "
            "vocabulary is too large); shrink max_position_embeddings / vocab_size in the config")
    del meta
    torch.manual_seed(seed)
    model = _make(cls, config)
    model.eval()
    return model, config
