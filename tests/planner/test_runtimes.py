"""A runtime in every training plan: chosen by the search per layout, pinnable (`plan --runtime`, `memory
--runtime`), named in --json, the text output and the report, and run first by the export's launch.sh."""

from __future__ import annotations

import json

import pytest

from planner.cli import main
from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset
from planner.vocabulary import Layout

P_7B = get_preset("llama-2-7b").total_params
SHOWS = ("plan", "--model", "llama-2-7b", "--gpu", "a100-sxm-80gb", "--gpus", "8", "--task", "pretrain")


def _plan(capsys, *extra: str) -> dict:
    assert main([*SHOWS, *extra, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_shows_command_names_its_runtime_and_deepspeeds_states(capsys):
    option = _plan(capsys)["options"][0]
    strategy, per_gpu = option["strategy"], option["per_gpu_bytes"]
    assert option["runtime"] == "deepspeed" and strategy["zero"] >= 1
    # DeepSpeed keeps the 16-bit model whole below ZeRO-3 (2 bytes/param) beside its buckets; with the optimizer
    # offloaded no gradient or optimizer state stays on the GPU: estimate_zero2_model_states_mem_needs's
    # cpu_offload figure, 2 x P (tests/exports/test_deepspeed_estimators.py runs DeepSpeed's own functions)
    if strategy["zero"] == 2 and strategy["offload"] == "optimizer":
        hidden = 4096
        buckets = 2 * hidden * hidden * 2  # two 16-bit reduce buckets of hidden^2 elements
        assert per_gpu["weights"] == pytest.approx(2 * P_7B + buckets, abs=1)
        assert per_gpu["gradients"] == per_gpu["optimizer"] == 0


def test_every_option_of_a_pinned_runtime_is_one_it_can_run(capsys):
    fsdp2 = _plan(capsys, "--runtime", "fsdp2")["options"]
    assert fsdp2 and all(option["runtime"] == "fsdp2" for option in fsdp2)
    for option in fsdp2:
        strategy = option["strategy"]
        assert strategy["zero"] >= 2 and strategy["offload"] != "optimizer"
        assert (strategy["tp"], strategy["pp"], strategy["ep"]) == (1, 1, 1)
    ddp = _plan(capsys, "--runtime", "ddp", "--task", "lora")["options"]
    assert ddp and all(o["runtime"] == "ddp" and o["strategy"]["zero"] == 0 for o in ddp)


def test_a_runtime_pinned_with_a_layout_it_cannot_run_is_one_line(capsys):
    code = main(["memory", "--model", "llama-2-7b", "--task", "train", "--zero", "1", "--dp", "8",
                 "--runtime", "fsdp2"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "fsdp2 runtime cannot run this layout" in err and "ZeRO-1" in err


def test_the_runtime_changes_what_the_memory_counts():
    """ZeRO-2 of Llama 2 7B on 8 GPUs: FSDP2 keeps fp32 shards (16 bytes/8) beside every unit gathered in
    bf16 (2 bytes/param); DeepSpeed keeps the bf16 model whole (2) and shards 2 + 4 + 12 bytes over 8, and in its
    optimizer step a flattened 16-bit copy of the gradient partition (2 more over 8, stage_1_and_2.py step)."""
    model = get_preset("llama-2-7b")
    layout = Layout(dp=8, zero=2, recompute="full")
    deepspeed = estimate_memory(model, MemoryConfig(task="pretrain", layout=layout, runtime="deepspeed"))
    fsdp2 = estimate_memory(model, MemoryConfig(task="pretrain", layout=layout, runtime="fsdp2"))
    assert (deepspeed.runtime, fsdp2.runtime) == ("deepspeed", "fsdp2")
    ds_states = deepspeed.model_state_bytes - deepspeed.zero3_gathered_bytes
    assert ds_states == pytest.approx(2 * P_7B + 20 * P_7B / 8, abs=3)
    assert fsdp2.optimizer.bytes == pytest.approx(8 * P_7B / 8, abs=1)
    assert fsdp2.gradients.bytes == pytest.approx(4 * P_7B / 8, abs=1)


def test_the_export_runs_the_planned_runtime_first_and_the_report_names_it(capsys, tmp_path):
    """A plain data-parallel LoRA plan is planned for DDP: launch.sh's default runner is ddp and the report
    says so; a ZeRO plan's is deepspeed."""
    cases = ((("--task", "lora", "--zero", "0"), "ddp"), (("--zero", "2"), "deepspeed"),
             (("--zero", "3", "--runtime", "fsdp2"), "fsdp2"))  # fmt: skip
    for extra, runtime in cases:
        folder = tmp_path / runtime
        assert main([*SHOWS, *extra, "--export", str(folder)]) == 0
        capsys.readouterr()
        launch = (folder / "launch.sh").read_text(encoding="utf-8")
        assert f'RUNNER="${{RUNNER:-{runtime}}}"' in launch
        report = (folder / "report.md").read_text(encoding="utf-8")
        assert f"| Runtime | {runtime}: " in report
        if runtime == "fsdp2":  # ZeRO-3: reshard after forward
            assert "--runner fsdp2" in launch and "--reshard" in launch


def test_lora_with_pipeline_parallel_is_refused_in_one_line_and_never_offered(capsys):
    """DeepSpeed runs no pipeline here and torchtitan no adapters: `memory` says so in one line (exit 2), and
    the search offers only layouts some runtime runs, even where only a pipeline would have fitted."""
    code = main(["memory", "--model", "llama-2-7b", "--task", "lora", "--pp", "2", "--dp", "1"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "no runtime runs this training layout" in err and "torchtitan trains full models" in err
    # 70B LoRA on 16 x 24 GB: a pipeline of 16 (no runtime) used to be chosen; DeepSpeed with AutoTP runs it
    # instead. QLoRA there used a pipeline of 4; AutoTP cannot split 4-bit weights, so data parallel only.
    lora = _plan(capsys, "--task", "lora", "--gpus", "16", "--gpu", "rtx-4090", "--model", "llama-3.1-70b")
    assert [(o["runtime"], o["strategy"]["pp"]) for o in lora["options"]] == [("deepspeed", 1)]
    qlora = _plan(capsys, "--task", "qlora", "--gpus", "16", "--gpu", "rtx-4090", "--model", "llama-3.1-70b")
    assert all(
        o["runtime"] is not None and o["strategy"]["tp"] == o["strategy"]["pp"] == 1 for o in qlora["options"]
    )
