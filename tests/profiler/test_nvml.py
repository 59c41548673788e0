"""NVML inventory and telemetry through every fake scenario (the same code path as real pynvml)."""

from __future__ import annotations

import json
import threading
import time

import pytest

from profiler.fake_nvml import SCENARIOS, FakeNvml
from profiler.nvml import (
    NvmlUnavailable,
    Unavailable,
    cuda_driver_version_text,
    normalize_bus_id,
    open_backend,
)
from profiler.nvml_inventory import Inventory, read_inventory
from profiler.telemetry import TelemetrySampler

MIB = 1024 * 1024


def test_every_scenario_reads_without_raising_and_is_json_safe():
    for scenario in SCENARIOS:
        inventory = read_inventory(FakeNvml(scenario))
        assert isinstance(inventory, Inventory)
        json.dumps(inventory.to_dict(), allow_nan=False)  # no Unavailable objects, bytes or NaN leak out


def test_missing_library_says_no_gpu_and_why():
    inventory = read_inventory(FakeNvml("nolib"))
    assert not inventory.available and inventory.gpus == []
    assert inventory.reason.startswith("no NVIDIA GPU")
    assert "NVML library not found (libnvidia-ml.so.1" in inventory.reason


def test_driver_with_zero_gpus():
    inventory = read_inventory(FakeNvml("none"))
    assert not inventory.available
    assert inventory.reason == "no NVIDIA GPU: the driver is loaded but reports 0 devices"
    assert inventory.driver_version == "550.54.15"
    assert inventory.cuda_driver_version == "12.4"  # NVML's integer 12040 = 12.4


def test_consumer_card_records_refused_fields_with_reasons():
    (gpu,) = read_inventory(FakeNvml("consumer")).gpus
    assert gpu.name == "NVIDIA GeForce RTX 4090"
    assert gpu.memory_total_bytes == 24564 * MIB  # what nvidia-smi shows for a 4090: 24564 MiB
    assert gpu.compute_capability == (8, 9)
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_max) == (1, 4, 16)
    assert gpu.power_limit_w == 450.0  # NVML milliwatts / 1000
    for refused in (gpu.ecc, gpu.mig_mode, gpu.nvlink):
        assert isinstance(refused, Unavailable) and "not supported" in refused.reason
    as_dict = gpu.to_dict()
    assert as_dict["ecc"] == {"unavailable": "not supported on this GPU or driver"}
    assert as_dict["compute_capability"] == [8, 9]


def test_h100x8_topology_and_nvlink():
    inventory = read_inventory(FakeNvml("h100x8"))
    assert inventory.available and len(inventory.gpus) == 8
    assert all(g.memory_total_bytes == 81559 * MIB for g in inventory.gpus)
    assert [g.cuda_index for g in inventory.gpus] == list(range(8))
    buses = [g.pci_bus_id for g in inventory.gpus]
    assert buses == sorted(buses) and buses[0] == "0000:18:00.0"
    assert len(inventory.gpus[0].nvlink) == 18
    assert {link["peer_type"] for link in inventory.gpus[0].nvlink} == {"switch"}
    pairs = inventory.topology["pairs"]
    assert len(pairs) == 8 * 7 // 2  # every unordered pair once
    assert all(p["link"] == "nvlink" and p["code"] == "NV18" and p["p2p_read"] == "ok" for p in pairs)
    # The PCIe path underneath still says which pairs cross CPU sockets (GPUs 0-3 on one, 4-7 on the other).
    by_pair = {(p["a"], p["b"]): p for p in pairs}
    assert by_pair[(0, 1)]["pcie_path"] == "numa_node"
    assert by_pair[(0, 4)]["pcie_path"] == "cross_socket"


def test_pcie_pair_without_nvlink():
    pair = read_inventory(FakeNvml("lost", lose_after_samples=100)).topology["pairs"][0]
    assert pair["link"] == "host_bridge" and pair["code"] == "PHB" and pair["nvlink_count"] == 0
    assert pair["p2p_nvlink"] == "not supported"


def test_mig_partitioned_a100():
    (gpu,) = read_inventory(FakeNvml("mig")).gpus
    assert gpu.mig_mode == "enabled" and gpu.ecc == "enabled"
    assert [m["memory_total_bytes"] for m in gpu.mig_devices] == [40192 * MIB, 19968 * MIB, 9728 * MIB]
    assert all(m["uuid"].startswith("MIG-") for m in gpu.mig_devices)
    assert gpu.nvlink == []  # 12 links, none active: no peer in this box


def test_devices_are_listed_in_pci_bus_order_even_if_nvml_enumerates_otherwise():
    fake = FakeNvml("h100x8")
    fake.gpus.reverse()  # NVML index 0 is now the GPU at bus 0xDB
    inventory = read_inventory(fake)
    assert [g.pci_bus_id[5:7] for g in inventory.gpus] == ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
    assert inventory.gpus[0].index == 7 and inventory.gpus[0].cuda_index == 0


def test_lost_gpu_in_inventory_is_marked_lost_with_reason():
    inventory = read_inventory(FakeNvml("lost", lose_after_samples=0))
    lost = [g for g in inventory.gpus if g.lost]
    assert len(lost) == 1 and isinstance(lost[0].name, Unavailable) and "lost" in lost[0].name.reason
    healthy = [g for g in inventory.gpus if not g.lost]
    assert healthy[0].name == "NVIDIA A10"


def test_nvml_session_is_closed_after_reading():
    fake = FakeNvml("h100x8")
    read_inventory(fake)
    assert fake.init_count == 0


