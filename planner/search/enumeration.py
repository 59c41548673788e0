"""The candidates the search tries: GPU counts, pipeline depths, and the pinned values that replace them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from planner.errors import UserError
from planner.messages import msg

MICRO_BATCHES = (1, 2, 4, 8)
MAX_PIPELINE = 32  # Llama 3 405B trained with pp 16 (arXiv 2407.21783); deeper is rarely worth it

T = TypeVar("T")


def powers_of_two(limit: int) -> list[int]:
    """1, 2, 4, ... up to `limit`."""
    values, value = [], 1
    while value <= limit:
        values.append(value)
        value *= 2
    return values


def _nice_node_counts(limit: int) -> list[int]:
    """1..8 nodes, then 12, 16, 24, 32, 48, 64, ... (x1 and x1.5 per doubling): charts need shape, not every N."""
    counts = set(range(1, min(limit, 8) + 1))
    value = 8
    while value <= limit:
        counts.update((value, value * 3 // 2))
        value *= 2
    return sorted(n for n in counts if n <= limit)


def pipeline_depths(layers: int, limit: int = MAX_PIPELINE) -> list[int]:
    """Pipeline depths the training search tries: 1, 2, 4, ... and 3, 5, 7 times a power of two, up to `limit`
    stages and one layer per stage.

    GPU counts of 3, 5, 6, 7, 12, 24 ... nodes hold an odd factor that dp x tp x pp must absorb: with power-of-
    two depths only, such a count could not reach the model-parallel degree its neighbours reach, needed full
    recompute there, and cost curves zig-zagged with GPU count. Uneven stages are fine (DeepSpeed partitions by
    parameters, Megatron-Core and TorchTitan take uneven splits); planner.perf charges the fullest stage.
    """
    top = min(limit, layers)
    depths = {odd * power for odd in (1, 3, 5, 7) for power in powers_of_two(top) if odd * power <= top}
    return sorted(depths)


def candidate_gpu_counts(max_gpus: int, gpus_per_node: int, exact: int | None = None) -> tuple[int, ...]:
    """GPU counts worth timing: powers of two and whole nodes (1..8, 12, 16, 24, ...) up to max_gpus.

    An exact count is searched alone. Between these points the time curve is smooth, so charts lose nothing.
    """
    if exact is not None:
        return (exact,)
    counts = set(powers_of_two(max_gpus))
    counts.update(n * gpus_per_node for n in _nice_node_counts(max_gpus // max(1, gpus_per_node)))
    return tuple(sorted(counts))


def allowed(
    name: str, values: Sequence[T], pinned: Mapping[str, object], convert: Callable[[object], T]
) -> list[T]:
    """The values to try for a strategy field: the pinned value alone (through `convert`, which parses it or
    raises UserError) when the user fixed it."""
    value = pinned.get(name)
    if value is not None:
        return [convert(value)]
    return list(values)


def pinned_count(value: object) -> int:
    """A pinned degree or micro-batch as an int (UserError for anything that is not a whole number)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError.of(msg("error.must_be_whole", what=msg("quantity.pinned"), value=value))
    return value
