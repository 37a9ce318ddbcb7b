"""Issue 28: every position-bearing model type transformers ships, read the way it reads them.

* the table of model types (posproof/whole/types.py) is what ``check-model --list`` prints and
  what docs/check-model.md lists; a type outside it is refused in one line before torch is
  imported; without torch check-model exits 2 naming the extra;
* positions come from transformers' config object and the model it builds: conflicting and
  legacy spellings (``rope_scaling`` + ``rope_parameters``, ``type`` / ``rope_type``,
  ``original_max_position_embeddings`` only inside the scaling block) are compared with the
  rotary module of the built model;
* each type, built from its published config (tests/model_configs.py ``PUBLISHED``), gets the
  verdict its position rule implies (the per-type runs are ``slow``, but for a handful).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import model_configs as mc
import pytest

from posproof.cli.app import main
from posproof.whole.types import REFUSED, TYPES, doc_with_table, refusal, table_lines

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "check-model.md"


# --------------------------------------------------------------------------- the table
def test_the_table_has_at_least_40_types_each_with_a_published_config():
    assert len(TYPES) >= 40
    assert sorted(mc.PUBLISHED) == sorted(TYPES)
    for kind, config in mc.PUBLISHED.items():
        assert config["model_type"] == kind


def test_refused_and_built_types_do_not_overlap():
    assert not set(TYPES) & set(REFUSED)


def test_the_doc_lists_the_table():
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- model types: generated")
    block = text[text.index("\n", start) + 1:text.index("<!-- end of model types -->")]
    assert block.rstrip("\n").splitlines() == table_lines(), \
        "regenerate with: python scripts/gen_docs.py --cli"
    assert f"{len(TYPES)} model types" in text
    assert doc_with_table(text) == text


def test_cli_list_prints_the_table(capsys):
    assert main(["check-model", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == table_lines()
    assert len(out) - 2 == len(TYPES) >= 40


def test_check_model_without_config_or_list_exits_2(capsys):
    assert main(["check-model"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "--list" in err


@pytest.mark.parametrize(("kind", "words"), [("mamba", "state-space"),
                                         ("jamba", "no positions"),
                                         ("no_such_type", "not one check-model knows")])
def test_a_type_outside_the_table_is_refused_in_one_line(kind, words, tmp_path, capsys):
    path = mc.write(tmp_path, {"model_type": kind, "hidden_size": 64})
    assert main(["check-model", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert words in err
    assert repr(kind) in err
    assert refusal(kind) is not None
    assert refusal("llama") is None


_NO_TORCH = (
    "import sys\n"
    "sys.modules['torch'] = None\n"
    "sys.modules['transformers'] = None\n"
    "from posproof.cli.app import main\n"
    "sys.exit(main(['check-model', sys.argv[1]]))\n")

_REFUSAL_IMPORTS = (
    "import sys\n"
    "from posproof.cli.app import main\n"
    "status = main(['check-model', sys.argv[1]])\n"
    "print(status, 'torch' in sys.modules, 'transformers' in sys.modules)\n")


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)


def test_without_torch_check_model_exits_2_naming_the_extra(tmp_path):
    path = mc.write(tmp_path, mc.LLAMA3_8B)
    done = _python(_NO_TORCH, str(path))
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1
    assert "posproof[impl]" in err
    assert "Traceback" not in err


def test_a_refusal_comes_before_torch_is_imported(tmp_path):
    path = mc.write(tmp_path, {"model_type": "mamba", "d_model": 384})
    done = _python(_REFUSAL_IMPORTS, str(path))
    assert done.stdout.split() == ["2", "False", "False"], done.stderr
    assert "state-space" in done.stderr


@pytest.mark.parametrize(("section", "head_dim"), [([16, 24, 20], None), ([16, 24, 24], 96),
                                                   ([8, 12, 12], None)])
def test_mrope_sections_that_do_not_fit_head_dim_are_refused_before_torch(section, head_dim,
                                                                         tmp_path):
    """transformers would fail in split_with_sizes; the refusal names both numbers."""
    data = {**mc.PUBLISHED["qwen2_vl"], "rope_scaling": {"type": "mrope",
                                                          "mrope_section": section}}
    if head_dim is not None:
        data["head_dim"] = head_dim
    done = _python(_REFUSAL_IMPORTS, str(mc.write(tmp_path, data)))
    assert done.stdout.split() == ["2", "False", "False"], done.stderr
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1
    assert f"mrope_section={section}" in err
    assert f"head_dim is {head_dim or 128}" in err
    assert "split_with_sizes" not in err


# --------------------------------------------------------------------------- read as transformers
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from posproof.whole import check_model  # noqa: E402
from posproof.whole.api import load  # noqa: E402
from posproof.whole.build import model_info, transformers_config  # noqa: E402


def statuses(report):
    return {c.name: c.status for c in report.checks}


def _rotary(model):
    return next(m for m in model.modules() if "Rotary" in type(m).__name__)


@pytest.fixture(scope="module")
def conflict_runner():
    """The issue's Llama: rope_parameters (default) and rope_scaling (dynamic) both present."""
    return load(mc.LLAMA_SCALING_CONFLICT)


