"""Issue 28 item 4: ``check-model DIR`` with the weights saved in DIR (``save_pretrained``).

The tests build tiny models, change their weights, save them in tmp_path and check that the
report is about those weights: GPT-2 with its position table zeroed no longer moves under a
shift (the random table does), ``--layers`` keeps the saved layers' own weights, and a broken
directory (truncated file, missing shard, missing tensor, too large) is one line, exit 2.
"""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from posproof.cli.app import main  # noqa: E402
from posproof.errors import InvalidParameter  # noqa: E402
from posproof.whole import check_model  # noqa: E402
from posproof.whole.api import load  # noqa: E402
from posproof.whole.weights import load_weights, saved_weights  # noqa: E402


def _gpt2(directory, *, zero_table):
    cfg = transformers.GPT2Config(n_embd=32, n_head=2, n_layer=2, n_positions=64,
                                  vocab_size=64, n_inner=32)
    torch.manual_seed(3)
    model = transformers.GPT2LMHeadModel(cfg)
    if zero_table:
        with torch.no_grad():
            model.transformer.wpe.weight.zero_()
    model.save_pretrained(directory)
    return model


def _llama(directory, layers=3):
    cfg = transformers.LlamaConfig(hidden_size=32, intermediate_size=32, num_attention_heads=2,
                                   num_key_value_heads=1, num_hidden_layers=layers,
                                   vocab_size=64, max_position_embeddings=128)
    torch.manual_seed(5)
    model = transformers.LlamaForCausalLM(cfg)
    model.save_pretrained(directory)
    return model


def test_the_saved_weights_are_the_ones_checked(tmp_path):
    """GPT-2 with a zero position table: a shift changes nothing with its weights, while the
    same config with random weights moves by far more than the tolerance."""
    _gpt2(tmp_path, zero_table=True)
    real = check_model(tmp_path, length=8, checks=["shift_invariance"])
    shift = real["shift_invariance"]
    assert shift.values["positions"] == "absolute"
    assert shift.values["max_difference"] <= shift.values["tolerance"]
    assert real.encoding["weights"].startswith("real, from ")
    random = check_model(tmp_path, length=8, checks=["shift_invariance"], weights=False)
    assert random["shift_invariance"].values["max_difference"] > 1e-3
    assert random.encoding["weights"] == "random (seed 0)"


def test_layers_keeps_the_saved_layers_with_their_weights(tmp_path):
    saved = _llama(tmp_path, layers=3)
    runner = load(tmp_path, layers=2)
    model = runner.model
    assert len(model.model.layers) == 2
    assert model.dtype == torch.float64
    for i in range(2):
        got = model.model.layers[i].self_attn.q_proj.weight
        want = saved.model.layers[i].self_attn.q_proj.weight.double()
        assert torch.equal(got, want)
    assert runner.about["layers_kept"] == 2
    assert runner.about["layers_saved"] == 3
    assert runner.about["weights_left_unread"] > 0
    full = load(tmp_path)
    assert len(full.model.model.layers) == 3
    assert full.about["weights_left_unread"] == 0


def test_cli_header_names_the_real_weights(tmp_path, capsys):
    _llama(tmp_path, layers=3)
    assert main(["check-model", str(tmp_path), "-L", "8", "--layers", "2",
                 "--check", "kv_cache"]) == 0
    out = capsys.readouterr().out
    assert f"weights: real, from {tmp_path} (float64 upcast)" in out
    assert "layers=2 of 3" in out
    assert main(["check-model", str(tmp_path), "-L", "8", "--random-weights",
                 "--check", "kv_cache"]) == 0
    assert "weights: random (seed 0)" in capsys.readouterr().out


