"""Check a user's ALiBi: :func:`assert_alibi`, :func:`check_alibi`, :func:`identify_alibi`.

``impl`` may be

* a slopes vector (length n_heads);
* a bias tensor (heads, q, k) — the causal part j ≤ i is compared with −m_h·(i − j);
* a key-only bias (heads, 1, k) as MPT's ``build_mpt_alibi_tensor`` returns (m_h·j plus any
  constant per head: softmax cancels it), or HF BLOOM's (batch·heads, 1, k) with the
  ``attention_mask`` it was built from (m_h·p_j, p_j = cumsum(mask) − 1 on real tokens);
* a callable: ``f(attention_mask, num_heads, dtype)`` (BLOOM's ``build_alibi_tensor``: run
  on masks with no, left, right and inner padding; needs torch), ``f(num_heads, seq_len)``
  (MPT's), or ``f(q_positions, k_positions) → (heads, q, k)``, checked through its Toeplitz
  structure (:func:`posproof.measure.alibi.toeplitz_bias_check`).

The tolerance is a stated model of the computation (:class:`~posproof.measure.alibi.
RoundingModel`): the slopes formed in the judged dtype by the rule (BLOOM's ``pow(base, k)``,
the paper's ``start·ratio^i``, MPT's ``1/2^e``: k_h roundings of u = 2^(−p)), multiplied by the
integer offset Δ in that dtype; an entry may differ from −m·Δ by ((1 + u)^k_h − 1)·|m·Δ| (plus
underflow) and no more.  A bias formed in float32 and cast to float16 errs less than the model
of float16, so it passes; slopes off by more than their formation can make fail, and the report
gives the slope of every head read from the data against the rule's exact 2^(−e_h)
(``slope_errors``).  The report states the model (``model``), the evidence records it, and the
audit recomputes the bound of the worst entry from it (u, k, η, the exact slope, Δ).

The values are judged at their dtype or a coarser declared one (a float32 bias handed over as
float64 fails at float64 and the failure says so: pass ``dtype="float32"``; see
:mod:`posproof.testing.core.precision`).  A failure names an explanation only when regenerating
the impl's output under that hypothesis reproduces it within the model, and names
every one that does (none wins by its place in the list): another rule for a non-power-of-two
head count (geometric 2^(−8(h+1)/n), the first n slopes of the next power of two, MPT with
another ``alibi_bias_max`` or the reference rule), slopes reversed, the sign flipped, the power
off by one, slopes rounded to bfloat16 or float16, query and key axes swapped, the attention
mask ignored.  A dense bias is judged at every entry: above the diagonal each is masked (−inf
or ≤ −10⁴), the symmetric −m·|i − j| of a bidirectional ALiBi, or the check fails naming the
entries (NaN, +10⁴, …); zero or −m·(i − j) continued above it (the mask applied elsewhere)
leave the ALiBi judgement to the lower triangle, and the label says ``partial coverage``.

>>> import numpy as np
>>> from posproof.model.alibi import alibi
>>> assert_alibi(alibi(12).slopes_array(), n_heads=12).ok
True
>>> bad = np.exp2(-8 * np.arange(1, 13) / 12)
>>> assert_alibi(bad, n_heads=12)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AssertionError: ALiBi impl disagrees with alibi(12, rule='reference')...tolerance (slopes, judged at float64)
most likely: the geometric rule 2^(−8(h+1)/n) used for a head count that is not a power of two (confirmed by regeneration)
slopes read from the data: 12 of 12 heads off the rule's exact slope ...; worst head 7: 0.0248031414 vs 2^(−e) = 0.00390625, relative error +5.35 (allowed ±6.66e-16)
the tolerance: slopes formed in float64 by the reference rule: |error| ≤ ((1 + u)^k − 1)·m + k·η, u = 2^−53, k = 3…10 by head
"""  # noqa: E501

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from ...audit import apply
from ...errors import InvalidParameter
from ...evidence import Evidence, Sign, Spot, sampled_label
from ...measure.alibi import REFERENCE_ROUNDINGS, RoundingModel, toeplitz_bias_check
from ...model.alibi import MAX_BIAS_MAX, Alibi, alibi, is_power_of_two, mpt_exponents
from ...report import Check
from ..core.arrays import as_array, dtype_eps
from ..core.arrays import dtype_name as angles_name
from ..core.precision import precision_explanation, precision_note, stored_precision
from ..core.reports import InvalidImplementation, imported_torch

__all__ = ["AlibiReport", "assert_alibi", "check_alibi", "identify_alibi"]


