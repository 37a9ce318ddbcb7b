"""Model configs and specs: every spelling, every conflict, never a silent default."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from posproof import Encoding
from posproof.errors import InvalidParameter, PosproofError, UnknownName
from posproof.model.configs import parse_spec, read_config
from posproof.model.rope import Rotary
from posproof.model.scaling import (
    DynamicNTKScaling,
    Llama3Scaling,
    LongRoPEScaling,
    YaRNScaling,
    float_frequencies,
)
from posproof.model.schedules import Geometric

FIXTURES = Path(__file__).parent / "fixtures" / "configs"
BASE = {"head_dim": 64, "max_position_embeddings": 4096}


def cfg(**keys):
    return {**BASE, **keys}


# --------------------------------------------------------------------------- fixtures
def test_llama31_fixture():
    """Llama 3.1 8B: llama3 banding, base 500000, head 4096/32, half layout (HF)."""
    c = read_config(FIXTURES / "llama3.1-8b.json")
    assert (c.rope_type, c.rope_theta, c.head_dim, c.rotary_dim, c.layout) == (
        "llama3", 500000, 128, 128, "half")
    rot = c.rotary()
    assert rot.schedule == Llama3Scaling(500000, 8, 1, 4, 8192)


def test_new_and_old_spellings_of_llama31_agree():
    """rope_parameters (rope_theta inside) and rope_scaling (outside) give the same rotary."""
    old = read_config(FIXTURES / "llama3.1-8b.json").rotary()
    new = read_config(FIXTURES / "llama3.1-8b-rope-parameters.json").rotary()
    assert old.schedule == new.schedule
    assert old.frequencies == new.frequencies


def test_llama2_has_no_rope_theta_and_is_refused_unless_a_default_is_passed():
    """The release-time Llama 2 file lacks rope_theta: an error, or the default is reported."""
    with pytest.raises(InvalidParameter, match="no rope_theta") as info:
        read_config(FIXTURES / "llama2-7b.json")
    assert "default_theta" in str(info.value)
    assert "HF would silently use 10000" in str(info.value)
    c = read_config(FIXTURES / "llama2-7b.json", default_theta=10000)
    assert c.rope_theta == 10000
    assert any("default_theta=10000" in n for n in c.notes)


def test_mistral_fixture():
    """Mistral 7B v0.1: default RoPE, base 10000, head 128."""
    c = read_config(FIXTURES / "mistral-7b-v0.1.json")
    assert (c.rope_type, c.rope_theta, c.head_dim) == ("default", 10000, 128)
    assert c.rotary().schedule == Geometric(10000)


def test_qwen2_yarn_fixture():
    """Qwen2 YaRN (old `type` spelling): factor 4, original 32768, attention 0.1 ln 4 + 1."""
    rot = read_config(FIXTURES / "qwen2-7b-yarn.json").rotary()
    assert rot.schedule == YaRNScaling(1000000, 4, 32768)
    assert rot.attention_factor == sp.log(4) / 10 + 1


def test_phi3_longrope_fixture():
    """Phi-3 mini 128k: original at the top level, factor derived (32), short below L."""
    c = read_config(FIXTURES / "phi3-mini-128k.json")
    assert c.rope_type == "longrope"
    assert c.head_dim == 96
    assert c.params["original_max_position_embeddings"] == 4096
    assert c.params["factor"] == 32
    assert any("factor missing" in n for n in c.notes)
    short, long = c.rotary(), c.rotary(seq_len=8192)
    assert isinstance(short.schedule, LongRoPEScaling)
    assert not short.schedule.uses_long
    assert long.schedule.uses_long
    assert short.attention_factor == sp.sqrt(1 + sp.log(32) / sp.log(4096))


def test_pythia_gpt_neox_spellings():
    """rotary_pct / rotary_emb_base: rotary_dim = int(64·0.25) = 16, pass-through 48."""
    rot = read_config(FIXTURES / "pythia-160m.json").rotary()
    assert (rot.head_dim, rot.rotary_dim, len(rot.passthrough)) == (64, 16, 48)
    assert rot.schedule == Geometric(10000)


def test_gptj_attribute_names_and_adjacent_layout():
    """GPT-J: n_embd/n_head, explicit rotary_dim 64, adjacent pairs, base from the caller."""
    c = read_config(FIXTURES / "gptj-6b.json", default_theta=10000)
    assert (c.head_dim, c.rotary_dim, c.layout) == (256, 64, "adjacent")


def test_dynamic_fixture_uses_max_position_embeddings_and_seq_len():
    """dynamic NTK: L = max_position_embeddings (as HF); seq_len selects the table."""
    c = read_config(FIXTURES / "llama2-7b-dynamic.json", seq_len=16384)
    assert c.rotary().schedule == DynamicNTKScaling(10000, 2, 4096, seq_len=16384)
    at_init = read_config(FIXTURES / "llama2-7b-dynamic.json").rotary()
    np.testing.assert_array_equal(float_frequencies(at_init.schedule, 128),
                                  float_frequencies(Geometric(10000), 128))


def test_fixtures_readme_names_every_fixture():
    """Provenance: every fixture file is described in README.md."""
    readme = (FIXTURES / "README.md").read_text()
    for path in FIXTURES.glob("*.json"):
        assert f"`{path.name}`" in readme


# --------------------------------------------------------------------------- spellings
@pytest.mark.parametrize("block", ["rope_scaling", "rope_parameters"])
@pytest.mark.parametrize("type_key", ["type", "rope_type"])
@pytest.mark.parametrize("theta_inside", [False, True])
def test_every_spelling_reads_the_same(block, type_key, theta_inside):
    """rope_scaling / rope_parameters × type / rope_type × rope_theta inside / outside."""
    rope = {type_key: "linear", "factor": 4.0}
    keys = {block: rope}
    if theta_inside:
        rope["rope_theta"] = 500000.0
    else:
        keys["rope_theta"] = 500000.0
    rot = read_config(cfg(**keys)).rotary()
    assert rot.schedule.rope_type == "linear"
    assert rot.schedule.base == 500000
    assert rot.schedule.factor == 4


def test_both_blocks_rope_scaling_replaces_rope_parameters():
    """rope_scaling and rope_parameters both present: rope_scaling replaces rope_parameters
    whole, as transformers 5.x reads it (issue 28), with a note."""
    rope = {"rope_type": "linear", "factor": 2}
    c = read_config(cfg(rope_theta=1e4, rope_scaling=rope, rope_parameters=dict(rope)))
    assert c.rope_type == "linear"
    assert any("rope_scaling replaces rope_parameters" in n for n in c.notes)
    c = read_config(cfg(rope_theta=1e4, rope_scaling={"type": "linear", "factor": 2},
                        rope_parameters={"rope_type": "linear", "factor": 4}))
    assert c.rope_type == "linear"
    assert c.params["factor"] == 2
    c = read_config(cfg(rope_theta=1e4, rope_scaling={"type": "dynamic", "factor": 2},
                        rope_parameters={"rope_type": "default"}))
    assert c.rope_type == "dynamic"


def test_hidden_size_over_heads_and_null_head_dim():
    """head_dim null falls back to hidden_size/num_attention_heads, and says so."""
    c = read_config({"rope_theta": 1e4, "head_dim": None, "hidden_size": 2048,
                     "num_attention_heads": 16})
    assert c.head_dim == 128
    assert any("hidden_size/num_attention_heads" in n for n in c.notes)


def test_nested_rope_parameters_need_a_layer():
    """rope_parameters per layer type: ask for the layer, then read it."""
    nested = {"full_attention": {"rope_type": "default", "rope_theta": 1e6},
              "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}
    with pytest.raises(InvalidParameter, match="nested per layer type"):
        read_config(cfg(rope_parameters=nested))
    assert read_config(cfg(rope_parameters=nested), layer="sliding_attention").rope_theta == 10000
    with pytest.raises(UnknownName, match="layer='global'"):
        read_config(cfg(rope_parameters=nested), layer="global")


def test_text_config_of_a_multimodal_config():
    """RoPE keys nested in text_config are found (and noted)."""
    c = read_config({"model_type": "llava", "text_config": {"rope_theta": 1e6, **BASE}})
    assert c.rope_theta == 1000000
    assert "text_config" in c.notes[0]


def test_su_is_the_old_name_of_longrope():
    """Phi-3's "su" type is read as longrope, with a note."""
    c = read_config(cfg(rope_theta=1e4, original_max_position_embeddings=2048, rope_scaling={
        "type": "su", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32, "factor": 2}))
    assert c.rope_type == "longrope"
    assert any("'su'" in n for n in c.notes)


