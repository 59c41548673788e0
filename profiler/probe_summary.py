"""The probe's summary for a person: each device's measurements with units, one line each (gpu-probe prints it;
`gpu-advisor probe` prints it from the report its child wrote). Stdlib only, like profiler/report.py."""

from __future__ import annotations

from profiler.report import ProbeReport


def _with_unit(value: float, unit: str) -> str:
    """Bandwidth in GB/s (10^9 B/s); matmul in TFLOPS, or GFLOPS below 1 TFLOPS (a CPU)."""
    if unit == "B/s":
        return f"{value / 1e9:>10.2f} GB/s"
    if value >= 1e12:
        return f"{value / 1e12:>10.2f} TFLOPS"
    return f"{value / 1e9:>10.2f} GFLOPS"


_LABELS = {"memory_bandwidth": "memory_bandwidth (read+write)"}


def human_summary(report: ProbeReport) -> str:
    lines = [f"GPU Advisor probe ({report.mode}), {report.created_at}"]
    nvml = report.nvml
    if not nvml["available"]:
        lines.append(nvml["reason"] or "no NVIDIA GPU")
    for device, why in report.busy_devices():
        lines.append(f"{device}: was busy when measured ({why}); its figures are low for that reason")
    for dev in report.devices:
        errors = {m["error"] for m in dev["measurements"] if not m["ok"]}
        if dev["measurements"] and len(errors) == 1 and not any(m["ok"] for m in dev["measurements"]):
            lines.append(f"{dev['device']}: {dev['name']}: not measured: {errors.pop()}")
            continue  # one line for a device that could not be probed at all, not one per measurement
        lines.append(f"{dev['device']}: {dev['name']}")
        for m in dev["measurements"]:
            label = (
                _LABELS.get(m["kind"], m["kind"])
                + (f" {m['dtype']}" if m["dtype"] else "")
                + (f" -> {m['peer']}" if m["peer"] else "")
            )
            if m["ok"] and m["value"] is not None:
                lines.append(f"  {label:<28}{_with_unit(m['value'], m['unit'])}")
            else:
                lines.append(f"  {label:<28}    failed: {m['error']}")
    for entry in report.collectives:
        if entry.get("ok", True) and entry["results"]:
            best = max(r["busbw_bytes_per_s"] for r in entry["results"])
            lines.append(f"  {entry['op']:<28}{best / 1e9:>10.2f} GB/s busbw (best size, slowest rank)")
        else:
            lines.append(f"  {entry['op']:<28}    not measured: {entry.get('error')}")
    return "\n".join(lines)
