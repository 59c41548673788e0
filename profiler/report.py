"""The versioned ProbeReport: what `gpu-probe` writes and what the store imports from other machines.

Pure Python (json, dataclasses): no torch, no pynvml, no Qt. The same document is described for other tools by
the JSON Schema file next to this module (probe_report.schema.json, draft 2020-12); the loader below does its
own validation in plain Python so that every refusal names the exact field path, e.g.
``devices[0].measurements[2].value: expected a number or null, got str``.

Units: sizes in bytes (int), times in seconds, bandwidth in bytes per second ("B/s"), matmul throughput in
floating-point operations per second ("FLOP/s"; 1 TFLOPS = 1e12 FLOP/s).

Counting conventions (also in the schema file and in each measurement's details):
- memory_bandwidth: a device-to-device copy of S bytes counts 2*S (read + write, the STREAM "copy" convention).
  nvbandwidth counts the S bytes copied once, so its device-local figure is half of this for the same copy.
- h2d/d2h/p2p bandwidth: S bytes counted once (one direction over the link), as nvbandwidth does.
- collectives: the time of one call is the average over the timed iterations on each rank, then the slowest
  rank (max over ranks). nccl-tests' default (-a 1) averages over ranks instead, so its figure can be higher.

Versioning: ``version`` is an integer. A new field that old readers may ignore keeps the version; anything that
changes the meaning or type of an existing field bumps it, and this loader refuses versions it does not know
rather than guess. Optional device fields added without a version change: ``activity`` (the GPU's utilisation
and other compute processes just before it was measured, with ``busy``) and ``mig`` (the MIG slice a device is,
with its share of the whole GPU).

Version 2 (``gpu-probe --model-shapes FILE``) adds two measurement kinds a version-1 reader would refuse:
``gemm`` (FLOP/s of one GEMM at a model's own shape; details carry m, n, k) and ``attention`` (FLOP/s of causal
flash attention at the model's shape; details carry batch, heads, kv_heads, seq_len, head_dim). A report without
them is still written as version 1, so older GPU Advisors read every ordinary report; this loader reads both.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import NoReturn, NotRequired, TypedDict, TypeGuard, cast

from profiler.json_checks import MAX_TEXT_CHARS as MAX_TEXT_CHARS
from profiler.json_checks import ReportError as ReportError
from profiler.json_checks import (
    as_int,
    as_object,
    check_bool,
    check_fraction,
    check_iso_timestamp,
    check_nonempty_string,
    check_nonneg_int,
    check_nonneg_number,
    check_object,
    check_short_enough,
    check_storable,
    check_string,
    check_valid_unicode,
    list_of,
    nullable,
    one_of,
    optional_nonneg_int,
    optional_nonneg_number,
    optional_number,
    optional_string,
    record_checker,
    short_repr,
    shown_key,
)
from profiler.jsontypes import JSONObject, JSONValue

SCHEMA_NAME = "gpu-advisor.probe-report"
REPORT_VERSION = 1
MODEL_SHAPES_VERSION = 2  # a report with gemm / attention measurements (gpu-probe --model-shapes)
SUPPORTED_VERSIONS = (1, 2)
MAX_REPORT_BYTES = 16 * 1024 * 1024  # 16 MiB: a full probe of 8 GPUs with telemetry is well under 1 MiB

MODES = ("quick", "full", "collectives")
DEVICE_KINDS = ("cuda", "cpu")
MEASUREMENT_KINDS = (
    "memory_bandwidth",
    "h2d_bandwidth",
    "d2h_bandwidth",
    "p2p_bandwidth",
    "matmul",
    "gemm",
    "attention",
)
VERSION_2_KINDS = ("gemm", "attention")
DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")
UNITS = ("B/s", "FLOP/s")
UNIT_FOR_KIND = {
    "memory_bandwidth": "B/s",
    "h2d_bandwidth": "B/s",
    "d2h_bandwidth": "B/s",
    "p2p_bandwidth": "B/s",
    "matmul": "FLOP/s",
    "gemm": "FLOP/s",
    "attention": "FLOP/s",
}
# Physical bounds of one ok measurement per device, by unit (issue 14 item 3: an accepted 1e308 or 1e-300 FLOP/s
# made every later plan for that GPU divide by zero or print Infinity). The ceilings are far above the fastest
# GPU shipping: NVIDIA's DGX B200 datasheet (2025-03; docs/sources.md) gives 72 PFLOPS fp8 with sparsity and
# 64 TB/s of HBM3e for 8 GPUs (9e15 FLOP/s and 8e12 B/s per GPU); 1e17 and 1e14 leave a factor of ten for what
# comes next. The floors are far below anything a probe can time (a USB 1.1 link moves 1.5e6 B/s): a smaller
# value is a broken timer, not a measurement.
MEASUREMENT_BOUNDS = {"FLOP/s": (1e6, 1e17), "B/s": (1e3, 1e14)}
COLLECTIVE_OPS = ("all_reduce", "all_gather", "reduce_scatter")
# Parsed documents nested deeper than this are refused before any recursive walk (a real report is 6 deep).
MAX_DEPTH = 32


# --------------------------------------------------------------------------------------------------------------
# The document's shape, for type checkers (the loader below checks the same at run time)
# --------------------------------------------------------------------------------------------------------------


class Measurement(TypedDict):
    kind: str  # one of MEASUREMENT_KINDS
    dtype: str | None  # one of DTYPES for matmul
    peer: str | None  # "cuda:N" for p2p_bandwidth
    value: float | None  # B/s or FLOP/s; None when failed
    unit: str  # UNIT_FOR_KIND[kind]
    ok: bool
    error: str | None  # why it failed, one line
    method: str
    started_at: str  # ISO-8601
    duration_s: float
    details: JSONObject


class Device(TypedDict):
    device: str  # "cuda:N", "cpu", or a MIG UUID CUDA did not show
    name: str
    uuid: str | None
    kind: str  # "cuda" | "cpu"
    measurements: list[Measurement]
    telemetry: list[dict[str, float | None]]
    activity: NotRequired[JSONObject]  # utilisation and other compute processes before measuring; "busy"
    mig: NotRequired[JSONObject]  # the MIG slice: profile, ids, compute_fraction, memory_fraction


class CollectiveResult(TypedDict):
    size_bytes: int
    time_s: float
    algbw_bytes_per_s: float
    busbw_bytes_per_s: float


class Collective(TypedDict):
    op: str
    backend: str
    world_size: int
    nnodes: int
    results: list[CollectiveResult]
    ok: NotRequired[bool]
    error: NotRequired[str | None]
    details: NotRequired[JSONObject]


class Machine(TypedDict):
    hostname: str
    os: str
    cpu: str
    cpu_count: int | None
    ram_bytes: int | None
    python: str
    torch: str | None
    cuda: str | None


class NvmlSection(TypedDict):
    available: bool
    reason: str | None
    driver_version: JSONValue
    cuda_driver_version: JSONValue
    gpus: list[JSONObject]
    topology: NotRequired[JSONObject]


class ReportDocument(TypedDict):
    schema: str
    version: int
    created_at: str
    mode: str
    machine: Machine
    nvml: NvmlSection
    devices: list[Device]
    collectives: list[Collective]


def utc_now_iso() -> str:
    """Current time as ISO-8601 UTC with a trailing Z, second precision (e.g. 2026-09-14T10:31:02Z)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --------------------------------------------------------------------------------------------------------------
