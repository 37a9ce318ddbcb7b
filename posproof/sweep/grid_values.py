"""The keys and values of a grid family, validated: its kind (a preset or ``rope``), the keys that
kind accepts, scalars, lists and ranges (``{start, stop, step | factor | count}``) expanded into
the values a sweep runs, each error naming the key and where it is.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..errors import InvalidParameter, PosproofError, UnknownName
from .limits import MAX_RANGE_VALUES

__all__ = ["DTYPES", "SWEEP_KEYS", "family_axes", "value_text"]

DTYPES = ("float32", "float16", "bfloat16")
SWEEP_KEYS = ("length", "train_length")
_INT_KEYS = ("dim", "rotary_dim", "seq_len", "original_max_position_embeddings", "offset",
             "padding_idx", "start_index", "length", "train_length")
_ROPE_COMMON = ("base", "dim", "rotary_dim", "partial_rotary_factor", "layout", "scaling")
_KIND_ALIASES = {"rotary": "rope", "sin": "vaswani", "sinusoidal": "vaswani",
                 "original": "vaswani", "transformer": "vaswani", "pytorch": "vaswani",
                 "t2t": "tensor2tensor", "binary-dials": "binary", "timestep": "diffusion"}
_UNSUPPORTED_KINDS = {"explicit": "its frequency list cannot be written in a spec",
                      "expression": "its expression cannot be swept safely in a spec; use "
                                    "kind = \"rope\" or a preset"}


def value_text(value: Any) -> str:
    """A parameter value as the spec language writes it.

    >>> value_text(True), value_text(0.25), value_text(10000)
    ('true', '0.25', '10000')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def family_axes(fam: dict[str, Any], defaults: dict[str, Any], where: str
                 ) -> dict[str, list[Any]]:
    """The swept values of each parameter of one family (``kind`` or ``spec`` first)."""
    from ..model.configs import SPEC_ALIASES

    if ("kind" in fam) == ("spec" in fam):
        raise InvalidParameter(f"{where}: give exactly one of kind = \"rope\" (or a preset "
                               "name) and spec = \"rope:base=10000,dim=128\"")
    axes: dict[str, list[Any]] = {}
    raw: dict[str, Any] = {}
    for key, value in fam.items():
        canon = key if key in ("kind", "spec") else SPEC_ALIASES.get(key.lower(), key.lower())
        if canon in raw:
            raise InvalidParameter(f"{where}: {canon} is given twice (as {key!r})")
        raw[canon] = value
    for key, value in defaults.items():
        raw.setdefault(key, value)
    if "length" not in raw:
        raise InvalidParameter(f"{where}: no length; set length = [4096, 32768] at the top "
                               "or in the family (the context length L of every point)")
    if "spec" in raw:
        axes["spec"] = _values("spec", raw.pop("spec"), where)
        for spec in axes["spec"]:
            _check_spec(spec, where)
        extra = [k for k in raw if k not in SWEEP_KEYS]
        if extra:
            raise InvalidParameter(f"{where}: with spec = … only {', '.join(SWEEP_KEYS)} may "
                                   f"be set; got {', '.join(extra)} (write them in the spec)")
    else:
        kinds = _values("kind", raw.pop("kind"), where)
        if len(kinds) != 1 or not isinstance(kinds[0], str):
            raise InvalidParameter(f"{where}: kind must be one name, e.g. \"rope\"; sweep "
                                   "several kinds with several [[family]] tables")
        kind = _kind(kinds[0], where)
        axes["kind"] = [kind]
        values = {key: _values(key, value, where) for key, value in raw.items()}
        _check_keys(kind, values, where)
        axes.update((k, v) for k, v in values.items() if k not in SWEEP_KEYS)
        raw = {k: v for k, v in raw.items() if k in SWEEP_KEYS}
    for key in SWEEP_KEYS:
        if key in raw:
            vals = _values(key, raw[key], where)
            from ..measure.explore import MAX_LENGTH

            for v in vals:
                if not 1 <= v <= MAX_LENGTH:
                    raise InvalidParameter(f"{where}: {key}={v} is out of range; it must be in "
                                           f"1 … {MAX_LENGTH}")
            axes[key] = vals
    return axes


