"""The versioned ProbeReport: what `gpu-probe` writes and what the store imports from other machines.

Pure Python (json, dataclasses): no torch, no pynvml, no Qt. The same document is described for other tools by
the JSON Schema file next to this module (probe_report.schema.json, draft 2020-12); the loader below does its
own validation in plain Python so that every refusal names the exact field path, e.g.
``devices[0].measurements[2].value: expected a number or null, got str``.

Units: sizes in bytes (int), times in seconds, bandwidth in bytes per second ("B/s"), matmul throughput in
floating-point operations per second ("FLOP/s"; 1 TFLOPS = 1e12 FLOP/s).

Versioning: ``version`` is an integer. A new field that old readers may ignore keeps the version; anything that
changes the meaning or type of an existing field bumps it, and this loader refuses versions it does not know
rather than guess.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

SCHEMA_NAME = "gpu-advisor.probe-report"
REPORT_VERSION = 1
SUPPORTED_VERSIONS = (1,)
MAX_REPORT_BYTES = 16 * 1024 * 1024  # 16 MiB: a full probe of 8 GPUs with telemetry is well under 1 MiB
# Every string field (names, hostnames, reasons, methods) and telemetry reading name: a hostname is at most 253
# characters and the probe cuts its error texts to 300-400, so anything longer is not a report gpu-probe wrote,
# and it would break the tables and charts that show it. The schema file says the same (maxLength).
MAX_TEXT_CHARS = 1000

MODES = ("quick", "full", "collectives")
DEVICE_KINDS = ("cuda", "cpu")
MEASUREMENT_KINDS = ("memory_bandwidth", "h2d_bandwidth", "d2h_bandwidth", "p2p_bandwidth", "matmul")
DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")
UNITS = ("B/s", "FLOP/s")
UNIT_FOR_KIND = {
    "memory_bandwidth": "B/s",
    "h2d_bandwidth": "B/s",
    "d2h_bandwidth": "B/s",
    "p2p_bandwidth": "B/s",
    "matmul": "FLOP/s",
}
COLLECTIVE_OPS = ("all_reduce", "all_gather", "reduce_scatter")


class ReportError(ValueError):
    """A probe report that cannot be trusted: not JSON, too big, unknown version, a missing or mistyped field.

    The message names the field path (``devices[0].measurements[1].unit``) and what was wrong with it.
    """


def utc_now_iso() -> str:
    """Current time as ISO-8601 UTC with a trailing Z, second precision (e.g. 2026-09-14T10:31:02Z)."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --------------------------------------------------------------------------------------------------------------
# Plain-Python validation. Each checker takes (value, path) and raises ReportError naming the path.
# --------------------------------------------------------------------------------------------------------------

Checker = Callable[[Any, str], None]


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _fail(path: str, expected: str, value: Any) -> None:
    raise ReportError(f"{path or '<root>'}: expected {expected}, got {_type_name(value)} {_short(value)}")


def _short(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, (dict, list)) else ""
    return f"({text[:60]})" if text else ""


def _string(value: Any, path: str) -> None:
    if not isinstance(value, str):
        _fail(path, "a string", value)
    _short_enough(value, path)


