"""The positional SPEC of ``prove``, ``check``, ``verify``, ``check-impl`` and ``derive``.

A SPEC (``FAMILY:key=value,...`` or a config.json, see :mod:`posproof.model.families`) and the
old flags (``--preset``, ``--alibi --heads``, ``--t5``, ``--xpos``) are two spellings of one
thing: :func:`apply_spec` writes a SPEC into the flags every command already reads, and
:func:`spec_text` gives the canonical SPEC of whatever was typed, which every ``--json``
prints as ``spec``.

>>> import argparse
>>> args = argparse.Namespace(command="prove", spec="alibi:heads=12,rule=mpt",
...                           alibi=False, heads=None, rule="reference", alibi_bias_max="8")
>>> apply_spec(args); (args.alibi, args.heads, args.rule, args.spec_text)
(True, 12, 'mpt', 'alibi:heads=12,rule=mpt')
"""

from __future__ import annotations

import argparse

from ..errors import InvalidParameter
from ..model.specs import build as _build

__all__ = ["add_spec_argument", "apply_spec", "normalise_options", "spec_text"]


def _help() -> str:
    from ..model.families import families_help

    return ("FAMILY:key=value,... naming the encoding or bias, or a config.json; the "
            f"families: {families_help()}; e.g. vaswani:dim=512,base=10000, "
            "rope:dim=128,base=500000,scaling=llama3,factor=8, alibi:heads=12, "
            "t5:buckets=32,max_distance=128 (see docs/spec.md; the --preset / --alibi / --t5 "
            "/ --xpos options are other spellings of a SPEC)")



def add_spec_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?", default=None, metavar="SPEC", help=_help())


#: Flags of the encoding options a SPEC replaces; giving both is refused (one spelling).
_ENCODING_FLAGS = ("preset", "dim", "base", "layout", "frequencies", "expression", "offset",
                   "odd_dim", "min_timescale", "max_timescale", "start_index", "padding_idx",
                   "max_period", "numerator", "mrope_section", "axes_dims", "first")


def _given_flags(args: argparse.Namespace) -> list[str]:
    given = [f for f in _ENCODING_FLAGS if getattr(args, f, None) not in (None, False)]
    if getattr(args, "mrope_interleaved", False):
        given.append("mrope_interleaved")
    if getattr(args, "alibi", False):
        given.append("alibi")
    for flag in ("t5", "t5_buckets", "xpos"):
        if getattr(args, flag, None) not in (None, False):
            given.append(flag)
    return given


def apply_spec(args: argparse.Namespace) -> None:
    """Write the positional SPEC (``args.spec``) into the flags; set ``args.spec_text``."""
    from ..model.families import parse

    text = getattr(args, "spec", None)
    args.spec_obj = None
    if text is None:
        args.spec_text = spec_text(args)
        return
    spec = parse(text)
    given = _given_flags(args)
    if given:
        raise InvalidParameter(f"SPEC {spec.text!r} and --{given[0].replace('_', '-')} both "
                               "name the encoding; give one of them")
    args.spec_obj = spec
    args.spec_text = spec.text
    p = dict(spec.params)
    command = args.command
    if spec.family in ("alibi", "t5", "xpos") and command == "derive":
        raise InvalidParameter(f"derive writes derivations for the vaswani, sincos-2d, mrope "
                               f"and axial-rope families; for {spec.text} use posproof "
                               f"prove / check / verify / check-impl {spec.text}")
    if spec.family == "alibi":
        built = _build(spec)
        args.alibi = True
        args.heads, args.rule = built.n_heads, built.rule
        args.alibi_bias_max = str(built.alibi_bias_max)
        return
    if spec.family == "t5":
        built = _build(spec)
        words = [str(built.num_buckets), str(built.max_distance),
                 "bidirectional" if built.bidirectional else "causal"]
        if p.get("dtype"):
            words.append(p["dtype"])
        value = ",".join(words)
        if command == "check-impl":
            args.t5_buckets = value
        else:
            args.t5 = value
        return
    if spec.family == "xpos":
        args.xpos = p.get("dim", "64")
        args.base = p.get("base")
        return
    if spec.family in ("rope",) or spec.config is not None:
        # rope (and M-RoPE from a config): built whole, read by the rotary paths
        args.rope_spec = spec
        return
    args.preset = spec.name
    if spec.family == "vaswani":
        for key, value in p.items():
            if key == "name":
                continue
            if key == "frequencies":
                value = value.replace(";", ",")
            setattr(args, key, value)
        return
    if spec.family == "sincos-2d":
        for key in ("dim", "base", "layout", "first", "grid"):
            if key in p:
                setattr(args, key, p[key])
        return
    if spec.family == "mrope":
        args.dim = p.get("dim")
        args.base = p.get("base")
        args.layout = p.get("layout")
        args.mrope_section = p.get("sections")
        args.mrope_interleaved = p.get("interleaved", "false").lower() in ("true", "1", "yes")
        args.grid = p.get("grid")
        if command == "check-impl":
            args.rotary = True         # the family says what the impl is
        return
    if spec.family == "axial-rope":
        args.axes_dims = p.get("axes_dims")
        args.base = p.get("base")
        args.layout = p.get("layout")
        args.grid = p.get("grid")
        if command == "check-impl":
            args.rotary = True
        return
    raise InvalidParameter(f"{command} does not take {spec.family} specs")  # pragma: no cover


