"""The --progress line protocol read defensively: each hostile line from the fuzzing issue is refused by name."""

from __future__ import annotations

import json

import pytest

from profiler import protocol
from profiler.report import measurement_dict

GOOD = measurement_dict("matmul", dtype="bf16", value=7.9e14, method="torch.mm bf16")


def line(event: dict) -> bytes:
    return json.dumps(event).encode()


def test_valid_events_come_back_typed():
    start = protocol.parse_line(line({"event": "start", "devices": ["cuda:0"], "mode": "full",
                                      "device_info": [{"device": "cuda:0", "name": "NVIDIA H100 80GB HBM3",
                                                       "kind": "cuda", "mig": {"compute_fraction": 0.5}}]}))  # fmt: skip
    assert start == protocol.Start(
        (protocol.DeviceInfo("cuda:0", "NVIDIA H100 80GB HBM3", "cuda", {"compute_fraction": 0.5}),), "full"
    )
    assert protocol.parse_line(line({"event": "progress", "stage": "x", "fraction": 7})) == protocol.Progress(
        "x", 1.0
    )
    result = protocol.parse_line(line({"event": "result", "device": "cuda:0", "measurement": GOOD}))
    assert isinstance(result, protocol.Result) and result.measurement["value"] == 7.9e14
    assert protocol.parse_line(b"   ") is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (line({"event": "result", "device": "cuda:0", "measurement": {**GOOD, "value": "fast"}}),
         "result event: measurement.value: expected a finite number, got str"),
        (line({"event": "start", "devices": 5}), "start event: devices: expected a list, got int"),
        (b'{"event": "result", "measurement": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
        (b'{"event": "result", "measurement": ' + b"[" * 40 + b"]" * 40 + b"}", "nested more than 32 levels"),
        (b'{"event": "progress", "fraction": NaN}', "NaN is not a number JSON allows"),
        (b'{"event": "progress", "fraction": 1' + b"0" * 4000 + b"}", "a huge integer"),
        (line({"event": "done", "report": {"schema": "gpu-advisor.probe-report", "version": 1}}),
         "done event: created_at: missing required field"),
        (line({"event": "teleport"}), "an unknown event 'teleport'"),
        (b"x" * (protocol.MAX_LINE_BYTES + 1), "the limit is"),
    ],
)  # fmt: skip
def test_hostile_lines_are_refused_naming_the_problem(raw, message):
    with pytest.raises(protocol.ProtocolError, match=None) as refused:
        protocol.parse_line(raw)
    assert message in str(refused.value)
    assert not isinstance(refused.value, protocol.NotAnEvent)


@pytest.mark.parametrize(
    "raw", [b"Loading CUDA kernels...", b"{not json", b"[1, 2]", b'{"no": "event"}', b"\xff\xfe"]
)
def test_text_that_is_not_an_event_is_told_apart_from_a_broken_event(raw):
    with pytest.raises(protocol.NotAnEvent):
        protocol.parse_line(raw)