def _one_line_exit_2(capsys, args, fragment):
    capsys.readouterr()                          # save_pretrained's progress bar
    assert main(["check-model", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "Traceback" not in err
    assert fragment in err
    return err


@pytest.mark.parametrize(("damage", "fragment"), [
    (lambda f: f.write_bytes(f.read_bytes()[:100]), "not a safetensors file"),
    (lambda f: f.write_bytes(f.read_bytes()[:-8]), "truncated"),
    (lambda f: f.write_bytes(b"\x05"), "not a safetensors file"),
    (lambda f: f.write_bytes((12).to_bytes(8, "little") + b"not json!!!!"),
     "not a safetensors file"),
], ids=["cut-in-header", "cut-in-data", "tiny", "garbage-header"])
def test_corrupt_weights_exit_2_in_one_line(damage, fragment, tmp_path, capsys):
    _gpt2(tmp_path, zero_table=False)
    damage(tmp_path / "model.safetensors")
    _one_line_exit_2(capsys, [str(tmp_path)], fragment)


def test_a_missing_shard_exits_2(tmp_path, capsys):
    _gpt2(tmp_path, zero_table=False)
    (tmp_path / "model.safetensors").unlink()
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {"lm_head.weight": "model-00001-of-00002.safetensors"}}))
    _one_line_exit_2(capsys, [str(tmp_path)], "missing: model-00001-of-00002.safetensors")
    (tmp_path / "model.safetensors.index.json").write_text("[1, 2]")
    _one_line_exit_2(capsys, [str(tmp_path)], "not a safetensors index")


def test_a_tensor_missing_from_the_file_is_refused(tmp_path, capsys):
    """Loading would leave it at its random initialisation: not "real weights"."""
    from safetensors.torch import load_file, save_file

    _gpt2(tmp_path, zero_table=False)
    path = tmp_path / "model.safetensors"
    state = load_file(path)
    del state["transformer.h.1.attn.c_attn.weight"]
    save_file(state, path, metadata={"format": "pt"})
    _one_line_exit_2(capsys, [str(tmp_path)], "lack 1 tensor(s)")


def test_size_limit_from_both_sides(tmp_path):
    _gpt2(tmp_path, zero_table=False)
    from safetensors import safe_open

    with safe_open(str(tmp_path / "model.safetensors"), "pt") as fh:
        names = fh.keys()                  # a safe_open handle is not iterable
        numel = sum(torch.Size(fh.get_slice(k).get_shape()).numel() for k in names)
    with pytest.raises(InvalidParameter, match="keep fewer layers"):
        load_weights(tmp_path, max_bytes=8 * numel - 1)
    model, _, about = load_weights(tmp_path, max_bytes=8 * numel)
    assert about["weights_loaded"] == numel
    assert model.dtype == torch.float64


def test_a_config_alone_is_not_saved_weights(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    assert saved_weights(tmp_path) is None
    (tmp_path / "model.safetensors").write_bytes(b"")
    assert saved_weights(tmp_path) == tmp_path
    assert saved_weights(tmp_path / "config.json") == tmp_path
    assert saved_weights({"model_type": "gpt2"}) is None


def test_weights_in_another_format_are_refused_not_replaced_by_random_ones(tmp_path, capsys):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_layer": 2}))
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x02")
    _one_line_exit_2(capsys, [str(tmp_path), "-L", "8"], "reads only safetensors")
    assert main(["check-model", str(tmp_path), "-L", "8", "--random-weights",
                 "--check", "kv_cache"]) == 0
    assert "weights: random (seed 0)" in capsys.readouterr().out


@pytest.mark.parametrize(("kind", "fragment"), [("mamba", "model_type='mamba' is refused"),
                                                ("no_such_model", "is not one check-model knows")])
def test_a_refused_model_type_is_refused_before_any_weight_file_is_read(kind, fragment,
                                                                         tmp_path, capsys):
    """The refusal comes from the config alone: a weight file that is not even safetensors is
    never opened (its complaint would hide the real reason)."""
    from posproof.errors import UnknownName

    (tmp_path / "config.json").write_text(json.dumps({"model_type": kind, "hidden_size": 8}))
    (tmp_path / "model.safetensors").write_bytes(b"\x05")
    with pytest.raises(UnknownName, match=fragment):
        load_weights(tmp_path)
    _one_line_exit_2(capsys, [str(tmp_path)], fragment)


def test_every_spelling_of_the_layer_count_is_cut(tmp_path):
    """One list of layer-count keys for the tiny model and for --layers: DBRX's n_layers too."""
    from types import SimpleNamespace

    from posproof.whole.build import LAYER_KEYS
    from posproof.whole.weights import keep_layers

    for key in LAYER_KEYS:
        cfg = SimpleNamespace(**{key: 40})
        assert keep_layers(cfg, 3) == 3, key
        assert getattr(cfg, key) == 3
    assert "n_layers" in LAYER_KEYS
