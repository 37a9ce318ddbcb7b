"""``posproof sweep``: grids, points computed as explore computes them, the results file,
resume after interrupts and killed workers, the local pool and a real Dask LocalCluster."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from posproof.cli.app import main
from posproof.errors import InvalidParameter, PosproofError, UnknownName
from posproof.measure.checks import run_checks
from posproof.measure.explore import base_bound, explore
from posproof.model.configs import parse_spec
from posproof.sweep import (
    MAX_POINTS,
    METRICS,
    DaskExecutor,
    InlineExecutor,
    LocalExecutor,
    ResultFile,
    SchedulerUnreachable,
    Sweep,
    canonical,
    evaluate_point,
    heatmap,
    load_grid,
    parse_grid,
    plot_heatmap,
    read_records,
    run_sweep,
)

ROOT = Path(__file__).resolve().parent.parent

SMALL = """
metrics = ["first_negative", "decay_at_length", "pairs_covered", "float16_max_phase_error"]
length = [64, 256]

[[family]]
kind = "rope"
dim = 16
base = [100, 10000]

[[family]]
kind = "vaswani"
dim = 8
base = 10000
"""

# points of about 0.1–0.4 s (a base-bound search each): slow enough to kill a worker mid-sweep
SLOW = """
metrics = ["base_bound", "first_negative"]
length = 2048

[[family]]
kind = "rope"
dim = [16, 24, 32, 40, 48, 56, 64, 72]
"""


def canon(records):
    return sorted(canonical(r) for r in records)


def keys_in(path):
    return [json.loads(line)["key"] for line in Path(path).read_text().splitlines()]


def run_cli(args, capsys):
    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory):
    """The SLOW grid computed in this process."""
    grid = parse_grid(SLOW)
    out = tmp_path_factory.mktemp("ref") / "slow.jsonl"
    assert Sweep(grid, out).run(InlineExecutor()).complete
    return read_records(out, grid)


@pytest.fixture(scope="module")
def small_reference(tmp_path_factory):
    """The SMALL grid computed in this process: the records every other path must give."""
    grid = parse_grid(SMALL)
    out = tmp_path_factory.mktemp("ref") / "small.jsonl"
    summary = Sweep(grid, out).run(InlineExecutor())
    assert summary.complete
    return read_records(out, grid)


# --------------------------------------------------------------------------- grid files
def test_grid_enumerates_the_product_of_each_family_in_order():
    """Points are the product of each family's lists, kind first and length last."""
    grid = parse_grid(SMALL)
    assert grid.size == 2 * 2 + 2
    assert [p.spec for p in grid.points] == ["rope:base=100,dim=16"] * 2 + \
        ["rope:base=10000,dim=16"] * 2 + ["vaswani:base=10000,dim=8"] * 2
    assert [p.length for p in grid.points] == [64, 256] * 3
    assert [p.family for p in grid.points] == [0, 0, 0, 0, 1, 1]
    assert [p.index for p in grid.points] == list(range(6))
    assert sorted(grid.varying) == ["base", "dim", "kind", "length"]


def test_keys_are_stable_and_depend_on_parameters_metrics_and_seed():
    """The same point has the same key however it is written; other metrics or seed, another."""
    a = parse_grid('metrics = ["pairs"]\n[[family]]\nkind = "rope"\nbase = 1e4\ndim = 8\n'
                   'length = 16')
    b = parse_grid('metrics = ["pairs"]\n[[family]]\nkind = "rotary"\nrope_theta = 10000\n'
                   'head_dim = 8.0\nlength = 16')
    c = parse_grid('metrics = ["pairs", "pairs_covered"]\n[[family]]\nkind = "rope"\n'
                   'base = 10000\ndim = 8\nlength = 16')
    d = parse_grid('metrics = ["pairs"]\nseed = 1\n[[family]]\nkind = "rope"\nbase = 10000\n'
                   'dim = 8\nlength = 16')
    assert a.points[0].key == b.points[0].key
    assert a.points[0].params == {"base": 10000, "dim": 8, "kind": "rope", "length": 16}
    assert len({a.points[0].key, c.points[0].key, d.points[0].key}) == 3


