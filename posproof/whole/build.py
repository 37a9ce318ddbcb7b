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

from ..errors import InvalidParameter, PosproofError, UnknownName
from .types import TYPES, refusal

__all__ = ["INTERLEAVED", "KNOWN", "LAYER_KEYS", "MAX_BYTES", "ModelInfo", "build_model",
           "library_error", "model_info", "mrope_refusal", "read_config_dict", "refine_info",
           "refuse_before_torch", "shrink", "spec_disagreement", "transformers_config"]

#: Largest tiny model built (float64 parameters and buffers).
MAX_BYTES = 1 << 30

#: model_type → (how positions enter, the transformers auto class): from :data:`.types.TYPES`.
KNOWN: dict[str, tuple[str, str]] = {k: (v[0], v[1]) for k, v in TYPES.items()}

#: Every spelling of a config's layer count (shrunk for a tiny model; cut by ``--layers``).
LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "num_decoder_layers", "n_layers",
              "encoder_layers", "decoder_layers")
_HEADS = ("num_attention_heads", "n_head", "num_heads", "n_heads", "attention_heads",
          "encoder_attention_heads", "decoder_attention_heads")
_HIDDEN = ("hidden_size", "n_embd", "d_model")
_FFN = ("intermediate_size", "n_inner", "ffn_dim", "d_ff", "encoder_ffn_dim", "decoder_ffn_dim",
        "moe_intermediate_size", "shared_expert_intermediate_size", "ffn_hidden_size")
_TOKENS = ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id",
           "image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id",
           "vision_token_id", "forced_bos_token_id", "forced_eos_token_id")
#: Model types whose rotary pairs are adjacent (GPT-J's rotate_every_two), not split in halves.
INTERLEAVED = frozenset({"gptj", "codegen", "cohere", "cohere2", "glm", "glm4", "ernie4_5",
                         "ernie4_5_moe",
                         "deepseek_v2"})


