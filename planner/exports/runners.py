"""Which framework runs a plan as planned, and the versions every exported file targets.

A plan is a layout (dp x tp x pp, ep, ZeRO stage, offload, recompute, micro-batch). Each runner below either
expresses that layout exactly or is refused with the reason, so no exported file silently runs another
strategy. The rules come from the frameworks' own sources (versions below), and tests/exports runs the real
libraries on the DeepSpeed, accelerate and torch DDP paths:

- DeepSpeed 0.19 (deepspeed/runtime/engine.py): ZeRO 0-3 with optimizer / parameter offload, AutoTP
  (`tensor_parallel.autotp_size`, any ZeRO stage), AutoEP (`expert_parallel.autoep_size`, presets for
  mixtral, qwen3_moe, qwen3_5_moe, deepseek_v2, deepseek_v3, minimax_m3; module_inject/auto_ep_folding.py
  refuses offload with AutoEP + AutoTP). Its pipeline engine needs the model rebuilt as a PipelineModule and
  cannot be combined with AutoTP, so pipeline plans are not run with DeepSpeed here.
- accelerate 1.15 with DEEPSPEED runs the same ds_config.json; its data loader splits batches over every
  process, which would feed the ranks of one tensor-parallel group different data, so TP plans are refused.
- torch DDP (torchrun): plain data parallel only (ZeRO 0, no TP/PP/EP, no offload).
- torch FSDP2 (train.py --runner fsdp2 under torchrun): fully_shard per decoder layer and the root with a
  MixedPrecisionPolicy; ZeRO-3 reshards after forward, ZeRO-2 does not; CPUOffloadPolicy for offload "all"; no
  TP/PP/EP, no optimizer-only offload, no QLoRA. Random init is built on the meta device; pretrained weights are
  loaded whole on each rank's host before sharding.
- torchtitan 0.3 (torchtitan/config/configs.py ParallelismConfig): FSDP2 x TP x PP x EP for its own model
  definitions and Hugging Face models through its transformers backend; configs are Python functions
  (`--module`, `--config`) with CLI overrides (0.3 reads no TOML file). FSDP2 shards parameters, gradients and
  optimizer state together (ZeRO-3); ZeRO-1 / 2 plans run with `fsdp_reshard_after_forward never` (parameters
  kept whole between forward and backward: never more memory than the ZeRO-1/2 plan). CPU offload moves
  parameters, gradients and optimizer together, so an optimizer-only offload plan is refused. No LoRA/QLoRA.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from planner.memory.runtimes import ddp_refusal, deepspeed_refusal, fsdp2_refusal, torchtitan_refusal
from planner.vocabulary import Layout, Runtime, Task, ZeroStage

# The versions the exported files target (PyPI, checked 2026-11): what the tests install and run where
# they can (pyproject's exports-test extra) and what flags were checked against otherwise.
VERSIONS = {
    "torch": "2.13",
    "deepspeed": "0.19.8",
    "accelerate": "1.15",
    # DeepSpeed 0.19.8's AutoEP calls transformers' output-capture registry as a dict; transformers 5.23 made
    # it a class whose get() takes one argument (TypeError at deepspeed.initialize), so 5.22 is the newest
    # transformers the EP export runs with.
    "transformers": "5.22",
    "peft": "0.21",
    "bitsandbytes": "0.50",
    "torchtitan": "0.3.0",
    "vllm": "0.33",
    "sglang": "0.5.23",
    "tensorrt_llm": "1.2",
    "llama.cpp": "llama-server (2026 builds)",
}


# torchtitan 0.3 configs (torchtitan/models/*/config_registry.py) for the shipped presets that have one;
# other models run through torchtitan's transformers backend (experiments/transformers_modeling_backend).
TORCHTITAN_CONFIGS = {
    "llama-3.1-8b": ("llama3", "llama3_8b"),
    "llama-3.1-70b": ("llama3", "llama3_70b"),
    "llama-3.1-405b": ("llama3", "llama3_405b"),
    "deepseek-v3": ("deepseek_v3", "deepseek_v3_671b"),
}
TORCHTITAN_HF_BACKEND = ("transformers_modeling_backend", "transformers_modeling_backend_full")


class Runner(StrEnum):
    DEEPSPEED = "deepspeed"
    ACCELERATE = "accelerate"
    DDP = "ddp"
    FSDP2 = "fsdp2"
    TORCHTITAN = "torchtitan"
    VLLM = "vllm"
    TRTLLM = "trtllm"
    LLAMACPP = "llamacpp"
    SGLANG = "sglang"


FRAMEWORK_OF = {
    Runner.DEEPSPEED: f"DeepSpeed {VERSIONS['deepspeed']} under torchrun (torch {VERSIONS['torch']})",
    Runner.ACCELERATE: f"accelerate {VERSIONS['accelerate']} (DeepSpeed {VERSIONS['deepspeed']} or torch DDP)",
    Runner.DDP: f"torch {VERSIONS['torch']} DistributedDataParallel under torchrun",
    Runner.FSDP2: (
        f"torch {VERSIONS['torch']} FSDP2 (fully_shard per decoder layer, MixedPrecisionPolicy: 16-bit compute, "
        "fp32 shards and reductions) under torchrun"
    ),
    Runner.TORCHTITAN: f"torchtitan {VERSIONS['torchtitan']} under torchrun",
    Runner.VLLM: f"vLLM {VERSIONS['vllm']} (vllm serve)",
    Runner.TRTLLM: f"TensorRT-LLM {VERSIONS['tensorrt_llm']} (trtllm-serve, PyTorch backend)",
    Runner.LLAMACPP: f"llama.cpp {VERSIONS['llama.cpp']}",
    Runner.SGLANG: f"SGLang {VERSIONS['sglang']} (python -m sglang.launch_server)",
}


# The runner that runs each training runtime's plans by default.
RUNNER_OF_RUNTIME = {
    Runtime.DEEPSPEED: Runner.DEEPSPEED,
    Runtime.DDP: Runner.DDP,
    Runtime.FSDP2: Runner.FSDP2,
    Runtime.TORCHTITAN: Runner.TORCHTITAN,
}


def runtime_framework(runtime: str) -> str:
    """What runs a plan of `runtime`, with versions (the CLI's and the report's runtime line)."""
    return FRAMEWORK_OF[RUNNER_OF_RUNTIME[Runtime(runtime)]]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether `runner` runs the plan as planned; `reason` says why not, `differs` what runs differently."""

    runner: Runner
    runs: bool
    reason: str = ""
    differs: tuple[str, ...] = ()