@pytest.mark.parametrize(("entry", "values"), [
    ("{ start = 1024, stop = 8192, factor = 2 }", [1024, 2048, 4096, 8192]),
    ("{ start = 1000, stop = 2000, step = 500 }", [1000, 1500, 2000]),
    ("{ start = 1000, stop = 1999, step = 500 }", [1000, 1500]),
    ("{ start = 100, stop = 1000000, num = 5, scale = \"log\" }",
     [100, 1000, 10000, 100000, 1000000]),
    ("{ start = 2, stop = 3, num = 3 }", [2, 2.5, 3]),
    ("[1e4, 5e5]", [10000, 500000]),
    ("2.5", [2.5]),
])
def test_ranges(entry, values):
    """Lists, {start, stop, step|num|factor} tables and scalars give the values written."""
    grid = parse_grid(f'metrics = ["pairs"]\nlength = 16\n[[family]]\nkind = "rope"\n'
                      f'dim = 8\nscaling = "linear"\nfactor = {entry}\n')
    assert [p.params["factor"] for p in grid.points] == values


def test_integer_ranges_are_rounded_and_refused_when_they_collapse():
    """length and dim are whole numbers; a log range that rounds to repeats is refused."""
    grid = parse_grid('metrics = ["pairs"]\nlength = { start = 100, stop = 1000, num = 3, '
                      'scale = "log" }\n[[family]]\nkind = "rope"\ndim = 8\n')
    assert [p.length for p in grid.points] == [100, 316, 1000]
    with pytest.raises(InvalidParameter, match="repeated values"):
        parse_grid('metrics = ["pairs"]\nlength = { start = 1, stop = 3, num = 9 }\n'
                   '[[family]]\nkind = "rope"\ndim = 8\n')


