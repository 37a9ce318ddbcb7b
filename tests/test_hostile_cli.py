"""Hostile input at the command line (issue 7): every bad option value ends in exit status 2
and one ``posproof: error:`` line on stderr naming the option or value, in time; a few true
subprocess runs of the console script prove there is no traceback.

In-process runs go through ``posproof.cli.app.main`` under the time bound of
``test_hostile.py``, and count the inputs they feed in its counter.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_hostile import COUNT, LIMIT, PAYLOADS, SENTINEL, TOWERS, Hang, bounded

from posproof.cli.app import main


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``posproof ARGV`` in-process: (status, stdout, stderr); a hang fails the test."""
    COUNT["cli:" + (argv[0] if argv else "")] += 1
    out, err = io.StringIO(), io.StringIO()
    try:
        with bounded(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except Hang:
        pytest.fail(f"hang: posproof {argv!r:.200} still running after {LIMIT} s")
    return status, out.getvalue(), err.getvalue()


def cli_refused(argv: list[str], *names: str) -> str:
    status, _, err = run_cli(argv)
    assert status == 2, f"posproof {argv!r:.200}: status {status}, stderr {err!r:.300}"
    assert "error:" in err, err
    assert "Traceback" not in err, err
    assert any(n.lower() in err.lower() for n in names), (
        f"posproof {argv!r:.200}: stderr does not name any of {names}: {err!r:.300}")
    return err


@pytest.fixture(autouse=True)
def _no_sentinel() -> Any:
    yield
    assert not os.path.exists(SENTINEL), "a hostile payload was executed"


BAD_INTS = st.one_of(st.sampled_from(["", "abc", "1.5", "nan", "inf", "-inf", "1e999", "0x10",
                                      "8 8", "\x00", "1_0_", "-0.5", "1e-3",
                                      "9" * 5000, "[8]", "__import__('os')"]),
                     st.text(alphabet="abc.-_e ", min_size=1, max_size=6))
BAD_NUMBERS = st.one_of(st.sampled_from(["", "abc", "nan", "inf", "-inf", "1e999", "-1", "0",
                                         "1", "sqrt(-1)", "1/0", "9**9**9**9", "10**10**10",
                                         "x", "k", "lambda: 1", "().__class__"]),
                        st.sampled_from(PAYLOADS))

OPTIONS = {  # option: (values, names the message must contain)
    "--dim": (st.one_of(BAD_INTS, st.sampled_from(["0", "-2", "7", "99999999999999999999",
                                                   "65538"])), ("dim",)),
    "--base": (BAD_NUMBERS, ("base",)),
    "--offset": (st.one_of(BAD_INTS, st.just("10" * 10)), ("offset",)),
    "--layout": (st.one_of(st.text(max_size=8).filter(lambda s: not s.startswith("-")),
                           st.just("diagonal")).filter(lambda s: s.lower() not in (
                               "interleaved", "interleaved-cos", "split", "split-cos", "sincos",
                               "sin,cos", "adjacent", "cossin", "cos,sin", "halves", "sin|cos",
                               "concat", "half", "cos|sin", "halves-cos")), ("layout",)),
    "--preset": (st.text(min_size=1, max_size=8).filter(lambda s: not s.startswith("-")),
                 ("preset",)),
    "--expression": (st.sampled_from([*PAYLOADS, *TOWERS, "exp(exp(exp(k)))", "d**d**d"])
                     .filter(lambda s: not s.startswith("-")), ("expression",)),
    "--frequencies": (st.sampled_from(["", "0, 1, 2, 3", "-1, 1, 1, 1", "nan, 1, 1, 1", "1",
                                       "__import__('os'), 1, 1, 1", "1e999, 1, 1, 1",
                                       "1, 2, 3, 4, 5"]), ("frequenc",)),
    "--min-timescale": (BAD_NUMBERS.filter(lambda v: v != "1"), ("min_timescale",)),
    "--max-timescale": (BAD_NUMBERS, ("max_timescale",)),
    "--start-index": (BAD_INTS, ("start-index", "start_index", "offset")),
    "--padding-idx": (st.one_of(BAD_INTS, st.just("-1")), ("padding-idx", "padding_idx")),
    "--max-period": (BAD_NUMBERS, ("max_period",)),
    "--numerator": (BAD_NUMBERS.filter(lambda v: v != "1"), ("numerator",)),
    "--claim-block": (st.sampled_from([*PAYLOADS, *TOWERS]), ("block", "claim")),
    "--theorem": (st.text(min_size=1, max_size=8).filter(lambda s: not s.startswith("-")),
                  ("theorem",)),
}


def _seconds(value: str) -> bool:
    """Whether ``value`` is an accepted --time-limit (a finite number of seconds >= 0)."""
    try:
        seconds = float(value)
    except ValueError:
        return False
    return seconds >= 0 and seconds != float("inf")


# issue 27: the work budget (whole units >= 0) and the wall-clock safety net (seconds >= 0)
OPTIONS["--budget"] = (BAD_INTS, ("budget",))
OPTIONS["--time-limit"] = (BAD_NUMBERS.filter(lambda v: not _seconds(v)), ("time-limit",))
OPTIONS["--timeout"] = (BAD_NUMBERS.filter(lambda v: not _seconds(v)), ("time-limit", "timeout"))
PRESET_OF = {"--min-timescale": "tensor2tensor", "--max-timescale": "tensor2tensor",
             "--start-index": "tensor2tensor", "--padding-idx": "fairseq",
             "--max-period": "diffusion", "--numerator": "binary"}


@settings(max_examples=260)
@given(data=st.data(), option=st.sampled_from(sorted(OPTIONS)))
@example(data=None, option="--padding-idx")
def test_prove_options(data: st.DataObject | None, option: str) -> None:
    """``posproof prove`` with one hostile option value: status 2, the option named."""
    values, names = OPTIONS[option]
    value = "a" if data is None else data.draw(values, label=option)
    argv = ["prove", "--dim", "8", "--theorem", "norm"]
    if option in PRESET_OF:
        argv += ["--preset", PRESET_OF[option]]
    if option == "--dim":
        argv = ["prove", "--theorem", "norm"]
    if option == "--theorem":
        argv = ["prove", "--dim", "8"]
    if option == "--offset" and value.strip().lstrip("-").isdigit():
        value = "1" + "0" * 20
    if option == "--expression" and value in ("exp(exp(exp(k)))", "d**d**d"):
        argv = ["prove", "--dim", "64", "--theorem", "norm"]
    cli_refused([*argv, f"{option}={value}"], *names, value[:10] if value else "")


CHECK_OPTIONS = {
    "--max-len": (st.one_of(BAD_INTS, st.sampled_from(["0", "-5", "1e30", "10**9"])),
                  ("length", "max-len", "max_len")),
    "--dps": (st.one_of(BAD_INTS, st.sampled_from(["0", "49", "100000", "-50"])), ("dps",)),
    "--dtype": (st.sampled_from(["int8", "float128x", "", "abc", "complex64", "bool"]),
                ("dtype",)),
    "--check": (st.text(min_size=1, max_size=8).filter(lambda s: not s.startswith("-")),
                ("check",)),
    "--seed": (BAD_INTS, ("seed",)),
}


@settings(max_examples=60)
@given(data=st.data(), option=st.sampled_from(sorted(CHECK_OPTIONS)),
       command=st.sampled_from(["check"]))
def test_check_options(data: st.DataObject, option: str, command: str) -> None:
    values, names = CHECK_OPTIONS[option]
    value = data.draw(values, label=option)
    if option == "--check" and value in ("bounds", "separation", "near_return", "periodicity",
                                         "translation", "toeplitz", "decay", "dtype_audit"):
        value += "?"
    argv = [command, "--dim", "4", "--max-len", "64", "--check", "bounds", f"{option}={value}"]
    cli_refused(argv, *names, value[:10] if value else "")


@settings(max_examples=100)
@given(specs=st.lists(st.one_of(
    st.sampled_from(["rope:base=nan,dim=8", "rope:dim=0", "rope:dim=abc", "rope:bass=1",
                     "rope:base=1,dim=8", "rope:dim=8,scaling=ropey", "vaswani:dim=-1",
                     "rope:dim=8,scaling=linear,factor=0", "rope:dim=8,partial_rotary_factor=2",
                     "rope:dim=8,scaling=yarn,factor=nan", "rope:config=/nonexistent.json",
                     "rope:dim=8,base=__import__('os').getcwd()", "rope:dim=" + "9" * 400,
                     "nonexistent.json", "rope:dim=8,scaling=longrope,short_factor=a;b",
                     "zzz:dim=8", "rope:dim=8,name", ":", "rope:dim=8,dim=8"]),
    st.text(max_size=12).filter(lambda s: not s.startswith("-") and s.strip())),
    min_size=1, max_size=2).filter(lambda specs: any(
        not s.startswith("rope:dim=8,name") for s in specs)),
    extra=st.sampled_from([[], ["--length", "0"], ["--length", "abc"], ["--dtypes", "int8"],
                           ["--seq-len", "-1"], ["--train-length", "x"]]))
@example(specs=["rope:base=nan,dim=8"], extra=[])
def test_explore_command(specs: list[str], extra: list[str]) -> None:
    """``posproof explore`` with hostile specs: status 2 (or a result), never a traceback."""
    status, _, err = run_cli(["explore", *specs, "--no-proofs", "--length", "64",
                              "--dtypes", "float32", *extra])
    assert "Traceback" not in err
    if status != 0 and status != 1:
        assert status == 2, err
        assert "error:" in err, err


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory: Any) -> dict[str, str]:
    root = tmp_path_factory.mktemp("files")
    files = {
        "empty.json": b"", "binary.json": b"\xff\xfe\x00", "nan.json": b'{"rope_theta": NaN}',
        "list.json": b"[1]", "deep.json": b"[" * 100_000, "truncated.npy": b"\x93NUMPY\x01",
        "text.npy": b"hello", "empty.npy": b"", "garbage.npz": b"PK\x03\x04garbage",
        "garbage.pt": b"\x80\x02garbage", "garbage.safetensors": b"\x08\x00\x00\x00\x00\x00",
        "pe.txt": b"1 2 3",
    }
    out = {}
    for name, content in files.items():
        (root / name).write_bytes(content)
        out[name] = str(root / name)
    for name, array in {"object.npy": np.array([None, 1], dtype=object),
                        "complex.npy": np.zeros((16, 8), dtype=complex),
                        "nan.npy": np.full((16, 8), np.nan), "zero-d.npy": np.zeros(()),
                        "three-d.npy": np.zeros((2, 3, 4)), "strings.npy": np.array(["a"]),
                        "empty-2d.npy": np.zeros((0, 8))}.items():
        np.save(root / name, array, allow_pickle=True)
        out[name] = str(root / name)
    out["directory"] = str(root)
    out["missing"] = str(root / "missing.npy")
    return out


