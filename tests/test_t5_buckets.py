"""T5 relative position buckets: exact boundaries, theorems, the float trap, HF transformers.

Written against transformers 5.24 (T5, UMT5, LongT5 ``_relative_position_bucket``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from posproof.errors import InvalidParameter, PosproofError
from posproof.measure.t5_dtype import dtype_audit, float_buckets
from posproof.model.t5_buckets import T5Buckets
from posproof.proofs.t5 import T5_THEOREMS, direct_bucket, prove_t5
from posproof.testing.bias.t5 import assert_t5_buckets, check_t5_buckets

torch = pytest.importorskip("torch")

CONFIGS = [(32, 128, True), (32, 128, False), (64, 256, True), (128, 1000, False),
           (33, 100, True), (4, 2, True), (2, 5, False), (48, 4096, True)]


def _mpmath_floor_bucket(spec: T5Buckets, n: int) -> int:
    """An independent reference: the floor at 60 digits, with the margin checked."""
    import mpmath

    m, per = spec.max_exact, spec.per_direction
    if n < m:
        return n
    with mpmath.workdps(60):
        v = (per - m) * mpmath.log(mpmath.mpf(n) / m) / mpmath.log(mpmath.mpf(spec.max_distance)
                                                                    / m)
        k = int(mpmath.floor(v))
        if abs(v - mpmath.nint(v)) < mpmath.mpf(10) ** -40:      # an integer: decide exactly
            k = int(mpmath.nint(v))
    return m + min(k, per - m - 1)


@pytest.mark.parametrize(("nb", "md", "bi"), CONFIGS)
def test_table_matches_independent_floor(nb: int, md: int, bi: bool) -> None:
    spec = T5Buckets(nb, md, bi)
    n = np.arange(0, 3 * md + 2)
    fast = spec.magnitude_buckets(n)
    for i in list(spec.starts) + [s - 1 for s in spec.starts] + [md, md + 1, 3 * md]:
        if 0 <= i < n.size:
            assert fast[i] == direct_bucket(spec, int(i)) == _mpmath_floor_bucket(spec, int(i))


@pytest.mark.parametrize(("nb", "md", "bi"), CONFIGS)
def test_table_rows_cover_every_delta_once(nb: int, md: int, bi: bool) -> None:
    spec = T5Buckets(nb, md, bi)
    rows = spec.table()
    assert len(rows) == nb
    d = np.arange(-2 * md - 3, 2 * md + 4)
    b = spec.buckets(d)
    for r in rows:
        mine = d[b == r["bucket"]]
        if r["empty"]:
            assert mine.size == 0
            continue
        lo = -np.inf if r["delta_min"] is None else r["delta_min"]
        hi = np.inf if r["delta_max"] is None else r["delta_max"]
        assert np.array_equal(mine, d[(d >= lo) & (d <= hi)])


def test_default_t5_table_and_empty_bucket() -> None:
    spec = T5Buckets(32, 128)
    assert spec.starts[8:] == (8, 12, 16, 23, 32, 46, 64, 91)
    assert spec.empty_buckets == (16,)              # positive side's |Δ| = 0
    assert T5Buckets(32, 128, bidirectional=False).empty_buckets == ()
    assert T5Buckets(33, 100).empty_buckets == (16, 32)


def test_boundary_is_exact_where_the_log_ratio_is_an_integer() -> None:
    # D/m = 16 = 2^R: bucket m+k starts exactly at n = m·2^k, where R·log(n/m)/log(D/m) = k
    spec = T5Buckets(8, 64, bidirectional=False)               # per 8, m 4, R 4, D = 64
    assert spec.starts[4:] == (4, 8, 16, 32)
    assert spec.bucket(-7) == 4
    assert spec.bucket(-8) == 5
    assert spec.bucket(-31) == 6
    assert spec.bucket(-32) == 7


@pytest.mark.parametrize(("nb", "md", "bi"), CONFIGS)
def test_theorems_proved_and_crosschecked(nb: int, md: int, bi: bool) -> None:
    proofs = prove_t5(T5Buckets(nb, md, bi))
    assert [p.name for p in proofs] == [f"t5:{t}" for t in T5_THEOREMS]
    assert all(p.status == "proved" for p in proofs)
    assert all(not p.crosscheck["disagreements"] for p in proofs)


def test_broken_table_is_not_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = T5Buckets(32, 128)
    bad = (*spec.starts[:10], spec.starts[10] + 1, *spec.starts[11:])
    monkeypatch.setattr(T5Buckets, "starts", property(lambda self: bad))
    statuses = {p.name: p.status for p in prove_t5(spec)}
    assert statuses["t5:boundaries_exact"] == "unknown"


@pytest.mark.parametrize(("args", "words"), [
    ((2, 128, True), "at least 2 per direction"),
    ((1, 128, False), "at least 2 per direction"),
    ((32, 8, True), "max_distance=8 is not above max_exact=8"),
    ((32, 3, False), "not above max_exact=16"),
    ((32.5, 128, True), "not an integer"),
    ((32, 128, "yes"), "not a bool"),
])
def test_bad_input_one_line(args: tuple, words: str) -> None:
    with pytest.raises(InvalidParameter, match=words) as info:
        T5Buckets(*args)
    assert "\n" not in str(info.value)


# ----------------------------------------------------------------------- HF transformers
def _hf(module: str, cls: str):  # type: ignore[no-untyped-def]
    mod = pytest.importorskip(f"transformers.models.{module}.modeling_{module}")
    return getattr(mod, cls)._relative_position_bucket


def _umt5(bi: bool, nb: int = 32, md: int = 128):  # type: ignore[no-untyped-def]
    """UMT5's bucket function is a method reading its config: build a real UMT5Attention."""
    mod = pytest.importorskip("transformers.models.umt5.modeling_umt5")
    from transformers import UMT5Config

    config = UMT5Config(d_model=8, d_kv=4, num_heads=2, relative_attention_num_buckets=nb,
                        relative_attention_max_distance=md, is_decoder=not bi)
    return mod.UMT5Attention(config, has_relative_attention_bias=True)._relative_position_bucket