@dataclass
class AlibiReport:
    """What a check of an ALiBi impl found; ``ok`` is the verdict, ``message`` the text."""

    ok: bool
    kind: str
    spec: dict[str, Any]
    checks: list[dict[str, Any]] = field(default_factory=list)
    explanation: str | None = None
    hypotheses: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    #: What decided the verdict (entries compared, coverage, the worst entry audited).
    evidence: Evidence | None = None
    #: ``unknown`` when the independent audit could not confirm the evidence.
    status: str = ""
    #: The dtype the values were judged at: the impl's, or the narrower one read from the data.
    dtype: str = ""
    #: What was read from the data ("" when nothing): a float32 bias stored as float64.
    precision_note: str = ""
    #: A dense (heads, q, k) bias: what it holds above the diagonal (the causal triangle
    #: masked, the symmetric −m·|i−j| of a bidirectional ALiBi, …); "" for other kinds.
    form: str = ""
    #: Every confirmed explanation (several when several regenerate the impl).
    explanations: list[str] = field(default_factory=list)
    #: The rounding model the values were judged under, stated (see
    #: :class:`posproof.measure.alibi.RoundingModel`).
    model: str = ""
    #: Per head: the slope read from the data, the rule's exact slope, the relative error and
    #: what the model allows.
    slope_errors: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.status:
            self.status = "pass" if self.ok else "fail"

    @property
    def label(self) -> str:
        """The verdict as printed: a sampled pass says so, never a bare "pass"."""
        ev = self.evidence
        if self.status == "pass" and ev is not None and ev.details.get("partial_coverage"):
            return (f"pass (partial coverage: {ev.details['partial_coverage']}, "
                    f"{ev.covered} of {ev.total} entries judged)")
        if self.status == "pass" and ev is not None and ev.sampled:
            return sampled_label(ev.covered, ev.total)
        return self.status

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "evidence"}
        out["status"] = self.status
        out["label"] = self.label
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_dict()
        return out


def _exp2(e: list[Fraction] | tuple[Fraction, ...]) -> np.ndarray:
    return np.exp2(-np.array([float(x) for x in e]))


def _round_to(values: np.ndarray, name: str) -> np.ndarray:
    """float64 values rounded to nearest in float16 or bfloat16 (ties to even), as float64."""
    if name == "float16":
        return values.astype(np.float16).astype(np.float64)
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def _hypotheses(spec: Alibi) -> list[tuple[str, np.ndarray]]:
    """Candidate wrong slopes vectors, each a known bug, by name.  Each is regenerated and
    named only when it reproduces the impl; candidates giving the same vector are merged
    (their names joined), so none wins by its place in the list."""
    n, ex = spec.n_heads, spec.exponents
    q = 1 << (n - 1).bit_length()
    exact = _exp2(ex)
    out: list[tuple[str, np.ndarray]] = []
    if not is_power_of_two(n):     # for 2^k heads both are the reference rule itself
        out += [
            ("the geometric rule 2^(−8(h+1)/n) used for a head count that is not a power of two",
             np.exp2(-8 * np.arange(1, n + 1) / n)),
            ("the first n slopes of the next power of two (truncated), not the reference "
             "interleaving", np.exp2(-8 * np.arange(1, q + 1) / q)[:n])]
    out += [
        ("slopes reversed (head order)", exact[::-1]),
        ("the sign flipped (+m·(i − j) instead of −m·(i − j))", -exact),
        ("the power off by one (2^(−8h/n), h from 0)", np.exp2(-8 * np.arange(0, n) / n)),
        ("the power off by one (2^(−8(h+2)/n))", np.exp2(-8 * np.arange(2, n + 2) / n)),
        ("the slopes rounded to bfloat16 (a bfloat16 slopes buffer)", _round_to(exact, "bfloat16")),
        ("the slopes rounded to float16 (a float16 slopes buffer)", _round_to(exact, "float16")),
    ]
    for bmax in (4, 6, 8, 12, 16, 32):
        if bmax == spec.alibi_bias_max:
            continue
        name = (f"the reference rule (alibi_bias_max=8), not {spec.rule}'s alibi_bias_max="
                f"{spec.alibi_bias_max}" if bmax == 8 else f"MPT's rule with alibi_bias_max={bmax}")
        out.append((name, _exp2(mpt_exponents(n, bmax))))
    merged: list[tuple[str, np.ndarray]] = []
    for name, slopes in out:
        if np.array_equal(slopes, exact):
            continue                                  # not a bug for this spec
        same = next((i for i, (_, v) in enumerate(merged) if np.array_equal(v, slopes)), None)
        if same is None:
            merged.append((name, slopes))
        else:
            merged[same] = (f"{merged[same][0]}; equally, {name}", slopes)
    return merged


def _compare(got: np.ndarray, want: np.ndarray, model: RoundingModel) -> float:
    """Worst |got − want| over the model's bound for slopes formed in its dtype."""
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.abs(got - want) / model.tolerance(want, 1.0, slope_only=True).reshape(-1)
    return float(np.max(np.where(np.isnan(r), np.inf, r)))


class _Target:
    """The impl's output, read once, with a way to regenerate it from any slopes vector."""

    def __init__(self, kind: str, regen: Callable[[np.ndarray], float], slopes: np.ndarray,
                 mask_ignored: Callable[[np.ndarray], float] | None = None):
        self.kind, self.regen, self.slopes = kind, regen, slopes
        self.mask_ignored = mask_ignored
        #: what an entry-by-entry check looked at (pairwise callables), else every entry given
        self.coverage: dict[str, Any] | None = None
        self.dtype, self.precision_note = "", ""
        #: (dtype read from the values, the target judged at it) when coarser than judged
        self.at_read: tuple[str, _Target] | None = None
        #: a dense bias: every entry above the diagonal classified (see :func:`_upper`)
        self.upper_of: Callable[[], dict[str, Any]] | None = None
        #: further hypotheses on the layout of the output (not on the slopes): name -> score
        self.layouts: dict[str, Callable[[np.ndarray], float]] = {}
        #: the rounding model the values are judged under
        self.model: RoundingModel | None = None
        #: the worst entry under the spec's slopes, for the audit (see :func:`_worst_sign`)
        self.worst_of: Callable[[], dict[str, Any] | None] = lambda: None
        #: entries of a dense bias (heads·q·k), 0 for other kinds
        self.dense_size = 0


