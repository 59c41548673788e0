"""A stand-in for `gpu-probe --progress` that the GUI tests run as its child (GPU_ADVISOR_PROBE_CMD).

Usage: fake_probe.py VARIANT --progress --quick|--full --json FILE  (the GUI appends everything after VARIANT)
Variants: ok (contract JSON lines and a valid report), crash (exit 3 after one result), hang (never finishes:
for Cancel and the timeout), garbage (prints non-JSON and exits 0 without a report), error (an error event),
done-then-abort (sends its report, then aborts as torch does after a sticky CUDA error), stall (one progress
line, then silence), ignore-term (ignores SIGTERM and hangs: only SIGKILL ends it), burst (128 results in one
write), and the hostile ones from the fuzzing issue: bad-value (an ok result whose value is a string),
deep (a JSON line nested 100,000 deep), devices5 ("devices": 5), garbage-file (no done line, garbage in the
--json file), huge-line (a 70 MB line, then a normal run).
Needs no torch: the report is built with profiler.report's helpers.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from profiler.report import measurement_dict, new_report_dict  # noqa: E402

# Figures a 2-GPU H100 SXM box could report: 794 of 989 bf16 TFLOPS (stas00/ml-engineering MAMF table) and a
# 2.90 TB/s copy, 87 % of 3.35 TB/s (Azure AI-benchmarking-guide, ND H100 v5); see docs/sources.md.
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


BURST = 128


def burst(mode: str) -> int:
    """128 results written at once (one write, one flush), then the report."""
    data = report(mode)
    template = data["devices"][0]["measurements"][0]
    lines = [json.dumps({"event": "start", "devices": ["cuda:0"], "mode": mode})]
    lines += [json.dumps({"event": "result", "device": "cuda:0", "measurement": template})] * BURST
    lines.append(json.dumps({"event": "done", "report": data}))
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()
    return 0


def hostile(variant: str, mode: str, json_path: str | None) -> int | None:
    """The child outputs that crashed or froze the GUI before (issue 14); None for a variant not handled here."""
    data = report(mode)
    measurement = dict(data["devices"][0]["measurements"][0])
    if variant == "bad-value":
        emit({"event": "start", "devices": ["cuda:0"], "mode": mode})
        emit({"event": "result", "device": "cuda:0", "measurement": {**measurement, "value": "fast"}})
        emit({"event": "result", "device": "cuda:0", "measurement": measurement})
        emit({"event": "done", "report": data})
        return 0
    if variant == "deep":
        sys.stdout.write('{"event": "result", "measurement": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
        emit({"event": "done", "report": data})
        return 0
    if variant == "devices5":
        emit({"event": "start", "devices": 5, "mode": mode})
        emit({"event": "result", "device": "cuda:0", "measurement": measurement})
        emit({"event": "done", "report": data})
        return 0
    if variant == "garbage-file":
        emit({"event": "start", "devices": ["cuda:0"], "mode": mode})
        if json_path:
            Path(json_path).write_bytes(b"\x00\xffnot a report {{{")
        return 0
    if variant == "huge-line":
        chunk = "x" * (1 << 20)
        sys.stdout.write('{"event": "progress", "stage": "')
        for _ in range(70):  # 70 MB in one line, written in 1 MB pieces
            sys.stdout.write(chunk)
        sys.stdout.write('", "fraction": 0.5}\n')
        emit({"event": "done", "report": data})
        return 0
    return None


def main(argv: list[str]) -> int:
    variant = argv[0]
    mode = "full" if "--full" in argv else "quick"
    json_path = argv[argv.index("--json") + 1] if "--json" in argv else None
    if variant == "burst":
        return burst(mode)
    handled = hostile(variant, mode, json_path)
    if handled is not None:
        return handled
    data = report(mode)
    emit({"event": "start", "devices": ["cuda:0", "cuda:1"], "mode": mode})
    if variant == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        emit({"event": "progress", "stage": "cuda:0 memory bandwidth", "fraction": 0.1, "device": "cuda:0"})
        time.sleep(600)
    if variant == "stall":
        emit({"event": "progress", "stage": "cuda:0 matmul fp8", "fraction": 0.4, "device": "cuda:0"})
        time.sleep(600)
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
    if variant == "done-then-abort":
        # what torch does at exit after a sticky CUDA error: the report is out, then the process aborts
        sys.stderr.write("terminate called after throwing an instance of 'c10::Error'\n")
        sys.stderr.write("  what():  CUDA error: an illegal memory access was encountered\n")
        sys.stderr.flush()
        os.abort()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