# Plain-Python validation. Each checker takes (value, path) and raises ReportError naming the path.
# --------------------------------------------------------------------------------------------------------------


_check_machine = record_checker(
    {
        "hostname": check_string,
        "os": check_string,
        "cpu": check_string,
        "cpu_count": optional_nonneg_int,
        "ram_bytes": optional_nonneg_int,
        "python": check_string,
        "torch": optional_string,
        "cuda": optional_string,
    }
)


def _string_or_unavailable(value: object, path: str) -> None:
    """NVML may refuse a field; the inventory then writes {"unavailable": "<reason>"} in its place."""
    if isinstance(value, dict):
        record_checker({"unavailable": check_string})(value, path)
    elif value is not None:
        check_string(value, path)


_check_inventory_gpu = record_checker({"index": check_nonneg_int, "name": _string_or_unavailable})

_check_nvml = record_checker(
    {
        "available": check_bool,
        "reason": optional_string,
        "driver_version": _string_or_unavailable,
        "cuda_driver_version": _string_or_unavailable,
        "gpus": list_of(_check_inventory_gpu),
    },
    {"topology": check_object},
)

_check_measurement_fields = record_checker(
    {
        "kind": one_of(*MEASUREMENT_KINDS),
        "dtype": nullable(one_of(*DTYPES)),
        "peer": optional_string,
        "value": optional_nonneg_number,
        "unit": one_of(*UNITS),
        "ok": check_bool,
        "error": optional_string,
        "method": check_string,
        "started_at": check_iso_timestamp,
        "duration_s": check_nonneg_number,
        "details": check_object,
    }
)


