"""Spec strings: the small language ``posproof explore`` (and sweeps, the pytest plugin) read.

::

    rope:base=500000,dim=128,scaling=llama3,factor=8,original_max_position_embeddings=8192
    rope:config=llama3.json,seq_len=131072,layout=adjacent
    rope:dim=128,base=1e6,mrope_section=16;24;24             (M-RoPE, Qwen2-VL)
    rope:dim=128,base=5e6,mrope_section=24;20;20,mrope_interleaved=true     (Qwen3-VL)
    axial-rope:axes_dims=16;56;56,theta=10000                 (FLUX; layout=half for rotate_half)
    sincos-2d:dim=768                                         (or pe-2d, pe-3d: multi-axis tables)
    sinusoidal:dim=512,base=10000            (or any preset name: vaswani:dim=512)
    path/to/config.json

Specs are split on ``,`` and ``=`` and never evaluated; numbers are exact
(``1e6``, ``0.25``, ``2*pi``); lists (LongRoPE factors, sections, axis dims) are
``;``-separated.  A spec with several position axes gives a
:class:`~posproof.model.multirope.MultiAxisRotary` or a
:class:`~posproof.model.multiaxis.MultiAxisEncoding`, only when the caller asks for them
(``multi=True``); otherwise it is refused in one line, so code typed on 1-D encodings never
receives one.

>>> parse_spec("rope:base=10000,dim=64,scaling=linear,factor=4").name
'rope-linear'
>>> parse_spec("rope:dim=8,base=100,mrope_section=2;1;1", multi=True).pair_axes
(0, 0, 1, 2)
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameter

__all__ = ["MULTI_SPEC_KINDS", "SPEC_ALIASES", "build", "parse_spec"]

SPEC_ALIASES = {"theta": "base", "rope_theta": "base", "head_dim": "dim", "type": "scaling",
                "rope_type": "scaling", "attention_factor": "attention",
                "original": "original_max_position_embeddings",
                "orig": "original_max_position_embeddings"}
_ROPE_KEYS = ("base", "dim", "rotary_dim", "partial_rotary_factor", "layout", "scaling", "name",
              "config", "seq_len", "default_theta", "factor", "low_freq_factor",
              "high_freq_factor", "original_max_position_embeddings", "beta_fast", "beta_slow",
              "truncate", "attention", "mscale", "mscale_all_dim", "short_factor", "long_factor",
              "mrope_section", "mrope_interleaved")
_MROPE_KEYS = ("base", "dim", "layout", "name", "mrope_section", "mrope_interleaved")
_AXIAL_KEYS = ("axes_dims", "base", "layout")
_INT_KEYS = ("dim", "rotary_dim", "seq_len", "original_max_position_embeddings", "offset",
             "padding_idx", "start_index")
_INT_LISTS = ("mrope_section", "axes_dims")
_BOOL_KEYS = ("truncate", "mrope_interleaved")
#: Spec kinds with several position axes (``multi=True`` only); ``mrope`` is ``rope`` with
#: ``mrope_section`` required.
MULTI_SPEC_KINDS = ("mrope", "axial-rope", "sincos-2d", "pe-2d", "pe-3d")


def _theta_hint(path: Any) -> str:
    """How a SPEC passes a default theta for the config at ``path`` (every command that takes a
    SPEC accepts it)."""
    return f"the SPEC rope:config={path},default_theta=10000"


def _spec_value(key: str, text: str) -> Any:
    text = text.strip()
    if key in _INT_KEYS:
        try:
            return int(text)
        except ValueError:
            raise InvalidParameter(f"spec: {key}={text!r} is not an integer") from None
    if key in ("short_factor", "long_factor"):
        return tuple(v.strip() for v in text.split(";") if v.strip())
    if key in _INT_LISTS:
        try:
            return tuple(int(v) for v in text.split(";"))
        except ValueError:
            raise InvalidParameter(f"spec: {key}={text!r} is not a ;-separated list of "
                                   "integers; write e.g. 16;24;24") from None
    if key in _BOOL_KEYS:
        if text.lower() not in ("true", "false", "1", "0"):
            raise InvalidParameter(f"spec: {key}={text!r}; use true or false")
        return text.lower() in ("true", "1")
    return text


def _pairs(body: str, where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in body.split(","))):
        if "=" not in item:
            raise InvalidParameter(f"spec {where!r}: {item!r} is not key=value; write e.g. "
                                   "rope:base=10000,dim=128")
        key, value = item.split("=", 1)
        key = SPEC_ALIASES.get(key.strip().lower(), key.strip().lower())
        if key in out:
            raise InvalidParameter(f"spec {where!r}: {key} is given twice")
        out[key] = value
    return out


def _only(text: str, kind: str, values: dict[str, Any], allowed: tuple[str, ...]) -> None:
    for key in values:
        if key not in allowed:
            raise InvalidParameter(f"spec {text!r}: unknown key {key!r}; {kind} specs take "
                                   f"{', '.join(allowed)}")


def _multi(text: str, kind: str, values: dict[str, str], multi: bool) -> Any:
    """The multi-axis object of a ``mrope`` / ``axial-rope`` / ``sincos-2d`` … spec."""
    from .multiaxis import multi_preset
    from .multirope import axial_rope, mrope

    if not multi:
        raise InvalidParameter(f"spec {text!r} has several position axes ({kind}); only "
                               "posproof explore takes multi-axis specs (derive, prove and "
                               "check take --preset with --grid)")
    if kind == "mrope":
        _only(text, "M-RoPE", values, _MROPE_KEYS)
        params = {k: _spec_value(k, v) for k, v in values.items()}
        if "mrope_section" not in params:
            raise InvalidParameter(f"spec {text!r}: M-RoPE needs mrope_section, e.g. "
                                   "mrope_section=16;24;24")
        rot = mrope(params.get("base", "10000"), params.get("dim", 128),
                    params["mrope_section"], interleaved=params.get("mrope_interleaved", False),
                    layout=params.get("layout", "half"))
        if "name" in params:
            rot.name = params["name"]
        return rot
    if kind == "axial-rope":
        _only(text, "axial-rope", values, _AXIAL_KEYS)
        params = {k: _spec_value(k, v) for k, v in values.items()}
        return axial_rope(params.get("axes_dims", (16, 56, 56)), params.get("base", "10000"),
                          layout=params.get("layout", "adjacent"))
    params = {k: _spec_value(k, v) for k, v in values.items()}
    dim = params.pop("dim", 768)
    return multi_preset(kind, dim, **params)


def parse_spec(text: Any, *, seq_len: int | None = None, multi: bool = False,
               biases: bool = False) -> Any:
    """The model object of a SPEC (see :mod:`posproof.model.families`, the one grammar).

    ``seq_len`` is the default sequence length for dynamic / longrope rules.  With
    ``multi=True`` a multi-axis spec gives a MultiAxisRotary / MultiAxisEncoding; with
    ``biases=True`` an ``alibi`` / ``t5`` / ``xpos`` spec gives its Alibi / T5Buckets /
    XPos (callers that handle encodings only refuse them in one line).

    >>> parse_spec("vaswani:dim=8,base=100")
    Encoding(vaswani, dim=8, layout=interleaved, base=100, offset=0)
    >>> parse_spec("rope:base=1e4,dim=64,rotary_dim=16").rotary_dim
    16
    >>> parse_spec("axial-rope:axes_dims=4;8", multi=True)
    MultiAxisRotary(axial-rope, head_dim=12, layout=adjacent, pairs per axis=[2, 4])
    >>> float(parse_spec("alibi:heads=8", biases=True).slopes_array()[0])
    0.5
    >>> parse_spec("rope:dim=128,mrope_section=16;24;20", multi=True)
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidEncoding: mrope_section=[16, 24, 20] sums to 60, but head_dim/2 = 64 frequency pairs must be divided; use sections summing to 64
    >>> parse_spec("rope:bass=10")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: spec 'rope:bass=10': unknown key 'bass'; rope specs take dim, base, rotary_dim, partial_rotary_factor, layout, scaling, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings, beta_fast, beta_slow, truncate, attention, mscale, mscale_all_dim, short_factor, long_factor, seq_len, config, default_theta, name, mrope_section, mrope_interleaved
    """  # noqa: E501
    from .configs import read_config
    from .families import FAMILIES, parse
    from .presets import preset
    from .rope import rotary

    spec = parse(text)
    text = spec.text
    fam = FAMILIES[spec.family]
    if fam.kind == "bias" or spec.family == "xpos":
        if not biases:
            raise InvalidParameter(f"spec {text!r} is {fam.summary.split(' (')[0]}, not an "
                                   "encoding this command compares; use posproof prove / "
                                   f"check / check-impl {text}")
        return _bias(spec)
    if spec.config is not None:
        cfg = read_config(spec.config, seq_len=seq_len, theta_hint=_theta_hint(spec.config))
        return cfg.multi_rotary() if multi and cfg.mrope_section else cfg.rotary(seq_len)
    values = dict(spec.params)
    values.pop("grid", None)          # where to measure, not what the encoding is
    if spec.family == "mrope":
        values = {{"sections": "mrope_section", "interleaved": "mrope_interleaved"}.get(k, k): v
                  for k, v in values.items()}
        return _multi(text, "mrope", values, multi)
    if spec.family in ("axial-rope", "sincos-2d"):
        values.pop("grid", None)      # where to measure, not what the encoding is
        return _multi(text, spec.name, values, multi)
    if spec.family == "rope":
        if ("mrope_section" in values or "mrope_interleaved" in values) and \
                "config" not in values:
            _only(text, "M-RoPE", values, _MROPE_KEYS)
            return _multi(text, "mrope", values, multi)
        params = {k: _spec_value(k, v) for k, v in values.items()}
        name = params.pop("name", None)
        if "config" in params:
            path = params.pop("config")
            extra = {k: params.pop(k) for k in ("seq_len", "default_theta", "layout")
                     if k in params}
            if params:
                raise InvalidParameter(f"spec {text!r}: with config= only seq_len, "
                                       f"default_theta, layout and name apply; got "
                                       f"{', '.join(params)}")
            length = extra.get("seq_len", seq_len)
            cfg = read_config(path, default_theta=extra.get("default_theta"),
                              layout=extra.get("layout"), seq_len=length,
                              theta_hint=_theta_hint(path))
            if multi and cfg.mrope_section:
                return cfg.multi_rotary()
            return cfg.rotary(length, name=name)
        params.pop("default_theta", None)
        if params.get("scaling") in ("dynamic", "longrope") and "seq_len" not in params:
            params["seq_len"] = seq_len
        base = params.pop("base", "10000")
        dim = params.pop("dim", 128)
        return rotary(base, dim, name=name, **params)
    params = {k: _spec_value(k, v) for k, v in values.items()}
    if "frequencies" in params:
        params["frequencies"] = [f for f in str(params["frequencies"]).split(";") if f.strip()]
    dim = params.pop("dim", 512)
    return preset(spec.name, dim=dim, **params)


def build(spec: Any, *, seq_len: int | None = None) -> Any:
    """The model object of a SPEC of any family: an Encoding, Rotary, MultiAxisEncoding /
    MultiAxisRotary, Alibi, T5Buckets or XPos.

    >>> build("t5:buckets=32,max_distance=128,causal=true")
    T5Buckets(num_buckets=32, max_distance=128, bidirectional=False)
    """
    return parse_spec(spec, seq_len=seq_len, multi=True, biases=True)


def _bool(spec: Any, key: str, default: bool) -> bool:
    text = spec.params.get(key)
    if text is None:
        return default
    if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
        raise InvalidParameter(f"spec {spec.text!r}: {key}={text!r}; use true or false")
    return text.lower() in ("true", "1", "yes")


def _int(spec: Any, key: str, default: int) -> int:
    text = spec.params.get(key)
    if text is None:
        return default
    try:
        return int(text)
    except ValueError:
        raise InvalidParameter(f"spec {spec.text!r}: {key}={text!r} is not an integer") from None


def _bias(spec: Any) -> Any:
    """The Alibi, T5Buckets or XPos of an ``alibi`` / ``t5`` / ``xpos`` spec or config."""
    from .alibi import alibi, alibi_from_config
    from .families import config_family
    from .t5_buckets import T5Buckets
    from .xpos import XPos

    if spec.config is not None:
        family, data = config_family(spec.config)
        if family == "alibi":
            return alibi_from_config(data)
        # the encoder's buckets (bidirectional); a decoder's self-attention is causal
        return T5Buckets(data.get("relative_attention_num_buckets", 32),
                         data.get("relative_attention_max_distance", 128), True)
    if spec.family == "alibi":
        if "heads" not in spec.params:
            raise InvalidParameter(f"spec {spec.text!r}: alibi needs heads, e.g. alibi:heads=12")
        return alibi(_int(spec, "heads", 0), spec.params.get("rule", "reference"),
                     spec.params.get("alibi_bias_max", "8"))
    if spec.family == "t5":
        return T5Buckets(_int(spec, "buckets", 32), _int(spec, "max_distance", 128),
                         not _bool(spec, "causal", False))
    extra: dict[str, Any] = {}
    if "gamma" in spec.params:
        extra["gamma"] = spec.params["gamma"]
    return XPos(_int(spec, "dim", 64), base=spec.params.get("base", "10000"),
                scale_base=_int(spec, "scale_base", 512), centred=_bool(spec, "centred", True),
                **extra)
