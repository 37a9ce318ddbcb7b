"""Check a T5 relative-position bucket function against the exact buckets.

``fn(relative_position, bidirectional=…, num_buckets=…, max_distance=…)`` (HF's
``T5Attention._relative_position_bucket`` signature; a function of ``relative_position``
alone is called with it alone) is evaluated at every Δ with |Δ| ≤ ``up_to`` (default
2·max_distance, at most 4·10⁶; torch tensors when torch is installed, else NumPy arrays)
and compared with :class:`~posproof.model.t5_buckets.T5Buckets`.  ``dtype="float32"``
accepts HF's float32 log ratio where it rounds across a boundary (the distances are
listed).  On a mismatch each candidate explanation (float32 / float16 arithmetic,
max_exact off by one, a missing or reversed sign split, causal ↔ bidirectional,
num_buckets not halved) regenerates the buckets, and one is named only when it
reproduces the impl at every Δ.

>>> from posproof.model.t5_buckets import T5Buckets
>>> exact = T5Buckets(32, 128)
>>> assert_t5_buckets(lambda d: exact.buckets(d), use_torch=False).ok
True
>>> unsplit = T5Buckets(16, 128, bidirectional=False)
>>> assert_t5_buckets(lambda d: unsplit.buckets(-abs(d)), use_torch=False)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AssertionError: T5 buckets (num_buckets=32, max_distance=128, bidirectional): ... the sign \
split is missing: Δ and −Δ share a bucket; bidirectional buckets add num_buckets // 2 = 16 for Δ > 0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...audit import apply
from ...errors import check_int
from ...measure.t5_dtype import boundary_evidence, float_buckets
from ...model.t5_buckets import DEFAULT_UP_TO_CAP, T5Buckets, magnitude_starts
from ...report import Check, Report
from ..core.reports import InvalidImplementation

__all__ = ["assert_t5_buckets", "call_array_fn", "check_t5_buckets"]


def call_array_fn(fn: Callable[..., Any], array: np.ndarray, use_torch: bool | None = None,
                  **kwargs: Any) -> np.ndarray:
    """Call ``fn`` on ``array`` (as a torch tensor when torch is installed and ``use_torch``
    is not False) with ``kwargs`` if it takes them, and return the result as a NumPy array
    of the input's shape."""
    tensor: Any = array
    if use_torch is not False:
        try:
            import torch

            tensor = torch.as_tensor(array)
        except ImportError:
            if use_torch:
                raise InvalidImplementation("use_torch=True but torch is not installed") from None
    try:
        try:
            out = fn(tensor, **kwargs) if kwargs else fn(tensor)
        except TypeError:
            if not kwargs:
                raise
            out = fn(tensor)
    except Exception as exc:  # the user's code: report what it raised, in one line
        raise InvalidImplementation(f"the implementation raised {type(exc).__name__}: "
                                    f"{str(exc).splitlines()[0] if str(exc) else ''}") from None
    if hasattr(out, "detach"):
        out = out.detach().cpu().numpy()
    out = np.asarray(out)
    if out.shape != array.shape:
        raise InvalidImplementation(f"the implementation returned shape {out.shape} for input "
                                    f"shape {array.shape}")
    return out


def _signed(spec: T5Buckets, d: np.ndarray, mag: Callable[[np.ndarray], np.ndarray],
            bidirectional: bool, per: int, reverse: bool = False) -> np.ndarray:
    if bidirectional:
        side = (d < 0) if reverse else (d > 0)
        return mag(np.abs(d)) + side * per
    return mag(np.maximum(-d, 0))


def _starts_fn(starts: tuple[int, ...]) -> Callable[[np.ndarray], np.ndarray]:
    arr = np.asarray(starts, dtype=np.int64)
    return lambda n: np.searchsorted(arr, n, side="right").astype(np.int64) - 1