@pytest.mark.parametrize("name", ["empty.json", "binary.json", "nan.json", "list.json",
                                  "deep.json", "directory", "missing"])
def test_explain_bad_configs(name: str, bad_files: dict[str, str]) -> None:
    cli_refused(["explain", bad_files[name]], "config", bad_files[name])


@pytest.mark.parametrize("name", ["truncated.npy", "text.npy", "empty.npy", "garbage.npz",
                                  "garbage.pt", "garbage.safetensors", "pe.txt", "object.npy",
                                  "complex.npy", "nan.npy", "zero-d.npy", "three-d.npy",
                                  "strings.npy", "empty-2d.npy", "directory", "missing"])
def test_identify_bad_files(name: str, bad_files: dict[str, str]) -> None:
    cli_refused(["identify", bad_files[name]], bad_files[name], "table", "array")


@pytest.mark.parametrize("target", ["nocolon", ":", "x:", ":y", "nonexistent_mod_xyz:attr",
                                    "posproof.model.presets:NOPE", "/nonexistent/file.py:f",
                                    "posproof:__version__"])
def test_check_impl_bad_targets(target: str) -> None:
    cli_refused(["check-impl", target, "--preset", "vaswani", "--dim", "8"], target[:8],
                "target", "impl")


@pytest.mark.parametrize(("option", "value"), [
    ("--base-work", v) for v in ("-1", "abc", "1.5", "nan", "inf", "", "--")] + [
    ("--base-time-limit", v) for v in ("0", "-3", "abc", "nan", "inf", "")])
