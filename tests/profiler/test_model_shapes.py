"""gpu-probe --model-shapes: the shapes file the planner writes, its strict reader, and the measurements a real
(CPU) probe makes at those shapes, which the planner's calibration then uses."""

from __future__ import annotations

import json

import pytest

from planner import perf
from planner.models import get_preset
from profiler import probe
from profiler.model_shapes import ShapesError, load_model_shapes, shapes_from_dict
from profiler.report import ProbeReport
from tests.profiler.conftest import sample_report_dict
from tests.profiler.test_probe import TINY

TINY_SHAPES = {
    "schema": "gpu-advisor.model-shapes", "version": 1, "model": "tiny", "dtypes": ["fp32"],
    "gemms": [[64, 192, 128]],
    "attention": {"batch": 1, "heads": 4, "kv_heads": 2, "seq_len": 64, "head_dim": 32, "causal": True},
    "collective_sizes": [8192],
}  # fmt: skip


def test_the_planner_writes_what_the_probe_reads(tmp_path):
    # Llama 3.1 8B at tp 1, a micro-batch of 2 x 4096 tokens: q/k/v 4096 -> 4096 + 2 x 1024 = 6144 columns, the
    # output 4096, gate + up 2 x 14336, down 14336 -> 4096, the LM head 128256 (config.json figures).
    document = perf.probe_shapes(get_preset("llama-3.1-8b"), 1, 8192, 2, 4096, "bf16")
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    shapes = load_model_shapes(path)
    assert shapes.gemms == ((8192, 6144, 4096), (8192, 4096, 4096), (8192, 28672, 4096), (8192, 4096, 14336),
                            (8192, 128256, 4096))  # fmt: skip
    assert shapes.attention is not None and (shapes.attention.heads, shapes.attention.kv_heads) == (32, 8)
    assert shapes.dtypes == ("bf16",)


@pytest.mark.parametrize(
    ("change", "field"),
    [({"schema": "x"}, "schema"), ({"version": 2}, "version"), ({"dtypes": ["int3"]}, "dtypes"),
     ({"gemms": [[0, 1, 1]]}, "gemms[0]"), ({"attention": {"batch": 1}}, "attention")],
)  # fmt: skip
def test_a_bad_shapes_file_is_refused_naming_the_field(change, field):
    with pytest.raises(ShapesError) as caught:
        shapes_from_dict({**TINY_SHAPES, **change})
    assert str(caught.value).startswith(field)


@pytest.mark.slow
def test_a_cpu_probe_measures_the_model_shapes_into_a_version_2_report():
    report = probe.run_probe("quick", "cpu", settings=TINY, shapes=shapes_from_dict(TINY_SHAPES))
    assert report.version == 2
    gemm = [m for _, m in report.measurements("gemm")]
    attention = [m for _, m in report.measurements("attention")]
    assert len(gemm) == 1 and gemm[0]["details"]["m"] == 64 and len(attention) == 1
    # FLOP/s = 2 m n k over the median time of a call (the rate itself swings with a shared CPU's load, so it is
    # checked against the details it was computed from, not against a second timing)
    details = gemm[0]["details"]
    assert gemm[0]["value"] == pytest.approx(2 * 64 * 192 * 128 / details["median_s"])
    assert attention[0]["details"]["flops_per_call"] == 4 * 1 * 4 * 64**2 * 32 / 2
    assert ProbeReport.from_dict(report.to_dict()).version == 2


def test_calibration_reads_model_shape_rows_of_a_gpu_report():
    from profiler.report import measurement_dict, new_report_dict

    data = sample_report_dict()
    rows = data["devices"][0]["measurements"]
    rows.append(measurement_dict("gemm", dtype="bf16", value=610e12, method="t", details={"m": 8192, "n": 6144, "k": 4096}))
    rows.append(measurement_dict("attention", dtype="bf16", value=380e12, method="t", details={"seq_len": 4096}))
    document = new_report_dict("quick", data["machine"], data["nvml"], data["devices"])
    calibration = perf.calibration_from_report(ProbeReport.from_dict(document))["h100-sxm"]
    assert calibration.gemms[("bf16", 8192, 6144, 4096)] == 610e12
    assert calibration.attention_tflops["bf16"] == 380