def _key_only(values: np.ndarray, positions: np.ndarray, real: np.ndarray,
              model: RoundingModel, heads: int,
              worst: dict[str, Any] | None = None) -> Callable[[np.ndarray], float]:
    """Score of m·p_j + c_row against values (rows × k) on real keys, c_row free (the midrange
    of the residuals: its error is at most the entries' own).  The model's bound at the
    entry's offset from the row's origin: |Δ| ≤ max p + |c|/m."""
    k_rows = np.array(model.k, dtype=np.float64)
    rel_rows = model.relative()

    def score(slopes_rows: np.ndarray) -> float:
        rows = len(slopes_rows)
        rel = np.resize(rel_rows, rows)[:, None]
        ks = np.resize(k_rows, rows)[:, None]
        with np.errstate(invalid="ignore", over="ignore"):
            pred = slopes_rows[:, None] * positions
            resid = np.where(real, values - pred, np.nan)
        if not np.isfinite(resid[real]).all():
            return float("inf")
        const = (np.nanmax(resid, axis=1, keepdims=True)
                 + np.nanmin(resid, axis=1, keepdims=True)) / 2
        err = np.where(real, np.abs(resid - const), 0.0)
        m = np.abs(slopes_rows)[:, None]
        top = np.max(np.abs(positions), axis=1, keepdims=True)
        span = top + np.abs(const) / np.maximum(m, 1e-300)           # the largest |Δ|
        tol = rel * m * span + ks * float(model.eta) / 2 * (1 + span)
        with np.errstate(over="ignore", invalid="ignore"):
            ratio = err / tol
        if worst is not None:
            r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            if ratio[r, c] == 0:                          # exact: the farthest key of row 0
                r, c = 0, int(np.argmax(np.where(real[0], np.abs(positions[0]), -1)))
            worst.update(row=int(r), key=int(c), impl=float(values[r, c]),
                         position=float(positions[r, c]), const=float(const[r, 0]),
                         span=float(span[r, 0]), tolerance=float(tol[r, 0]))
        return float(np.max(ratio))
    return score


def _from_array(arr: np.ndarray, dtype: str, spec: Alibi, mask: Any,
                declared: str | None = None) -> _Target:
    """The target judged at the dtype the values come in (or the coarser ``declared`` one);
    the precision read from the values (a float32 bias handed over as float64) is kept to
    explain a failure, never to widen the verdict's tolerance."""
    judged = dtype if declared is None or dtype_eps(declared) <= dtype_eps(dtype) else declared
    read = stored_precision(arr, dtype, reference=spec.slopes_array())
    target = _from_array_at(arr, judged, spec, mask)
    target.dtype = judged
    target.precision_note = precision_note(read, dtype, declared)
    if read is not None and dtype_eps(read) > dtype_eps(judged):
        target.at_read = (read, _from_array_at(arr, read, spec, mask))
    return target


_MASKED = -1e4        # a finite mask value is at most this (HF: finfo.min; older code −10⁴)


def _upper(arr: np.ndarray, delta: np.ndarray, slopes: np.ndarray,
           model: RoundingModel) -> dict[str, Any]:
    """Every entry above the diagonal (j > i) of a dense bias, classified: masked (−inf or
    ≤ −10⁴), the symmetric −m·|i − j|, −m·(i − j) continued (+m·(j − i)), zero, or bad (NaN,
    +inf, anything else: named).  ``partial``: the ALiBi judgement covers the lower triangle
    only (zero or continued entries: the mask, if any, is applied elsewhere)."""
    upper = np.broadcast_to(delta[None] < 0, arr.shape)
    total = int(upper.sum())
    if total == 0:
        return {"form": "", "bad": 0, "partial": 0, "total": 0, "entries": []}
    tol = model.tolerance(slopes, delta)
    with np.errstate(invalid="ignore", over="ignore"):
        masked = np.isneginf(arr) | (np.isfinite(arr) & (arr <= _MASKED))
        sym = np.abs(arr + slopes[:, None, None] * np.abs(delta)[None]) <= tol
        cont = np.abs(arr + slopes[:, None, None] * delta[None]) <= tol
    zero = arr == 0
    judged = upper & (masked | sym)
    partial = upper & ~judged & (cont | zero)
    bad = upper & ~judged & ~partial
    counts = {"masked": int((upper & masked).sum()), "symmetric": int((upper & sym & ~masked)
                                                                       .sum()),
              "continued": int((partial & cont).sum()), "zero": int((partial & zero & ~cont)
                                                                     .sum())}
    entries = [{"head": int(h), "i": int(i), "j": int(j), "value": float(arr[h, i, j])}
               for h, i, j in np.argwhere(bad)[:8]]
    if bad.any():
        nan = int((bad & np.isnan(arr)).sum())
        first = ", ".join(f"bias[{e['head']}, {e['i']}, {e['j']}] = {e['value']!r}"
                          for e in entries[:3])
        form = (f"above the diagonal (j > i): {int(bad.sum())} of {total} entries are neither "
                "masked (−inf or ≤ −10⁴) nor −m·|i − j| nor −m·(i − j) nor 0"
                + (f", {nan} of them NaN (never a correct bias: adding a −inf mask gives NaN)"
                   if nan else "") + f"; first: {first}")
    elif counts["masked"] == total:
        form = "causal: the triangle above the diagonal (j > i) masked (every entry −inf or ≤ −10⁴)"
    elif counts["masked"] + counts["symmetric"] == total and counts["masked"] == 0:
        form = "symmetric −m·|i − j| (bidirectional ALiBi): every entry above the diagonal matches"
    elif not partial.any():
        form = (f"above the diagonal: {counts['masked']} entries masked, {counts['symmetric']} "
                "the symmetric −m·|i − j|")
    elif counts["zero"] == int(partial.sum()) and not judged.any():
        form = ("lower triangle only: zero above the diagonal (the causal mask, if any, "
                "applied elsewhere)")
    elif counts["continued"] == int(partial.sum()) and not judged.any():
        form = ("lower triangle only: −m·(i − j) continued above the diagonal (+m·(j − i) "
                "there: not causal unless masked elsewhere, and not the symmetric −m·|i − j| "
                "of a bidirectional ALiBi)")
    else:
        form = (f"lower triangle only: above the diagonal {counts['masked']} masked, "
                f"{counts['symmetric']} symmetric, {counts['continued']} −m·(i − j) continued, "
                f"{counts['zero']} zero")
    return {"form": form, "bad": int(bad.sum()), "partial": int(partial.sum()), "total": total,
            "entries": entries, "counts": counts}


