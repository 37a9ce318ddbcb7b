"""Model configs (HF ``config.json``) → rotary embeddings.

:func:`read_config` normalises the spellings that moved between versions —
``rope_scaling`` / ``rope_parameters``, ``type`` / ``rope_type``,
``rope_theta`` inside or outside, GPT-NeoX's ``rotary_pct`` /
``rotary_emb_base`` — refuses conflicts, unknown types and unknown keys, and
never defaults silently: a missing ``rope_theta`` is an error unless the
caller passes ``default_theta``, and every assumption made is listed in
``notes``.

:func:`parse_spec` (the spec strings of ``posproof explore``) lives in
:mod:`posproof.model.specs`; it is re-exported here so old imports keep working.

>>> cfg = read_config({"rope_theta": 500000.0, "head_dim": 128, "max_position_embeddings": 8192})
>>> cfg.rope_type, cfg.rotary_dim, cfg.rotary().layout
('default', 128, 'half')
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..errors import InvalidParameter, PosproofError, UnknownName
from ..validated import compare
from .schedules import exact_number

__all__ = ["HF_ROPE_TYPES", "RopeConfig", "read_config"]

#: rope types HF transformers defines, and the keys each accepts inside rope_parameters.
HF_ROPE_TYPES: dict[str, dict[str, tuple[str, ...]]] = {
    "default": {"required": (), "optional": ()},
    "linear": {"required": ("factor",), "optional": ()},
    "dynamic": {"required": ("factor",), "optional": ()},
    "yarn": {"required": ("factor", "original_max_position_embeddings"),
             "optional": ("attention_factor", "beta_fast", "beta_slow", "mscale",
                          "mscale_all_dim", "truncate")},
    "longrope": {"required": ("short_factor", "long_factor", "original_max_position_embeddings"),
                 "optional": ("factor", "attention_factor")},
    "llama3": {"required": ("factor", "low_freq_factor", "high_freq_factor",
                            "original_max_position_embeddings"), "optional": ()},
}
_ALWAYS = ("type", "rope_type", "rope_theta", "partial_rotary_factor")
_ATTRIBUTE_MAP = {"n_embd": "hidden_size", "n_head": "num_attention_heads",
                  "n_positions": "max_position_embeddings"}
#: Spellings of one model type (HF's ``attribute_map`` of that type's config class).
_TYPE_ATTRIBUTE_MAP = {"dbrx": {"d_model": "hidden_size", "n_heads": "num_attention_heads",
                                "max_seq_len": "max_position_embeddings"}}
#: Model types whose modeling code fixes the base (GPT-J / CodeGen's
#: ``create_sinusoidal_positions``: ``10000 ** (arange(0, dim, 2) / dim)``): no config key sets it.
_FIXED_BASE = {"gptj": 10000, "codegen": 10000}
#: HF model types whose modeling code rotates adjacent pairs (rotate_every_two).
_ADJACENT_MODELS = {"gptj", "codegen", "chatglm", "glm"}


@dataclass
class RopeConfig:
    """The normalised RoPE settings of a model config, with the notes of every assumption.

    >>> read_config({"rope_theta": 1e4, "head_dim": 8}).to_dict()["rotary_dim"]
    8
    """

    source: str
    rope_type: str
    rope_theta: sp.Expr
    head_dim: int
    rotary_dim: int
    layout: str
    max_position_embeddings: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    model_type: str | None = None
    notes: list[str] = field(default_factory=list)
    #: Qwen2-VL's ``mrope_section`` (pairs per axis t, h, w), or None for a 1-D RoPE.
    mrope_section: tuple[int, ...] | None = None
    #: Qwen3-VL's ``mrope_interleaved``: pairs assigned to the axes in turn.
    mrope_interleaved: bool = False

    def multi_rotary(self) -> Any:
        """The :class:`~posproof.model.multirope.MultiAxisRotary` of an M-RoPE config
        (:meth:`rotary` is its text-token view, all axes equal).

        >>> c = read_config({"rope_theta": 1e6, "head_dim": 8,
        ...                  "rope_scaling": {"type": "mrope", "mrope_section": [2, 1, 1]}})
        >>> c.multi_rotary().pair_axes
        (0, 0, 1, 2)
        """
        from .multirope import mrope_from_config

        return mrope_from_config(self)

    def rotary(self, seq_len: int | None = None, *, name: str | None = None) -> Any:
        """The :class:`~posproof.model.rope.Rotary` this config describes.

        ``seq_len`` (sequence length s) matters for ``dynamic`` and ``longrope``;
        it overrides the one given to :func:`read_config`.

        >>> c = read_config({"rope_theta": 1e4, "head_dim": 8, "max_position_embeddings": 64,
        ...                  "rope_scaling": {"type": "dynamic", "factor": 2}})
        >>> c.rotary().schedule.effective_length, c.rotary(seq_len=128).schedule.scale(8)
        (64, 3)
        """
        from .rope import Rotary
        from .scaling import make_scaling

        params = dict(self.params)
        if seq_len is not None and self.rope_type in ("dynamic", "longrope"):
            params["seq_len"] = seq_len
        try:
            schedule = make_scaling(self.rope_type, self.rope_theta, **params)
            return Rotary(schedule, self.head_dim, rotary_dim=self.rotary_dim,
                          layout=self.layout, name=name or self.label)
        except PosproofError as exc:
            raise type(exc)(f"{self.source}: {exc}") from None

    @property
    def label(self) -> str:
        stem = os.path.splitext(os.path.basename(self.source))[0]
        return stem if stem and stem != "config" else (self.model_type or "config")

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "model_type": self.model_type,
                "rope_type": self.rope_type, "rope_theta": str(self.rope_theta),
                "head_dim": self.head_dim, "rotary_dim": self.rotary_dim, "layout": self.layout,
                "max_position_embeddings": self.max_position_embeddings,
                "params": {k: (str(v) if not isinstance(v, (list, tuple)) else
                               [str(x) for x in v]) for k, v in self.params.items()},
                "notes": self.notes,
                **({} if self.mrope_section is None else {
                    "mrope_section": list(self.mrope_section),
                    "mrope_interleaved": self.mrope_interleaved})}


def _load(source: Any) -> tuple[dict[str, Any], str]:
    if isinstance(source, Mapping):
        return dict(source), "<dict>"
    try:
        path = os.fspath(source)
    except TypeError:
        raise InvalidParameter(f"config={source!r} is neither a path nor a dict; pass the path "
                               "of a config.json") from None
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise InvalidParameter(f"config {path!r} cannot be read: {exc.strerror}; pass the path "
                               "of a config.json") from None
    except UnicodeDecodeError as exc:
        raise InvalidParameter(f"config {path!r} is not UTF-8 text (byte {exc.start}: "
                               f"{exc.reason}); pass a config.json") from None
    except ValueError as exc:  # e.g. a NUL byte in the path
        raise InvalidParameter(f"config {path!r} is not a usable path ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidParameter(f"{path}: malformed JSON at line {exc.lineno}, column "
                               f"{exc.colno}: {exc.msg}; fix the file (a trailing comma or a "
                               "missing quote is the usual cause)") from None
    except (ValueError, RecursionError) as exc:  # 5000-digit integers, 10^5 nested brackets
        raise InvalidParameter(f"{path}: JSON that cannot be read ({type(exc).__name__}: "
                               f"{str(exc)[:100]}); a config holds moderate numbers and "
                               "shallow objects") from None
    if not isinstance(data, dict):
        raise InvalidParameter(f"{path}: the top level is a {type(data).__name__}, not an object "
                               "of config keys")
    return data, path


def _number(where: str, key: str, value: Any) -> sp.Expr:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidParameter(f"{where}: {key}={value!r} is not a number; pass a number such "
                               "as 8.0")
    try:
        return exact_number(key, value)
    except PosproofError as exc:
        raise type(exc)(f"{where}: {exc}") from None


def _int(where: str, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            isinstance(value, float) and not value.is_integer()):
        raise InvalidParameter(f"{where}: {key}={value!r} is not an integer; pass a whole number")
    if value < 1:
        raise InvalidParameter(f"{where}: {key}={value!r} must be >= 1")
    return int(value)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(exact_number("a", a) == exact_number("b", b))
    except PosproofError:
        return a == b


def _one_of(where: str, found: dict[str, Any], what: str) -> Any:
    """The single value given under several spellings; refuse disagreement."""
    given = {k: v for k, v in found.items() if v is not None}
    if not given:
        return None
    values = list(given.values())
    if any(not _same(values[0], v) for v in values[1:]):
        shown = ", ".join(f"{k}={v!r}" for k, v in given.items())
        raise InvalidParameter(f"{where}: conflicting {what}: {shown}; keep one spelling (or "
                               "make them equal)")
    return values[0]


def _phimoe_mscale(where: str, block_name: str, rope: dict[str, Any], notes: list[str]) -> Any:
    """Phi-3.5-MoE's ``short_mscale`` / ``long_mscale`` (popped from ``rope``): HF's phimoe
    scales cos and sin by short_mscale up to the switch and long_mscale after it, in place of
    the rule's attention factor.  Equal, they are that factor; different, the magnitude
    changes at the switch, which the SPEC reading does not model (refused in one line)."""
    values = {}
    for key in ("short_mscale", "long_mscale"):
        value = rope.pop(key, None)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidParameter(f"{where}: {block_name}.{key}={value!r}: HF's phimoe needs a "
                                   "number (it scales cos and sin by it)")
        values[key] = _number(where, f"{block_name}.{key}", value)
    short, long = values["short_mscale"], values["long_mscale"]
    if short != long:
        raise InvalidParameter(f"{where}: {block_name}.short_mscale={_shown(short)} and "
                               f"long_mscale={_shown(long)} differ: HF's phimoe changes the "
                               "cos/sin magnitude at the switch, which the SPEC reading does not "
                               "model")
    if rope.pop("attention_factor", None) is not None:
        notes.append("phimoe: attention_factor ignored, short_mscale replaces it (as HF does)")
    notes.append(f"phimoe: cos and sin scaled by short_mscale = long_mscale = {_shown(short)} "
                 "(its attention factor, the same on both sides of the switch)")
    return short


def _shown(value: Any) -> str:
    """A SymPy number as the config spelled it (a float's shortest repr)."""
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return str(value)


def read_config(source: Any, *, default_theta: Any = None, layout: str | None = None,
                seq_len: int | None = None, layer: str | None = None,
                theta_hint: str = "default_theta=10000") -> RopeConfig:
    """Read the RoPE settings of a HF-style ``config.json`` (a path or a dict).

    ``default_theta`` is used only when the config has no rope_theta (and is
    then reported in ``notes``); ``layout`` overrides the layout HF's modeling
    code uses (``half`` = rotate_half for most models); ``seq_len`` selects the
    table of ``dynamic`` and ``longrope``; ``layer`` picks one entry of a
    ``rope_parameters`` nested per layer type.  ``theta_hint``: how the caller's user passes
    a default theta (``explain`` names its own option), named by the refusal of a
    config without rope_theta — a suggestion the command that prints it accepts.

    >>> read_config({"head_dim": 64, "max_position_embeddings": 2048})
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: <dict>: no rope_theta (nor rope_scaling.rope_theta, rotary_emb_base); HF would silently use 10000 — pass default_theta=10000 if that is what the model was trained with
    >>> read_config({"rope_scaling": {"type": "linear", "rope_type": "dynamic", "factor": 2},
    ...              "rope_theta": 1e4, "head_dim": 64})
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: <dict>: conflicting rope type: rope_scaling.type='linear', rope_scaling.rope_type='dynamic'; keep one spelling (or make them equal)
    """  # noqa: E501
    cfg, where = _load(source)
    notes: list[str] = []
    if not any(k in cfg for k in ("rope_theta", "rope_scaling", "rope_parameters",
                                  "rotary_emb_base")) and isinstance(cfg.get("text_config"), dict):
        notes.append("RoPE settings read from text_config (a multimodal config)")
        cfg = {**cfg["text_config"], "model_type": cfg["text_config"].get(
            "model_type", cfg.get("model_type"))}
    model_type = cfg.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise InvalidParameter(f"{where}: model_type={model_type!r} must be a string")
    if layer is not None and not isinstance(layer, str):
        raise InvalidParameter(f"layer={layer!r} must be the name of a layer type (a string)")
    for old, new in {**_ATTRIBUTE_MAP, **_TYPE_ATTRIBUTE_MAP.get(model_type, {})}.items():
        if old in cfg:                         # GPT-2/GPT-J/DBRX spellings (HF attribute_map)
            value = _one_of(where, {old: cfg[old], new: cfg.get(new)}, new)
            cfg[new] = value
            notes.append(f"{old} read as {new}")
    blocks = {}
    for key in ("rope_scaling", "rope_parameters"):
        value = cfg.get(key)
        if value is not None and not isinstance(value, dict):
            raise InvalidParameter(f"{where}: {key}={value!r} must be an object (or null)")
        if value:
            blocks[key] = dict(value)
    if "rope_parameters" in blocks and "rope_scaling" not in blocks and all(
            isinstance(v, dict) or v is None for v in blocks["rope_parameters"].values()):
        nested = blocks["rope_parameters"]
        if layer is None:
            raise InvalidParameter(f"{where}: rope_parameters is nested per layer type "
                                   f"({', '.join(nested)}); pass layer='{next(iter(nested))}'")
        if layer not in nested or nested[layer] is None:
            raise UnknownName(f"{where}: layer={layer!r} is not in rope_parameters; use one of "
                              f"{', '.join(k for k, v in nested.items() if v is not None)}")
        blocks["rope_parameters"] = dict(nested[layer])
        notes.append(f"rope_parameters of layer type {layer!r}")
    if len(blocks) == 2:          # transformers 5.x: a non-empty rope_scaling replaces
        dropped = blocks.pop("rope_parameters")       # rope_parameters whole
        notes.append("both rope_scaling and rope_parameters present: rope_scaling replaces "
                     "rope_parameters, as transformers reads it"
                     + (f" (rope_parameters.rope_theta={dropped['rope_theta']!r} is not read)"
                        if "rope_theta" in dropped and "rope_theta" not in blocks["rope_scaling"]
                        else ""))
    rope = {**blocks.get("rope_scaling", {}), **blocks.get("rope_parameters", {})}
    block_name = "rope_parameters" if "rope_parameters" in blocks else "rope_scaling"

    # ---- type
    kind = _one_of(where, {f"{block_name}.type": rope.get("type"),
                           f"{block_name}.rope_type": rope.get("rope_type")}, "rope type")
    kind = "default" if kind is None else str(kind).lower()
    mrope_section, interleaved = rope.pop("mrope_section", None), rope.pop("mrope_interleaved",
                                                                            False)
    if kind == "mrope":
        kind = "default"
        notes.append("rope type 'mrope' is the default frequencies with mrope_section (as HF "
                     "reads it)")
        if mrope_section is None:
            raise InvalidParameter(f"{where}: rope type 'mrope' needs {block_name}.mrope_section")
    if not isinstance(interleaved, bool):
        raise InvalidParameter(f"{where}: {block_name}.mrope_interleaved={interleaved!r} must be "
                               "true or false")
    if mrope_section is not None:
        if not isinstance(mrope_section, list) or kind != "default":
            raise InvalidParameter(f"{where}: {block_name}.mrope_section={mrope_section!r} must "
                                   "be a list of pair counts with rope type 'default' (M-RoPE "
                                   "with a scaling rule is not modelled)")
        mrope_section = tuple(_int(where, f"{block_name}.mrope_section", v)
                              for v in mrope_section)
        notes.append(f"M-RoPE: mrope_section={list(mrope_section)}"
                     f"{' interleaved (Qwen3-VL)' if interleaved else ''}; rotary() is the "
                     "text-token view (all axes equal), multi_rotary() has the axes")
    elif interleaved:
        raise InvalidParameter(f"{where}: {block_name}.mrope_interleaved without mrope_section")
    if kind == "su" or (kind == "yarn" and model_type == "phi3"
                        and ("short_factor" in rope or "long_factor" in rope)):
        notes.append(f"rope type {kind!r} is the old Phi-3 name of 'longrope' (as HF maps it)")
        kind = "longrope"
    if kind not in HF_ROPE_TYPES:
        raise UnknownName(f"{where}: rope type {kind!r} is not supported; use one of "
                          f"{', '.join(HF_ROPE_TYPES)} (M-RoPE is 'mrope' or 'default' with "
                          "mrope_section; axial/proportional RoPE are not modelled)")

    # ---- base
    theta = _one_of(where, {"rope_theta": cfg.get("rope_theta"),
                            f"{block_name}.rope_theta": rope.get("rope_theta"),
                            "rotary_emb_base": cfg.get("rotary_emb_base")}, "rope_theta")
    if model_type in _FIXED_BASE:
        fixed = _FIXED_BASE[model_type]
        if theta is not None and not _same(theta, fixed):
            raise InvalidParameter(f"{where}: rope_theta={theta!r}, but HF's {model_type} "
                                   f"modeling code fixes the base at {fixed} and ignores the key; "
                                   "remove it, or pass a rope: SPEC with the base you mean")
        if theta is None:
            notes.append(f"rope_theta: {fixed}, fixed in HF's {model_type} modeling code "
                         "(create_sinusoidal_positions); no config key sets it")
        theta = fixed
    if theta is None:
        if default_theta is None:
            raise InvalidParameter(
                f"{where}: no rope_theta (nor {block_name}.rope_theta, rotary_emb_base); HF "
                f"would silently use 10000 — pass {theta_hint} if that is what the model was "
                "trained with")
        theta = default_theta
        notes.append(f"rope_theta missing: using default_theta={default_theta} as passed "
                     "explicitly")
    rope_theta = _number(where, "rope_theta", theta)
    if compare(rope_theta, 1) != 1:      # certified, not SymPy's relational
        raise InvalidParameter(f"{where}: rope_theta={theta!r} must be > 1, e.g. 10000")

    # ---- dims
    heads, hidden = cfg.get("num_attention_heads"), cfg.get("hidden_size")
    if cfg.get("head_dim") is not None:
        head_dim = _int(where, "head_dim", cfg["head_dim"])
        if heads is not None and hidden is not None:
            heads = _int(where, "num_attention_heads", heads)
            hidden = _int(where, "hidden_size", hidden)
        if heads and hidden and hidden / heads != head_dim:
            notes.append(f"head_dim={head_dim} differs from hidden_size/num_attention_heads = "
                         f"{hidden}/{heads}; head_dim wins (as in HF)")
    elif heads and hidden:
        heads, hidden = _int(where, "num_attention_heads", heads), _int(where, "hidden_size",
                                                                      hidden)
        if hidden % heads:
            raise InvalidParameter(f"{where}: hidden_size={hidden} is not divisible by "
                                   f"num_attention_heads={heads}; give head_dim explicitly")
        head_dim = hidden // heads
        notes.append(f"head_dim = hidden_size/num_attention_heads = {hidden}/{heads} = "
                     f"{head_dim}")
    else:
        raise InvalidParameter(f"{where}: no head_dim and no hidden_size/num_attention_heads; "
                               "add head_dim")
    prf = _one_of(where, {"partial_rotary_factor": cfg.get("partial_rotary_factor"),
                          f"{block_name}.partial_rotary_factor": rope.get("partial_rotary_factor"),
                          "rotary_pct": cfg.get("rotary_pct")}, "partial_rotary_factor")
    rotary_dim = head_dim
    if prf is not None:
        factor = float(_number(where, "partial_rotary_factor", prf))
        if not 0 < factor <= 1:
            raise InvalidParameter(f"{where}: partial_rotary_factor={prf!r} must be in (0, 1]; "
                                   "it is the fraction of head channels that rotate")
        rotary_dim = int(head_dim * factor)
        exact = int(sp.floor(_number(where, "partial_rotary_factor", prf) * head_dim))
        if exact != rotary_dim:
            notes.append(f"int(head_dim·partial_rotary_factor) = {rotary_dim} in floating point "
                         f"(HF) but {exact} exactly; HF's value is used")
        notes.append(f"rotary_dim = int({head_dim}·{prf}) = {rotary_dim}")
    elif model_type == "gpt_neox":
        raise InvalidParameter(f"{where}: a gpt_neox config without rotary_pct (or "
                               "partial_rotary_factor): HF defaults it to 0.25 for GPT-NeoX, "
                               "1.0 elsewhere; add the key explicitly")
    if cfg.get("rotary_dim") is not None:
        explicit = _int(where, "rotary_dim", cfg["rotary_dim"])
        if prf is not None and explicit != rotary_dim:
            raise InvalidParameter(f"{where}: rotary_dim={explicit} but head_dim·"
                                   f"partial_rotary_factor gives {rotary_dim}; keep one")
        rotary_dim = explicit
    if rotary_dim > head_dim:
        raise InvalidParameter(f"{where}: rotary_dim={rotary_dim} is larger than head_dim="
                               f"{head_dim}; use rotary_dim <= head_dim")
    if rotary_dim < 2 or rotary_dim % 2:
        raise InvalidParameter(f"{where}: rotary_dim={rotary_dim} must be an even number >= 2; "
                               "adjust partial_rotary_factor or rotary_dim")

    # ---- lengths and scaling parameters
    max_pos = cfg.get("max_position_embeddings")
    max_pos = None if max_pos is None else _int(where, "max_position_embeddings", max_pos)
    spec = HF_ROPE_TYPES[kind]
    mscale = _phimoe_mscale(where, block_name, rope, notes) if (
        model_type == "phimoe" and kind != "default") else None
    allowed = set(spec["required"]) | set(spec["optional"]) | set(_ALWAYS)
    for key in rope:
        if key not in allowed:
            raise InvalidParameter(
                f"{where}: {block_name}.{key} is not a key of rope type {kind!r}; it takes "
                f"{', '.join(sorted(set(spec['required']) | set(spec['optional'])) or ['none'])}"
                " (plus rope_type/type, rope_theta, partial_rotary_factor)")
    orig = _one_of(where, {f"{block_name}.original_max_position_embeddings":
                           rope.get("original_max_position_embeddings"),
                           "original_max_position_embeddings":
                           cfg.get("original_max_position_embeddings")},
                   "original_max_position_embeddings")
    params: dict[str, Any] = {}
    for key in spec["required"]:
        if key == "original_max_position_embeddings":
            continue
        derivable = key == "factor" and kind in ("yarn", "longrope")
        if key not in rope or (rope[key] is None and not derivable):
            raise InvalidParameter(f"{where}: rope type {kind!r} needs {block_name}.{key}; it "
                                   f"needs {', '.join(spec['required'])}")
    if kind in ("yarn", "llama3", "longrope"):
        if orig is None:
            if max_pos is None:
                raise InvalidParameter(f"{where}: rope type {kind!r} needs "
                                       "original_max_position_embeddings (or "
                                       "max_position_embeddings)")
            orig = max_pos
            notes.append(f"original_max_position_embeddings missing: using max_position_"
                         f"embeddings={max_pos}, as HF does")
        params["original_max_position_embeddings"] = _int(
            where, "original_max_position_embeddings", orig)
    if kind == "dynamic":
        if max_pos is None:
            raise InvalidParameter(f"{where}: dynamic NTK needs max_position_embeddings (HF's "
                                   "L in base·(factor·s/L − (factor − 1))^(d/(d−2)))")
        params["original_max_position_embeddings"] = max_pos
        if orig is not None and _int(where, "original_max_position_embeddings", orig) != max_pos:
            notes.append(f"dynamic NTK: HF uses max_position_embeddings={max_pos} as L, not "
                         f"original_max_position_embeddings={orig}")
        if seq_len is None:
            notes.append("dynamic NTK without seq_len: the table at s = L (HF at init), i.e. "
                         "the default one; pass seq_len for a longer sequence")
    for key in ("factor", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow",
                "mscale", "mscale_all_dim"):
        if key in rope and rope[key] is not None:
            params[key] = _number(where, f"{block_name}.{key}", rope[key])
    if kind in ("yarn", "longrope") and params.get("factor") is None:
        if max_pos is None:
            raise InvalidParameter(f"{where}: {block_name}.factor is missing and there is no "
                                   "max_position_embeddings to derive it from")
        params["factor"] = sp.Rational(max_pos, params["original_max_position_embeddings"])
        notes.append(f"factor missing: max_position_embeddings/original = {params['factor']} "
                     "(as HF derives it)")
    if rope.get("attention_factor") is not None:
        params["attention"] = _number(where, f"{block_name}.attention_factor",
                                      rope["attention_factor"])
    if mscale is not None:
        params["attention"] = mscale
    if "truncate" in rope:
        if not isinstance(rope["truncate"], bool):
            raise InvalidParameter(f"{where}: {block_name}.truncate={rope['truncate']!r} must be "
                                   "true or false")
        params["truncate"] = rope["truncate"]
    if kind == "longrope":
        for key in ("short_factor", "long_factor"):
            values = rope[key]
            if not isinstance(values, list) or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                raise InvalidParameter(f"{where}: {block_name}.{key} must be a list of numbers")
            if len(values) != rotary_dim // 2:
                raise InvalidParameter(f"{where}: {block_name}.{key} has {len(values)} entries "
                                       f"but rotary_dim={rotary_dim} needs {rotary_dim // 2}")
            params[key] = tuple(values)
        if model_type == "phimoe" and params["long_factor"] != params["short_factor"]:
            params["long_factor"] = params["short_factor"]
            notes.append("phimoe: HF's PhiMoE rotary calls the LongRoPE rule without a length, "
                         "so short_factor rotates every position; long_factor is never used")
        if seq_len is None:
            notes.append("longrope without seq_len: short_factor (HF at init); pass seq_len > "
                         f"{params['original_max_position_embeddings']} for long_factor")
    if kind in ("dynamic", "longrope") and seq_len is not None:
        params["seq_len"] = seq_len

    # ---- layout
    if layout is None:
        layout = "adjacent" if model_type in _ADJACENT_MODELS else "half"
        how = "rotate_every_two" if layout == "adjacent" else "rotate_half"
        if model_type == "llama":
            how += "; Meta's original checkpoints use adjacent pairs, a permutation away"
        notes.append(f"layout {layout!r}: what HF's modeling code for "
                     f"{model_type or 'this model'} applies ({how}); pass layout= to override")
    result = RopeConfig(where, kind, rope_theta, head_dim, rotary_dim, layout, max_pos, params,
                        model_type, notes, mrope_section, interleaved)
    result.rotary()  # validate the scaling parameters now (negative factors, low ≥ high, …)
    if mrope_section is not None:
        result.multi_rotary()  # sections that do not sum to rotary_dim/2
    return result


def __getattr__(name: str) -> Any:
    """``parse_spec`` and ``SPEC_ALIASES`` moved to :mod:`posproof.model.specs` (which imports
    this module, so the re-export is looked up on first use rather than imported here)."""
    if name in ("parse_spec", "SPEC_ALIASES"):
        import importlib

        return getattr(importlib.import_module(".specs", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
