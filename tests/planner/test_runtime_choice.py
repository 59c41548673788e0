"""The search chooses the runtime of each option (planner.search.training_runtime): the layout it found is
weighed in every runtime that can run it, each with its own memory, step time and checkpoint, and the best that
fits is kept. Held against `plan --runtime X` for the same layout (the pinned search, its own path through the
planner: each weighed runtime's figures are what pinning it gives), and against what the runtimes hold by hand:
DeepSpeed reduces 16-bit gradients (2 bytes each) where FSDP2 reduces fp32 ones (4 bytes, its MixedPrecisionPolicy
reduce_dtype in the export), so its step is never longer."""

from __future__ import annotations

import json

import pytest

from planner.cli import main
from planner.gpus import get_gpu

# 7B pretraining on 8 H100s with ZeRO-3 and its activation variant pinned: DeepSpeed and FSDP2 can both run it
ZERO3 = ("plan", "--model", "llama-2-7b", "--gpu", "h100-sxm", "--gpus", "8", "--task", "pretrain", "--zero", "3",
         "--offload", "none", "--micro-batch", "2", "--recompute", "none")  # fmt: skip


def _plan(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _pinned(capsys, runtime: str, *extra: str) -> dict | None:
    """The option `plan --runtime runtime` gives for the same pins (None: nothing fits)."""
    options = _plan(capsys, *ZERO3, *extra, "--runtime", runtime)["options"]
    return options[0] if options else None


def test_each_runtime_weighed_is_what_pinning_it_gives_and_the_best_is_chosen(capsys):
    option = _plan(capsys, *ZERO3)["options"][0]
    candidates = {c["runtime"]: c for c in option["runtime_candidates"]}
    assert list(candidates) == ["deepspeed", "fsdp2"]
    for runtime, candidate in candidates.items():
        pinned = _pinned(capsys, runtime)
        assert (
            pinned is not None and pinned["strategy"] == option["strategy"] and pinned["runtime"] == runtime
        )
        assert candidate["per_gpu_bytes"] == pinned["per_gpu_bytes"]["total"]
        assert candidate["step_time_s"] == pinned["step_time_s"]
        useful = pinned["tokens_per_s"] * pinned["goodput"]["effective_fraction"]
        assert candidate["useful_tokens_per_s"] == pytest.approx(useful, rel=1e-12)
        assert candidate["fits"]
    # 16-bit gradients on the wire against fp32 ones: DeepSpeed's step is not longer
    assert candidates["deepspeed"]["step_time_s"] <= candidates["fsdp2"]["step_time_s"]
    best = max(candidates.values(), key=lambda c: c["useful_tokens_per_s"])
    assert option["runtime"] == best["runtime"] and [
        c["runtime"] for c in candidates.values() if c["chosen"]
    ] == [option["runtime"]]
    assert any(
        note.startswith(f"{option['runtime']} chosen, the most useful tokens/s") for note in option["notes"]
    )


def test_a_runtime_that_does_not_fit_is_not_chosen(capsys):
    """With the usable memory between the two runtimes' figures, only the smaller fits: it is chosen, and the
    other is shown as not fitting; pinning the other, the plan finds it fits only inside the headroom (shown as
    tight: planner.search.tight)."""
    both = {
        c["runtime"]: c["per_gpu_bytes"] for c in _plan(capsys, *ZERO3)["options"][0]["runtime_candidates"]
    }
    small, large = sorted(both, key=both.__getitem__)
    assert both[small] < both[large]
    memory = get_gpu("h100-sxm").memory_bytes
    usable = (both[small] + both[large]) / 2
    headroom = ("--memory-headroom", f"{100 * (1 - usable / memory):.6f}")  # percent
    option = _plan(capsys, *ZERO3, *headroom)["options"][0]
    candidates = {c["runtime"]: c for c in option["runtime_candidates"]}
    assert option["runtime"] == small and candidates[small]["fits"] and not candidates[large]["fits"]
    assert candidates[large]["per_gpu_bytes"] == both[large]
    pinned = _pinned(capsys, large, *headroom)
    assert pinned is not None and pinned["per_gpu_bytes"]["total"] == both[large]
    assert pinned["headroom_margin_bytes"] == memory - both[large]


def test_a_pinned_runtime_is_the_only_one_weighed(capsys):
    for runtime in ("deepspeed", "fsdp2"):
        option = _pinned(capsys, runtime)
        assert option is not None and option["runtime"] == runtime
        assert [(c["runtime"], c["chosen"]) for c in option["runtime_candidates"]] == [(runtime, True)]
        assert not any("chosen, the most useful" in note for note in option["notes"])


def test_only_the_runtimes_that_can_run_a_layout_are_weighed(capsys):
    """QLoRA: train.py's FSDP2 runner does not shard 4-bit weights, so ZeRO-3 QLoRA is DeepSpeed's alone; LoRA
    with tensor parallel: torchtitan trains no adapters, so DeepSpeed AutoTP alone; LoRA with ZeRO-3 data
    parallel: FSDP2 too (its exported step peaks as planned, tests/exports/test_peak_as_planned.py)."""
    base = ("plan", "--model", "llama-2-7b", "--gpu", "h100-sxm", "--gpus", "8")
    cases = ((("--task", "qlora", "--zero", "3"), ["deepspeed"]),
             (("--task", "lora", "--tp", "2"), ["deepspeed"]),
             (("--task", "lora", "--zero", "3"), ["deepspeed", "fsdp2"]))  # fmt: skip
    for extra, runtimes in cases:
        option = _plan(capsys, *base, *extra)["options"][0]
        assert [c["runtime"] for c in option["runtime_candidates"]] == runtimes, extra


def test_the_table_and_the_report_name_the_chosen_runtime_and_the_weighed_ones(capsys, tmp_path):
    capsys.readouterr()
    assert main([*ZERO3]) == 0
    text = capsys.readouterr().out
    header, row = text.splitlines()[:2]
    column = header.index(" runtime ") + 1  # the table's runtime column, read where its heading stands
    assert row[column : column + len("runtime   ")].strip() == "deepspeed"
    assert "deepspeed chosen, the most useful tokens/s that fits: deepspeed " in text and "; fsdp2 " in text
    folder = tmp_path / "export"
    assert main([*ZERO3, "--export", str(folder)]) == 0
    report = (folder / "report.md").read_text(encoding="utf-8")
    assert "| Runtimes weighed | deepspeed chosen, the most useful tokens/s that fits: deepspeed " in report


def test_a_runtime_pinned_for_a_task_it_cannot_run_is_refused_in_one_line(capsys):
    """train.py's FSDP2 runner refuses 4-bit weights, and torchtitan trains no adapters: such a pinned pair is a
    one-line refusal naming the runtime and why (exit 2), not a search that says no layout divides the GPUs."""
    base = ("plan", "--model", "llama-2-7b", "--gpu", "h100-sxm", "--gpus", "8")
    cases = (("qlora", "fsdp2", "does not shard bitsandbytes 4-bit weights"),
             ("lora", "torchtitan", "torchtitan trains full models, not LoRA / QLoRA adapters"))  # fmt: skip
    for task, runtime, reason in cases:
        capsys.readouterr()
        assert main([*base, "--task", task, "--runtime", runtime]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1
        assert f"the {runtime} runtime cannot run {task} training: " in err and reason in err
