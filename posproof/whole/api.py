"""The entry point: :func:`check_model` on a config, a transformers model or a user's forward."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameter, PosproofError, UnknownName
from ..report import Report
from .build import build_model, model_info, read_config_dict
from .checks import run_model_checks
from .runner import CallableRunner, HFRunner, Runner

__all__ = ["POSITIONS", "assert_model_positions", "check_model", "load"]

#: What a user's forward may declare about its positions.
POSITIONS = ("relative", "absolute")


def _is_hf_model(obj: Any) -> bool:
    return hasattr(obj, "config") and hasattr(obj, "forward") and hasattr(obj, "modules")


def load(model_or_config: Any, *, seed: int = 0, layers: int | None = None,
         positions: str = "relative", weights: bool = True) -> Runner:
    """The :class:`~posproof.whole.runner.Runner` of a config (path, dict, PretrainedConfig), a
    transformers model, a directory saved with ``save_pretrained`` (its weights are used
    unless ``weights=False``), or a user's ``forward``.  ``layers``: layers of the tiny model
    (default 2), or of the saved model kept (default all)."""
    from ..errors import check_int
    from .weights import refuse_other_weights, saved_weights

    if weights:
        refuse_other_weights(model_or_config)
    directory = saved_weights(model_or_config) if weights else None
    if layers is not None or directory is None:
        layers = check_int("layers", 2 if layers is None else layers, minimum=1,
                           maximum=8 if directory is None else 4096)
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as exc:
        raise InvalidParameter(f"check-model needs torch and transformers ({exc}); install "
                               "them with pip install 'posproof[impl]'") from None
    if _is_hf_model(model_or_config):
        import torch

        model = model_or_config.to(torch.float64).eval()
        info = model_info(model.config.to_dict())
        runner = HFRunner(model, info, seed=seed)
        runner.about = {"weights": "the model's own (float64 upcast)"}
        return runner
    if callable(model_or_config) and not isinstance(model_or_config, (str, dict)) \
            and not hasattr(model_or_config, "model_type"):
        return _callable(model_or_config, positions)
    data = read_config_dict(model_or_config)
    try:
        if directory is not None:
            return _saved(directory, layers, seed)
        data = _with_defaults(data)
        info = model_info(data)
        model, _ = build_model(data, seed=seed, layers=layers)
    except PosproofError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, ZeroDivisionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise InvalidParameter(f"config of model_type={data.get('model_type')!r} cannot be "
                               f"read: {type(exc).__name__}: {first}") from None
    return HFRunner(model, info, seed=seed)


def _saved(directory: Any, layers: int | None, seed: int) -> Runner:
    """The runner of a model saved with ``save_pretrained``, its weights in float64."""
    from .weights import load_weights

    model, config, about = load_weights(directory, layers=layers)
    info = model_info(_with_defaults(config.to_dict()))
    runner = HFRunner(model, info, seed=seed)
    runner.about = about
    return runner


def _with_defaults(data: dict[str, Any]) -> dict[str, Any]:
    """The config with transformers' defaults for the plain keys it leaves out (a config.json
    may omit any key whose default it uses; nested blocks are left as written)."""
    import transformers

    from .build import KNOWN

    kind = data.get("model_type")
    if kind not in KNOWN:
        return data
    defaults = transformers.AutoConfig.for_model(kind).to_dict()
    out = dict(data)
    flat = dict(defaults)
    if isinstance(defaults.get("text_config"), dict) and "text_config" not in data:
        flat.update(defaults["text_config"])      # a flat config (Qwen2-VL's config.json)
    for key, value in flat.items():
        # head_dim's default is derived from the default width and heads: never filled in
        if key not in out and not isinstance(value, (dict, list)) and key not in (
                "model_type", "head_dim"):
            out[key] = value
    if isinstance(defaults.get("vision_config"), dict) and "vision_config" not in out:
        out["vision_config"] = defaults["vision_config"]      # shrunk by build.shrink
    return out


def _callable(fn: Any, positions: str) -> Runner:
    import torch

    from .build import ModelInfo

    if positions not in POSITIONS:
        raise UnknownName(f"positions={positions!r} is not known; use relative or absolute")
    info = ModelInfo("callable", positions)
    runner = CallableRunner(fn, vocab=2, info=info)
    with torch.no_grad():
        logits, _ = runner.forward(torch.tensor([[1, 1]]))
    vocab = int(logits.shape[-1])
    if vocab < 3:
        raise InvalidParameter(f"the forward returns {vocab} logits per token; check-model "
                               "needs a vocabulary of at least 3")
    runner.vocab = vocab
    return runner


def check_model(model_or_config: Any, *, length: int = 64, checks: Any = None, seed: int = 0,
                layers: int | None = None, positions: str = "relative",
                weights: bool = True) -> Report:
    """Shift invariance, KV cache, left padding and the cache boundary of a whole model.

    ``model_or_config``: a config.json path (or its directory), a config dict, a transformers
    config or model, or a callable ``forward(input_ids, position_ids=None, attention_mask=None,
    past_key_values=None)`` returning logits (``positions="absolute"`` when it uses a learned
    position table).  A directory saved with ``save_pretrained`` (config.json and safetensors)
    is checked with its own weights in float64 (``weights=False``: random ones); ``layers``
    keeps its first N layers (default all; a config's tiny model has 2).  Returns a
    :class:`~posproof.report.Report` whose checks are
    ``pass`` / ``fail`` / ``unknown``, sampled (``Evidence(coverage="sample")``).
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)     # tiny matrices: one thread is 10-30× faster than two here
    try:
        runner = load(model_or_config, seed=seed, layers=layers, positions=positions,
                      weights=weights)
        checks_out = run_model_checks(runner, length=length, checks=checks, seed=seed)
    finally:
        torch.set_num_threads(threads)
    spec = {"kind": "whole model", **runner.info.to_dict(), "length": length, "seed": seed}
    about = getattr(runner, "about", None)
    if about:
        spec["weights"] = about["weights"]
        if "layers_kept" in about:
            spec["layers"] = f"{about['layers_kept']} of {about['layers_saved']}"
        spec["class"] = type(runner.model).__name__
    elif isinstance(runner, HFRunner):
        spec["weights"] = f"random (seed {seed})"
        spec["layers"] = 2 if layers is None else layers
        spec["class"] = type(runner.model).__name__
    return Report(spec, [], checks_out)


def assert_model_positions(model_or_config: Any, *, length: int = 32, checks: Any = None,
                           seed: int = 0, layers: int | None = None,
                           positions: str = "relative",
                           expect: dict[str, str] | None = None) -> Report:
    """:func:`check_model`, raising ``AssertionError`` unless every check passes (or has the
    status ``expect`` names for it, e.g. ``{"kv_cache": "fail"}``); returns the report.

    The message names each check that did not meet its expectation, with its explanation.
    """
    report = check_model(model_or_config, length=length, checks=checks, seed=seed,
                         layers=layers, positions=positions)
    expect = dict(expect or {})
    wrong = []
    for c in report.checks:
        want = expect.pop(c.name, "pass")
        if c.status != want:
            wrong.append(f"{c.name}: {c.status} (expected {want}) — "
                         f"{c.values.get('summary', '')}" + (f"; {c.note}" if c.note else ""))
    if expect:
        wrong.append(f"expected checks not run: {', '.join(sorted(expect))}")
    if wrong:
        raise AssertionError("model positions:\n  " + "\n  ".join(wrong))
    return report