def training_verdicts(
    layout: Layout, task: Task, family: str | None, preset_id: str | None, runtime: str | None = None
) -> list[Verdict]:
    """Every training runner and whether it runs this layout, the default (first runnable) first: the runner
    of the plan's runtime (RUNNER_OF_RUNTIME) where it runs the layout."""
    verdicts = [
        _deepspeed(layout, task, family),
        _accelerate(layout, task, family),
        _ddp(layout),
        _fsdp2(layout, task),
        _torchtitan(layout, task, preset_id),
    ]
    planned = RUNNER_OF_RUNTIME.get(Runtime(runtime)) if runtime else None
    return sorted(verdicts, key=lambda v: (not v.runs, v.runner != planned))


# The serving engine profiles the planner times (planner.perf.ENGINES) and the runner that serves each.
ENGINE_RUNNERS = {"vllm": Runner.VLLM, "tensorrt-llm": Runner.TRTLLM, "llama.cpp": Runner.LLAMACPP,
                  "sglang": Runner.SGLANG}
# Weight formats (planner.perf.FORMATS) a serving engine reads from a pre-quantized checkpoint's own config.
_CHECKPOINT_FORMATS = ("fp8", "int8", "int4", "int4-g128", "int4-g64", "int4-g32")
_GGUF_FORMATS = ("q8_0", "q4_0", "q4_k_m")


