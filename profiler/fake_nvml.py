"""A fake NVML with the pynvml function names, return shapes and NVMLError codes that profiler.nvml uses.

Selected with GPU_ADVISOR_FAKE_NVML=<scenario> (the test suite sets "none"; for a demo try
``GPU_ADVISOR_FAKE_NVML=h100x8 gpu-advisor``). profiler.nvml calls it exactly as it calls pynvml, so tests run
the real code path without a GPU, in the spirit of gpustat's test_gpustat.py.

Scenarios:
  none      driver loaded, zero GPUs
  consumer  one GeForce RTX 4090: ECC, MIG, NVLink, PCIe counters and clock-event reasons NotSupported
  h100x8    an HGX H100 board: 8 x H100 SXM5 80GB, 18 NVLinks each into NVSwitches, two CPU sockets
  mig       one A100 SXM4 80GB with MIG enabled (3g.40gb + 2g.20gb + 1g.10gb); utilisation NotSupported
  lost      two A10s on one host bridge; GPU 1 is lost after `lose_after_samples` utilisation reads (3)
  nolib     libnvidia-ml.so.1 missing: nvmlInit raises LIBRARY_NOT_FOUND
  busy      one H100 SXM5 on which another process (pid 4242, 30 GiB) computes at 97 % utilisation
  driver470 two Tesla V100-SXM2-32GB on driver 470 (before 535): the functions that driver lacks raise
            FunctionNotFound as pynvml does (nvmlDeviceGetCurrentClocksEventReasons, the _v3 process list,
            nvmlDeviceGetNumaNodeId, nvmlDeviceGetMemoryInfo_v2); MIG is NotSupported on Volta

MIG handles answer as NVML documents them: nvmlDeviceGetMaxMigDeviceCount and
nvmlDeviceGetMigDeviceHandleByIndex on the GPU (NOT_FOUND for an empty slot); on a MIG handle
nvmlDeviceGetUUID ("MIG-<uuid>"), nvmlDeviceGetName ("<GPU> MIG 3g.40gb"), nvmlDeviceGetMemoryInfo (the
slice's memory), nvmlDeviceGetGpuInstanceId, nvmlDeviceGetComputeInstanceId, nvmlDeviceGetAttributes (SMs and
slice counts) and nvmlDeviceGetDeviceHandleFromMigDeviceHandle; whole-GPU queries on a MIG handle raise
NOT_SUPPORTED. Which other calls real NVML accepts on a MIG handle was not checked on hardware.

Figures are what nvidia-smi shows on those cards (memory in MiB as the driver reports it, limits, clocks);
telemetry moves deterministically with the number of reads so tests can predict it and demos look alive.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

SCENARIOS = ("none", "consumer", "h100x8", "mig", "lost", "nolib", "busy", "driver470")
LOST_AFTER_ENV = "GPU_ADVISOR_FAKE_NVML_LOST_AFTER"

MIB = 1024 * 1024

# NVML return codes, as in nvml.h and pynvml.
NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_NOT_FOUND = 6
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15

NVML_TOPOLOGY_INTERNAL = 0
NVML_TOPOLOGY_SINGLE = 10
NVML_TOPOLOGY_MULTIPLE = 20
NVML_TOPOLOGY_HOSTBRIDGE = 30
NVML_TOPOLOGY_NODE = 40
NVML_TOPOLOGY_SYSTEM = 50
NVML_P2P_STATUS_OK = 0
NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2
NVML_P2P_STATUS_NOT_SUPPORTED = 5
NVML_NVLINK_DEVICE_TYPE_GPU = 0
NVML_NVLINK_DEVICE_TYPE_SWITCH = 2


class _FallbackNVMLError(Exception):
    """Used only when nvidia-ml-py is not installed: same `.value` code attribute as pynvml.NVMLError."""

    def __init__(self, value: int):
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return f"NVML error {self.value}"


def _nvml_error_class() -> type[Exception]:
    try:
        import pynvml
    except ImportError:
        return _FallbackNVMLError
    error_class: type[Exception] = pynvml.NVMLError
    return error_class


@dataclass
class _Struct:
    """Stands in for pynvml's ctypes structures: attributes only."""

    values: Mapping[str, object]

    def __getattr__(self, name: str) -> object:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True)