def test_yarn_defaults_are_reported():
    """YaRN without original_max_position_embeddings uses max_position_embeddings, noted."""
    c = read_config(cfg(rope_theta=1e4, rope_scaling={"type": "yarn", "factor": 2}))
    assert c.params["original_max_position_embeddings"] == 4096
    assert any("original_max_position_embeddings missing" in n for n in c.notes)


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(("keys", "error", "match"), [
    ({"rope_theta": 1e4, "rope_scaling": {"type": "linear", "rope_type": "dynamic",
                                          "factor": 2}}, InvalidParameter,
     "conflicting rope type"),
    ({"rope_theta": 1e4, "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}},
     InvalidParameter, "conflicting rope_theta: rope_theta=10000.0, "
                       "rope_parameters.rope_theta=500000.0"),
    ({"rope_theta": 1e4, "rope_scaling": {"type": "wibble", "factor": 2}}, UnknownName,
     "rope type 'wibble' is not supported; use one of default, linear"),
    ({"rope_theta": 1e4, "rope_scaling": {"type": "linear", "factr": 2}}, InvalidParameter,
     "rope_scaling.factr is not a key of rope type 'linear'; it takes factor"),
    ({"rope_theta": 1e4, "rope_scaling": {"type": "linear"}}, InvalidParameter,
     "needs rope_scaling.factor"),
    ({"rope_theta": 1e4, "rope_scaling": {"type": "linear", "factor": None}}, InvalidParameter,
     "needs rope_scaling.factor"),
    ({"rope_theta": 1e4, "rope_scaling": {"type": "linear", "factor": -2}}, InvalidParameter,
     "factor=-2 must be > 0"),
    ({"rope_theta": 5e5, "rope_scaling": {"rope_type": "llama3", "factor": 8,
                                          "low_freq_factor": 4, "high_freq_factor": 1,
                                          "original_max_position_embeddings": 8192}},
     InvalidParameter, "low_freq_factor=4 must be < high_freq_factor=1"),
    ({"rope_theta": 1e4, "partial_rotary_factor": 1.5}, InvalidParameter,
     r"partial_rotary_factor=1.5 must be in \(0, 1\]"),
    ({"rope_theta": 1e4, "rotary_dim": 96}, InvalidParameter,
     "rotary_dim=96 is larger than head_dim=64"),
    ({"rope_theta": 1e4, "partial_rotary_factor": 0.25, "rope_parameters": {
        "rope_type": "default", "partial_rotary_factor": 0.5}}, InvalidParameter,
     "conflicting partial_rotary_factor"),
    ({"rope_theta": 1e4, "original_max_position_embeddings": 2048, "rope_scaling": {
        "type": "yarn", "factor": 2, "original_max_position_embeddings": 4096}},
     InvalidParameter, "conflicting original_max_position_embeddings"),
    ({"rope_theta": 1, "head_dim": 8}, InvalidParameter, "rope_theta=1 must be > 1"),
    ({"rope_theta": "ten thousand"}, InvalidParameter, "rope_theta"),
    ({"rope_theta": 1e4, "rope_scaling": [1, 2]}, InvalidParameter, "must be an object"),
    ({"rope_theta": 1e4, "model_type": "gpt_neox"}, InvalidParameter,
     "gpt_neox config without rotary_pct"),
    ({"rope_theta": 1e4, "rope_scaling": {"type": "dynamic", "factor": 2},
      "max_position_embeddings": None}, InvalidParameter, "dynamic NTK needs "
                                                          "max_position_embeddings"),
])
def test_conflicts_and_bad_values_are_refused(keys, error, match):
    """Each refusal names the key, what is allowed and how to fix it; all are ValueErrors."""
    with pytest.raises(error, match=match) as info:
        read_config(cfg(**keys))
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, PosproofError)


