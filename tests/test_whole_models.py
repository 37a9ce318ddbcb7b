"""Issue 23: whole models from their configs, positions checked end to end.

Real transformers models (tiny, float64, random weights) built from configs modelled on the
real config.json files (tests/model_configs.py) each get their verdict; broken copies (a
forward that restarts positions after the cache, one that ignores position ids under left
padding, a dynamic-scaling cache) get the confirmed explanation; bad input exits 2 in one line.
"""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import model_configs as mc  # noqa: E402

from posproof.cli.app import main  # noqa: E402
from posproof.errors import InvalidParameter, UnknownName  # noqa: E402
from posproof.testing import assert_model_positions  # noqa: E402
from posproof.whole import check_model  # noqa: E402
from posproof.whole.api import load  # noqa: E402
from posproof.whole.checks import FAIL_MARGIN, SAFETY, Tolerance  # noqa: E402

L = 12


def statuses(report):
    return {c.name: c.status for c in report.checks}


# --------------------------------------------------------------------------- verdicts
@pytest.mark.parametrize("config", [mc.LLAMA3_8B, mc.MISTRAL_SMALL_WINDOW, mc.QWEN2_7B,
                                    mc.GEMMA_7B, mc.QWEN2_VL_7B],
                         ids=["llama", "mistral-window", "qwen2", "gemma", "qwen2-vl"])
def test_relative_rope_models_pass_everything(config, tmp_path):
    report = check_model(mc.write(tmp_path, config), length=L)
    assert statuses(report) == {"shift_invariance": "pass", "kv_cache": "pass",
                                "left_padding": "pass", "cache_boundary": "pass"}
    assert report.ok
    shift = report["shift_invariance"]
    assert shift.sampled
    assert shift.evidence.method == "float64 forward vs derived tolerance"
    assert shift.values["max_difference"] <= shift.values["tolerance"]
    assert max(shift.values["shifts"]) >= (config.get("max_position_embeddings") or 0) // 2


def test_mistral_cache_straddles_its_sliding_window(tmp_path):
    report = check_model(mc.write(tmp_path, mc.MISTRAL_SMALL_WINDOW), length=L,
                         checks=["kv_cache"])
    scenarios = report["kv_cache"].values["scenarios"]
    window = [s for s in scenarios if "sliding window" in s["scenario"]]
    assert window
    assert window[0]["decoded"] == [11, 12]


def test_qwen2_vl_keeps_its_mrope_sections_and_head_dim(tmp_path):
    runner = load(mc.write(tmp_path, mc.QWEN2_VL_7B))
    text = runner.config.text_config
    assert text.hidden_size // text.num_attention_heads == 128
    assert text.rope_parameters["mrope_section"] == [16, 24, 24]
    assert text.rope_parameters["rope_theta"] == 1000000.0


@pytest.mark.parametrize(("config", "shifted"), [(mc.GPT2, 1008), (mc.OPT_125M, 2032)],
                         ids=["gpt2", "opt"])
def test_absolute_models_report_absolute_positions(config, shifted, tmp_path):
    report = check_model(mc.write(tmp_path, config), length=16)
    shift = report["shift_invariance"]
    assert shift.status == "pass"
    assert shift.note == "absolute positions"
    assert shift.values["positions"] == "absolute"
    assert shift.values["at_shift"] == shifted
    assert shift.values["max_difference"] > 1e-3          # it does move: a learned table
    assert statuses(report)["kv_cache"] == "pass"
    assert statuses(report)["left_padding"] == "pass"
    boundary = report["cache_boundary"]               # issue 28: all four checks
    assert boundary.status == "pass"
    assert "learned position vector" in boundary.values["summary"]
    assert boundary.evidence.coverage == "structural"


def test_gpt2_names_arange_positions_when_none_are_passed(tmp_path):
    padding = check_model(mc.write(tmp_path, mc.GPT2), length=16,
                          checks=["left_padding"])["left_padding"]
    assert padding.status == "pass"
    assert padding.values["own_positions_difference"] > padding.values["tolerance"]
    assert "arange" in padding.note


@pytest.mark.parametrize(("config", "what"), [(mc.BLOOM_560M, "ALiBi"), (mc.T5_SMALL, "T5")],
                         ids=["bloom", "t5"])
def test_models_without_position_input_are_relative_by_construction(config, what, tmp_path):
    report = check_model(mc.write(tmp_path, config), length=L)
    assert statuses(report) == {"shift_invariance": "pass", "kv_cache": "pass",
                                "left_padding": "pass", "cache_boundary": "pass"}
    shift = report["shift_invariance"]
    assert what in shift.values["summary"]
    assert what in report["cache_boundary"].values["summary"]
    assert shift.evidence.coverage == "structural"