def _from_array_at(arr: np.ndarray, dtype: str, spec: Alibi, mask: Any) -> _Target:
    n = spec.n_heads
    model = RoundingModel.of(spec, dtype)
    if arr.ndim == 1:
        if arr.shape[0] != n:
            raise InvalidParameter(f"slopes of length {arr.shape[0]}, but n_heads={n}; pass one "
                                   "slope per head")
        target = _Target("slopes", lambda s: _compare(arr, s, model), arr)
        target.model = model

        def worst_slope() -> dict[str, Any]:
            s = spec.slopes_array()
            with np.errstate(over="ignore"):
                r = np.abs(arr - s) / model.tolerance(s, 1.0, slope_only=True).reshape(-1)
            h = int(np.argmax(r))
            return {"head": h, "delta": None, "impl": float(arr[h])}
        target.worst_of = worst_slope
        return target
    if arr.ndim != 3:
        raise InvalidParameter(f"bias of shape {arr.shape}; pass slopes (heads,), a bias "
                               "(heads, q, k), MPT's (heads, 1, k) or BLOOM's (batch·heads, 1, k)")
    if mask is not None:
        m, _ = as_array(mask, what="attention_mask")
        if m.ndim != 2 or arr.shape != (m.shape[0] * n, 1, m.shape[1]):
            raise InvalidParameter(f"bias of shape {arr.shape} with attention_mask of shape "
                                   f"{m.shape}: BLOOM's shape is (batch·heads, 1, k) = "
                                   f"({m.shape[0] * n if m.ndim == 2 else '?'}, 1, "
                                   f"{m.shape[-1]})")
        real = np.repeat(m > 0, n, axis=0)
        pos = np.repeat((np.cumsum(m, axis=1) - 1) * (m > 0), n, axis=0)
        worst: dict[str, Any] = {}
        score = _key_only(arr[:, 0, :], pos, real, model, n, worst)
        plain = _key_only(arr[:, 0, :], np.broadcast_to(np.arange(m.shape[1]), pos.shape),
                          real, model, n)
        far = arr.shape[2] - 1
        target = _Target("bloom-tensor", lambda s: score(np.tile(s, m.shape[0])),
                         (arr[:n, 0, far] - arr[:n, 0, 0]) / far if far else arr[:n, 0, 0],
                         lambda s: plain(np.tile(s, m.shape[0])))
        target.model = model
        target.worst_of = _key_worst(target, spec, worst, n)
        return target
    if arr.shape[0] != n:
        raise InvalidParameter(f"bias of shape {arr.shape} has {arr.shape[0]} heads, but "
                               f"n_heads={n}")
    if arr.shape[1] == 1:
        k = arr.shape[2]
        worst = {}
        score = _key_only(arr[:, 0, :], np.broadcast_to(np.arange(k), (n, k)),
                          np.ones((n, k), bool), model, n, worst)
        target = _Target("key-only-tensor", score,
                         (arr[:, 0, k - 1] - arr[:, 0, 0]) / (k - 1) if k > 1 else arr[:, 0, 0])
        target.model = model
        target.worst_of = _key_worst(target, spec, worst, n)
        return target
    q, k = arr.shape[1:]
    delta = np.arange(q)[:, None] - np.arange(k)[None, :]
    causal = delta[None] >= 0

    def dense_of(values: np.ndarray) -> Callable[[np.ndarray], float]:
        def dense(s: np.ndarray) -> float:
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.where(causal, np.abs(values + s[:, None, None] * delta[None]), 0.0)
            if not np.isfinite(err).all():
                return float("inf")
            with np.errstate(over="ignore"):
                return float(np.max(err / model.tolerance(s, delta)))
        return dense
    far = (q - 1, 0) if q >= k else (0, k - 1)
    read = -arr[:, far[0], far[1]] / (far[0] - far[1]) if q > 1 else arr[:, 0, 0]
    target = _Target("bias-tensor", dense_of(arr), read)
    target.model = model
    target.upper_of = lambda: _upper(arr, delta, spec.slopes_array(), model)
    target.dense_size = int(arr.size)

    def worst_dense() -> dict[str, Any]:
        s = spec.slopes_array()
        with np.errstate(invalid="ignore", over="ignore"):
            r = np.where(causal, np.abs(arr + s[:, None, None] * delta[None])
                         / model.tolerance(s, delta), -1.0)
        h, i, j = np.unravel_index(int(np.argmax(r)), r.shape)
        if r[h, i, j] == 0:                                   # exact: the farthest entry
            h, i, j = 0, far[0], far[1]
        return {"head": int(h), "i": int(i), "j": int(j), "delta": int(i - j),
                "impl": float(arr[h, i, j])}
    target.worst_of = worst_dense
    if q == k and q > 1:
        swapped = dense_of(np.swapaxes(arr, 1, 2))
        target.layouts["query and key axes swapped (bias[h, j, i]: the triangle above the "
                       "diagonal holds the causal part)"] = swapped
    return target


