"""The families of position codes and the one SPEC grammar that names any of them.

A SPEC is ``FAMILY:key=value,...`` (or a path to a model's ``config.json``)::

    vaswani:dim=512,base=10000
    rope:dim=128,base=500000,scaling=llama3,factor=8
    sincos-2d:dim=768,grid=16x16
    mrope:dim=128,base=1e6,sections=16;24;24
    axial-rope:axes_dims=16;56;56,theta=10000
    alibi:heads=12                      (rule=mpt,alibi_bias_max=16)
    t5:buckets=32,max_distance=128,causal=false
    xpos:dim=64,scale_base=512
    path/to/config.json

Values are never evaluated (numbers stay exact strings until the family's builder reads
them); lists are ``;``-separated; a key may be spelled with its aliases (``theta`` for
``base``, ``head_dim`` for ``dim``, ``mrope_section`` for ``sections``, ``num_buckets`` for
``buckets`` …).  Every command reads the same :class:`Spec`; the old flags (``--preset``,
``--alibi --heads``, ``--t5``, ``--xpos``) are other spellings of one.

A family is one entry of :data:`FAMILIES`: its names, its keys with their defaults, an
example and the docs page; :func:`posproof.model.specs.build` gives its model object.  Adding a family is adding an
entry here and its operations in :mod:`posproof.families` (see docs/architecture.md).

>>> parse("alibi:heads=12").text
'alibi:heads=12'
>>> parse("t5:num_buckets=32,max_distance=128,causal=false").params["causal"]
'false'
>>> parse("mrope:dim=128,base=1e6,mrope_section=16;24;24").text
'mrope:dim=128,base=1e6,sections=16;24;24'
>>> parse("nope:dim=8")
Traceback (most recent call last):
...
posproof.errors.UnknownName: spec 'nope:dim=8': family 'nope' is not known; the families are vaswani (and the sinusoidal presets original, transformer, tensor2tensor, fairseq, diffusion, binary, sine-only, column-exponent, explicit, expression), rope, sincos-2d (pe-2d, pe-3d), mrope, axial-rope, alibi, t5, xpos; or a path to config.json
"""  # noqa: E501

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter, UnknownName

__all__ = ["FAMILIES", "Family", "Spec", "config_family", "families_help", "families_markdown",
           "family_names", "family_of", "parse"]

#: The sinusoidal presets: names of the ``vaswani`` family (a table PE(x) of sin and cos).
SINUSOIDAL_NAMES = ("vaswani", "original", "transformer", "tensor2tensor", "fairseq",
                    "diffusion", "binary", "sine-only", "column-exponent", "explicit",
                    "expression")
_SINUSOIDAL_ALIASES = {"sin": "vaswani", "sinusoidal": "vaswani", "pytorch": "vaswani",
                       "t2t": "tensor2tensor"}


@dataclass(frozen=True)
class Family:
    """One family of position codes: how its SPEC is spelled and what it builds."""

    name: str
    summary: str
    example: str
    keys: tuple[str, ...]
    #: Other names of the family itself (``rotary`` for ``rope``) and of its variants.
    names: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)
    docs: str = ""
    #: ``encoding`` (a table or a rotation) or ``bias`` (added to the attention scores).
    kind: str = "encoding"
    axes: str = "1"


_COMMON = {"theta": "base", "rope_theta": "base", "head_dim": "dim", "d": "dim"}
_ROPE_KEYS = ("dim", "base", "rotary_dim", "partial_rotary_factor", "layout", "scaling",
              "factor", "low_freq_factor", "high_freq_factor",
              "original_max_position_embeddings", "beta_fast", "beta_slow", "truncate",
              "attention", "mscale", "mscale_all_dim", "short_factor", "long_factor",
              "seq_len", "config", "default_theta", "name", "mrope_section", "mrope_interleaved")

FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("vaswani", "sinusoidal tables PE(x) (Vaswani et al. and the presets of "
           "tensor2tensor, fairseq, diffusion models …)", "vaswani:dim=512,base=10000",
           ("dim", "base", "layout", "offset", "frequencies", "expression", "odd_dim",
            "min_timescale", "max_timescale", "start_index", "padding_idx", "max_period",
            "numerator", "name"),
           names=SINUSOIDAL_NAMES[1:] + tuple(_SINUSOIDAL_ALIASES),
           aliases={**_COMMON, "first_position": "offset"}, docs="docs/spec.md#vaswani"),
    Family("rope", "rotary embeddings (RoPE) with every scaling rule: linear, dynamic, "
           "ntk, yarn, llama3, longrope …", "rope:dim=128,base=500000,scaling=llama3,factor=8",
           _ROPE_KEYS, names=("rotary",),
           aliases={**_COMMON, "type": "scaling", "rope_type": "scaling",
                    "attention_factor": "attention",
                    "original": "original_max_position_embeddings",
                    "orig": "original_max_position_embeddings"},
           docs="docs/spec.md#rope"),
    Family("sincos-2d", "sinusoidal tables on a grid of 2 or 3 axes (MAE, DiT; pe-2d, "
           "pe-3d)", "sincos-2d:dim=768,grid=16x16",
           ("dim", "base", "layout", "first", "grid"), names=("pe-2d", "pe-3d"),
           aliases=_COMMON, docs="docs/spec.md#several-position-axes", axes="several"),
    Family("mrope", "multimodal RoPE (Qwen2-VL's M-RoPE; Qwen3-VL interleaved)",
           "mrope:dim=128,base=1e6,sections=16;24;24",
           ("dim", "base", "sections", "interleaved", "layout", "name", "grid"),
           aliases={**_COMMON, "mrope_section": "sections",
                    "mrope_interleaved": "interleaved"},
           docs="docs/spec.md#several-position-axes", axes="several"),
    Family("axial-rope", "axial RoPE: one rotary per axis (FLUX)",
           "axial-rope:axes_dims=16;56;56,theta=10000", ("axes_dims", "base", "layout", "grid"),
           aliases=_COMMON, docs="docs/spec.md#several-position-axes", axes="several"),
    Family("alibi", "ALiBi linear attention biases (the paper / BLOOM; MPT's "
           "alibi_bias_max rule)", "alibi:heads=12",
           ("heads", "rule", "alibi_bias_max"),
           aliases={"n_heads": "heads", "n_head": "heads", "num_heads": "heads",
                    "num_attention_heads": "heads", "bias_max": "alibi_bias_max"},
           docs="docs/biases-alibi.md", kind="bias"),
    Family("t5", "T5 relative position buckets", "t5:buckets=32,max_distance=128,causal=false",
           ("buckets", "max_distance", "causal", "dtype"),
           aliases={"num_buckets": "buckets", "relative_attention_num_buckets": "buckets",
                    "relative_attention_max_distance": "max_distance"},
           docs="docs/biases-t5.md", kind="bias"),
    Family("xpos", "xPos: RoPE with an exponential scale (Sun et al. 2022)",
           "xpos:dim=64,scale_base=512", ("dim", "base", "scale_base", "gamma", "centred"),
           aliases={**_COMMON, "centered": "centred"}, docs="docs/biases-perm.md"),
)}

#: Every name a SPEC may start with → its family.
_NAME_TO_FAMILY: dict[str, str] = {}
for _family in FAMILIES.values():
    for _name in (_family.name, *_family.names):
        _NAME_TO_FAMILY[_name] = _family.name


def family_names() -> list[str]:
    """The families, in the order of :data:`FAMILIES`.

    >>> family_names()
    ['vaswani', 'rope', 'sincos-2d', 'mrope', 'axial-rope', 'alibi', 't5', 'xpos']
    """
    return list(FAMILIES)


def families_help() -> str:
    """The families as one sentence (every ``--help`` and every unknown-name error)."""
    parts = []
    for fam in FAMILIES.values():
        variants = [n for n in fam.names if n not in _SINUSOIDAL_ALIASES and n != "rotary"]
        if fam.name == "vaswani":
            parts.append(f"vaswani (and the sinusoidal presets {', '.join(variants)})")
        elif variants:
            parts.append(f"{fam.name} ({', '.join(variants)})")
        else:
            parts.append(fam.name)
    return ", ".join(parts)


def family_of(name: str) -> str | None:
    """The family of a SPEC's first word (``None`` when it names none).

    >>> family_of("fairseq"), family_of("rotary"), family_of("PE-3D"), family_of("x")
    ('vaswani', 'rope', 'sincos-2d', None)
    """
    return _NAME_TO_FAMILY.get(str(name).strip().lower())