def test_bloom_keeps_n_head_for_its_slopes(tmp_path):
    runner = load(mc.write(tmp_path, mc.BLOOM_560M))
    assert runner.config.n_head == 16


def test_llama_dynamic_fails_from_the_switch_with_the_two_bases(tmp_path):
    """The issue's example: keys cached before 64 with base 10000, queries after rescaled."""
    report = check_model(mc.write(tmp_path, mc.LLAMA_DYNAMIC), length=L)
    assert statuses(report) == {"shift_invariance": "fail", "kv_cache": "fail",
                                "left_padding": "pass", "cache_boundary": "fail"}
    kv = report["kv_cache"]
    assert kv.values["first_position"] == 64
    assert kv.values["explanation"]["cause"] == "dynamic rotation"
    assert kv.values["explanation"]["confirmed"]
    assert kv.values["explanation"]["reproduced_to"] <= kv.values["tolerance"]
    boundary = report["cache_boundary"]
    assert boundary.values["first_position"] == 64
    assert boundary.values["base_before"] == 10000.0
    assert boundary.values["base_after"]["65"] == pytest.approx(10000 * (1 + 2 / 64) ** (16 / 14))
    assert "base 10000" in boundary.note
    # the decoded positions before the switch agree: only from 64 on
    (rows,) = boundary.values["scenarios"]
    assert rows["prompt"] == 63
    assert rows["decoded"] == [63, 64]
    assert rows["differences"][0] <= boundary.values["tolerance"] < rows["differences"][1]
    shift = report["shift_invariance"]
    assert shift.values["explanation"]["cause"] == "dynamic rotation"


def test_phi3_longrope_switch_is_explained_with_its_factor_sets(tmp_path):
    report = check_model(mc.write(tmp_path, mc.PHI3_SMALL_SWITCH), length=L,
                         checks=["kv_cache", "cache_boundary"])
    boundary = report["cache_boundary"]
    assert boundary.status == "fail"
    assert boundary.values["first_position"] == 40
    assert boundary.values["explanation"]["confirmed"]
    assert boundary.values["short_factor"][:2] == [1.05, 1.05]
    assert boundary.values["long_factor"][:2] == [1.08, 1.1]
    assert "short_factor" in boundary.note
    assert "long_factor" in boundary.note
    assert report["kv_cache"].values["first_position"] == 40


@pytest.mark.slow
def test_phi3_real_switch_at_4096(tmp_path):
    report = check_model(mc.write(tmp_path, mc.PHI3_MINI_128K), length=8,
                         checks=["cache_boundary"])
    boundary = report["cache_boundary"]
    assert boundary.status == "fail"
    assert boundary.values["first_position"] == 4096
    assert boundary.values["explanation"]["confirmed"]


# --------------------------------------------------------------------------- broken copies
def _llama():
    return load(mc.LLAMA3_8B).model


def _call(model, ids, position_ids, attention_mask, cache):
    return model(input_ids=ids, position_ids=position_ids, attention_mask=attention_mask,
                 cache=cache, use_cache=cache is not None).logits


def test_positions_restarted_after_the_cache_are_confirmed():
    model = _llama()

    def forward(input_ids, position_ids=None, attention_mask=None, past_key_values=None):
        if position_ids is None:                      # the bug: ignores the cache length
            position_ids = torch.arange(input_ids.shape[1])[None]
        return _call(model, input_ids, position_ids, attention_mask, past_key_values)

    report = check_model(forward, length=L)
    assert statuses(report) == {"shift_invariance": "pass", "kv_cache": "fail",
                                "left_padding": "pass"}
    explanation = report["kv_cache"].values["explanation"]
    assert explanation["cause"] == "positions restart at 0"
    assert explanation["confirmed"]
    assert report["kv_cache"].values["first_position"] == L // 2


def test_the_correct_forward_of_the_same_model_passes():
    model = _llama()

    def forward(input_ids, position_ids=None, attention_mask=None, past_key_values=None):
        return _call(model, input_ids, position_ids, attention_mask, past_key_values)

    assert check_model(forward, length=L).ok


def test_arange_positions_with_left_padding_are_confirmed():
    model = load(mc.GPT2).model

    def forward(input_ids, position_ids=None, attention_mask=None, past_key_values=None):
        start = past_key_values.get_seq_length() if past_key_values is not None else 0
        arange = torch.arange(start, start + input_ids.shape[1])[None]   # ignores position_ids
        return _call(model, input_ids, arange, attention_mask, past_key_values)

    report = check_model(forward, length=16, positions="absolute")
    padding = report["left_padding"]
    assert padding.status == "fail"
    assert padding.values["explanation"]["cause"] == "arange positions"
    assert padding.values["explanation"]["confirmed"]
    assert report["kv_cache"].status == "pass"
    assert report["shift_invariance"].values["positions"] == "absolute"