@dataclass
class ModelInfo:
    """What check-model knows about a model: how positions enter and where behaviour switches.

    Every field is read from the transformers config object of the model type (the object
    the model is built from), never from a second reading of the JSON:

    * ``rope_type``, ``rope_theta``, ``rope``: the (standardised) ``rope_parameters`` of the
      global / full-attention layers; ``rope_by_layer``: the nested per-layer-type blocks
      (Gemma 3: ``sliding_attention`` / ``full_attention``); ``local_rope_theta``: the base of
      the sliding (local) layers when it differs;
    * ``head_dim``: the per-head width; ``rotary_dim``: the dims each head rotates
      (head_dim × ``partial_rotary_factor``, GPT-J's ``rotary_dim``, MLA's
      ``qk_rope_head_dim``); ``interleaved``: adjacent pairs (rotate_every_two) rather than
      halves;
    * ``original_max``: the switch of a dynamic rule (dynamic NTK: transformers'
      ``original_max_seq_len`` = max_position_embeddings; LongRoPE: its
      original_max_position_embeddings);
    * ``sliding_window`` and ``layer_types`` (per layer ``sliding_attention`` /
      ``full_attention`` …); ``no_rope_layers``: indices of layers that do not rotate;
    * ``softcap``: attention / final logit softcapping; ``encoder_decoder``;
    * ``n_head`` and ``alibi_bias_max`` (ALiBi), ``t5_buckets`` (T5: buckets, max distance),
      ``mrope_section`` (M-RoPE);
    * ``notes``: lines check-model prints, e.g. where posproof's SPEC reading of the same
      config.json differs from what transformers builds.
    """

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
    rotary_dim: int | None = None
    partial_rotary_factor: float | None = None
    interleaved: bool = False
    rope_by_layer: dict[str, dict[str, Any]] = field(default_factory=dict)
    local_rope_theta: float | None = None
    layer_types: list[str] | None = None
    no_rope_layers: list[int] = field(default_factory=list)
    softcap: dict[str, float] = field(default_factory=dict)
    encoder_decoder: bool = False
    alibi_bias_max: float | None = None
    t5_buckets: tuple[int, int] | None = None
    mrope_section: list[int] | None = None
    notes: list[str] = field(default_factory=list)

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
        rotary = self.family in ("rope", "mrope")
        for key in ("context", "rope_type", "rope_theta", "head_dim", "rotary_dim",
                    "original_max", "sliding_window", "n_head", "local_rope_theta",
                    "alibi_bias_max", "t5_buckets", "mrope_section"):
            value = getattr(self, key)
            if value is None or (key in ("rope_type", "rotary_dim") and not rotary):
                continue
            if key == "rotary_dim" and value == self.head_dim:
                continue
            out[key] = list(value) if isinstance(value, tuple) else value
        if self.interleaved and rotary:
            out["interleaved"] = True
        if self.layer_types and len(set(self.layer_types)) > 1:
            out["layer_types"] = list(self.layer_types)
        if self.no_rope_layers:
            out["no_rope_layers"] = list(self.no_rope_layers)
        if self.softcap:
            out["softcap"] = dict(self.softcap)
        if self.encoder_decoder:
            out["encoder_decoder"] = True
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


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def mrope_refusal(data: dict[str, Any]) -> str | None:
    """One line when an M-RoPE config's ``mrope_section`` does not fit its rotary dims, read
    without torch (transformers would fail in ``split_with_sizes``): the sections count
    frequency pairs per axis, so ``2 × sum(mrope_section)`` must be the rotated width,
    ``head_dim`` (or ``hidden_size / num_attention_heads``).

    >>> mrope_refusal({"model_type": "qwen2_vl", "hidden_size": 3584,
    ...                "num_attention_heads": 28, "rope_scaling": {"mrope_section": [16, 24, 24]}})
    >>> print(mrope_refusal({"model_type": "qwen2_vl", "hidden_size": 3584,
    ...        "num_attention_heads": 28, "rope_scaling": {"mrope_section": [16, 24, 20]}}
    ...       ).split(": ", 1)[1].split(" (hidden")[0])
    mrope_section=[16, 24, 20] covers 120 dims (2 × 60 pairs) but head_dim is 128
    """
    kind = data.get("model_type")
    if KNOWN.get(kind, ("",))[0] != "mrope":
        return None
    text = data["text_config"] if isinstance(data.get("text_config"), dict) else data
    block = next((b for cfg in (text, data) for b in (cfg.get("rope_scaling"),
                                                       cfg.get("rope_parameters"))
                  if isinstance(b, dict)), {})
    section = block.get("mrope_section", [16, 24, 24])       # transformers' default
    if not isinstance(section, list) or not section or not all(map(_positive, section)):
        return (f"model_type={kind!r}: mrope_section={section!r} must be a list of positive "
                "frequency-pair counts (one per axis: t, h, w)")
    head_dim, source = text.get("head_dim"), ""
    if head_dim is None:
        hidden, heads = _first(text, _HIDDEN), _first(text, _HEADS)
        if not (_positive(hidden) and _positive(heads)):
            return None                      # transformers' defaults: it decides
        head_dim, source = hidden // heads, f" (hidden_size {hidden} / {heads} heads)"
    if not _positive(head_dim) or 2 * sum(section) == head_dim:
        return None
    return (f"model_type={kind!r}: mrope_section={section} covers {2 * sum(section)} dims "
            f"(2 × {sum(section)} pairs) but head_dim is {head_dim}{source}; the sections must "
            "cover the rotary dims: 2 × sum(mrope_section) = head_dim")


def refuse_before_torch(data: dict[str, Any]) -> None:
    """Raise the one-line refusal of a config judged from its dict alone, before torch is
    imported: a model type check-model refuses or does not know (``UnknownName``), an
    ``mrope_section`` that does not fit head_dim (:func:`mrope_refusal`)."""
    why = refusal(data.get("model_type"))
    if why is not None:
        raise UnknownName(why)
    why = mrope_refusal(data)
    if why is not None:
        raise InvalidParameter(why)


