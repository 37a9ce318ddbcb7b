"""The four whole-model checks: shift invariance, KV cache, left padding, the cache boundary.

Each compares two float64 forwards that should agree and decides with a **derived** tolerance
(:func:`derive_tolerance`): the forward's own rounding, measured on this model and these tokens
as the larger of

* the float32 copy's difference from float64, rescaled by the ratio of the unit roundoffs
  (2^−53 / 2^−24 = 2^−29: first-order rounding errors scale with the unit roundoff),
* the spread between two float64 runs of the same tokens in different summation orders (the
  sequence alone, and second in a batch of two),
* u64 · max |logit| (nothing is more exact than the last bit of the largest logit),

times :data:`SAFETY`.  A difference at most the tolerance passes; one over :data:`FAIL_MARGIN`
times it fails; in between the check is unknown.

HF models run some steps in float32 even in a float64 model: the rotary angles
(``position_ids.float() * inv_freq``), RMSNorm's upcast (``.to(torch.float32)``: a downcast
here), the eager softmax (``dtype=torch.float32``).  Their rounding (~1e−8) flips between two
runs that differ only in the order of float64 sums, so the checks run those steps in float64
too (:meth:`~posproof.whole.runner.Runner.float64_angles`; the frequencies θ stay as the model
computes them) and report the float32 effect separately (``float32_effect``: the logits as the
model computes them minus the float64 ones, at the largest positions checked).
"""

from __future__ import annotations

import copy
from typing import Any

from ..errors import InvalidParameter
from ..evidence import Evidence
from ..report import Check
from .build import ModelInfo
from .explain import (
    explain_kv_cache,
    explain_left_padding,
    explain_shift,
    rotation_change,
)
from .runner import HFRunner, Runner, text_config_of

__all__ = ["CHECKS", "FAIL_MARGIN", "MAX_ATTENTION_BYTES", "MAX_SWITCH", "SAFETY", "Tolerance",
           "derive_tolerance", "run_model_checks"]

CHECKS = ("shift_invariance", "kv_cache", "left_padding", "cache_boundary")
#: The tolerance is this many times the measured rounding noise.
SAFETY = 64
#: A difference over FAIL_MARGIN × tolerance fails; between 1 and FAIL_MARGIN × it is unknown.
FAIL_MARGIN = 16
#: Switch lengths (dynamic NTK, LongRoPE, sliding windows) straddled up to this length.
MAX_SWITCH = 4352
#: Largest attention working set (heads × T² float64 scores, ×4 for the mask and copies).
MAX_ATTENTION_BYTES = 3 << 30
_U64 = 2.0 ** -53
_RESCALE = 2.0 ** -29
METHOD = "float64 forward vs derived tolerance"


class Tolerance:
    """The derived tolerance, and how it was derived."""

    def __init__(self, noise: dict[str, float], angles64: bool, angle_effect: float | None):
        self.noise = noise
        self.source = max(noise, key=noise.get)
        self.value = SAFETY * noise[self.source]
        self.angles64 = angles64
        self.angle_effect = angle_effect

    def status(self, diff: float) -> str:
        if diff <= self.value:
            return "pass"
        return "fail" if diff > FAIL_MARGIN * self.value else "unknown"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tolerance": self.value, "safety": SAFETY,
                               "fail_margin": FAIL_MARGIN, "decided_by": self.source,
                               "noise": dict(self.noise),
                               "float32 steps": "run in float64" if self.angles64 else
                               "as the model runs them"}
        if self.angle_effect is not None:
            out["float32_effect"] = self.angle_effect
        return out


def _max(a: Any, b: Any) -> float:
    return float((a - b).abs().max()) if a.numel() else 0.0