def _kind(name: str, where: str) -> str:
    from ..model.presets import PRESETS

    kind = _KIND_ALIASES.get(name.lower(), name.lower())
    if kind in _UNSUPPORTED_KINDS:
        raise InvalidParameter(f"{where}: kind {name!r} is not supported in sweeps "
                               f"({_UNSUPPORTED_KINDS[kind]})")
    if kind != "rope" and kind not in PRESETS:
        raise UnknownName(f"{where}: kind {name!r} is not known; use rope or a preset ("
                          + ", ".join(sorted(set(PRESETS) - set(_UNSUPPORTED_KINDS))) + ")")
    return kind


def _check_keys(kind: str, values: dict[str, list[Any]], where: str) -> None:
    """Refuse keys the family's kind (and each of its scaling rules) does not take."""
    if kind != "rope":
        from ..model.presets import PRESETS, parameters

        allowed = ["dim", *(p for p in parameters(PRESETS[kind]) if p != "name"), *SWEEP_KEYS]
        for key in values:
            if key not in allowed:
                raise InvalidParameter(f"{where}: unknown key {key!r} for kind {kind!r}; it "
                                       f"takes {', '.join(allowed)}")
        return
    from ..model.scaling import ALIASES, SCALINGS

    rules = []
    for rule in values.get("scaling", [None]):
        name = "default" if rule is None else ALIASES.get(str(rule).lower(), str(rule).lower())
        if name not in SCALINGS:
            raise UnknownName(f"{where}: scaling={rule!r} is not known; use one of "
                              f"{', '.join(SCALINGS)}")
        rules.append(name)
    for key in values:
        if key in (*_ROPE_COMMON, *SWEEP_KEYS):
            continue
        takers = [r for r in SCALINGS if key in getattr(SCALINGS[r], "__dataclass_fields__", ())
                  and key != "base"]
        if not takers:
            raise InvalidParameter(f"{where}: unknown key {key!r} for kind 'rope'; it takes "
                                   f"{', '.join((*_ROPE_COMMON, *SWEEP_KEYS))} (and the keys "
                                   "of its scaling rule)")
        missing = [r for r in rules if r not in takers]
        if missing:
            raise InvalidParameter(f"{where}: {key} does not apply to scaling="
                                   f"{missing[0]!r} (only {', '.join(takers)}); put each "
                                   "scaling rule in its own [[family]]")


def _check_spec(spec: Any, where: str) -> None:
    from ..model.configs import parse_spec

    if not isinstance(spec, str):
        raise InvalidParameter(f"{where}: spec={spec!r} must be a string such as "
                               "\"rope:base=10000,dim=128\"")
    kind = spec.partition(":")[0].strip().lower()
    if "config=" in spec.replace(" ", "") or spec.strip().lower().endswith(".json") or \
            not spec.partition(":")[1]:
        raise InvalidParameter(f"{where}: spec {spec!r}: config files are not supported in "
                               "sweeps (workers may not see them); write the parameters "
                               "(posproof explain CONFIG shows them)")
    if _KIND_ALIASES.get(kind, kind) in _UNSUPPORTED_KINDS:
        _kind(kind, where)
    try:
        parse_spec(spec)
    except PosproofError as exc:
        raise type(exc)(f"{where}: {exc}") from None


def _values(key: str, value: Any, where: str) -> list[Any]:
    """The values a TOML entry stands for: a scalar, a list, or a range table."""
    if isinstance(value, dict):
        vals = _range(key, value, where)
    elif isinstance(value, list):
        if not value:
            raise InvalidParameter(f"{where}: {key} = [] is an empty range; give at least one "
                                   "value")
        vals = [_scalar(key, v, where) for v in value]
    else:
        vals = [_scalar(key, value, where)]
    if key in _INT_KEYS:
        for v in vals:
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidParameter(f"{where}: {key}={v!r} is not an integer; {key} takes "
                                       "whole numbers")
    seen: set[str] = set()
    for v in vals:
        text = json.dumps(v)
        if text in seen:
            raise InvalidParameter(f"{where}: {key} lists {value_text(v)} twice; each value "
                                   "once")
        seen.add(text)
    return vals


def _scalar(key: str, value: Any, where: str) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(f"{where}: {key}={value!r} is not a finite number")
        return int(value) if value.is_integer() and abs(value) < 2 ** 53 else value
    if isinstance(value, str):
        bad = [c for c in ",=" if c in value]
        if key not in ("spec", "kind") and (bad or (";" in value and key not in (
                "short_factor", "long_factor"))):
            raise InvalidParameter(f"{where}: {key}={value!r} contains "
                                   f"{(bad or [';'])[0]!r}, which the spec language reserves")
        if not value.strip():
            raise InvalidParameter(f"{where}: {key} is an empty string")
        return value
    kind = "a list inside a list" if isinstance(value, list) else type(value).__name__
    raise InvalidParameter(f"{where}: {key} holds {kind} ({value!r}); use numbers, strings, "
                           "true/false, a list of them or a range table")