def _hypotheses(spec: T5Buckets, d: np.ndarray) -> list[tuple[str, np.ndarray]]:
    per, me, md, bi = spec.per_direction, spec.max_exact, spec.max_distance, spec.bidirectional
    exact_mag = spec.magnitude_buckets
    out = []
    for dt in ("float32", "float16"):
        out.append((f"{dt}: the log ratio is computed in {dt} and truncated, which moves "
                    "these distances across a boundary",
                    _signed(spec, d, lambda n, dt=dt: float_buckets(spec, n, dt), bi, per)))
    for m2 in (me - 1, me + 1):
        if 1 <= m2 < per and md > m2:
            out.append((f"max_exact is off by one: the impl uses max_exact = {m2} instead of "
                        f"{per} // 2 = {me}",
                        _signed(spec, d, _starts_fn(magnitude_starts(m2, per, md)), bi, per)))
    if bi:
        out.append((f"the sign split is missing: Δ and −Δ share a bucket; bidirectional buckets "
                    f"add num_buckets // 2 = {per} for Δ > 0",
                    _signed(spec, d, exact_mag, True, 0)))
        out.append((f"the sign split is reversed: the impl adds {per} for Δ < 0 instead of Δ > 0",
                    _signed(spec, d, exact_mag, True, per, reverse=True)))
        causal = T5Buckets(spec.num_buckets, md, False)
        out.append(("the impl is causal (bidirectional=False) but bidirectional was declared",
                    causal.buckets(d)))
        full = spec.num_buckets
        if md > full // 2:
            out.append((f"num_buckets is not halved per direction: the impl uses {full} buckets "
                        f"per side",
                        _signed(spec, d, _starts_fn(magnitude_starts(full // 2, full, md)),
                                True, full)))
    elif spec.num_buckets >= 4 and md > spec.num_buckets // 4:
        out.append(("the impl is bidirectional but causal (bidirectional=False) was declared",
                    T5Buckets(spec.num_buckets, md, True).buckets(d)))
    return out


def _bucket_sign(spec: T5Buckets, d: np.ndarray, got: np.ndarray, exact: np.ndarray,
                 bad: np.ndarray | None) -> Any:
    """The buckets as a Sign the audit recomputes from the impl's integers: Σ|impl − exact|
    over the first differing Δ (positive: a fail), or over every Δ at a bucket boundary (a
    bucket's start and the Δ before it, both signs) for a pass (below 1/2: 0)."""
    import sympy as sp

    from ...evidence import Sign

    if bad is not None and bad.size:
        where, text = bad[:64], "the first differing Δ"
    else:
        starts = np.asarray(spec.starts, dtype=np.int64)
        near = np.concatenate([starts, starts - 1, -starts, 1 - starts])
        where = np.flatnonzero(np.isin(d, near))
        text = "every Δ at a bucket boundary in range"
    expr: Any = sp.Integer(0)
    env: dict[str, int] = {}
    for i in where:
        env[f"b_{i}"] = int(got[i])
        expr += sp.Abs(sp.Symbol(f"b_{i}") - int(exact[i]))
    if bad is not None and bad.size:
        return Sign(f"Σ|impl bucket − exact bucket| at {text} ({where.size} Δ)", expr,
                    "positive", env=env, engine="exact integers")
    # integers: a sum below 1/2 is 0 (a point check, not an identity in the symbols)
    return Sign(f"1/2 − Σ|impl bucket − exact bucket| at {text} ({where.size} Δ)",
                sp.Rational(1, 2) - expr, "positive", env=env, engine="exact integers")


def check_t5_buckets(fn: Callable[..., Any], num_buckets: int = 32, max_distance: int = 128, *,
                     bidirectional: bool = True, up_to: int | None = None,
                     dtype: str | None = None, use_torch: bool | None = None) -> Report:
    """Compare ``fn`` with the exact buckets at every |Δ| ≤ ``up_to``; never raises on a
    mismatch (see :func:`assert_t5_buckets`)."""
    spec = T5Buckets(num_buckets, max_distance, bidirectional)
    up_to = (min(2 * spec.max_distance, DEFAULT_UP_TO_CAP) if up_to is None
             else check_int("up_to", up_to, minimum=1, maximum=10**7))
    if dtype not in (None, "float32", "float16"):
        from ...errors import InvalidParameter

        raise InvalidParameter(f"dtype={dtype!r}: declare float32 or float16 (or nothing)")
    d = np.arange(-up_to, up_to + 1, dtype=np.int64)
    got = call_array_fn(fn, d, use_torch, bidirectional=bidirectional,
                        num_buckets=num_buckets, max_distance=max_distance)
    if got.dtype.kind not in "iu":
        raise InvalidImplementation(f"the implementation returned {got.dtype} buckets; "
                                    "buckets are integers")
    got = got.astype(np.int64)
    exact = spec.buckets(d)
    bad = np.flatnonzero(got != exact)
    values: dict[str, Any] = {"up_to": up_to, "n_differ": int(bad.size),
                              "differ": [{"delta": int(d[i]), "impl": int(got[i]),
                                          "exact": int(exact[i])} for i in bad[:8]]}
    status, note = "pass", None
    if bad.size:
        declared = None
        if dtype is not None:
            emulated = _signed(spec, d, lambda n: float_buckets(spec, n, dtype),
                               bidirectional, spec.per_direction)
            if np.array_equal(got, emulated):
                declared = dtype
        where = ", ".join(f"Δ={v['delta']}: impl {v['impl']}, exact {v['exact']}"
                          for v in values["differ"][:4])
        if declared:
            note = (f"differs from exact arithmetic at {bad.size} Δ ({where}), all explained "
                    f"by the declared {declared} log ratio")
        else:
            status = "fail"
            # every hypothesis regenerates the buckets at every Δ; all that reproduce the impl
            # are named (none wins by its place in the list)
            named = [text for text, alt in _hypotheses(spec, d) if np.array_equal(got, alt)]
            values["explanations"] = named
            if len(named) > 1:
                why = ("several explanations reproduce the impl at every Δ: "
                       + "; ".join(named))
            elif named:
                why = f"most likely: {named[0]}"
            else:
                why = ("no explanation confirmed (none of: float32/float16 log ratio, "
                       "max_exact ± 1, sign split missing or reversed, causal ↔ "
                       "bidirectional, num_buckets not halved)")
            floats = [t.split(":")[0] for t in named if t.startswith(("float32:", "float16:"))]
            if floats and dtype is None:      # a precision, not a bug: the option that says so
                why += (f" — if the impl computes the log ratio in {floats[0]} on purpose (as "
                        f'HF does), pass dtype="{floats[0]}": the check then accepts exactly '
                        "those distances")
            note = f"{bad.size} of {d.size} relative positions get another bucket ({where}); {why}"
    values["summary"] = (f"{'equal' if not bad.size else 'differs'} at every |Δ| ≤ {up_to}"
                         if status == "pass" and not bad.size else note or "")
    evidence = boundary_evidence(spec, up_to, int(d.size))
    reference = exact if not bad.size or status == "fail" else got   # declared: its buckets
    evidence.items.append(_bucket_sign(spec, d, got, reference, bad if status == "fail"
                                       else None))
    check = Check("t5_buckets", status, values, note=note,
                  certified="exact integer buckets at every Δ, no tolerance",
                  evidence=evidence)
    return Report(spec.to_dict(), [], [apply(check)])


def assert_t5_buckets(fn: Callable[..., Any], num_buckets: int = 32, max_distance: int = 128,
                      **kwargs: Any) -> Report:
    """Raise ``AssertionError`` (saying what is wrong) unless ``fn`` gives the exact buckets;
    return the report otherwise.  Keywords as :func:`check_t5_buckets`."""
    report = check_t5_buckets(fn, num_buckets, max_distance, **kwargs)
    if not report.ok:
        spec = T5Buckets(num_buckets, max_distance, kwargs.get("bidirectional", True))
        side = "bidirectional" if spec.bidirectional else "causal"
        raise AssertionError(f"T5 buckets (num_buckets={spec.num_buckets}, max_distance="
                             f"{spec.max_distance}, {side}): {report.checks[0].note}")
    return report