def spec_text(args: argparse.Namespace) -> str:
    """The canonical SPEC of the flags typed (``vaswani:dim=512`` for none at all).

    >>> spec_text(argparse.Namespace(preset="fairseq", dim="64", base=None))
    'fairseq:dim=64'
    >>> spec_text(argparse.Namespace(alibi=True, heads=8, rule="reference"))
    'alibi:heads=8'
    """
    if getattr(args, "spec_obj", None) is not None:
        return args.spec_obj.text
    if getattr(args, "alibi", False):
        rule = getattr(args, "rule", "reference")
        out = f"alibi:heads={getattr(args, 'heads', None)}"
        if rule != "reference":
            out += f",rule={rule},alibi_bias_max={getattr(args, 'alibi_bias_max', 8)}"
        return out
    for flag in ("t5", "t5_buckets"):
        value = getattr(args, flag, None)
        if value not in (None, False):
            parts = [s.strip() for s in str(value).split(",")]
            out = f"t5:buckets={parts[0]},max_distance={parts[1] if len(parts) > 1 else ''}"
            if "causal" in parts[2:]:
                out += ",causal=true"
            return out
    if getattr(args, "xpos", None) not in (None, False, True):
        base = getattr(args, "base", None)
        return f"xpos:dim={args.xpos}" + (f",base={base}" if base else "")
    name = (getattr(args, "preset", None) or "").lower()
    if not name:
        name = ("explicit" if getattr(args, "frequencies", None) is not None
                else "expression" if getattr(args, "expression", None) is not None
                else "vaswani")
    keys = {"mrope": (("dim", "dim"), ("base", "base"), ("mrope_section", "sections"),
                      ("layout", "layout")),
            "axial-rope": (("axes_dims", "axes_dims"), ("base", "base"), ("layout", "layout"))
            }.get(name, tuple((k, k) for k in ("dim", "base", "layout", "first", "grid",
                                                "frequencies", "expression", "offset",
                                                "odd_dim", "min_timescale", "max_timescale",
                                                "start_index", "padding_idx", "max_period",
                                                "numerator")))
    parts = []
    for attr, key in keys:
        value = getattr(args, attr, None)
        if value not in (None, False):
            parts.append(f"{key}={str(value).replace(',', ';')}")
    if name == "mrope" and getattr(args, "mrope_interleaved", False):
        parts.append("interleaved=true")
    return name + (":" + ",".join(parts) if parts else "")


def normalise_options(args: argparse.Namespace) -> None:
    """One meaning per option: ``--dtype`` is one name or a comma list (repeatable)."""
    dtype = getattr(args, "dtype", None)
    if isinstance(dtype, list):
        names = [n.strip() for item in dtype for n in str(item).split(",")]
        if not all(names):
            raise InvalidParameter(f"--dtype={','.join(dtype)!r} names an empty dtype; pass "
                                   "one name or a comma list, e.g. --dtype float32,bfloat16")
        args.dtype = names

