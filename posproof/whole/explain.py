"""Why a whole-model check failed, confirmed by regeneration.

Each hypothesis names a bug and re-runs the model *with that bug made explicit*; it is
**confirmed** only when the re-run reproduces the observed logits within the derived tolerance:

* ``positions restart at 0``: a full forward with positions ``0 … P−1, 0, 0, …`` (each cached
  call starting again at 0) reproduces the cached decoding;
* ``dynamic rotation``: a full forward where position p is rotated with the frequencies of
  length max(p + 1, P) (what a length-dependent rule — dynamic NTK, LongRoPE — does to keys cached
  at their own length) reproduces the cached decoding; for a shift, the unshifted positions
  rotated with the frequencies of the shifted length reproduce the shifted logits;
* ``rotation of the batch's length``: a length-dependent rule (dynamic NTK, LongRoPE) that takes
  the length from the whole batch — the sequence alone rotated with the frequencies of the
  batch's length reproduces the left-padded row;
* ``window on every layer`` / ``window ignored``: a full forward with every layer made a
  sliding-window layer (the local layers' window) / a global one reproduces the cached decoding
  (a cache that truncates the global layers of Gemma 2/3 too, or one that keeps keys a local
  layer must no longer see);
* ``arange positions``: the left-padded row with position ids arange(T) instead of those from
  the mask gives the same logits, which differ from the sequence alone (the model ignores the
  position ids it is given and counts the pads); or the sequence alone at positions
  pad … pad+n−1 reproduces the left-padded row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from .build import ModelInfo

__all__ = ["explain_kv_cache", "explain_left_padding", "explain_shift", "rotation_change"]


def _max(a: Any, b: Any) -> float:
    return float((a - b).abs().max())


def _layers(layers: list[int]) -> str:
    return ("layer " if len(layers) == 1 else "layers ") + ", ".join(map(str, layers))


def _regenerated(tried: list[dict[str, Any]], hypothesis: str, regen: Any, observed: Any,
                 tol: Any, text: Callable[[float], str], cause: str | None = None,
                 holds: bool = True) -> dict[str, Any] | None:
    """One hypothesis tried: the regeneration's largest difference from the observed logits is
    recorded in ``tried``; when it is within the tolerance (and ``holds``), the confirmed
    explanation (``cause``, default the hypothesis; ``text`` of the difference), else None."""
    d = _max(regen, observed)
    tried.append({"hypothesis": hypothesis, "reproduced_to": d})
    if d <= tol.value and holds:
        return {"cause": cause or hypothesis, "confirmed": True, "reproduced_to": d,
                "text": text(d)}
    return None


def _prefix_rows(runner: Any, ids: Any, prompt: int, stop: int) -> Any:
    """The last row of the full forward of each prefix ids[:, :i + 1], prompt ≤ i < stop."""
    import torch

    return torch.stack([runner.logits(ids[:, :i + 1])[0, -1] for i in range(prompt, stop)])


def _unexplained(what: str, tried: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cause": None, "confirmed": False, "tried": tried,
            "text": f"{what}; not explained (no hypothesis reproduced it: "
                    + (", ".join(f"{t['hypothesis']} off by {t['reproduced_to']:.3g}"
                                 for t in tried) or "none applies") + ")"}


def explain_shift(runner: Any, ids: Any, k: int, diff: float, tol: Any) -> dict[str, Any]:
    import torch

    n = ids.shape[1]
    tried = []
    shifted = runner.logits(ids, torch.arange(n)[None] + k)
    with runner.frequencies_at(n + k) as ok:
        if ok:
            info = runner.info
            found = _regenerated(
                tried, "dynamic rotation", runner.logits(ids, torch.arange(n)[None]), shifted,
                tol, lambda d: f"the rotation depends on the largest position: "
                               f"rope_type={info.rope_type} takes the length from "
                               f"max(position_ids) + 1 = {n + k} > "
                               f"{info.original_max} and rescales its frequencies; confirmed: "
                               f"the unshifted positions rotated with the frequencies of length "
                               f"{n + k} reproduce the shifted logits to {d:.3g}")
            if found:
                return found
    return _unexplained(f"a shift by {k} changes the logits by {diff:.3g}", tried)


def explain_kv_cache(runner: Any, ids: Any, prompt: int, stop: int, tol: Any,
                     inc: Any = None) -> dict[str, Any]:
    import torch

    if inc is None:
        inc = runner.decode(ids[:, :stop], prompt)
    tried = []
    if runner.info.rope_type in ("dynamic", "longrope"):
        with runner.frequencies_by_position(prompt) as ok:
            if ok:
                info = runner.info
                what = ("dynamic NTK rescales the base with the length" if
                        info.rope_type == "dynamic" else
                        "LongRoPE switches from short_factor to long_factor")
                found = _regenerated(
                    tried, "dynamic rotation", _prefix_rows(runner, ids, prompt, stop), inc, tol,
                    lambda d: f"keys cached before the switch at {info.original_max} "
                              f"keep the rotation of their own length while later "
                              f"queries use the rescaled one ({what}); confirmed: a full "
                              f"forward rotating position p with the frequencies of "
                              f"length max(p + 1, {prompt}) reproduces the cached "
                              f"decoding to {d:.3g}")
                if found:
                    return found
    local = [r["layer"] for r in getattr(runner, "layers", []) if r.get("window")]
    rest = [r["layer"] for r in getattr(runner, "layers", []) if not r.get("window")]
    for sliding, name in ((True, "window on every layer"), (False, "window ignored")):
        if (sliding and not rest) or not local:
            continue
        with runner.windows_as(sliding) as ok:
            if not ok:
                continue
            regen = _prefix_rows(runner, ids, prompt, stop)
        w = next(r["window"] for r in runner.layers if r.get("window"))
        found = _regenerated(
            tried, name, regen, inc, tol,
            (lambda d: f"the cache applies the sliding window {w} to every layer: the global "
                       f"{_layers(rest)} lose the keys older than {w} "
                       f"tokens; confirmed: a full forward with every layer a sliding-window "
                       f"layer reproduces the cached decoding to {d:.3g}") if sliding else
            (lambda d: f"the cache ignores the sliding window {w} of {_layers(local)}: cached "
                       f"queries attend to keys older than {w} tokens; confirmed: a full "
                       f"forward with every layer global reproduces the cached decoding to "
                       f"{d:.3g}"))
        if found:
            return found
    if runner.takes_positions:
        regen = []
        for i in range(prompt, stop):
            pos = torch.cat([torch.arange(prompt), torch.zeros(i + 1 - prompt,
                                                               dtype=torch.long)])[None]
            # a mask of ones: without one HF reads restarting positions as packed sequences
            regen.append(runner.logits(ids[:, :i + 1], pos,
                                       torch.ones_like(ids[:, :i + 1]))[0, -1])
        found = _regenerated(
            tried, "positions restart at 0", torch.stack(regen), inc, tol,
            lambda d: "positions restart at 0 after the cache: with position_ids=None "
                      "each cached call counts its tokens from 0 instead of from the "
                      "cache length; confirmed: a full forward at positions 0 … "
                      f"{prompt - 1}, 0, 0, … reproduces the cached decoding to {d:.3g}; "
                      "derive positions from the cache length (cache_position)")
        if found:
            return found
    return _unexplained("cached decoding differs from the full forward", tried)


def explain_left_padding(runner: Any, ids: Any, ids2: Any, n: int, pad: int,
                         tol: Any) -> dict[str, Any]:
    import torch

    short = ids2[:, :n - pad]
    row = torch.cat([torch.zeros(1, pad, dtype=short.dtype), short], 1)
    batch = torch.cat([ids, row])                  # the batch the check ran
    masks = torch.ones_like(batch)
    masks[1, :pad] = 0
    padded = runner.logits(batch, (masks.cumsum(-1) - 1).clamp(min=0), masks)[1:, pad:]
    tried = []
    info = runner.info
    if info.rope_type in ("dynamic", "longrope"):
        with runner.frequencies_at(n) as ok:
            if ok:
                found = _regenerated(
                    tried, "rotation of the batch's length",
                    runner.logits(short, torch.arange(n - pad)[None]), padded, tol,
                    lambda d: f"rope_type={info.rope_type} takes the length from the "
                              f"whole batch (max(position_ids) + 1 = {n}, the longest "
                              f"row) and rotates every row with its frequencies: the "
                              f"padded row of {n - pad} tokens is rotated as a sequence "
                              f"of {n} (switch at {info.original_max}); confirmed: the "
                              f"sequence alone rotated with the frequencies of length "
                              f"{n} reproduces it to {d:.3g}")
                if found:
                    return found
    if runner.takes_positions:
        arange = runner.logits(batch, torch.arange(n)[None].expand(2, -1), masks)[1:, pad:]
        alone = runner.logits(short, torch.arange(n - pad)[None])
        found = _regenerated(
            tried, "position ids ignored", arange, padded, tol,
            lambda d: f"the model ignores the position ids it is given and counts the "
                      f"{pad} pads (arange(T)): its tokens sit at {pad} … {n - 1}; "
                      f"confirmed: the padded row with position ids arange(T) instead of "
                      f"those from the mask gives the same logits (to {d:.3g}), which "
                      f"differ from the sequence alone; pass position_ids = "
                      f"cumsum(mask) − 1 through to the position embedding",
            cause="arange positions", holds=_max(alone, padded) > tol.value)
        found = found or _regenerated(
            tried, "arange positions", runner.logits(short, torch.arange(pad, n)[None]), padded,
            tol, lambda d: f"the model takes positions as arange(T) and ignores the position "
                           f"ids from the mask: after {pad} pads its tokens sit at {pad} … "
                           f"{n - 1}; confirmed: the sequence alone at those positions "
                           f"reproduces the padded row to {d:.3g}")
        if found:
            return found
    if not runner.takes_positions and info.family == "absolute":
        with runner.table_offset(pad) as ok:
            if ok:
                found = _regenerated(
                    tried, "pads counted as positions", runner.logits(short), padded, tol,
                    lambda d: f"the forward takes no position ids and counts the {pad} "
                              f"pads: the row's tokens read rows {pad} … {n - 1} of its "
                              f"learned position table; confirmed: the sequence alone "
                              f"with the table moved by {pad} rows reproduces the padded "
                              f"row to {d:.3g} (this model cannot be left-padded)")
                if found:
                    return found
    regen = runner.logits(batch, torch.arange(n)[None].expand(2, -1)
                          if runner.takes_positions else None, None)
    found = _regenerated(
        tried, "padding attended (mask ignored)", regen[1:, pad:], padded, tol,
        lambda d: f"the attention mask is ignored: the {pad} pads are attended; "
                  f"confirmed: the padded row without a mask reproduces it to {d:.3g}",
        cause="padding attended")
    return found or _unexplained("a left-padded row differs from the sequence alone", tried)


def rotation_change(info: ModelInfo) -> dict[str, Any]:
    """The two rotations in play at a dynamic switch: bases (dynamic NTK) or factor sets."""
    from ..model.scaling import DynamicNTKScaling

    s = info.original_max
    rope = info.rope
    if info.rope_type == "dynamic" and s:
        d = int(info.head_dim * float(rope.get("partial_rotary_factor", 1) or 1))
        factor = sp.nsimplify(rope.get("factor", 1))
        base = sp.nsimplify(info.rope_theta)
        after = {}
        for length in (s + 1, 2 * s):
            rule = DynamicNTKScaling(base, factor, s, seq_len=length)
            after[length] = float(rule.effective_base(d))
        return {"base_before": float(base), "base_after": {str(k): v for k, v in after.items()},
                "rotations": f"cached keys rotated with base {float(base):g} (length ≤ {s}), "
                             f"queries at length {s + 1} with base {after[s + 1]:.6g} and at "
                             f"{2 * s} with {after[2 * s]:.6g} (b·(f·s/L − (f − 1))^(d/(d−2)))"}
    if info.rope_type == "longrope" and s:
        short = list(rope.get("short_factor", []))
        long_ = list(rope.get("long_factor", []))
        return {"short_factor": short, "long_factor": long_,
                "rotations": f"cached keys rotated with short_factor (length ≤ {s}: "
                             f"{_head(short)}), queries after with long_factor ({_head(long_)})"}
    return {}


def _head(values: list[Any]) -> str:
    shown = ", ".join(f"{float(v):g}" for v in values[:4])
    return f"[{shown}{', …' if len(values) > 4 else ''}] ({len(values)} pairs)"
