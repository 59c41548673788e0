"""How wrong an estimate may be: an error band measured on published runs, carried beside every figure.

The performance model (planner/perf) predicts times; `gpu-advisor validate` compares its predictions with a
shipped set of published measurements (planner/catalog/validation.json) and keeps, per class of estimate
(training or serving, GPU generation, scale), the cross-validated spread of published / predicted. A band is
that spread applied to one figure: "5.8 h (-12% .. +15%, from 23 published runs)".

Convention: `low_fraction` and `high_fraction` are relative deviations of the TRUE value from the estimate
(true = estimate x (1 + fraction)); low_fraction <= 0 <= high_fraction. A time band applies directly to
times, GPU-hours and costs (they scale with time); throughputs scale with 1 / time, so they take
`inverse()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.vocabulary import Confidence


@dataclass(frozen=True, slots=True)
class ErrorBand:
    """A cross-validated relative error band.

    low_fraction, high_fraction: e.g. -0.12 and +0.15 (the true value lies between estimate x 0.88 and x 1.15
      for the central share of published cases given by `coverage`);
    cases: how many published measurements of this class the band rests on;
    basis: the class key the band was measured on (e.g. "training/hopper/multi-node"), for people and JSON;
    coverage: the share of cases the band is meant to contain (0.8 = the 10th to 90th percentile);
    confidence: what the estimate's GPU rates rest on (measured probe, catalog spec, user-set).
    """

    low_fraction: float
    high_fraction: float
    cases: int
    basis: str
    coverage: float = 0.8
    confidence: Confidence = Confidence.CATALOG_SPEC

    def __post_init__(self) -> None:
        if not (-1.0 < self.low_fraction <= 0.0 <= self.high_fraction):
            raise ValueError(
                f"band must satisfy -1 < low <= 0 <= high, got {self.low_fraction}, {self.high_fraction}"
            )

    def bounds(self, estimate: float) -> tuple[float, float]:
        """(low, high) of a figure that scales like time (seconds, GPU-hours, money)."""
        return estimate * (1.0 + self.low_fraction), estimate * (1.0 + self.high_fraction)

    def inverse(self) -> ErrorBand:
        """The band of a figure that scales like 1 / time (tokens per second): time +15% is throughput -13%."""
        return ErrorBand(
            low_fraction=1.0 / (1.0 + self.high_fraction) - 1.0,
            high_fraction=1.0 / (1.0 + self.low_fraction) - 1.0,
            cases=self.cases,
            basis=self.basis,
            coverage=self.coverage,
            confidence=self.confidence,
        )

    def as_dict(self) -> dict[str, float | int | str]:
        """JSON: {"low_fraction": -0.12, "high_fraction": 0.15, "cases": 23, "basis": ..., ...}."""
        return {
            "low_fraction": self.low_fraction,
            "high_fraction": self.high_fraction,
            "cases": self.cases,
            "basis": self.basis,
            "coverage": self.coverage,
            "confidence": self.confidence.value,
        }
