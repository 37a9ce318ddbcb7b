"""Every family has the whole interface: SPEC parsing, prove, check, check-impl (a correct
implementation passes, a broken copy fails, a float32 copy passes at its precision), the
same JSON top level, explain, and a docs page — one checklist, walked for each family in
:data:`posproof.model.families.FAMILIES`, so a new family cannot be added half-way."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from posproof.cli.app import main
from posproof.cli.options import JSON_KEYS
from posproof.model.families import FAMILIES, families_markdown, family_names, parse
from posproof.model.specs import build as _build

ROOT = Path(__file__).resolve().parent.parent

#: Per family: a small SPEC (quick to prove and check) and the ATTRs of the impl module that
#: implement it correctly, in float32, and broken.
CASES = {
    "vaswani": ("vaswani:dim=16,base=10000", "VASWANI", "VASWANI32", "VASWANI_BAD"),
    "rope": ("rope:dim=16,base=10000", "rope_apply", "rope_apply32", "rope_bad"),
    "sincos-2d": ("sincos-2d:dim=16,grid=4x4", "GRID", "GRID32", "GRID_BAD"),
    "mrope": ("mrope:dim=16,base=10000,sections=2;3;3,grid=2x4x4", "mrope_apply", "mrope_apply32",
              "mrope_bad"),
    "axial-rope": ("axial-rope:axes_dims=4;4;8,base=10000,grid=2x4x4", "axial_apply",
                   "axial_apply32", "axial_bad"),
    "alibi": ("alibi:heads=8", "SLOPES", "SLOPES32", "SLOPES_BAD"),
    "t5": ("t5:buckets=32,max_distance=128", "t5_bucket", None, "t5_bad"),
    "xpos": ("xpos:dim=16", "XPOS", None, "XPOS_BAD"),
}

IMPL = '''
import numpy as np
import posproof
from posproof.model.multirope import multi_rotary
from posproof.model.alibi import alibi

_E = posproof.preset("vaswani", dim=16)
VASWANI = _E.table(np.arange(256))
VASWANI32 = VASWANI.astype(np.float32).astype(np.float64)
VASWANI_BAD = posproof.preset("vaswani", dim=16, base=1000).table(np.arange(256))

_R = posproof.rotary(10000, 16, layout="half")
_RB = posproof.rotary(500000, 16, layout="half")
def rope_apply(x, positions):
    return _R.apply(x, positions)
def rope_apply32(x, positions):
    return _R.apply(np.asarray(x, np.float32), positions).astype(np.float32)
def rope_bad(x, positions):
    return _RB.apply(x, positions)

_G = posproof.multi_preset("sincos-2d", dim=16)
GRID = _G.table(_G.grid((4, 4)))
GRID32 = GRID.astype(np.float32).astype(np.float64)
GRID_BAD = posproof.multi_preset("sincos-2d", dim=16, first="row").table(_G.grid((4, 4)))

_M = multi_rotary("mrope", head_dim=16, mrope_section=[2, 3, 3], base=10000)
_MB = multi_rotary("mrope", head_dim=16, mrope_section=[3, 2, 3], base=10000)
def mrope_apply(x, positions):
    return _M.apply(x, positions)
def mrope_apply32(x, positions):
    return _M.apply(np.asarray(x, np.float32), positions).astype(np.float32)
def mrope_bad(x, positions):
    return _MB.apply(x, positions)

_A = multi_rotary("axial-rope", axes_dims=[4, 4, 8], theta=10000)
_AB = multi_rotary("axial-rope", axes_dims=[4, 8, 4], theta=10000)
def axial_apply(x, positions):
    return _A.apply(x, positions)
def axial_apply32(x, positions):
    return _A.apply(np.asarray(x, np.float32), positions).astype(np.float32)
def axial_bad(x, positions):
    return _AB.apply(x, positions)

SLOPES = alibi(8).slopes_array()
SLOPES32 = SLOPES.astype(np.float32).astype(np.float64)
SLOPES_BAD = alibi(8, "mpt", 16).slopes_array()

from transformers.models.t5.modeling_t5 import T5Attention
t5_bucket = T5Attention._relative_position_bucket
def t5_bad(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    return T5Attention._relative_position_bucket(relative_position, bidirectional,
                                                 num_buckets, max_distance * 2)

from torchscale.component.xpos_relative_position import XPOS as _X
_XM, _XB = _X(16), _X(16, scale_base=256)
def XPOS(x, downscale):
    return _XM(x, downscale=downscale)
def XPOS_BAD(x, downscale):
    return _XB(x, downscale=downscale)
'''


def run(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def json_of(status: int, out: str) -> dict:
    data = json.loads(out)
    for key in JSON_KEYS:
        assert key in data, f"--json lacks {key!r}: {sorted(data)}"
    assert isinstance(data["ok"], bool)
    assert data["ok"] == (status == 0)
    assert isinstance(data["theorems"], list)
    assert isinstance(data["checks"], list)
    assert isinstance(data["numbers"], dict)
    return data


@pytest.fixture
def impl_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("torchscale")
    (tmp_path / "famimpl.py").write_text(IMPL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_every_family_has_a_case() -> None:
    assert sorted(CASES) == sorted(family_names())


@pytest.mark.parametrize("family", list(FAMILIES))
def test_spec_parses_and_builds(family: str) -> None:
    fam = FAMILIES[family]
    spec = parse(fam.example)
    assert spec.family == family
    assert parse(spec.text) == spec            # the canonical spelling reads back the same
    assert _build(spec) is not None
    small = parse(CASES[family][0])
    assert small.family == family
    assert _build(small) is not None


@pytest.mark.parametrize("family", list(FAMILIES))
def test_prove_and_check_take_the_spec(family: str, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    spec = CASES[family][0]
    status, out, err = run("prove", spec, "--json", capsys=capsys)
    assert status in (0, 1), err
    data = json_of(status, out)
    assert data["spec"] == parse(spec).text
    assert data["theorems"], f"prove {spec} proved nothing"
    from posproof.families import operations

    scans = "length" in operations(family).TAKES["check"]
    status, out, err = run("check", spec, "--json", *(["-L", "256"] if scans else []),
                           capsys=capsys)
    assert status in (0, 1), err
    data = json_of(status, out)
    assert data["checks"], f"check {spec} checked nothing"
    assert data["spec"] == parse(spec).text


@pytest.mark.parametrize("family", list(FAMILIES))
def test_check_impl_takes_the_spec(family: str, impl_dir: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    spec, good, good32, bad = CASES[family]
    status, out, err = run("check-impl", f"famimpl:{good}", spec, "--json", "-L", "256",
                           capsys=capsys)
    assert status == 0, out[-2000:] + err
    assert json_of(status, out)["spec"] == parse(spec).text
    status, out, err = run("check-impl", f"famimpl:{bad}", spec, capsys=capsys)
    assert status == 1, out + err
    assert "verdict" in out
    if good32 is not None:     # the working precision is read from the data
        status, out, err = run("check-impl", f"famimpl:{good32}", spec, "-L", "256",
                               capsys=capsys)
        if status != 0:        # judged at float64 it fails, and says what it is
            assert status == 1, out
            assert "float32" in out, out
            assert "--dtype float32" in out, out
        status, out, err = run("check-impl", f"famimpl:{good32}", spec, "-L", "256",
                               "--dtype", "float32", capsys=capsys)
        assert status == 0, out[-2000:] + err


@pytest.mark.parametrize("family", list(FAMILIES))
def test_old_flags_are_spellings_of_the_same_spec(family: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The --json ``spec`` of the old flags is the canonical SPEC they spell."""
    spelled = {"vaswani": ["--preset", "vaswani", "--dim", "16", "--base", "10000"],
               "sincos-2d": ["--preset", "sincos-2d", "--dim", "16", "--grid", "4x4"],
               "mrope": ["--preset", "mrope", "--dim", "16", "--base", "10000",
                         "--mrope-section", "2,3,3"],
               "axial-rope": ["--preset", "axial-rope", "--axes-dims", "4,4,8", "--base",
                              "10000"],
               "alibi": ["--alibi", "--heads", "8"],
               "t5": ["--t5", "32,128"],
               "xpos": ["--xpos", "16"]}
    if family not in spelled:
        pytest.skip("rope has no old flags on prove (it had none: the SPEC is its spelling)")
    status, out, err = run("prove", *spelled[family], "--json", capsys=capsys)
    assert status in (0, 1), err
    flags = json_of(status, out)
    status, out, err = run("prove", CASES[family][0], "--json", capsys=capsys)
    by_spec = json_of(status, out)
    assert _build(parse(flags["spec"])).__class__ is _build(parse(by_spec["spec"])).__class__
    assert [t["name"] for t in flags["theorems"]] == [t["name"] for t in by_spec["theorems"]]
    assert [t["status"] for t in flags["theorems"]] == [t["status"] for t in by_spec["theorems"]]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_docs_page(family: str) -> None:
    page = ROOT / FAMILIES[family].docs.split("#")[0]
    assert page.is_file(), page
    spec_page = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
    assert FAMILIES[family].example in spec_page


