"""StageShape: what one pipeline stage's GPU holds given tp, pp and ep only (parameter counts per GPU, bytes per
parameter, the units and modules the runtimes gather). planner.memory.stages builds it (stage_shape) and adds
the sharded states; planner.memory.deepspeed_states reads it under DeepSpeed's layout."""

from __future__ import annotations

from typing import NamedTuple

from planner.vocabulary import Runtime, Task


class StageShape(NamedTuple):
    """What one stage's GPU holds given tp, pp and ep only: parameter counts per GPU and bytes per parameter.
    stage_activations adds what the micro-batch and recompute mode hold, stage_state the sharded model states
    (dp, ZeRO stage, offload) and the overhead. A NamedTuple for the same reason as StageAmounts: a search
    builds one per stage of every model-parallel shape it sizes, and 28 fields make a frozen dataclass's
    construction several times a tuple's."""

    stage: int
    task: Task
    training: bool  # task.is_training, kept as a field: the state arithmetic reads it in search loops
    full_training: bool
    adapter: bool
    tp: int
    pp: int
    ep: int
    params_gpu: float
    dense_params_gpu: float
    expert_params_gpu: float
    stored_weights: float
    bytes_per_param: float
    largest: float  # parameters per GPU of the largest decoder layer (an FSDP2 unit)
    root_unit: float  # parameters per GPU of FSDP2's root unit (embedding, final norm, LM head)
    compute_bytes: float  # bytes per value of the matmuls' copies (2 under 16-bit mixed precision)
    autocast_copies: float  # bytes of autocast's 16-bit weight copies kept for backward (unsharded training)
    # Megatron-style ZeRO-0/1 (tensor or pipeline parallel, 16-bit full training): bf16 weights, fp32 main
    # gradients, fp32 master + AdamW state; 0 where PyTorch's autocast / FSDP2 accounting applies
    megatron_opt_per: float
    tied_embedding_gradient: float  # bytes: 2 x the tied embedding's gradient at the end of backward (else 0)
    qlora_workspace: float
    adapter_dense: float
    adapter_expert: float
    adapter_bytes: float
    trainable_dense: float
    trainable_expert: float
    grad_per: float
    opt_per: float
    family: str  # the model's Hugging Face model_type: DeepSpeed's AutoEP presets depend on it
    pinned_runtime: Runtime | None  # MemoryConfig.runtime
    # training in bf16 / fp16 / fp32: DeepSpeed's own layout applies where it is the runtime (deepspeed_figures)
    deepspeed_layout: bool
    largest_module: float  # parameters per GPU of the largest single module (what ZeRO-3 gathers at once)
    largest_trainable: float  # of the largest trained one (an adapter's widest matrix)
    bucket_elements: float  # DeepSpeed's reduce / prefetch bucket (planner.exports.configs writes the same)
    # FSDP2 (train.py's runner), full training: the root unit's end-of-backward reduce-scatter (bytes of its fp32
    # input, the unit's gradients unsharded) and the LM head's unsharded 16-bit gradient held meanwhile
    root_reduce: float
    head_gradient: float
    # DeepSpeed AutoTP (tp > 1): the input embedding's parameters per GPU beyond its 1/tp share (AutoTP leaves it
    # whole on every rank); planner.memory.deepspeed_states adds them back
    autotp_whole: float
