"""How a model's decoder layers are divided into pipeline stages (even split or given layer counts), embeddings and head on the end stages."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from planner.models import ModelSpec


@dataclass(frozen=True)
class Stage:
    index: int
    dense_layers: int
    moe_layers: int
    has_embedding: bool
    has_head: bool
    first_layer: int = 0  # index of the stage's first decoder layer in the model

    @property
    def layers(self) -> int:
        return self.dense_layers + self.moe_layers

    @property
    def layer_indices(self) -> range:
        return range(self.first_layer, self.first_layer + self.layers)


@functools.lru_cache(maxsize=8192)
def pipeline_stages(model: ModelSpec, pp: int) -> tuple[Stage, ...]:
    """First and last pipeline stage (the only candidates for the fullest GPU).

    Layers are split as evenly as possible, the first stages taking the remainder; dense-first layers of an
    MoE model (DeepSeek's first_k_dense_replace) sit at the start.
    """
    base, remainder = divmod(model.layers, pp)
    dense_total = model.layers - model.moe_layers

    def stage(index: int) -> Stage:
        start = index * base + min(index, remainder)
        size = base + (1 if index < remainder else 0)
        dense = max(0, min(start + size, dense_total) - start)
        return Stage(index, dense, size - dense, index == 0, index == pp - 1, start)

    return (stage(0),) if pp == 1 else (stage(0), stage(pp - 1))


def split_stages(model: ModelSpec, layer_counts: tuple[int, ...]) -> tuple[Stage, ...]:
    """Every stage of a pipeline whose stages hold the given numbers of consecutive layers (uneven: sized per
    GPU type); the first keeps the embedding, the last the final norm and LM head, and an MoE model's dense-first
    layers sit at the start, as in pipeline_stages."""
    if sum(layer_counts) != model.layers or min(layer_counts, default=0) < 1:
        raise ValueError(f"stages of {layer_counts} layers do not hold the model's {model.layers}")
    dense_total = model.layers - model.moe_layers
    stages, start = [], 0
    for index, size in enumerate(layer_counts):
        dense = max(0, min(start + size, dense_total) - start)
        stages.append(Stage(index, dense, size - dense, index == 0, index == len(layer_counts) - 1, start))
        start += size
    return tuple(stages)
