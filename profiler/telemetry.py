"""Telemetry while a GPU is probed: a background thread samples SM clock, power, temperature and clock-event reasons through NVML."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, TypedDict

from profiler.nvml import (
    CLOCK_SM,
    ERROR_FUNCTION_NOT_FOUND,
    ERROR_WORDS,
    PCIE_UTIL_RX_BYTES,
    PCIE_UTIL_TX_BYTES,
    TEMPERATURE_GPU,
    MaybeStr,
    NvmlBackend,
    NvmlUnavailable,
    Unavailable,
    as_int,
    bus_id_of,
    describe_error,
    is_gpu_lost,
    nvml_text,
    open_backend,
    read_field,
    then_convert,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


METRICS = (
    "utilization_pct",
    "memory_used_bytes",
    "temperature_c",
    "power_w",
    "sm_clock_mhz",
    "pcie_tx_bytes_per_s",
    "pcie_rx_bytes_per_s",
    "clocks_event_reasons",
)


@dataclass(frozen=True)
class Sample:
    """One reading of one GPU; None where NVML refused the field. t_s: seconds since the sampler started."""

    gpu: int  # cuda_index (PCI bus order)
    t_s: float
    utilization_pct: float | None = None
    memory_used_bytes: float | None = None
    temperature_c: float | None = None
    power_w: float | None = None
    sm_clock_mhz: float | None = None
    pcie_tx_bytes_per_s: float | None = None
    pcie_rx_bytes_per_s: float | None = None
    clocks_event_reasons: float | None = None  # bit mask (nvmlClocksEventReasons): why clocks are held down

    def to_dict(self) -> dict[str, float | None]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "gpu"}


class TrackStatus(TypedDict):
    name: str
    lost: bool
    lost_reason: str | None
    refused: dict[str, str]
    samples: int


class _GpuLost(Exception):
    pass


class _Track:
    """Per-GPU sampling state: the handle, the ring buffer, which fields NVML refused, whether the GPU is lost."""

    def __init__(self, cuda_index: int, name: str, handle: object, capacity: int):
        self.cuda_index = cuda_index
        self.name = name
        self.handle = handle
        self.samples: deque[Sample] = deque(maxlen=capacity)
        self.refused: dict[str, str] = {}
        self.lost_reason: str | None = None
        self.reasons_function = "nvmlDeviceGetCurrentClocksEventReasons"


_OLD_REASONS = "nvmlDeviceGetCurrentClocksThrottleReasons"


_MISSING_FUNCTION = (
    ERROR_WORDS[ERROR_FUNCTION_NOT_FOUND],
    "nvmlDeviceGetCurrentClocksEventReasons is not in this nvidia-ml-py version",
)


class TelemetrySampler:
    """Samples every GPU at a fixed rate in a background thread into bounded ring buffers.

    `snapshot()` is thread-safe and cheap enough for a GUI timer. A GPU that is lost mid-session is marked lost
    (see `status()`) and the others keep being sampled. Fields NVML refuses are recorded once and not asked
    again. `include_pcie=False` skips the PCIe counters (each costs about 20 ms of NVML time per GPU).
    """

    def __init__(
        self,
        backend: NvmlBackend | None = None,
        interval_s: float = 1.0,
        capacity: int = 600,
        include_pcie: bool = True,
        gpus: list[int] | None = None,
    ):
        if interval_s <= 0 or capacity < 1:
            raise ValueError("interval_s must be > 0 and capacity >= 1")
        self.interval_s = float(interval_s)
        self.capacity = int(capacity)
        self.include_pcie = include_pcie
        self._only = None if gpus is None else set(gpus)
        self._backend = backend
        self._nv: NvmlBackend | None = None
        self._tracks: list[_Track] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self.error: str | None = None  # why sampling could not start, if it could not

    # -- lifecycle ---------------------------------------------------------------------------------------------
    def _ensure_open(self) -> NvmlBackend | None:
        if self._nv is not None:
            return self._nv
        if self.error is not None:
            return None
        try:
            nv = self._backend if self._backend is not None else open_backend()
            nv.nvmlInit()
        except Exception as exc:  # NVMLError, OSError from the loader, NvmlUnavailable: no sampling, say why
            self.error = f"no NVIDIA GPU: {exc if isinstance(exc, NvmlUnavailable) else describe_error(exc)}"
            return None
        self._nv = nv
        self._tracks = self._discover(nv)
        self._t0 = time.monotonic()
        return nv

    def _discover(self, nv: NvmlBackend) -> list[_Track]:
        count = then_convert(read_field(nv, "nvmlDeviceGetCount"), as_int)
        if isinstance(count, Unavailable):
            self.error = f"cannot count devices: {count.reason}"
            return []
        found: list[tuple[str, int, object, MaybeStr]] = []
        for index in range(count):
            handle = read_field(nv, "nvmlDeviceGetHandleByIndex", index)
            pci = read_field(nv, "nvmlDeviceGetPciInfo", handle)
            bus = then_convert(pci, bus_id_of)
            name = then_convert(read_field(nv, "nvmlDeviceGetName", handle), nvml_text)
            found.append((bus if isinstance(bus, str) else f"~{index:04d}", index, handle, name))
        found.sort(key=lambda entry: (entry[0], entry[1]))
        tracks = []
        for cuda_index, (_, index, handle, name) in enumerate(found):
            if self._only is not None and cuda_index not in self._only:
                continue
            label = name if isinstance(name, str) else f"GPU {index}"
            track = _Track(cuda_index, label, handle, self.capacity)
            if isinstance(handle, Unavailable):
                track.lost_reason = handle.reason
            tracks.append(track)
        return tracks

    def start(self) -> TelemetrySampler:
        """Start the background thread (no-op when already running or when NVML is unavailable)."""
        if self._thread is not None and self._thread.is_alive():
            return self
        if self._ensure_open() is None:
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="gpu-telemetry", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling, join the thread and release NVML. The buffers stay readable."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._nv is not None:
            try:
                self._nv.nvmlShutdown()
            except Exception:  # shutting down a broken NVML: the buffers are what matters now
                pass
            self._nv = None

    def __enter__(self) -> TelemetrySampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.sample_once()
            next_at += self.interval_s
            delay = next_at - time.monotonic()
            if delay < 0:  # sampling took longer than the interval: skip ahead instead of bursting
                next_at, delay = time.monotonic(), 0.0
            self._stop.wait(delay)

    # -- sampling ----------------------------------------------------------------------------------------------
    def sample_once(self) -> list[Sample]:
        """Read every GPU that is not lost once; append to the ring buffers and return the new samples."""
        nv = self._ensure_open()
        if nv is None:
            return []
        new = []
        for track in self._tracks:
            if track.lost_reason is not None:
                continue
            try:
                sample = self._read_sample(nv, track)
            except _GpuLost as lost:
                with self._lock:
                    track.lost_reason = str(lost)
                continue
            with self._lock:
                track.samples.append(sample)
            new.append(sample)
        return new

    def _read(self, nv: NvmlBackend, track: _Track, metric: str, function_name: str, *args: object) -> object:
        if metric in track.refused:
            return None
        function = getattr(nv, function_name, None)
        if function is None:
            track.refused[metric] = f"{function_name} is not in this nvidia-ml-py version"
            return None
        try:
            value: object = function(track.handle, *args)
        except nv.NVMLError as exc:
            if is_gpu_lost(exc):
                raise _GpuLost(describe_error(exc)) from None
            track.refused[metric] = describe_error(exc)
            return None
        return value

    def _read_sample(self, nv: NvmlBackend, track: _Track) -> Sample:
        t_s = time.monotonic() - self._t0
        util = self._read(nv, track, "utilization_pct", "nvmlDeviceGetUtilizationRates")
        memory = self._read(nv, track, "memory_used_bytes", "nvmlDeviceGetMemoryInfo")
        power = self._read(nv, track, "power_w", "nvmlDeviceGetPowerUsage")
        reasons = self._read(nv, track, "clocks_event_reasons", track.reasons_function)
        if (
            track.refused.get("clocks_event_reasons") in _MISSING_FUNCTION
            and track.reasons_function != _OLD_REASONS
        ):
            # Drivers before 535 only have the older name for the same bit mask; switch to it once.
            track.reasons_function = _OLD_REASONS
            del track.refused["clocks_event_reasons"]
            reasons = self._read(nv, track, "clocks_event_reasons", track.reasons_function)
        tx = rx = None
        if self.include_pcie:
            tx = self._read(
                nv, track, "pcie_tx_bytes_per_s", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_TX_BYTES
            )
            rx = self._read(
                nv, track, "pcie_rx_bytes_per_s", "nvmlDeviceGetPcieThroughput", PCIE_UTIL_RX_BYTES
            )
        temperature = self._read(nv, track, "temperature_c", "nvmlDeviceGetTemperature", TEMPERATURE_GPU)
        sm_clock = self._read(nv, track, "sm_clock_mhz", "nvmlDeviceGetClockInfo", CLOCK_SM)
        return Sample(
            gpu=track.cuda_index,
            t_s=round(t_s, 4),
            utilization_pct=_scaled(getattr(util, "gpu", None) if util is not None else None),
            memory_used_bytes=_scaled(getattr(memory, "used", None) if memory is not None else None),
            temperature_c=_scaled(temperature),
            power_w=_scaled(power, 1 / 1000.0),  # NVML reports milliwatts
            sm_clock_mhz=_scaled(sm_clock),
            pcie_tx_bytes_per_s=_scaled(tx, 1024.0),  # NVML reports KiB/s
            pcie_rx_bytes_per_s=_scaled(rx, 1024.0),
            clocks_event_reasons=_scaled(reasons),
        )

    # -- reading back ------------------------------------------------------------------------------------------
    def samples(self, gpu: int) -> list[Sample]:
        """A copy of one GPU's ring buffer, oldest first."""
        with self._lock:
            for track in self._tracks:
                if track.cuda_index == gpu:
                    return list(track.samples)
        return []

    def snapshot(self) -> dict[int, dict[str, NDArray[np.float64]]]:
        """Per GPU (cuda_index): {"t_s": array, <metric>: array, ...} as float64 numpy arrays, oldest first.

        Refused readings are NaN. Thread-safe: the buffers are copied under the lock, arrays built outside it.
        """
        import numpy as np  # only the GUI calls this; keeps gpu-probe free of a hard numpy dependency

        with self._lock:
            copies = {track.cuda_index: list(track.samples) for track in self._tracks}
        result: dict[int, dict[str, NDArray[np.float64]]] = {}
        for gpu, samples in copies.items():
            columns = {"t_s": np.array([s.t_s for s in samples], dtype=np.float64)}
            for metric in METRICS:
                values = [getattr(s, metric) for s in samples]
                columns[metric] = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
            result[gpu] = columns
        return result

    def status(self) -> dict[int, TrackStatus]:
        """Per GPU: name, lost (bool), lost_reason, refused fields {metric: reason}, sample count."""
        with self._lock:
            return {
                t.cuda_index: {
                    "name": t.name,
                    "lost": t.lost_reason is not None,
                    "lost_reason": t.lost_reason,
                    "refused": dict(t.refused),
                    "samples": len(t.samples),
                }
                for t in self._tracks
            }

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()


def _scaled(value: object, factor: float = 1.0) -> float | None:
    """A reading as a float in the sampler's unit; None for a refused one (or one of an unexpected type)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) * factor