@pytest.mark.parametrize(("module", "cls"), [("t5", "T5Attention"), ("longt5", "LongT5Attention"),
                                         ("umt5", "UMT5Attention")])
@pytest.mark.parametrize("bi", [True, False])
def test_hf_default_configs_equal_exact_arithmetic(module: str, cls: str, bi: bool) -> None:
    """HF's float32 buckets equal the exact ones at the default config (32 buckets,
    max_distance 128), T5, UMT5 and LongT5 alike, for every |Δ| ≤ 4·max_distance."""
    fn = _umt5(bi) if module == "umt5" else _hf(module, cls)
    report = assert_t5_buckets(fn, 32, 128, bidirectional=bi, up_to=512)
    assert report.checks[0].values["n_differ"] == 0


@pytest.mark.parametrize(("bi", "where"), [(True, [198463, 523687]), (False, [635938])])
def test_hf_float32_differs_from_exact_at_large_max_distance(bi: bool, where: list) -> None:
    """128 buckets, max_distance 10⁶: HF's float32 log ratio changes these exact distances."""
    fn = _hf("t5", "T5Attention")
    spec = T5Buckets(128, 10**6, bi)
    report = check_t5_buckets(fn, 128, 10**6, bidirectional=bi, up_to=10**6)
    assert not report.ok
    differ = sorted({abs(v["delta"]) for v in report.checks[0].values["differ"]})
    assert differ == where
    assert "float32" in report.checks[0].note
    # the float32 emulation reproduces HF at every distance, and exact differs there
    n = np.arange(0, 10**6 + 1)
    hf = fn(torch.as_tensor(-n), bidirectional=bi, num_buckets=128, max_distance=10**6).numpy()
    assert np.array_equal(hf, float_buckets(spec, n, "float32"))
    assert list(np.flatnonzero(hf != spec.magnitude_buckets(n))) == where
    # declared float32: accepted, with the distances named
    assert assert_t5_buckets(fn, 128, 10**6, bidirectional=bi, up_to=10**6,
                             dtype="float32").ok
    audit = dtype_audit(spec, "float32", up_to=10**6)
    assert [c["distance"] for c in audit.values["changed"]] == where