def test_malformed_json(tmp_path):
    """A malformed file: where it breaks and the usual cause."""
    path = tmp_path / "config.json"
    path.write_text('{"rope_theta": 10000,}')
    with pytest.raises(InvalidParameter, match="malformed JSON at line 1, column 22"):
        read_config(path)
    with pytest.raises(InvalidParameter, match="cannot be read"):
        read_config(tmp_path / "missing.json")
    path.write_text("[1, 2]")
    with pytest.raises(InvalidParameter, match="top level is a list"):
        read_config(path)


def test_hidden_size_not_divisible():
    """hidden_size/num_attention_heads must divide."""
    with pytest.raises(InvalidParameter, match="not divisible"):
        read_config({"rope_theta": 1e4, "hidden_size": 100, "num_attention_heads": 3})


# --------------------------------------------------------------------------- specs
def test_rope_specs():
    """rope:key=value specs build Rotary objects; numbers are exact, lists ;-separated."""
    rot = parse_spec("rope:base=500000,dim=128,scaling=llama3,factor=8,"
                     "original_max_position_embeddings=8192,name=l3")
    assert rot.name == "l3"
    assert rot.schedule == Llama3Scaling(500000, 8, 1, 4, 8192)
    assert parse_spec("rope:theta=1e6,head_dim=64,layout=adjacent").schedule == Geometric(10**6)
    lr = parse_spec("rope:dim=4,scaling=longrope,short_factor=1;1.5,long_factor=1;4,orig=64",
                    seq_len=100)
    assert lr.schedule.uses_long
    assert lr.schedule.long_factor == (1, 4)


