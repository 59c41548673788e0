"""Structure of the shipped validation set (planner/catalog/validation.json).

Structural checks only: the figures themselves are published measurements (see planner/catalog/validation.md);
the performance model is scored against them elsewhere. Here: the file ships in the package, every case has the
fields the schema promises, ids are unique, every GPU and model id exists in the catalogs, every case cites a URL
and a dated source, and the set is large and varied enough to cross-validate (>= 50 cases, >= 10 source groups).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from importlib.resources import files
from typing import Any

import pytest

KINDS = {"training_throughput", "training_run", "decode_latency", "serving_throughput", "ttft", "tpot"}
METRICS_BY_KIND = {
    "training_throughput": {"tflops_per_gpu", "mfu", "tokens_per_s_per_gpu", "tokens_per_s", "step_time_s"},
    "training_run": {"gpu_hours", "wall_time_days"},
    "decode_latency": {"output_tokens_per_s_per_user", "tpot_s"},
    "serving_throughput": {"output_tokens_per_s", "output_tokens_per_s_per_gpu"},
    "ttft": {"ttft_s"},
    "tpot": {"tpot_s"},
}
PRECISIONS = {"bf16", "fp16", "fp8", "int8", "int4", "half"}
RECOMPUTE = {"none", "selective", "full"}
SHAPE_FIELDS = {
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "ffn",
    "vocab",
    "gated_mlp",
    "experts",
    "experts_per_token",
    "moe_ffn",
    "head_dim",
    "norm",
    "qk_norm",
    "params_b",
}
# YYYY-MM-DD, or YYYY-MM / YYYY when the source gives no day (source.date_basis then says why)
DATE = re.compile(r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$")
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _catalog(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(files("planner.catalog").joinpath(name).read_text(encoding="utf-8"))
    return loaded


@pytest.fixture(scope="module")
def validation() -> dict[str, Any]:
    return _catalog("validation.json")


@pytest.fixture(scope="module")
def cases(validation: dict[str, Any]) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = validation["cases"]
    return loaded


def test_file_says_what_it_is(validation: dict[str, Any]) -> None:
    about = validation["about"]
    assert about["schema"] == "gpu-advisor.validation-set"
    assert DATE.match(about["compiled_on"]) and len(about["compiled_on"]) == 10
    assert set(about["kinds"]) == KINDS
    assert {"id", "source", "model", "gpu", "layout", "published"} <= set(about["fields"])


def test_enough_cases_from_enough_independent_sources(cases: list[dict[str, Any]]) -> None:
    groups = Counter(case["source"]["group"] for case in cases)
    assert len(cases) >= 50
    assert len(groups) >= 10
    # no single source may dominate leave-one-source-out cross-validation
    assert max(groups.values()) <= len(cases) // 4


def test_every_kind_is_represented(cases: list[dict[str, Any]]) -> None:
    kinds = Counter(case["kind"] for case in cases)
    assert set(kinds) == KINDS
    assert min(kinds.values()) >= 5


def test_ids_are_unique_kebab_case(cases: list[dict[str, Any]]) -> None:
    ids = [case["id"] for case in cases]
    assert len(ids) == len(set(ids))
    assert all(KEBAB.match(case_id) for case_id in ids), [i for i in ids if not KEBAB.match(i)]


def test_sources_have_url_date_and_group(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        source = case["source"]
        assert source["title"] and source["where"] and source["group"] and source["org"], case["id"]
        assert source["url"].startswith("https://"), case["id"]
        assert DATE.match(source["date"]), (case["id"], source["date"])
        if len(source["date"]) < 10:
            assert source.get("date_basis"), f"{case['id']}: a partial date needs date_basis"


def test_gpu_and_model_ids_exist_in_the_catalogs(cases: list[dict[str, Any]]) -> None:
    gpu_ids = {gpu["id"] for gpu in _catalog("gpus.json")["gpus"]}
    preset_ids = {model["id"] for model in _catalog("models.json")["models"]}
    for case in cases:
        assert case["gpu"] in gpu_ids, (case["id"], case["gpu"])
        if case.get("gpu_exact") is False:
            assert case.get("gpu_note"), case["id"]
        model = case["model"]
        assert ("preset" in model) != ("shape" in model), case["id"]
        if "preset" in model:
            assert model["preset"] in preset_ids, (case["id"], model["preset"])
        else:
            assert model["name"] and model["shape_basis"], case["id"]
            assert set(model["shape"]) <= SHAPE_FIELDS, case["id"]
            assert model["shape"]["params_b"] > 0, case["id"]
            if "same_shape_as" in model:
                assert model["same_shape_as"] in preset_ids, case["id"]


def test_published_figure_is_a_positive_number_with_its_quote(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        published = case["published"]
        assert published["metric"] in METRICS_BY_KIND[case["kind"]], (case["id"], published["metric"])
        value = published["value"]
        assert isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0, case["id"]
        if published["metric"] == "mfu":
            assert value < 1, case["id"]
        assert len(published["quote"]) > 20, case["id"]


def test_inputs_are_well_formed(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        assert case["precision"] in PRECISIONS, (case["id"], case["precision"])
        gpus = case.get("gpus")
        assert gpus is None or (isinstance(gpus, int) and gpus >= 1), case["id"]
        layout = case["layout"]
        assert isinstance(layout["stated"], list), case["id"]
        assert set(layout["stated"]) <= set(layout), (case["id"], set(layout["stated"]) - set(layout))
        if "recompute" in layout:
            assert layout["recompute"] in RECOMPUTE, case["id"]
        if "dp" in layout and gpus is not None:
            # model_parallel stands for tp*pp when a source gives only the product
            model_parallel = layout.get("model_parallel", layout.get("tp", 1) * layout.get("pp", 1))
            assert layout["dp"] * model_parallel * layout.get("cp", 1) == gpus, (case["id"], layout, gpus)


def test_each_kind_carries_the_inputs_it_needs(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        kind = case["kind"]
        if kind == "training_throughput":
            assert case.get("gpus"), case["id"]
        elif kind == "training_run":
            assert "tokens" in case["run"] and case["run"]["tokens_quote"], case["id"]
        else:
            serving = case["serving"]
            assert serving["engine"], case["id"]
            if kind in ("serving_throughput", "ttft"):
                assert serving.get("prompt_len"), case["id"]
                assert (
                    serving.get("batch_size") or serving.get("concurrency") or serving.get("request_rate")
                ), case["id"]