def serving_verdicts(layout: Layout, nodes: int, engine: str | None = None, weight_format: str | None = None,
                     replicas_per_node: int = 1) -> list[Verdict]:  # fmt: skip
    """The serving runners, the engine the plan was timed with first (vLLM when it has no server or cannot
    serve this layout), each with what differs from the plan. vLLM starts every replica of a node itself
    (--data-parallel-size); trtllm-serve and llama-server start one."""
    llamacpp_differs = ["llama.cpp needs the model as a GGUF file (GGUF=...); it splits layers over the node's "
                        "GPUs (--split-mode layer) rather than tensor parallel"]  # fmt: skip
    engine_differs = []
    if weight_format in _CHECKPOINT_FORMATS:
        engine_differs.append(f"the plan assumes {weight_format} weights: MODEL must be a checkpoint quantized "
                              "so (the engine reads the quantization from its config.json)")  # fmt: skip
    if weight_format in _GGUF_FORMATS:
        llamacpp_differs.append(f"the plan assumes {weight_format} weights: GGUF must be of that type")
    trtllm_differs = list(engine_differs)
    if replicas_per_node > 1:
        trtllm_differs.append(f"trtllm-serve starts one replica of {layout.tp * layout.pp} GPU(s); the plan's "
                              f"{replicas_per_node} per node need one trtllm-serve each (CUDA_VISIBLE_DEVICES, "
                              "--port) behind a load balancer")  # fmt: skip
        llamacpp_differs.append(
            f"llama-server runs one replica over the node's GPUs, not {replicas_per_node}"
        )
    verdicts = [Verdict(Runner.VLLM, True, differs=tuple(engine_differs)),
                Verdict(Runner.TRTLLM, True, differs=tuple(trtllm_differs)),
                Verdict(Runner.LLAMACPP, True, differs=tuple(llamacpp_differs)),
                Verdict(Runner.SGLANG, True, differs=tuple(engine_differs))]  # fmt: skip
    if nodes > 1:
        verdicts[2] = Verdict(
            Runner.LLAMACPP, False, "llama.cpp serves from one machine; this plan spans nodes"
        )
    if layout.ep > 1:  # expert parallel with data-parallel attention: vLLM's --enable-expert-parallel
        verdicts[1] = Verdict(Runner.TRTLLM, False, "the plan splits the experts over data-parallel attention "
                              "ranks (expert parallel); launch.sh writes that for vLLM only")  # fmt: skip
        verdicts[2] = Verdict(Runner.LLAMACPP, False, "llama.cpp has no expert parallelism")
    planned = ENGINE_RUNNERS.get(engine or "vllm")
    if planned is None or not next(v for v in verdicts if v.runner == planned).runs:
        note = (f"the plan's figures assume {engine}, which "
                + ("has no server" if planned is None else "cannot serve this layout")
                + "; vLLM serves the same layout")  # fmt: skip
        verdicts[0] = Verdict(Runner.VLLM, True, differs=(note, *engine_differs))
        planned = Runner.VLLM
    return sorted(verdicts, key=lambda v: (not v.runs, v.runner != planned))


def default_runner(verdicts: list[Verdict]) -> Runner | None:
    runnable = [v.runner for v in verdicts if v.runs]
    return runnable[0] if runnable else None


def _deepspeed(layout: Layout, task: Task, family: str | None) -> Verdict:
    reason = deepspeed_refusal(layout.tp, layout.pp, layout.ep, layout.offload, task, family)
    return Verdict(Runner.DEEPSPEED, not reason, reason)


def _accelerate(layout: Layout, task: Task, family: str | None) -> Verdict:
    runner = Runner.ACCELERATE
    if layout.tp > 1:
        return Verdict(runner, False, (
            "accelerate splits each batch over every process, so the ranks of one tensor-parallel group would "
            "train on different data"
        ))  # fmt: skip
    base = _deepspeed(layout, task, family)
    return Verdict(runner, base.runs, base.reason)


def _ddp(layout: Layout) -> Verdict:
    reason = ddp_refusal(layout.tp, layout.pp, layout.ep, layout.zero, layout.offload)
    return Verdict(Runner.DDP, not reason, reason)


def _fsdp2(layout: Layout, task: Task) -> Verdict:
    reason = fsdp2_refusal(layout.tp, layout.pp, layout.ep, layout.zero, layout.offload, task)
    return Verdict(Runner.FSDP2, not reason, reason)


def _torchtitan(layout: Layout, task: Task, preset_id: str | None) -> Verdict:
    runner = Runner.TORCHTITAN
    reason = torchtitan_refusal(layout.offload, task)
    if reason:
        return Verdict(runner, False, reason)
    differs = []
    if layout.zero in (ZeroStage.OPTIMIZER, ZeroStage.GRADIENTS):
        differs.append(
            f"ZeRO-{int(layout.zero)} runs as FSDP2 with parameters kept whole between forward and backward "
            "(fsdp_reshard_after_forward never): at most the planned memory"
        )
    if preset_id not in TORCHTITAN_CONFIGS:
        differs.append("the model runs through torchtitan's transformers backend (HF modeling code)")
    if layout.virtual_stages > 1:
        differs.append(
            f"the plan interleaves {layout.virtual_stages} virtual stages per pipeline rank; the command runs "
            "torchtitan's default schedule (one stage per rank, more of the pipeline bubble): set "
            "--parallelism.pipeline_parallel_schedule Interleaved1F1B and pipeline_parallel_layers_per_stage"
        )
    differs.append(
        "recompute follows the torchtitan config's activation checkpointing (FullAC / SelectiveAC)"
    )
    return Verdict(runner, True, differs=tuple(differs))
