"""DeepSpeed's model states and buffers on one pipeline stage's GPU (ZeRO 0-3, offload, bf16 / fp16 / fp32): the
documented layout, the bucket and sub-group sizes the export writes, and the step's figures under that runtime
(planner.memory.stages counts every other runtime)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from planner.memory.config import ALLOCATOR_MARGIN_FRACTION, CUDA_CONTEXT_BYTES, NCCL_BYTES_PER_COMMUNICATOR
from planner.memory.element_bytes import MASTER_BYTES
from planner.memory.shapes import StageShape
from planner.memory.stage_activations import StageActivations
from planner.vocabulary import Offload

_OFFLOAD_ALL = Offload.ALL
_OFFLOAD_OPTIMIZER = Offload.OPTIMIZER


def deepspeed_bucket_elements(hidden: int) -> int:
    """DeepSpeed's reduce_bucket_size in elements as the export writes it: hidden x hidden, Hugging Face
    transformers' "auto" value (its DeepSpeed integration; stage3_prefetch_bucket_size is 0.9 of it)."""
    return hidden * hidden


# DeepSpeed's training (deepspeed/runtime/engine.py, zero/stage_1_and_2.py, stage3.py, bf16_optimizer.py): the
# engine casts the whole model to bf16 / fp16 (fp32 stays fp32: e bytes per value); ZeRO keeps, for the trainable
# parameters only (a LoRA adapter's; a frozen base has no gradient or optimizer state), e-byte gradients and, per
# rank, fp32 master weights + AdamW's m and v (12 bytes, a clone even of fp32 weights) and an fp32 gradient
# partition (4 bytes) for its 1/dp share. ZeRO-0 (BF16_Optimizer) keeps them whole and accumulates the gradients in
# fp32 (2 + 4 + 12; in fp32 torch's AdamW alone: 4 + 4 + 8). The 16-bit figures are DeepSpeed's own estimators'
# (estimate_zero2_model_states_mem_needs: 2 + 18/dp bytes per parameter; ZeRO-1 keeps the 16-bit gradients
# whole: 4 + 16/dp; estimate_zero3_model_states_mem_needs: 4 x the largest module + 18/dp), plus the buckets
# they leave out: ZeRO-1/2 two reduce buckets (overlap_comm), ZeRO-3 one reduce and one prefetch bucket. ZeRO-3
# partitions the frozen base too, keeps an e-byte gradient partition (grad_partitions_flat_buffer) and makes the
# fp32 gradient one optimizer sub-group at a time (sub_group_size, which the export sets to
# DEEPSPEED_SUB_GROUP_ELEMENTS). Offload moves the fp32 parts (and ZeRO-3's weight partition with parameter
# offload) to CPU RAM, and the gradients of ZeRO-2/3 go to the CPU from the reduce bucket.
_DS_FP32_GRADIENT = 4.0
_DS_MASTER_AND_ADAM = 12.0
# ZeRO-3's optimizer sub-group in elements as the export writes it (ds_config sub_group_size; DeepSpeed's
# default is 1e9): the fp32 gradient exists for one sub-group at a time during the optimizer step.
DEEPSPEED_SUB_GROUP_ELEMENTS = 100_000_000
# DeepSpeed 0.19's gradient norm (stage_1_and_2.py and stage3.py get_grad_norm_direct) converts each gradient
# partition to get_norm_dtype(): fp64 wherever the device has it (deepspeed/runtime/zero/utils.py)
_DS_NORM = 8.0


