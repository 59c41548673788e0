"""Demo data for `gpu-advisor --screenshots` (pages' load_example). Never shown as a measurement of this machine.

The figures are typical published results, not inventions (docs/sources.md, "Example figures"): bf16 matmul
from the MAMF table of stas00/ml-engineering (H100 SXM 794.5 of 989 TFLOPS, A100 SXM 271.2 of 312); device
copies of 2.90 TB/s (H100, 87 % of spec) and 1.61 TB/s (A100, 79 %) and pinned host copies of about 51 GB/s
(PCIe 5) and 26 GB/s (PCIe 4) from Azure's AI-benchmarking-guide (ND H100 v5, ND A100 v4). Prices are the
dated reference snapshot of planner/catalog/reference_prices.csv.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from profiler.report import Device, Machine, NvmlSection, ReportDocument

EXAMPLE_LABEL = "example"

# (nvml name, bf16 FLOP/s, memory B/s, host-to-device B/s, device-to-host B/s)
H100_FIGURES = ("NVIDIA H100 80GB HBM3", 794e12, 0.87 * 3.35e12, 50e9, 48e9)
A100_FIGURES = ("NVIDIA A100-SXM4-80GB", 271e12, 0.79 * 2.039e12, 25e9, 24e9)


def _device(index: int, figures: tuple[str, float, float, float, float], scale: float = 1.0) -> Device:
    from profiler.report import measurement_dict

    name, bf16, memory, h2d, d2h = figures
    method = "example figures (published measurements, docs/sources.md)"
    return {
        "device": f"cuda:{index}",
        "name": name,
        "uuid": None,
        "kind": "cuda",
        "measurements": [
            measurement_dict("matmul", dtype="bf16", value=bf16 * scale, method=method),
            measurement_dict("memory_bandwidth", value=memory * scale, method=method),
            measurement_dict("h2d_bandwidth", value=h2d * scale, method=method),
            measurement_dict("d2h_bandwidth", value=d2h * scale, method=method),
        ],
        "telemetry": [],
    }


def example_report(
    figures: tuple[str, float, float, float, float] = H100_FIGURES,
    hostname: str = "example-h100",
    created_at: str | None = None,
) -> ReportDocument:
    """A valid ProbeReport dict for two GPUs of one type (the second 2 % slower, as real cards differ)."""
    from profiler.report import new_report_dict

    machine: Machine = {
        "hostname": hostname,
        "os": "Linux",
        "cpu": "example CPU",
        "cpu_count": 64,
        "ram_bytes": 1024 * 2**30,
        "python": "3.11",
        "torch": None,
        "cuda": None,
    }
    nvml: NvmlSection = {
        "available": False,
        "reason": "example report",
        "driver_version": None,
        "cuda_driver_version": None,
        "gpus": [],
    }
    devices = [_device(0, figures), _device(1, figures, 0.98)]
    return new_report_dict("quick", machine, nvml, devices, created_at=created_at)


def add_example_probe_runs(context: Any) -> None:
    """Store two example runs (H100 and an imported A100 machine) unless they are there already."""
    from profiler.report import ProbeReport

    store = context.store
    existing = store.probe_runs.all()
    if any((run.label or "").startswith(EXAMPLE_LABEL) for run in existing):
        return
    store.probe_runs.save(
        ProbeReport.from_dict(example_report(H100_FIGURES, "example-h100", "2026-09-14T09:30:00Z")),
        source="local",
        label=f"{EXAMPLE_LABEL}: H100 node",
    )
    store.probe_runs.save(
        ProbeReport.from_dict(example_report(A100_FIGURES, "rented-a100", "2026-09-10T16:05:00Z")),
        source="imported",
        label=f"{EXAMPLE_LABEL}: rented A100",
    )
    context.probe_runs_changed.emit()


def example_telemetry(
    gpus: int,
    seconds: int = 300,
    memory_bytes: list[float | None] | None = None,
    power_limit_w: list[float | None] | None = None,
) -> dict[int, dict[str, np.ndarray]]:
    """Five minutes of plausible telemetry for a training job (same layout as TelemetrySampler.snapshot()).

    Scaled to each GPU where its memory (bytes) and power limit (W) are given: the job fills ~85 % of the memory
    and draws ~75-85 % of the limit (an RTX 4090 never shows 68 GiB used or 600 W); otherwise an 80 GB, 700 W
    card is assumed.
    """
    t = np.arange(seconds, dtype=float)
    snapshot = {}
    for gpu in range(gpus):
        memory = _given(memory_bytes, gpu) or 80 * 2**30
        limit = _given(power_limit_w, gpu) or 700.0
        phase = gpu * 0.7
        busy = 0.5 + 0.5 * np.tanh((t - 40 - 5 * gpu) / 8)  # the job starts after ~40 s
        wobble = np.sin(t / 9 + phase)
        snapshot[gpu] = {
            "t_s": t,
            "utilization_pct": np.clip(5 + busy * (85 + 6 * wobble), 0, 100),
            "memory_used_bytes": memory * (0.025 + busy * (0.82 + 0.01 * (gpu % 3))),
            "temperature_c": 36 + busy * (28 + 2 * np.sin(t / 30 + phase)),
            "power_w": limit * (0.13 + busy * (0.67 + 0.06 * wobble)),
            "sm_clock_mhz": 1980 - busy * 150,
        }
    return snapshot


def _given(values: list[float | None] | None, position: int) -> float | None:
    value = values[position] if values is not None and position < len(values) else None
    return float(value) if value else None


# Dated reference-style quotes the user might have entered (the 2026-09 snapshot in reference_prices.csv).
EXAMPLE_RENTAL_QUOTES = (
    {"provider": "RunPod", "offer": "1x H100 SXM", "gpu": "h100-sxm", "price_per_gpu_hour": 3.49,
     "currency": "USD", "kind": "on-demand", "quoted_on": "2026-09-01", "source": "runpod.io pricing page"},
    {"provider": "AWS", "offer": "p5.4xlarge", "gpu": "h100-sxm", "price_per_gpu_hour": 6.88,
     "currency": "USD", "kind": "on-demand", "region": "us-east-1", "quoted_on": "2026-09-01",
     "source": "aws.amazon.com/ec2/pricing"},
    {"provider": "RunPod", "offer": "1x A100 SXM", "gpu": "a100-sxm-80gb", "price_per_gpu_hour": 1.39,
     "currency": "USD", "kind": "on-demand", "quoted_on": "2026-09-01", "source": "runpod.io pricing page"},
    {"provider": "AWS", "offer": "g6e.2xlarge", "gpu": "l40s", "price_per_gpu_hour": 2.24,
     "currency": "USD", "kind": "on-demand", "region": "us-east-1", "quoted_on": "2026-09-01",
     "source": "aws.amazon.com/ec2/pricing"},
    {"provider": "RunPod", "offer": "1x RTX 4090", "gpu": "rtx-4090", "price_per_gpu_hour": 0.34,
     "currency": "USD", "kind": "on-demand", "quoted_on": "2026-09-01", "source": "runpod.io pricing page"},
    {"provider": "Selectel", "offer": "1x A100 80GB", "gpu": "a100-sxm-80gb", "price_per_gpu_hour": 260.0,
     "currency": "RUB", "kind": "on-demand", "region": "ru-1", "quoted_on": "2026-09-03",
     "source": "example quote (entered by hand)", "note": "example"},
    # Spot and reserved H100 offers so Rent or buy draws every line; hand-entered examples, not market data.
    {"provider": "Example cloud", "offer": "8x H100 SXM spot", "gpu": "h100-sxm", "price_per_gpu_hour": 2.10,
     "gpus_per_instance": 8, "interruptions_per_hour": 0.01, "currency": "USD", "kind": "spot", "quoted_on": "2026-09-01",
     "source": "example quote (entered by hand)", "note": "example: spot, may be interrupted"},
    {"provider": "Example cloud", "offer": "8x H100 SXM, 1-year term", "gpu": "h100-sxm",
     "price_per_gpu_hour": 2.45, "currency": "USD", "kind": "reserved-1y", "quoted_on": "2026-09-01",
     "source": "example quote (entered by hand)", "note": "example: 1-year commitment"},
)  # fmt: skip

EXAMPLE_PURCHASE_QUOTES = (
    {"vendor": "Integrator A", "gpu": "h100-sxm", "gpus": 8, "price": 8 * 27_500.0, "currency": "USD",
     "quoted_on": "2026-08-20", "server_overhead_fraction": 0.3, "source": "example quote (HF hardware pages: $25-30k per H100)"},
    {"vendor": "Retail", "gpu": "rtx-4090", "gpus": 1, "price": 1599.0, "currency": "USD",
     "quoted_on": "2026-08-20", "source": "launch MSRP (NVIDIA)"},
)  # fmt: skip


def add_example_quotes(context: Any) -> None:
    """Add the example quotes once (skipped when the user already has quotes of their own)."""
    store = context.store
    if store.rental_quotes.find(mine_only=True) or store.purchase_quotes.find(mine_only=True):
        return
    from planner.errors import UserError

    for add, quotes in (
        (store.rental_quotes.add, EXAMPLE_RENTAL_QUOTES),
        (store.purchase_quotes.add, EXAMPLE_PURCHASE_QUOTES),
    ):
        for quote in quotes:
            try:
                add(dict(quote))
            except UserError:  # the same quote ships as a reference price: nothing to add
                pass
    context.quotes_changed.emit()