def test_open_backend_follows_the_environment(monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "consumer")
    backend = open_backend()
    assert isinstance(backend, FakeNvml) and backend.scenario == "consumer"
    assert read_inventory().gpus[0].name == "NVIDIA GeForce RTX 4090"
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "bogus")
    with pytest.raises(NvmlUnavailable, match="unknown fake NVML scenario"):
        open_backend()
    inventory = read_inventory()
    assert not inventory.available and "unknown fake NVML scenario" in inventory.reason


def test_fake_raises_the_real_pynvml_error_classes():
    import pynvml

    fake = FakeNvml("nolib")
    with pytest.raises(pynvml.NVMLError_LibraryNotFound):
        fake.nvmlInit()


def test_helpers():
    assert normalize_bus_id("00000000:3B:00.0") == "0000:3b:00.0"
    assert normalize_bus_id(b"0000:3b:00.0") == "0000:3b:00.0"
    assert cuda_driver_version_text(12040) == "12.4" and cuda_driver_version_text(11080) == "11.8"


# ---------------------------------------------------------------------------------------------------------------
# Telemetry
# ---------------------------------------------------------------------------------------------------------------


def test_sampler_reads_all_gpus_into_bounded_buffers():
    sampler = TelemetrySampler(FakeNvml("h100x8"), interval_s=1.0, capacity=5, include_pcie=True)
    for _ in range(8):
        sampler.sample_once()
    snapshot = sampler.snapshot()
    assert sorted(snapshot) == list(range(8))
    for series in snapshot.values():
        assert len(series["t_s"]) == 5  # capacity, not 8
        assert (series["power_w"] >= 71.0).all() and (series["power_w"] <= 700.0).all()  # idle..limit in W
        assert (series["pcie_rx_bytes_per_s"] >= 0).all()
        assert list(series["t_s"]) == sorted(series["t_s"])
    sampler.stop()


def test_sampler_records_refused_fields_as_nan_and_stops_asking():
    fake = FakeNvml("consumer")
    sampler = TelemetrySampler(fake, include_pcie=True)
    sampler.sample_once()
    calls_after_first = fake.calls
    sampler.sample_once()
    status = sampler.status()[0]
    assert "pcie_tx_bytes_per_s" in status["refused"] and "clocks_event_reasons" in status["refused"]
    series = sampler.snapshot()[0]
    assert all(v != v for v in series["pcie_tx_bytes_per_s"])  # NaN
    assert all(v == v for v in series["power_w"])
    # The second sample asks only the 5 fields that worked (util, memory, power, temperature, SM clock).
    assert fake.calls - calls_after_first == 5
    sampler.stop()


def test_mig_gpu_has_no_utilisation_but_other_readings():
    sampler = TelemetrySampler(FakeNvml("mig"))
    sample = sampler.sample_once()[0]
    assert sample.utilization_pct is None and sample.temperature_c is not None and sample.power_w is not None
    sampler.stop()


def test_lost_gpu_mid_session_keeps_the_others_sampling():
    sampler = TelemetrySampler(FakeNvml("lost", lose_after_samples=3), interval_s=0.005)
    sampler.start()
    deadline = time.monotonic() + 5
    while sampler.status()[0]["samples"] < 10 and time.monotonic() < deadline:
        time.sleep(0.01)
    sampler.stop()
    status = sampler.status()
    assert status[1]["lost"] and "GPU is lost" in status[1]["lost_reason"]
    assert status[1]["samples"] == 2  # the third utilisation read is where the GPU fell off the bus
    assert not status[0]["lost"] and status[0]["samples"] >= 10
    assert not sampler.running


def test_snapshot_is_safe_while_sampling():
    sampler = TelemetrySampler(FakeNvml("h100x8"), interval_s=0.001, capacity=50, include_pcie=False).start()
    errors = []

    def reader():
        try:
            for _ in range(200):
                for series in sampler.snapshot().values():
                    assert len(series["t_s"]) == len(series["power_w"]) <= 50
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sampler.stop()
    assert errors == []


def test_sampler_without_nvml_reports_why_and_does_not_start():
    sampler = TelemetrySampler(FakeNvml("nolib")).start()
    assert not sampler.running and sampler.snapshot() == {}
    assert sampler.error.startswith("no NVIDIA GPU") and "library not found" in sampler.error
    sampler.stop()


def test_sampler_uses_the_environment_backend():
    # conftest sets GPU_ADVISOR_FAKE_NVML=none: a driver without GPUs, so nothing to sample and no error.
    sampler = TelemetrySampler(interval_s=0.01).start()
    assert sampler.sample_once() == [] and sampler.error is None
    sampler.stop()


def test_sampler_stop_joins_thread_and_releases_nvml():
    fake = FakeNvml("consumer")
    sampler = TelemetrySampler(fake, interval_s=0.01).start()
    time.sleep(0.05)
    sampler.stop()
    assert not sampler.running and fake.init_count == 0
    count = sampler.status()[0]["samples"]
    time.sleep(0.05)
    assert sampler.status()[0]["samples"] == count  # nothing samples after stop


def test_old_drivers_fall_back_to_the_throttle_reasons_function():
    fake = FakeNvml("h100x8")
    fake.nvmlDeviceGetCurrentClocksEventReasons = None  # bindings older than the rename (driver < 535)
    sampler = TelemetrySampler(fake, include_pcie=False)
    samples = sampler.sample_once()
    assert all(s.clocks_event_reasons is not None for s in samples)
    assert "clocks_event_reasons" not in sampler.status()[0]["refused"]
    sampler.stop()


def test_real_pynvml_on_this_machine_never_raises():
    import pynvml

    inventory = read_inventory(pynvml)  # the real bindings: no driver here, a GPU on a GPU machine
    assert inventory.available or inventory.reason.startswith("no NVIDIA GPU: ")
    json.dumps(inventory.to_dict(), allow_nan=False)