def derive_tolerance(runner: Runner, ids: Any, angles64: bool) -> Tolerance:
    """Measure the float64 forward's rounding on ``ids`` (see the module docstring)."""
    import torch

    base = runner.logits(ids)
    if not bool(torch.isfinite(base).all()):
        raise InvalidParameter("the model's logits are not finite (inf or nan) on random tokens; "
                               "check the config's numbers (rope_theta, scaling factors, eps)")
    other = torch.flip(ids, (-1,))
    batch = runner.logits(torch.cat([other, ids]))[1:2]
    noise = {"second run (batch of two)": _max(batch, base),
             "last bit of the largest logit": _U64 * float(base.abs().max())}
    if isinstance(runner, HFRunner):
        runner.reset()
        small = copy.deepcopy(runner.model).to(torch.float32)
        r32 = HFRunner(small, runner.info)
        with torch.no_grad():
            f32 = r32.logits(ids).to(torch.float64)
        noise["float32 copy × 2^-29"] = _max(f32, base) * _RESCALE
    return Tolerance(noise, angles64, None)


def _angle_positions(runner: Runner, n: int) -> Any:
    import torch

    ctx = runner.info.context or 4096
    return torch.arange(n)[None] + max(0, ctx - n)


def _evidence(covered: int, total: int, unit: str, tol: Tolerance, **details: Any) -> Evidence:
    return Evidence(METHOD, coverage="sample", covered=covered, total=max(total, covered),
                    details={"unit": unit, **tol.to_dict(), **details})


def _first_over(rows: list[float], start: int, tol: Tolerance) -> int | None:
    for i, d in enumerate(rows):
        if d > tol.value:
            return start + i
    return None


def windows(runner: Runner) -> dict[int, list[int]]:
    """Sliding (or chunked) window → the layers using it, as transformers built the model
    (:func:`~posproof.whole.runner.layer_table`); a user's forward: the info's window."""
    info = runner.info
    out: dict[int, list[int]] = {}
    if getattr(runner, "layers", None):
        for row in runner.layers:
            w = row.get("window")
            if w and (info.context is None or w < info.context):
                out.setdefault(int(w), []).append(row["layer"])
    elif info.sliding_window and (info.context is None or info.sliding_window < info.context):
        out[info.sliding_window] = []
    return out


def _layers_text(layers: list[int]) -> str:
    """``layer 3`` / ``layers 0–4`` / ``layers 0, 2, 4``."""
    if len(layers) == 1:
        return f"layer {layers[0]}"
    if layers == list(range(layers[0], layers[-1] + 1)):
        return f"layers {layers[0]}–{layers[-1]}"
    return "layers " + ", ".join(map(str, layers))


def _bases(runner: Runner, layers: list[int]) -> str:
    thetas = {row["rope_theta"] for row in runner.layers
              if row["layer"] in layers and "rope_theta" in row}
    return f", base {thetas.pop():g}" if len(thetas) == 1 else ""


def switches(runner: Runner) -> dict[str, int]:
    """Lengths where the model changes behaviour: name → the first position affected (a
    length-dependent rotary rule's switch; each sliding window, naming its layers and the
    global ones)."""
    out = {k: v for k, v in runner.info.switches.items() if k != "sliding window"}
    everyone = [row["layer"] for row in getattr(runner, "layers", [])]
    for w, layers in sorted(windows(runner).items()):
        if not layers:
            out["sliding window"] = w
            continue
        others = [i for i in everyone if i not in layers]
        chunked = all(row["attention"] == "chunked" for row in runner.layers
                      if row["layer"] in layers)
        kind = "attention chunk" if chunked else "sliding window"   # Llama 4: chunks of w
        name = (f"{kind} {w} on {_layers_text(layers)}{_bases(runner, layers)}"
                + (f" ({_layers_text(others)} global{_bases(runner, others)})" if others
                   else ""))
        out[name] = w
    return out