def deepspeed_figures(
    shape: StageShape, acts: StageActivations, zero: int, offload: str, addable: bool, dps: Sequence[int]
) -> list[tuple[float, float, float, float, float, float, float, float, float, float, int, str, int]]:
    """_state_figures under DeepSpeed's layout (see the constants above), the same tuple per dp. The
    accumulation does not change the peak: the gradients (ZeRO-1 whole, ZeRO-2/3 the rank's partition) stay
    beside every micro-batch's activations, and the fp32 gradients exist only in the optimizer step."""
    ceil = math.ceil
    activations = acts.activations_sharded  # the model itself is 16 bit (or fp32): no autocast copies
    e = shape.compute_bytes  # bytes of one weight or gradient value of the model as DeepSpeed runs it
    # AutoTP (tp > 1) leaves the input embedding whole on every rank: the part the shape divided by tp comes back,
    # trained (with its states) in full training, frozen beside an adapter
    whole = shape.autotp_whole
    trainable_dense = shape.trainable_dense + (whole if shape.full_training else 0.0)
    trainable = trainable_dense + shape.trainable_expert
    adapter = trainable * e if shape.adapter else 0.0  # a LoRA adapter's weights beside the frozen base
    # QLoRA: the 4-bit base (AutoTP splits no 4-bit weight: no QLoRA with tp > 1)
    model_bytes = shape.stored_weights + whole * e if shape.adapter else (shape.params_gpu + whole) * e
    dense_params_gpu = shape.dense_params_gpu + whole
    offloaded = offload in (_OFFLOAD_OPTIMIZER, _OFFLOAD_ALL)
    if zero == 3:
        buffers = 1.9 * shape.bucket_elements * e  # reduce bucket + prefetch bucket (0.9 of it)
        live = shape.largest_module * (e + (0.0 if shape.adapter else e))  # gathered; frozen: no gradient
    else:
        buffers = 2 * shape.bucket_elements * e if zero >= 1 else 0.0
        live = 0.0
    communicators = (shape.tp > 1) + (shape.pp > 1) + (shape.ep > 1)
    figures = []
    for dp in dps:
        expert_shard = dp * shape.tp // shape.ep if shape.ep > 1 else dp
        shard = trainable_dense / dp + shape.trainable_expert / expert_shard
        # step_only: gradient bytes made in the optimizer step, never beside activations
        host, step_only = 0.0, 0.0
        if zero == 0:
            weights, gradients = model_bytes + adapter + shape.qlora_workspace, trainable * _DS_FP32_GRADIENT
            optimizer = trainable * (_DS_MASTER_AND_ADAM if e < 4 else _DS_MASTER_AND_ADAM - MASTER_BYTES)
        else:
            weights = model_bytes + adapter
            if zero == 3:  # the base's and the adapter's partitions
                kept = dense_params_gpu / dp + shape.expert_params_gpu / expert_shard
                weights = model_bytes * kept / (shape.params_gpu + whole or 1) + (shard * e if shape.adapter else 0.0)
            sixteen_bit_gradients = (trainable if zero == 1 else shard) * e
            fp32_gradients = shard if zero < 3 else min(shard, DEEPSPEED_SUB_GROUP_ELEMENTS)
            # the gradient norm, before the fp32 gradients are made: an fp64 copy of one parameter's gradient
            # partition at a time (ZeRO-1/2: a parameter lies whole in one rank's flat partition where it fits;
            # ZeRO-3 partitions every parameter over dp)
            largest = shape.largest_trainable
            norm_copy = (min(largest, shard) if zero < 3 else largest / dp) * _DS_NORM
            fp32_moment = fp32_gradients * _DS_FP32_GRADIENT
            if zero < 3:
                # ZeRO-1/2's step (stage_1_and_2.py step, without offload) frees the gradients of the parameters
                # other ranks update, then flattens the rank's own partition (self.flatten: a new e-byte tensor)
                # and casts it to fp32 (.to(): a copy below fp32) while both are held: e + e + 4 bytes per
                # element of the partition, against the e bytes of the gradients counted before the step
                cast = _DS_FP32_GRADIENT if e < _DS_FP32_GRADIENT else 0.0
                fp32_moment = shard * (2 * e + cast) - sixteen_bit_gradients
            step_only = max(fp32_moment, norm_copy)
            gradients = sixteen_bit_gradients + step_only
            optimizer = shard * _DS_MASTER_AND_ADAM
            if offloaded:
                host += optimizer + fp32_gradients * _DS_FP32_GRADIENT
                gradients, step_only, optimizer = (sixteen_bit_gradients if zero == 1 else 0.0), 0.0, 0.0
            if offload == _OFFLOAD_ALL:
                host, weights = host + weights, 0.0
            weights += buffers + live + shape.qlora_workspace
        # gradients and activations are not held at once (one backward per step), as _state_figures counts;
        # ZeRO-1/2/3 hold their 16-bit gradient partition (where micro-batches accumulate) beside the activations
        # and make the fp32 gradients only in the optimizer step
        optimizer_moment = gradients + shape.tied_embedding_gradient
        backward_moment = activations + gradients - step_only if zero else activations
        held = activations + gradients
        if addable:
            # counted whole, an upper bound: the search adds the activations of each micro-batch to a state's
            # total, which the larger of two moments would not allow; each option is then shown exactly
            optimizer_moment = held
        peak = min(held, max(backward_moment, optimizer_moment))
        not_concurrent = held - peak
        phase = "optimizer step" if optimizer_moment > backward_moment else "backward"
        margin = CUDA_CONTEXT_BYTES + ALLOCATOR_MARGIN_FRACTION * (gradients + activations + acts.kv_cache)
        step_communicators = (dp > 1) + communicators
        overhead = margin + step_communicators * NCCL_BYTES_PER_COMMUNICATOR
        total = (
            ceil(weights) + ceil(gradients) + ceil(optimizer) + ceil(activations) + ceil(acts.kv_cache)
            + ceil(overhead) - math.floor(not_concurrent)
        )  # fmt: skip
        figures.append((weights, gradients, optimizer, activations, overhead, not_concurrent, host, buffers,
                        live, 0.0, step_communicators, phase, total))  # fmt: skip
    return figures