def test_float16_trap_and_overflow() -> None:
    audit = dtype_audit(T5Buckets(32, 4096), "float16")
    assert audit.status == "fail"
    assert audit.values["changed"][0]["distance"] == 181
    assert dtype_audit(T5Buckets(32, 4096), "float32").status == "pass"
    wide = dtype_audit(T5Buckets(128, 10**5, False), "float16")
    assert wide.values["first_overflow"] == 65520       # first integer rounding to inf in f16


# broken copies of the HF function, written here: each must fail with the right explanation
def _copy(max_exact_shift: int = 0, sign_split: bool = True):  # type: ignore[no-untyped-def]
    def bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            if sign_split:
                relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position,
                                           torch.zeros_like(relative_position))
        max_exact = num_buckets // 2 + max_exact_shift
        is_small = relative_position < max_exact
        large = max_exact + (torch.log(relative_position.float() / max_exact)
                             / math.log(max_distance / max_exact)
                             * (num_buckets - max_exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, num_buckets - 1))
        return relative_buckets + torch.where(is_small, relative_position, large)
    return bucket


def test_umt5_float32_trap_matches_emulation() -> None:
    fn = _umt5(True, 128, 10**6)
    report = check_t5_buckets(fn, 128, 10**6, up_to=10**6)
    assert sorted({abs(v["delta"]) for v in report.checks[0].values["differ"]}) == [198463,
                                                                                    523687]
    assert check_t5_buckets(fn, 128, 10**6, up_to=10**6, dtype="float32").ok


def test_faithful_copy_passes() -> None:
    assert assert_t5_buckets(_copy(), 32, 128).ok


@pytest.mark.parametrize("shift", [1, -1])
def test_off_by_one_max_exact_fails_named(shift: int) -> None:
    with pytest.raises(AssertionError, match="max_exact is off by one: the impl uses "
                                             f"max_exact = {8 + shift} instead of 16 // 2 = 8"):
        assert_t5_buckets(_copy(max_exact_shift=shift), 32, 128)


def test_missing_sign_split_fails_named() -> None:
    with pytest.raises(AssertionError, match="the sign split is missing"):
        assert_t5_buckets(_copy(sign_split=False), 32, 128)


def test_causal_declared_bidirectional_fails_named() -> None:
    fn = _hf("t5", "T5Attention")
    with pytest.raises(AssertionError, match="the impl is causal"):
        assert_t5_buckets(lambda d: fn(d, bidirectional=False), 32, 128)


def test_unexplained_mismatch_says_so() -> None:
    with pytest.raises(AssertionError, match="no explanation confirmed"):
        assert_t5_buckets(lambda d: _copy()(d) * 0 + 3, 32, 128)


def test_impl_raising_or_wrong_shape_is_a_named_error() -> None:
    with pytest.raises(PosproofError, match="raised ZeroDivisionError"):
        check_t5_buckets(lambda d: 1 / 0)
    with pytest.raises(PosproofError, match="shape"):
        check_t5_buckets(lambda d: d[:3])