class FakeMig:
    """One MIG device: a compute instance filling its GPU instance (the common one-CI-per-GI layout)."""

    uuid: str
    memory_bytes: int
    profile: str  # "3g.40gb"
    gpu_instance_id: int
    compute_instance_id: int
    multiprocessors: int
    slices: int  # compute slices (the N in Ng)


@dataclass
class FakeGpu:
    name: str
    uuid: str
    bus_id: str  # as NVML writes it: 00000000:18:00.0
    memory_total_bytes: int
    memory_used_bytes: int
    compute_capability: tuple[int, int]
    pcie: tuple[int, int, int, int]  # gen current, gen max, width current, width max
    power_limit_mw: int
    max_sm_clock_mhz: int
    max_mem_clock_mhz: int
    idle_temperature_c: int
    idle_power_mw: int
    ecc: int | None  # None: NotSupported
    mig: int | None  # None: NotSupported
    nvlink_count: int | None  # None: NotSupported; else number of links (all active)
    nvlink_peers: list[tuple[str, int]] = field(default_factory=list)  # (remote bus id, remote device type)
    socket: int = 0
    pcie_switch: int = 0
    mig_devices: list[FakeMig] = field(default_factory=list)
    unsupported: frozenset[str] = frozenset()  # function names that raise NotSupported
    processes: list[tuple[int, int]] = field(default_factory=list)  # other compute processes (pid, bytes)
    utilization_pct: int | None = None  # fixed utilisation; None: the deterministic wave
    cores_per_socket: int = 48  # CPU affinity: socket s owns CPUs s*N .. s*N+N-1


@dataclass
class _Handle:
    gpu_index: int


@dataclass
class _MigHandle:
    gpu_index: int
    slot: int


def _h100x8() -> list[FakeGpu]:
    # HGX H100: GPUs 0-3 behind CPU socket 0, 4-7 behind socket 1; each GPU's 18 NVLinks go into 4 NVSwitches
    # (5+4+4+5 links), so nvidia-smi topo shows NV18 between every pair.
    buses = ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"]
    switches = ["00000000:05:00.0", "00000000:06:00.0", "00000000:07:00.0", "00000000:08:00.0"]
    links_per_switch = [5, 4, 4, 5]
    peers = [
        (sw, NVML_NVLINK_DEVICE_TYPE_SWITCH)
        for sw, n in zip(switches, links_per_switch, strict=True)
        for _ in range(n)
    ]
    return [
        FakeGpu(
            name="NVIDIA H100 80GB HBM3",
            uuid=f"GPU-6f0b6c52-0e1d-4a4c-9d1e-00000000000{i}",
            bus_id=f"00000000:{bus}:00.0",
            memory_total_bytes=81559 * MIB,
            memory_used_bytes=3 * MIB,
            compute_capability=(9, 0),
            pcie=(5, 5, 16, 16),
            power_limit_mw=700_000,
            max_sm_clock_mhz=1980,
            max_mem_clock_mhz=2619,
            idle_temperature_c=31,
            idle_power_mw=71_000,
            ecc=1,
            mig=0,
            nvlink_count=18,
            nvlink_peers=list(peers),
            socket=0 if i < 4 else 1,
            pcie_switch=i,
        )
        for i, bus in enumerate(buses)
    ]


def _consumer() -> list[FakeGpu]:
    unsupported = frozenset(
        {
            "nvmlDeviceGetEccMode",
            "nvmlDeviceGetMigMode",
            "nvmlDeviceGetPcieThroughput",
            "nvmlDeviceGetCurrentClocksEventReasons",
            "nvmlDeviceGetCurrentClocksThrottleReasons",
        }
    )
    return [
        FakeGpu(
            name="NVIDIA GeForce RTX 4090",
            uuid="GPU-2b7d1c3e-5f60-4a81-b2c3-d4e5f6a7b8c9",
            bus_id="00000000:01:00.0",
            memory_total_bytes=24564 * MIB,
            memory_used_bytes=412 * MIB,
            compute_capability=(8, 9),
            pcie=(1, 4, 16, 16),  # idle cards drop to gen 1; the max is what the slot can do
            power_limit_mw=450_000,
            max_sm_clock_mhz=3120,
            max_mem_clock_mhz=10501,
            idle_temperature_c=38,
            idle_power_mw=24_000,
            ecc=None,
            mig=None,
            nvlink_count=None,
            unsupported=unsupported,
        )
    ]


