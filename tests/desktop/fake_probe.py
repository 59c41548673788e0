"""A stand-in for `gpu-probe --progress` that the GUI tests run as its child (GPU_ADVISOR_PROBE_CMD).

Usage: fake_probe.py VARIANT --progress --quick|--full --json FILE  (the GUI appends everything after VARIANT)
Variants: ok (contract JSON lines and a valid report), crash (exit 3 after one result), hang (never finishes:
for Cancel and the timeout), garbage (prints non-JSON and exits 0 without a report), error (an error event).
Needs no torch: the report is built with profiler.report's helpers.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from profiler.report import measurement_dict, new_report_dict  # noqa: E402

# Figures a 2-GPU H100 SXM box could report (mamf-finder results table, stas00/ml-engineering compute/accelerator: about 794 of 989 bf16 TFLOPS; 87 % of the 3.35 TB/s datasheet bandwidth).
BF16 = 794e12
BANDWIDTH = 2.9e12


def emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def report(mode: str) -> dict:
    devices = []
    for index in range(2):
        devices.append(
            {
                "device": f"cuda:{index}",
                "name": "NVIDIA H100 80GB HBM3",
                "uuid": None,
                "kind": "cuda",
                "measurements": [
                    measurement_dict("matmul", dtype="bf16", value=BF16, method="fake"),
                    measurement_dict("memory_bandwidth", value=BANDWIDTH, method="fake"),
                ],
                "telemetry": [],
            }
        )
    machine = {"hostname": "fake-host", "os": "Linux", "cpu": "fake", "cpu_count": 8, "ram_bytes": 2**34,
               "python": "3.11", "torch": None, "cuda": None}  # fmt: skip
    nvml = {
        "available": False,
        "reason": "fake",
        "driver_version": None,
        "cuda_driver_version": None,
        "gpus": [],
    }
    return new_report_dict(mode, machine, nvml, devices)


def main(argv: list[str]) -> int:
    variant = argv[0]
    mode = "full" if "--full" in argv else "quick"
    json_path = argv[argv.index("--json") + 1] if "--json" in argv else None
    data = report(mode)
    emit({"event": "start", "devices": ["cuda:0", "cuda:1"], "mode": mode})
    if variant == "garbage":
        print("this is not JSON at all")
        print("{also not json")
        return 0
    if variant == "error":
        emit({"event": "error", "message": "CUDA error: out of memory"})
        return 1
    steps = [(d["device"], m) for d in data["devices"] for m in d["measurements"]]
    for position, (device, measurement) in enumerate(steps, start=1):
        emit({"event": "result", "device": device, "measurement": measurement})
        emit({"event": "progress", "stage": f"{device} {measurement['kind']}", "fraction": position / len(steps),
              "device": device})  # fmt: skip
        if variant == "crash":
            sys.stderr.write("Segmentation fault in the fake driver\n")
            sys.stderr.flush()
            return 3
        if variant == "hang" and position == 1:
            time.sleep(600)
    if json_path:
        Path(json_path).write_text(json.dumps(data), encoding="utf-8")
    emit({"event": "done", "report": data})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