# ----------------------------------------------------------------------- command line
T5_TARGET = "transformers.models.t5.modeling_t5:T5Attention._relative_position_bucket"


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from posproof.cli.app import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prove_and_check(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code, out, _ = _cli(capsys, "prove", "--t5", "--json")
    data = json.loads(out)
    assert code == 0
    assert {t["name"]: t["status"] for t in data["theorems"]}["t5:nonempty"] == "proved"
    code, out, _ = _cli(capsys, "check", "--t5", "32,4096", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 1
    assert checks["t5_dtype_float32"]["status"] == "pass"
    assert checks["t5_dtype_float16"]["changed"][0]["distance"] == 181


@pytest.mark.parametrize("argv", [["prove", "--t5", "2,128"], ["check", "--t5", "32,8"],
                                  ["prove", "--t5", "32"], ["prove", "--t5", "32,128,sideways"],
                                  ["check-impl", T5_TARGET, "--t5-buckets", "3,100"],
                                  ["prove", "--t5", "--dim", "64"],
                                  ["check", "--t5", "32,128", "--preset", "binary"]])
def test_cli_bad_input_exits_2(capsys: pytest.CaptureFixture[str], argv: list) -> None:
    code, _out, err = _cli(capsys, *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_cli_check_impl_hf_float32_declared(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(capsys, "check-impl", T5_TARGET, "--t5-buckets", "32,128")
    assert code == 0
    assert "n_differ=0" in out
    code, out, _ = _cli(capsys, "check-impl", T5_TARGET, "--t5-buckets", "32,128,causal,float16",
                        "--up-to", "300")
    assert code == 0                                    # equal to exact: passes any declaration
    assert "declared float16" in out
    code, _out, _ = _cli(capsys, "check-impl", T5_TARGET, "--t5-buckets", "16,128")
    assert code == 0


def test_cli_explain_t5_config(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"model_type": "t5", "relative_attention_num_buckets": 32,
                               "relative_attention_max_distance": 128, "is_decoder": False}))
    code, out, _ = _cli(capsys, "explain", str(cfg))
    assert code == 0
    assert "[encoder self-attention]" in out
    assert "[decoder self-attention]" in out
    assert "    16  exact               (empty)" in out
    code, out, _ = _cli(capsys, "explain", str(cfg), "--json")
    stacks = json.loads(out)["stacks"]
    assert [s["bidirectional"] for s in stacks] == [True, False]
    assert stacks[0]["table"][31]["delta_min"] == 91
    cfg.write_text(json.dumps({"relative_attention_num_buckets": 1, "is_decoder": True}))
    code, _, err = _cli(capsys, "explain", str(cfg))
    assert code == 2
    assert "at least 2 per direction" in err


@pytest.mark.parametrize(("nb", "md", "bi", "length"), [(32, 128, True, 300), (32, 128, False, 300),
                                                       (128, 5000, False, 3000),
                                                       (33, 100, False, 300)])
def test_identify_hf_bucket_matrix(capsys: pytest.CaptureFixture[str], tmp_path, nb: int,  # type: ignore[no-untyped-def]
                                   md: int, bi: bool, length: int) -> None:
    import json

    fn = _hf("t5", "T5Attention")
    q = torch.arange(length)
    matrix = fn(q[None, :] - q[:, None], bidirectional=bi, num_buckets=nb,
                max_distance=md).numpy()
    path = tmp_path / "buckets.npy"
    np.save(path, matrix)
    code, out, _ = _cli(capsys, "identify", str(path), "--json")
    found = json.loads(out)["checks"][0]
    assert code == 0
    assert (found["num_buckets"], found["bidirectional"], found["max_distance"]) == (nb, bi,
                                                                                      [md, md])


def test_identify_ambiguous_and_foreign_matrices(capsys: pytest.CaptureFixture[str],
                                                 tmp_path) -> None:  # type: ignore[no-untyped-def]
    from posproof.testing.bias.t5_identify import identify_t5

    q = np.arange(2500)
    found = identify_t5(T5Buckets(64, 1000).buckets(q[None, :] - q[:, None]))
    assert found.max_distance == (1000, 1001)           # D = 1001 gives the same buckets
    assert T5Buckets(64, 1001).starts == T5Buckets(64, 1000).starts
    assert T5Buckets(64, 1002).starts != T5Buckets(64, 1000).starts
    path = tmp_path / "noise.npy"
    np.save(path, np.random.default_rng(0).integers(0, 5, (10, 10)))
    code, out, _ = _cli(capsys, "identify", str(path))
    assert code == 1
    assert "not a function of Δ" in out


# --- issue 21: saturation keeps the sign beyond int64, starts in O(R) exact steps ---------

@pytest.mark.parametrize("mag", [(1 << 62) - 1, 1 << 62, (1 << 62) + 1, 1 << 63, 10**19,
                                 10**40])
def test_saturation_keeps_the_sign_beyond_int64(mag):
    bi, causal = T5Buckets(32, 128), T5Buckets(32, 128, bidirectional=False)
    assert bi.bucket(-mag) == 15
    assert bi.bucket(mag) == 31
    assert causal.bucket(-mag) == 31
    assert causal.bucket(mag) == 0


def test_saturation_sign_just_inside_int64():
    bi = T5Buckets(32, 128)
    assert bi.bucket(-(1 << 61)) == 15
    assert bi.bucket(1 << 61) == 31


def _starts_by_roots(m, per, d):
    from sympy import integer_nthroot

    r = per - m
    out = list(range(m))
    for k in range(r):
        root, exact = integer_nthroot(d ** k * m ** (r - k), r)
        out.append(int(root) if exact else int(root) + 1)
    return tuple(out)


@pytest.mark.parametrize(("nb", "md", "bi"), [(32, 128, True), (4, 8, True), (3, 5, False),
                                      (64, 10**6, False), (128, 10**12, True),
                                      (50, 1000, True), (512, 10**9, False)])
def test_starts_equal_exact_roots(nb, md, bi):
    spec = T5Buckets(nb, md, bi)
    m, per, r = spec.max_exact, spec.per_direction, spec.per_direction - spec.max_exact
    assert spec.starts == _starts_by_roots(m, per, md)
    for k, s in enumerate(spec.starts[m:]):                 # both sides of each boundary
        t = md ** k * m ** (r - k)
        assert s ** r >= t > (s - 1) ** r


def test_direct_bucket_both_sides_of_each_start():
    from posproof.proofs.t5 import direct_bucket

    spec = T5Buckets(64, 10**6, False)
    m = spec.max_exact
    for b, s in enumerate(spec.starts[m:], m):
        if s > 0 and (b + 1 >= len(spec.starts) or spec.starts[b + 1] > s):
            assert direct_bucket(spec, s) == b
            assert direct_bucket(spec, s - 1) < b


def test_prove_t5_large_config_carries_audited_evidence():
    from posproof.proofs.t5 import prove_t5

    proofs = prove_t5(T5Buckets(1024, 10**12, False))
    assert [p.status for p in proofs] == ["proved"] * 6
    first = proofs[0].evidence
    assert first.method == "exact integers"
    assert first.coverage == "all"
    assert first.audit.status == "confirmed"
    assert len(first.items) == 2


@pytest.mark.parametrize(("up_to", "coverage"), [(90, "sample"), (91, "all")])
def test_check_t5_buckets_coverage_both_sides_of_last_boundary(up_to, coverage):
    from posproof.testing.bias.t5 import check_t5_buckets

    exact = T5Buckets(32, 128)
    check = check_t5_buckets(lambda d: exact.buckets(d), up_to=up_to, use_torch=False).checks[0]
    assert check.status == "pass"
    assert check.evidence.coverage == coverage
    assert check.label == ("pass" if coverage == "all"
                           else "pass (sampled: 28 of 30 bucket boundaries)")


@pytest.mark.parametrize("text", ["²,128", "1" * 5000 + ",128", "32," + "1" * 40,
                                  "32,10000000000000", "8192,128", "32,1.5"])
def test_t5_spec_refused_in_one_line(text):
    from posproof.cli.biases_t5 import parse_t5_spec
    from posproof.errors import InvalidParameter

    with pytest.raises(InvalidParameter) as info:
        parse_t5_spec(text)
    assert len(str(info.value)) < 200
    assert "\n" not in str(info.value)
