"""The base bound's "mixed" summary (issue 27, item 6): islands="ends" (and "auto" past its
work threshold) lists the first island and the all-good top, and reports the range between
as one mixed piece instead of enumerating its islands.  It must agree with the full
enumeration: the same first island, the same all_good_above, and a mixed range that holds
every island between them that it does not list; bases inside it are still decided."""

from __future__ import annotations

import json
import math
from decimal import Decimal

import pytest

from posproof.errors import InvalidParameter
from posproof.measure.explore.basebound import ISLAND_WORK, base_bound
from posproof.verdict import Verdict


def _check_agrees(full, ends, integer: bool) -> None:
    assert full.undecided == ends.undecided == 0
    assert full.mixed is None
    assert ends.mixed is not None
    assert ends.islands_mode == "ends"
    assert full.islands_mode in ("all", "auto")
    # the same first island (start bracket, witness) and the same smallest good base
    assert ends.islands[0].start == full.islands[0].start
    assert ends.bound == full.bound
    assert ends.witness_m == full.witness_m
    assert ends.interval is False
    assert full.interval is False
    # the same all-good threshold: exact for integers, brackets that meet for real bases
    top_full, top_ends = full.islands[-1].start, ends.islands[-1].start
    if integer:
        assert top_ends == top_full
    else:
        assert max(top_full[0], top_ends[0]) <= min(top_full[1], top_ends[1])
        assert math.isclose(float(full.all_good_above), float(ends.all_good_above),
                            rel_tol=1e-8)
    assert ends.islands[-1].witness_below is not None
    lo, hi = ends.mixed
    # the mixed range lies between the first island's start and all_good_above ...
    assert full.islands[0].start[1] <= lo
    assert hi <= top_ends[0]
    # ... starts where a listed island's certified good bases end ...
    listed = ends.islands[:-1]
    assert listed[-1].end[0] == lo or listed[-1].end[1] is not None
    # ... and holds the hull of every island between that it does not list
    unlisted = full.islands[len(listed):-1]
    assert unlisted, "the case must have islands inside the mixed range"
    assert lo <= unlisted[0].start[0]
    assert unlisted[-1].end[1] <= hi
    # the islands listed below it are the full enumeration's (the last may go on into it)
    for a, b in zip(listed, full.islands, strict=False):
        assert a.start == b.start
        assert a.end == b.end or (a is listed[-1] and a.end[1] is None
                                  and a.end[0] <= b.end[1])


@pytest.mark.parametrize(("length", "highest", "integer"), [
    (2048, 1e7, False), (2048, 1e7, True),
    (1024, 1e6, True)])     # no integer in the bad piece below all_good_above: decided one by one
def test_mixed_summary_agrees_with_full_enumeration(length: int, highest: float,
                                                    integer: bool) -> None:
    full = base_bound(length, 128, highest=highest, integer_bases=integer, islands="all",
                      audit=False)
    ends = base_bound(length, 128, highest=highest, integer_bases=integer, islands="ends",
                      audit=False)
    _check_agrees(full, ends, integer)
    assert len(full.islands) > len(ends.islands) >= 2


@pytest.mark.slow
def test_mixed_summary_agrees_at_longer_length() -> None:
    full = base_bound(8192, 128, highest=1e8, islands="all", audit=False)
    ends = base_bound(8192, 128, highest=1e8, islands="ends", audit=False)
    _check_agrees(full, ends, False)
    assert len(full.islands) - len(ends.islands) > 10


def test_bases_in_the_mixed_range_are_decided_as_by_the_full_search() -> None:
    full = base_bound(1024, 128, highest=1e6, islands="all", audit=False)
    ends = base_bound(1024, 128, highest=1e6, islands="ends")      # audited answers
    lo, hi = ends.mixed
    island = full.islands[1]            # inside the mixed range, not listed by "ends"
    assert lo < island.start[0]
    assert island.end[1] < hi
    inside = (island.start[1] + island.end[0]) / 2
    assert ends.is_good(inside) is Verdict.YES
    assert full.is_good(inside) is Verdict.YES
    # the certified bad piece just below all_good_above: a base in it is bad, audited
    below = (hi + ends.islands[-1].start[0]) / 2
    answer = ends.decide(below)
    assert answer.status is Verdict.NO
    assert answer.witness is not None
    assert answer.evidence.audit.status == "confirmed"
    assert full.is_good(below) is Verdict.NO
    # a spread of bases: the same answer from both
    for i in range(41):
        b = Decimal(lo) * (Decimal(hi) / Decimal(lo)) ** (Decimal(i) / 40)
        assert ends.status(b) is full.status(b), b


def test_auto_switches_by_work_only() -> None:
    kw = {"highest": 1e6, "audit": False}
    auto = base_bound(1024, 128, **kw)
    assert auto.islands_mode == "auto"
    assert auto.island_work == ISLAND_WORK
    assert auto.mixed is None        # a small search: every island enumerated
    assert [i.to_dict() for i in auto.islands] == [
        i.to_dict() for i in base_bound(1024, 128, islands="all", **kw).islands]
    zero = base_bound(1024, 128, island_work=0, **kw)   # switches after the first window
    ends = base_bound(1024, 128, islands="ends", **kw)
    assert zero.mixed == ends.mixed
    assert zero.all_good_above == ends.all_good_above
    assert base_bound(1024, 128, island_work=None, **kw).mixed is None


def test_mixed_in_json_and_text() -> None:
    bb = base_bound(1024, 128, highest=1e6, islands="ends", audit=False)
    data = json.loads(json.dumps(bb.to_dict()))
    mixed = data["mixed"]
    assert [Decimal(str(v)) for v in mixed["range"]] == list(bb.mixed)
    assert mixed["state"].startswith("mixed: good and bad bases alternate")
    assert mixed["islands_listed_below"] == len(bb.islands) - 1
    assert data["islands_mode"] == "ends"
    assert data["undecided"] == 0
    text = bb.summary()
    assert "mixed: good and bad bases alternate, islands not enumerated" in text
    assert "; 0 undecided" in text
    assert base_bound(1024, 128, highest=1e6, audit=False).to_dict()["mixed"] is None


def test_islands_option_refused_when_unknown() -> None:
    with pytest.raises(InvalidParameter, match="islands="):
        base_bound(64, 8, highest=1e4, islands="some")


def test_cli_islands_ends(capsys: pytest.CaptureFixture[str]) -> None:
    from posproof.cli import main

    argv = ["explore", "rope:base=10000,dim=128", "--length", "1024", "--base-bound",
            "--base-range", "2,1e6", "--islands", "ends"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    bound = data["base_bounds"]["128"]
    assert bound["mixed"] is not None
    assert bound["undecided"] == 0
    main(argv)
    assert "mixed: good and bad bases alternate" in capsys.readouterr().out
    assert main([*argv[:-1], "some"]) == 2
    assert "invalid choice: 'some'" in capsys.readouterr().err