def _check_measurement(value: object, path: str) -> None:
    _check_measurement_fields(value, path)
    record = as_object(value, path)
    kind = str(record["kind"])
    if record["unit"] != UNIT_FOR_KIND[kind]:
        raise ReportError(f"{path}.unit: {kind} is measured in {UNIT_FOR_KIND[kind]}")
    if record["ok"] and record["value"] is None:
        raise ReportError(f"{path}.value: an ok measurement needs a value")
    if record["ok"]:
        low, high = MEASUREMENT_BOUNDS[str(record["unit"])]
        number = float(cast(float, record["value"]))
        if not low <= number <= high:
            raise ReportError(f"{path}.value: {number:g} {record['unit']} is outside the physical range "
                              f"{low:g} to {high:g} {record['unit']} of one device")  # fmt: skip
    if not record["ok"] and not record["error"]:
        raise ReportError(f"{path}.error: a failed measurement needs its reason")


_check_telemetry_sample = record_checker({"t_s": check_nonneg_number})


def _check_telemetry(value: object, path: str) -> None:
    list_of(_check_telemetry_sample)(value, path)
    assert isinstance(value, list)  # checked just above
    for i, sample in enumerate(value):
        for key, reading in as_object(sample, f"{path}[{i}]").items():
            if key != "t_s":
                check_short_enough(key, f"{path}[{i}] reading name")
                optional_number(reading, f"{path}[{i}].{shown_key(key)}")


_check_activity = record_checker(
    {"busy": check_bool},
    {"utilization_pct": optional_nonneg_number, "memory_used_bytes": optional_nonneg_int, "reason": optional_string},
)
_check_mig = record_checker(
    {"uuid": check_string},
    {
        "profile": optional_string,
        "parent_uuid": optional_string,
        "compute_fraction": nullable(check_fraction),
        "memory_fraction": nullable(check_fraction),
    },
)

_check_device = record_checker(
    {
        "device": check_nonempty_string,
        "name": check_string,
        "uuid": optional_string,
        "kind": one_of(*DEVICE_KINDS),
        "measurements": list_of(_check_measurement),
        "telemetry": _check_telemetry,
    },
    {"activity": _check_activity, "mig": _check_mig},
)

_check_collective_result = record_checker(
    {
        "size_bytes": check_nonneg_int,
        "time_s": check_nonneg_number,
        "algbw_bytes_per_s": check_nonneg_number,
        "busbw_bytes_per_s": check_nonneg_number,
    }
)

_check_collective = record_checker(
    {
        "op": one_of(*COLLECTIVE_OPS),
        "backend": check_string,
        "world_size": check_nonneg_int,
        "nnodes": check_nonneg_int,
        "results": list_of(_check_collective_result),
    },
    {"ok": check_bool, "error": optional_string, "details": check_object},
)


def _check_version(value: object, path: str) -> None:
    version = as_int(value, path)
    if version not in SUPPORTED_VERSIONS:
        known = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise ReportError(
            f"version: this is a version {short_repr(value)[1:-1]} probe report; this GPU Advisor reads version "
            f"{known} (update GPU Advisor, or re-run the probe with the same version)"
        )


_check_report = record_checker(
    {
        "schema": one_of(SCHEMA_NAME),
        "version": _check_version,
        "created_at": check_iso_timestamp,
        "mode": one_of(*MODES),
        "machine": _check_machine,
        "nvml": _check_nvml,
        "devices": list_of(_check_device),
    },
    {"collectives": list_of(_check_collective)},
)


def _check_depth(data: object) -> None:
    from profiler.jsontypes import json_depth

    if isinstance(data, (dict, list)) and json_depth(cast(JSONValue, data), MAX_DEPTH) > MAX_DEPTH:
        raise ReportError(f"not a probe report: nested more than {MAX_DEPTH} levels deep")