def _mig() -> list[FakeGpu]:
    return [
        FakeGpu(
            name="NVIDIA A100-SXM4-80GB",
            uuid="GPU-a1000000-0000-4000-8000-000000000080",
            bus_id="00000000:07:00.0",
            memory_total_bytes=81920 * MIB,
            memory_used_bytes=87 * MIB,
            compute_capability=(8, 0),
            pcie=(4, 4, 16, 16),
            power_limit_mw=400_000,
            max_sm_clock_mhz=1410,
            max_mem_clock_mhz=1593,
            idle_temperature_c=33,
            idle_power_mw=62_000,
            ecc=1,
            mig=1,
            nvlink_count=12,
            nvlink_peers=[],  # links exist but no peer GPU in this machine: all inactive
            # A100 MIG profiles (NVIDIA MIG user guide, "A100 MIG profiles"): 1g = 14 SMs of the 98 MIG can use.
            mig_devices=[
                FakeMig("MIG-3g40gb00-0000-4000-8000-000000000001", 40192 * MIB, "3g.40gb", 2, 0, 42, 3),
                FakeMig("MIG-2g20gb00-0000-4000-8000-000000000002", 19968 * MIB, "2g.20gb", 3, 0, 28, 2),
                FakeMig("MIG-1g10gb00-0000-4000-8000-000000000003", 9728 * MIB, "1g.10gb", 9, 0, 14, 1),
            ],
            # With MIG enabled NVML reports no whole-GPU utilisation.
            unsupported=frozenset({"nvmlDeviceGetUtilizationRates"}),
        )
    ]


def _lost() -> list[FakeGpu]:
    return [
        FakeGpu(
            name="NVIDIA A10",
            uuid=f"GPU-a1000000-0000-4000-8000-00000000a10{i}",
            bus_id=f"00000000:{bus}:00.0",
            memory_total_bytes=23028 * MIB,
            memory_used_bytes=5 * MIB,
            compute_capability=(8, 6),
            pcie=(4, 4, 16, 16),
            power_limit_mw=150_000,
            max_sm_clock_mhz=1695,
            max_mem_clock_mhz=6251,
            idle_temperature_c=29,
            idle_power_mw=16_000,
            ecc=1,
            mig=None,
            nvlink_count=None,
            socket=0,
            pcie_switch=i,
        )
        for i, bus in enumerate(["17", "65"])
    ]


def _busy() -> list[FakeGpu]:
    (gpu,) = _h100x8()[:1]
    gpu.processes = [(4242, 30 * 1024 * MIB)]
    gpu.utilization_pct = 97
    gpu.nvlink_peers = []
    return [gpu]


def _driver470() -> list[FakeGpu]:
    buses = ["00000000:06:00.0", "00000000:07:00.0"]
    return [
        FakeGpu(
            name="Tesla V100-SXM2-32GB",
            uuid=f"GPU-0100e470-0000-4000-8000-00000000000{i}",
            bus_id=bus,
            memory_total_bytes=32510 * MIB,
            memory_used_bytes=0,
            compute_capability=(7, 0),
            pcie=(3, 3, 16, 16),
            power_limit_mw=300_000,
            max_sm_clock_mhz=1530,
            max_mem_clock_mhz=877,
            idle_temperature_c=34,
            idle_power_mw=43_000,
            ecc=1,
            mig=None,  # Volta has no MIG
            nvlink_count=6,
            nvlink_peers=[(buses[1 - i], NVML_NVLINK_DEVICE_TYPE_GPU)] * 2,  # NV2 between the two
            socket=0,
            pcie_switch=0,
        )
        for i, bus in enumerate(buses)
    ]


# Functions driver 470 does not export: pynvml raises NVMLError_FunctionNotFound for each (its
# nvmlDeviceGetComputeRunningProcesses calls the _v3 symbol, added with R510).
DRIVER_470_MISSING = frozenset(
    {
        "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetComputeRunningProcesses",
        "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetNumaNodeId",
        "nvmlDeviceGetMemoryInfo_v2",
    }
)