def _key_worst(target: _Target, spec: Alibi, worst: dict[str, Any], n: int
               ) -> Callable[[], dict[str, Any] | None]:
    def of() -> dict[str, Any] | None:
        target.regen(spec.slopes_array())                     # fills `worst`
        if not worst:
            return None
        return {"head": worst["row"] % n, "row": worst["row"], "key": worst["key"],
                "delta": worst["position"], "impl": worst["impl"], "const": worst["const"],
                "span": worst["span"]}
    return of


def _masks(torch: Any, length: int) -> list[tuple[str, Any]]:
    base = torch.ones(4, length, dtype=torch.long)
    base[1, :3] = 0                      # left padding
    base[2, -3:] = 0                     # right padding
    base[3, 2:4] = 0                     # inner padding (packed sequences)
    return [("no, left, right and inner padding", base)]


def _call(impl: Callable[..., Any], *args: Any) -> Any:
    """Call the user's impl; its own exception becomes one named line."""
    try:
        return impl(*args)
    except Exception as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise InvalidImplementation(f"{getattr(impl, '__qualname__', type(impl).__name__)} "
                                    f"raised {type(exc).__name__}: {first}") from None


def _from_callable(impl: Callable[..., Any], spec: Alibi, seq_len: int,
                   declared: str | None = None) -> _Target:
    try:
        names = list(inspect.signature(impl).parameters)
    except (TypeError, ValueError):
        names = []
    first = names[0] if names else ""
    if "mask" in first:
        torch = imported_torch()
        if torch is None:
            raise InvalidImplementation("a BLOOM-style impl(attention_mask, num_heads, dtype) "
                                        "needs torch: import torch first")
        mask = _masks(torch, seq_len)[0][1]
        out = _call(impl, mask, spec.n_heads, torch.float32)
        arr, dtype = as_array(out, what="bias")
        return _from_array(arr, dtype, spec, mask.numpy(), declared)
    if "head" in first:
        arr, dtype = as_array(_call(impl, spec.n_heads, seq_len), what="bias")
        return _from_array(arr.reshape(arr.shape[-3:]) if arr.ndim == 4 else arr, dtype,
                           spec, None, declared)
    if len(names) < 2:
        raise InvalidImplementation(f"{getattr(impl, '__qualname__', impl)!r} is not "
                                    "bias(q_positions, k_positions), build_alibi_tensor("
                                    "attention_mask, num_heads, dtype) or (num_heads, seq_len)")
    pos = np.arange(2)
    probe, _ = as_array(_call(impl, pos, pos[:1]), what="bias")
    if probe.shape != (spec.n_heads, 2, 1):
        raise InvalidImplementation(f"bias(q_positions, k_positions) returned shape {probe.shape} "
                                    f"for 2 queries and 1 key; expected ({spec.n_heads}, 2, 1)")
    gen_col, dt_c = as_array(_call(impl, np.arange(seq_len), np.arange(1)), what="bias",
                             finite=False)
    gen_row, dt_r = as_array(_call(impl, np.arange(1), np.arange(seq_len)), what="bias",
                             finite=False)
    gen = np.concatenate([gen_row[:, 0, :0:-1], gen_col[:, :, 0]], axis=1).astype(np.float64)
    delta = np.arange(-(seq_len - 1), seq_len)
    own = dt_c if dtype_eps(dt_c) >= dtype_eps(dt_r) else dt_r
    # a declared dtype coarser than the values' own widens the model to it (never narrows)
    judged = declared if declared is not None and dtype_eps(declared) > dtype_eps(own) else own
    spec_slopes = spec.slopes_array()
    slopes = (-gen_col[:, seq_len - 1, 0] / (seq_len - 1) if seq_len > 1
              else probe[:, 0, 0] - probe[:, 1, 0])

    def at(dtype: str) -> _Target:
        model = RoundingModel.of(spec, dtype)
        # every entry, once, against the spec's exact bias; a hypothesis (another slopes
        # vector, itself Toeplitz) then only needs the 2L − 1 generators, provided every entry
        # matched its own offset's exact bias within the model, i.e. the impl is Toeplitz
        full = toeplitz_bias_check(lambda q, k: _call(impl, q, k), spec_slopes, seq_len,
                                   tolerance=lambda d: model.tolerance(spec_slopes, d))

        def regen(s: np.ndarray) -> float:
            toeplitz = full["toeplitz_score"]
            if np.array_equal(s, spec_slopes):
                return max(full["score"], toeplitz)
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.abs(gen - (-s[:, None] * delta[None, :]))
                gscore = float(np.nanmax(err / model.tolerance(s, delta)))
            if not np.isfinite(gen).all():
                gscore = float("inf")
            return gscore if np.isfinite(gscore) and toeplitz <= 1 else max(gscore, toeplitz)
        target = _Target("pairwise-callable", regen, slopes)
        target.model, target.coverage, target.dtype = model, full, dtype
        w = full.get("worst") or {}
        target.worst_of = lambda: ({"head": w["head"], "i": w["i"], "j": w["j"],
                                    "delta": w["i"] - w["j"], "impl": w["impl"]}
                                   if w and np.isfinite(w.get("impl", np.nan)) else None)
        return target
    target = at(judged)
    read = stored_precision(gen, judged, reference=spec_slopes)
    if read is not None and dtype_eps(read) > dtype_eps(judged):
        target.at_read = (read, _LazyTarget(lambda: at(read)))
        target.precision_note = precision_note(read, judged, declared)
    return target


