"""The peak of the bytes a process's tensors hold, counted at torch's dispatcher: every operator's output storage
is counted once when it first appears and uncounted when Python frees it (a weak reference), and a storage's
resize_ (FSDP2 frees and refills its all-gather buffers that way) moves the count. The same accounting as torch's
MemTracker (torch/distributed/_tools/mem_tracker.py) without its module and optimizer hooks, which would sit
beside DeepSpeed's own: only the total and its peak are wanted here.

Used by tests/exports/step_probe.py around the exported train.py's whole run (model build, the runtime's setup,
the step), so nothing the run holds was made before counting began."""

from __future__ import annotations

import weakref
from typing import Any


class StoragePeak:
    """`with StoragePeak() as peak: ...`, then peak.peak_bytes (the largest total of live CPU/GPU storages) and
    peak.live_bytes (what is still held); with `phase` set as the run goes (step_probe: "build", "setup", "step"),
    phase_peaks holds each phase's own peak."""

    def __init__(self) -> None:
        self.live: dict[int, int] = {}
        self.live_bytes = 0
        self.peak_bytes = 0
        self.phase = "build"
        self.phase_peaks: dict[str, int] = {}
        self._mode: Any = None
        self._resize: Any = None
        self.ignoring = False  # set by ignored(): storages first seen meanwhile are not counted

    def _add(self, key: int, nbytes: int) -> None:
        self.live_bytes += nbytes - self.live.get(key, 0)
        self.live[key] = nbytes
        self.peak_bytes = max(self.peak_bytes, self.live_bytes)
        if self.live_bytes > self.phase_peaks.get(self.phase, 0):
            self.phase_peaks[self.phase] = self.live_bytes

    def _forget(self, key: int) -> None:
        self.live_bytes -= self.live.pop(key, 0)

    def track(self, value: Any) -> None:
        import torch

        if not isinstance(value, torch.Tensor) or value.device.type == "meta":
            return
        if hasattr(value, "_local_tensor"):  # a DTensor: its local shard holds the bytes
            value = value._local_tensor
        try:
            storage = value.untyped_storage()
        except (NotImplementedError, RuntimeError):  # a tensor subclass without one storage
            return
        key = storage._cdata
        if key in self.live:
            if storage.nbytes() != self.live[key]:
                self._add(key, storage.nbytes())
            return
        if self.ignoring:
            return
        self._add(key, storage.nbytes())
        weakref.finalize(storage, self._forget, key)

    def ignored(self, function: Any) -> Any:
        """`function` wrapped so that storages first seen during its call (a collective's own buffers: its
        output is allocated by the caller beforehand) are not counted; what was counted before the call still
        is, resized or freed."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.ignoring = True
            try:
                return function(*args, **kwargs)
            finally:
                self.ignoring = False

        return wrapper

    def __enter__(self) -> StoragePeak:
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_leaves

        tracker = self

        class _Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
                out = func(*args, **(kwargs or {}))
                for leaf in tree_leaves(out):
                    tracker.track(leaf)
                return out

        original = self._resize = torch.UntypedStorage.resize_

        def resize_(storage: Any, size: int) -> Any:
            result = original(storage, size)
            key = storage._cdata
            if key in tracker.live:
                tracker._add(key, storage.nbytes())
            elif size:
                tracker._add(key, storage.nbytes())
                weakref.finalize(storage, tracker._forget, key)
            return result

        torch.UntypedStorage.resize_ = resize_  # type: ignore[method-assign]
        self._mode = _Mode()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        import torch

        self._mode.__exit__(*exc)
        torch.UntypedStorage.resize_ = self._resize  # type: ignore[method-assign]
