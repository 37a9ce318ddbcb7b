"""The certified base search (Men et al.'s base bound) against brute force over integer bases."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posproof.errors import InvalidParameter
from posproof.measure.explore import base_bound
from posproof.measure.explore.basebound import parse_base_range
from posproof.measure.explore.basekernel import (
    Kernel,
    _block_floor,
    _kernel_values,
    block_doubt,
)
from posproof.measure.explore.basesweep import _bad_intervals, _chain, _evaluate, sweep_bad


def _b_mp(base, dim: int, m: int) -> mpmath.mpf:
    """B(m) at the exact decimal base, in mpmath: 40 digits, raised while the value is within
    10^(20 − digits) of 0 (the oracle never decides a sign it has not resolved)."""
    for digits in (40, 200, 1000):
        with mpmath.workdps(digits):
            b = mpmath.mpf(str(base))
            value = mpmath.fsum(mpmath.cos(m * b ** (-mpmath.mpf(2 * k) / dim))
                                for k in range(dim // 2))
            if abs(value) > mpmath.mpf(10) ** (20 - digits):
                return +value
    pytest.fail(f"the oracle cannot resolve B({m}) at {base}")


def is_good(base, dim: int, length: int) -> bool:
    """B(m) >= 0 for all m <= L: float64 where |B| > 1e-8 (its error is far smaller here),
    the mpmath oracle for anything closer."""
    theta = float(base) ** (-2.0 * np.arange(dim // 2) / dim)
    values = np.cos(np.multiply.outer(np.arange(length + 1.0), theta)).sum(axis=1)
    if values.min() < -1e-8:
        return False
    close = np.flatnonzero(values <= 1e-8)
    return all(_b_mp(base, dim, int(m)) >= 0 for m in close)


def good_integers(dim: int, length: int, lo: int, hi: int) -> set[int]:
    return {b for b in range(lo, hi + 1) if is_good(b, dim, length)}


@given(dim=st.sampled_from([4, 6, 8, 10, 12, 16]), length=st.integers(2, 160),
       lo=st.integers(2, 400), width=st.integers(1, 1500))
def test_integer_islands_are_exactly_the_good_integers(dim, length, lo, width):
    """--integer-bases: the islands hold exactly the integers brute force finds good; an
    undecided run is neither good nor bad (and there is none at this size)."""
    hi = lo + width
    bb = base_bound(length, dim, lowest=lo, highest=hi, integer_bases=True)
    found = {b for i in bb.islands for b in range(i.start[0], i.end[0] + 1)}
    for i in bb.islands:
        assert i.start == (i.start[0],) * 2
        assert i.end == (i.end[0],) * 2
    undecided = {b for a, c in bb.undecided_where for b in range(a, c + 1)}
    assert not found & undecided
    assert bb.undecided == 0
    assert found == good_integers(dim, length, lo, hi)
    if bb.islands and bb.islands[0].start[0] > lo:   # the certificate below the smallest
        below = bb.islands[0].start[0] - 1
        assert _b_mp(below, dim, bb.witness_m) < 0


@given(dim=st.sampled_from([4, 8, 12, 16]), length=st.integers(2, 160),
       lo=st.integers(2, 400), width=st.integers(1, 1500))
def test_real_islands_bracket_the_good_integers(dim, length, lo, width):
    """Real bases: every good integer lies in an island's outer brackets, every integer
    strictly inside an island's inner ends is good, and island ends are tight."""
    hi = lo + width
    bb = base_bound(length, dim, lowest=lo, highest=hi)
    good = good_integers(dim, length, lo, hi)
    assert bb.undecided == 0
    for b in range(lo, hi + 1):
        outer = any(float(i.start[0]) <= b <= float(i.end[1]) for i in bb.islands)
        inner = any(float(i.start[1]) <= b <= float(i.end[0]) for i in bb.islands)
        assert (b in good) <= outer
        assert inner <= (b in good)
        assert bb.status(b) == ("yes" if b in good else "no")
    for i in bb.islands:
        assert float(i.start[1]) - float(i.start[0]) <= 1e-8 * float(i.start[1])
        assert float(i.end[1]) - float(i.end[0]) <= 1e-8 * float(i.end[1])