class _LazyTarget:
    """A target built on first use (a second full pass, on the failure path only)."""

    def __init__(self, build: Callable[[], _Target]):
        self._build, self._target = build, None

    def __getattr__(self, name: str) -> Any:
        if self._target is None:
            self._target = self._build()
        return getattr(self._target, name)


def _worst_sign(target: _Target, spec: Alibi) -> Sign | None:
    """The worst entry under the spec's slopes as a Sign the audit recomputes from the model:
    bound(u, k, η, m, Δ) − |impl − (−m·Δ)| > 0, every number exact."""
    w = target.worst_of()
    model = target.model
    if not w or model is None or not np.isfinite(w["impl"]):
        return None
    h = w["head"]
    m_exact = spec.slopes[h]
    u, k, eta = sp.Symbol("u"), sp.Symbol("k"), sp.Symbol("eta")
    m, d, v, c, span = (sp.Symbol(x) for x in ("m", "Delta", "v", "c", "span"))
    ref = sp.Integer(REFERENCE_ROUNDINGS) * sp.Rational(1, 2 ** 53)
    env: dict[Any, Any] = {"u": model.u, "eta": model.eta, "m": m_exact, "v": w["impl"]}
    if w.get("delta") is None:                                   # a slope
        kk = model.slope_k[h]
        bound = ((1 + u) ** k - 1) * m + k * eta + ref * m
        expr, label = bound - sp.Abs(v - m), f"slope of head {h}"
    elif "span" in w:                                            # key-only, constant free
        kk = model.k[h]
        bound = ((1 + u) ** k - 1) * m * span + k * eta / 2 * (1 + span) + ref * m * span
        expr = bound - sp.Abs(v - c - m * d)
        env.update({"Delta": w["delta"], "c": w["const"], "span": w["span"]})
        label = f"bias of row {w['row']} (head {h}) at key {w['key']} (c the row's constant)"
    else:
        kk = model.k[h]
        bound = ((1 + u) ** k - 1) * m * sp.Abs(d) + k * eta / 2 * (1 + sp.Abs(d)) \
            + ref * m * sp.Abs(d)
        expr = bound - sp.Abs(v + m * d)
        env["Delta"] = w["delta"]
        label = f"bias of head {h} at (i, j) = ({w['i']}, {w['j']})"
    env["k"] = kk
    text = model.text(slope_only=w.get("delta") is None)
    return Sign(f"{label}: model bound − |impl − exact| (the model: {text})", expr,
                "positive", env=env, engine="float64 comparison under the rounding model")


def _evidence(target: _Target, spec: Alibi, score: float) -> Evidence:
    """Exhaustive (or sampled, and saying so) entry-by-entry comparison under the stated
    rounding model; the worst entry goes to the audit as a Sign whose bound the audit
    recomputes from the model (u, k, η, the exact slope and Δ)."""
    cov = target.coverage
    details: dict[str, Any] = {"kind": target.kind, "worst_over_tolerance": score}
    if target.model is not None:
        details["rounding_model"] = target.model.to_dict()
    items: list[Sign | Spot] = []
    if score <= 1:
        sign = _worst_sign(target, spec)
        if sign is not None:
            items.append(sign)
    if cov is None:
        return Evidence("exhaustive comparison", "all", items=items, details=details)
    sample = cov["coverage"] == "sample"
    details.update(entries_evaluated=cov["entries_evaluated"],
                   entries_total=cov["entries_total"])
    return Evidence("exhaustive comparison", "sample" if sample else "all", items=items,
                    covered=cov["entries_evaluated"] if sample else None,
                    total=cov["entries_total"] if sample else None, details=details)