def validate_report_dict(data: object) -> None:
    """Raise ReportError naming the first problem in `data`; return None when it is a valid report.

    The schema and version are checked first so that a report from a newer GPU Advisor says so, instead of
    complaining about a field that the newer version renamed.
    """
    record = as_object(data, "")
    if record.get("schema") != SCHEMA_NAME:
        raise ReportError(f"schema: not a GPU Advisor probe report (expected schema {SCHEMA_NAME!r})")
    if "version" not in record:
        raise ReportError("version: missing required field")
    _check_version(record["version"], "version")
    _check_depth(record)
    _check_report(record, "")
    _check_kinds_for_version(record)
    _check_storable(record, "")


def _check_storable(value: object, path: str) -> None:
    """Every string (keys included) valid Unicode and every integer within 64 bits, in the fields the schema
    checks and in the ones it leaves open (an NVML uuid, details): the store writes the whole report to SQLite,
    which can hold neither a lone surrogate nor a bigger integer (issue 14 item 3). The depth is bounded above."""
    if isinstance(value, str):
        check_valid_unicode(value, path or "report")
    elif isinstance(value, int) and not isinstance(value, bool):
        check_storable(value, path or "report")
    elif isinstance(value, dict):
        for key, item in value.items():
            check_valid_unicode(str(key), f"{path} (a key)" if path else "a key")
            _check_storable(item, f"{path}.{shown_key(key)}" if path else shown_key(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_storable(item, f"{path}[{index}]")


def _check_kinds_for_version(record: Mapping[str, object]) -> None:
    """Version 1 has no gemm / attention measurements: a file that says 1 and carries them was not written by
    gpu-probe."""
    if record.get("version") != 1:
        return
    devices = record.get("devices")
    for d, device in enumerate(devices if isinstance(devices, list) else []):
        rows = device.get("measurements") if isinstance(device, dict) else None
        for m, row in enumerate(rows if isinstance(rows, list) else []):
            if isinstance(row, dict) and row.get("kind") in VERSION_2_KINDS:
                raise ReportError(
                    f"devices[{d}].measurements[{m}].kind: {row['kind']} needs report version 2"
                )


def is_report(data: object) -> TypeGuard[ReportDocument]:
    """True when `data` is a valid report document (validate_report_dict says why when it is not)."""
    try:
        validate_report_dict(data)
    except ReportError:
        return False
    return True


def validate_measurement(data: object, path: str = "measurement") -> Measurement:
    """`data` as a Measurement when it is one (the same rules as inside a report), else ReportError naming the
    field: what the GUI applies to each live "result" line of the probe child before showing it."""
    _check_depth(data)
    _check_measurement(data, path)
    return cast(Measurement, data)  # every field was checked just above


# --------------------------------------------------------------------------------------------------------------
# The report object
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeReport:
    """A validated probe report. `.data` is the JSON document (treat it as read-only)."""

    data: ReportDocument = field(repr=False)

    def __post_init__(self) -> None:
        validate_report_dict(self.data)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> ProbeReport:
        """Validate a parsed document (a deep copy is kept, so later edits to `data` do not leak in)."""
        _check_depth(dict(data))
        try:
            copied = json.loads(json.dumps(data, allow_nan=False))
        except (ValueError, TypeError, RecursionError) as exc:  # NaN/Infinity or a non-JSON object in it
            raise ReportError(f"not valid JSON: {exc}") from None
        if isinstance(copied, dict):
            copied.setdefault("collectives", [])
        return cls(cast(ReportDocument, copied))  # __post_init__ validates it

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
    def machine(self) -> Machine:
        return self.data["machine"]

    @property
    def nvml(self) -> NvmlSection:
        return self.data["nvml"]

    @property
    def devices(self) -> list[Device]:
        return self.data["devices"]

    @property
    def collectives(self) -> list[Collective]:
        return self.data.get("collectives", [])

    def measurements(
        self,
        kind: str | None = None,
        dtype: str | None = None,
        device: str | None = None,
        ok_only: bool = True,
    ) -> list[tuple[str, Measurement]]:
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
        values = [m["value"] for _, m in self.measurements(kind, dtype, device) if m["value"] is not None]
        return max(values) if values else None

    def device_names(self) -> list[str]:
        return [d["name"] for d in self.devices]

    def busy_devices(self) -> list[tuple[str, str]]:
        """(device id, why) for each device that was busy (other processes, high utilisation) when measured."""
        found = []
        for dev in self.devices:
            activity = dev.get("activity") or {}
            if activity.get("busy") is True:
                found.append((dev["device"], str(activity.get("reason") or "busy")))
        return found

    def summary(self) -> JSONObject:
        """Key figures for lists and history tables (values in B/s and FLOP/s, None when not measured)."""
        return {
            "created_at": self.created_at,
            "mode": self.mode,
            "hostname": self.machine["hostname"],
            "devices": list(self.device_names()),
            "gpu_count": sum(1 for d in self.devices if d["kind"] == "cuda"),
            "memory_bandwidth_bytes_per_s": self.best("memory_bandwidth"),
            "bf16_flops_per_s": self.best("matmul", "bf16"),
            "fp32_flops_per_s": self.best("matmul", "fp32"),
            "h2d_bandwidth_bytes_per_s": self.best("h2d_bandwidth"),
        }

    def to_dict(self) -> ReportDocument:
        copied: ReportDocument = json.loads(json.dumps(self.data))
        return copied

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent, allow_nan=False)


def _refuse_constant(name: str) -> NoReturn:
    raise ReportError(f"not valid JSON: {name} is not a number JSON allows")


# Whole numbers in files the app reads (reports, config.json, safetensors headers; planner/limits.py holds the
# rest of the number policy): at most this many digits, refused while parsing. A 40-digit number still becomes a
# float with room to spare (floats reach 1.8e308), so no arithmetic on it overflows; real files hold at most 31
# (model_max_length = 1e30 in some Hugging Face configs). 309 digits overflowed; 4,000 were read before.
MAX_INTEGER_DIGITS = 40


def json_int(text: str) -> int:
    """json.loads(parse_int=json_int): a whole number of at most MAX_INTEGER_DIGITS digits, else ValueError."""
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError(
            f"a whole number of {len(text.lstrip('-'))} digits (at most {MAX_INTEGER_DIGITS} are read)"
        )
    return int(text)


def parse_report_text(text: str | bytes) -> ProbeReport:
    """Parse and validate JSON text (str or UTF-8 bytes)."""
    size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
    if size > MAX_REPORT_BYTES:
        raise ReportError(f"report is {size} bytes; the limit is {MAX_REPORT_BYTES} bytes (16 MiB)")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ReportError(f"not valid JSON: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data: object = json.loads(text, parse_constant=_refuse_constant, parse_int=json_int)
    except json.JSONDecodeError as exc:
        raise ReportError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ReportError("not valid JSON: nested too deeply") from None
    except ReportError:
        raise
    except ValueError as exc:  # an integer of more than MAX_INTEGER_DIGITS digits
        raise ReportError(f"not valid JSON: {exc}") from None
    if isinstance(data, dict):
        data.setdefault("collectives", [])
    return ProbeReport(cast(ReportDocument, data))  # __post_init__ validates it


def write_report_file(path: str, text: str) -> None:
    """Write next to `path`, then rename: an interrupted write never leaves a half report (or half of the old one)."""
    partial = f"{path}.partial"
    try:
        with open(partial, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def load_report(source: str | bytes | os.PathLike[str]) -> ProbeReport:
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
        # Non-blocking, checked on the open descriptor: a FIFO (no writer) or a device is refused, never
        # waited on or read without end (issue 14 item 4).
        with os.fdopen(
            os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)), "rb"
        ) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ReportError(
                    f"{path}: not a regular file (a folder, FIFO or device); give a report file"
                )
            if info.st_size > MAX_REPORT_BYTES:
                raise ReportError(
                    f"{path}: the file is {info.st_size} bytes; the limit is {MAX_REPORT_BYTES} bytes (16 MiB)"
                )
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
    machine: Machine | Mapping[str, JSONValue],
    nvml: NvmlSection | Mapping[str, JSONValue],
    devices: list[Device] | None = None,
    collectives: list[Collective] | None = None,
    created_at: str | None = None,
) -> ReportDocument:
    """A report document (not yet validated) with the header filled in: version 2 when a device carries gemm
    or attention measurements, else version 1 (what every older reader reads)."""
    listed = list(devices or [])
    shapes = any(m["kind"] in VERSION_2_KINDS for d in listed for m in d.get("measurements", []))
    return {
        "schema": SCHEMA_NAME,
        "version": MODEL_SHAPES_VERSION if shapes else REPORT_VERSION,
        "created_at": created_at or utc_now_iso(),
        "mode": mode,
        "machine": cast(Machine, dict(machine)),
        "nvml": cast(NvmlSection, dict(nvml)),
        "devices": listed,
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
    details: Mapping[str, JSONValue] | None = None,
) -> Measurement:
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
