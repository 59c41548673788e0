"""Options that fit only inside the memory headroom are shown as tight, with their margin (issue 27, item 3)."""

from __future__ import annotations

import json

from planner.cli import main
from planner.gpus import get_gpu
from planner.models import resolve_model
from planner.perf import model_numbers
from planner.search import Constraints, Workload, plan

GIB = 2**30
H100 = get_gpu("h100-sxm")  # 80 GiB
# Adam in mixed precision keeps 16 bytes per parameter: 16-bit weights and gradients, fp32 master weights,
# momentum and variance (Rajbhandari et al. 2020, ZeRO, arXiv 1910.02054, section 3.1).
ADAM_MIXED_BYTES_PER_PARAM = 16
FINETUNE = Workload(task="finetune", seq_len=2048, global_batch=8)
ONE_GPU_NO_OFFLOAD = Constraints(gpus=1, pinned={"offload": "none"})


def test_a_layout_that_fits_only_inside_the_headroom_is_shown_tight_with_its_margin() -> None:
    model = resolve_model("5b")
    states = ADAM_MIXED_BYTES_PER_PARAM * model_numbers(model).total_params
    # by hand: on one GPU without offload every layout holds all the states, and they alone are over the
    # 90 % an option may fill, yet under the whole 80 GB (the activations of micro-batch 1 with full recompute share the rest)
    assert 0.9 * H100.memory_bytes < states < H100.memory_bytes - 1 * GIB
    result = plan(model, FINETUNE, H100, ONE_GPU_NO_OFFLOAD)
    assert result.options, "the tight option is shown, not dropped"
    for option in result.options:
        need = option.memory.total_bytes
        assert 0.9 * H100.memory_bytes < need <= H100.memory_bytes
        assert option.headroom_margin_bytes == H100.memory_bytes - need
        assert option.note_messages[0].code == "option.tight_headroom"
        assert option.notes[0].startswith("TIGHT: ")
        assert option.as_dict()["headroom_margin_bytes"] == H100.memory_bytes - need
    codes = [message.code for message in result.advice_messages]
    assert "advice.only_tight_options" in codes
    assert "advice.nothing_fits_training_lightest" in codes  # why nothing fits within the headroom, kept
    assert result.excluded, "the families over the headroom are still listed with their needs"


def test_a_plan_with_a_layout_within_the_headroom_shows_no_tight_option() -> None:
    model = resolve_model("3b")  # 16 x 3 B = 45 GiB of states: fits within the 72 GiB with room to spare
    result = plan(model, FINETUNE, H100, ONE_GPU_NO_OFFLOAD)
    assert result.options
    assert all(option.headroom_margin_bytes is None for option in result.options)
    assert all(option.memory.total_bytes <= 0.9 * H100.memory_bytes for option in result.options)
    assert "advice.only_tight_options" not in [message.code for message in result.advice_messages]


def test_no_headroom_asked_means_no_tight_marking() -> None:
    model = resolve_model("5b")
    whole = Constraints(gpus=1, pinned={"offload": "none"}, memory_headroom=0.0)
    result = plan(model, FINETUNE, H100, whole)
    assert result.options
    assert all(option.headroom_margin_bytes is None for option in result.options)


def test_states_over_the_whole_memory_still_fit_nowhere() -> None:
    model = resolve_model("6b")  # 16 x 6 B = 89 GiB of states: over the whole 80 GiB
    assert ADAM_MIXED_BYTES_PER_PARAM * model_numbers(model).total_params > H100.memory_bytes
    result = plan(model, FINETUNE, H100, ONE_GPU_NO_OFFLOAD)
    assert not result.options
    assert "advice.only_tight_options" not in [message.code for message in result.advice_messages]


def test_cli_prints_the_tight_line_and_json_carries_the_margin(capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["plan", "--model", "5b", "--task", "finetune", "--gpu", "h100-sxm", "--gpus", "1",
            "--seq-len", "2048", "--batch", "8", "--offload", "none"]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "TIGHT: needs" in text and "inside the 10% headroom" in text
    assert main([*args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    option = payload["options"][0]
    assert option["headroom_margin_bytes"] == option["gpu_memory_bytes"] - option["per_gpu_bytes"]["total"]
