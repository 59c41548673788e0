"""The shipped error bands: per class of estimate (training / serving, GPU generation, scale), the spread of
true / predicted time that cross-validation on the published runs measured (planner/catalog/error_bands.json,
written by `gpu-advisor validate --write-bands`; tests/planner/test_validation.py checks it matches a fresh
run). Every time, throughput and cost figure of a plan carries the band of its class (planner.uncertainty).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType

from planner.gpus import GpuSpec
from planner.perf.efficiencies import architecture
from planner.uncertainty import ErrorBand
from planner.vocabulary import Confidence

BANDS_FILE = "error_bands.json"
BANDS_SCHEMA = "gpu-advisor.error-bands"


def scale(gpus: int, gpus_per_node: int) -> str:
    if gpus <= 1:
        return "1-gpu"
    return "1-node" if gpus <= gpus_per_node else "multi-node"


def band_keys(task: str, generation: str, gpu_scale: str) -> tuple[str, ...]:
    """Class keys from the finest to the coarsest: task/generation/scale, task/generation, task, all."""
    return (f"{task}/{generation}/{gpu_scale}", f"{task}/{generation}", task, "all")


def option_keys(training: bool, gpu: GpuSpec, gpus: int, gpus_per_node: int) -> tuple[str, ...]:
    return band_keys("training" if training else "serving", architecture(gpu), scale(gpus, gpus_per_node))


@dataclass(frozen=True, slots=True)
class BandTable:
    """Class key -> (low, high, cases): the cross-validated spread of true / predicted time per class, and the
    quantile span each band covers."""

    bands: Mapping[str, tuple[float, float, int]]
    coverage: float = 0.95

    def band(self, keys: Sequence[str], confidence: Confidence = Confidence.CATALOG_SPEC) -> ErrorBand | None:
        """The band of the finest class among `keys` that has one (None: no class has enough cases)."""
        for key in keys:
            found = self.bands.get(key)
            if found is not None:
                low, high, count = found
                return ErrorBand(
                    min(0.0, low), max(0.0, high), count, key, self.coverage, Confidence(confidence)
                )
        return None

    def as_dict(self) -> dict[str, object]:
        return {
            "schema": BANDS_SCHEMA,
            "coverage": self.coverage,
            "bands": {
                key: {"low_fraction": low, "high_fraction": high, "cases": count}
                for key, (low, high, count) in sorted(self.bands.items())
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> BandTable:
        raw = data.get("bands")
        bands: dict[str, tuple[float, float, int]] = {}
        if isinstance(raw, Mapping):
            for key, value in raw.items():
                if isinstance(value, Mapping):
                    bands[str(key)] = (
                        float(value["low_fraction"]),
                        float(value["high_fraction"]),
                        int(value["cases"]),
                    )
        coverage = data.get("coverage")
        return cls(MappingProxyType(bands), float(coverage) if isinstance(coverage, int | float) else 0.95)


@lru_cache(maxsize=1)
def shipped_bands() -> BandTable:
    """The bands shipped in the package (an empty table if the file is missing: no band is shown)."""
    try:
        text = resources.files("planner.catalog").joinpath(BANDS_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return BandTable(MappingProxyType({}))
    return BandTable.from_dict(json.loads(text))