def _model_type(data: dict[str, Any]) -> str:
    kind = data.get("model_type")
    why = refusal(kind)
    if why is not None:
        raise UnknownName(why)
    return str(kind)


def _set(data: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    for key in keys:
        if key in data:
            data[key] = value


def _first(data: dict[str, Any], keys: tuple[str, ...], default: Any = None) -> Any:
    for key in keys:
        if data.get(key) is not None:
            return data[key]
    return default


def _cover(values: list[Any], layers: int) -> list[Any]:
    """The first ``layers`` entries of a per-layer list, keeping every distinct value when the
    prefix would drop one (Gemma 3's global layer is its sixth)."""
    head = list(values[:layers])
    missing = [v for v in dict.fromkeys(values) if v not in head]
    if missing and len(dict.fromkeys(values)) <= layers:
        head = head[:layers - len(missing)] + missing
    return head


def shrink(data: dict[str, Any], *, layers: int = 2, vocab: int = 96,
           family: str | None = None) -> dict[str, Any]:
    """The config of a tiny model: positional parameters kept, sizes shrunk.

    >>> cfg = shrink({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
    ...               "num_key_value_heads": 8, "rope_theta": 500000.0})
    >>> cfg["head_dim"], cfg["hidden_size"], cfg["num_key_value_heads"], cfg["rope_theta"]
    (128, 256, 1, 500000.0)
    """
    kind = _model_type(data)
    family = family or KNOWN[kind][0]
    if family == "rope|alibi":
        family = "alibi" if data.get("alibi") else "rope"
    out = copy.deepcopy(data)
    for key in ("quantization_config", "auto_map", "_name_or_path", "transformers_version",
                "torch_dtype", "dtype"):
        out.pop(key, None)
    out["architectures"] = None
    text = out["text_config"] if isinstance(out.get("text_config"), dict) else out
    for cfg in {id(out): out, id(text): text}.values():
        _shrink_text(cfg, family, kind, layers, vocab)
    if isinstance(out.get("vision_config"), dict):
        hidden = _first(text, _HIDDEN)
        out["vision_config"].update({"depth": 1, "embed_dim": 16, "num_heads": 2,
                                     "mlp_ratio": 1, "hidden_size": hidden})
        out["vision_config"].pop("out_hidden_size", None)
    for cfg in {id(out): out, id(text): text}.values():
        for key in _TOKENS:
            value = cfg.get(key)
            if isinstance(value, int) and value >= vocab:
                cfg[key] = vocab - 1 - _TOKENS.index(key)
            elif isinstance(value, list):
                cfg[key] = [v if not isinstance(v, int) or v < vocab else vocab - 1
                            for v in value]
    return out


def _shrink_text(cfg: dict[str, Any], family: str, kind: str, layers: int, vocab: int) -> None:
    if not any(k in cfg for k in (*_HIDDEN, *_HEADS, *LAYER_KEYS)):
        return
    heads = _first(cfg, _HEADS)
    hidden = _first(cfg, _HIDDEN)
    for name, value in (("attention heads", heads), ("hidden size", hidden),
                        ("head_dim", cfg.get("head_dim"))):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise InvalidParameter(f"the config's {name} is {value!r}; it must be a positive "
                                   "integer")
    for key in LAYER_KEYS:
        if key in cfg or (key == "num_hidden_layers" and family != "t5"):
            cfg[key] = layers
    for key in ("layer_types", "no_rope_layers"):
        if isinstance(cfg.get(key), list):
            cfg[key] = _cover(cfg[key], layers)
    if isinstance(cfg.get("attention_types"), list):            # GPT-Neo
        pattern = [t for block in cfg["attention_types"] for t in block[0]][:layers]
        cfg["attention_types"] = [[pattern, max(1, layers // len(pattern))]]
        cfg.pop("attention_layers", None)
        cfg["num_layers"] = len(pattern) * max(1, layers // len(pattern))
    if "max_window_layers" in cfg:
        cfg["max_window_layers"] = min(int(cfg["max_window_layers"] or 0), layers)
    for key in ("first_k_dense_replace", "moe_layer_start_index"):
        if cfg.get(key):
            cfg[key] = min(int(cfg[key]), layers - 1)
    if isinstance(cfg.get("mlp_only_layers"), list):
        cfg["mlp_only_layers"] = [i for i in cfg["mlp_only_layers"] if i < layers]
    cfg["vocab_size"] = vocab
    if family == "alibi":                 # the slopes depend on n_head: keep it
        head_dim = 4
        cfg.pop("n_embed", None)
        new_hidden = int(heads or 8) * head_dim
        _set(cfg, _HIDDEN, new_hidden)
        if not any(k in cfg for k in _HIDDEN):
            cfg["hidden_size"] = new_hidden
        if kind == "falcon":
            cfg["num_kv_heads"] = cfg.get("num_kv_heads") and int(heads or 8)
    elif family == "t5":
        cfg["d_model"], cfg["d_kv"], cfg["d_ff"], cfg["num_heads"] = 16, 8, 32, 2
    else:
        if family in ("rope", "mrope"):
            head_dim = cfg.get("head_dim") or (int(hidden) // int(heads) if hidden and heads
                                                else 64)
        else:
            head_dim = 16
        heads_new = 2
        present = [k for k in _HEADS if k in cfg] or ["num_attention_heads"]
        for key in present:
            cfg[key] = heads_new
        for key in ("num_key_value_heads", "num_kv_heads"):
            kv = cfg.get(key)
            if kv is not None:
                cfg[key] = 1 if int(kv) < int(heads or kv) else heads_new
        new_hidden = heads_new * int(head_dim)
        if kind in ("deepseek_v2", "deepseek_v3"):        # MLA: the rotary part kept
            new_hidden = 32
            for key in ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "v_head_dim"):
                if cfg.get(key):
                    cfg[key] = 16
        _set(cfg, _HIDDEN, new_hidden)
        if not any(k in cfg for k in _HIDDEN):
            cfg["hidden_size"] = new_hidden
        if family in ("rope", "mrope") and ("head_dim" in cfg or kind not in _DERIVED_HEAD):
            cfg["head_dim"] = int(head_dim)
        if kind == "opt":
            cfg["word_embed_proj_dim"] = new_hidden
    for key in _FFN:
        if key in cfg and key != "d_ff":
            cfg[key] = 32 if cfg[key] is not None else None
    for key in ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"):
        if cfg.get(key):
            cfg[key] = min(int(cfg[key]), 2)
    for key in ("num_experts_per_tok", "n_group", "topk_group", "n_shared_experts",
                "decoder_sparse_step", "moe_k", "moe_num_shared_experts"):
        if cfg.get(key):
            cfg[key] = 1
    if isinstance(cfg.get("ffn_config"), dict):                 # DBRX
        cfg["ffn_config"].update({"moe_num_experts": 2, "moe_top_k": 1, "ffn_hidden_size": 32})
    if isinstance(cfg.get("attn_config"), dict) and "kv_n_heads" in cfg["attn_config"]:
        cfg["attn_config"]["kv_n_heads"] = 1


#: Model types whose head width is derived in the modeling code (no head_dim key read).
_DERIVED_HEAD = frozenset({"gpt_neox", "gptj", "codegen", "phi", "persimmon", "stablelm",
                           "falcon", "dbrx", "gpt2", "opt", "bloom", "mpt", "cohere",
                           "starcoder2", "olmo", "olmo2", "olmoe", "granite", "granitemoe"})


def transformers_config(data: dict[str, Any]) -> Any:
    """The transformers config object of ``data``: how transformers reads the JSON (legacy
    ``rope_scaling`` replacing ``rope_parameters``, ``type`` → ``rope_type``, defaults)."""
    import transformers

    kind = _model_type(data)
    kwargs = {k: v for k, v in copy.deepcopy(data).items() if k != "model_type"}
    for key in ("transformers_version", "_name_or_path", "auto_map", "quantization_config"):
        kwargs.pop(key, None)
    return _library("reading the config", kind, lambda: transformers.AutoConfig.for_model(
        kind, **kwargs))


def _library(step: str, kind: str, fn: Any) -> Any:
    """``fn()``; an exception raised inside torch / transformers becomes one line."""
    try:
        return fn()
    except PosproofError:
        raise
    except Exception as exc:
        raise library_error(kind, step, exc) from None


def library_error(kind: str, step: str, exc: BaseException) -> InvalidParameter:
    """The one line of an exception torch or transformers raised at ``step``."""
    first = str(exc).splitlines()[0] if str(exc).strip() else ""
    return InvalidParameter(f"model_type={kind!r}: {step} failed in torch/transformers: "
                            f"{type(exc).__name__}: {first}"[:400])


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return default


def model_info(config: Any) -> ModelInfo:
    """How positions enter the model ``config`` describes (a transformers config object, or a
    dict read through :func:`transformers_config`), and where it switches behaviour."""
    if isinstance(config, dict):
        config = transformers_config(config)
    kind = str(config.model_type)
    if kind not in TYPES:
        raise UnknownName(refusal(kind) or kind)
    family = TYPES[kind][0]
    if family == "rope|alibi":
        family = "alibi" if getattr(config, "alibi", False) else "rope"
    text = config.get_text_config(decoder=True) if hasattr(config, "get_text_config") \
        else config
    context = _get(text, "max_position_embeddings", "n_positions", "max_seq_len",
                   "max_target_positions")
    info = ModelInfo(kind, family, context=int(context) if context else None,
                     encoder_decoder=bool(getattr(config, "is_encoder_decoder", False)))
    heads = _get(text, "num_attention_heads", "n_head", "n_heads", "num_heads")
    hidden = _get(text, "hidden_size", "n_embd", "d_model")
    for name in ("attn_logit_softcapping", "final_logit_softcapping"):
        if getattr(text, name, None):
            info.softcap[name] = float(getattr(text, name))
    layer_types = getattr(text, "layer_types", None)
    if isinstance(layer_types, (list, tuple)) and layer_types:
        info.layer_types = [str(t) for t in layer_types]
    window = getattr(text, "sliding_window", None)
    uses_window = getattr(text, "use_sliding_window", True) is not False
    if info.layer_types is not None:
        uses_window = any("sliding" in t for t in info.layer_types)
    if window and uses_window:
        info.sliding_window = int(window)
    if family in ("rope", "mrope"):
        _rotary_info(info, kind, text, heads, hidden)
    if family == "alibi":
        info.n_head = int(heads or 8)
        attn = getattr(text, "attn_config", None)
        bias_max = getattr(attn, "alibi_bias_max", None) if attn is not None else None
        if isinstance(attn, dict):
            bias_max = attn.get("alibi_bias_max")
        if bias_max is not None:
            info.alibi_bias_max = float(bias_max)
    if family == "t5":
        info.t5_buckets = (int(text.relative_attention_num_buckets),
                           int(getattr(text, "relative_attention_max_distance", 128)))
    return info


def _rotary_info(info: ModelInfo, kind: str, text: Any, heads: Any, hidden: Any) -> None:
    params = dict(getattr(text, "rope_parameters", None) or {})
    nested = {k: dict(v) for k, v in params.items() if isinstance(v, dict)}
    if nested and all(isinstance(v, dict) or v is None for v in params.values()):
        info.rope_by_layer = nested
        main = nested.get("full_attention") or next(iter(nested.values()))
        local = nested.get("sliding_attention")
        if local and local.get("rope_theta") != main.get("rope_theta"):
            info.local_rope_theta = float(local["rope_theta"])
        params = main
    info.rope = params
    info.rope_type = str(params.get("rope_type", params.get("type", "default")))
    if info.rope_type == "mrope":
        info.rope_type = "default"
    info.mrope_section = list(params["mrope_section"]) if params.get("mrope_section") else None
    theta = params.get("rope_theta", getattr(text, "rope_theta", None))
    if theta is None and kind in ("gptj", "codegen"):
        theta = 10000.0                   # their sinusoidal table's base, fixed in the code
    info.rope_theta = float(theta) if theta is not None else None
    head_dim = _get(text, "head_dim") or (int(hidden) // int(heads) if hidden and heads else None)
    info.head_dim = int(head_dim) if head_dim else None
    factor = params.get("partial_rotary_factor")
    if factor is None:
        factor = getattr(text, "partial_rotary_factor", None)
    info.partial_rotary_factor = float(factor) if factor is not None else None
    rotary = None
    if kind in ("deepseek_v2", "deepseek_v3"):
        rotary = getattr(text, "qk_rope_head_dim", None)
        if rotary and getattr(text, "qk_nope_head_dim", None):     # MLA: q·k per head
            info.head_dim = int(text.qk_nope_head_dim) + int(rotary)
        info.interleaved = bool(getattr(text, "rope_interleave", kind == "deepseek_v2"))
    elif getattr(text, "rotary_dim", None):
        rotary = text.rotary_dim
    elif info.head_dim:
        rotary = int(info.head_dim * float(factor if factor is not None else 1.0))
    info.rotary_dim = int(rotary) if rotary else info.head_dim
    if kind in INTERLEAVED and kind not in ("deepseek_v2",):
        info.interleaved = True
    no_rope = getattr(text, "no_rope_layers", None)
    if isinstance(no_rope, (list, tuple)):
        info.no_rope_layers = [i for i, use in enumerate(no_rope) if not use]
    if kind == "cohere2" and info.layer_types:
        info.no_rope_layers = [i for i, t in enumerate(info.layer_types)
                               if t != "sliding_attention"]
    original = params.get("original_max_position_embeddings",
                          getattr(text, "original_max_position_embeddings", None))
    if info.rope_type == "dynamic" and info.context:
        # transformers' dynamic rule rescales past max_position_embeddings (the rotary
        # module's original_max_seq_len; _compute_dynamic_ntk_parameters ignores
        # original_max_position_embeddings)
        info.original_max = int(info.context)
    elif info.rope_type == "longrope":
        info.original_max = int(original or info.context)


def refine_info(info: ModelInfo, model: Any) -> ModelInfo:
    """Correct ``info`` from the model transformers built: the rotary module's rule and the
    dims it rotates (2 × its inverse frequencies)."""
    for module in model.modules():
        name = type(module).__name__
        if "Rotary" not in name or "Vision" in name:
            continue
        inv = getattr(module, "inv_freq", None)
        rope_type = getattr(module, "rope_type", None)
        if inv is not None and getattr(inv, "numel", None) and info.family == "rope":
            info.rotary_dim = 2 * int(inv.numel())
        if isinstance(rope_type, str) and info.family == "rope":
            info.rope_type = rope_type
        if getattr(module, "original_max_seq_len", None) and info.rope_type == "dynamic":
            info.original_max = int(module.original_max_seq_len)
        break
    return info


def spec_disagreement(data: dict[str, Any], info: ModelInfo) -> str | None:
    """One line when posproof's SPEC reading of the same config.json (``prove CONFIG``,
    :func:`posproof.model.configs.read_config`) differs from what transformers builds."""
    if info.family != "rope":
        return None
    from ..errors import PosproofError as Error
    from ..model.configs import read_config

    built = (f"transformers builds rope_type={info.rope_type}, rope_theta={info.rope_theta:g}, "
             f"{info.rotary_dim} rotated dims; check-model follows transformers")
    try:
        cfg = read_config(data, default_theta=info.rope_theta or 10000)
    except Error as exc:
        first = str(exc).splitlines()[0]
        return f"posproof's SPEC reading of this config refuses it ({first}); {built}"
    except Exception:
        return None
    ours = {"rope_type": str(cfg.rope_type), "rotary dims": int(cfg.rotary_dim),
            "pairs": "adjacent" if cfg.layout != "half" else "halves"}
    theirs = {"rope_type": info.rope_type, "rotary dims": info.rotary_dim,
              "pairs": "adjacent" if info.interleaved else "halves"}
    switch = (cfg.params or {}).get("original_max_position_embeddings")
    if switch is not None and info.rope.get("original_max_position_embeddings") is not None:
        ours["original_max_position_embeddings"] = int(switch)
        theirs["original_max_position_embeddings"] = int(
            info.rope["original_max_position_embeddings"])
    theta = getattr(cfg, "base", None) or getattr(cfg, "rope_theta", None)
    diff = [f"{k}={ours[k]} (transformers: {theirs[k]})" for k in ours
            if theirs[k] is not None and ours[k] != theirs[k]]
    if theta is not None and info.rope_theta is not None:
        try:
            if abs(float(theta) - info.rope_theta) > 1e-9 * abs(info.rope_theta):
                diff.append(f"rope_theta={float(theta):g} (transformers: {info.rope_theta:g})")
        except (TypeError, ValueError):
            pass
    if not diff:
        return None
    return f"posproof's SPEC reading of this config differs: {', '.join(diff)}; {built}"


def auto_class(kind: str) -> Any:
    import transformers

    return getattr(transformers, KNOWN[kind][1])


def _make(cls: Any, config: Any) -> Any:
    import torch

    make = getattr(cls, "from_config", None) or cls._from_config
    return make(config, dtype=torch.float64)


def make_eager(config: Any) -> None:
    """Eager attention and eager (float64-capable) experts, on the config and its parts."""
    parts = [config] + [getattr(config, sub) for sub in ("text_config", "vision_config",
                                                        "encoder", "decoder")
                        if getattr(config, sub, None) is not None]
    for part in parts:
        part._attn_implementation = "eager"
        if hasattr(type(part), "_experts_implementation") or \
                hasattr(part, "_experts_implementation_internal"):
            part._experts_implementation = "eager"


def build_model(data: dict[str, Any], *, seed: int = 0, layers: int = 2,
                max_bytes: int = MAX_BYTES) -> tuple[Any, Any]:
    """``(model, config)``: the tiny float64 model of ``data`` (already shrunk or not).

    ``data`` is read by transformers first (its config object, then ``to_dict``), so the
    shrunk config keeps every positional parameter as transformers standardised it."""
    import torch

    kind = _model_type(data)
    full = transformers_config(data)
    family = model_info(full).family
    standard = full.to_dict()
    standard["model_type"] = kind
    small = shrink(standard, layers=layers, family=family)
    config = transformers_config(small)
    make_eager(config)
    cls = auto_class(kind)

    def meta_model() -> Any:
        with torch.device("meta"):
            return _make(cls, config)

    meta = _library("building the model", kind, meta_model)
    size = sum(t.numel() for t in meta.parameters()) + sum(t.numel() for t in meta.buffers())
    if size * 8 > max_bytes:
        raise InvalidParameter(
            f"the tiny {kind} model would hold {size * 8 / 2**30:.1f} GiB of float64 "
            "parameters and buffers (over {:g} GiB; its position table or ".format(
                max_bytes / 2**30) +
            "vocabulary is too large); shrink max_position_embeddings / vocab_size in the config")
    del meta
    torch.manual_seed(seed)
    model = _library("building the model", kind, lambda: _make(cls, config))
    model.eval()
    return model, config