def test_rope_scaling_replaces_rope_parameters_as_in_transformers(conflict_runner):
    info = conflict_runner.info
    built = _rotary(conflict_runner.model)
    assert built.rope_type == "dynamic" == info.rope_type
    assert info.original_max == built.original_max_seq_len == 64
    assert info.rope["factor"] == 2.0
    # posproof's own SPEC reading now reads the two blocks as transformers does: no note
    assert info.notes == []
    from posproof.model.configs import read_config

    spec = read_config(mc.LLAMA_SCALING_CONFLICT)
    assert spec.rope_type == "dynamic"
    assert any("rope_scaling replaces rope_parameters" in n for n in spec.notes)


def test_the_conflicting_llama_fails_from_the_switch_with_the_right_explanations(
        conflict_runner):
    from posproof.whole.checks import run_model_checks

    with torch.no_grad():
        checks = {c.name: c for c in run_model_checks(conflict_runner, length=64)}
    assert {k: c.status for k, c in checks.items()} == {
        "shift_invariance": "fail", "kv_cache": "fail", "left_padding": "pass",
        "cache_boundary": "fail"}
    for name in ("kv_cache", "cache_boundary"):
        assert checks[name].values["explanation"]["cause"] == "dynamic rotation"
        assert "dynamic NTK" in checks[name].note
        assert checks[name].values["first_position"] == 64
    assert "rope_type=dynamic" in checks["shift_invariance"].note
    assert "base 10357.9" in checks["cache_boundary"].note