BAD_GRIDS = [
    ("metrics = [\"pairs\"\n", "not valid TOML"),
    ('metrics = ["pairs"]\nlenght = 5\n[[family]]\nkind = "rope"',
     "unknown top-level key 'lenght'"),
    ('length = 8\n[[family]]\nkind = "rope"', "no metrics"),
    ('metrics = []\nlength = 8\n[[family]]\nkind = "rope"', "non-empty list"),
    ('metrics = ["first_negativ"]\nlength = 8\n[[family]]\nkind = "rope"',
     "metric 'first_negativ' is not known"),
    ('metrics = ["pairs"]\nlength = 8', "no \\[\\[family\\]\\]"),
    ('metrics = ["pairs"]\n[[family]]\nkind = "rope"', "no length"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\nbse = 3',
     "unknown key 'bse' for kind 'rope'"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "vaswani"\nfactor = 3',
     "unknown key 'factor' for kind 'vaswani'"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\nscaling = ["linear", "yarn"]'
     '\nbeta_fast = 16\nfactor = 2', "beta_fast does not apply to scaling='linear'"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\nscaling = "ropey"',
     "scaling='ropey' is not known"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "ropes"', "kind 'ropes' is not known"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\nbase = []',
     "base = \\[\\] is an empty range"),
    ('metrics = ["pairs"]\nlength = { start = 9, stop = 8, step = 1 }\n[[family]]\nkind = "rope"',
     "empty range \\(stop < start\\)"),
    ('metrics = ["pairs"]\nlength = { start = 1, stop = 8 }\n[[family]]\nkind = "rope"',
     "exactly one of step, num, factor"),
    ('metrics = ["pairs"]\nlength = { start = 1, stop = 8, stride = 2 }\n[[family]]\nkind = "rope"',
     "unknown range key 'stride'"),
    ('metrics = ["pairs"]\nlength = [8, 8]\n[[family]]\nkind = "rope"', "length lists 8 twice"),
    ('metrics = ["pairs"]\nlength = 0\n[[family]]\nkind = "rope"', "length=0 is out of range"),
    ('metrics = ["pairs"]\nlength = 8.5\n[[family]]\nkind = "rope"',
     "length=8.5 is not an integer"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\nlayout = "half,adjacent"',
     "reserves"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\nbase = [[1, 2]]',
     "a list inside a list"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nspec = "rope:config=llama.json"',
     "config files are not supported"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nspec = "rope:bass=1"', "unknown key 'bass'"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nspec = "rope:dim=8"\nbase = 3',
     "only length, train_length"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\nspec = "rope:dim=8"',
     "exactly one of kind"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "explicit"', "not supported in sweeps"),
    ('metrics = ["pairs"]\nlength = [8, 16]\n[[family]]\nkind = "rope"\n[[family]]\n'
     'kind = "rope"', "appears twice"),
]


@pytest.mark.parametrize(("text", "message"), BAD_GRIDS)
def test_bad_grids_are_refused_with_the_problem_named(text, message):
    """Malformed files, unknown keys and metrics, empty ranges: a PosproofError naming them."""
    with pytest.raises(PosproofError, match=message):
        parse_grid(text, source="g.toml")


def test_grid_limit_needs_confirmation():
    """A grid beyond MAX_POINTS is refused unless confirmed (--yes)."""
    text = ('metrics = ["pairs"]\nlength = { start = 1, stop = 10001, step = 1 }\n'
            '[[family]]\nkind = "rope"\ndim = 8\n')
    with pytest.raises(InvalidParameter, match=f"10001 points, more than the limit of "
                                               f"{MAX_POINTS}; pass --yes"):
        parse_grid(text)
    assert parse_grid(text, confirm=True).size == 10001


@pytest.mark.parametrize(("text", "args", "message"), [
    ("metrics = [", [], "not valid TOML"),
    ('metrics = ["nope"]\nlength = 8\n[[family]]\nkind = "rope"', [],
     "metric 'nope' is not known"),
    ('metrics = ["pairs"]\nlength = { start = 1, stop = 10001, step = 1 }\n[[family]]\n'
     'kind = "rope"', [], "pass --yes"),
    ('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"', ["--scheduler", "nonsense"],
     "'nonsense'"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys, text, args, message):
    """The CLI turns bad grids and addresses into exit status 2 and one line on stderr."""
    pytest.importorskip("distributed") if "--scheduler" in args else None
    grid = tmp_path / "g.toml"
    grid.write_text(text)
    status, _out, err = run_cli(["sweep", str(grid), *args], capsys)
    assert status == 2
    assert err.startswith("posproof: error: ")
    assert err.count("\n") == 1
    assert message in err
    assert not (tmp_path / "g.jsonl").exists()


def test_cli_missing_grid_and_list_metrics(capsys, tmp_path):
    """No GRID is exit 2; --list-metrics lists every metric with where it comes from."""
    status, _, err = run_cli(["sweep"], capsys)
    assert status == 2
    assert "needs a GRID" in err
    status, _, err = run_cli(["sweep", str(tmp_path / "none.toml")], capsys)
    assert status == 2
    assert "none.toml" in err
    assert "cannot be read" in err
    status, out, _ = run_cli(["sweep", "--list-metrics"], capsys)
    assert status == 0
    for name in METRICS:
        assert f"\n{name} " in out
    assert "check --check separation" in out


# --------------------------------------------------------------------------- one point
def test_point_numbers_are_explores_numbers():
    """Each metric equals what explore (and check) report for the same encoding and L."""
    grid = parse_grid("""
metrics = ["first_negative", "first_negative_value", "decay_at_length", "decay_min",
           "decay_min_at", "pairs_covered", "pairs", "critical_dimension", "attention_factor",
           "float32_max_phase_error", "float16_first_overflow", "bfloat16_first_unrepresentable",
           "base_bound", "base_ok", "separation", "separation_at", "kernel_first_negative",
           "first_increase", "separation_status"]
length = 3000
train_length = 1024
[[family]]
kind = "rope"
dim = 16
base = 500000
scaling = "yarn"
factor = 4
original_max_position_embeddings = 1024
""")
    point = grid.points[0]
    record = evaluate_point(point)
    assert record["status"] == "ok", record["error"]
    got = record["metrics"]
    enc = parse_spec("rope:base=500000,dim=16,scaling=yarn,factor=4,"
                     "original_max_position_embeddings=1024", seq_len=3000)
    ex = explore([enc], 3000, dtypes=["float32", "float16", "bfloat16"], train_length=1024,
                 base_bounds=True, proofs=False)
    n = ex.to_dict()["encodings"][0]["numbers"]
    assert got["first_negative"] == n["first_negative"]["m"] is not None
    assert got["first_negative_value"] == n["first_negative"]["value_mp"]
    assert got["decay_at_length"] == n["decay"]["last"]["value_mp"]
    assert (got["decay_min"], got["decay_min_at"]) == (n["decay"]["min"]["value_mp"],
                                                       n["decay"]["min"]["delta"])
    assert (got["pairs_covered"], got["pairs"]) == (n["bands"]["pairs_covered"], 8)
    assert got["critical_dimension"] == n["critical_dimension"]["d_extra"]
    assert got["attention_factor"] == n["attention_factor_float"] != "1"
    assert got["float32_max_phase_error"] == n["dtypes"]["float32"]["max_phase_error"]
    assert got["float16_first_overflow"] is None
    assert got["bfloat16_first_unrepresentable"] == 257
    assert (got["base_bound"], got["base_ok"]) == (n["base_bound"], n["base_ok"])
    bb = base_bound(3000, 16)
    assert got["base_bound"] == f"{float(bb.bound):.7g}"
    assert got["base_ok"] == bb.is_good(500000) in ("yes", "no")
    assert type(got["base_ok"]) is str      # JSON keeps the text of the Verdict
    check = {c.name: c for c in run_checks(enc.encoding(), max_len=3000,
                                           checks=["separation", "decay"])}
    assert got["separation"] == check["separation"].values["min_distance_mp"]
    assert got["separation_at"] == check["separation"].values["at_offset"]
    # one quantity, one name: the old name kernel_first_negative is recorded as first_negative,
    # and check decay's first_negative is explore's
    assert "kernel_first_negative" not in got
    assert got["first_negative"] == check["decay"].values["first_negative"]
    assert got["first_increase"] == check["decay"].values["first_increase"] is not None
    assert got["separation_status"] == "pass"
    assert record["certified"]["first_negative"] == n["first_negative"]["certified"]
    assert record["certified"]["separation"] == check["separation"].certified
    assert set(record["timing"]) == {"seconds", "host", "pid", "finished"}


def test_sinusoidal_point_without_base_notes_what_does_not_apply():
    """critical_dimension needs a base: null, with a note, for binary dials."""
    grid = parse_grid('metrics = ["critical_dimension", "pairs_covered", "theorems_ok"]\n'
                      'length = 64\n[[family]]\nkind = "binary"\ndim = 8\n')
    record = evaluate_point(grid.points[0])
    assert record["status"] == "ok"
    assert record["metrics"] == {"critical_dimension": None, "pairs_covered": 4,
                                 "theorems_ok": True}
    assert any("critical_dimension: not applicable" in n for n in record["notes"])


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path, capsys):
    """dim = 7 cannot be built: its record holds the error, the other points are computed."""
    grid = tmp_path / "g.toml"
    grid.write_text('metrics = ["pairs"]\nlength = 16\n[[family]]\nkind = "rope"\n'
                    'dim = [8, 7, 4]\n')
    status, out, _ = run_cli(["sweep", str(grid), "--workers", "0"], capsys)
    assert status == 1
    assert "1 with an error" in out
    records = read_records(tmp_path / "g.jsonl", load_grid(grid))
    assert [r["status"] for r in records] == ["ok", "error", "ok"]
    bad = records[1]
    assert bad["error"] == {"type": "InvalidEncoding",
                            "message": "rotary_dim=7 must be an even number >= 2 (RoPE rotates "
                                       "pairs of channels); round it to an even number"}
    assert bad["metrics"] == {}
    # recorded means done: a resume does not retry it
    status, out, _ = run_cli(["sweep", str(grid), "--workers", "0", "--resume"], capsys)
    assert "already recorded 3, computed 0" in out
    assert len(keys_in(tmp_path / "g.jsonl")) == 3


# --------------------------------------------------------------------------- results file
def test_truncated_last_line_is_repaired_before_appending(tmp_path):
    """A write cut short by a kill is dropped; a complete line lacking its newline is kept."""
    path = tmp_path / "r.jsonl"
    with ResultFile(path) as results:
        results.append({"key": "a", "metrics": {"x": 1}})
        results.append({"key": "b", "metrics": {"x": 2}})
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"key": "c", "metr')
    records, dropped = ResultFile(path).read()
    assert [r["key"] for r in records] == ["a", "b"]
    assert dropped == 18
    assert path.read_bytes().endswith(b'"metr')          # reading alone changes nothing
    ResultFile(path).read(repair=True)
    assert path.read_bytes() == whole
    with ResultFile(path) as results:
        results.append({"key": "c", "metrics": {}})
    assert keys_in(path) == ["a", "b", "c"]
    path.write_bytes(path.read_bytes() + b'{"key": "d"}')   # complete, newline lost
    records, dropped = ResultFile(path).read(repair=True)
    assert [r["key"] for r in records] == ["a", "b", "c", "d"]
    assert dropped == 0
    assert path.read_bytes().endswith(b'{"key": "d"}\n')


def test_a_corrupt_middle_line_is_refused(tmp_path):
    """Only the last line may be partial; anything else is not a results file."""
    path = tmp_path / "r.jsonl"
    path.write_text('{"key": "a"}\nnot json\n{"key": "b"}\n')
    with pytest.raises(InvalidParameter, match="line 2 is not a sweep record"):
        ResultFile(path).read()


def test_one_writer_at_a_time(tmp_path):
    """Two sweeps cannot append to one file at once."""
    path = tmp_path / "r.jsonl"
    with ResultFile(path), pytest.raises(InvalidParameter, match="another sweep"):
        ResultFile(path).open()


def test_existing_results_need_resume(tmp_path, capsys):
    """An existing results file is never appended to silently."""
    grid = tmp_path / "g.toml"
    grid.write_text('metrics = ["pairs"]\nlength = 16\n[[family]]\nkind = "rope"\ndim = 4\n')
    (tmp_path / "g.jsonl").write_text('{"key": "x"}\n')
    status, _, err = run_cli(["sweep", str(grid)], capsys)
    assert status == 2
    assert "exists; pass --resume" in err
    assert keys_in(tmp_path / "g.jsonl") == ["x"]


# --------------------------------------------------------------------------- resume
def test_interrupt_then_resume_loses_and_repeats_nothing(tmp_path, small_reference):
    """Ctrl-C in the driver after 2 records, a torn last line, then resume: each point once."""
    grid = parse_grid(SMALL)
    out = tmp_path / "r.jsonl"
    seen = []

    def interrupt(done, total, left):
        seen.append((done, total, left))
        if done == 2:
            raise KeyboardInterrupt

    sweep = Sweep(grid, out)
    with pytest.raises(KeyboardInterrupt):
        sweep.run(InlineExecutor(), interrupt)
    assert sweep.summary.interrupted
    assert sweep.summary.computed == 2
    assert [s[:2] for s in seen] == [(1, 6), (2, 6)]
    assert seen[0][2] > 0
    with open(out, "ab") as f:
        f.write(b'{"key": "' + grid.points[5].key.encode() + b'", "stat')    # killed mid-write
    resumed = Sweep(grid, out, resume=True)
    assert resumed.summary.recorded_before == 2
    assert len(resumed.todo) == 4
    summary = resumed.run(InlineExecutor())
    assert summary.complete
    assert summary.computed == 4
    assert summary.repaired_bytes > 0
    keys = keys_in(out)
    assert sorted(keys) == sorted(p.key for p in grid.points)
    assert canon(read_records(out)) == canon(small_reference)


def test_resume_ignores_records_of_other_grids(tmp_path):
    """Records of another grid are kept, counted, and not mistaken for this grid's points."""
    out = tmp_path / "r.jsonl"
    out.write_text('{"key": "0123456789abcdef", "status": "ok"}\n')
    summary = Sweep(parse_grid(SMALL), out, resume=True).run(InlineExecutor())
    assert summary.stale == 1
    assert summary.computed == 6
    assert summary.complete
    assert len(keys_in(out)) == 7


# --------------------------------------------------------------------------- local pool
@pytest.fixture(scope="module")
def small_local(tmp_path_factory):
    """The SMALL grid through the default path, `posproof sweep` (a local pool of 2)."""
    folder = tmp_path_factory.mktemp("local")
    grid = folder / "g.toml"
    grid.write_text(SMALL)
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        status = main(["sweep", str(grid), "--workers", "2", "--quiet"])
    return status, text.getvalue(), read_records(folder / "g.jsonl")


@pytest.mark.slow
def test_local_pool_gives_the_same_records(small_local, small_reference):
    """Two worker processes give the records of the in-process run (timing aside)."""
    status, out, records = small_local
    assert status == 0
    assert "on 2 local workers" in out
    assert "computed 6 (0 with an error)" in out
    assert len(records) == 6
    assert canon(records) == canon(small_reference)
    assert os.getpid() not in {r["timing"]["pid"] for r in records}


@pytest.mark.slow
def test_killed_local_worker_loses_nothing(tmp_path, slow_reference):
    """SIGKILL a pool worker after the first record: the pool restarts, every point once."""
    grid = parse_grid(SLOW)
    out = tmp_path / "r.jsonl"
    killed = []

    def kill_first_worker(done, total, left):
        if not killed:
            pid = json.loads(out.read_text().splitlines()[0])["timing"]["pid"]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    summary = Sweep(grid, out).run(LocalExecutor(2), kill_first_worker)
    assert killed
    assert summary.complete
    assert summary.lost == 0
    assert summary.errors == 0
    assert sorted(keys_in(out)) == sorted(p.key for p in grid.points)
    pids = {r["timing"]["pid"] for r in read_records(out)}
    assert len(pids) >= 3                                  # the new pool's workers took over
    assert canon(read_records(out)) == canon(slow_reference)


@pytest.mark.slow
def test_sigint_stops_the_cli_and_resume_finishes(tmp_path, slow_reference):
    """A real SIGINT to `posproof sweep`: exit 130, finished points kept; --resume completes."""
    grid = tmp_path / "g.toml"
    grid.write_text(SLOW)
    out = tmp_path / "g.jsonl"
    cmd = [sys.executable, "-m", "posproof", "sweep", str(grid), "--workers", "2"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or not out.read_text()):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert "interrupted" in stderr
    assert "--resume" in stderr
    assert "Traceback" not in stderr
    first = keys_in(out)
    assert 1 <= len(first) < 8
    done = subprocess.run([*cmd, "--resume"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"already recorded {len(first)}" in done.stdout
    keys = keys_in(out)
    assert keys[:len(first)] == first
    assert sorted(keys) == sorted(p.key for p in load_grid(grid).points)
    assert canon(read_records(out)) == canon(slow_reference)


# --------------------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def cluster():
    """A real dask.distributed LocalCluster: two worker processes on loopback."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as c:
        yield c


@pytest.mark.slow
def test_cluster_gives_exactly_the_local_records(tmp_path, cluster, small_local, capsys):
    """--scheduler ADDRESS: the same tasks on the cluster, the same records as locally."""
    grid = tmp_path / "g.toml"
    grid.write_text(SMALL)
    status, out, _ = run_cli(["sweep", str(grid), "--scheduler", cluster.scheduler_address,
                              "--json"], capsys)
    assert status == 0
    summary = json.loads(out)
    assert summary["sweep"]["executor"] == "dask"
    assert summary["sweep"]["computed"] == 6
    assert summary["theorems"] == []
    assert summary["checks"] == []
    records = read_records(tmp_path / "g.jsonl")
    assert canon(records) == canon(small_local[2])
    assert os.getpid() not in {r["timing"]["pid"] for r in records}


@pytest.mark.slow
def test_killed_cluster_worker_then_interrupt_then_resume(tmp_path, cluster, slow_reference):
    """Kill a Dask worker mid-sweep and interrupt the driver; resuming completes the grid,
    every point exactly once, with the records the local path gives."""
    grid = parse_grid(SLOW)
    out = tmp_path / "r.jsonl"
    killed = []

    def kill_then_interrupt(done, total, left):
        if not killed:
            pid = json.loads(out.read_text().splitlines()[0])["timing"]["pid"]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        if done == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Sweep(grid, out).run(DaskExecutor(cluster.scheduler_address), kill_then_interrupt)
    first = keys_in(out)
    assert 4 <= len(first) < grid.size
    assert len(set(first)) == len(first)
    summary = Sweep(grid, out, resume=True).run(DaskExecutor(cluster.scheduler_address))
    assert summary.complete
    assert summary.lost == 0
    keys = keys_in(out)
    assert len(keys) == grid.size
    assert sorted(keys) == sorted(p.key for p in grid.points)
    assert canon(read_records(out)) == canon(slow_reference)


def test_unreachable_scheduler_is_named_within_the_timeout(capsys, tmp_path):
    """Nothing listening: exit 2 within the timeout, the address in the message."""
    pytest.importorskip("distributed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                         # free again once closed
    address = f"tcp://127.0.0.1:{port}"
    start = time.monotonic()
    with pytest.raises(SchedulerUnreachable, match=f"'{address}': no Dask scheduler answered "
                                                   "within 1 s"):
        DaskExecutor(address, timeout=1)
    assert time.monotonic() - start < 4
    grid = tmp_path / "g.toml"
    grid.write_text('metrics = ["pairs"]\nlength = 8\n[[family]]\nkind = "rope"\ndim = 4\n')
    status, _, err = run_cli(["sweep", str(grid), "--scheduler", address, "--timeout", "1"],
                             capsys)
    assert status == 2
    assert address in err
    assert err.count("\n") == 1


def test_without_dask_the_flag_says_how_to_install_it(monkeypatch):
    """posproof[distributed] is optional: --scheduler without it names the extra."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(InvalidParameter, match=r"pip install 'posproof\[distributed\]'"):
        DaskExecutor("tcp://127.0.0.1:8786")


# --------------------------------------------------------------------------- heatmap, CLI
def test_heatmap_arranges_a_metric_over_two_parameters(small_reference):
    """Cells hold the recorded values; other varying parameters must be fixed."""
    rope = [r for r in small_reference if r["family"] == 0]
    h = heatmap(rope, "first_negative", "base", "length")
    assert (h.x_values, h.y_values) == ([100, 10000], [64, 256])
    for r in rope:
        i, j = h.y_values.index(r["params"]["length"]), h.x_values.index(r["params"]["base"])
        value = r["metrics"]["first_negative"]
        assert h.text[i][j] == ("none" if value is None else str(value))
    assert h.fixed == {"dim": 16}
    assert h.missing == 0
    with pytest.raises(InvalidParameter, match="dim, kind also vary"):
        heatmap(small_reference, "first_negative", "base", "length")
    h = heatmap(small_reference, "pairs_covered", "length", "base", where={"family": "0"})
    assert h.values.shape == (2, 2)
    with pytest.raises(InvalidParameter, match="--x 'factor' is not a parameter"):
        heatmap(rope, "pairs_covered", "factor", "length")
    with pytest.raises(UnknownName, match="not known"):
        heatmap(rope, "pairz", "base", "length")


def test_plot_writes_a_png(tmp_path, small_reference, capsys):
    """--plot draws the heatmap from the results file (matplotlib, Agg canvas)."""
    pytest.importorskip("matplotlib")
    grid = tmp_path / "g.toml"
    grid.write_text(SMALL)
    out = tmp_path / "g.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in small_reference))
    png = tmp_path / "h.png"
    status, text, err = run_cli(["sweep", str(grid), "--plot", str(png), "--metric",
                                 "decay_at_length", "--x", "base", "--y", "length", "--where",
                                 "family=0"], capsys)
    assert status == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "4 cells (0 without a record)" in text
    status, _, err = run_cli(["sweep", str(grid), "--plot", str(png), "--metric", "pairs",
                              "--x", "base", "--y", "length"], capsys)
    assert status == 2
    assert "is not computed by" in err
    path = plot_heatmap(heatmap(small_reference[:1], "first_negative", "base", "length"),
                        tmp_path / "one.png")
    assert Path(path).stat().st_size > 0


def test_dry_run_and_run_sweep_defaults(tmp_path, capsys):
    """--dry-run computes nothing; run_sweep writes GRID.jsonl next to the grid."""
    grid = tmp_path / "g.toml"
    grid.write_text(SMALL)
    status, out, _ = run_cli(["sweep", str(grid), "--dry-run"], capsys)
    assert status == 0
    assert "6 points × 4 metrics" in out
    assert "0 recorded, 6 to do" in out
    assert not (tmp_path / "g.jsonl").exists()
    summary = run_sweep(grid, workers=0)
    assert summary.complete
    assert Path(summary.results) == tmp_path / "g.jsonl"


def test_the_package_loads_lazily_and_names_are_never_shadowed_by_submodules():
    """The CLI's parser reads only sweep.limits; and whichever submodule is imported first,
    every name of __all__ is the object it names (a submodule named like a function
    would shadow it)."""
    import subprocess
    import sys

    code = (
        "import sys, types, posproof.cli.app; posproof.cli.app.make_parser()\n"
        "assert 'posproof.sweep.grid' not in sys.modules, sorted(sys.modules)\n"
        "import posproof.sweep.heatmaps, posproof.sweep.run, posproof.sweep.points\n"
        "import posproof.sweep as s\n"
        "bad = [n for n in s.__all__ if isinstance(getattr(s, n), types.ModuleType)]\n"
        "assert not bad, bad\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.stdout.strip() == "ok", done.stderr