def test_dynamic_scaling_cache_is_not_blamed_on_restarted_positions(tmp_path):
    explanation = check_model(mc.write(tmp_path, mc.LLAMA_DYNAMIC), length=L,
                              checks=["kv_cache"])["kv_cache"].values["explanation"]
    assert [t["hypothesis"] for t in explanation.get("tried", [])] in ([], ["dynamic rotation"])
    assert explanation["cause"] == "dynamic rotation"


def test_an_unconfirmed_failure_says_it_is_not_explained():
    """A forward that adds noise depending on the call: no hypothesis reproduces it."""
    model = _llama()
    calls = {"n": 0}

    def forward(input_ids, position_ids=None, attention_mask=None, past_key_values=None):
        calls["n"] += 1
        out = _call(model, input_ids, position_ids, attention_mask, past_key_values)
        return out + (1e-3 if past_key_values is not None and input_ids.shape[1] == 1 else 0)

    kv = check_model(forward, length=L, checks=["kv_cache"])["kv_cache"]
    assert kv.status == "fail"
    assert kv.values["explanation"]["confirmed"] is False
    assert "not explained" in kv.note


# --------------------------------------------------------------------------- the tolerance
@pytest.mark.parametrize(("factor", "status"), [(1.0, "pass"), (1.0 + 1e-9, "unknown"),
                                                (FAIL_MARGIN, "unknown"),
                                                (FAIL_MARGIN * (1 + 1e-9), "fail")])
def test_tolerance_thresholds_from_both_sides(factor, status):
    tol = Tolerance({"a": 1e-15, "b": 3e-16}, True, None)
    assert tol.value == SAFETY * 1e-15
    assert tol.source == "a"
    assert tol.status(tol.value * factor) == status


def test_tolerance_is_derived_from_the_model(tmp_path):
    kv = check_model(mc.write(tmp_path, mc.LLAMA3_8B), length=L, checks=["kv_cache"])["kv_cache"]
    details = kv.evidence.details
    assert set(details["noise"]) == {"second run (batch of two)", "last bit of the largest logit",
                                     "float32 copy × 2^-29"}
    assert details["tolerance"] == SAFETY * max(details["noise"].values())
    assert details["float32 steps"] == "run in float64"
    assert 0 < kv.values["float32_effect"] < 1e-3     # HF forms angles (and more) in float32


