"""How each training runtime reduces the gradients over its data-parallel ranks: the bytes per gradient element on
the wire, the bucket the reduction is cut into (each bucket one collective, with its latency), and the piece left
after the backward ends (the exposed tail).

- PyTorch DDP (torch.nn.parallel.DistributedDataParallel, bucket_cap_mb=25 by default; PyTorch docs, "DDP
  communication": gradients are all-reduced in buckets, in the reverse order of model.parameters(), each launched
  as soon as its gradients are ready): the model's parameters are fp32 under autocast (the export's DDP runner),
  so the gradients on the wire are fp32, 4 bytes, in 25 MiB buckets.
- DeepSpeed (deepspeed/runtime/engine.py communication_data_type: the model's 16-bit dtype unless set): ZeRO-1/2
  (zero/stage_1_and_2.py reduce_independent_p_g_buckets_and_remove_grads: a bucket of reduce_bucket_size
  elements, a parameter larger than that reduced on its own; with overlap_comm, which the export sets, the
  reductions of the last micro-batch run beside its backward) reduce 16-bit gradients in buckets of the export's
  reduce_bucket_size (hidden x hidden elements, Hugging Face's "auto", planner.memory.stages.
  deepspeed_bucket_elements). ZeRO-0 (engine.py allreduce_gradients -> buffered_allreduce_fallback, after the
  backward, in buffers of MEMORY_OPT_ALLREDUCE_SIZE = 5e8 elements) overlaps nothing. ZeRO-3 reduce-scatters
  16-bit gradients per module.
- PyTorch FSDP2 and torchtitan (fully_shard per transformer block; MixedPrecisionPolicy(reduce_dtype=float32) in
  the export's FSDP2 runner and torchtitan's default mixed_precision_reduce "float32", torchtitan/config): one
  fp32 reduce-scatter per block, 4 bytes per gradient element. torchtitan's replicate (ZeRO-0 with a pipeline)
  is DDP: fp32 gradients, 25 MiB buckets.
- No runtime named (the validation cases, run by Megatron-Core and other frameworks): 16-bit gradients, one
  bucket per layer, the last layer's bucket the tail (planner.perf.training_context.gradient_sync).

Every runtime produces the input embedding's gradient last in the backward (its module runs first in the
forward; a tied embedding's gradient is complete only then too), so its reduction cannot start before the
backward ends: with a trained embedding larger than one bucket, the tail is the embedding's reduction.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from planner.messages import Message, msg
from planner.vocabulary import Runtime, ZeroStage

# torch.nn.parallel.DistributedDataParallel's bucket_cap_mb default (PyTorch docs): 25 MiB.
DDP_BUCKET_BYTES = 25 * 2**20
# DeepSpeed's ZeRO-0 all-reduce buffer (deepspeed/runtime/constants.py MEMORY_OPT_ALLREDUCE_SIZE), in elements.
DEEPSPEED_ALLREDUCE_ELEMENTS = 500_000_000
FP32_BYTES = 4.0
BF16_BYTES = 2.0


class Reduction(NamedTuple):
    """One step's data-parallel gradient reduction under a runtime: bytes per gradient element on the wire, the
    bucket size in bytes (0: one bucket per layer), whether the trained embedding's reduction is the tail, and
    whether the reduction runs beside the backward at all."""

    wire_bytes: float
    bucket_bytes: float
    embedding_tail: bool
    overlapped: bool = True


# None: no runtime named; the runtime-neutral reduction (16-bit, per layer), as fitted on the validation set
NEUTRAL = Reduction(BF16_BYTES, 0.0, embedding_tail=False)


def reduction(runtime: Runtime | None, zero: int, hidden: int, gradient_bytes: float = 2.0) -> Reduction:
    """The gradient reduction of `runtime` (None: NEUTRAL) for a ZeRO-`zero` layout of a model of `hidden` width;
    `gradient_bytes`: the 16-bit element size (fp16 / bf16 training: 2)."""
    if runtime is None:
        return NEUTRAL
    if runtime == Runtime.DDP:
        return Reduction(FP32_BYTES, DDP_BUCKET_BYTES, embedding_tail=True)
    if runtime == Runtime.DEEPSPEED:
        if zero == ZeroStage.NONE:
            return Reduction(
                gradient_bytes, DEEPSPEED_ALLREDUCE_ELEMENTS * gradient_bytes, True, overlapped=False
            )
        bucket = float(hidden * hidden) * gradient_bytes if zero < ZeroStage.WEIGHTS else 0.0
        return Reduction(gradient_bytes, bucket, embedding_tail=True)
    if runtime == Runtime.TORCHTITAN and zero == ZeroStage.NONE:  # torchtitan's replicate: DDP
        return Reduction(FP32_BYTES, DDP_BUCKET_BYTES, embedding_tail=True)
    # FSDP2 / torchtitan: one fp32 reduce-scatter per block
    return Reduction(FP32_BYTES, 0.0, embedding_tail=True)


def buckets(gradient_bytes: float, plan: Reduction, layers: int) -> int:
    """How many collectives reduce `gradient_bytes` (on the wire) of a stage of `layers` layers."""
    if plan.bucket_bytes <= 0:
        return max(1, layers)
    return max(1, math.ceil(gradient_bytes / plan.bucket_bytes))


def tail_bytes(gradient_bytes: float, plan: Reduction, layers: int, embedding_bytes: float) -> float:
    """Bytes (on the wire) whose reduction waits for the backward's end: one bucket (or layer), or the trained
    embedding's gradient where the runtime puts it last and it is larger (`embedding_bytes`: 0 where this stage
    holds no trained embedding)."""
    piece = gradient_bytes / buckets(gradient_bytes, plan, layers)
    if plan.embedding_tail:
        piece = max(piece, min(embedding_bytes, gradient_bytes))
    return piece


def reduction_message(runtime: str | None, zero: int, hidden: int, dp: int) -> Message | None:
    """What a plan says of its runtime's gradient reduction (None without data-parallel ranks or a runtime): the
    bits on the wire, the buckets (or one collective per layer), and whether it runs beside the backward."""
    if runtime is None or dp <= 1:
        return None
    plan = reduction(Runtime(runtime), zero, hidden)
    bits = round(plan.wire_bytes * 8)
    if not plan.overlapped:
        return msg("option.gradient_reduction.after_backward", runtime=runtime, wire_bits=bits,
                   bucket_bytes=plan.bucket_bytes)  # fmt: skip
    if plan.bucket_bytes <= 0:
        return msg("option.gradient_reduction.per_layer", runtime=runtime, wire_bits=bits)
    return msg("option.gradient_reduction.bucketed", runtime=runtime, wire_bits=bits, bucket_bytes=plan.bucket_bytes)
