"""The measurements of one device as steps: each runs inside the device's context and becomes a report row, a failure recorded with its reason while the rest go on."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from profiler import report as report_module

# The measurement functions, looked up by name in this module's globals when a step runs (_bind), so a test
# can monkeypatch profiler.probe_steps.<name>.
from profiler.probe_bandwidth import (  # noqa: F401
    cpu_memory_bandwidth,
    cuda_host_bandwidth,
    cuda_memory_bandwidth,
    cuda_p2p_bandwidth,
)
from profiler.probe_matmul import cpu_matmul, cuda_matmul  # noqa: F401
from profiler.probe_settings import (
    MATMUL_DTYPES_CPU,
    MATMUL_DTYPES_CUDA,
    Outcome,
    ProbeSettings,
    failure_reason,
)
from profiler.report import Measurement


@dataclass
class Step:
    """One planned measurement: its report fields and the function that measures it."""

    stage: str
    kind: str
    dtype: str | None
    peer: str | None
    measure: Callable[[], Outcome]


def run_step(step: Step, context: Callable[[], AbstractContextManager[object]] = nullcontext) -> Measurement:
    """Run one measurement inside `context` (the device's); any exception, the context's own included, becomes
    a failed measurement with its reason (the rest go on)."""
    started_at = report_module.utc_now_iso()
    t0 = time.perf_counter()
    try:
        with context():
            outcome = step.measure()
    except Exception as exc:  # each measurement is independent: record why and carry on
        release_cuda_memory()
        return report_module.measurement_dict(
            step.kind,
            dtype=step.dtype,
            peer=step.peer,
            ok=False,
            error=failure_reason(exc),
            method=step.stage,
            started_at=started_at,
            duration_s=time.perf_counter() - t0,
        )
    return report_module.measurement_dict(
        step.kind,
        dtype=step.dtype,
        peer=step.peer,
        value=outcome.value,
        method=outcome.method,
        started_at=started_at,
        duration_s=time.perf_counter() - t0,
        details=outcome.details,
    )


def release_cuda_memory() -> None:
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                torch.cuda.empty_cache()
        except Exception:  # a sticky CUDA error fails here too; the next step reports it with its own reason
            pass


def cpu_steps(settings: ProbeSettings) -> list[Step]:
    steps = [
        Step("cpu memory bandwidth", "memory_bandwidth", None, None, _bind("cpu_memory_bandwidth", settings))
    ]
    for dtype in MATMUL_DTYPES_CPU:
        steps.append(Step(f"cpu matmul {dtype}", "matmul", dtype, None, _bind("cpu_matmul", dtype, settings)))
    return steps


def cuda_steps(
    index: int,
    capability: tuple[int, int],
    peers: list[int],
    settings: ProbeSettings,
    cpus: list[int] | None = None,
) -> list[Step]:
    dev = f"cuda:{index}"
    steps = [
        Step(f"{dev} memory bandwidth", "memory_bandwidth", None, None,
             _bind("cuda_memory_bandwidth", index, settings)),
        Step(f"{dev} host to device", "h2d_bandwidth", None, None,
             _bind("cuda_host_bandwidth", index, "h2d", settings, cpus)),
        Step(f"{dev} device to host", "d2h_bandwidth", None, None,
             _bind("cuda_host_bandwidth", index, "d2h", settings, cpus)),
    ]  # fmt: skip
    for peer in peers:
        steps.append(
            Step(f"{dev} to cuda:{peer}", "p2p_bandwidth", None, f"cuda:{peer}",
                 _bind("cuda_p2p_bandwidth", index, peer, settings))
        )  # fmt: skip
    for dtype in MATMUL_DTYPES_CUDA:
        steps.append(
            Step(f"{dev} matmul {dtype}", "matmul", dtype, None,
                 _bind("cuda_matmul", index, dtype, capability, settings))
        )  # fmt: skip
    return steps


def _bind(function_name: str, *args: object) -> Callable[[], Outcome]:
    """Look the measurement function up by name when the step runs, so a test can monkeypatch one of them."""

    def measure() -> Outcome:
        outcome = globals()[function_name](*args)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"{function_name} returned {type(outcome).__name__}, not an Outcome")
        return outcome

    return measure


def failed_steps(device: str, reason: str) -> list[Measurement]:
    """The rows for a device that cannot be probed at all, each failed with the same reason."""
    kinds = [("memory_bandwidth", None), ("matmul", "fp32"), ("matmul", "bf16")]
    return [
        report_module.measurement_dict(
            kind, dtype=dtype, ok=False, error=reason[:900], method=f"{device} not probed"
        )
        for kind, dtype in kinds
    ]