def _range(key: str, spec: dict[str, Any], where: str) -> list[Any]:
    """``{start, stop, step}``, ``{start, stop, num[, scale="log"]}`` or ``{start, stop, factor}``.

    ``stop`` is included when the progression reaches it.

    >>> _range("length", {"start": 1024, "stop": 8192, "factor": 2}, "g")
    [1024, 2048, 4096, 8192]
    >>> _range("base", {"start": 100, "stop": 10000, "num": 3, "scale": "log"}, "g")
    [100, 1000, 10000]
    >>> _range("dim", {"start": 8, "stop": 4, "step": 2}, "g")
    Traceback (most recent call last):
    ...
    posproof.errors.InvalidParameter: g: dim = {start = 8, stop = 4, step = 2} is an empty range (stop < start)
    """  # noqa: E501
    text = "{" + ", ".join(f"{k} = {v!r}" for k, v in spec.items()) + "}"
    known = ("start", "stop", "step", "num", "scale", "factor")
    for k in spec:
        if k not in known:
            raise InvalidParameter(f"{where}: {key} = {text}: unknown range key {k!r}; a range "
                                   "takes start, stop and one of step, num (with scale = "
                                   "\"linear\" or \"log\") or factor")
    kinds = [k for k in ("step", "num", "factor") if k in spec]
    if "start" not in spec or "stop" not in spec or len(kinds) != 1:
        raise InvalidParameter(f"{where}: {key} = {text}: a range needs start, stop and exactly "
                               "one of step, num, factor")
    numbers = {k: spec[k] for k in ("start", "stop", *kinds)}
    for k, v in numbers.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InvalidParameter(f"{where}: {key} = {text}: {k}={v!r} is not a finite number")
    start, stop = numbers["start"], numbers["stop"]
    scale = spec.get("scale", "linear")
    if scale not in ("linear", "log") or (scale == "log" and kinds[0] != "num"):
        raise InvalidParameter(f"{where}: {key} = {text}: scale must be \"linear\" or \"log\" "
                               "(log goes with num)")
    if stop < start:
        raise InvalidParameter(f"{where}: {key} = {text} is an empty range (stop < start)")
    integer = key in _INT_KEYS
    vals: list[Any]
    if kinds[0] == "step":
        step = numbers["step"]
        if step <= 0:
            raise InvalidParameter(f"{where}: {key} = {text}: step must be > 0")
        count = math.floor((stop - start) / step * (1 + 1e-12) + 1e-9) + 1
        _count(key, count, text, where)
        vals = [start + i * step for i in range(count)]
    elif kinds[0] == "num":
        num = numbers["num"]
        if not isinstance(num, int) or num < 1:
            raise InvalidParameter(f"{where}: {key} = {text}: num must be a whole number ≥ 1")
        _count(key, num, text, where)
        if scale == "log" and start <= 0:
            raise InvalidParameter(f"{where}: {key} = {text}: a log range needs start > 0")
        if num == 1:
            vals = [start]
        elif scale == "log":
            ratio = math.log(stop / start) / (num - 1)
            vals = [start * math.exp(ratio * i) for i in range(num)]
            vals[-1] = stop
        else:
            vals = [start + (stop - start) * i / (num - 1) for i in range(num)]
    else:
        factor = numbers["factor"]
        if factor <= 1 or start <= 0:
            raise InvalidParameter(f"{where}: {key} = {text}: factor must be > 1 and start > 0")
        count = math.floor(math.log(stop / start) / math.log(factor) + 1e-9) + 1
        _count(key, count, text, where)
        vals = [start * factor ** i for i in range(count)]
    out = []
    for v in vals:
        if integer:
            out.append(round(v))
        else:
            v = float(f"{v:.12g}")
            out.append(int(v) if v.is_integer() and abs(v) < 2 ** 53 else v)
    if len({json.dumps(v) for v in out}) != len(out):
        raise InvalidParameter(f"{where}: {key} = {text} gives repeated values once rounded "
                               f"({', '.join(map(str, out[:8]))}…); use fewer values")
    return out


def _count(key: str, count: int, text: str, where: str) -> None:
    if count > MAX_RANGE_VALUES:
        raise InvalidParameter(f"{where}: {key} = {text} gives {count} values; at most "
                               f"{MAX_RANGE_VALUES} per range")
