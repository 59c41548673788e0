"""Shared fixtures for the profiler tests: a valid report document written out by hand."""

from __future__ import annotations

import copy

import pytest


def sample_report_dict() -> dict:
    """A complete, valid version-1 report, typed out field by field (not produced by the code under test)."""
    return {
        "schema": "gpu-advisor.probe-report",
        "version": 1,
        "created_at": "2026-09-14T10:31:02Z",
        "mode": "quick",
        "machine": {
            "hostname": "rented-box",
            "os": "Linux-6.8.0-x86_64",
            "cpu": "AMD EPYC 9454",
            "cpu_count": 96,
            "ram_bytes": 1_081_000_000_000,
            "python": "3.11.9",
            "torch": "2.5.1+cu124",
            "cuda": "12.4",
        },
        "nvml": {
            "available": True,
            "reason": None,
            "driver_version": "550.54.15",
            "cuda_driver_version": "12.4",
            "gpus": [
                {"index": 0, "name": "NVIDIA H100 80GB HBM3", "ecc": {"unavailable": "no permission"}},
                {"index": 1, "name": {"unavailable": "GPU is lost (fell off the bus or hung)"}},
            ],
            "topology": {"pairs": []},
        },
        "devices": [
            {
                "device": "cuda:0",
                "name": "NVIDIA H100 80GB HBM3",
                "uuid": "GPU-6f0b6c52-0e1d-4a4c-9d1e-000000000000",
                "kind": "cuda",
                "measurements": [
                    {
                        "kind": "memory_bandwidth",
                        "dtype": None,
                        "peer": None,
                        "value": 2.9e12,
                        "unit": "B/s",
                        "ok": True,
                        "error": None,
                        "method": "device-to-device copy",
                        "started_at": "2026-09-14T10:31:05Z",
                        "duration_s": 0.6,
                        "details": {"bytes_copied": 536870912},
                    },
                    {
                        "kind": "matmul",
                        "dtype": "bf16",
                        "peer": None,
                        "value": 7.5e14,
                        "unit": "FLOP/s",
                        "ok": True,
                        "error": None,
                        "method": "torch.mm bf16",
                        "started_at": "2026-09-14T10:31:07Z",
                        "duration_s": 1.0,
                        "details": {},
                    },
                    {
                        "kind": "matmul",
                        "dtype": "bf16",
                        "peer": None,
                        "value": 7.9e14,
                        "unit": "FLOP/s",
                        "ok": True,
                        "error": None,
                        "method": "torch.mm bf16, second run",
                        "started_at": "2026-09-14T10:31:09Z",
                        "duration_s": 1.0,
                        "details": {},
                    },
                    {
                        "kind": "matmul",
                        "dtype": "fp8",
                        "peer": None,
                        "value": None,
                        "unit": "FLOP/s",
                        "ok": False,
                        "error": "out of memory: tried to allocate 2 GiB",
                        "method": "torch._scaled_mm",
                        "started_at": "2026-09-14T10:31:10Z",
                        "duration_s": 0.1,
                        "details": {},
                    },
                ],
                "telemetry": [
                    {"t_s": 0.0, "sm_clock_mhz": 1980.0, "power_w": 120.5, "temperature_c": 35.0},
                    {"t_s": 0.1, "sm_clock_mhz": 1755.0, "power_w": 690.0, "temperature_c": None},
                ],
            },
            {
                "device": "cpu",
                "name": "AMD EPYC 9454",
                "uuid": None,
                "kind": "cpu",
                "measurements": [
                    {
                        "kind": "matmul",
                        "dtype": "fp32",
                        "peer": None,
                        "value": 2.0e12,
                        "unit": "FLOP/s",
                        "ok": True,
                        "error": None,
                        "method": "torch.mm on CPU",
                        "started_at": "2026-09-14T10:31:12Z",
                        "duration_s": 1.0,
                        "details": {},
                    }
                ],
                "telemetry": [],
            },
        ],
        "collectives": [
            {
                "op": "all_reduce",
                "backend": "nccl",
                "world_size": 8,
                "nnodes": 1,
                "results": [
                    {
                        "size_bytes": 1 << 30,
                        "time_s": 0.004,
                        "algbw_bytes_per_s": 2.68e11,
                        "busbw_bytes_per_s": 4.7e11,
                    }
                ],
            }
        ],
    }


@pytest.fixture
def report_dict() -> dict:
    return copy.deepcopy(sample_report_dict())
