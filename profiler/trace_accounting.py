"""How a memory trace counts (profiler.memory_trace, child process only): MemTracker's reference types mapped to
the trace's categories, a tracker that also keeps each category's maximum and a timeline, DTensor's shape
propagation left uncounted, frozen parameters without gradient hooks, the timeline thinned."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from profiler.jsontypes import JSONValue

if TYPE_CHECKING:
    from torch import nn

CATEGORIES = (
    "parameters", "gathered_parameters", "buffers", "gradients", "gathered_gradients", "optimizer", "activations",
    "temporaries", "communication", "other",
)  # fmt: skip
# MemTracker's and FSDPMemTracker's reference types -> our categories ("gathered": FSDP2's unsharded copies).
_TRACKER_NAMES = {
    "Parameter": "parameters",
    "Sharded Param": "parameters",
    "Unsharded Param": "gathered_parameters",
    "Buffer": "buffers",
    "Gradient": "gradients",
    "Sharded Grad": "gradients",
    "Unsharded Grad": "gathered_gradients",
    "Optstate": "optimizer",
    "OptState": "optimizer",
    "Activation": "activations",
    "Temp": "temporaries",
    "All Gather": "communication",
    "Reduce Scatter": "communication",
    "Inputs": "other",
    "Other": "other",
}


@dataclass
class Accounting:
    """What the tracker saw: the peak snapshot, each category's maximum and a sampled timeline."""

    peak_bytes: int = 0
    peak_phase: str = ""
    at_peak: dict[str, int] = field(default_factory=dict)
    maxima: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    samples: list[tuple[int, str, int]] = field(default_factory=list)  # (op index, phase, total bytes)
    ops: int = 0
    # the largest activations + temporaries held at once before the first parameter gradient exists: what the
    # forward keeps plus the loss's backward transients (later temporaries belong to the gradients' moment)
    working: int = 0


def categories(snapshot: dict[Any, int]) -> tuple[dict[str, int], int]:
    """({category: bytes}, total) of one device's MemTracker snapshot."""
    values = dict.fromkeys(CATEGORIES, 0)
    total = 0
    for key, amount in snapshot.items():
        label = str(getattr(key, "value", key))
        if label == "Total":
            total = int(amount)
        elif label in _TRACKER_NAMES:
            values[_TRACKER_NAMES[label]] += int(amount)
    return values, total


def recording_tracker(fsdp_module: nn.Module | None, optimizer: Any, accounting: Accounting) -> Any:
    """A MemTracker (FSDPMemTracker for a sharded model) that also keeps each category's maximum and a timeline."""
    from torch.distributed._tools.fsdp2_mem_tracker import FSDPMemTracker
    from torch.distributed._tools.mem_tracker import MemTracker

    base: type = FSDPMemTracker if fsdp_module is not None else MemTracker

    class RecordingTracker(base):  # type: ignore[misc]
        phase = "forward"

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            if _PROPAGATING[0]:  # DTensor's shape propagation: global-shape fake tensors no rank allocates
                return func(*args, **(kwargs or {}))
            return super().__torch_dispatch__(func, types, args, kwargs)

        def _update_peak_stats(self, peak_state: Any) -> None:
            super()._update_peak_stats(peak_state)
            phase = "optimizer" if self._in_opt else ("backward" if self._mod_tracker.is_bw else self.phase)
            for snapshot in self._curr_mem_snap.values():
                values, total = categories(snapshot)
                for name, amount in values.items():
                    accounting.maxima[name] = max(accounting.maxima[name], amount)
                if not values["gradients"] and not values["gathered_gradients"]:
                    working = values["activations"] + values["temporaries"]
                    accounting.working = max(accounting.working, working)
                if total > accounting.peak_bytes:
                    accounting.peak_bytes, accounting.peak_phase, accounting.at_peak = total, phase, values
                accounting.samples.append((accounting.ops, phase, total))
            accounting.ops += 1

    if fsdp_module is not None:
        return RecordingTracker(mod=fsdp_module, optm=optimizer)
    return RecordingTracker()


_PROPAGATING = [0]  # depth of DTensor sharding propagations running (see dtensor_propagation_untracked)


@contextlib.contextmanager
def dtensor_propagation_untracked() -> Iterator[None]:
    """DTensor computes each operator's output shape by running it on global-shape fake tensors in the active fake
    mode (torch/distributed/tensor/_sharding_prop.py, _propagate_tensor_meta_non_cached: detect_fake_mode() or
    a new one). Under FakeTensorMode that is our mode, so MemTracker would count those tensors (4x the optimizer
    state in a TP step); they are marked here and the tracker passes them by."""
    from torch.distributed.tensor._sharding_prop import ShardingPropagator

    original = ShardingPropagator._propagate_tensor_meta_non_cached

    def propagate(self: Any, *args: Any, **kwargs: Any) -> Any:
        _PROPAGATING[0] += 1
        try:
            return original(self, *args, **kwargs)
        finally:
            _PROPAGATING[0] -= 1

    ShardingPropagator._propagate_tensor_meta_non_cached = propagate  # type: ignore[method-assign]
    try:
        yield
    finally:
        ShardingPropagator._propagate_tensor_meta_non_cached = original  # type: ignore[method-assign]


class _NoHook:
    def remove(self) -> None:
        pass


def no_hooks_on_frozen(tracker: Any, model: nn.Module) -> None:
    """MemTracker hooks every parameter's gradient; a frozen one (LoRA's base) cannot take a hook and has none."""
    for param in model.parameters():
        if not param.requires_grad:
            tracker._param_to_grad_hook_handles[param] = (_NoHook(), _NoHook())


def thin_timeline(samples: list[tuple[int, str, int]], points: int) -> list[JSONValue]:
    """At most `points` samples, every phase change and the peak kept."""
    if not samples:
        return []
    peak_index = max(range(len(samples)), key=lambda i: samples[i][2])
    stride = max(1, math.ceil(len(samples) / points))
    keep = {0, len(samples) - 1, peak_index, *range(0, len(samples), stride)}
    keep |= {i for i in range(1, len(samples)) if samples[i][1] != samples[i - 1][1]}
    return [{"op": samples[i][0], "phase": samples[i][1], "total_bytes": samples[i][2]} for i in sorted(keep)]
