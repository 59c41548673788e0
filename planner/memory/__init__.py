"""Per-GPU memory breakdown of an LLM for inference, full training, LoRA and QLoRA.

Every term is in bytes per GPU and comes with a one-line statement of its assumption. The formulas and their
primary sources (docs/sources.md, "Memory"):

- model states: the ZeRO paper (Rajbhandari et al. 2020, arXiv 1910.02054): mixed-precision AdamW keeps
  2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 master weights, Adam m and v) = 16 bytes per parameter.
  DeepSpeed's estimators and Hugging Face's "model memory anatomy" count 18 (an extra fp32 gradient copy or an
  fp32 weight copy plus a 16-bit one); we use 16 because it is what ZeRO/Megatron/FSDP mixed precision holds
  after the gradients are cast into the fp32 master in place.
- activations: Korthikanti et al. 2022 (arXiv 2205.05198, Table 2), generalised to GQA, gated MLPs, MoE and
  MLA by counting the tensors autograd saves; no dropout (modern LLM recipes), flash attention by default.
- KV cache: 2 x layers x batch x seq x kv_heads x head_dim x bytes, divided over tensor-parallel ranks (at
  least one KV head per rank); MLA caches kv_lora_rank + qk_rope_head_dim values per token per layer
  (DeepSeek-V2, arXiv 2405.04434, section 2.1).

The GPU this describes is the fullest one: with pipeline parallelism the first stage (it holds the embedding
and the most in-flight micro-batches) or the last (LM head and logits), whichever needs more.

Pure arithmetic over frozen dataclasses; cheap enough (tens of microseconds) to call in search loops. The rooms:
config (inputs, outputs, constants), checks (what a configuration may be), stages (the bytes of one stage's
GPU), words (the assumption behind each term), estimate (estimate_memory, estimate_total_bytes, MemoryTotals).
"""

from planner.memory.checks import layout_notes, normalised, validate_layout
from planner.memory.config import (
    ALLOCATOR_MARGIN_FRACTION,
    CUDA_CONTEXT_BYTES,
    DEFAULT_LORA_TARGETS,
    MAX_DEGREE,
    MAX_GPUS,
    MAX_LORA_RANK,
    MAX_MICRO_BATCH,
    MAX_SEQ_LEN,
    NCCL_BYTES_PER_COMMUNICATOR,
    NF4_BITS,
    TERMS,
    WEIGHT_BITS,
    MemoryBreakdown,
    MemoryConfig,
    MemoryTerm,
)
from planner.memory.element_bytes import kv_element_bytes
from planner.memory.estimate import (
    MemoryTotals,
    SharedShapes,
    StageTotals,
    estimate_memory,
    estimate_total_bytes,
    stage_total_bytes,
)
from planner.memory.pipeline_stages import Stage, split_stages

__all__ = [
    "ALLOCATOR_MARGIN_FRACTION", "CUDA_CONTEXT_BYTES", "DEFAULT_LORA_TARGETS", "MAX_DEGREE", "MAX_GPUS",
    "MAX_LORA_RANK", "MAX_MICRO_BATCH", "MAX_SEQ_LEN", "NCCL_BYTES_PER_COMMUNICATOR", "NF4_BITS", "TERMS",
    "WEIGHT_BITS", "MemoryBreakdown", "MemoryConfig", "MemoryTerm", "MemoryTotals", "SharedShapes", "Stage",
    "StageTotals", "estimate_memory", "estimate_total_bytes", "kv_element_bytes", "layout_notes", "normalised",
    "split_stages", "stage_total_bytes", "validate_layout",
]  # fmt: skip
