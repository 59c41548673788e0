"""Bytes per parameter and per element as the frameworks store them: weights, gradients, optimizer state and masters per precision and optimizer (PyTorch autocast or Megatron-LM mixed precision), compute and KV-cache elements."""

from __future__ import annotations

from planner.memory.config import (
    WEIGHT_BITS,
    MemoryConfig,
)
from planner.vocabulary import Optimizer, Precision, Task


def training_weight_bytes(precision: str) -> float:
    """Bytes per trainable parameter held as the weight itself: fp32 under autocast (fp8: + a cached fp8 copy)."""
    if precision == Precision.FP8:
        return 3.0  # bf16 weights + an fp8 copy cached for the GEMMs (Transformer Engine)
    return 4.0


def gradient_bytes(precision: str) -> float:
    """Gradients take the weights' dtype: fp32 under autocast (bf16 beside Transformer Engine's fp8)."""
    return 2.0 if precision == Precision.FP8 else 4.0


# Optimizer state per trainable parameter: AdamW m + v in fp32; 8-bit AdamW m + v in int8 (Dettmers et al.
# 2021, arXiv 2110.02861); SGD momentum in fp32.
OPTIMIZER_STATE_BYTES = {Optimizer.ADAMW: 8.0, Optimizer.ADAMW8BIT: 2.0, Optimizer.SGD: 4.0}


# Megatron-LM mixed precision (tensor/pipeline parallel layouts): bf16 weights (2 bytes), fp32 main gradients
# (4, accumulated in the DDP buffer), an fp32 master copy (4) + the optimizer state, which its distributed
# optimizer (ZeRO-1) shards over dp (Megatron-LM docs, "Distributed Optimizer": 18 bytes/param without it).
MEGATRON_WEIGHT_BYTES = 2.0


MEGATRON_GRADIENT_BYTES = 4.0


MASTER_BYTES = 4.0


def optimizer_bytes(optimizer: Optimizer, precision: str) -> float:
    """Optimizer state per trainable parameter; an fp32 master copy (4 bytes) only beside fp8 weights."""
    master = 4.0 if precision == Precision.FP8 else 0.0
    return master + OPTIMIZER_STATE_BYTES[optimizer]


def megatron_style(config: MemoryConfig) -> bool:
    """16-bit full training with tensor or pipeline parallel and ZeRO-0/1: counted as Megatron-LM holds it."""
    layout = config.layout
    return (
        config.task.is_full_training
        and compute_bytes(config) < 4
        and (layout.tp > 1 or layout.pp > 1)
        and layout.zero <= 1
    )


def deepspeed_layout(config: MemoryConfig) -> bool:
    """16-bit full training: where DeepSpeed runs it, its own layout is counted (planner.memory.stages)."""
    return config.task.is_full_training and config.precision in (Precision.BF16, Precision.FP16)


def deepspeed_counted(config: MemoryConfig) -> bool:
    """Training whose layout planner.memory.stages counts as DeepSpeed holds it where DeepSpeed runs it: its
    engine casts the whole model to bf16 / fp16 (or leaves it fp32) and ZeRO keeps fp32 masters, optimizer state
    and gradients for the trainable parameters only -- full training, LoRA and QLoRA adapters (fp8: not run)."""
    return config.task.is_training and config.precision in (Precision.BF16, Precision.FP16, Precision.FP32)


def compute_bytes(config: MemoryConfig) -> float:
    """Bytes of one value the matmuls produce: 4 in fp32, 2 under 16-bit autocast or on 16-bit weights."""
    if config.task == Task.QLORA:
        return 2.0
    return 4.0 if config.precision == Precision.FP32 else 2.0


def kv_element_bytes(config: MemoryConfig) -> float:
    """KV-cache bytes per value: kv_precision if given, else the weights' precision (16 bit for int formats)."""
    precision = config.kv_precision
    if precision is None:
        precision = Precision.BF16 if Precision(config.precision).is_weight_only else config.precision
    return WEIGHT_BITS[precision] / 8


def master_precision(precision: str) -> Precision:
    """The precision gradients and optimizer state are counted in: fp8 keeps bf16 gradients, the rest fp32."""
    return Precision.FP8 if precision == Precision.FP8 else Precision.FP32
