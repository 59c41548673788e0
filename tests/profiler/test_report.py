"""The strict ProbeReport loader: what it accepts, what it refuses and how it says so; the schema file agrees."""

from __future__ import annotations

import copy
import json
from importlib import resources

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiler.report import (
    MAX_REPORT_BYTES,
    ProbeReport,
    ReportError,
    load_report,
    measurement_dict,
    new_report_dict,
)
from tests.profiler.conftest import sample_report_dict


def schema() -> dict:
    return json.loads(resources.files("profiler").joinpath("probe_report.schema.json").read_text("utf-8"))


def test_valid_report_loads_from_path_text_and_bytes(tmp_path, report_dict):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report_dict), encoding="utf-8")
    for source in (path, str(path), json.dumps(report_dict), json.dumps(report_dict).encode()):
        report = load_report(source)
        assert report.version == 1 and report.mode == "quick"
        assert report.machine["hostname"] == "rented-box"
        assert len(report.devices) == 2 and report.collectives[0]["world_size"] == 8


def test_best_picks_highest_ok_value_and_ignores_failures(report_dict):
    report = ProbeReport.from_dict(report_dict)
    # Two bf16 runs in the sample: 7.5e14 and 7.9e14 FLOP/s; the best is the larger.
    assert report.best("matmul", "bf16") == 7.9e14
    assert report.best("matmul", "fp8") is None  # only a failed row
    assert report.best("matmul", device="cpu") == 2.0e12
    assert report.best("matmul") == 7.9e14  # any dtype, any device
    assert report.best("h2d_bandwidth") is None
    summary = report.summary()
    assert summary["gpu_count"] == 1 and summary["memory_bandwidth_bytes_per_s"] == 2.9e12


def test_round_trip_through_json(report_dict):
    report = ProbeReport.from_dict(report_dict)
    again = load_report(report.to_json())
    assert again.data == report.data


def test_missing_collectives_section_is_an_empty_list(report_dict):
    del report_dict["collectives"]
    assert load_report(json.dumps(report_dict)).collectives == []


def refusal(data) -> str:
    with pytest.raises(ReportError) as info:
        load_report(json.dumps(data))
    return str(info.value)


def test_refuses_unknown_version_naming_it(report_dict):
    report_dict["version"] = 3
    message = refusal(report_dict)
    assert message.startswith("version:") and "version 3" in message


def test_model_shape_measurements_make_a_version_2_report(report_dict):
    # gpu-probe --model-shapes adds "gemm" and "attention" rows; a version-1 reader must not meet them, so such
    # a report says version 2, and a version-1 file that carries them is refused naming the row.
    from profiler.report import measurement_dict, new_report_dict

    row = measurement_dict("gemm", dtype="bf16", value=650e12, method="test", details={"m": 8192, "n": 6144, "k": 4096})
    devices = report_dict["devices"]
    devices[0]["measurements"].append(row)
    document = new_report_dict("quick", report_dict["machine"], report_dict["nvml"], devices)
    assert document["version"] == 2
    assert ProbeReport.from_dict(document).best("gemm", "bf16") == 650e12
    document["version"] = 1
    assert "needs report version 2" in refusal(document)
    plain = new_report_dict("quick", report_dict["machine"], report_dict["nvml"], [])
    assert plain["version"] == 1


def test_refuses_a_different_schema(report_dict):
    report_dict["schema"] = "something-else"
    assert refusal(report_dict).startswith("schema:")


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (
            lambda d: d["devices"][0]["measurements"][1].__setitem__("value", "fast"),
            "devices[0].measurements[1].value",
        ),
        (
            lambda d: d["devices"][0]["measurements"][0].__setitem__("unit", "FLOP/s"),
            "devices[0].measurements[0].unit",
        ),
        (
            lambda d: d["devices"][0]["measurements"][0].__setitem__("kind", "latency"),
            "devices[0].measurements[0].kind",
        ),
        (lambda d: d["devices"][1].__setitem__("kind", "tpu"), "devices[1].kind"),
        (lambda d: d["machine"].__setitem__("ram_bytes", 1.5), "machine.ram_bytes"),
        (lambda d: d["machine"].__setitem__("cpu_count", True), "machine.cpu_count"),
        (lambda d: d["nvml"].__setitem__("available", "yes"), "nvml.available"),
        (lambda d: d.__setitem__("created_at", "yesterday"), "created_at"),
        (lambda d: d.__setitem__("mode", "slow"), "mode"),
        (
            lambda d: d["collectives"][0]["results"][0].__setitem__("size_bytes", -1),
            "collectives[0].results[0].size_bytes",
        ),
        (
            lambda d: d["devices"][0]["telemetry"][1].__setitem__("power_w", "hot"),
            "devices[0].telemetry[1].power_w",
        ),
        (
            lambda d: d["devices"][0]["measurements"][3].__setitem__("error", None),
            "devices[0].measurements[3].error",
        ),
        (
            lambda d: d["devices"][0]["measurements"][1].__setitem__("value", None),
            "devices[0].measurements[1].value",
        ),
    ],
)
def test_refuses_wrong_types_naming_the_field_path(report_dict, mutate, path):
    mutate(report_dict)
    assert refusal(report_dict).startswith(path + ":")


