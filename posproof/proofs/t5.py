"""What is proved about T5 relative position buckets, in integers, for one configuration.

Each theorem is a :class:`~posproof.report.Proof` whose steps give the argument (valid for
every Δ) and whose ``crosscheck`` is an exhaustive check of every Δ with |Δ| ≤ ``up_to``
(default 2·max_distance) against a direct evaluation of the floor, decided by integer
powers: ⌊R·log(n/m)/log(D/m)⌋ ≥ k ⇔ n^R ≥ D^k·m^(R−k).

>>> from posproof.model.t5_buckets import T5Buckets
>>> [(p.name, p.status) for p in prove_t5(T5Buckets(32, 128))]  # doctest: +NORMALIZE_WHITESPACE
[('t5:boundaries_exact', 'proved'), ('t5:exact_below_max_exact', 'proved'),
 ('t5:monotone', 'proved'), ('t5:sign_split', 'proved'), ('t5:saturation', 'proved'),
 ('t5:nonempty', 'proved')]
>>> prove_t5(T5Buckets(32, 128))[-1].values["empty_buckets"]
[16]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ..audit import apply
from ..errors import check_int
from ..evidence import Evidence, Sign
from ..model.t5_buckets import DEFAULT_UP_TO_CAP, T5Buckets, bigint, log_targets
from ..report import Proof, Step

__all__ = ["T5_THEOREMS", "direct_bucket", "prove_t5"]

T5_THEOREMS = ("boundaries_exact", "exact_below_max_exact", "monotone", "sign_split",
               "saturation", "nonempty")


def direct_bucket(spec: T5Buckets, n: int) -> int:
    """The magnitude bucket of n ≥ 0 straight from the definition, in integers: m + the
    largest k < R with n^R ≥ T_k = D^k·m^(R−k) (a binary search over k: T_k increases with
    k since D > m), never from the bucket starts it is checked against."""
    m, per, d = spec.max_exact, spec.per_direction, spec.max_distance
    if n < m:
        return n
    r = per - m
    targets = log_targets(m, per, d)
    power = bigint()(n) ** r
    lo, hi = 0, r - 1                       # T_0 = m^R ≤ n^R: k = 0 holds
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if power >= targets[mid]:
            lo = mid
        else:
            hi = mid - 1
    return m + lo


def _crosscheck(spec: T5Buckets, up_to: int) -> tuple[dict[str, Any], np.ndarray]:
    n = np.arange(up_to + 1, dtype=np.int64)
    fast = spec.magnitude_buckets(n)
    # the direct evaluation at every start and its neighbours, plus a sample in between
    starts = np.asarray(spec.starts, dtype=np.int64)
    probe = np.unique(np.clip(np.concatenate([starts - 1, starts, starts + 1,
                                              np.linspace(0, up_to, 257).astype(np.int64)]),
                              0, up_to))
    bad = [int(i) for i in probe if direct_bucket(spec, int(i)) != int(fast[i])]
    return ({"method": "exact integers", "checked_magnitudes": f"0…{up_to}",
             "direct_evaluations": int(probe.size), "disagreements": bad[:5]}, fast)


def prove_t5(spec: T5Buckets, *, theorems: Any = None, up_to: int | None = None
             ) -> list[Proof]:
    """Prove the bucket properties of ``spec`` (all of :data:`T5_THEOREMS`, or ``theorems``)."""
    from ..errors import UnknownName

    names = list(theorems or T5_THEOREMS)
    for name in names:
        if name.removeprefix("t5:") not in T5_THEOREMS:
            raise UnknownName(f"theorem {name!r} is not a T5 theorem; choose from "
                              f"{', '.join(T5_THEOREMS)}")
    up_to = (min(2 * spec.max_distance, DEFAULT_UP_TO_CAP) if up_to is None
             else check_int("up_to", up_to, minimum=1, maximum=10**8))
    cc, fast = _crosscheck(spec, up_to)
    m, per, d = spec.max_exact, spec.per_direction, spec.max_distance
    r, starts = per - m, spec.starts
    out = []
    for name in (n.removeprefix("t5:") for n in names):
        steps: list[Step] = []
        values: dict[str, Any] | None = None
        ok = not cc["disagreements"]
        if name == "boundaries_exact":
            statement = (f"log bucket {m}+k starts at the least n with n^{r} ≥ {d}^k·{m}^({r}−k) "
                         f"(k = 0…{r - 1})")
            steps.append(Step("for n ≥ m: ⌊R·log(n/m)/log(D/m)⌋ ≥ k ⇔ (n/m)^R ≥ (D/m)^k ⇔ "
                              "n^R ≥ D^k·m^(R−k) (log increasing, D > m, both sides > 0)",
                              "monotone log, integer powers"))
            big = bigint()
            for s, t in zip(starts[m:], log_targets(m, per, d), strict=True):
                ok = ok and big(s) ** r >= t and big(s - 1) ** r < t
            steps.append(Step(f"each start s_k satisfies s_k^R ≥ T_k > (s_k − 1)^R in integers "
                              f"(checked for all {r} of them)", "integer arithmetic"))
            values = {"starts": list(starts)}
        elif name == "exact_below_max_exact":
            statement = f"bucket(|Δ|) = |Δ| for |Δ| < max_exact = {m}"
            steps.append(Step("n < max_exact takes the is_small branch: bucket n", "definition"))
            ok = ok and list(fast[:m]) == list(range(m))
        elif name == "monotone":
            statement = "the magnitude bucket is non-decreasing in |Δ|"
            steps.append(Step("n ↦ n on the exact part, n ↦ m + min(R−1, ⌊R·log(n/m)/log(D/m)⌋) "
                              "on the log part: compositions of non-decreasing maps; the two "
                              "parts meet at n = m with bucket m (⌊0⌋ = 0)", "monotonicity"))
            ok = ok and bool(np.all(np.diff(fast) >= 0)) and list(starts) == sorted(starts)
        elif name == "sign_split":
            if spec.bidirectional:
                statement = (f"Δ > 0 goes to buckets {per}…{2 * per - 1}, Δ ≤ 0 to 0…{per - 1}; "
                             "bucket(Δ) = bucket(−Δ) + h for Δ > 0")
                steps.append(Step(f"bucket(Δ) = [Δ > 0]·{per} + f(|Δ|) with 0 ≤ f < {per}",
                                  "definition"))
                dd = np.arange(-up_to, up_to + 1, dtype=np.int64)
                b = spec.buckets(dd)
                ok = ok and bool(np.all((b >= per) == (dd > 0)))
            else:
                statement = ("causal: every Δ ≥ 0 goes to bucket 0 "
                             "(no sign split, the future is clamped)")
                steps.append(Step("n = max(−Δ, 0) = 0 for Δ ≥ 0, and f(0) = 0", "definition"))
                ok = ok and spec.bucket(up_to) == 0 and spec.bucket(1) == 0
        elif name == "saturation":
            statement = (f"every |Δ| ≥ max_distance = {d} is in the last bucket {per - 1} of its "
                         f"side (reached from |Δ| = {starts[-1]})")
            steps.append(Step(f"n ≥ D ⇒ (n/m)^R ≥ (D/m)^R ⇒ the floor is ≥ R ⇒ clipped to "
                              f"m + R − 1 = {per - 1}", "monotone log, clip"))
            ok = ok and starts[-1] <= d and bool(np.all(fast[d:] == per - 1))
        else:                                           # nonempty
            empty = list(spec.empty_buckets)
            why = []
            if spec.bidirectional:
                why.append(f"{per} is the positive side's |Δ| = 0, which no Δ > 0 reaches")
            if spec.num_buckets > (2 if spec.bidirectional else 1) * per:
                why.append(f"{spec.num_buckets - 1} is left over by an odd num_buckets")
            statement = ("every bucket holds at least one relative position"
                         + (f" except {empty} ({'; '.join(why) or 'equal log starts'})"
                            if empty else ""))
            steps.append(Step("bucket b is empty exactly when its range of Δ is empty: "
                              "equal consecutive starts, or a side that cannot occur",
                              "exact table"))
            values = {"empty_buckets": empty}
        proof = Proof(f"t5:{name}", statement, "proved" if ok else "unknown", steps,
                      crosscheck=cc, general=False, values=values,
                      note=None if ok else "the exhaustive integer check disagreed",
                      evidence=_evidence(spec, name, cc) if ok else None)
        out.append(apply(proof))
    return out


_S, _T, _D, _MM, _R, _K = sp.symbols("s T D m R k", integer=True)


def _evidence(spec: T5Buckets, name: str, cc: dict[str, Any]) -> Evidence:
    """Exact integers decided each theorem; the deciding inequalities of the last log
    bucket (and saturation) go to the audit as exact signs."""
    m, per, d = spec.max_exact, spec.per_direction, spec.max_distance
    r, starts = per - m, spec.starts
    items: list[Sign] = []
    if name == "boundaries_exact" and r > 0:
        k, s = r - 1, starts[-1]
        env = {_S: s, _D: d, _MM: m, _R: r, _K: k}
        above = _S ** _R - _D ** _K * _MM ** (_R - _K)
        big_pos = bigint()(s) ** r - log_targets(m, per, d)[k]
        items.append(Sign(f"s_{k}^R − D^{k}·m^(R−{k}) (≥ 0: bucket {m + k} starts at {s})",
                          above, "positive" if big_pos > 0 else "zero", env=env,
                          engine="exact integers"))
        items.append(Sign(f"D^{k}·m^(R−{k}) − (s_{k} − 1)^R (> 0: nothing below {s})",
                          _D ** _K * _MM ** (_R - _K) - (_S - 1) ** _R, "positive", env=env,
                          engine="exact integers"))
    elif name == "saturation":
        items.append(Sign("max_distance − last start", _D - _S,
                          "positive" if d > starts[-1] else "zero",
                          env={_D: d, _S: starts[-1]}, engine="exact integers"))
    coverage = "all" if name == "boundaries_exact" else "structural"
    return Evidence("exact integers", coverage, items=items,
                    unaudited=None if items else "Python integer arithmetic on the bucket "
                    "starts and magnitudes: no rounding to re-check",
                    details={"starts_checked": len(starts) - m,
                             "crosscheck": cc["checked_magnitudes"],
                             "direct_evaluations": cc["direct_evaluations"]})
