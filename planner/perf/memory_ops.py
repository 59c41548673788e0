"""Memory-bound operators: what they read and write, timed at the achievable copy bandwidth.

Per token and layer, in the forward pass (16-bit activations, 2 bytes; PyTorch/Megatron kernel boundaries):
- two norms (RMSNorm or LayerNorm): read and write the hidden vector, 2 x 2 x h x 2 bytes;
- two residual adds: read two hidden vectors, write one, 2 x 3 x h x 2 bytes;
- rotary embedding of q and k: read and write them, 2 x (q + k width) x 2 bytes;
- the MLP activation (SiLU x gate, or GeLU): read the up (and gate) outputs, write the product;
the backward pass reads the saved inputs and the incoming gradient and writes one gradient per op: twice the
forward's traffic. With sequence parallelism the norm / residual region is split over the tensor-parallel ranks
(Korthikanti et al. 2022, arXiv 2205.05198, section 4.2.2).

Once per micro-batch: the vocabulary projection's cross-entropy (logits upcast to fp32, softmax, gradient:
about 14 bytes per logit). Once per step: the optimizer reads and writes its state per shard (AdamW mixed
precision: fp32 master, m and v read and written, 24 bytes; the fp32 gradient read, 4; the 16-bit weight
written, 2; the gradient-norm pass, 4: 34 bytes per parameter; 8-bit Adam's m and v take 1 byte each: 22; SGD
with momentum 18).
"""

from __future__ import annotations

from planner.perf.compute import LayerShape

ACTIVATION_BYTES = 2.0
CROSS_ENTROPY_BYTES_PER_LOGIT = 14.0
OPTIMIZER_BYTES_PER_PARAM = {"adamw": 34.0, "adamw8bit": 22.0, "sgd": 18.0}
BACKWARD_TRAFFIC = 2.0  # backward memory-bound traffic relative to the forward's
# kernels of one layer's memory-bound ops: 2 norms, 2 residual adds, rotary, the activation
MEMORY_KERNELS_PER_LAYER = 6
# with fused kernels (TensorRT-LLM's fused residual + norm and rotary-in-attention; torch.compile's pointwise
# fusion): the two norms remain
FUSED_MEMORY_KERNELS_PER_LAYER = 2


def layer_memory_bytes_per_token(shape: LayerShape, tp: int, sequence_parallel: bool) -> float:
    """Forward bytes the memory-bound ops of one layer move per token on one rank."""
    h = float(shape.hidden)
    split = tp if sequence_parallel else 1
    norms_residuals = (2 * 2 * h + 2 * 3 * h) * ACTIVATION_BYTES / split
    rotary = 2 * (shape.q_width + shape.kv_elements_per_token_layer / 2) * ACTIVATION_BYTES
    activation = (3.0 if _gated(shape) else 2.0) * shape.mlp_inner * ACTIVATION_BYTES
    return norms_residuals + rotary + activation


def _gated(shape: LayerShape) -> bool:
    inner = shape.mlp_out or shape.expert_out
    outer = shape.mlp_in or shape.expert_in
    return bool(inner) and outer > 1.5 * inner


def cross_entropy_bytes(tokens: float, shape: LayerShape) -> float:
    """Forward + backward bytes of the loss over `tokens` on one rank's vocabulary shard."""
    return tokens * shape.vocab_shard * CROSS_ENTROPY_BYTES_PER_LOGIT


def optimizer_bytes(params_on_rank: float, optimizer: str) -> float:
    return params_on_rank * OPTIMIZER_BYTES_PER_PARAM.get(optimizer, OPTIMIZER_BYTES_PER_PARAM["adamw"])


def dequantise_bytes(weights: float, stored_bits: float) -> float:
    """A bitsandbytes-style dequantisation (QLoRA's NF4) before a 16-bit GEMM: read the stored weights, write
    them in 16 bits (the GEMM then reads the 16-bit copy, counted in its own time)."""
    return weights * (stored_bits / 8.0 + 2.0)


# fp8 training (Transformer Engine, torchao float8): every GEMM input is cast from 16 bits to fp8 (read 2 bytes,
# write 1) with an amax reduction, forward for activations and weights, backward for the output gradients
# (NVIDIA Transformer Engine documentation, "Using FP8 with Transformer Engine": per-tensor delayed / current
# scaling casts around each fp8 GEMM).
FP8_CAST_BYTES = 3.0


def fp8_cast_bytes_per_token(shape: LayerShape) -> float:
    """Forward + backward cast bytes per token and layer: the inputs of the four GEMMs (q/k/v and the MLP up
    read the hidden vector; the output and down projections their own inputs), forward, and the gradients of
    their outputs, backward."""
    inputs = 2.0 * shape.hidden + shape.q_width + shape.mlp_inner
    outputs = (
        shape.attn_in / shape.hidden + 2.0 * shape.hidden + (shape.mlp_in or shape.expert_in) / shape.hidden
    )
    return FP8_CAST_BYTES * (inputs + outputs)


def fp8_weight_cast_bytes(weights: float) -> float:
    """Weights cast to fp8 once per micro-batch for the forward and once, transposed, for the backward."""
    return 2.0 * FP8_CAST_BYTES * weights