def test_spec_page_table_is_the_registry() -> None:
    assert families_markdown() in (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")


def test_unknown_family_lists_every_family(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["prove", "nope:dim=8"], ["check", "--preset", "nope"],
                 ["check-impl", "x:y", "nope:dim=8"]):
        status, out, err = run(*argv, capsys=capsys)
        assert status == 2
        assert out == ""
        assert len(err.strip().splitlines()) == 1, err
        for name in family_names():
            assert name in err, (argv, err)


@pytest.mark.parametrize("command", ["prove", "check", "verify", "check-impl", "derive",
                                     "explore", "identify", "explain", "sweep"])
def test_help_lists_every_family(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(command, "--help", capsys=capsys)
    assert status == 0
    flat = " ".join(out.split())
    for name in family_names():
        assert name in flat, (command, name)
    for preset in ("original", "explicit", "sincos-2d", "mrope"):
        assert preset in flat


def test_spec_and_flag_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = run("prove", "alibi:heads=8", "--preset", "fairseq", capsys=capsys)
    assert status == 2
    assert "give one of them" in err


@pytest.mark.parametrize("argv", [["check", "vaswani:dim=8", "-L", "64", "--dtype",
                                   "float16,bfloat16", "--check", "dtype_audit"],
                                  ["check", "vaswani:dim=8", "--length", "64", "--dtype",
                                   "float16", "--dtype", "bfloat16", "--check", "dtype_audit"]])
def test_one_dtype_option(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _err = run(*argv, "--json", capsys=capsys)
    data = json_of(status, out)
    text = json.dumps(data["checks"])
    assert "bfloat16" in text
    assert "float16" in text
    assert "float32" not in text


def test_config_json_is_a_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bloom = tmp_path / "bloom.json"
    bloom.write_text(json.dumps({"model_type": "bloom", "n_head": 8, "hidden_size": 64}))
    status, out, err = run("prove", str(bloom), "--json", capsys=capsys)
    data = json_of(status, out)
    assert any(t["name"].startswith("alibi:") for t in data["theorems"]), err
    llama = tmp_path / "llama.json"
    llama.write_text(json.dumps({"model_type": "llama", "hidden_size": 256,
                                 "num_attention_heads": 4, "rope_theta": 500000.0,
                                 "max_position_embeddings": 131072,
                                 "rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                                                  "low_freq_factor": 1.0,
                                                  "high_freq_factor": 4.0,
                                                  "original_max_position_embeddings": 8192}}))
    status, out, err = run("prove", str(llama), "--json", capsys=capsys)
    data = json_of(status, out)
    assert any("llama3" in t["name"] for t in data["theorems"]), [t["name"] for t in
                                                                   data["theorems"]]
    assert np.isfinite(1.0)


def test_every_command_json_has_the_same_top_level(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """explore, explain (RoPE, T5, ALiBi configs, xPos), identify (a table, ALiBi slopes),
    derive and sweep: the same ``ok, spec, theorems, checks, numbers`` as prove / check."""
    import posproof
    from posproof.model.alibi import alibi

    monkeypatch.chdir(tmp_path)
    configs = ROOT / "tests" / "fixtures" / "configs"
    t5 = tmp_path / "t5.json"
    t5.write_text(json.dumps({"model_type": "t5", "relative_attention_num_buckets": 32,
                              "relative_attention_max_distance": 128}))
    bloom = tmp_path / "bloom.json"
    bloom.write_text(json.dumps({"model_type": "bloom", "n_head": 8}))
    np.save(tmp_path / "table.npy", posproof.preset("vaswani", dim=16).table(np.arange(64)))
    np.save(tmp_path / "slopes.npy", alibi(8).slopes_array())
    grid = tmp_path / "g.toml"
    grid.write_text('metrics = ["pairs"]\nlength = 16\n[[family]]\nkind = "rope"\n'
                    'dim = [8, 4]\n')
    runs = [["explore", "rope:dim=16", "-L", "64", "--no-proofs"],
            ["explain", str(configs / "llama3.1-8b.json"), "-L", "64"],
            ["explain", str(t5)], ["explain", str(bloom)], ["explain", "--xpos", "8"],
            ["identify", "table.npy"], ["identify", "slopes.npy", "--alibi"],
            ["derive", "vaswani:dim=4", "-L", "32", "--no-general", "--no-figures",
             "--format", "md", "--out", "doc"],
            ["sweep", str(grid), "--workers", "0"]]
    for argv in runs:
        status, out, err = run(*argv, "--json", capsys=capsys)
        assert status in (0, 1), (argv, err)
        json_of(status, out)


def test_identify_xpos_takes_the_head_dim_as_elsewhere(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``--xpos HEAD_DIM`` means the same on identify as on prove / check / check-impl: a
    vector of another head dim is not identified as the one claimed."""
    from posproof.model.xpos import XPos

    path = tmp_path / "z.npy"
    np.save(path, np.array([float(z) for z in XPos(16).zetas()]))
    assert run("identify", str(path), "--xpos", capsys=capsys)[0] == 0
    assert run("identify", str(path), "--xpos", "16", capsys=capsys)[0] == 0
    status, out, _ = run("identify", str(path), "--xpos", "32", capsys=capsys)
    assert status == 1
    assert "head_dim 16, not --xpos 32" in out


def test_check_impl_takes_a_config_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A config.json is a SPEC on check-impl too: Llama 3's rotary with its llama3 scaling (a
    plain RoPE of the same base fails against it), BLOOM's ALiBi slopes."""
    from posproof.model.alibi import alibi

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    config = ROOT / "tests" / "fixtures" / "configs" / "llama3.1-8b.json"
    (tmp_path / "cfgimpl.py").write_text(
        "import posproof\n"
        f"_R = posproof.read_config({str(config)!r}).rotary()\n"
        "_P = posproof.rotary(_R.to_dict()['base'], 128)\n"
        "def good(x, positions):\n    return _R.apply(x, positions)\n"
        "def plain(x, positions):\n    return _P.apply(x, positions)\n")
    assert run("check-impl", "cfgimpl:good", str(config), capsys=capsys)[0] == 0
    status, out, _ = run("check-impl", "cfgimpl:plain", str(config), capsys=capsys)
    assert status == 1
    assert "llama3" in out
    bloom = tmp_path / "bloom.json"
    bloom.write_text(json.dumps({"model_type": "bloom", "n_head": 8}))
    np.save(tmp_path / "slopes.npy", alibi(8).slopes_array())
    (tmp_path / "slopesmod.py").write_text("import numpy as np\nS = np.load('slopes.npy')\n")
    assert run("check-impl", "slopesmod:S", str(bloom), capsys=capsys)[0] == 0


# issue 29 item 7: an option passed is given whatever its value (0 == False in Python)
@pytest.mark.parametrize(("spec", "option"), [
    ("t5:num_buckets=32,max_distance=128", {"length": 0}),
    ("xpos:dim=64", {"dps": 0}),
    ("xpos:dim=64", {"length": 0}),
])
def test_an_option_given_as_zero_is_given(spec: str, option: dict) -> None:
    from posproof import families
    from posproof.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match=f"does not take {next(iter(option))}"):
        families.check(spec, **option)


@pytest.mark.parametrize("argv", [["check", "xpos:dim=64", "--dps", "0"],
                                  ["check", "t5:num_buckets=32,max_distance=128", "--dps", "0"]])
def test_an_option_given_as_zero_is_refused_on_the_command_line(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "does not take dps" in err
