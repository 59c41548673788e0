"""What one memory trace is asked to run (profiler.memory_trace): the model's config, the task and precision, the
batch, and the layout over a fake (or torchrun's) process group; the group one traced rank belongs to."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TraceRequest:
    config: str  # path to a config.json (or a folder holding one)
    task: str = "pretrain"  # pretrain | finetune | lora | inference
    precision: str = (
        "bf16"  # training: autocast over fp32 weights; inference and LoRA's base: the weights' dtype
    )
    batch: int = 1
    seq_len: int = 1024
    recompute: bool = False  # activation checkpointing of every decoder layer
    attention: str = "sdpa"  # sdpa (fused/flash) | eager (the explicit softmax that keeps the probabilities)
    lora_rank: int = 16
    lora_targets: tuple[str, ...] = ("q", "k", "v", "o")
    # peft's target_modules for those targets as the planner names them (planner/models/lora_modules.py, passed
    # on the command line); empty: profiler.trace_model's own names (the llama names, gpt2's, gpt_neox's)
    lora_modules: tuple[str, ...] = ()
    dp: int = 1  # data-parallel ranks (a fake process group when > 1)
    zero: int = 0  # 0/1: unsharded step (ZeRO-1's optimizer shard is divided out); 2/3: FSDP2 fully_shard
    fake: bool = True  # False: real tensors (tests on small models on the CPU; the device check on a GPU)
    new_tokens: int = 1  # inference: tokens decoded after the prefill
    device: str = (
        "cpu"  # "cuda": real tensors on the GPU, measured by torch.cuda's allocator too (device check)
    )
    tp: int = 1  # tensor-parallel ranks (TorchTitan's plan over a fake process group; with dp a 2-D mesh)
    pp: int = 1  # pipeline stages: one stage's module is traced (see `stage`)
    ep: int = 1  # expert-parallel ranks: each MoE layer keeps num_experts / ep experts
    sequence_parallel: bool = False  # with tp: norms and the residual stream sharded on the sequence
    inflight: int = 0  # pipeline: micro-batches a stage holds at once (0: 1F1B's pp - stage index)
    stage: int = -1  # pipeline stage traced; -1: the first and the last, the fuller one reported


def fsdp_sharded(request: TraceRequest) -> bool:
    """FSDP2 fully_shard over the data-parallel ranks (training with ZeRO-2/3 on more than one rank)."""
    return request.task != "inference" and request.dp > 1 and request.zero >= 2


def group_size(request: TraceRequest) -> int:
    """Ranks of the process group one traced rank belongs to: its FSDP2 ranks times its tensor-parallel ones
    (pipeline stages and the data-parallel ranks of an unsharded step never meet inside the traced step)."""
    return (request.dp if fsdp_sharded(request) else 1) * request.tp