@pytest.mark.parametrize(
    "path",
    [
        ("machine",),
        ("created_at",),
        ("devices",),
        ("nvml", "gpus"),
        ("machine", "ram_bytes"),
        ("devices", 0, "measurements", 0, "method"),
        ("devices", 1, "telemetry"),
        ("collectives", 0, "results", 0, "busbw_bytes_per_s"),
    ],
)
def test_refuses_missing_keys_naming_them(report_dict, path):
    holder = report_dict
    for key in path[:-1]:
        holder = holder[key]
    del holder[path[-1]]
    expected = ".".join(str(p) for p in path).replace(".0", "[0]").replace(".1", "[1]")
    message = refusal(report_dict)
    assert message.startswith(expected + ": missing required field"), message


def test_refuses_non_json_and_nan(tmp_path):
    with pytest.raises(ReportError, match="not valid JSON"):
        load_report(b"{this is not json")
    with pytest.raises(ReportError, match="not valid JSON"):
        load_report('{"value": NaN}')
    with pytest.raises(ReportError, match="UTF-8"):
        load_report(b"\xff\xfe{}")
    with pytest.raises(ReportError, match="expected an object"):
        load_report("[1, 2]")


def test_refuses_oversized_file_before_reading_it(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_REPORT_BYTES + 1)  # sparse file: the loader must refuse by size, not parse it
    with pytest.raises(ReportError, match="limit is 16777216 bytes"):
        load_report(big)
    with pytest.raises(ReportError, match="limit"):
        load_report(b"{" + b" " * MAX_REPORT_BYTES + b"}")


def test_missing_file_is_a_report_error(tmp_path):
    with pytest.raises(ReportError, match="cannot read"):
        load_report(tmp_path / "absent.json")


def test_report_error_is_a_value_error():
    assert issubclass(ReportError, ValueError)


def test_builders_make_valid_documents():
    machine = sample_report_dict()["machine"]
    nvml = {
        "available": False,
        "reason": "no NVIDIA GPU: test",
        "driver_version": None,
        "cuda_driver_version": None,
        "gpus": [],
    }
    failed = measurement_dict(
        "matmul", dtype="fp8", ok=False, error="needs compute capability 8.9", method="m"
    )
    ok = measurement_dict("h2d_bandwidth", value=25e9, method="m")
    assert ok["unit"] == "B/s" and failed["unit"] == "FLOP/s"
    device = {
        "device": "cpu",
        "name": "x",
        "uuid": None,
        "kind": "cpu",
        "measurements": [ok, failed],
        "telemetry": [],
    }
    report = ProbeReport.from_dict(new_report_dict("full", machine, nvml, [device]))
    assert report.best("h2d_bandwidth") == 25e9


# ---------------------------------------------------------------------------------------------------------------
# The JSON Schema file says the same thing as the plain-Python loader
# ---------------------------------------------------------------------------------------------------------------


def test_schema_file_is_valid_draft_2020_12_and_accepts_the_sample(report_dict):
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.Draft202012Validator(schema()).validate(report_dict)


def _optional(path: tuple) -> bool:
    """Keys the contract leaves optional: the collectives section, topology, extra inventory fields, readings."""
    if path == ("collectives",) or path[-1] == "topology" or _inventory_extra(path):
        return True
    return len(path) >= 3 and path[-3] == "telemetry" and path[-1] != "t_s"