def test_explore_base_budget_options(option: str, value: str) -> None:
    """explore's work budget and safety net: a bad value is refused (status 2), named."""
    cli_refused(["explore", "rope:base=10000,dim=8", "--length", "64", "--base-bound",
                 "--no-proofs", f"{option}={value}"], option.lstrip("-"),
                option.lstrip("-").replace("-", "_"))


@pytest.mark.parametrize("argv", [["prove", "--dim=--"], ["check", "--length=--"],
                                  ["check", "--dps=--"]])
def test_double_dash_value(argv: list[str]) -> None:
    cli_refused(argv, argv[-1].split("=")[0])


SUBPROCESS_CASES = [
    ["prove", "--dim", "0"],
    ["prove", "--dim", "8", "--expression", f"__import__('os').system('touch {SENTINEL}')"],
    ["prove", "--dim", "8", "--base", "nan"],
    ["prove", "--dim", "8", "--expression", "9**9**9**9"],
    ["explain", "/nonexistent/config.json"],
    ["explore", "rope:dim=8,partial_rotary_factor=nan"],
]


@pytest.mark.parametrize("argv", SUBPROCESS_CASES, ids=lambda a: " ".join(a)[:40])
def test_console_script(argv: list[str]) -> None:
    """The installed console script: exit status 2, one error line, no traceback."""
    exe = shutil.which("posproof")
    command = [exe] if exe else [sys.executable, "-m", "posproof"]
    COUNT["subprocess"] += 1
    done = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("posproof: error:"), done.stderr
    assert not os.path.exists(SENTINEL)