def check_alibi(impl: Any, *, n_heads: int, rule: str = "reference", alibi_bias_max: Any = 8,
                attention_mask: Any = None, seq_len: int = 64,
                dtype: str | None = None) -> AlibiReport:
    """Check ``impl`` against :func:`posproof.model.alibi.alibi` without raising.

    ``dtype``: the precision the impl computes in, when coarser than the dtype its values come
    in (``"float32"`` for a float32 bias handed over as float64); by default the values' own
    dtype.  Values that carry less precision than their dtype fail, and the failure says so
    (confirmed by judging them again at the precision read from them) with this option.
    """
    spec = alibi(n_heads, rule, alibi_bias_max)
    declared = None
    if dtype is not None:
        declared = angles_name(dtype)
        if declared not in ("float64", "float32", "float16", "bfloat16"):
            raise InvalidParameter(f"dtype={dtype!r}; use float64, float32, float16 or "
                                   "bfloat16")
    label = f"alibi({spec.n_heads}, rule={rule!r}" + (
        f", alibi_bias_max={spec.alibi_bias_max})" if rule == "mpt" else ")")
    if callable(impl) and not hasattr(impl, "shape"):
        target = _from_callable(impl, spec, seq_len, declared)
    else:
        arr, dtype = as_array(impl, what="ALiBi impl", finite=False)   # −inf above a causal
        if arr.ndim == 1 and not np.isfinite(arr).all():                # diagonal is fine
            raise InvalidParameter("slopes hold NaN or infinite values; pass finite slopes")
        target = _from_array(arr, dtype, spec, attention_mask, declared)
    score = target.regen(spec.slopes_array())
    upper = target.upper_of() if target.upper_of is not None and score <= 1 else None
    ok = score <= 1 and not (upper and upper["bad"])
    evidence = _evidence(target, spec, score)
    report = AlibiReport(ok, target.kind, spec.to_dict(),
                         [{"name": "alibi:values", "status": "pass" if ok else "fail",
                           "score": score}], evidence=evidence, dtype=target.dtype,
                         precision_note=target.precision_note)
    if target.dtype:
        evidence.details["judged_at"] = target.dtype
    model = target.model
    report.model = model.text(slope_only=target.kind == "slopes") if model is not None else ""
    report.slope_errors = _slope_errors(target, spec)
    if upper is not None:
        report.form = upper["form"]
        evidence.details["above_diagonal"] = {k: v for k, v in upper.items() if k != "form"}
    if upper is not None and upper["bad"]:
        report.explanation = upper["form"]
        report.explanations = [upper["form"]]
        report.message = (f"ALiBi impl disagrees with {label}: {upper['form']} "
                          f"(the lower triangle is within the model: {report.model})")
        return report
    if ok:
        if upper is not None and upper["partial"]:
            n_all = target.dense_size
            evidence.coverage, evidence.total = "sample", n_all
            evidence.covered = n_all - upper["partial"]
            evidence.details["partial_coverage"] = "lower triangle only"
        check = apply(Check("alibi:values", "pass", evidence=evidence))
        if check.status != "pass":
            report.ok, report.status, report.message = False, check.status, check.note or ""
        else:
            report.message = "; ".join(x for x in (target.precision_note, report.form,
                                                   f"within the model: {report.model}") if x)
        return report
    # every hypothesis is regenerated; all that reproduce the impl are named (none by order)
    candidates: list[tuple[str, Callable[[], float]]] = []
    if target.at_read is not None:
        read, at_read = target.at_read
        candidates.append((precision_explanation(read, target.dtype, f'dtype="{read}"'),
                           lambda: at_read.regen(spec.slopes_array())))
    # the bugs are regenerated at the precision the values carry (read from them)
    judging = target.at_read[1] if target.at_read is not None else target
    candidates += [(name, (lambda v: lambda: judging.regen(v))(slopes))
                   for name, slopes in _hypotheses(spec)]
    candidates += [(name, (lambda f: lambda: f(spec.slopes_array()))(f))
                   for name, f in judging.layouts.items()]
    if judging.mask_ignored is not None:
        mask_ignored = judging.mask_ignored
        candidates.append(("the attention mask ignored: positions arange(k), not "
                           "cumsum(mask) − 1 (shifts the keys after inner padding)",
                           lambda: mask_ignored(spec.slopes_array())))
    for name, score_of in candidates:
        s = score_of()
        report.hypotheses.append({"hypothesis": name, "score": s, "confirmed": s <= 1})
        if s <= 1:
            report.explanations.append(name)
    if report.explanations:
        report.explanation = " | ".join(report.explanations)
    if len(report.explanations) > 1:
        why = ("several explanations reproduce the impl (each confirmed by regeneration): "
               + "; ".join(report.explanations))
    elif report.explanations:
        why = f"most likely: {report.explanation}" + (
            "" if "— confirmed" in report.explanation else " (confirmed by regeneration)")
    else:
        found = (identify_alibi(target.slopes) if target.slopes.size
                 and np.isfinite(target.slopes).all() else None)
        said = (found["note"] if found and found["rule"] else
                "matches no known ALiBi rule" if found else "nothing")
        why = ("no explanation is confirmed by regeneration; identify_alibi on the slopes read "
               f"from the impl says: {said}")
    if not is_power_of_two(spec.n_heads) and report.explanation is None:
        why += f" (n_heads={spec.n_heads} is not a power of two: check the rule)"
    w = (target.coverage or {}).get("worst") or {}
    where = (f" at head {w['head']}, (i, j) = ({w['i']}, {w['j']}): impl {w['impl']!r}"
             if w and target.coverage.get("toeplitz_score", 0) > 1 else "")
    extra = f"\n{target.precision_note}" if target.precision_note else ""
    slope_line = _slope_line(report.slope_errors, model)
    report.message = (f"ALiBi impl disagrees with {label}: worst error {score:.3g}× the "
                      f"tolerance ({target.kind}, judged at {target.dtype or 'its dtype'})"
                      f"{where}\n{why}{extra}{slope_line}\nthe tolerance: {report.model}")
    return _audit_failure(report, target, spec)