def _inventory_extra(path: tuple) -> bool:
    """Inventory fields beyond index and name are free-form (they may be {"unavailable": reason})."""
    return len(path) >= 4 and path[:2] == ("nvml", "gpus") and path[3] not in ("index", "name")


def _required_paths(data, prefix=()):
    """Every key path in `data` the contract requires."""
    if isinstance(data, dict):
        for key, value in data.items():
            path = (*prefix, key)
            if not _optional(path):
                yield path
            if key not in ("details", "topology") and not _inventory_extra(path):  # free-form objects
                yield from _required_paths(value, path)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _required_paths(value, (*prefix, i))


REQUIRED_PATHS = list(_required_paths(sample_report_dict()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(REQUIRED_PATHS))
def test_loader_and_schema_both_refuse_any_missing_required_key(path):
    data = copy.deepcopy(sample_report_dict())
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    del holder[path[-1]]
    with pytest.raises(ReportError):
        load_report(json.dumps(data))
    assert not jsonschema.Draft202012Validator(schema()).is_valid(data)


WRONG_VALUES = [None, "text", -1, 1.5, True, [], {}]


@settings(max_examples=60, deadline=None)
@given(path=st.sampled_from(REQUIRED_PATHS), value=st.sampled_from(WRONG_VALUES))
def test_loader_and_schema_agree_on_replaced_values(path, value):
    data = copy.deepcopy(sample_report_dict())
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    schema_ok = jsonschema.Draft202012Validator(schema()).is_valid(data)
    try:
        load_report(json.dumps(data))
        loader_ok = True
    except ReportError:
        loader_ok = False
    assert loader_ok == schema_ok, f"{path} = {value!r}: loader {loader_ok}, schema {schema_ok}"


# ---------------------------------------------------------------------------------------------------------------
# Free text is bounded: a 100,000-character hostname would break every table that shows it
# ---------------------------------------------------------------------------------------------------------------

LONG_TEXT_PATHS = [
    ("machine", "hostname"),
    ("machine", "cpu"),
    ("machine", "torch"),
    ("nvml", "reason"),
    ("nvml", "gpus", 0, "name"),
    ("devices", 0, "name"),
    ("devices", 0, "device"),
    ("devices", 0, "measurements", 0, "method"),
    ("collectives", 0, "backend"),
]


@pytest.mark.parametrize("path", LONG_TEXT_PATHS, ids=lambda path: ".".join(map(str, path)))
def test_loader_and_schema_refuse_a_text_field_of_100000_characters_naming_it(path):
    data = copy.deepcopy(sample_report_dict())
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = "x" * 1000  # the limit itself is fine (a real hostname is at most 253 characters)
    load_report(json.dumps(data))
    assert jsonschema.Draft202012Validator(schema()).is_valid(data)
    holder[path[-1]] = "x" * 100_000
    message = refusal(data)
    named = "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".")
    assert message.startswith(f"{named}: "), message
    assert "1000 characters" in message and len(message) < 200
    assert not jsonschema.Draft202012Validator(schema()).is_valid(data)


def test_loader_and_schema_refuse_a_telemetry_reading_with_a_huge_name():
    data = copy.deepcopy(sample_report_dict())
    data["devices"][0]["telemetry"] = [{"t_s": 0.0, "x" * 100_000: 1.0}]
    assert "devices[0].telemetry[0]" in refusal(data)
    assert not jsonschema.Draft202012Validator(schema()).is_valid(data)


@pytest.mark.parametrize(
    ("key", "shown"),
    [("a\rb", "a\\rb"), ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"), ("k" * 100, "k" * 59 + "…")],
)
def test_a_key_from_the_file_is_named_escaped_in_a_one_line_refusal(report_dict, key, shown):
    """A free-form key (details, telemetry readings) enters the field path of a refusal: its control characters
    are shown escaped, so the message is one line and moves no cursor (make fuzz found "a\\rb" in details)."""
    details = copy.deepcopy(report_dict)
    details["devices"][0]["measurements"][0]["details"] = {key: "\udcff"}  # a lone surrogate: refused
    text = refusal(details)
    assert f"devices[0].measurements[0].details.{shown}: text that is not valid Unicode" in text
    assert text.isprintable()
    telemetry = copy.deepcopy(report_dict)
    telemetry["devices"][0]["telemetry"][0][key] = "fast"  # a reading that is no number
    text = refusal(telemetry)
    assert f"devices[0].telemetry[0].{shown}" in text and text.isprintable()
