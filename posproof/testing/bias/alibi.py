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

The values are judged at their working precision, read from the data (a float32 bias handed
over as float64 is judged at float32's tolerance, and the report says so: see
:mod:`posproof.testing.core.precision`).  A failure names an explanation only when regenerating
the impl's output under that hypothesis reproduces it within the dtype's tolerance, and names
every one that does (none wins by its place in the list): another rule for a non-power-of-two
head count (geometric 2^(−8(h+1)/n), the first n slopes of the next power of two, MPT with
another ``alibi_bias_max`` or the reference rule), slopes reversed, the sign flipped, the power
off by one, slopes rounded to bfloat16 or float16, query and key axes swapped, the attention
mask ignored.  A dense bias says what it holds above the diagonal (``form``: the causal
triangle masked, or the symmetric −m·|i − j| of a bidirectional ALiBi).

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
"""  # noqa: E501

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ...audit import apply
from ...errors import InvalidParameter
from ...evidence import Evidence, Spot, sampled_label
from ...measure.alibi import bias_tolerance, toeplitz_bias_check
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

    def __post_init__(self) -> None:
        if not self.status:
            self.status = "pass" if self.ok else "fail"

    @property
    def label(self) -> str:
        """The verdict as printed: a sampled pass says so, never a bare "pass"."""
        ev = self.evidence
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


def _compare(got: np.ndarray, want: np.ndarray, eps: float) -> float:
    return float(np.max(np.abs(got - want) / ((8 + 2 * len(want)) * eps * np.abs(want)
                                              + 1e-300)))


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
        #: what a dense bias holds above the diagonal, named (see :func:`_form`)
        self.form_of: Callable[[], str] = lambda: ""
        #: further hypotheses on the layout of the output (not on the slopes): name -> score
        self.layouts: dict[str, Callable[[np.ndarray], float]] = {}


def _key_only(values: np.ndarray, positions: np.ndarray, real: np.ndarray, eps: float,
              heads: int) -> Callable[[np.ndarray], float]:
    """Score of m·p_j + c_row against values (rows × k) on real keys, c_row free."""
    def score(slopes_rows: np.ndarray) -> float:
        pred = slopes_rows[:, None] * positions
        resid = np.where(real, values - pred, np.nan)
        const = np.nanmean(resid, axis=1, keepdims=True)
        err = np.where(real, np.abs(resid - const), 0.0)
        top = np.max(np.abs(positions), axis=1, keepdims=True)     # the constant's error
        scale = np.abs(slopes_rows)[:, None] * (top + np.abs(const) + 1)
        return float(np.max(err / ((8 + 2 * heads) * eps * scale + 1e-300)))
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


def _form(arr: np.ndarray, delta: np.ndarray, slopes: np.ndarray, eps: float) -> str:
    """What a dense bias holds above the diagonal (j > i), named."""
    upper = delta[None] < 0
    if not upper.any():
        return ""
    vals = arr[np.broadcast_to(upper, arr.shape)]
    if np.all(np.isneginf(vals)) or np.all(vals <= -1e4):
        return "causal: the triangle above the diagonal (j > i) masked"
    if np.all(vals == 0):
        return "causal: zero above the diagonal (the mask applied elsewhere)"
    tol = bias_tolerance(slopes, delta, eps)
    with np.errstate(invalid="ignore"):
        sym = np.abs(arr + slopes[:, None, None] * np.abs(delta)[None])
        cont = np.abs(arr + slopes[:, None, None] * delta[None])
    if np.all((sym <= tol)[np.broadcast_to(upper, arr.shape)]):
        return "symmetric −m·|i − j| (bidirectional ALiBi): the upper triangle matches too"
    if np.all((cont <= tol)[np.broadcast_to(upper, arr.shape)]):
        return ("−m·(i − j) continued above the diagonal (+m·(j − i) there: not causal, and "
                "not the symmetric −m·|i − j| of a bidirectional ALiBi)")
    return "above the diagonal: neither masked nor −m·|i − j|"


def _from_array_at(arr: np.ndarray, dtype: str, spec: Alibi, mask: Any) -> _Target:
    n, eps = spec.n_heads, dtype_eps(dtype)
    if arr.ndim == 1:
        if arr.shape[0] != n:
            raise InvalidParameter(f"slopes of length {arr.shape[0]}, but n_heads={n}; pass one "
                                   "slope per head")
        return _Target("slopes", lambda s: _compare(arr, s, eps), arr)
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
        score = _key_only(arr[:, 0, :], pos, real, eps, n)
        plain = _key_only(arr[:, 0, :], np.broadcast_to(np.arange(m.shape[1]), pos.shape),
                          real, eps, n)
        return _Target("bloom-tensor", lambda s: score(np.tile(s, m.shape[0])),
                       arr[:n, 0, 1] - arr[:n, 0, 0] if arr.shape[2] > 1 else arr[:n, 0, 0],
                       lambda s: plain(np.tile(s, m.shape[0])))
    if arr.shape[0] != n:
        raise InvalidParameter(f"bias of shape {arr.shape} has {arr.shape[0]} heads, but "
                               f"n_heads={n}")
    if arr.shape[1] == 1:
        k = arr.shape[2]
        score = _key_only(arr[:, 0, :], np.broadcast_to(np.arange(k), (n, k)),
                          np.ones((n, k), bool), eps, n)
        return _Target("key-only-tensor", score,
                       arr[:, 0, 1] - arr[:, 0, 0] if k > 1 else arr[:, 0, 0])
    q, k = arr.shape[1:]
    delta = np.arange(q)[:, None] - np.arange(k)[None, :]
    causal = delta[None] >= 0

    def dense_of(values: np.ndarray) -> Callable[[np.ndarray], float]:
        def dense(s: np.ndarray) -> float:
            with np.errstate(invalid="ignore"):
                err = np.where(causal, np.abs(values + s[:, None, None] * delta[None]), 0.0)
            if not np.isfinite(err).all():
                return float("inf")
            return float(np.max(err / bias_tolerance(s, delta, eps)))
        return dense
    target = _Target("bias-tensor", dense_of(arr),
                     arr[:, 0, 0] - arr[:, 1, 0] if q > 1 else arr[:, 0, 0])
    if q == k:     # named once the causal part matched (check_alibi)
        target.form_of = lambda: _form(arr, delta, spec.slopes_array(), eps)
    if q == k and q > 1:
        swapped = dense_of(np.swapaxes(arr, 1, 2))
        target.layouts["query and key axes swapped (bias[h, j, i]: the triangle above the "
                       "diagonal holds the causal part)"] = swapped
    return target


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
    probe, probe_dtype = as_array(_call(impl, pos, pos[:1]), what="bias")
    if probe.shape != (spec.n_heads, 2, 1):
        raise InvalidImplementation(f"bias(q_positions, k_positions) returned shape {probe.shape} "
                                    f"for 2 queries and 1 key; expected ({spec.n_heads}, 2, 1)")
    slopes = probe[:, 0, 0] - probe[:, 1, 0]
    # every entry, once, against the spec's exact bias; a hypothesis (another slopes vector,
    # itself Toeplitz) then only needs the 2L − 1 generators, provided every entry matched
    # its own offset's exact bias within tolerance, i.e. the impl is Toeplitz
    # a declared dtype coarser than the values' own widens the tolerance to it (never narrows)
    eps_declared = (dtype_eps(declared) if declared is not None
                    and dtype_eps(declared) > dtype_eps(probe_dtype) else None)
    full = toeplitz_bias_check(lambda q, k: _call(impl, q, k), spec.slopes_array(), seq_len,
                               eps=eps_declared)
    gen_col, dt_c = as_array(_call(impl, np.arange(seq_len), np.arange(1)), what="bias")
    gen_row, dt_r = as_array(_call(impl, np.arange(1), np.arange(seq_len)), what="bias")
    gen = np.concatenate([gen_row[:, 0, :0:-1], gen_col[:, :, 0]], axis=1).astype(np.float64)
    delta = np.arange(-(seq_len - 1), seq_len)
    eps = max(dtype_eps(dt_c), dtype_eps(dt_r), eps_declared or 0.0)
    spec_slopes = spec.slopes_array()

    def regen_at(e: float) -> Callable[[np.ndarray], float]:
        # the comparison's tolerance is linear in eps: at eps e the scores scale by eps / e
        factor = eps / e

        def regen(s: np.ndarray) -> float:
            toeplitz = full["toeplitz_score"] * factor
            if np.array_equal(s, spec_slopes):
                return max(full["score"], full["toeplitz_score"]) * factor
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.abs(gen - (-s[:, None] * delta[None, :]))
                gscore = float(np.nanmax(err / bias_tolerance(s, delta, e)))
            return gscore if np.isfinite(gscore) and toeplitz <= 1 else max(gscore, toeplitz)
        return regen
    target = _Target("pairwise-callable", regen_at(eps), slopes)
    target.dtype = declared if eps_declared is not None else (
        dt_c if dtype_eps(dt_c) >= dtype_eps(dt_r) else dt_r)
    # the precision the values carry: comparable only when the measure judged them at eps
    # (NumPy outputs or a declared dtype; it takes float32's eps for any torch tensor)
    numpy_out = imported_torch() is None or not any(
        isinstance(v, imported_torch().Tensor) for v in (_call(impl, pos[:1], pos[:1]),))
    read = stored_precision(gen, target.dtype, reference=spec_slopes)
    if read is not None and dtype_eps(read) > eps and (numpy_out or eps_declared is not None):
        at_read = _Target("pairwise-callable", regen_at(dtype_eps(read)), slopes)
        at_read.coverage = full
        target.at_read = (read, at_read)
        target.precision_note = precision_note(read, target.dtype, declared)
    target.coverage = full
    return target


def _evidence(target: _Target, spec: Alibi, score: float) -> Evidence:
    """Exhaustive (or sampled, and saying so) entry-by-entry comparison; the worst entry of a
    pairwise callable goes to the audit as a Spot: |−m_h·(i − j) − impl| ≤ tolerance."""
    cov = target.coverage
    if cov is None:
        return Evidence("exhaustive comparison", "all", details={"kind": target.kind,
                                                                  "worst_over_tolerance": score})
    items = []
    w = cov.get("worst") or {}
    if w and np.isfinite(w.get("impl", np.nan)) and cov["status"] == "pass":
        from ...proofs.alibi import SYMBOL_I as _I
        from ...proofs.alibi import SYMBOL_J as _J
        from ...proofs.alibi import SYMBOL_M as _M

        items.append(Spot(f"bias of head {w['head']} at (i, j) = ({w['i']}, {w['j']})",
                          -_M * (_I - _J), w["impl"], w["tolerance"],
                          env={_M: spec.slopes[w["head"]], _I: w["i"], _J: w["j"]},
                          engine="float64 impl value within the dtype's tolerance"))
    sample = cov["coverage"] == "sample"
    return Evidence("exhaustive comparison", "sample" if sample else "all", items=items,
                    covered=cov["entries_evaluated"] if sample else None,
                    total=cov["entries_total"] if sample else None,
                    details={"kind": target.kind, "entries_evaluated": cov["entries_evaluated"],
                             "entries_total": cov["entries_total"],
                             "worst_over_tolerance": score})


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
    ok = score <= 1
    evidence = _evidence(target, spec, score)
    report = AlibiReport(ok, target.kind, spec.to_dict(),
                         [{"name": "alibi:values", "status": "pass" if ok else "fail",
                           "score": score}], evidence=evidence, dtype=target.dtype,
                         precision_note=target.precision_note)
    if target.dtype:
        evidence.details["judged_at"] = target.dtype
    if ok:
        check = apply(Check("alibi:values", "pass", evidence=evidence))
        if check.status != "pass":
            report.ok, report.status, report.message = False, check.status, check.note or ""
        else:
            report.form = target.form_of()
            report.message = "; ".join(x for x in (target.precision_note, report.form) if x)
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
        found = identify_alibi(target.slopes) if target.slopes.size else None
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
    report.message = (f"ALiBi impl disagrees with {label}: worst error {score:.3g}× the "
                      f"tolerance ({target.kind}, judged at {target.dtype or 'its dtype'})"
                      f"{where}\n{why}{extra}")
    return report


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
    n, eps = arr.size, dtype_eps(dtype)
    ref = alibi(n)
    if _compare(arr, ref.slopes_array(), eps) <= 1:
        return {"rule": "reference", "n_heads": n, "alibi_bias_max": "8",
                "note": "the reference rule; MPT with alibi_bias_max=8 gives the same slopes "
                        "for every n"}
    q = 1 << (n - 1).bit_length()
    if arr[0] > 0:
        k_first = 1 if q == n else 2                       # MPT's first head is k = 2
        guess = Fraction(float(-np.log2(arr[0]) * q / k_first)).limit_denominator(64)
        if 0 < guess <= MAX_BIAS_MAX and _compare(arr, _exp2(mpt_exponents(n, guess)),
                                                  eps) <= 1:
            return {"rule": "mpt", "n_heads": n, "alibi_bias_max": str(guess),
                    "note": f"MPT's gen_slopes with alibi_bias_max={guess}"}
    confirmed = [name for name, cand in _hypotheses(ref) if _compare(arr, cand, eps) <= 1]
    if confirmed:
        return {"rule": "variant", "n_heads": n, "alibi_bias_max": None,
                "note": "; ".join(confirmed)}
    return {"rule": None, "n_heads": n, "alibi_bias_max": None,
            "note": "matches no known ALiBi rule"}
