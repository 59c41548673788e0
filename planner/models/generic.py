"""The generic "N billion parameters" model: a dense Llama-like shape solved to land on the requested size."""

from __future__ import annotations

import functools
import math

from planner.errors import UserError
from planner.limits import LIMITS
from planner.messages import msg
from planner.models.spec import ModelSpec, validate_spec

GENERIC_VOCAB = 32000  # Llama-2's vocabulary
GENERIC_MIN_BILLIONS = LIMITS["model_billions"].low  # planner/limits.py, the GUI's model size field too
GENERIC_MAX_BILLIONS = LIMITS["model_billions"].high


def _generic_shape(hidden: int) -> tuple[int, int, int]:
    """(layers, heads, kv_heads) of a Llama-like model of this width: about 128 features per layer (Llama-2)."""
    heads = max(1, hidden // 128)
    layers = max(2, round(hidden / 128))
    kv_heads = heads if hidden < 6144 else 8  # Llama-2/3 use GQA-8 from the 70B size up
    return layers, heads, kv_heads


@functools.lru_cache(maxsize=256)
def generic_model(billions: float) -> ModelSpec:
    """A dense Llama-like model with about ``billions`` x 1e9 parameters (within 1%).

    The width is chosen so that layers = hidden / 128 (Llama-2's aspect ratio), then the FFN size is solved
    to land on the requested count.
    """
    if not isinstance(billions, (int, float)) or not math.isfinite(billions):
        raise UserError.of(msg("error.size_not_number", billions=billions))
    if not GENERIC_MIN_BILLIONS <= billions <= GENERIC_MAX_BILLIONS:
        raise UserError.of(
            msg("error.size_range", billions=billions, low=GENERIC_MIN_BILLIONS, high=GENERIC_MAX_BILLIONS)
        )
    target = billions * 1e9
    best: ModelSpec | None = None
    for hidden in range(256, 65536 + 1, 128):
        layers, heads, kv_heads = _generic_shape(hidden)
        if heads % kv_heads:  # grouped-query attention needs whole groups
            continue
        attention = 2 * hidden * hidden + 2 * hidden * kv_heads * 128
        fixed = 2 * GENERIC_VOCAB * hidden + hidden + layers * (attention + 2 * hidden)
        ffn = round((target - fixed) / (3 * hidden * layers) / 64) * 64
        if ffn < hidden:  # this width is already too big for the target
            break
        best = ModelSpec(
            name=f"Generic {billions:g}B",
            family="generic",
            layers=layers,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=128 if hidden >= 256 else hidden // heads,
            ffn=ffn,
            vocab=GENERIC_VOCAB,
            tied_embeddings=False,
            gated_mlp=True,
            norm="rmsnorm",
            attn_bias=False,
            mlp_bias=False,
            max_context=4096,
            source="synthetic Llama-like shape (layers = hidden/128, SwiGLU, vocabulary 32000)",
            id=f"generic-{billions:g}b",
        )
        if ffn <= 4 * hidden:  # Llama-like FFN ratio (8/3 ... 4) reached: stop widening
            break
    if best is None:
        raise UserError.of(msg("error.size_too_small", billions=billions))
    return validate_spec(best, where=best.name)
