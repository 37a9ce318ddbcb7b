"""Padding-aware position ids: HF RoBERTa's rule, HF's generation cumsum rule, broken copies.

Written against transformers 5.24 (``RobertaEmbeddings.create_position_ids_from_input_ids``
and ``GenerationMixin._prepare_position_ids_for_generation``'s cumsum rule).
"""

from __future__ import annotations

import numpy as np
import pytest

from posproof.errors import InvalidParameter
from posproof.testing.position_ids import assert_position_ids, check_position_ids

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def roberta():  # type: ignore[no-untyped-def]
    mod = pytest.importorskip("transformers.models.roberta.modeling_roberta")
    return mod.RobertaEmbeddings.create_position_ids_from_input_ids


def _generation_rule(mask):  # type: ignore[no-untyped-def]
    """HF's rule, as generation/utils.py writes it (position ids from the attention mask)."""
    position_ids = mask.long().cumsum(-1) - 1
    return position_ids.masked_fill(mask == 0, 0)


def test_roberta_passes_with_padding_idx_plus_one(roberta) -> None:  # type: ignore[no-untyped-def]
    report = assert_position_ids(lambda x: roberta(x, padding_idx=1), first=2, pad_fill=1,
                                 pad_token_id=1)
    assert len(report.checks) == 5
    left = report["position_ids[left 3 pads]"]
    assert left.values["real_positions"] == [2, 3, 4, 5, 6]
    assert left.values["pad_positions"] == [1, 1, 1]


def test_roberta_other_padding_idx(roberta) -> None:  # type: ignore[no-untyped-def]
    assert assert_position_ids(lambda x: roberta(x, padding_idx=0), first=1, pad_fill=0,
                               pad_token_id=0).ok


def test_roberta_declared_from_zero_fails_with_the_offset(roberta) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AssertionError, match=r"real tokens start at 2, not at the declared "
                                             r"first position 0 \(off by \+2"):
        assert_position_ids(lambda x: roberta(x, padding_idx=1), first=0)


def test_generation_cumsum_rule_passes() -> None:
    assert assert_position_ids(_generation_rule, takes="attention_mask", pad_fill=0).ok


def test_generation_rule_wrong_declared_fill_fails() -> None:
    with pytest.raises(AssertionError, match=r"padding tokens get \[0\] instead of the "
                                             r"declared fill 1"):
        assert_position_ids(_generation_rule, takes="attention_mask", pad_fill=1)


def test_plain_arange_fails_left_padding_only() -> None:
    def arange(mask):  # type: ignore[no-untyped-def]
        return torch.arange(mask.shape[1]).expand(mask.shape)

    report = check_position_ids(arange, takes="attention_mask")
    status = {c.name: c.status for c in report.checks}
    assert status == {"position_ids[no padding]": "pass", "position_ids[left 1 pad]": "fail",
                      "position_ids[left 3 pads]": "fail", "position_ids[right 3 pads]": "pass",
                      "position_ids[all padding]": "pass"}
    with pytest.raises(AssertionError, match="left padding shifts the real tokens' positions "
                                             "by the number of pads"):
        assert_position_ids(arange, takes="attention_mask")


def test_arange_from_input_ids_roberta_offset_fails() -> None:
    def arange_plus(ids):  # type: ignore[no-untyped-def]
        return torch.arange(ids.shape[1]).expand(ids.shape) + 2

    with pytest.raises(AssertionError, match="left padding shifts"):
        assert_position_ids(arange_plus, first=2)


def test_cumsum_counting_pads_from_the_right_fails() -> None:
    def wrong(mask):  # type: ignore[no-untyped-def]
        return mask.long().cumsum(-1)                    # forgot the − 1: starts at 1

    with pytest.raises(AssertionError, match="real tokens start at 1"):
        assert_position_ids(wrong, takes="attention_mask")


def test_numpy_function_without_torch() -> None:
    def cumsum(mask):  # type: ignore[no-untyped-def]
        return np.where(mask == 1, np.cumsum(mask, -1) - 1, 0)

    assert assert_position_ids(cumsum, takes="attention_mask", pad_fill=0, use_torch=False).ok


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"takes": "embeds"}, "takes='embeds'"),
    ({"first": 1.5}, "not an integer"),
    ({"seq_len": 2}, "too small"),
    ({"pad_token_id": -1}, "too small"),
])
def test_bad_input_named_error(kwargs: dict, words: str) -> None:
    with pytest.raises(InvalidParameter, match=words) as info:
        check_position_ids(_generation_rule, **kwargs)
    assert "\n" not in str(info.value)


def test_float_positions_refused() -> None:
    with pytest.raises(InvalidParameter, match="not integers"):
        check_position_ids(lambda m: m.float(), takes="attention_mask")


def test_cli_check_impl_position_ids(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from posproof.cli.app import main

    mod = tmp_path / "pids.py"
    mod.write_text(
        "import torch\n"
        "from transformers.models.roberta.modeling_roberta import RobertaEmbeddings\n"
        "def roberta(x):\n"
        "    return RobertaEmbeddings.create_position_ids_from_input_ids(x, padding_idx=1)\n"
        "def arange(m):\n"
        "    return torch.arange(m.shape[1]).expand(m.shape)\n")
    assert main(["check-impl", f"{mod}:roberta", "--position-ids", "input_ids",
                 "--first-position", "2", "--pad-fill", "1"]) == 0
    capsys.readouterr()
    assert main(["check-impl", f"{mod}:arange", "--position-ids", "attention_mask",
                 "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert "left padding shifts" in out["encoding"]["message"]
    assert main(["check-impl", f"{mod}:arange", "--position-ids", "attention_mask",
                 "--first-position", "-1", "--pad-token-id", "-3"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