@dataclass(frozen=True)
class Spec:
    """A parsed SPEC: the family, the name used (a preset of the family), its parameters
    (canonical keys, values as written), and :attr:`text`, the canonical spelling."""

    family: str
    name: str
    params: dict[str, str]
    #: A config.json this spec was read from (``None`` when typed).
    config: str | None = None

    @property
    def text(self) -> str:
        if self.config is not None and not self.params:
            return self.config
        body = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.name}:{body}" if body else self.name

    def __str__(self) -> str:
        return self.text


def _pairs(body: str, where: str, fam: Family) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in body.split(","))):
        if "=" not in item:
            raise InvalidParameter(f"spec {where!r}: {item!r} is not key=value; write e.g. "
                                   f"{fam.example}")
        key, value = item.split("=", 1)
        key = key.strip().lower().replace("-", "_")
        key = fam.aliases.get(key, key)
        if key not in fam.keys:
            raise InvalidParameter(f"spec {where!r}: unknown key {key!r}; {fam.name} specs "
                                   f"take {', '.join(fam.keys)}")
        if key in out:
            raise InvalidParameter(f"spec {where!r}: {key} is given twice")
        value = value.strip()
        if not value:
            raise InvalidParameter(f"spec {where!r}: {key} has no value")
        out[key] = value
    # canonical order: the family's keys
    return {k: out[k] for k in fam.keys if k in out}


def config_family(path: str) -> tuple[str, dict[str, Any]]:
    """The family a config.json describes (rope, mrope, alibi or t5)."""
    try:
        p = Path(path)
        if p.is_dir():
            p = p / "config.json"
        if p.stat().st_size > 16 << 20:
            raise InvalidParameter(f"{path}: a config of {p.stat().st_size} bytes is not a "
                                   "model config (at most 16 MiB)")
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidParameter(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except (ValueError, RecursionError):
        raise InvalidParameter(f"{path}: is not JSON; pass a model config.json") from None
    if not isinstance(data, dict):
        raise InvalidParameter(f"{path}: is not a JSON object; pass a model config.json")
    attn = data.get("attn_config") if isinstance(data.get("attn_config"), dict) else {}
    if data.get("model_type") in ("bloom", "mpt") or attn.get("alibi") or data.get("alibi"):
        return "alibi", data
    if "relative_attention_num_buckets" in data:
        return "t5", data
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else data
    scaling = text.get("rope_scaling") or data.get("rope_scaling") or {}
    if isinstance(scaling, dict) and ("mrope_section" in scaling):
        return "mrope", data
    return "rope", data


def parse(text: Any) -> Spec:
    """A SPEC string (or a config.json path) as a :class:`Spec`; bad input is one line."""
    if isinstance(text, Spec):
        return text
    if not isinstance(text, str) or not text.strip():
        raise InvalidParameter("empty spec; write FAMILY:key=value,..., e.g. "
                               "rope:base=10000,dim=128, or a config.json path")
    text = text.strip()
    head, sep, body = text.partition(":")
    family = family_of(head) if sep or ":" not in text else None
    if family is None and (text.lower().endswith(".json") or os.path.exists(text)):
        fam, _ = config_family(text)
        return Spec(fam, "config", {}, config=text)
    if family is None:
        shown = text if len(text) <= 60 else text[:57] + "…"
        raise UnknownName(f"spec {shown!r}: family {head.strip().lower()!r} is not known; "
                          f"the families are {families_help()}; or a path to config.json")
    fam = FAMILIES[family]
    name = head.strip().lower()
    name = _SINUSOIDAL_ALIASES.get(name, "rope" if name == "rotary" else name)
    params = _pairs(body, text, fam)
    if family == "vaswani" and name == "original":
        name = "vaswani"
    return Spec(family, name, params)


def families_markdown() -> str:
    """The table of families in docs/spec.md (a test keeps the page equal to this)."""
    lines = ["| family | what | keys (aliases) | example |", "|---|---|---|---|"]
    for fam in FAMILIES.values():
        inverse: dict[str, list[str]] = {}
        for alias, key in fam.aliases.items():
            inverse.setdefault(key, []).append(alias)
        keys = ", ".join(f"`{k}`" + (f" ({', '.join(inverse[k])})" if k in inverse else "")
                         for k in fam.keys)
        names = "".join(f", `{n}`" for n in fam.names if n not in _SINUSOIDAL_ALIASES
                        and n != "rotary")
        lines.append(f"| `{fam.name}`{names} | {fam.summary} | {keys} | `{fam.example}` |")
    return "\n".join(lines)