def test_d128_finds_good_bases_below_the_old_grid_bound():
    """d = 128, L = 1024: the old 400-per-decade grid reported ~6018; integers far below
    are good (brute force), and the certified smallest good base is below them."""
    bb = base_bound(1024, 128, integer_bases=True, lowest=2, highest=1e5)
    first = bb.islands[0]
    assert is_good(first.start[0], 128, 1024)
    assert not is_good(first.start[0] - 1, 128, 1024)
    assert _b_mp(first.start[0] - 1, 128, bb.witness_m) < 0
    assert first.start[0] < 4400 < 6018
    assert not bb.interval
    threshold = bb.all_good_above
    assert is_good(threshold, 128, 1024)
    assert not is_good(threshold - 1, 128, 1024)


def test_undecided_intervals_are_never_called_good_or_bad(monkeypatch):
    """With the work budget cut short, the rest of the range is undecided: reported and
    counted, inside no island, and no smallest good base is claimed below it."""
    bb = base_bound(256, 16, lowest=10, highest=1e9, work_budget=3000)
    assert bb.undecided == len(bb.undecided_where) >= 1
    assert any("work budget" in n and "--base-work" in n for n in bb.notes)
    assert bb.stopped_by == "work budget"
    for lo, hi in bb.undecided_where:
        for island in bb.islands:
            assert float(hi) <= float(island.start[1]) or float(lo) >= float(island.end[0])
    first_undecided = min(float(lo) for lo, _ in bb.undecided_where)
    assert bb.bound is None or float(bb.bound) < first_undecided or "certified only" in " ".join(
        bb.notes)
    assert "undecided" in bb.summary()
    assert "certified" in bb.summary() or bb.islands


@given(dim=st.sampled_from([4, 8, 16, 64]), t=st.floats(0.7, 27), width=st.floats(1e-6, 2),
       m0=st.integers(0, 5000), span=st.integers(0, 300))
