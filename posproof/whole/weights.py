"""Real weights: a model saved with ``save_pretrained`` checked with its own weights (issue 28).

Random weights make attention nearly uniform, which hides some position bugs; when the user
has the weights, check-model loads them.  A directory holding ``config.json`` and safetensors
weights (``model.safetensors``, or shards named by ``model.safetensors.index.json``) is loaded
with transformers' own ``from_pretrained``, upcast to float64, eager attention; ``layers=N``
keeps the first N layers (the config's layer counts set to N, later layers' weights left
unread).

Before anything is loaded the safetensors headers are read: a missing shard, a file that is not
safetensors, or a model whose float64 copy (the layers kept) is over
:data:`~posproof.whole.build.MAX_BYTES` is refused in one line (``InvalidParameter``).  After
loading, a weight the model expects but the files do not hold (it would be left at its random
initialisation) is refused too: a report on half-random weights would say "real weights"
falsely.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path
from typing import Any

from ..errors import InvalidParameter
from .build import LAYER_KEYS, read_config_dict, refuse_before_torch

__all__ = ["INDEX", "OTHER", "SINGLE", "keep_layers", "load_weights", "refuse_other_weights",
           "saved_weights", "weight_files"]

SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"
#: The largest safetensors header read (the format's own limit is 100 MB).
_MAX_HEADER = 100_000_000
_LAYER = re.compile(r"\.(?:layers|layer|h|block|blocks)\.(\d+)\.")


def saved_weights(source: Any) -> Path | None:
    """The directory of ``source`` when it holds safetensors weights next to a config.json
    (a directory, or its config.json), else ``None``."""
    if not isinstance(source, (str, Path)):
        return None
    path = Path(source)
    if path.is_file() and path.name == "config.json":
        path = path.parent
    if not path.is_dir() or not (path / "config.json").is_file():
        return None
    if (path / SINGLE).exists() or (path / INDEX).exists():
        return path
    return None


#: Weight files check-model does not read (pickles: loading one runs code).
OTHER = ("pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5",
         "flax_model.msgpack", "model.ckpt.index")


def refuse_other_weights(source: Any) -> None:
    """One line when the directory of ``source`` holds weights in another format only: the
    user means them, and a run on random weights would not say what they expect."""
    if not isinstance(source, (str, Path)):
        return
    path = Path(source)
    if path.is_file() and path.name == "config.json":
        path = path.parent
    if not path.is_dir() or saved_weights(path) is not None:
        return
    found = [name for name in OTHER if (path / name).exists()]
    if found:
        raise InvalidParameter(f"{str(path)!r} holds {found[0]}: check-model reads only "
                               "safetensors weights (save_pretrained's default); convert them, "
                               "or pass --random-weights to check the tiny random model")


def weight_files(directory: Path) -> list[Path]:
    """The safetensors files of ``directory`` (one file, or the shards its index names)."""
    index = directory / INDEX
    if not index.exists():
        return [directory / SINGLE]
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
        shards = sorted(set(data["weight_map"].values()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise InvalidParameter(f"{str(index)!r} is not a safetensors index (a JSON object "
                               "with a weight_map)") from None
    files = [directory / str(s) for s in shards]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        raise InvalidParameter(f"{str(directory)!r}: the weights index names "
                               f"{len(missing)} shard(s) that are missing: "
                               f"{', '.join(missing[:3])}{' …' if len(missing) > 3 else ''}")
    return files


def _header(path: Path) -> dict[str, Any]:
    """The tensor table of one safetensors file (name → {dtype, shape, data_offsets})."""
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
            size = path.stat().st_size
            if len(head) < 8:
                raise ValueError("shorter than its 8-byte header length")
            (n,) = struct.unpack("<Q", head)
            if n > min(_MAX_HEADER, size - 8):
                raise ValueError(f"header length {n} is beyond the file of {size} bytes")
            table = json.loads(fh.read(n))
    except OSError as exc:
        raise InvalidParameter(f"weights {str(path)!r} cannot be read ({exc.strerror})") from None
    except (ValueError, struct.error) as exc:
        raise InvalidParameter(f"weights {str(path)!r} are not a safetensors file "
                               f"({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(table, dict):
        raise InvalidParameter(f"weights {str(path)!r} are not a safetensors file (its header "
                               "is not a JSON object)")
    tensors = {k: v for k, v in table.items() if k != "__metadata__"}
    end = 0
    for name, entry in tensors.items():
        try:
            shape = [int(x) for x in entry["shape"]]
            lo, hi = (int(x) for x in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise InvalidParameter(f"weights {str(path)!r} are not a safetensors file (tensor "
                                   f"{name!r} has no shape / data_offsets)") from None
        if min(shape, default=1) < 0 or not 0 <= lo <= hi:
            raise InvalidParameter(f"weights {str(path)!r}: tensor {name!r} has a negative "
                                   "shape or offsets")
        end = max(end, hi)
        entry["numel"] = _numel(shape)
    if 8 + n + end > size:
        raise InvalidParameter(f"weights {str(path)!r} are truncated: the header describes "
                               f"{8 + n + end} bytes, the file holds {size}")
    return tensors


def _numel(shape: list[int]) -> int:
    out = 1
    for s in shape:
        out *= s
    return out


def keep_layers(config: Any, layers: int | None) -> int:
    """Set the config's layer counts to at most ``layers`` (``None``: all); the layers kept."""
    configs = [config, *(getattr(config, k) for k in ("text_config", "decoder", "encoder")
                         if getattr(config, k, None) is not None)]
    kept = 0
    for cfg in configs:
        for key in LAYER_KEYS:
            value = getattr(cfg, key, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                if layers is not None and value > layers:
                    setattr(cfg, key, layers)
                kept = max(kept, getattr(cfg, key))
        types = getattr(cfg, "layer_types", None)
        if layers is not None and isinstance(types, list) and len(types) > layers:
            cfg.layer_types = types[:layers]
        if layers is not None and isinstance(getattr(cfg, "max_window_layers", None), int):
            cfg.max_window_layers = min(cfg.max_window_layers, layers)
    return kept


def load_weights(directory: Path, *, layers: int | None = None,
                 max_bytes: int | None = None) -> tuple[Any, Any, dict[str, Any]]:
    """``(model, config, about)``: the saved model of ``directory`` in float64 with its weights,
    the first ``layers`` layers kept (``None``: all); ``about`` says what was loaded.  A
    model type check-model refuses or does not know is refused first, in one line, before a
    weight file is opened or torch imported."""
    refuse_before_torch(read_config_dict(directory))
    import torch
    import transformers

    from .build import KNOWN, MAX_BYTES, auto_class, make_eager

    limit = MAX_BYTES if max_bytes is None else max_bytes
    files = weight_files(directory)
    numel, kept_numel, dropped = 0, 0, set()
    for f in files:
        for name, entry in _header(f).items():
            numel += entry["numel"]
            match = _LAYER.search(name)
            if layers is not None and match and int(match.group(1)) >= layers:
                dropped.add(name)
                continue
            kept_numel += entry["numel"]
    if kept_numel * 8 > limit:
        raise InvalidParameter(
            f"the saved model in {str(directory)!r} would hold {kept_numel * 8 / 2**30:.1f} GiB "
            f"as float64 ({kept_numel:,} weights"
            + (f" in its first {layers} layers" if layers is not None else "")
            + f"; over {limit / 2**30:g} GiB); keep fewer layers with --layers N, or pass "
            "--random-weights for the tiny random model of its config")
    try:
        config = transformers.AutoConfig.from_pretrained(str(directory))
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise InvalidParameter(f"the config in {str(directory)!r} is not accepted by "
                               f"transformers: {str(exc).splitlines()[0]}") from None
    kind = getattr(config, "model_type", None)
    if kind not in KNOWN:
        from .types import refusal

        raise InvalidParameter(refusal(kind) or f"model_type={kind!r} is not one check-model "
                               "knows (posproof check-model --list)")
    total_layers = keep_layers(config, None)
    kept = keep_layers(config, layers)
    make_eager(config)              # eager attention, and experts that run in float64
    cls = auto_class(kind)
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        model, info = cls.from_pretrained(str(directory), config=config, dtype=torch.float64,
                                          output_loading_info=True, use_safetensors=True)
    except (OSError, ValueError, TypeError, KeyError, RuntimeError) as exc:
        raise InvalidParameter(f"the weights in {str(directory)!r} cannot be loaded into "
                               f"{cls.__name__ if hasattr(cls, '__name__') else cls}: "
                               f"{str(exc).splitlines()[0][:200]}") from None
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()
    missing = sorted(info.get("missing_keys") or [])
    if missing:
        raise InvalidParameter(
            f"the weights in {str(directory)!r} lack {len(missing)} tensor(s) the model needs "
            f"({', '.join(missing[:3])}{' …' if len(missing) > 3 else ''}); they would stay "
            "random")
    mismatched = info.get("mismatched_keys") or []
    if mismatched:
        raise InvalidParameter(f"the weights in {str(directory)!r} do not fit the config: "
                               f"{len(mismatched)} tensor(s) of another shape")
    model.to(torch.float64).eval()
    about = {"weights": f"real, from {directory} (float64 upcast)", "weights_files": len(files),
             "layers_kept": kept, "layers_saved": total_layers,
             "weights_loaded": kept_numel, "weights_left_unread": numel - kept_numel}
    return model, config, about
