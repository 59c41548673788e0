"""The GPU catalog against the vendor datasheets (typed here by hand), lookups, precision gating, user GPU types."""

from __future__ import annotations

import pytest

from planner.errors import UserError
from planner.gpus import (
    GIB,
    builtin_gpus,
    check_user_gpu,
    get_gpu,
    load_catalog,
    match_nvml_name,
    precision_refusal,
    supports_precision,
)
from tests.fixtures.user_gpus import user_gpu

# The vendors' datasheets (NVIDIA, AMD; each entry's source is in planner/catalog/gpus.json), typed by hand:
# id -> (bandwidth TB/s, bf16/fp16 dense TFLOPS, fp8 or None,
# fp32 TFLOPS, TDP W, NVLink GB/s or 0, compute capability, vendor "GB" on the box).
DATASHEETS = {
    "h100-sxm": (3.35, 989, 1979, 67, 700, 900, (9, 0), 80),
    "h100-pcie": (2.0, 756, 1513, 51, 350, 600, (9, 0), 80),
    "h100-nvl": (3.9, 835, 1670, 60, 400, 600, (9, 0), 94),
    "h200-sxm": (4.8, 989, 1979, 67, 700, 900, (9, 0), 141),
    "a100-sxm-80gb": (2.039, 312, None, 19.5, 400, 600, (8, 0), 80),
    "a100-pcie-80gb": (1.935, 312, None, 19.5, 300, 600, (8, 0), 80),
    "a100-sxm-40gb": (1.555, 312, None, 19.5, 400, 600, (8, 0), 40),
    "l40s": (0.864, 362, 733, 91.6, 350, 0, (8, 9), 48),
    "l4": (0.300, 121, 242, 30.3, 72, 0, (8, 9), 24),
    "a10": (0.600, 125, None, 31.2, 150, 0, (8, 6), 24),
    "v100-sxm2-16gb": (0.900, 125, None, 15.7, 300, 300, (7, 0), 16),
    "v100-sxm2-32gb": (0.900, 125, None, 15.7, 300, 300, (7, 0), 32),
    "rtx-4090": (1.008, 165, 330, 82.6, 450, 0, (8, 9), 24),
    "rtx-3090": (0.936, 71, None, 35.6, 350, None, (8, 6), 24),
    "rtx-6000-ada": (0.960, 364, "any", 91.1, 300, 0, (8, 9), 48),
    "rtx-pro-6000": (1.792, 504, "any", 125, 600, 0, (12, 0), 96),
    "b200": (7.7, 2250, 4500, 75, 1000, 1800, (10, 0), 180),
}


@pytest.mark.parametrize("gpu_id", sorted(DATASHEETS))
def test_catalog_matches_domain_table(gpu_id):
    bandwidth, bf16, fp8, fp32, tdp, nvlink, cc, vendor_gb = DATASHEETS[gpu_id]
    gpu = get_gpu(gpu_id)
    assert gpu.memory_bandwidth_bytes_per_s == pytest.approx(bandwidth * 1e12, rel=0.01)
    if cc >= (8, 0):  # bf16 arrived with Ampere; the table's "BF16/FP16" is fp16 only on Volta
        assert gpu.tflops["bf16"] == pytest.approx(bf16, rel=0.01)
    assert gpu.tflops["fp16"] == pytest.approx(bf16, rel=0.01)
    assert gpu.tflops["fp32"] == pytest.approx(fp32, rel=0.02)
    if fp8 is None:
        assert "fp8" not in gpu.tflops
    elif fp8 != "any":
        assert gpu.tflops["fp8"] == pytest.approx(fp8, rel=0.01)
    assert gpu.tdp_w == tdp
    if nvlink is not None:
        assert gpu.nvlink_bytes_per_s == pytest.approx(nvlink * 1e9, rel=0.01)
    assert gpu.compute_capability == cc
    # Cards expose binary sizes at or a little below the box's "GB" figure read as GiB (ECC and reserved memory).
    assert 0.93 * vendor_gb * GIB <= gpu.memory_bytes <= vendor_gb * GIB


def test_t4_and_mi300x_follow_their_datasheets():
    t4 = get_gpu("t4")
    assert t4.tflops["fp16"] == 65 and t4.tflops["fp32"] == 8.1 and t4.tdp_w == 70
    assert (
        "bf16" not in t4.tflops
    )  # Turing has no bf16 (the T4 datasheet gives 65 TFLOPS for fp16 mixed precision only)
    # ECC on GDDR6 reserves 1/16: 16 GB on the box, 15 GiB usable.
    assert t4.memory_bytes == 15 * GIB
    mi300x = get_gpu("mi300x")
    assert mi300x.vendor == "AMD" and not mi300x.detectable and mi300x.nvml_names == ()
    assert mi300x.memory_bytes == 192 * GIB
    assert mi300x.tflops["bf16"] == pytest.approx(1307, rel=0.01)
    assert mi300x.tflops["fp8"] == pytest.approx(2615, rel=0.01)