def test_block_floor_is_below_every_value_in_its_box(dim, t, width, m0, span):
    """The per-block lower bound is ≤ B(m; b) (mpmath, 40 digits) at the box's corners and
    at sampled inner points, and exact (to rounding) on a single m at a single point."""
    kernel = Kernel(dim, m0 + span)
    m1 = m0 + span
    floor = float(_block_floor(kernel, t, t + width, np.array([m0]), np.array([m1]))[0])
    for m in {m0, m1, (m0 + m1) // 2, m0 + span // 3}:
        for s in (t, t + width, t + width / 3):
            assert floor <= _b_mp(mpmath.exp(s), dim, m)
    point = float(_block_floor(kernel, t, t, np.array([m1]), np.array([m1]))[0])
    assert abs(point - float(_b_mp(mpmath.exp(t), dim, m1))) < 1e-9 * (1 + m1)


@given(dim=st.sampled_from([8, 16, 32]), length=st.integers(2, 400), t=st.floats(0.7, 20),
       width=st.floats(1e-4, 3))
def test_block_doubt_keeps_every_m_it_cannot_certify(dim, length, t, width):
    """Every m outside the doubt set is ≥ 0 on the whole interval (sampled, mpmath)."""
    kernel = Kernel(dim, length)
    doubt = block_doubt(kernel, t, t + width, 10**9, width=16, give_up=1.0)
    certified = sorted(set(range(length + 1)) - set(doubt.tolist()))
    for m in certified[:: max(1, len(certified) // 25)]:
        for s in (t, t + width / 2, t + width):
            assert _b_mp(mpmath.exp(s), dim, m) >= 0


@given(dim=st.sampled_from([8, 64, 128]), length=st.integers(1, 3000), t=st.floats(0.7, 30),
       part=st.floats(0, 1))
def test_kernel_values_are_within_their_stated_bounds(dim, length, t, part):
    """The one-product GEMM: B(m) and W(m) = Σ w_k sin(mθ_k) within the returned bounds of
    the exact sums for the float64 θ (mpmath, 40 digits), at a few m including L; also for
    the top of the range only (m from ``start`` to L, as the bad sweep evaluates first)."""
    c = np.arange(dim // 2) * (2.0 / dim)
    theta = np.exp(-c * t)
    weight = c * theta
    start = int(part * length)
    for first in (0, start):
        vals, eps, wvals, weps = _kernel_values(theta, length, weight, first)
        assert vals.size == wvals.size == length - first + 1
        with mpmath.workdps(40):
            for m in {first, min(first + 1, length), (first + length) // 2, length}:
                exact = mpmath.fsum(mpmath.cos(m * mpmath.mpf(x)) for x in theta)
                wexact = mpmath.fsum(mpmath.mpf(w) * mpmath.sin(m * mpmath.mpf(x))
                                     for w, x in zip(weight, theta, strict=True))
                assert abs(vals[m - first] - exact) <= eps
                assert abs(wvals[m - first] - wexact) <= weps


def test_the_tail_is_one_good_piece_and_really_good():
    """d = 32, L = 500: the search certifies the top of [2, 1e12] as one good piece (the
    block bound), and bases spread over that piece are good by brute force."""
    bb = base_bound(500, 32, lowest=2, highest=1e12)
    last = bb.pieces[-1]
    assert last.state == "good"
    assert last.hi - last.lo > 1
    for s in np.linspace(last.lo, last.hi, 12):
        assert is_good(float(np.exp(s)), 32, 500)


def test_every_base_in_a_bad_piece_has_its_witness():
    """A bad piece's witness m is negative at both of its ends (mpmath, 40 digits)."""
    bb = base_bound(300, 12, lowest=2, highest=1e5)
    bad = [p for p in bb.pieces if p.state == "bad"]
    assert bad
    for p in bad[:: max(1, len(bad) // 40)]:
        for t in (p.lo, p.hi):
            assert _b_mp(mpmath.exp(t), 12, p.witness) < 0


@pytest.mark.parametrize("text", ["5,3", "abc,4", "1,100", "2", "2,1e300", "nan,5", "2,inf",
                                  "", "0.5,10"])
def test_bad_base_ranges_are_refused(text):
    with pytest.raises(InvalidParameter, match="base-range"):
        parse_base_range(text)


def test_cli_base_range_exit_two_and_json():
    run = [sys.executable, "-m", "posproof", "explore", "rope:base=10000,dim=16", "--length",
           "256", "--base-bound", "--no-proofs", "--dtypes", ""]
    bad = subprocess.run([*run, "--base-range", "9,3"], capture_output=True, text=True,
                         check=False)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    assert "base-range" in bad.stderr
    ok = subprocess.run([*run, "--base-range", "2,1e6", "--integer-bases", "--json"],
                        capture_output=True, text=True, check=False)
    data = json.loads(ok.stdout)["base_bounds"]["16"]
    assert data["integer_bases"]
    assert data["undecided"] == 0
    assert data["bound"] == data["islands"][0]["start"][0]
    assert is_good(data["bound"], 16, 256)
    assert not is_good(data["bound"] - 1, 16, 256)


@given(dim=st.sampled_from([8, 16, 64, 128]), length=st.integers(2, 3000),
       t=st.floats(0.7, 16), data=st.data())
def test_sweep_bad_intervals_are_negative_in_mpmath(dim, length, t, data):
    """Every interval the sweep certifies bad from one evaluation (all m at t) is negative
    (mpmath, 40 digits) at its ends, at sampled inner points, and at the rounded piece
    ends the chain uses."""
    kernel = Kernel(dim, length)
    ev = _evaluate(kernel, t, None)
    ms, lo, hi = _bad_intervals(ev)
    assert ((lo >= 0) & (hi > lo)).all()
    picks = data.draw(st.lists(st.integers(0, max(0, ms.size - 1)), max_size=4)) if ms.size else []
    for i in picks:
        for h in (lo[i], hi[i], lo[i] + (hi[i] - lo[i]) * data.draw(st.floats(0, 1))):
            with mpmath.workdps(40):
                s = mpmath.mpf(t) + mpmath.mpf(float(h))
            assert _b_mp(mpmath.exp(s), dim, int(ms[i])) < 0
    start = t
    for x, m in _chain(t, ms, lo, hi)[:5]:
        end = t + x
        for s in (start, end):
            assert _b_mp(mpmath.exp(mpmath.mpf(s)), dim, m) < 0
        start = end


def test_sweep_bad_stops_at_the_first_island_and_its_pieces_are_bad():
    """d = 128, L = 1024: the sweep from b = 2 stops below the first good base (brute
    force), and its pieces' witnesses are negative at both ends (mpmath)."""
    kernel = Kernel(128, 1024)
    pieces: list[tuple[float, float, str, int | None]] = []
    stop = sweep_bad(kernel, math.log(2), math.log(1e5), lambda *p: pieces.append(p),
                     lambda t: None)
    assert pieces
    assert pieces[0][0] == math.log(2)
    for (_, hi, _, _), (lo, _, _, _) in itertools.pairwise(pieces):
        assert hi == lo
    assert pieces[-1][1] == stop
    first = base_bound(1024, 128, integer_bases=True, highest=1e5).bound
    assert math.exp(stop) <= first
    assert math.exp(stop) > 0.5 * first     # it does reach the island region
    for lo, hi, state, m in pieces[:: max(1, len(pieces) // 30)]:
        assert state == "bad"
        for s in (lo, hi):
            assert _b_mp(mpmath.exp(mpmath.mpf(s)), 128, m) < 0


@given(dim=st.sampled_from([8, 64, 128]), t=st.floats(0.7, 30),
       runs=st.lists(st.tuples(st.integers(0, 3 * 10**6), st.integers(1, 300)), min_size=1,
                     max_size=4))
def test_direct_values_by_runs_are_within_their_stated_bounds(dim, t, runs):
    """The direct path (runs of consecutive m by powers of e^{iθ}): B(m; t) and ∂B/∂t within
    the returned bounds of the exact values at the float t (mpmath, 40 digits)."""
    kernel = Kernel(dim, 10**8)          # a long L keeps the pool on the direct path
    ms = np.unique(np.concatenate([np.arange(a, a + n) for a, n in runs]))
    got, vals, errs, (deriv, dbound) = kernel.values(t, ms)
    assert np.array_equal(got, ms)
    pick = np.unique(np.r_[0, ms.size - 1, np.linspace(0, ms.size - 1, 6).astype(int)])
    with mpmath.workdps(40):
        c = [mpmath.mpf(2 * k) / dim for k in range(dim // 2)]
        theta = [mpmath.exp(-ck * mpmath.mpf(t)) for ck in c]
        for i in pick:
            m = int(ms[i])
            exact = mpmath.fsum(mpmath.cos(m * x) for x in theta)
            slope = mpmath.fsum(m * ck * x * mpmath.sin(m * x)
                                for ck, x in zip(c, theta, strict=True))
            assert abs(vals[i] - exact) <= errs[i]
            assert abs(deriv[i] - slope) <= dbound[i]


@pytest.mark.parametrize(("length", "dim", "integer"), [(1024, 128, False), (2048, 128, False),
                                                        (1024, 128, True), (300, 16, False)])
def test_first_only_certifies_the_same_smallest_base(length, dim, integer):
    """first_only stops after the first island: the same smallest good base, bracket and
    witness as the whole search; the islands it lists are the whole search's first ones
    (the last one open-ended when it runs past the search); nothing claimed above."""
    highest = 1e6 if integer else 1e12
    full = base_bound(length, dim, integer_bases=integer, highest=highest)
    first = base_bound(length, dim, integer_bases=integer, highest=highest, first_only=True)
    assert first.smallest == full.smallest
    assert first.witness_m == full.witness_m
    assert first.undecided == 0
    assert first.searched_to is not None
    assert first.interval is None
    assert first.all_good_above is None
    assert not first.reaches_top
    assert first.entry(10000)["base_good_set_is_interval"] is None
    assert "searched only up to" in first.summary()
    assert first.to_dict()["searched_up_to"] is not None
    for mine, theirs in zip(first.islands, full.islands[:len(first.islands)], strict=True):
        assert mine.start == theirs.start
        assert mine.witness_below == theirs.witness_below
        assert mine.end == theirs.end or (mine is first.islands[-1] and mine.end[1] is None)
    assert len(first.islands) < len(full.islands)
    # a base above the search is decided exactly, not from the missing pieces
    assert first.is_good(full.all_good_above) == "yes"
