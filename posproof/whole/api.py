"""The entry point: :func:`check_model` on a config, a transformers model or a user's forward."""

from __future__ import annotations

from typing import Any

from ..errors import InvalidParameter, PosproofError, UnknownName
from ..report import Report
from .build import (
    build_model,
    library_error,
    model_info,
    read_config_dict,
    refine_info,
    refuse_before_torch,
    spec_disagreement,
    transformers_config,
)
from .checks import run_model_checks
from .runner import CallableRunner, HFRunner, Runner

__all__ = ["POSITIONS", "assert_model_positions", "check_model", "load"]

#: What a user's forward may declare about its positions.
POSITIONS = ("relative", "absolute")


def _is_hf_model(obj: Any) -> bool:
    return hasattr(obj, "config") and hasattr(obj, "forward") and hasattr(obj, "modules")


def _require_torch() -> None:
    """torch and transformers, or one line naming the extra to install."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise InvalidParameter(f"check-model needs torch and transformers ({exc}); install "
                               "them with pip install 'posproof[impl]'") from None


def load(model_or_config: Any, *, seed: int = 0, layers: int | None = None,
         positions: str = "relative", weights: bool = True) -> Runner:
    """The :class:`~posproof.whole.runner.Runner` of a config (path, dict, PretrainedConfig), a
    transformers model, a directory saved with ``save_pretrained`` (its weights are used
    unless ``weights=False``), or a user's ``forward``.  ``layers``: layers of the tiny model
    (default 2), or of the saved model kept (default all).

    A config's model type is checked against :data:`posproof.whole.types.TYPES` before torch
    or transformers is imported; its positions are then read from the config object
    transformers builds (:func:`~posproof.whole.build.model_info`)."""
    from ..errors import check_int
    from .weights import refuse_other_weights, saved_weights

    if weights:
        refuse_other_weights(model_or_config)
    directory = saved_weights(model_or_config) if weights else None
    if layers is not None or directory is None:
        layers = check_int("layers", 2 if layers is None else layers, minimum=1,
                           maximum=8 if directory is None else 4096)
    data = None
    if not _is_hf_model(model_or_config) and not (
            callable(model_or_config) and not isinstance(model_or_config, (str, dict))
            and not hasattr(model_or_config, "model_type")):
        data = read_config_dict(model_or_config)
        refuse_before_torch(data)         # before the heavy imports
    _require_torch()
    if data is None and _is_hf_model(model_or_config):
        import torch

        model = model_or_config.to(torch.float64).eval()
        info = refine_info(model_info(model.config), model)
        runner = HFRunner(model, info, seed=seed)
        runner.about = {"weights": "the model's own (float64 upcast)"}
        return runner
    if data is None:
        return _callable(model_or_config, positions)
    kind = str(data["model_type"])
    try:
        if directory is not None:
            return _saved(directory, layers, seed)
        full = transformers_config(data)
        note = spec_disagreement(data, model_info(full))
        model, config = build_model(data, seed=seed, layers=layers)
        info = refine_info(model_info(config), model)
    except PosproofError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, ZeroDivisionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise InvalidParameter(f"config of model_type={kind!r} cannot be "
                               f"read: {type(exc).__name__}: {first}") from None
    if note:
        info.notes.append(note)
    return HFRunner(model, info, seed=seed)


def _saved(directory: Any, layers: int | None, seed: int) -> Runner:
    """The runner of a model saved with ``save_pretrained``, its weights in float64."""
    from .weights import load_weights

    model, config, about = load_weights(directory, layers=layers)
    info = refine_info(model_info(config), model)
    runner = HFRunner(model, info, seed=seed)
    runner.about = about
    return runner


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


def _raised_in_library(exc: BaseException) -> bool:
    """True when the innermost frame of ``exc`` is in torch or transformers."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and any(part in frames[-1].filename.replace("\\", "/")
                                for part in ("/torch/", "/transformers/"))


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
    runner = load(model_or_config, seed=seed, layers=layers, positions=positions,
                  weights=weights)
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)     # tiny matrices: one thread is 10-30× faster than two here
    try:
        checks_out = run_model_checks(runner, length=length, checks=checks, seed=seed)
    except PosproofError:
        raise
    except Exception as exc:
        if not _raised_in_library(exc):
            raise
        raise library_error(runner.info.model_type, "running the checks' forwards",
                            exc) from None
    finally:
        torch.set_num_threads(threads)
    spec = {"kind": "whole model", **runner.info.to_dict(), "length": length, "seed": seed}
    if runner.info.notes:
        spec["notes"] = list(runner.info.notes)
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