# --------------------------------------------------------------------------- bad input
def run(argv, capsys):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(("config", "message"), [
    ({"model_type": "bert", "hidden_size": 64}, "model_type='bert' is refused: an encoder-only"),
    ({"hidden_size": 64}, "model_type=None is not one check-model"),
    ({**mc.GPT2, "n_positions": 10**8}, "GiB"),
])
def test_bad_configs_exit_2_in_one_line(config, message, tmp_path, capsys):
    status, out, err = run(["check-model", str(mc.write(tmp_path, config))], capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert message in err


def test_a_missing_config_exits_2(tmp_path, capsys):
    status, _, err = run(["check-model", str(tmp_path / "nope")], capsys)
    assert status == 2
    assert "cannot be read" in err


def test_a_forward_without_position_ids_is_refused():
    def forward(input_ids, attention_mask=None, past_key_values=None):
        return torch.zeros(*input_ids.shape, 5)

    with pytest.raises(InvalidParameter, match="takes no position_ids"):
        check_model(forward)


def test_unknown_names_are_refused(tmp_path):
    with pytest.raises(InvalidParameter, match="is not known"):
        check_model(mc.write(tmp_path, mc.LLAMA3_8B), checks=["bounds"])
    with pytest.raises(UnknownName):
        check_model(lambda input_ids, position_ids=None, attention_mask=None,
                    past_key_values=None: torch.zeros(*input_ids.shape, 5), positions="learned")


def test_size_limit_from_both_sides(tmp_path):
    """A 2-layer GPT-2 with n_positions just under / over the 1 GiB limit."""
    from posproof.whole.build import build_model, read_config_dict

    data = read_config_dict(mc.write(tmp_path, mc.GPT2))
    with pytest.raises(InvalidParameter, match="GiB"):
        build_model({**data, "n_positions": 2**22 + 1}, max_bytes=2**22 * 32 * 8)
    model, _ = build_model({**data, "n_positions": 1024}, max_bytes=1024 * 32 * 8 + 10**6)
    assert model.config.n_positions == 1024


# --------------------------------------------------------------------------- CLI, API
def test_cli_json_has_the_report_shape(tmp_path, capsys):
    status, out, _ = run(["check-model", str(mc.write(tmp_path, mc.LLAMA_DYNAMIC)), "--json",
                          "--length", str(L), "--checks", "kv_cache,cache_boundary"], capsys)
    data = json.loads(out)
    assert status == 1
    assert data["ok"] is False
    assert data["theorems"] == []
    assert [c["name"] for c in data["checks"]] == ["kv_cache", "cache_boundary"]
    assert data["checks"][1]["sampled"]["covered"] == 2
    assert data["checks"][1]["evidence"]["coverage"] == "sample"


def test_cli_table_passes_for_llama(tmp_path, capsys):
    status, out, _ = run(["check-model", str(tmp_path.joinpath()) if
                          mc.write(tmp_path, mc.LLAMA3_8B) else "", "--length", "8"], capsys)
    assert status == 0
    assert "verdict: OK" in out
    assert "kv_cache" in out


def test_assert_model_positions(tmp_path):
    assert_model_positions(mc.write(tmp_path, mc.QWEN2_7B), length=8)
    with pytest.raises(AssertionError, match="kv_cache: fail"):
        assert_model_positions(mc.write(tmp_path, mc.LLAMA_DYNAMIC), length=8,
                               checks=["kv_cache"])
    assert_model_positions(mc.write(tmp_path, mc.LLAMA_DYNAMIC), length=8, checks=["kv_cache"],
                           expect={"kv_cache": "fail"})


def test_longrope_batch_length_decides_every_rows_rotation(tmp_path):
    """L = 64 > the switch at 40: a left-padded row of 32 tokens batched with a row of 64 is
    rotated with the long factors; alone, with the short ones (HF takes the batch's length)."""
    padding = check_model(mc.write(tmp_path, mc.PHI3_SMALL_SWITCH), length=64,
                          checks=["left_padding"])["left_padding"]
    assert padding.status == "fail"
    explanation = padding.values["explanation"]
    assert explanation["cause"] == "rotation of the batch's length"
    assert explanation["confirmed"]
    rows = {r["pad"]: r["max_difference"] for r in padding.values["pads"]}
    assert rows[3] <= padding.values["tolerance"] < rows[32]    # 61 tokens: long factors too


@pytest.mark.parametrize("config", [
    {"model_type": "llama", "num_attention_heads": "abc", "hidden_size": 64},
    {"model_type": "llama", "rope_theta": "nan"},
    {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 0},
    {"model_type": "gpt2", "n_positions": -5},
    {"model_type": "llama", "max_position_embeddings": 8,
     "rope_scaling": {"rope_type": "dynamic", "factor": -2}},
])
def test_hostile_configs_exit_2_in_one_line(config, tmp_path, capsys):
    status, out, err = run(["check-model", str(mc.write(tmp_path, config)), "--length", "8"],
                           capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("posproof: error: ")


def test_a_config_with_only_its_model_type_takes_the_defaults(tmp_path):
    """transformers' defaults fill the keys a config.json leaves out (vision tower included)."""
    report = check_model(mc.write(tmp_path, {"model_type": "qwen2_vl"}), length=8)
    assert report.ok
    assert report.encoding["head_dim"] == 128


def test_head_dim_is_derived_from_the_configs_own_width(tmp_path):
    """TinyLlama-like: 2048 wide, 32 heads → head_dim 64 (not the default config's 128)."""
    runner = load(mc.write(tmp_path, {**mc.LLAMA3_8B, "hidden_size": 2048,
                                      "num_attention_heads": 32, "num_key_value_heads": 4}))
    assert runner.info.head_dim == 64
    assert runner.config.head_dim == 64


def test_dynamic_switch_is_max_position_embeddings_as_transformers_applies_it(tmp_path):
    """An original_max_position_embeddings in a dynamic config does not move HF's switch."""
    config = {**mc.LLAMA_DYNAMIC, "max_position_embeddings": 48,
              "rope_scaling": {"rope_type": "dynamic", "factor": 2.0,
                               "original_max_position_embeddings": 32}}
    kv = check_model(mc.write(tmp_path, config), length=L, checks=["cache_boundary"])
    assert kv["cache_boundary"].values["first_position"] == 48
    assert kv["cache_boundary"].values["explanation"]["confirmed"]


def test_alibi_with_many_heads_refuses_a_length_whose_attention_is_too_large(tmp_path):
    """BLOOM-176B keeps its 112 heads (the slopes): 112·(2·512)²·32 B > 3 GiB; 256 fits."""
    config = mc.write(tmp_path, {**mc.BLOOM_560M, "n_head": 112})
    with pytest.raises(InvalidParameter, match="pass a length ≤"):
        check_model(config, length=512, checks=["kv_cache"])
    assert check_model(config, length=8, checks=["kv_cache"]).ok
