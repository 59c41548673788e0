"""The `gpu-probe --progress` line protocol, read defensively: one JSON object per line, validated before use.

The GUI (desktop/workers.py, ProbeProcess) feeds every line the probe child prints through ``parse_line``. The
child is trusted no more than a file: it may print garbage, a library may write to its stdout, and a broken
build could send any JSON at all. So each event is checked here, in plain Python, with bounds on size, depth
and every field's type and range; a line that fails becomes a ProtocolError naming the problem, never a value
that raises later inside a Qt model. The rules for measurements and reports are profiler.report's, the same the
strict report loader applies.

Events (profiler/__main__.py writes them):
    {"event": "start", "devices": ["cuda:0", ...], "device_info": [{"device", "name", ...}], "mode": ...}
    {"event": "progress", "stage": ..., "fraction": 0..1, "device": ...}
    {"event": "result", "device": ..., "measurement": {...}}
    {"event": "done", "report": {...}}
    {"event": "error", "message": ...}
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn, TypeAlias

from profiler.jsontypes import JSONObject, JSONValue, json_depth
from profiler.report import (
    MAX_REPORT_BYTES,
    MAX_TEXT_CHARS,
    Measurement,
    ReportDocument,
    ReportError,
    is_report,
    validate_measurement,
    validate_report_dict,
)

# A "done" line carries the whole report (at most MAX_REPORT_BYTES); any other line is a few hundred bytes.
MAX_LINE_BYTES = MAX_REPORT_BYTES + 64 * 1024
MAX_DEPTH = 32  # a report nests 6 levels; anything deeper is not from gpu-probe
MAX_DEVICES = 4096
MAX_STAGE_CHARS = 300


class ProtocolError(ValueError):
    """A line from the probe child that cannot be used; the message says which event and what was wrong."""


@dataclass(frozen=True)
class DeviceInfo:
    device: str
    name: str
    kind: str | None = None
    mig: JSONObject | None = (
        None  # the MIG slice (profile, compute_fraction, memory_fraction), when it is one
    )


@dataclass(frozen=True)
class Start:
    devices: tuple[DeviceInfo, ...]
    mode: str | None


@dataclass(frozen=True)
class Progress:
    stage: str
    fraction: float  # 0..1


@dataclass(frozen=True)
class Result:
    device: str
    measurement: Measurement


@dataclass(frozen=True)
class Done:
    report: ReportDocument


@dataclass(frozen=True)
class Failure:
    message: str


Event: TypeAlias = Start | Progress | Result | Done | Failure


class NotAnEvent(ProtocolError):
    """Text that is not a JSON event at all (torch or a library printing to stdout): ignored, kept as a sample."""


def _refuse_constant(name: str) -> NoReturn:
    raise ProtocolError(f"{name} is not a number JSON allows")


def parse_line(raw: bytes) -> Event | None:
    """The event on one line (None for a blank line). Raises NotAnEvent for text that is not a JSON object
    with an "event", ProtocolError for an event whose fields are wrong."""
    if len(raw) > MAX_LINE_BYTES:
        raise ProtocolError(f"a line of {len(raw):,} bytes; the limit is {MAX_LINE_BYTES:,}")
    text = raw.decode("utf-8", "replace").strip()
    if not text:
        return None
    if not text.startswith("{"):
        raise NotAnEvent(text[:200])
    try:
        data: object = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ProtocolError("a JSON line nested too deeply") from None
    except ProtocolError:
        raise
    except ValueError:  # not JSON (JSONDecodeError), or an integer too long to convert
        raise NotAnEvent(text[:200]) from None
    if not isinstance(data, dict) or not isinstance(data.get("event"), str):
        raise NotAnEvent(text[:200])
    if json_depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ProtocolError(f"a {data['event'][:40]!r} event nested more than {MAX_DEPTH} levels deep")
    return parse_event(data)


def parse_event(data: JSONObject) -> Event:
    """Validate one decoded event object; ProtocolError names the event and the field."""
    kind = str(data.get("event"))
    parser = _PARSERS.get(kind)
    if parser is None:
        raise ProtocolError(f"an unknown event {kind[:40]!r}")
    try:
        return parser(data)
    except ReportError as exc:
        raise ProtocolError(f"{kind} event: {exc}") from None


def _text(data: JSONObject, key: str, limit: int = MAX_TEXT_CHARS, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ReportError(f"{key}: expected a string, got {type(value).__name__}")
    return value[:limit]


def _parse_start(data: JSONObject) -> Start:
    devices = data.get("devices")
    if not isinstance(devices, list):
        raise ReportError(f"devices: expected a list, got {type(devices).__name__}")
    if len(devices) > MAX_DEVICES:
        raise ReportError(f"devices: {len(devices)} devices; the limit is {MAX_DEVICES}")
    info = data.get("device_info")
    named = _device_info(info) if isinstance(info, list) else {}
    found = []
    for i, entry in enumerate(devices):
        device = entry.get("device") if isinstance(entry, dict) else entry
        if not isinstance(device, str) or not device.strip():
            raise ReportError(
                f"devices[{i}]: expected a device id such as 'cuda:0', got {type(device).__name__}"
            )
        device = device[:MAX_TEXT_CHARS]
        found.append(named.get(device, DeviceInfo(device, "")))
    mode = data.get("mode")
    return Start(tuple(found), mode if isinstance(mode, str) and mode in ("quick", "full") else None)


def _device_info(entries: list[JSONValue]) -> dict[str, DeviceInfo]:
    """device id -> what the probe said about it; entries of the wrong shape are left out (ids still count)."""
    found: dict[str, DeviceInfo] = {}
    for entry in entries[:MAX_DEVICES]:
        if not isinstance(entry, dict) or not isinstance(entry.get("device"), str):
            continue
        device = str(entry["device"])[:MAX_TEXT_CHARS]
        name = entry.get("name")
        kind = entry.get("kind")
        found[device] = DeviceInfo(
            device,
            name[:MAX_TEXT_CHARS] if isinstance(name, str) else "",
            kind if kind in ("cuda", "cpu") and isinstance(kind, str) else None,
            _mig(entry.get("mig")),
        )
    return found


def _mig(value: JSONValue) -> JSONObject | None:
    """A MIG description with its fractions checked to be in 0..1 (anything else is dropped)."""
    if not isinstance(value, dict):
        return None
    checked: JSONObject = {}
    for key in ("compute_fraction", "memory_fraction"):
        fraction = value.get(key)
        if isinstance(fraction, (int, float)) and not isinstance(fraction, bool) and 0 < fraction <= 1:
            checked[key] = float(fraction)
    profile = value.get("profile")
    if isinstance(profile, str):
        checked["profile"] = profile[:100]
    return checked


def _parse_progress(data: JSONObject) -> Progress:
    fraction = data.get("fraction")
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
        raise ReportError(f"fraction: expected a number, got {type(fraction).__name__}")
    try:
        value = float(fraction)
    except OverflowError:  # an integer of hundreds of digits
        raise ReportError("fraction: expected a number between 0 and 1, got a huge integer") from None
    if not math.isfinite(value):
        raise ReportError("fraction: expected a finite number")
    return Progress(_text(data, "stage", MAX_STAGE_CHARS, required=False), min(1.0, max(0.0, value)))


def _parse_result(data: JSONObject) -> Result:
    device = _text(data, "device")
    if not device.strip():
        raise ReportError("device: expected a device id such as 'cuda:0'")
    return Result(device, validate_measurement(data.get("measurement"), "measurement"))


def _parse_done(data: JSONObject) -> Done:
    report = data.get("report")
    if isinstance(report, dict):
        report.setdefault("collectives", [])
    if not is_report(report):
        validate_report_dict(report)  # raises with the field that is wrong
        raise ReportError("report: not a probe report")  # not reached: is_report and the validator agree
    return Done(report)


def _parse_failure(data: JSONObject) -> Failure:
    message = data.get("message")
    return Failure(
        " ".join(str(message)[:MAX_TEXT_CHARS].split()) if message is not None else "unknown error"
    )


_PARSERS: dict[str, Callable[[JSONObject], Event]] = {
    "start": _parse_start,
    "progress": _parse_progress,
    "result": _parse_result,
    "done": _parse_done,
    "error": _parse_failure,
}