def test_config_specs(tmp_path):
    """A path, or rope:config=PATH with seq_len and layout."""
    path = FIXTURES / "llama2-7b-dynamic.json"
    assert isinstance(parse_spec(str(path)), Rotary)
    assert parse_spec(f"rope:layout=adjacent,config={path}").layout == "adjacent"  # ends in .json
    rot = parse_spec(f"rope:config={path},seq_len=8192,layout=adjacent")
    assert rot.layout == "adjacent"
    assert rot.schedule.seq_len == 8192
    (tmp_path / "c.json").write_text(json.dumps({"head_dim": 8}))
    with pytest.raises(InvalidParameter, match="no rope_theta"):
        parse_spec(str(tmp_path / "c.json"))
    assert parse_spec(f"rope:config={tmp_path / 'c.json'},default_theta=100").schedule == \
        Geometric(100)


def test_sinusoidal_specs():
    """Preset names and sin/sinusoidal build sinusoidal Encodings."""
    enc = parse_spec("sinusoidal:dim=16,base=100")
    assert isinstance(enc, Encoding)
    assert enc.dim == 16
    assert parse_spec("tensor2tensor:dim=8").layout.name == "split"


@pytest.mark.parametrize(("spec", "match"), [
    ("", "empty spec"),
    ("rope:base", "is not key=value"),
    ("rope:base=1,base=2", "base is given twice"),
    ("rope:dim=abc", "dim='abc' is not an integer"),
    ("rope:bse=10", "unknown key 'bse'"),
    ("hexagon:dim=8", "family 'hexagon' is not known"),
    ("rope:config=x.json,factor=2", "with config= only"),
    ("rope:scaling=yarn,truncate=maybe", "truncate='maybe'"),
    ("rope:base=__import__('os')", "rope_theta .* uses a function call"),
])
def test_bad_specs(spec, match):
    """Bad specs are refused with the reason; nothing is evaluated."""
    with pytest.raises(PosproofError, match=match):
        parse_spec(spec)


# ------------------------------------------------------------- published configs read as HF does
def _published(kind):
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    import model_configs as mc

    return json.loads(json.dumps(mc.PUBLISHED[kind]))


@pytest.mark.parametrize("kind", ["gptj", "codegen"])
def test_gptj_and_codegen_take_the_base_their_code_fixes(kind):
    """create_sinusoidal_positions: 10000 ** (arange(0, dim, 2) / dim), no config key."""
    c = read_config(_published(kind))
    assert c.rope_theta == 10000
    assert any("fixed in HF's" in n for n in c.notes)
    assert read_config({**_published(kind), "rope_theta": 10000}).rope_theta == 10000
    with pytest.raises(InvalidParameter, match="fixes the base at 10000") as info:
        read_config({**_published(kind), "rope_theta": 500000})
    assert "\n" not in str(info.value)


def test_dbrx_spellings_are_read_as_its_attribute_map():
    c = read_config(_published("dbrx"))
    assert (c.head_dim, c.rotary_dim, c.max_position_embeddings) == (6144 // 48, 128, 32768)
    assert c.rope_theta == 500000


def test_phimoe_mscales_are_its_attention_factor_and_short_factor_rotates_everywhere():
    data = _published("phimoe")
    c = read_config(data)
    assert float(c.params["attention"]) == data["rope_scaling"]["short_mscale"]
    assert c.params["long_factor"] == c.params["short_factor"]
    data["rope_scaling"]["long_factor"] = [2.0] * len(data["rope_scaling"]["long_factor"])
    c = read_config(data)
    assert c.params["long_factor"] == c.params["short_factor"]
    assert any("long_factor is never used" in n for n in c.notes)
    unequal = _published("phimoe")
    unequal["rope_scaling"]["long_mscale"] = 1.5
    with pytest.raises(InvalidParameter, match=r"short_mscale=.* and long_mscale=1\.5 differ"):
        read_config(unequal)
    unequal["rope_scaling"]["long_mscale"] = "big"
    with pytest.raises(InvalidParameter, match="long_mscale='big'"):
        read_config(unequal)