def test_every_figure_group_has_a_source_and_a_date():
    for gpu in builtin_gpus():
        for group in ("memory", "bandwidth", "tflops", "tdp", "compute_capability", "interconnect"):
            assert gpu.sources.get(group), (gpu.id, group)
            assert len(gpu.source_dates.get(group, "")) >= 7, (gpu.id, group)
        if gpu.purchase_usd is not None:
            assert gpu.sources.get("purchase_usd") and gpu.source_dates.get("purchase_usd")
        assert gpu.gpus_per_node >= 1 and gpu.pcie_bytes_per_s > 0
        assert all(value > 0 for value in gpu.tflops.values())


def test_catalog_covers_the_required_gpus():
    ids = set(load_catalog())
    required = {"h100-sxm", "h100-pcie", "h100-nvl", "h200-sxm", "a100-sxm-80gb", "a100-sxm-40gb", "a100-pcie-80gb",
                "l40s", "l4", "a10", "t4", "v100-sxm2-16gb", "v100-sxm2-32gb", "rtx-4090", "rtx-3090",
                "rtx-6000-ada", "rtx-pro-6000", "b200", "mi300x"}  # fmt: skip
    assert required <= ids


def test_purchase_prices_from_domain_section_6():
    assert get_gpu("rtx-4090").purchase_usd == 1599
    assert get_gpu("rtx-3090").purchase_usd == 1499
    assert get_gpu("rtx-pro-6000").purchase_usd == 8565
    assert 25_000 <= get_gpu("h100-sxm").purchase_usd <= 30_000
    assert get_gpu("h200-sxm").purchase_usd == 32_000


@pytest.mark.parametrize(
    "text", ["h100-sxm", "H100-SXM", "h100 sxm", "NVIDIA H100 SXM5 80GB", "nvidia h100 80gb hbm3"]
)
def test_get_gpu_accepts_ids_names_and_nvml_names(text):
    assert get_gpu(text).id == "h100-sxm"


def test_unknown_gpu_lists_close_matches():
    with pytest.raises(UserError) as caught:
        get_gpu("rtx 4080")
    message = str(caught.value)
    assert "rtx-4090" in message and "\n" not in message


def test_match_nvml_name():
    assert match_nvml_name("NVIDIA H100 80GB HBM3").id == "h100-sxm"
    assert match_nvml_name("NVIDIA GeForce RTX 4090").id == "rtx-4090"
    assert match_nvml_name("Tesla T4").id == "t4"
    assert match_nvml_name("NVIDIA A100-SXM4-80GB").id == "a100-sxm-80gb"
    assert match_nvml_name("Some Future GPU") is None


def test_precision_gating_follows_compute_capability():
    # fp8 needs compute capability 8.9 (Ada/Hopper), fp4 10.0 (Blackwell): NVIDIA Transformer Engine and
    # Blackwell documentation (planner/gpus.py, MIN_COMPUTE_CAPABILITY).
    assert supports_precision(get_gpu("h100-sxm"), "fp8")
    assert supports_precision(get_gpu("l4"), "fp8")
    assert supports_precision(get_gpu("rtx-4090"), "fp8")
    assert not supports_precision(get_gpu("a100-sxm-80gb"), "fp8")
    assert not supports_precision(get_gpu("rtx-3090"), "fp8")
    assert supports_precision(get_gpu("b200"), "fp4")
    assert not supports_precision(get_gpu("h100-sxm"), "fp4")
    assert not supports_precision(get_gpu("t4"), "bf16")
    assert not supports_precision(get_gpu("v100-sxm2-32gb"), "bf16")
    assert supports_precision(get_gpu("t4"), "fp16") and supports_precision(get_gpu("t4"), "int4")
    assert "8.9" in precision_refusal(get_gpu("a100-sxm-80gb"), "fp8")
    assert precision_refusal(get_gpu("h100-sxm"), "fp8") == ""


def test_user_defined_gpu_types_join_the_catalog():
    mine = user_gpu("my-rtx-5090", "RTX 5090 (mine)", 32 * GIB, 1.792e12, {"bf16": 209.5, "fp32": 104.8},
                    compute_capability=(12, 0), nvml_names=("NVIDIA GeForce RTX 5090",))  # fmt: skip
    assert get_gpu("my-rtx-5090", extra=[mine]) is mine
    assert match_nvml_name("NVIDIA GeForce RTX 5090", extra=[mine]) is mine
    assert "my-rtx-5090" in load_catalog([mine]) and "my-rtx-5090" not in load_catalog()
    assert not supports_precision(mine, "fp8")  # no fp8 figure given
    check_user_gpu(mine)


@pytest.mark.parametrize(("memory", "bandwidth", "tflops", "refusal"), [
    (0, 1e12, {"bf16": 1.0}, "positive memory size"),
    (GIB, float("inf"), {"bf16": 1.0}, "positive memory size"),
    (GIB, float("nan"), {"bf16": 1.0}, "positive memory size"),
    (GIB, 1e12, {"bf17": 1.0}, "unknown dtype"),
    (GIB, 1e12, {}, "at least one TFLOPS"),
    (GIB, 1e12, {"bf16": 0.0}, "at least one TFLOPS"),
    (GIB, 1e12, {"bf16": float("inf")}, "at least one TFLOPS"),
])  # fmt: skip
def test_a_user_gpu_type_a_plan_cannot_divide_by_is_refused(memory, bandwidth, tflops, refusal):
    with pytest.raises(UserError, match=refusal):
        check_user_gpu(user_gpu("bad", "bad", memory, bandwidth, tflops))
