"""Issue 28 item 3: what the newer models add, checked — per-layer sliding windows (Gemma 2
alternates local and global layers, Gemma 3 has five local to one global with local and global
bases), partial rotary (the un-rotated dims position-free), softcapping, the encoder side of an
encoder-decoder model, all four checks for ALiBi / T5 / absolute models — and the
cache-consistency theorem agreeing with check-model on every config of tests/model_configs.py.

Each check is also shown failing: a cache that applies the window to the global layers, a
decoding that ignores the window, a GPT-NeoX rotating its pass-through dims.
"""

from __future__ import annotations

import copy
import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import model_configs as mc  # noqa: E402

from posproof.cli.app import main  # noqa: E402
from posproof.proofs.cache_consistency import THEOREM  # noqa: E402
from posproof.whole import check_model  # noqa: E402
from posproof.whole.api import load  # noqa: E402
from posproof.whole.checks import run_model_checks, switches  # noqa: E402

L = 12
CACHE = ["kv_cache", "cache_boundary"]


@pytest.fixture(autouse=True)
def _one_thread():
    """As check_model runs them (tiny matrices: one thread is many times faster)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def statuses(report):
    return {c.name: c.status for c in report.checks}


# --------------------------------------------------------------------------- windows per layer
def test_gemma2_alternates_local_and_global_layers():
    runner = load(mc.GEMMA2_SMALL_WINDOW)
    assert [(r["attention"], r.get("window")) for r in runner.layers] == [
        ("sliding", 12), ("full", None)]
    assert switches(runner) == {"sliding window 12 on layer 0 (layer 1 global)": 12}
    out = {c.name: c for c in run_model_checks(runner, length=L)}
    assert {k: c.status for k, c in out.items()} == {
        "shift_invariance": "pass", "kv_cache": "pass", "left_padding": "pass",
        "cache_boundary": "pass"}
    (row,) = out["cache_boundary"].values["scenarios"]
    assert row["decoded"] == [11, 12]              # the last length inside, the first past it
    caps = out["kv_cache"].values["softcapping"]
    assert caps["attention"] == 50.0
    assert caps["final"] == 30.0
    assert 0.0 < caps["final_slope"] <= 1.0
    assert caps["final_slope"] == pytest.approx(1 - (caps["largest_logit"] / 30) ** 2)


def _window_everywhere(runner):
    """A cache built as if every layer were local: the global layer loses its old keys."""
    from transformers import DynamicCache

    cfg = copy.deepcopy(runner.config)
    cfg.layer_types = ["sliding_attention"] * len(cfg.layer_types)
    runner.new_cache = lambda: DynamicCache(config=cfg)
    return runner


def test_a_cache_windowing_the_global_layer_fails_at_the_window_confirmed():
    runner = _window_everywhere(load(mc.GEMMA2_SMALL_WINDOW))
    out = {c.name: c for c in run_model_checks(runner, length=L, checks=CACHE)}
    boundary = out["cache_boundary"]
    assert boundary.status == "fail"
    assert boundary.values["first_position"] == 12
    (row,) = boundary.values["scenarios"]
    assert row["differences"][0] <= boundary.values["tolerance"] < row["differences"][1]
    why = boundary.values["explanation"]
    assert why["cause"] == "window on every layer"
    assert why["confirmed"]
    assert why["reproduced_to"] <= boundary.values["tolerance"]
    assert "global layer 1" in why["text"]
    assert "softcapped at 30" in boundary.note


@pytest.mark.slow
def test_a_decoding_that_ignores_the_window_is_confirmed():
    from transformers import DynamicCache

    runner = load(mc.GEMMA2_SMALL_WINDOW)
    decode = runner.decode
    cfg = copy.deepcopy(runner.config)
    cfg.layer_types = ["full_attention"] * len(cfg.layer_types)
    runner.new_cache = lambda: DynamicCache(config=cfg)      # keeps every key, and the mask

    def without_window(*args, **kwargs):                     # lets the local layer see them
        with runner.windows_as(False):
            return decode(*args, **kwargs)

    runner.decode = without_window
    boundary = run_model_checks(runner, length=L, checks=["cache_boundary"])[0]
    assert boundary.status == "fail"
    assert boundary.values["first_position"] == 12
    assert boundary.values["explanation"]["cause"] == "window ignored"
    assert boundary.values["explanation"]["confirmed"]


@pytest.mark.slow
def test_gemma3_five_local_layers_one_global_with_their_bases():
    runner = load(mc.GEMMA3_SMALL_WINDOW, layers=6)
    assert [r.get("window") for r in runner.layers] == [10] * 5 + [None]
    assert [r["rope_theta"] for r in runner.layers] == [10000.0] * 5 + [1e6]
    assert switches(runner) == {
        "sliding window 10 on layers 0–4, base 10000 (layer 5 global, base 1e+06)": 10}
    report = check_model(mc.GEMMA3_SMALL_WINDOW, length=L, layers=6)
    assert report.ok
    assert report["cache_boundary"].values["layers"][5] == {
        "layer": 5, "attention": "full", "rope_theta": 1e6}
    # both bases really rotate: the frequency buffers of each layer type were found
    assert {k for m in runner.rotaries for k, _ in m.named_buffers()} >= {
        "sliding_attention_inv_freq", "full_attention_inv_freq"}
    broken = _window_everywhere(load(mc.GEMMA3_SMALL_WINDOW, layers=6))
    boundary = run_model_checks(broken, length=L, checks=["cache_boundary"])[0]
    assert boundary.status == "fail"
    assert boundary.values["first_position"] == 10
    assert boundary.values["explanation"]["cause"] == "window on every layer"


def test_a_model_without_window_or_switch_passes_by_its_configuration():
    boundary = check_model(mc.PYTHIA_160M, length=8, checks=["cache_boundary"])[
        "cache_boundary"]
    assert boundary.status == "pass"
    assert boundary.evidence.coverage == "structural"
    assert "no sliding window" in boundary.values["summary"]


# --------------------------------------------------------------------------- partial rotary
@pytest.mark.parametrize(("config", "rotated", "head"), [(mc.PHI2, 32, 80),
                                                         (mc.PYTHIA_160M, 16, 64)],
                         ids=["phi-2", "pythia"])
def test_partial_rotary_leaves_the_other_dims_position_free(config, rotated, head):
    shift = check_model(config, length=8, checks=["shift_invariance"])["shift_invariance"]
    assert shift.status == "pass"
    part = shift.values["partial_rotary"]
    assert (part["rotated_dims"], part["head_dim"]) == (rotated, head)
    assert part["status"] == "pass"
    assert part["pass_through_max_change"] == 0.0
    assert part["rotated_dims_moving"] == rotated
    assert f"dims {rotated} … {head - 1}" in shift.values["summary"]


def test_rotating_the_pass_through_dims_fails_though_shifts_agree(monkeypatch):
    """A GPT-NeoX rotating every dim (the rotated frequencies tiled over the head): still a
    rotation by position, so shifts agree; the partial-rotary probe sees the 48 dims move."""
    from transformers.models.gpt_neox import modeling_gpt_neox as neox

    def rotate_all(q, k, cos, sin, unsqueeze_dim=1):
        d, r = q.shape[-1], cos.shape[-1]
        reps = -(-d // r)

        def tile(t):
            half = torch.cat([t[..., : r // 2]] * reps, -1)[..., : d // 2]
            return torch.cat([half, half], -1).unsqueeze(unsqueeze_dim)

        c, s = tile(cos), tile(sin)
        return q * c + neox.rotate_half(q) * s, k * c + neox.rotate_half(k) * s

    monkeypatch.setattr(neox, "apply_rotary_pos_emb", rotate_all)
    shift = check_model(mc.PYTHIA_160M, length=8, checks=["shift_invariance"])[
        "shift_invariance"]
    assert shift.values["max_difference"] <= shift.values["tolerance"]   # still relative
    assert shift.status == "fail"
    part = shift.values["partial_rotary"]
    assert part["status"] == "fail"
    assert part["moving_pass_through_dims"][0] == 16
    assert "of the 48 un-rotated dims (16 … 63)" in shift.note


def test_mla_decoupled_rotary_keys_are_the_trailing_block():
    """DeepSeek's MLA: q = cat(q_nope, q_rope); the 16 nope dims lead and are position-free,
    the 8 rotary dims trail (the probe finds the layout from what moves)."""
    import transformers

    from posproof.whole.build import ModelInfo
    from posproof.whole.runner import HFRunner

    cfg = transformers.DeepseekV3Config(
        vocab_size=96, hidden_size=64, intermediate_size=64, moe_intermediate_size=32,
        num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2, q_lora_rank=None,
        kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16,
        first_k_dense_replace=2, max_position_embeddings=256)
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.float64).eval()
    runner = HFRunner(model, ModelInfo("deepseek_v3", "rope", context=256, head_dim=24))
    assert runner.partial == (8, 24)
    shift = run_model_checks(runner, length=8, checks=["shift_invariance"])[0]
    assert shift.status == "pass"
    part = shift.values["partial_rotary"]
    assert part["layout"] == "trailing"
    assert part["pass_through_dims"] == [0, 15]
    assert part["rotated_dims_moving"] == 8
    assert part["pass_through_max_change"] == 0.0


# --------------------------------------------------------------------------- encoder-decoder
def test_t5_names_both_sides_and_the_decoders_cache():
    report = check_model(mc.T5_SMALL, length=8)
    assert report.ok
    shift = report["shift_invariance"]
    assert shift.values["encoder"]["positions"] == "t5"
    assert "encoder: T5 buckets" in shift.values["summary"]
    assert report["kv_cache"].values["cache"] == "decoder"
    assert "the decoder's cache" in report["kv_cache"].values["summary"]


@pytest.mark.slow
def test_bart_absolute_on_both_sides_and_its_padding_confirmed():
    """BART's decoder takes no position ids: a left-padded row reads its table from the pads
    on — confirmed by moving the table — while its cache is consistent."""
    report = check_model(mc.BART_LARGE, length=L)
    got = statuses(report)
    assert got == {"shift_invariance": "pass", "kv_cache": "pass", "left_padding": "fail",
                   "cache_boundary": "pass"}
    assert report["shift_invariance"].note == "absolute positions"
    assert report["shift_invariance"].values["encoder"]["positions"] == "absolute"
    why = report["left_padding"].values["explanation"]
    assert why["cause"] == "pads counted as positions"
    assert why["confirmed"]
    assert report["kv_cache"].values["cache"] == "decoder"


def test_whisper_decoder_positions_and_audio_encoder():
    import transformers

    cfg = transformers.WhisperConfig(
        d_model=32, encoder_layers=1, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, num_mel_bins=8,
        max_source_positions=16, max_target_positions=64, vocab_size=96, pad_token_id=95,
        bos_token_id=94, eos_token_id=94, decoder_start_token_id=93)
    torch.manual_seed(0)
    model = transformers.WhisperForConditionalGeneration(cfg)
    model.config._attn_implementation = "eager"
    report = check_model(model, length=L)
    assert report.ok
    shift = report["shift_invariance"]
    assert shift.note == "absolute positions"
    assert shift.values["max_difference"] > 1e-3             # decoder_position_ids are used
    assert shift.values["encoder"]["input"] == "input_features"
    assert report.encoding["weights"] == "the model's own (float64 upcast)"


def test_gpt_neo_local_layers_are_read_from_attention_layers():
    import transformers

    from posproof.whole.runner import layer_table

    cfg = transformers.GPTNeoConfig(num_layers=4, attention_types=[[["global", "local"], 2]],
                                    window_size=256)
    assert [r.get("window") for r in layer_table(cfg)] == [None, 256, None, 256]


# --------------------------------------------------------------------------- the theorem agrees
def _configs():
    out = []
    for name in sorted(dir(mc)):
        value = getattr(mc, name)
        if not (name.isupper() and isinstance(value, dict) and "model_type" in value):
            continue
        cheap = name in ("LLAMA_DYNAMIC", "BLOOM_560M", "GPT2", "GEMMA2_SMALL_WINDOW")
        out.append(pytest.param(name, id=name.lower(),
                                marks=() if cheap else pytest.mark.slow))
    return out


def test_every_config_of_model_configs_is_in_the_agreement_test():
    assert len(_configs()) >= 18


@pytest.mark.parametrize("name", _configs())
def test_cache_consistency_theorem_agrees_with_check_model(name, tmp_path, capsys):
    config = getattr(mc, name)
    path = mc.write(tmp_path, config)
    code = main(["prove", str(path), "--theorem", THEOREM, "--json"])
    data = json.loads(capsys.readouterr().out)
    theorem = next(t for t in data["theorems"] if t["name"] == THEOREM)
    assert code == (0 if theorem["status"] == "proved" else 1)
    assert theorem["status"] in ("proved", "refuted")
    layers = 6 if config["model_type"] == "gemma3_text" else 2
    report = check_model(path, length=L, checks=CACHE, layers=layers)
    got = statuses(report)
    if theorem["status"] == "proved":
        assert got == {"kv_cache": "pass", "cache_boundary": "pass"}
    else:
        assert "fail" in got.values()
        assert theorem["counterexample"]["switch"] == report["cache_boundary"].values[
            "first_position"]


#: Published configs whose SPEC reading the theorem refuses (exit 2, one line): none.  GPT-J
#: and CodeGen take the base their modeling code fixes (10000), DBRX its own spellings
#: (d_model / n_heads, max_seq_len), Phi-3.5-MoE its equal short_mscale / long_mscale as the
#: attention factor (tests/test_configs.py: the readings, and the refusals that remain).
NOT_DECIDED: set[str] = set()


def _prove(path, capsys):
    code = main(["prove", str(path), "--theorem", THEOREM, "--json"])
    out = capsys.readouterr()
    if code == 2:
        return None, out.err
    data = json.loads(out.out)
    theorem = next(t for t in data["theorems"] if t["name"] == THEOREM)
    assert code == (0 if theorem["status"] == "proved" else 1)
    return theorem, out.err


def test_the_theorem_decides_every_published_config_but_the_listed_ones(tmp_path, capsys):
    undecided = set()
    for name, config in mc.PUBLISHED.items():
        theorem, err = _prove(mc.write(tmp_path, config), capsys)
        if theorem is None:
            assert err.count("\n") == 1
            assert "Traceback" not in err
            undecided.add(name)
        else:
            assert theorem["status"] in ("proved", "refuted"), name
    assert undecided == NOT_DECIDED


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(mc.PUBLISHED) - NOT_DECIDED))
def test_cache_consistency_theorem_agrees_with_check_model_on_published(name, tmp_path,
                                                                        capsys):
    config = mc.PUBLISHED[name]
    path = mc.write(tmp_path, config)
    theorem, _ = _prove(path, capsys)
    assert theorem is not None
    report = check_model(path, length=L, checks=CACHE)
    got = statuses(report)
    if theorem["status"] == "proved":
        assert got == {"kv_cache": "pass", "cache_boundary": "pass"}
    else:
        assert "fail" in got.values()
        assert theorem["counterexample"]["switch"] == report["cache_boundary"].values[
            "first_position"]


# --------------------------------------------------------------------------- one reference forward
@pytest.mark.parametrize(("name", "free"), [
    ("LLAMA3_8B", True), ("GEMMA2_SMALL_WINDOW", True), ("T5_SMALL", True),
    ("LLAMA_DYNAMIC", False), ("PHI3_SMALL_SWITCH", False),
    # rope_parameters says default, transformers builds rope_scaling's dynamic rule
    ("LLAMA_SCALING_CONFLICT", False)])
def test_the_reference_rows_come_from_one_forward_only_without_a_length_rule(name, free):
    from posproof.whole.checks import rows_free_of_length

    runner = load(copy.deepcopy(getattr(mc, name)))
    assert rows_free_of_length(runner) is free
    report = check_model(copy.deepcopy(getattr(mc, name)), length=L, checks=["kv_cache"])
    assert report["kv_cache"].values["reference"].startswith("row i of one" if free else
                                                             "the last row")


def test_one_reference_forward_gives_the_rows_of_the_prefix_forwards():
    from posproof.whole.checks import _references

    runner = load(copy.deepcopy(mc.GEMMA2_SMALL_WINDOW))
    runner.memo = {}
    ids = torch.randint(1, runner.vocab - 12, (1, 20), generator=torch.Generator().manual_seed(3))
    with runner.float64_angles():
        one = _references(runner, ids, 5, 20)
        each = torch.stack([runner.logits(ids[:, :i + 1])[0, -1] for i in range(5, 20)])
    assert one.shape == each.shape
    assert float((one - each).abs().max()) <= 1e-12 * float(each.abs().max())


@pytest.mark.parametrize("name", ["LLAMA_DYNAMIC", "PHI3_SMALL_SWITCH"])
def test_a_length_rule_gets_one_forward_per_prefix_not_a_shared_one(name):
    """Dynamic NTK and LongRoPE rotate every row by the length of the forward: rows before the
    switch taken from one forward past it would rotate by the other rule.  The reference rows
    straddling the switch are those of the prefix forwards."""
    from posproof.whole.checks import _references

    runner = load(copy.deepcopy(getattr(mc, name)))
    runner.memo = {}
    switch = runner.info.original_max or runner.info.context
    start, stop = switch - 4, switch + 4
    ids = torch.randint(1, runner.vocab - 12, (1, stop),
                        generator=torch.Generator().manual_seed(5))
    with runner.float64_angles():
        rows = _references(runner, ids, start, stop)
        each = torch.stack([runner.logits(ids[:, :i + 1])[0, -1] for i in range(start, stop)])
        full = runner.logits(ids)[0, start:stop]
    scale = float(each.abs().max())
    assert float((rows - each).abs().max()) <= 1e-12 * scale
    # one forward past the switch does differ before it: the test can tell the two apart
    assert float((full - each)[:4].abs().max()) > 1e-6 * scale
