"""Tensor-, pipeline- and expert-parallel per-rank memory against real torch on the CPU (issue 16).

- Tensor parallel: torchrun starts 2 (or, with FSDP2, 4) gloo ranks; each parallelises the transformers model with
  TorchTitan's plan (parallelize_module: q/k/v/gate/up ColwiseParallel, o/down RowwiseParallel, vocabulary-sharded
  embedding and loss) and runs one real training step under MemTracker; rank 0's peak is the measurement.
- Pipeline and expert parallel: one rank's stage module (its layers, the embedding on the first stage, the head and
  loss on the last, 1F1B's in-flight micro-batches) or its experts (num_experts / ep per MoE layer) run one real step
  on real CPU tensors; the parameters are counted by hand.
The trace (fake tensors, a fake process group) must be within 3% of the measurement and planner.memory's analytic
per-rank peak within 10% (the targets of issue 16) where the analytic model describes the same rank."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planner.memory import MemoryConfig, estimate_memory
from planner.models import load_hf_config
from planner.vocabulary import Layout

pytest.importorskip("torch", reason="needs torch (installed by `make test`)")
pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")

ROOT = Path(__file__).resolve().parents[2]
LLAMA = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 4,
         "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 20000, "max_position_embeddings": 1024}  # fmt: skip
MIXTRAL = {"model_type": "mixtral", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 20000, "max_position_embeddings": 1024,
           "num_local_experts": 8, "num_experts_per_tok": 2}  # fmt: skip
BATCH, SEQ = 2, 128
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}


def _result(stdout: str) -> dict:
    for line in reversed(stdout.splitlines()):
        if line.startswith("{") and '"event": "result"' in line:
            return json.loads(line)["result"]
    raise AssertionError(f"no result line in: {stdout[-2000:]}")


def _config(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _args(path: Path, *layout: str) -> list[str]:
    return ["-m", "profiler.memory_trace", "--config", str(path), "--task", "pretrain", "--precision", "fp32",
            "--batch", str(BATCH), "--seq-len", str(SEQ), *layout]  # fmt: skip


def _traced(path: Path, *layout: str) -> dict:
    fake = subprocess.run([sys.executable, *_args(path, *layout)], capture_output=True, text=True, env=ENV,
                          timeout=600, check=True)  # fmt: skip
    return _result(fake.stdout)


def _real(path: Path, ranks: int, *layout: str) -> dict:
    """One real step on real CPU tensors: under torchrun with `ranks` gloo ranks, or in one process (ranks 1)."""
    if ranks == 1:
        command = [sys.executable, *_args(path, *layout), "--real"]
    else:
        torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or "torchrun"
        command = [torchrun, "--standalone", f"--nproc-per-node={ranks}", *_args(path, *layout), "--real"]
    real = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=600, check=False)
    assert real.returncode == 0, real.stderr[-2000:]
    return _result(real.stdout)


def _analytic_peak(path: Path, layout: Layout, **options: object) -> int:
    config = MemoryConfig(task="train", precision="fp32", seq_len=SEQ, layout=layout, **options)  # type: ignore[arg-type]
    analytic = estimate_memory(load_hf_config(path), config)
    return analytic.total_bytes - analytic.overhead.bytes


def _within(value: int, measured: int, share: float) -> bool:
    return abs(value - measured) <= share * measured


@pytest.mark.slow
@pytest.mark.parametrize("sequence_parallel", [False, True])
def test_tensor_parallel_rank_under_torchrun_matches_trace_and_analytic(tmp_path, sequence_parallel):
    path = _config(tmp_path, LLAMA)
    layout = ["--tp", "2", *(["--sequence-parallel"] if sequence_parallel else [])]
    measured, traced = _real(path, 2, *layout), _traced(path, *layout)
    assert measured["world_size"] == 2 and measured["rank"] == 0 and not measured["fake_tensors"]
    # hand count of one rank: every matrix halved (q/k/v/o, gate/up/down, embedding and head rows), norms whole
    h, kv, ffn, vocab, layers = 256, 2 * 64, 688, 20000, 4
    per_layer = (2 * h * h + 2 * h * kv + 3 * h * ffn) // 2 + 2 * h
    assert traced["local_parameter_count"] == layers * per_layer + h + vocab * h
    assert _within(traced["peak_bytes"], measured["peak_bytes"], 0.03)
    # the trace runs Megatron-style TP on torch DTensors with torch's AdamW, as torchtitan does: that runtime's
    # figure (the search would choose DeepSpeed's AutoTP for tp 2 at ZeRO-0, a layout this step does not run)
    peak = _analytic_peak(path, Layout(tp=2, micro_batch=BATCH), sequence_parallel=sequence_parallel,
                          runtime="torchtitan")  # fmt: skip
    assert _within(peak, measured["peak_bytes"], 0.10)


@pytest.mark.slow
def test_fsdp2_with_tensor_parallel_rank_under_torchrun_matches_trace(tmp_path):
    """A 2-D (dp 2, tp 2) mesh: FSDP2 over the data-parallel ranks of TP-sharded DTensors, 4 gloo ranks. The analytic
    figure (0.88x here: it gathers Megatron-style units and has no whole embedding gradient) is not asserted."""
    path = _config(tmp_path, LLAMA)
    layout = ["--tp", "2", "--dp", "2", "--zero", "3"]
    measured, traced = _real(path, 4, *layout), _traced(path, *layout)
    assert measured["world_size"] == 4 and measured["sharded"]
    assert _within(traced["peak_bytes"], measured["peak_bytes"], 0.03)


@pytest.mark.slow
def test_pipeline_stages_match_real_tensors_and_hold_their_inflight_microbatches(tmp_path):
    path = _config(tmp_path, LLAMA)
    stages = []
    for stage in (0, 1):
        layout = ["--pp", "2", "--stage", str(stage)]
        measured, traced = _real(path, 1, *layout), _traced(path, *layout)
        assert _within(traced["peak_bytes"], measured["peak_bytes"], 0.03)
        assert traced["stage"]["inflight"] == 2 - stage  # 1F1B: pp - stage index
        stages.append(traced)
    one = _traced(path, "--pp", "2", "--stage", "0", "--inflight", "1")
    # two micro-batches in flight keep twice what one micro-batch's forward keeps
    assert _within(stages[0]["max"]["activations"], 2 * one["max"]["activations"], 0.03)
    # the analytic figure is the fuller stage's (`memory --trace --pp 2` traces both and reports that one: the CLI
    # test traces tp 2 x pp 2 that way)
    fuller = max(stage["peak_bytes"] for stage in stages)
    assert _within(_analytic_peak(path, Layout(pp=2, micro_batch=BATCH)), fuller, 0.10)


@pytest.mark.slow
@pytest.mark.parametrize("ep", [2, 4])
def test_expert_parallel_rank_matches_real_tensors_and_analytic(tmp_path, ep):
    path = _config(tmp_path, MIXTRAL)
    measured, traced = _real(path, 1, "--ep", str(ep)), _traced(path, "--ep", str(ep))
    # hand count: attention, router and norms whole, 8 / ep experts of 3 x hidden x ffn each, embedding and head
    h, kv, ffn, vocab, layers, experts = 256, 2 * 64, 512, 20000, 4, 8
    per_layer = 2 * h * h + 2 * h * kv + experts * h + 2 * h + experts // ep * 3 * h * ffn
    assert traced["local_parameter_count"] == layers * per_layer + h + 2 * vocab * h
    assert traced["experts_per_rank"] == experts // ep
    assert _within(traced["peak_bytes"], measured["peak_bytes"], 0.03)
    assert _within(
        _analytic_peak(path, Layout(dp=ep, ep=ep, micro_batch=BATCH)), measured["peak_bytes"], 0.10
    )