def _audit_failure(report: AlibiReport, target: _Target, spec: Alibi) -> AlibiReport:
    """A fail's worst entry as the Sign ``|impl − exact| − model bound > 0`` the audit
    recomputes; a fail the audit does not confirm is unknown."""
    sign = _worst_sign(target, spec)
    if sign is None or report.evidence is None:
        return report
    label = sign.label.replace("model bound − |impl − exact|", "|impl − exact| − model bound")
    report.evidence.items.append(Sign(label, -sign.expr, "positive", env=sign.env,
                                      engine=sign.engine))
    check = apply(Check("alibi:values", "fail", evidence=report.evidence))
    if check.status != "fail":
        report.ok, report.status = False, check.status
        report.checks[0]["status"] = check.status
        report.message = f"{check.note}\n{report.message}"
    return report


def _slope_errors(target: _Target, spec: Alibi) -> list[dict[str, Any]]:
    """The slope of every head read from the data, against the rule's exact slope: relative
    error, and what the model allows for the slope alone (its formation roundings plus the
    reading's own: one rounding of the product)."""
    read = np.asarray(target.slopes, dtype=np.float64).reshape(-1)
    exact = spec.slopes_array()
    if read.shape != exact.shape or target.model is None:
        return []
    allowed = target.model.relative() if target.kind != "slopes" else \
        target.model.relative(slope_only=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = read / exact - 1
    def finite(v: float) -> float | None:                        # JSON-ready: no NaN
        return float(v) if np.isfinite(v) else None
    return [{"head": h, "read": finite(read[h]), "exact": float(exact[h]),
             "relative_error": finite(rel[h]), "allowed": float(allowed[h])}
            for h in range(len(exact))]


def _slope_line(errors: list[dict[str, Any]], model: RoundingModel | None) -> str:
    off = [e for e in errors if e["relative_error"] is None
           or not abs(e["relative_error"]) <= e["allowed"]]
    if not off:
        return ""
    worst = max(off, key=lambda e: np.inf if e["relative_error"] is None
                else abs(e["relative_error"]))
    if worst["relative_error"] is None:
        return (f"\nslopes read from the data: {len(off)} of {len(errors)} heads off the "
                f"rule's exact slope; head {worst['head']}'s is not a finite number")
    return (f"\nslopes read from the data: {len(off)} of {len(errors)} heads off the rule's "
            f"exact slope by more than the model allows; worst head {worst['head']}: "
            f"{worst['read']:.9g} vs 2^(−e) = {worst['exact']:.9g}, relative error "
            f"{worst['relative_error']:+.3g} (allowed ±{worst['allowed']:.3g})")


def assert_alibi(impl: Any, *, n_heads: int, rule: str = "reference", alibi_bias_max: Any = 8,
                 attention_mask: Any = None, seq_len: int = 64,
                 dtype: str | None = None) -> AlibiReport:
    """Raise ``AssertionError`` (with the explanation) unless ``impl`` is ALiBi under ``rule``."""
    report = check_alibi(impl, n_heads=n_heads, rule=rule, alibi_bias_max=alibi_bias_max,
                         attention_mask=attention_mask, seq_len=seq_len, dtype=dtype)
    if not report.ok:
        raise AssertionError(report.message)
    return report


def identify_alibi(slopes: Any) -> dict[str, Any]:
    """Name the rule of an unknown slopes vector: reference, MPT (with its alibi_bias_max), or
    a known wrong variant; each candidate confirmed by regeneration within the dtype's tolerance.

    >>> from posproof.model.alibi import alibi
    >>> identify_alibi(alibi(6, "mpt", 16).slopes_array())["rule"]
    'mpt'
    >>> identify_alibi(alibi(6).slopes_array())["note"]
    'the reference rule; MPT with alibi_bias_max=8 gives the same slopes for every n'
    """
    arr, dtype = as_array(slopes, what="slopes")
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidParameter(f"slopes of shape {arr.shape}; pass a 1-D vector, one per head")
    dtype = stored_precision(arr, dtype, reference=alibi(arr.size).slopes_array()) or dtype
    n = arr.size
    ref = alibi(n)
    model = RoundingModel.of(ref, dtype)
    if _compare(arr, ref.slopes_array(), model) <= 1:
        return {"rule": "reference", "n_heads": n, "alibi_bias_max": "8",
                "note": "the reference rule; MPT with alibi_bias_max=8 gives the same slopes "
                        "for every n"}
    q = 1 << (n - 1).bit_length()
    if arr[0] > 0:
        k_first = 1 if q == n else 2                       # MPT's first head is k = 2
        guess = Fraction(float(-np.log2(arr[0]) * q / k_first)).limit_denominator(64)
        if 0 < guess <= MAX_BIAS_MAX and _compare(
                arr, _exp2(mpt_exponents(n, guess)),
                RoundingModel.of(alibi(n, "mpt", guess), dtype)) <= 1:
            return {"rule": "mpt", "n_heads": n, "alibi_bias_max": str(guess),
                    "note": f"MPT's gen_slopes with alibi_bias_max={guess}"}
    confirmed = [name for name, cand in _hypotheses(ref) if _compare(arr, cand, model) <= 1]
    if confirmed:
        return {"rule": "variant", "n_heads": n, "alibi_bias_max": None,
                "note": "; ".join(confirmed)}
    return {"rule": None, "n_heads": n, "alibi_bias_max": None,
            "note": "matches no known ALiBi rule"}