_BUILDERS = {
    "none": list,
    "consumer": _consumer,
    "h100x8": _h100x8,
    "mig": _mig,
    "lost": _lost,
    "nolib": list,
    "busy": _busy,
    "driver470": _driver470,
}


class FakeNvml:
    """Module-like object: call `fake.nvmlDeviceGetName(handle)` as you would `pynvml.nvmlDeviceGetName`."""

    NVML_NVLINK_MAX_LINKS = 18

    def __init__(self, scenario: str, lose_after_samples: int | None = None):
        if scenario not in SCENARIOS:
            raise ValueError(f"unknown fake NVML scenario {scenario!r}; one of {', '.join(SCENARIOS)}")
        self.scenario = scenario
        self.NVMLError = _nvml_error_class()
        self.gpus: list[FakeGpu] = _BUILDERS[scenario]()
        self.driver_version = "470.182.03" if scenario == "driver470" else "550.54.15"
        self.cuda_driver_version = 11040 if scenario == "driver470" else 12040
        self.missing_functions = DRIVER_470_MISSING if scenario == "driver470" else frozenset()
        self.init_count = 0
        self.calls = 0  # total device calls, for tests that check fields are not re-read
        self.reads: dict[int, int] = {}  # utilisation/telemetry reads per GPU index
        self.lost_gpu = 1 if scenario == "lost" else None
        default_after = int(os.environ.get(LOST_AFTER_ENV, "3") or 3)
        self.lose_after_samples = default_after if lose_after_samples is None else lose_after_samples

    # -- helpers -----------------------------------------------------------------------------------------------
    def _error(self, code: int) -> Exception:
        return self.NVMLError(code)

    def _gpu(self, handle: object, function: str) -> FakeGpu:
        if self.init_count <= 0:
            raise self._error(NVML_ERROR_UNINITIALIZED)
        if function in self.missing_functions:
            raise self._error(NVML_ERROR_FUNCTION_NOT_FOUND)
        if isinstance(handle, _MigHandle):
            raise self._error(NVML_ERROR_NOT_SUPPORTED)  # a whole-GPU query on a MIG handle
        if not isinstance(handle, _Handle) or not 0 <= handle.gpu_index < len(self.gpus):
            raise self._error(NVML_ERROR_INVALID_ARGUMENT)
        self.calls += 1
        if self.is_lost(handle.gpu_index):
            raise self._error(NVML_ERROR_GPU_IS_LOST)
        gpu = self.gpus[handle.gpu_index]
        if function in gpu.unsupported:
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        return gpu

    def _mig(self, handle: object) -> FakeMig:
        """The MIG device behind a MIG handle (the calls NVML documents for MIG handles use this)."""
        self._require_init()
        if not isinstance(handle, _MigHandle):
            raise self._error(NVML_ERROR_INVALID_ARGUMENT)
        return self.gpus[handle.gpu_index].mig_devices[handle.slot]

    def is_lost(self, gpu_index: int) -> bool:
        return gpu_index == self.lost_gpu and self.reads.get(gpu_index, 0) >= self.lose_after_samples

    def _wave(self, handle: object, period: float = 7.0) -> float:
        """0..1, moving with the number of telemetry reads of this GPU (deterministic, looks alive)."""
        index = handle.gpu_index if isinstance(handle, _Handle) else 0
        k = self.reads.get(index, 0)
        return 0.5 + 0.5 * math.sin(k / period * 2 * math.pi + index)

    # -- system ------------------------------------------------------------------------------------------------
    def nvmlInit(self) -> None:
        if self.scenario == "nolib":
            raise self._error(NVML_ERROR_LIBRARY_NOT_FOUND)
        self.init_count += 1

    def nvmlShutdown(self) -> None:
        if self.init_count <= 0:
            raise self._error(NVML_ERROR_UNINITIALIZED)
        self.init_count -= 1

    def _require_init(self) -> None:
        if self.init_count <= 0:
            raise self._error(NVML_ERROR_UNINITIALIZED)

    def nvmlSystemGetDriverVersion(self) -> str:
        self._require_init()
        return self.driver_version

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        self._require_init()
        return self.cuda_driver_version

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self.nvmlSystemGetCudaDriverVersion_v2()

    def nvmlDeviceGetCount(self) -> int:
        self._require_init()
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> _Handle:
        self._require_init()
        if not 0 <= index < len(self.gpus):
            raise self._error(NVML_ERROR_INVALID_ARGUMENT)
        if self.is_lost(index):
            raise self._error(NVML_ERROR_GPU_IS_LOST)
        return _Handle(index)

    # -- identity and static properties ------------------------------------------------------------------------
    def nvmlDeviceGetUUID(self, handle: object) -> str:
        if isinstance(handle, _MigHandle):
            return self._mig(handle).uuid
        return self._gpu(handle, "nvmlDeviceGetUUID").uuid

    def nvmlDeviceGetName(self, handle: object) -> str:
        if isinstance(handle, _MigHandle):
            return f"{self.gpus[handle.gpu_index].name} MIG {self._mig(handle).profile}"
        return self._gpu(handle, "nvmlDeviceGetName").name

    def nvmlDeviceGetPciInfo(self, handle: object) -> _Struct:
        gpu = self._gpu(handle, "nvmlDeviceGetPciInfo")
        return _Struct({"busId": gpu.bus_id, "busIdLegacy": gpu.bus_id[4:]})

    def nvmlDeviceGetMemoryInfo(self, handle: object, version: object = None) -> _Struct:
        if version is not None and "nvmlDeviceGetMemoryInfo_v2" in self.missing_functions:
            raise self._error(NVML_ERROR_FUNCTION_NOT_FOUND)
        if isinstance(handle, _MigHandle):
            total = self._mig(handle).memory_bytes
            return _Struct({"total": total, "used": 13 * MIB, "free": total - 13 * MIB})
        gpu = self._gpu(handle, "nvmlDeviceGetMemoryInfo")
        used = gpu.memory_used_bytes + sum(size for _pid, size in gpu.processes)
        if self.reads:
            used += int(self._wave(handle) * 2048 * MIB)
        return _Struct({"total": gpu.memory_total_bytes, "used": used, "free": gpu.memory_total_bytes - used})

    def nvmlDeviceGetCudaComputeCapability(self, handle: object) -> tuple[int, int]:
        return self._gpu(handle, "nvmlDeviceGetCudaComputeCapability").compute_capability

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: object) -> int:
        return self._gpu(handle, "nvmlDeviceGetCurrPcieLinkGeneration").pcie[0]

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: object) -> int:
        return self._gpu(handle, "nvmlDeviceGetMaxPcieLinkGeneration").pcie[1]

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: object) -> int:
        return self._gpu(handle, "nvmlDeviceGetCurrPcieLinkWidth").pcie[2]

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: object) -> int:
        return self._gpu(handle, "nvmlDeviceGetMaxPcieLinkWidth").pcie[3]

    def nvmlDeviceGetPowerManagementLimit(self, handle: object) -> int:
        return self._gpu(handle, "nvmlDeviceGetPowerManagementLimit").power_limit_mw

    def nvmlDeviceGetMaxClockInfo(self, handle: object, clock_type: int) -> int:
        gpu = self._gpu(handle, "nvmlDeviceGetMaxClockInfo")
        return gpu.max_sm_clock_mhz if clock_type in (0, 1) else gpu.max_mem_clock_mhz

    def nvmlDeviceGetEccMode(self, handle: object) -> list[int]:
        gpu = self._gpu(handle, "nvmlDeviceGetEccMode")
        if gpu.ecc is None:
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        return [gpu.ecc, gpu.ecc]

    def nvmlDeviceGetMigMode(self, handle: object) -> list[int]:
        gpu = self._gpu(handle, "nvmlDeviceGetMigMode")
        if gpu.mig is None:
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        return [gpu.mig, gpu.mig]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: object) -> int:
        gpu = self._gpu(handle, "nvmlDeviceGetMaxMigDeviceCount")
        if gpu.mig is None:
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        return 7  # an A100 has 7 compute slices

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: object, slot: int) -> _MigHandle:
        gpu = self._gpu(handle, "nvmlDeviceGetMigDeviceHandleByIndex")
        if gpu.mig is None:
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        if not gpu.mig:
            raise self._error(NVML_ERROR_INVALID_ARGUMENT)  # MIG mode off
        if slot >= len(gpu.mig_devices):
            raise self._error(NVML_ERROR_NOT_FOUND)
        assert isinstance(handle, _Handle)
        return _MigHandle(handle.gpu_index, slot)

    def nvmlDeviceIsMigDeviceHandle(self, handle: object) -> int:
        self._require_init()
        return 1 if isinstance(handle, _MigHandle) else 0

    def nvmlDeviceGetDeviceHandleFromMigDeviceHandle(self, handle: object) -> _Handle:
        self._mig(handle)
        assert isinstance(handle, _MigHandle)
        return _Handle(handle.gpu_index)

    def nvmlDeviceGetGpuInstanceId(self, handle: object) -> int:
        return self._mig(handle).gpu_instance_id

    def nvmlDeviceGetComputeInstanceId(self, handle: object) -> int:
        return self._mig(handle).compute_instance_id

    def nvmlDeviceGetAttributes(self, handle: object) -> _Struct:
        """Documented for MIG device handles only; a whole GPU answers NOT_SUPPORTED."""
        if not isinstance(handle, _MigHandle):
            self._gpu(handle, "nvmlDeviceGetAttributes")
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        mig = self._mig(handle)
        return _Struct(
            {
                "multiprocessorCount": mig.multiprocessors,
                "gpuInstanceSliceCount": mig.slices,
                "computeInstanceSliceCount": mig.slices,
                "memorySizeMB": mig.memory_bytes // MIB,
            }
        )

    # -- host side: CPU affinity, NUMA node, processes ---------------------------------------------------------
    def nvmlDeviceGetCpuAffinity(self, handle: object, cpu_set_size: int) -> list[int]:
        """64-bit masks of the CPUs nearest to the GPU (its socket's cores), as pynvml's ctypes array."""
        gpu = self._gpu(handle, "nvmlDeviceGetCpuAffinity")
        masks = [0] * cpu_set_size
        first = gpu.socket * gpu.cores_per_socket
        for cpu in range(first, first + gpu.cores_per_socket):
            if cpu // 64 < cpu_set_size:
                masks[cpu // 64] |= 1 << (cpu % 64)
        return masks

    def nvmlDeviceGetNumaNodeId(self, handle: object) -> int:
        return self._gpu(handle, "nvmlDeviceGetNumaNodeId").socket

    def _processes(self, handle: object, function: str) -> list[_Struct]:
        gpu = self._gpu(handle, function)
        return [_Struct({"pid": pid, "usedGpuMemory": used}) for pid, used in gpu.processes]

    def nvmlDeviceGetComputeRunningProcesses(self, handle: object) -> list[_Struct]:
        if "nvmlDeviceGetComputeRunningProcesses_v3" in self.missing_functions:
            raise self._error(NVML_ERROR_FUNCTION_NOT_FOUND)  # pynvml calls the _v3 symbol
        return self._processes(handle, "nvmlDeviceGetComputeRunningProcesses")

    def nvmlDeviceGetComputeRunningProcesses_v2(self, handle: object) -> list[_Struct]:  # noqa: N802
        return self._processes(handle, "nvmlDeviceGetComputeRunningProcesses_v2")

    # -- NVLink and topology -----------------------------------------------------------------------------------
    def _link(self, handle: object, link: int, function: str) -> FakeGpu:
        gpu = self._gpu(handle, function)
        if gpu.nvlink_count is None:
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        if not 0 <= link < gpu.nvlink_count:
            raise self._error(NVML_ERROR_INVALID_ARGUMENT)
        return gpu

    def nvmlDeviceGetNvLinkState(self, handle: object, link: int) -> int:
        gpu = self._link(handle, link, "nvmlDeviceGetNvLinkState")
        return 1 if link < len(gpu.nvlink_peers) else 0

    def nvmlDeviceGetNvLinkRemotePciInfo(self, handle: object, link: int) -> _Struct:
        gpu = self._link(handle, link, "nvmlDeviceGetNvLinkRemotePciInfo")
        if link >= len(gpu.nvlink_peers):
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        return _Struct({"busId": gpu.nvlink_peers[link][0]})

    def nvmlDeviceGetNvLinkRemoteDeviceType(self, handle: object, link: int) -> int:
        gpu = self._link(handle, link, "nvmlDeviceGetNvLinkRemoteDeviceType")
        if link >= len(gpu.nvlink_peers):
            raise self._error(NVML_ERROR_NOT_SUPPORTED)
        return gpu.nvlink_peers[link][1]

    def nvmlDeviceGetTopologyCommonAncestor(self, a: object, b: object) -> int:
        ga, gb = self._gpu(a, "topology"), self._gpu(b, "topology")
        if ga.socket != gb.socket:
            return NVML_TOPOLOGY_SYSTEM
        if ga.pcie_switch == gb.pcie_switch:
            return NVML_TOPOLOGY_SINGLE
        return NVML_TOPOLOGY_NODE if self.scenario == "h100x8" else NVML_TOPOLOGY_HOSTBRIDGE

    def nvmlDeviceGetP2PStatus(self, a: object, b: object, index: int) -> int:
        ga, gb = self._gpu(a, "p2p"), self._gpu(b, "p2p")
        both_nvlink = bool(ga.nvlink_peers) and bool(gb.nvlink_peers)
        if index == 2:  # NVML_P2P_CAPS_INDEX_NVLINK
            return NVML_P2P_STATUS_OK if both_nvlink else NVML_P2P_STATUS_NOT_SUPPORTED
        if "GeForce" in ga.name:  # GeForce cards have no GPUDirect P2P
            return NVML_P2P_STATUS_GPU_NOT_SUPPORTED
        return NVML_P2P_STATUS_OK if both_nvlink or ga.socket == gb.socket else NVML_P2P_STATUS_NOT_SUPPORTED

    # -- telemetry ---------------------------------------------------------------------------------------------
    def nvmlDeviceGetUtilizationRates(self, handle: object) -> _Struct:
        gpu = self._gpu(handle, "nvmlDeviceGetUtilizationRates")
        assert isinstance(handle, _Handle)
        self.reads[handle.gpu_index] = self.reads.get(handle.gpu_index, 0) + 1
        busy = gpu.utilization_pct if gpu.utilization_pct is not None else round(100 * self._wave(handle))
        return _Struct({"gpu": busy, "memory": busy // 2})

    def _count_read_if_untracked(self, handle: object, gpu: FakeGpu) -> None:
        # Under MIG utilisation is refused, so the temperature read advances the wave instead.
        if "nvmlDeviceGetUtilizationRates" in gpu.unsupported and isinstance(handle, _Handle):
            self.reads[handle.gpu_index] = self.reads.get(handle.gpu_index, 0) + 1

    def nvmlDeviceGetTemperature(self, handle: object, sensor: int) -> int:
        gpu = self._gpu(handle, "nvmlDeviceGetTemperature")
        self._count_read_if_untracked(handle, gpu)
        return (
            gpu.idle_temperature_c + round(30 * self._wave(handle)) if self.reads else gpu.idle_temperature_c
        )

    def nvmlDeviceGetPowerUsage(self, handle: object) -> int:
        gpu = self._gpu(handle, "nvmlDeviceGetPowerUsage")
        span = gpu.power_limit_mw - gpu.idle_power_mw
        return gpu.idle_power_mw + int(span * 0.9 * self._wave(handle))

    def nvmlDeviceGetClockInfo(self, handle: object, clock_type: int) -> int:
        gpu = self._gpu(handle, "nvmlDeviceGetClockInfo")
        top = gpu.max_sm_clock_mhz if clock_type in (0, 1) else gpu.max_mem_clock_mhz
        return int(top * (0.6 + 0.4 * self._wave(handle)))

    def nvmlDeviceGetPcieThroughput(self, handle: object, counter: int) -> int:
        self._gpu(handle, "nvmlDeviceGetPcieThroughput")
        return int((800_000 if counter == 0 else 1_200_000) * self._wave(handle))  # KiB/s, as NVML reports

    def _clocks_event_reasons(self, handle: object, function: str) -> int:
        self._gpu(handle, function)
        return 0x4 if self._wave(handle) > 0.9 else 0x0  # 0x4: software power cap

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: object) -> int:
        return self._clocks_event_reasons(handle, "nvmlDeviceGetCurrentClocksEventReasons")

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle: object) -> int:  # the name before driver 535
        return self._clocks_event_reasons(handle, "nvmlDeviceGetCurrentClocksThrottleReasons")