def _shifts(info: ModelInfo, n: int) -> list[int]:
    ctx = info.context or 4096
    top = max(1, ctx - n)
    shifts = {1, max(1, top // 2), top}
    if info.rope_type in ("dynamic", "longrope") and info.original_max:
        shifts.add(max(1, info.original_max - n + 1))   # the largest position crosses the switch
    return sorted(shifts)


def check_shift(runner: Runner, ids: Any, tol: Tolerance) -> Check:
    import torch

    info = runner.info
    n = ids.shape[1]
    if info.family in ("alibi", "t5") or not runner.takes_positions:
        what = "ALiBi slopes × (key − query)" if info.family == "alibi" else \
            "T5 buckets of key − query"
        if info.family == "absolute":
            return Check("shift_invariance", "pass",
                         {"summary": "absolute positions: the forward takes no position ids (a "
                                     "learned table indexed from 0); shift invariance does not "
                                     "apply", "positions": "absolute",
                          **({"encoder": _encoder_side(runner)}
                             if getattr(runner, "encoder_decoder", False) else {})},
                         certified="architecture", note="absolute positions",
                         evidence=Evidence("architecture: no position input",
                                           coverage="structural",
                                           details={"positions": "absolute"}))
        values0: dict[str, Any] = {"summary": f"relative by construction: the forward takes no "
                                              f"positions ({what})", "positions": info.family}
        if getattr(runner, "encoder_decoder", False):
            values0["encoder"] = _encoder_side(runner)
            values0["summary"] += f"; encoder: {values0['encoder']['summary']}"
        return Check("shift_invariance", "pass", values0,
                     certified="architecture",
                     evidence=Evidence("architecture: no position input", coverage="structural",
                                       details={"positions": info.family}))
    base = runner.logits(ids, torch.arange(n)[None])
    diffs = {}
    for k in _shifts(info, n):
        diffs[k] = _max(runner.logits(ids, torch.arange(n)[None] + k), base)
    worst = max(diffs, key=diffs.get)
    values: dict[str, Any] = {"shifts": list(diffs), "max_difference": diffs[worst],
                              "at_shift": worst, "tolerance": tol.value, "length": n}
    total = max(1, (info.context or 4096) - n + 1)
    ev = _evidence(len(diffs), total, "shifts", tol,
                   differences={str(k): v for k, v in diffs.items()})
    partial = probe_partial(runner, ids, worst) if runner.partial else None
    if partial is not None:
        values["partial_rotary"] = partial
    elif runner.partial:
        values["partial_rotary"] = {"status": "not probed", "rotated_dims": runner.partial[0],
                                    "head_dim": runner.partial[1],
                                    "summary": "the attention's query/key could not be "
                                               "captured: the un-rotated dims are not shown "
                                               "position-free"}
    if getattr(runner, "encoder_decoder", False):
        values["encoder"] = _encoder_side(runner)
    if info.family == "absolute":
        values.update(summary=f"absolute positions: a shift by {worst} changes the logits by "
                              f"{diffs[worst]:.3g} (a learned position table; shift invariance "
                              "does not apply)", positions="absolute")
        return Check("shift_invariance", "pass", values, certified=METHOD,
                     note="absolute positions", evidence=ev)
    status = tol.status(diffs[worst])
    values["summary"] = (f"max |Δlogit| = {diffs[worst]:.3g} over shifts "
                         f"{', '.join(map(str, diffs))} (tolerance {tol.value:.3g})")
    note = None
    if partial is not None:
        values["summary"] += "; " + partial["summary"]
        if partial["status"] == "fail":
            status, note = "fail", partial["summary"]
        elif partial["status"] == "unknown" and status == "pass":
            status, note = "unknown", partial["summary"]
    if status != "pass" and note is None:
        explanation = explain_shift(runner, ids, worst, diffs[worst], tol)
        values["explanation"] = explanation
        note = explanation["text"]
    return Check("shift_invariance", status, values, certified=METHOD, note=note, evidence=ev)


def probe_partial(runner: Runner, ids: Any, k: int) -> dict[str, Any] | None:
    """Partial rotary: the dims past the rotated ones must be position-free.  The query and key
    entering layer 0's attention (after the rotation; its input is the same at every position)
    are compared between positions 0 … n−1 and k … k+n−1: a dim that moves is position-bearing.
    ``None`` when the attention inputs cannot be captured."""
    import torch

    rotated, head = runner.partial  # type: ignore[misc]
    n = ids.shape[1]
    got = []
    for start in (0, k):
        with runner.attention_inputs() as seen:
            if seen is None:
                return None
            runner.logits(ids, torch.arange(n)[None] + start)
            if not seen:
                return None
            got.append(seen[0])
    (q0, k0), (q1, k1) = got
    if q0.shape[-1] != head or k0.shape[-1] != head:
        return None
    move = torch.maximum((q1 - q0).abs().amax(dim=tuple(range(q0.ndim - 1))),
                         (k1 - k0).abs().amax(dim=tuple(range(k0.ndim - 1))))
    scale = max(float(q0.abs().max()), float(k0.abs().max()), 1e-300)
    still = float(SAFETY * _U64 * scale)        # a dim computed the same way twice is exact
    moving = {int(i) for i in torch.nonzero(move > still).flatten()}
    # the rotated block leads (Phi, GPT-NeoX, GPT-J) or trails (MLA: cat(q_nope, q_rope))
    blocks = {"leading": range(rotated), "trailing": range(head - rotated, head)}
    layout = max(blocks, key=lambda b: (len(moving & set(blocks[b])), b == "leading"))
    block = blocks[layout]
    free = [i for i in range(head) if i not in block]
    passing = sorted(moving - set(block))
    rotated_moving = len(moving & set(block))
    free_text = f"{free[0]} … {free[-1]}"
    out: dict[str, Any] = {"rotated_dims": rotated, "head_dim": head, "shift": k,
                           "layout": layout, "pass_through_dims": [free[0], free[-1]],
                           "pass_through_max_change": float(move[free].max()),
                           "rotated_dims_moving": rotated_moving, "threshold": still}
    if passing:
        out.update(status="fail", moving_pass_through_dims=passing[:16],
                   summary=f"partial rotary: {len(passing)} of the {head - rotated} un-rotated "
                           f"dims ({free_text}) of layer 0's query/key move with the position "
                           f"(shift {k}: up to {float(move[free].max()):.3g}); they must be "
                           "position-free")
    else:
        out.update(status="pass" if rotated_moving else "unknown",
                   summary=f"partial rotary: dims {free_text} of layer 0's query/key are "
                           f"position-free under a shift by {k} (unchanged), {rotated_moving} "
                           f"of the {rotated} rotated dims move")
    return out


def _encoder_side(runner: Runner) -> dict[str, Any]:
    """How the encoder of an encoder-decoder model takes positions (its input is fixed here;
    the decoder's positions are the ones checked and cached)."""
    family = runner.info.family
    text = {"t5": "T5 buckets of key − query (relative by construction, no position input)",
            "alibi": "ALiBi biases (relative by construction)",
            "absolute": "absolute positions (a learned or fixed table indexed from 0)"}.get(
        family, f"{family} positions")
    enc = runner.encoder_ids  # type: ignore[attr-defined]
    return {"positions": family, "summary": text, "input": runner.encoder_kw,  # type: ignore
            "length": int(enc.shape[-1])}


def _scenarios(runner: Runner, length: int) -> tuple[list[tuple[int, int, str]], list[str]]:
    out = [(max(1, length // 2), length, f"prompt {max(1, length // 2)}, decode to {length}")]
    skipped = []
    for name, s in switches(runner).items():
        if s + 1 > MAX_SWITCH:
            skipped.append(f"{name} at {s} (beyond the {MAX_SWITCH} positions check-model runs)")
            continue
        # the last position before the switch (sequence length s) and the first after it
        out.append((max(1, s - 1), s + 1, f"{name} at {s}"))
    return out, skipped


_LENGTH_RULES = ("dynamic", "longrope")


def _rope_types(value: Any) -> list[str]:
    """Every rope type named in a module's ``rope_type`` or a config's rope block (a string,
    or a dict per layer type as Gemma 3 keeps them)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        out = [str(value[k]) for k in ("rope_type", "type") if k in value]
        for v in value.values():
            if isinstance(v, dict):
                out += _rope_types(v)
        return out
    return []


def rows_free_of_length(runner: Runner) -> bool:
    """Whether row i of a full forward of a transformers causal model is the last row of the
    full forward of the prefix 0 … i: every position rule of the model is independent of the
    sequence length (no dynamic NTK, no LongRoPE: neither in check-model's reading, nor in the
    config object transformers built, nor in any of its modules' ``rope_type``).  A user's
    forward is not assumed to be (its rows are computed prefix by prefix)."""
    if not isinstance(runner, HFRunner):
        return False
    info = runner.info
    if any(k != "sliding window" for k in info.switches) or info.rope_type in _LENGTH_RULES:
        return False
    names = []
    for config in {id(c): c for c in (runner.config, text_config_of(runner.config))}.values():
        for key in ("rope_parameters", "rope_scaling"):
            names += _rope_types(getattr(config, key, None))
    for m in runner.model.modules():
        names += _rope_types(getattr(m, "rope_type", None))
    return not any(rule in name for name in names for rule in _LENGTH_RULES)


def _references(runner: Runner, ids: Any, start: int, stop: int) -> Any:
    """The full forward's logits at rows start … stop−1, row i from the tokens 0 … i alone.

    When the model's rows do not depend on the sequence length (:func:`rows_free_of_length`)
    they are the rows of **one** full forward of all of ``ids`` (causal attention: row i of
    it sees the tokens 0 … i only, with the same masks, windows and positions as the forward of
    the prefix; the two differ by the summation order of the larger matrices, the noise the
    tolerance measures as "second run (batch of two)").  That forward is computed once per
    run and shared by every scenario of kv_cache and cache_boundary.  Otherwise (dynamic NTK,
    LongRoPE, a user's forward) row i is the last row of the forward of ``ids[:, :i + 1]``."""
    import torch

    if rows_free_of_length(runner):
        memo = _memo(runner)
        seen, full = memo.get("full", (None, None))
        if seen is None or seen.shape[1] < stop or not torch.equal(seen[:, :stop], ids[:, :stop]):
            seen, full = memo["full"] = (ids, runner.logits(ids))
        return full[0, start:stop]
    return torch.stack([runner.logits(ids[:, :i + 1])[0, -1] for i in range(start, stop)])


def _memo(runner: Runner) -> dict[Any, Any]:
    if getattr(runner, "memo", None) is None:
        runner.memo = {}  # type: ignore[attr-defined]
    return runner.memo  # type: ignore[attr-defined]


def _run_scenario(runner: Runner, ids: Any, prompt: int, stop: int) -> tuple[Any, Any]:
    """Cached decoding of rows prompt … stop−1 and the full forwards of the same prefixes
    (:func:`_references`; computed once per run: kv_cache and cache_boundary share the switch
    scenario)."""
    memo = _memo(runner)
    if (prompt, stop) not in memo:
        memo[(prompt, stop)] = (runner.decode(ids[:, :stop], prompt),
                                _references(runner, ids, prompt, stop))
    return memo[(prompt, stop)]


def check_kv_cache(runner: Runner, ids_long: Any, length: int, tol: Tolerance,
                   name: str = "kv_cache", scenarios: list[tuple[int, int, str]] | None = None,
                   skipped: list[str] | None = None) -> Check:
    if scenarios is None:
        scenarios, skipped = _scenarios(runner, length)
    rows = []
    worst = 0.0
    first = None
    for prompt, stop, label in scenarios:
        inc, ref = _run_scenario(runner, ids_long, prompt, stop)
        per = [float((a - b).abs().max()) for a, b in zip(inc, ref, strict=True)]
        over = _first_over(per, prompt, tol)
        rows.append({"scenario": label, "prompt": prompt, "decoded": [prompt, stop - 1],
                     "max_difference": max(per), "first_position_over_tolerance": over,
                     "differences": per})
        if max(per) > worst:
            worst = max(per)
        if over is not None and (first is None or over < first):
            first = over
    status = tol.status(worst)
    values: dict[str, Any] = {
        "summary": f"max |Δlogit| = {worst:.3g} between cached decoding and the full forward "
                   f"over {len(rows)} prompt(s)" + (f"; first over tolerance at position {first}"
                                                    if first is not None else ""),
        "max_difference": worst, "first_position": first, "tolerance": tol.value,
        "scenarios": rows,
        "reference": "row i of one full forward of the longest sequence (causal: it sees the "
                     "tokens 0 … i; no length-dependent rule)" if rows_free_of_length(runner)
                     else "the last row of the full forward of the tokens 0 … i, for each i"}
    if getattr(runner, "encoder_decoder", False):
        values["summary"] += (" (the decoder's cache: its self-attention keys, and the "
                              "encoder's keys for cross-attention computed once)")
        values["cache"] = "decoder"
    if skipped:
        values["not_straddled"] = skipped
        if status == "pass":
            status = "unknown"
    note = None
    if status != "pass" and worst > tol.value:
        bad = max(rows, key=lambda r: r["max_difference"])
        key = (bad["prompt"], bad["decoded"][1] + 1)
        memo = _memo(runner)
        if ("explanation", *key) not in memo:
            memo[("explanation", *key)] = explain_kv_cache(
                runner, ids_long, *key, tol, memo[key][0])
        explanation = dict(memo[("explanation", *key)])
        if name == "cache_boundary" and explanation.get("cause") == "dynamic rotation":
            explanation.update(rotation_change(runner.info))
            explanation["text"] += "; " + explanation["rotations"]
        values["explanation"] = explanation
        note = explanation["text"]
    elif skipped:
        note = "not straddled: " + "; ".join(skipped)
    total = max(stop for _, stop, _ in scenarios)
    ev = _evidence(sum(stop - p for p, stop, _ in scenarios), total, "decoded positions", tol)
    return Check(name, status, values, certified=METHOD, note=note, evidence=ev)


_NO_SWITCH = {
    "alibi": "ALiBi adds −slope·(key − query) at every step, whatever the length",
    "t5": "T5 adds the bias of the bucket of key − query at every step, whatever the length",
    "absolute": "each token's learned position vector depends on its own position only, "
                "whatever the length",
}


def check_cache_boundary(runner: Runner, ids_long: Any, tol: Tolerance) -> Check | None:
    """Cached decoding straddling every length where the model switches behaviour: a
    length-dependent rotary rule (dynamic NTK, LongRoPE) and each sliding window (on the layers
    that use it, the others attending to all).  A model without a switch passes by its
    configuration; a user's forward declares none (the check is not run)."""
    info = runner.info
    if not isinstance(runner, HFRunner):
        return None
    found = switches(runner)
    if not found:
        what = _NO_SWITCH.get(info.family) or (
            f"rope_type={info.rope_type} rotates every position the same way whatever the length")
        return Check("cache_boundary", "pass",
                     {"summary": f"no switch: {what}; no sliding window",
                      "rope_type": info.rope_type, "positions": info.family,
                      "layers": runner.layers},
                     certified="configuration",
                     evidence=Evidence("configuration: no length switch", coverage="structural",
                                       details={"positions": info.family,
                                                "rope_type": info.rope_type}))
    scenarios, skipped = [], []
    rules = {k for k in info.switches if k != "sliding window"}     # dynamic NTK, LongRoPE
    for name, s in found.items():
        if s + 1 > MAX_SWITCH:
            skipped.append(f"{name} at {s} (beyond the {MAX_SWITCH} positions check-model runs)")
            continue
        where = ("keys cached up to {0}, the query at {1} after the switch" if name in rules
                 else "keys cached up to {0}, the query at {1}: the first key leaves "
                 "the window")
        scenarios.append((max(1, s - 1), s + 1, f"{name}: " + where.format(s - 1, s)))
    if not scenarios:
        return Check("cache_boundary", "unknown",
                     {"summary": "every switch is beyond the positions check-model runs: "
                                 + "; ".join(skipped), "switches": found},
                     note="not straddled: " + "; ".join(skipped))
    check = check_kv_cache(runner, ids_long, 0, tol, name="cache_boundary",
                           scenarios=scenarios, skipped=skipped)
    check.values["switches"] = found
    check.values["summary"] += "; straddled: " + ", ".join(
        f"{name} at {s}" for name, s in found.items() if s + 1 <= MAX_SWITCH)
    dynamic = [s for name, s in found.items() if name in rules]
    if dynamic:
        check.values["switch"] = dynamic[0]
        check.values.update(rotation_change(info))
    if runner.layers:
        check.values["layers"] = runner.layers
    return check


def check_left_padding(runner: Runner, ids: Any, ids2: Any, tol: Tolerance) -> Check:
    import torch

    n = ids.shape[1]
    pads = sorted({min(3, n - 1), max(1, n // 2)})
    worst, rows, own = 0.0, [], {}
    for pad in pads:
        short = ids2[:, :n - pad]
        batch = torch.cat([ids, torch.cat([torch.zeros(1, pad, dtype=ids.dtype), short], 1)])
        mask = torch.ones_like(batch)
        mask[1, :pad] = 0
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        alone = runner.logits(short, torch.arange(n - pad)[None])
        first = runner.logits(ids, torch.arange(n)[None])
        padded = runner.logits(batch, positions, mask)
        d = max(_max(padded[1:2, pad:], alone), _max(padded[0:1], first))
        rows.append({"pad": pad, "max_difference": d})
        worst = max(worst, d)
        if runner.takes_positions:
            mine = runner.logits(batch, None, mask)
            own[pad] = _max(mine[1:2, pad:], alone)
    status = tol.status(worst)
    values: dict[str, Any] = {
        "summary": f"max |Δlogit| = {worst:.3g} between a left-padded row (positions from the "
                   f"mask) and the sequence alone, pads {', '.join(map(str, pads))}",
        "max_difference": worst, "tolerance": tol.value, "pads": rows}
    note = None
    if own:
        d_own = max(own.values())
        values["own_positions_difference"] = d_own
        if d_own > tol.value and status == "pass":
            values["own_positions"] = ("with position_ids=None the model takes positions as "
                                       f"arange (padding shifts them): |Δlogit| = {d_own:.3g}; "
                                       "pass position_ids = cumsum(mask) − 1, as generate() does")
            note = values["own_positions"]
    if status != "pass" and worst > tol.value:
        pad = max(rows, key=lambda r: r["max_difference"])["pad"]
        explanation = explain_left_padding(runner, ids, ids2, n, pad, tol)
        values["explanation"] = explanation
        note = explanation["text"]
    ev = _evidence(len(pads), n - 1, "pad lengths", tol)
    return Check("left_padding", status, values, certified=METHOD, note=note, evidence=ev)


def run_model_checks(runner: Runner, *, length: int = 64, checks: Any = None,
                     seed: int = 0) -> list[Check]:
    """The checks named in ``checks`` (all by default) on ``runner``."""
    import torch

    names = list(checks if checks else CHECKS)
    for name in names:
        if name not in CHECKS:
            raise InvalidParameter(f"check {name!r} is not known; use {', '.join(CHECKS)}")
    if not isinstance(length, int) or isinstance(length, bool) or not 4 <= length <= 1024:
        raise InvalidParameter(f"length={length!r} must be an integer in 4 … 1024")
    info = runner.info
    if info.context is not None and info.family == "absolute" and length > info.context:
        raise InvalidParameter(f"length={length} is beyond the position table "
                               f"({info.context} positions)")
    heads = info.n_head or 2
    switch_at = switches(runner)
    longest_run = max([2 * length, *(s + 1 for s in switch_at.values() if s + 1 <= MAX_SWITCH)])
    if heads * longest_run ** 2 * 8 * 4 > MAX_ATTENTION_BYTES:
        top = int((MAX_ATTENTION_BYTES / (heads * 32)) ** 0.5) // 2
        raise InvalidParameter(f"length={length}: the attention of {heads} heads over "
                               f"{longest_run} tokens would need over "
                               f"{MAX_ATTENTION_BYTES / 2**30:g} GiB; pass a length ≤ {top}")
    gen = torch.Generator().manual_seed(seed)
    hi = max(2, runner.vocab - 12)
    longest = max([length, *(s + 1 for s in switch_at.values() if s + 1 <= MAX_SWITCH)])
    runner.memo = {}  # type: ignore[attr-defined]
    ids_long = torch.randint(1, hi, (1, longest), generator=gen)
    ids2 = torch.randint(1, hi, (1, length), generator=gen)
    ids = ids_long[:, :length]
    out: list[Check] = []
    with runner.float64_angles() as angles64:
        tol = derive_tolerance(runner, ids, angles64)
        if angles64 and runner.takes_positions:
            pos = _angle_positions(runner, length)
            with_64 = runner.logits(ids, pos)
    if angles64 and runner.takes_positions:   # the angles as the model forms them
        tol.angle_effect = _max(runner.logits(ids, pos), with_64)
    with runner.float64_angles():
        for name in names:
            if name == "shift_invariance":
                out.append(check_shift(runner, ids, tol))
            elif name == "kv_cache":
                out.append(check_kv_cache(runner, ids_long, length, tol))
            elif name == "left_padding":
                out.append(check_left_padding(runner, ids, ids2, tol))
            elif name == "cache_boundary":
                c = check_cache_boundary(runner, ids_long, tol)
                if c is not None:
                    out.append(c)
    caps = softcaps(runner)
    if caps:
        caps.update(_final_cap_slope(runner, ids, caps))
    for c in out:
        if tol.angle_effect is not None:
            c.values.setdefault("float32_effect", tol.angle_effect)
        if caps:
            c.values["softcapping"] = caps
            if c.status == "fail" and c.note and caps.get("final"):
                c.note += (f" (final logits softcapped at {caps['final']:g}: the differences "
                           f"are those after the cap, scaled by ≥ {caps['final_slope']:.3g})")
    return out


def softcaps(runner: Runner) -> dict[str, Any]:
    """The softcaps of the model (Gemma 2: attention logits 50, final logits 30), as its
    config object holds them."""
    config = getattr(runner, "config", None)
    out: dict[str, Any] = {}
    for key, name in (("attn_logit_softcapping", "attention"),
                      ("final_logit_softcapping", "final")):
        value = getattr(config, key, None) if config is not None else None
        if value:
            out[name] = float(value)
    return out


def _final_cap_slope(runner: Runner, ids: Any, caps: dict[str, Any]) -> dict[str, Any]:
    """cap·tanh(x/cap) has slope 1 − (y/cap)² at output y: a difference before the cap reaches
    the compared logits scaled by at least this (the tolerance is measured after the cap, on
    the same logits, so it is scaled alike)."""
    if not caps.get("final"):
        return {}
    top = float(runner.logits(ids).abs().max())
    ratio = min(top / caps["final"], 1.0)
    return {"final_slope": 1.0 - ratio * ratio, "largest_logit": top}