def _short_enough(text: str, path: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise ReportError(
            f"{path}: text of {len(text):,} characters; the limit is {MAX_TEXT_CHARS} characters"
        )


def _nonempty_string(value: Any, path: str) -> None:
    if not isinstance(value, str) or not value.strip():
        _fail(path, "a non-empty string", value)
    _short_enough(value, path)


def _bool(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        _fail(path, "true or false", value)


def _int(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, "an integer", value)


def _nonneg_int(value: Any, path: str) -> None:
    _int(value, path)
    if value < 0:
        raise ReportError(f"{path}: expected a non-negative integer, got {value}")


def _number(value: Any, path: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        _fail(path, "a finite number", value)


def _nonneg_number(value: Any, path: str) -> None:
    _number(value, path)
    if value < 0:
        raise ReportError(f"{path}: expected a non-negative number, got {value}")


_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")


def _iso_timestamp(value: Any, path: str) -> None:
    """Date and time, ISO-8601 (the same pattern as the JSON Schema file), and a real calendar date."""
    _string(value, path)
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        if not _TIMESTAMP.match(value):
            raise ValueError
        datetime.fromisoformat(text)
    except ValueError:
        raise ReportError(f"{path}: expected an ISO-8601 timestamp, got {value[:40]!r}") from None


def _nullable(inner: Checker, expected: str) -> Checker:
    def check(value: Any, path: str) -> None:
        if value is not None:
            inner(value, path)  # the inner message names what a non-null value must be

    return check


def _one_of(*choices: Any) -> Checker:
    def check(value: Any, path: str) -> None:
        if value not in choices or isinstance(value, bool) != isinstance(choices[0], bool):
            shown = ", ".join(json.dumps(c) for c in choices)
            raise ReportError(f"{path}: expected one of {shown}, got {json.dumps(value, default=str)[:60]}")

    return check


def _list_of(item: Checker) -> Checker:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            _fail(path, "a list", value)
        for i, element in enumerate(value):
            item(element, f"{path}[{i}]")

    return check


def _object(value: Any, path: str) -> None:
    if not isinstance(value, dict):
        _fail(path, "an object", value)


def _record(required: Mapping[str, Checker], optional: Mapping[str, Checker] | None = None) -> Checker:
    """An object with these required keys (and optional ones); extra keys are allowed (additive changes)."""

    def check(value: Any, path: str) -> None:
        _object(value, path)
        prefix = f"{path}." if path else ""
        for key, checker in required.items():
            if key not in value:
                raise ReportError(f"{prefix}{key}: missing required field")
            checker(value[key], f"{prefix}{key}")
        for key, checker in (optional or {}).items():
            if key in value:
                checker(value[key], f"{prefix}{key}")

    return check


_opt_str = _nullable(_string, "a string")
_opt_num = _nullable(_number, "a finite number")
_opt_nonneg_int = _nullable(_nonneg_int, "a non-negative integer")

_check_machine = _record(
    {
        "hostname": _string,
        "os": _string,
        "cpu": _string,
        "cpu_count": _opt_nonneg_int,
        "ram_bytes": _opt_nonneg_int,
        "python": _string,
        "torch": _opt_str,
        "cuda": _opt_str,
    }
)


def _string_or_unavailable(value: Any, path: str) -> None:
    """NVML may refuse a field; the inventory then writes {"unavailable": "<reason>"} in its place."""
    if isinstance(value, dict):
        _record({"unavailable": _string})(value, path)
    elif value is not None:
        _string(value, path)


_check_inventory_gpu = _record({"index": _nonneg_int, "name": _string_or_unavailable})

_check_nvml = _record(
    {
        "available": _bool,
        "reason": _opt_str,
        "driver_version": _string_or_unavailable,
        "cuda_driver_version": _string_or_unavailable,
        "gpus": _list_of(_check_inventory_gpu),
    },
    {"topology": _object},
)


def _check_measurement(value: Any, path: str) -> None:
    _record(
        {
            "kind": _one_of(*MEASUREMENT_KINDS),
            "dtype": _nullable(_one_of(*DTYPES), "a dtype"),
            "peer": _opt_str,
            "value": _nullable(_nonneg_number, "a non-negative number"),
            "unit": _one_of(*UNITS),
            "ok": _bool,
            "error": _opt_str,
            "method": _string,
            "started_at": _iso_timestamp,
            "duration_s": _nonneg_number,
            "details": _object,
        }
    )(value, path)
    if value["unit"] != UNIT_FOR_KIND[value["kind"]]:
        raise ReportError(f"{path}.unit: {value['kind']} is measured in {UNIT_FOR_KIND[value['kind']]}")
    if value["ok"] and value["value"] is None:
        raise ReportError(f"{path}.value: an ok measurement needs a value")
    if not value["ok"] and not value["error"]:
        raise ReportError(f"{path}.error: a failed measurement needs its reason")


_check_telemetry_sample = _record({"t_s": _nonneg_number})


def _check_telemetry(value: Any, path: str) -> None:
    _list_of(_check_telemetry_sample)(value, path)
    for i, sample in enumerate(value):
        for key, reading in sample.items():
            if key != "t_s":
                _short_enough(key, f"{path}[{i}] reading name")
                _opt_num(reading, f"{path}[{i}].{key}")


_check_device = _record(
    {
        "device": _nonempty_string,
        "name": _string,
        "uuid": _opt_str,
        "kind": _one_of(*DEVICE_KINDS),
        "measurements": _list_of(_check_measurement),
        "telemetry": _check_telemetry,
    }
)

_check_collective_result = _record(
    {
        "size_bytes": _nonneg_int,
        "time_s": _nonneg_number,
        "algbw_bytes_per_s": _nonneg_number,
        "busbw_bytes_per_s": _nonneg_number,
    }
)

_check_collective = _record(
    {
        "op": _one_of(*COLLECTIVE_OPS),
        "backend": _string,
        "world_size": _nonneg_int,
        "nnodes": _nonneg_int,
        "results": _list_of(_check_collective_result),
    },
    {"ok": _bool, "error": _opt_str, "details": _object},
)


def _check_version(value: Any, path: str) -> None:
    _int(value, path)
    if value not in SUPPORTED_VERSIONS:
        known = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise ReportError(
            f"version: this is a version {value} probe report; this GPU Advisor reads version {known} "
            "(update GPU Advisor, or re-run the probe with the same version)"
        )


_check_report = _record(
    {
        "schema": _one_of(SCHEMA_NAME),
        "version": _check_version,
        "created_at": _iso_timestamp,
        "mode": _one_of(*MODES),
        "machine": _check_machine,
        "nvml": _check_nvml,
        "devices": _list_of(_check_device),
    },
    {"collectives": _list_of(_check_collective)},
)


def validate_report_dict(data: Any) -> None:
    """Raise ReportError naming the first problem in `data`; return None when it is a valid report.

    The schema and version are checked first so that a report from a newer GPU Advisor says so, instead of
    complaining about a field that the newer version renamed.
    """
    _object(data, "")
    if data.get("schema") != SCHEMA_NAME:
        raise ReportError(f"schema: not a GPU Advisor probe report (expected schema {SCHEMA_NAME!r})")
    if "version" not in data:
        raise ReportError("version: missing required field")
    _check_version(data["version"], "version")
    _check_report(data, "")


# --------------------------------------------------------------------------------------------------------------
# The report object
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeReport:
    """A validated probe report. `.data` is the JSON document (treat it as read-only)."""

    data: dict = field(repr=False)

    def __post_init__(self) -> None:
        validate_report_dict(self.data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProbeReport:
        """Validate a parsed document (a deep copy is kept, so later edits to `data` do not leak in)."""
        try:
            copied = json.loads(json.dumps(data, allow_nan=False))
        except (ValueError, TypeError) as exc:  # NaN/Infinity or a non-JSON object somewhere in the document
            raise ReportError(f"not valid JSON: {exc}") from None
        copied.setdefault("collectives", [])
        return cls(copied)

    @property
    def version(self) -> int:
        return self.data["version"]

    @property
    def created_at(self) -> str:
        return self.data["created_at"]

    @property
    def mode(self) -> str:
        return self.data["mode"]

    @property
    def machine(self) -> dict:
        return self.data["machine"]

    @property
    def nvml(self) -> dict:
        return self.data["nvml"]

    @property
    def devices(self) -> list[dict]:
        return self.data["devices"]

    @property
    def collectives(self) -> list[dict]:
        return self.data.get("collectives", [])

    def measurements(
        self,
        kind: str | None = None,
        dtype: str | None = None,
        device: str | None = None,
        ok_only: bool = True,
    ) -> list[tuple[str, dict]]:
        """(device id, measurement) pairs matching the filters; None matches anything."""
        found = []
        for dev in self.devices:
            if device is not None and dev["device"] != device:
                continue
            for m in dev["measurements"]:
                if kind is not None and m["kind"] != kind:
                    continue
                if dtype is not None and m["dtype"] != dtype:
                    continue
                if ok_only and not m["ok"]:
                    continue
                found.append((dev["device"], m))
        return found

    def best(self, kind: str, dtype: str | None = None, device: str | None = None) -> float | None:
        """Highest ok value of this kind (B/s or FLOP/s); dtype/device None match any. None when nothing ok."""
        values = [m["value"] for _, m in self.measurements(kind, dtype, device)]
        return max(values) if values else None

    def device_names(self) -> list[str]:
        return [d["name"] for d in self.devices]

    def summary(self) -> dict:
        """Key figures for lists and history tables (values in B/s and FLOP/s, None when not measured)."""
        return {
            "created_at": self.created_at,
            "mode": self.mode,
            "hostname": self.machine["hostname"],
            "devices": self.device_names(),
            "gpu_count": sum(1 for d in self.devices if d["kind"] == "cuda"),
            "memory_bandwidth_bytes_per_s": self.best("memory_bandwidth"),
            "bf16_flops_per_s": self.best("matmul", "bf16"),
            "fp32_flops_per_s": self.best("matmul", "fp32"),
            "h2d_bandwidth_bytes_per_s": self.best("h2d_bandwidth"),
        }

    def to_dict(self) -> dict:
        return json.loads(json.dumps(self.data))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent, allow_nan=False)


def _refuse_constant(name: str) -> Any:
    raise ReportError(f"not valid JSON: {name} is not a number JSON allows")


def parse_report_text(text: str | bytes) -> ProbeReport:
    """Parse and validate JSON text (str or UTF-8 bytes)."""
    size = len(text.encode("utf-8")) if isinstance(text, str) else len(text)
    if size > MAX_REPORT_BYTES:
        raise ReportError(f"report is {size} bytes; the limit is {MAX_REPORT_BYTES} bytes (16 MiB)")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ReportError(f"not valid JSON: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ReportError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ReportError("not valid JSON: nested too deeply") from None
    if isinstance(data, dict):
        data.setdefault("collectives", [])
    return ProbeReport(data)


def load_report(source: str | bytes | os.PathLike) -> ProbeReport:
    """Load a report strictly, from a path (str or PathLike), JSON text (a str starting with '{') or bytes.

    Raises ReportError (a ValueError) with a message naming the problem: missing file, oversized file, not
    JSON, unknown version, a missing or mistyped field (with its path).
    """
    if isinstance(source, bytes):
        return parse_report_text(source)
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return parse_report_text(source)
    path = os.fspath(source)
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise ReportError(f"{path}: cannot read the report ({exc.strerror or exc})") from None
    if size > MAX_REPORT_BYTES:
        raise ReportError(f"{path}: the file is {size} bytes; the limit is {MAX_REPORT_BYTES} bytes (16 MiB)")
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_REPORT_BYTES + 1)
    except OSError as exc:
        raise ReportError(f"{path}: cannot read the report ({exc.strerror or exc})") from None
    try:
        return parse_report_text(raw)
    except ReportError as exc:
        raise ReportError(f"{os.path.basename(path)}: {exc}") from None


# --------------------------------------------------------------------------------------------------------------
# Builders used by the probe and collectives (and handy for test fixtures elsewhere)
# --------------------------------------------------------------------------------------------------------------


def new_report_dict(
    mode: str,
    machine: Mapping[str, Any],
    nvml: Mapping[str, Any],
    devices: list[dict] | None = None,
    collectives: list[dict] | None = None,
    created_at: str | None = None,
) -> dict:
    """A report document (not yet validated) with the header filled in."""
    return {
        "schema": SCHEMA_NAME,
        "version": REPORT_VERSION,
        "created_at": created_at or utc_now_iso(),
        "mode": mode,
        "machine": dict(machine),
        "nvml": dict(nvml),
        "devices": list(devices or []),
        "collectives": list(collectives or []),
    }


def measurement_dict(
    kind: str,
    *,
    dtype: str | None = None,
    peer: str | None = None,
    value: float | None = None,
    ok: bool = True,
    error: str | None = None,
    method: str = "",
    started_at: str | None = None,
    duration_s: float = 0.0,
    details: Mapping[str, Any] | None = None,
) -> dict:
    """One measurement in report form; the unit follows from the kind (B/s for bandwidths, FLOP/s for matmul)."""
    return {
        "kind": kind,
        "dtype": dtype,
        "peer": peer,
        "value": None if value is None else float(value),
        "unit": UNIT_FOR_KIND[kind],
        "ok": ok,
        "error": error,
        "method": method,
        "started_at": started_at or utc_now_iso(),
        "duration_s": float(max(0.0, duration_s)),
        "details": dict(details or {}),
    }


def unavailable_nvml_section(reason: str) -> dict:
    """The nvml section of a report made where NVML could not be used."""
    return {
        "available": False,
        "reason": reason,
        "driver_version": None,
        "cuda_driver_version": None,
        "gpus": [],
    }
