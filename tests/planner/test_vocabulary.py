"""planner.vocabulary: user text parses into the one set of choices, refusals are structured messages, and a
Layout writes the `strategy` JSON shape README documents ({"dp": 128, "zero": 2, "recompute": "none", ...})."""

from __future__ import annotations

import json

import pytest

from planner.errors import UserError
from planner.layout_text import family_message, layout_label
from planner.vocabulary import Layout, LoraTarget, Offload, Precision, RankBy, Recompute, Task, ZeroStage


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("train", Task.PRETRAIN),
        ("Pretrain", Task.PRETRAIN),
        (" fine-tune ", Task.FINETUNE),
        ("qlora", Task.QLORA),
    ],
)
def test_task_text_and_aliases_parse_to_one_member(text, task):
    assert Task.parse(text) is task
    assert Task.parse(task) is task


def test_members_equal_their_plain_values_so_json_keeps_strings():
    assert Precision.BF16 == "bf16" and ZeroStage.WEIGHTS == 3
    assert json.dumps({"p": Precision.FP8, "z": ZeroStage.GRADIENTS}) == '{"p": "fp8", "z": 2}'
    assert RankBy.parse("cost-per-token") is RankBy.COST_PER_TOKEN


def test_an_unknown_choice_is_a_user_error_with_a_message_naming_the_choices():
    with pytest.raises(UserError) as caught:
        Recompute.parse("sometimes")
    assert str(caught.value) == "unknown recompute mode 'sometimes'; choose one of: none, selective, full"
    assert caught.value.message is not None and caught.value.message.code == "error.unknown_choice"
    with pytest.raises(
        UserError, match="unknown LoRA target 'wq'; choose one of: q, k, v, o, gate, up, down"
    ):
        LoraTarget.parse("wq")


@pytest.mark.parametrize("value", [4, -1, True, "three", 3.0])
def test_zero_stage_refuses_what_is_not_a_stage(value):
    with pytest.raises(UserError) as caught:
        ZeroStage.parse(value)
    assert caught.value.message.code == "error.zero_stage"


def test_task_choices_are_the_values_then_the_aliases():
    assert Task.choices()[:5] == ("inference", "pretrain", "finetune", "lora", "qlora")
    assert "train" in Task.choices()


def test_layout_json_shape_and_gpu_counts():
    layout = Layout(
        dp=128, tp=4, zero=ZeroStage.GRADIENTS, recompute=Recompute.FULL, offload=Offload.OPTIMIZER
    )
    assert layout.as_dict() == {"dp": 128, "tp": 4, "pp": 1, "ep": 1, "zero": 2, "recompute": "full",
                                "offload": "optimizer", "micro_batch": 1, "virtual_stages": 1}  # fmt: skip
    assert Layout(dp=4, tp=8, pp=2, ep=4).gpus == 64  # expert parallel reuses the data-parallel ranks
    assert Layout(dp=4, tp=8, pp=2).model_parallel == 16
    assert (
        Layout(zero=3, offload="all").as_dict()["offload"] == "all"
    )  # plain text where a member was expected


def test_layout_words():
    layout = Layout(dp=32, tp=8, pp=2, zero=1, recompute="selective")
    assert layout_label(layout).text == "ZeRO-1, TP 8, PP 2, DP 32, selective recompute, micro-batch 1"
    assert family_message(Layout(zero=2, offload="optimizer")).text == "ZeRO-2 + optimizer offload"