def test_the_conflict_note_is_printed_in_one_line(tmp_path, capsys):
    # DeepSeek-V2's MLA: posproof's SPEC reading rotates all 128 dims in halves; transformers
    # rotates qk_rope_head_dim = 64 in adjacent pairs
    path = mc.write(tmp_path, mc.PUBLISHED["deepseek_v2"])
    assert main(["check-model", str(path), "--length", "8", "--check", "kv_cache"]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1
    assert "rotary dims=128 (transformers: 64)" in notes[0]
    assert "follows transformers" in notes[0]


@pytest.mark.parametrize(("scaling", "rope_type"), [
    ({"type": "linear", "factor": 4.0}, "linear"),
    ({"rope_type": "linear", "factor": 4.0}, "linear"),
    ({"type": "dynamic", "factor": 2.0}, "dynamic"),
    ({"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}, "yarn"),
    ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192}, "llama3"),
])
def test_legacy_spellings_read_as_the_built_rotary_module(scaling, rope_type):
    data = {**mc.LLAMA3_8B, "rope_scaling": scaling}
    runner = load(data)
    built = _rotary(runner.model)
    assert runner.info.rope_type == built.rope_type == rope_type
    assert runner.info.rope_theta == 500000.0
    # the inverse frequencies the model holds are those of the rule posproof names
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    init = ROPE_INIT_FUNCTIONS.get(rope_type)
    if init is not None:
        inv, _ = init(runner.model.config, "cpu")
        assert torch.equal(inv.to(built.original_inv_freq.dtype), built.original_inv_freq)


def test_original_max_only_inside_the_scaling_block_is_the_switch():
    # Phi-3.5-MoE's shape: the switch only inside the block; PhimoeConfig keeps it
    config = transformers_config(mc.PUBLISHED["phimoe"])
    assert model_info(config).original_max == 40
    assert config.rope_parameters["original_max_position_embeddings"] == 40


def test_phi3_class_default_overrides_a_switch_inside_the_block():
    """Phi3Config has original_max_position_embeddings = 4096 as a class default, and its
    standardisation gives the attribute priority over the block's value: transformers switches
    at 4096, not 40.  posproof's SPEC reading says 40; check-model says so and follows."""
    data = {**mc.PHI3_SMALL_SWITCH}
    data.pop("original_max_position_embeddings")
    data["rope_scaling"] = {**data["rope_scaling"], "original_max_position_embeddings": 40}
    config = transformers_config(data)
    assert config.rope_parameters["original_max_position_embeddings"] == 4096
    runner = load(data)
    assert runner.info.original_max == 4096
    assert any("original_max_position_embeddings=40 (transformers: 4096)" in n
               for n in runner.info.notes), runner.info.notes


def test_partial_rotary_is_read_from_the_built_model():
    for kind, dims in (("phi", 32), ("stablelm", 20), ("gpt_neox", 16), ("persimmon", 32),
                       ("glm", 64)):
        runner = load(mc.PUBLISHED[kind])
        assert runner.info.rotary_dim == dims, kind
        assert 2 * _rotary(runner.model).inv_freq.numel() == dims, kind


def test_gemma3_local_and_global_bases_and_layer_types():
    info = model_info(mc.PUBLISHED["gemma3_text"])
    assert info.rope_theta == 1e6
    assert info.local_rope_theta == 1e4
    assert info.sliding_window == 512
    assert info.layer_types[:6] == ["sliding_attention"] * 5 + ["full_attention"]
    runner = load(mc.PUBLISHED["gemma3_text"])       # two layers: one of each type
    assert runner.info.layer_types == ["sliding_attention", "full_attention"]


def test_mla_rotary_dims_are_the_decoupled_part():
    info = model_info(mc.PUBLISHED["deepseek_v2"])
    assert (info.rotary_dim, info.rope_type, info.interleaved) == (64, "yarn", True)
    assert info.rope["factor"] == 40
    assert info.rope["original_max_position_embeddings"] == 4096


def test_alibi_and_t5_settings():
    assert model_info(mc.PUBLISHED["mpt"]).alibi_bias_max == 8.0
    assert model_info(mc.PUBLISHED["mpt"]).n_head == 32
    falcon_alibi = {**mc.PUBLISHED["falcon"], "alibi": True}
    assert model_info(falcon_alibi).family == "alibi"
    assert model_info(mc.PUBLISHED["falcon"]).family == "rope"
    assert model_info(mc.PUBLISHED["umt5"]).t5_buckets == (32, 128)


def test_mixtral_runs_its_experts_in_float64(tmp_path, capsys):
    """The issue's traceback (torch._grouped_mm has no float64) is gone: eager experts."""
    path = mc.write(tmp_path, mc.MIXTRAL_8X7B)
    status = main(["check-model", str(path), "--length", "8", "--check", "kv_cache"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "Traceback" not in err
    assert "✓ kv_cache" in out


def test_an_exception_inside_transformers_is_one_line(tmp_path, capsys):
    # transformers' own Nemotron defaults leave num_key_value_heads None: its attention
    # divides by it while building the model
    path = mc.write(tmp_path, {"model_type": "nemotron"})
    assert main(["check-model", str(path), "--length", "8"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "model_type='nemotron'" in err
    assert "building the model" in err
    assert "TypeError" in err


# --------------------------------------------------------------------------- every type
DYNAMIC = {"phi3"}                   # LongRoPE switch moved to 40 (PHI3_SMALL_SWITCH)
#: encoder–decoders with a learned/sinusoidal decoder table count their positions from the
#: decoder's input, pads included: a left-padded decoder row is shifted.
#: (Whisper takes decoder_position_ids: its left-padded rows are positioned from the mask.)
ENC_DEC_ABSOLUTE = {k for k, v in TYPES.items()
                    if v[0] == "absolute" and v[1] != "AutoModelForCausalLM"} - {"whisper"}


def expected(kind: str, family: str) -> dict[str, str]:
    """The verdict the type's position rule implies (L = 16)."""
    if kind in DYNAMIC:
        return {"shift_invariance": "fail", "kv_cache": "fail", "left_padding": "pass",
                "cache_boundary": "fail"}
    if family in ("rope", "mrope"):
        return dict.fromkeys(("shift_invariance", "kv_cache", "left_padding",
                              "cache_boundary"), "pass")
    out = dict.fromkeys(("shift_invariance", "kv_cache", "left_padding", "cache_boundary"),
                        "pass")
    if kind in ENC_DEC_ABSOLUTE:
        out["left_padding"] = "fail"
    return out


FAST = ("llama", "gpt_neox", "bloom", "t5", "gpt2")


@pytest.mark.parametrize("kind", [pytest.param(k, marks=() if k in FAST else pytest.mark.slow)
                                  for k in sorted(TYPES)])
def test_each_type_gets_the_verdict_its_position_rule_implies(kind):
    # a shorter window for the tests where the published one straddles thousands of tokens
    config = dict(mc.PUBLISHED[kind])
    if config.get("sliding_window") and kind in ("gemma2", "cohere2", "starcoder2", "exaone4",
                                                        "olmo3"):
        config["sliding_window"] = 12
    report = check_model(config, length=16)
    family = report.encoding["positions"]
    assert statuses(report) == expected(kind, family), [
        (c.name, c.status, c.note) for c in report.checks]
    if family == "absolute":
        assert report.checks[0].note == "absolute positions"
    json.dumps(report.encoding)           # the spec is plain data


def test_phimoe_switches_only_its_mscale():
    """transformers' PhiMoE recomputes its frequencies with the short factors in every forward
    (its rotary module's forward calls the LongRoPE rule without a length), so only the mscale
    switches at original_max_position_embeddings: with the published equal mscales the cache
    is consistent (the PUBLISHED verdict above), with unequal ones it breaks from the switch."""
    config = {**mc.PUBLISHED["phimoe"]}
    config["rope_scaling"] = {**config["rope_scaling"], "long_mscale": 1.5}
    report = check_model(config, length=16, checks=["kv_cache", "cache_boundary"])
    assert statuses(report) == {"kv_cache": "fail", "cache_boundary": "fail"}
    assert report.checks[0].values["first_position"] == 40


def test_the_spec_note_names_every_difference_from_what_transformers_builds():
    """spec_disagreement: none for a config both read alike; a base, rotated width or pair
    layout transformers builds otherwise is named, down to a base off by one in 500000."""
    from posproof.whole.build import spec_disagreement

    data = mc.LLAMA3_8B
    info = model_info(transformers_config(data))
    assert spec_disagreement(data, info) is None
    info.rope_theta = 500001.0
    note = spec_disagreement(data, info)
    assert note is not None
    assert "rope_theta=500000 (transformers: 500001)" in note
    info.rope_theta, info.rotary_dim = 500000.0, 64
    assert "rotary dims=128 (transformers: 64)" in spec_disagreement(data, info)
    info.rotary_dim, info.interleaved = 128, True
    assert "pairs=halves (transformers: adjacent)" in spec_disagreement(data, info)
