"""The base search's faster paths (issue 27 §6) compute the same numbers as the code before
them, so the same answers: each fast path against a copy of the old one, and whole
searches with every old path put back (near ties included) against the new code."""

from __future__ import annotations

import json
import math
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posproof.measure.explore import base_bound, basekernel, basesweep
from posproof.measure.explore.basekernel import Kernel, _kernel_values, _runs
from posproof.measure.explore.basesweep import (
    _bad_intervals,
    _chain,
    _chain_arrays,
    _chain_few,
    _evaluate,
    _lowest_few,
)
from posproof.measure.explore.metrics import U

# ---- the code before the speed-up (b25f540 … 5759071), kept here as the reference ----


def _old_runs(ms: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fresh = np.r_[True, np.diff(ms) != 1]
    starts = np.flatnonzero(fresh)
    run = np.cumsum(fresh) - 1
    steps = np.arange(ms.size) - starts[run]
    w = np.cos(theta) + 1j * np.sin(theta)
    power = np.empty((int(steps.max(initial=0)) + 1, theta.size), dtype=np.complex128)
    power[0] = 1.0
    power[1:] = w
    np.cumprod(power, axis=0, out=power)
    phase = np.multiply.outer(ms[starts].astype(np.float64), theta)
    z = (np.cos(phase) + 1j * np.sin(phase))[run] * power[steps]
    return z.real.sum(axis=1), z.imag, steps.astype(np.float64)


def _old_pad(t: float, h: np.ndarray) -> np.ndarray:
    return 4 * U * (abs(t) + 1 + np.abs(h))


def _old_bad_intervals(ev: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mf = ev["m"].astype(np.float64)
    rate = mf * ev["slope"]
    q = (mf * mf * ev["s2"] + mf * ev["s3"]) * (1 + 1e-9)
    t, c = ev["t"], ev["v"] + ev["e"]
    b = ev["d"] + ev["de"]
    out_m, out_lo, out_hi = [], [], []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        neg = (c < 0) & (rate > 0)
        hi = -c[neg] / rate[neg]
        hi = hi - _old_pad(t, hi) - 1e-6 * hi
        far = hi + _old_pad(t, hi)
        ok = (hi > 0) & (c[neg] + rate[neg] * far + 8 * U * (np.abs(c[neg]) + rate[neg] * far) < 0)
        out_m.append(ev["m"][neg][ok])
        out_lo.append(np.zeros(int(ok.sum())))
        out_hi.append(hi[ok])
        disc = b * b - 2 * q * c
        pick = (disc > 0) & (q > 0) & ((c < 0) | (b < 0))
        c2, b2, q2 = c[pick], b[pick], q[pick]
        root = np.sqrt(disc[pick])
        s = -0.5 * (b2 + np.copysign(root, b2))
        r1, r2 = s / (0.5 * q2), c2 / s
        lo, hi = np.maximum(np.minimum(r1, r2), 0.0), np.maximum(r1, r2)
        cut = _old_pad(t, hi) + 1e-6 * (hi - lo)
        lo = np.where(lo > 0, lo + cut, 0.0)
        hi = hi - cut
        near = np.where(lo > 0, lo - _old_pad(t, hi), 0.0)
        far = hi + _old_pad(t, hi)

        def bound(h: np.ndarray) -> np.ndarray:
            terms = np.abs(c2) + np.abs(b2) * h + 0.5 * q2 * h * h
            return c2 + b2 * h + 0.5 * q2 * h * h + 8 * U * terms
        ok = (hi > lo) & (bound(near) < 0) & (bound(far) < 0)
        out_m.append(ev["m"][pick][ok])
        out_lo.append(lo[ok])
        out_hi.append(hi[ok])
    return np.concatenate(out_m), np.concatenate(out_lo), np.concatenate(out_hi)


def _old_lowest_few(values: np.ndarray, count: int) -> np.ndarray:
    return (np.argpartition(values, count)[:count] if values.size > count
            else np.arange(values.size))


def _same(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> bool:
    return all(x.dtype.kind == y.dtype.kind and np.array_equal(x, y) for x, y in
               zip(a, b, strict=True))


# ---- each fast path against the old one ----

pools = st.lists(st.tuples(st.integers(0, 3 * 10**6), st.integers(1, 400)), min_size=1,
                 max_size=6)


@settings(max_examples=60, deadline=None)
@given(dim=st.sampled_from([4, 16, 128]), t=st.floats(0.5, 34), runs=pools)
def test_runs_are_the_old_numbers_bit_for_bit(dim: int, t: float, runs: list) -> None:
    ms = np.unique(np.concatenate([np.arange(a, a + n) for a, n in runs]))
    theta = np.exp(-np.arange(dim // 2) * (2.0 / dim) * t)
    new, old = _runs(ms, theta), _old_runs(ms, theta)
    assert _same(new[:1] + new[2:], old[:1] + old[2:])
    assert np.array_equal(new[1], old[1])


@settings(max_examples=60, deadline=None)
@given(dim=st.sampled_from([8, 64, 128]), length=st.integers(2, 5000), t=st.floats(0.7, 30),
       runs=pools, few=st.sampled_from([0, 8, 10**9]))
def test_bad_intervals_are_the_old_ones(dim: int, length: int, t: float, runs: list,
                                        few: int) -> None:
    """Python floats for a few m, NumPy for more: the old intervals, bit for bit, from a
    pool and from every m."""
    kernel = Kernel(dim, length)
    ms = np.unique(np.concatenate([np.arange(a, a + n) for a, n in runs])) % (length + 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(basesweep, "FEW", few)
        for ev in (_evaluate(kernel, t, np.unique(ms)), _evaluate(kernel, t, None)):
            assert _same(_bad_intervals(ev), _old_bad_intervals(ev))


finite = st.floats(-1e3, 1e3, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(c=st.lists(st.one_of(finite, st.sampled_from([0.0, -0.0, -1e-300, 1e-300, -1e300])),
                  min_size=1, max_size=12),
       b=st.lists(st.one_of(finite, st.sampled_from([0.0, -1e300, 1e300, -5e-324])),
                  min_size=12, max_size=12),
       slope=st.sampled_from([0.0, 5e-324, 1e-3, 2.0]), s2=st.sampled_from([0.0, 5e-324, 0.3]),
       s3=st.sampled_from([0.0, 5e-324, 0.7]), t=st.sampled_from([0.5, 20.0, -0.0]),
       few=st.sampled_from([0, 10**9]))
def test_bad_intervals_hostile_numbers(c: list, b: list, slope: float, s2: float, s3: float,
                                       t: float, few: int) -> None:
    """Signed zeros, subnormal rates and curvatures (m = 1 with S₃ the least subnormal: a
    division by zero in Python floats), overflowing discriminants: both paths give the old
    intervals."""
    n = len(c)
    ev = {"t": t, "m": np.arange(n, dtype=np.int64), "v": np.array(c),
          "e": np.zeros(n), "d": np.array(b[:n]), "de": np.zeros(n),
          "slope": slope, "s2": s2, "s3": s3}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(basesweep, "FEW", few)
        assert _same(_bad_intervals(ev), _old_bad_intervals(ev))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.0, 1e-5, 2e-5, 3e-5, 1e-4]),
                          st.sampled_from([1e-5, 2e-5, 2e-5, 3e-5, 5e-5, 1e-4, 2e-4])),
                min_size=1, max_size=64))
def test_chain_walks_agree_with_ties(pairs: list) -> None:
    """Ties in lo and in hi (the first of the furthest, in order of lo, wins): the list walk
    and the array walk give the same chain."""
    pairs = [(lo, hi) for lo, hi in pairs if hi > lo]
    if not pairs:
        return
    lo = np.array([p[0] for p in pairs])
    hi = np.array([p[1] for p in pairs])
    ms = np.arange(lo.size, dtype=np.int64) + 100
    got = _chain_few(lo.tolist(), hi.tolist(), ms.tolist())
    assert got == _chain_arrays(ms, lo, hi) == _chain(0.0, ms, lo, hi)


def test_lowest_few_is_argpartitions_set() -> None:
    rng = np.random.default_rng(27)
    for size in (5, 8, 9, 100, 577, 600, 70_000):
        values = rng.standard_normal(size)
        for count in (1, 8):
            assert set(_lowest_few(values, count)) == set(_old_lowest_few(values, count))


@pytest.mark.parametrize(("length", "t"), [(70_000, 12.0), (2**17, 17.5)])
def test_large_products_are_within_the_stated_bound(length: int, t: float) -> None:
    """The GEMM in few large products (other sums' order than the old one-row products):
    every value within its stated bound of the exact value at the float t (mpmath, 40
    digits) at sampled m, and the two chunkings within the sum of their bounds everywhere."""
    kernel = Kernel(128, length)
    theta = np.exp(-kernel.c * t)
    weight = kernel.c * theta
    big = _kernel_values(theta, length, weight)
    small = _kernel_values(theta, length, weight, small_products=True)
    assert big[1] == small[1]
    assert big[3] == small[3]
    assert np.abs(big[0] - small[0]).max() <= 2 * big[1]
    assert np.abs(big[2] - small[2]).max() <= 2 * big[3]
    rng = np.random.default_rng(length)
    with mpmath.workdps(40):
        th = [mpmath.mpf(float(x)) for x in theta]         # θ taken as exact, as stated
        for m in [0, 1, length, *rng.integers(0, length + 1, 6).tolist()]:
            exact = mpmath.fsum(mpmath.cos(m * x) for x in th)
            assert abs(big[0][m] - exact) <= big[1]


# ---- whole searches: every old path put back, the same answers (near ties included) ----


def _old_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    def kernel_values(theta: np.ndarray, length: int, weight: Any = None, start: int = 0,
                      small_products: bool = True) -> Any:
        return _kernel_values(theta, length, weight, start, small_products=True)
    monkeypatch.setattr(basekernel, "_kernel_values", kernel_values)
    monkeypatch.setattr(basekernel, "_runs", lambda ms, theta, fresh=None: _old_runs(ms, theta))
    monkeypatch.setattr(basesweep, "_bad_intervals", _old_bad_intervals)
    monkeypatch.setattr(basesweep, "_chain", lambda t, ms, lo, hi: _chain_arrays(ms, lo, hi)
                        if ms.size else [])
    monkeypatch.setattr(basesweep, "_lowest_few", _old_lowest_few)


def _answer(kwargs: dict[str, Any]) -> str:
    bb = base_bound(**kwargs)
    data = {k: v for k, v in bb.to_dict().items() if k not in ("seconds", "audit_seconds")}
    return json.dumps(data, sort_keys=True, default=str)


CASES = [
    # B(22) = 0 exactly at b = (22/(22 − 7π))² ≈ 6.6e5: an island end at a true tie
    {"length": 30, "dim": 4, "lowest": 2, "highest": 1e9},
    {"length": 30, "dim": 4, "lowest": 2, "highest": 1e9, "integer_bases": True},
    {"length": 300, "dim": 16},
    {"length": 4096, "dim": 128, "first_only": True},
    pytest.param({"length": 16384, "dim": 128}, marks=pytest.mark.slow),
    pytest.param({"length": 65536, "dim": 128, "first_only": True}, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("kwargs", CASES)
def test_old_and_new_paths_give_the_same_search(kwargs: dict[str, Any],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole report (islands, brackets, witnesses, evidence, work units) of the new
    code equals the old paths' byte for byte, timings excepted."""
    new = _answer(kwargs)
    with monkeypatch.context() as patch:
        _old_paths(patch)
        old = _answer(kwargs)
    assert new == old
    if kwargs["dim"] == 4 and not kwargs.get("integer_bases"):
        data = json.loads(new)
        tie = (22 / (22 - 7 * math.pi)) ** 2
        assert any(abs(float(island["end"][1]) / tie - 1) < 1e-6
                   or abs(float(island["start"][0]) / tie - 1) < 1e-6
                   for island in data["islands"])


def test_the_safety_clock_is_read_sparingly_but_still_fires() -> None:
    """The CPU clock is read once per CLOCK_WORK units; a time limit of 0 still stops the
    search at once, and says so."""
    bb = base_bound(4096, 128, time_budget=0.0)
    assert bb.stopped_by == "time limit"
    assert bb.undecided >= 1
    kernel = Kernel(128, 1024)
    kernel.deadline = -1.0
    assert kernel.spent()
    assert kernel.stopped == "time"
    kernel.work += 1            # stays stopped without another reading
    assert kernel.spent()


def test_blas_thread_count_is_put_back() -> None:
    """Large products run on one OpenBLAS thread and the previous count is put back after
    (an exception inside too); without NumPy's OpenBLAS the products stay small."""
    api = basekernel._openblas()
    if api is None:
        with basekernel._one_blas_thread(True) as single:
            assert single is False
        return
    get = api[0]
    before = get()
    with basekernel._one_blas_thread(True) as single:
        assert single is True
        assert get() == 1
    assert get() == before
    with pytest.raises(ZeroDivisionError), basekernel._one_blas_thread(True):
        _ = 1 / 0
    assert get() == before
    with basekernel._one_blas_thread(False) as single:
        assert single is False
        assert get() == before


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 500), st.integers(0, 40)), max_size=8),
       st.lists(st.tuples(st.integers(1, 500), st.integers(0, 40)), max_size=8))
def test_pool_from_spans_is_the_old_union(first: list, second: list) -> None:
    """The sweep's pool built from merged ranges is the old one: the union (np.union1d) of
    the two families' arrays, each the concatenation of its merged ranges."""
    def old_array(spans: list) -> np.ndarray:
        merged = basesweep._merge_spans(spans)
        return (np.concatenate([np.arange(lo, hi + 1) for lo, hi in merged]) if merged
                else np.zeros(0, dtype=np.int64))
    a = [(lo, lo + n) for lo, n in first]
    b = [(lo, lo + n) for lo, n in second]
    old = np.union1d(old_array(a), old_array(b))
    new = basesweep._span_array(basesweep._merge_spans(basesweep._merge_spans(a)
                                                       + basesweep._merge_spans(b)))
    assert new.dtype == old.dtype
    assert np.array_equal(new, old)
