"""`gpu-advisor validate`: the performance model against the shipped published measurements.

Prints every case (inputs, predicted, published, error), the excluded cases with their reasons, the statistics
with the shipped constants and with leave-one-source-out cross-validation, the bands per class and how often a
held-out source's figure falls inside them, and the fitted constants.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from planner.cli import print_json
from planner.files import write_atomically

TARGETS = {"median_abs_error": 0.10, "within_25_percent": 0.90, "max_abs_error": 0.40, "band_coverage": 0.80}
KINDS = ("training_throughput", "training_run", "decode_latency", "serving_throughput", "ttft")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="score the performance model on published runs (with cross-validation)",
        description="Predict every published measurement of the shipped validation set with the performance "
        "model, compare, and cross-validate the fitted constants leaving one source out at a time.",
    )
    parser.add_argument(
        "--by", choices=("group", "org"), default="group",
        help="what cross-validation holds out: a source group (default) or a whole organisation (stricter)",
    )  # fmt: skip
    parser.add_argument(
        "--write-bands", metavar="FILE", default=None,
        help="write the cross-validated error bands as JSON (planner/catalog/error_bands.json ships them)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    from planner.perf import SHIPPED
    from planner.validation import validate
    from planner.validation_cases import included, load_cases
    from planner.validation_predict import PRIOR, fit_constants, predict

    cases = load_cases()
    report = validate(predict, SHIPPED, fit_constants, by=args.by, prior=PRIOR,
                      constant_values=SHIPPED.as_dict())  # fmt: skip
    refit = fit_constants(included(cases), PRIOR).as_dict()
    payload = report_json(report, refit)
    if args.write_bands:
        _write(Path(args.write_bands), report.bands.as_dict())
    if args.json:
        print_json(payload)
    else:
        print_report(payload)
    return 0


def _write(path: Path, data: dict[str, object]) -> None:
    write_atomically(path, json.dumps(data, indent=1) + "\n")


def report_json(report: object, refit: dict[str, float]) -> dict[str, object]:
    """The `--json` shape (README, "gpu-advisor validate")."""
    from planner.validation import ValidationReport

    assert isinstance(report, ValidationReport)
    by_id = {r.case.id: r for r in report.cross_validated}
    cases = []
    for result in report.results:
        case, cv = result.case, by_id.get(result.case.id)
        inputs = case.inputs
        assert inputs is not None
        cases.append({
            "id": case.id, "kind": case.kind, "group": case.group, "org": case.org, "url": case.url,
            "gpu": inputs.gpu.id, "gpus": inputs.gpus, "model": inputs.model.name, "precision": str(inputs.precision),
            "metric": case.published.metric, "published": result.published, "predicted": result.predicted,
            "error": result.error, "cv_predicted": cv.predicted if cv else None, "cv_error": cv.error if cv else None,
            "layout": result.layout, "derived": list(case.derived),
        })  # fmt: skip
    statistics = {}
    for name, cross in (("in_sample", False), ("cross_validated", True)):
        statistics[name] = {"all": report.statistics(cross).as_dict()} | {
            kind: report.statistics(cross, kind).as_dict() for kind in KINDS if report.statistics(cross, kind).cases
        }
    return {
        "cases": cases,
        "excluded": [{"id": case.id, "kind": case.kind, "group": case.group, "reason": case.excluded}
                     for case in report.excluded],  # fmt: skip
        "sources": report.sources,
        "cross_validation": {"holds_out": report.by, "band_coverage": report.band_coverage},
        "statistics": statistics,
        "bands": report.bands.as_dict(),
        "constants": {"shipped": dict(report.constants), "refit": refit},
        "targets": TARGETS,
    }


def _pct(value: object) -> str:
    return f"{value:+.1%}" if isinstance(value, float) else "-"


def print_report(payload: dict[str, object]) -> None:
    cases = payload["cases"]
    assert isinstance(cases, list)
    print(f"{'case':<56} {'GPU':<14} {'n':>5} {'metric':<28} {'published':>11} {'predicted':>11} "
          f"{'error':>7} {'CV err':>7}  layout")  # fmt: skip
    for row in cases:
        print(f"{row['id']:<56.56} {row['gpu']:<14} {row['gpus']:>5} {row['metric']:<28.28} "
              f"{row['published']:>11.4g} {row['predicted']:>11.4g} {_pct(row['error']):>7} "
              f"{_pct(row['cv_error']):>7}  {row['layout']}")  # fmt: skip
    excluded = payload["excluded"]
    assert isinstance(excluded, list)
    print(f"\nexcluded ({len(excluded)}):")
    for row in excluded:
        print(f"  {row['id']}: {row['reason']}")
    statistics = payload["statistics"]
    assert isinstance(statistics, dict)
    print(f"\n{len(cases)} cases from {payload['sources']} source groups")
    for name, label in (("in_sample", "shipped constants"), ("cross_validated", "cross-validated")):
        print(f"{label}:")
        for kind, stats in statistics[name].items():
            print(f"  {kind:<20} {stats['cases']:>3} cases  median |error| {stats['median_abs_error']:.1%}  "
                  f"within 25 % {stats['within_25_percent']:.0%}  max {stats['max_abs_error']:.1%} "
                  f"({stats['worst_case']})")  # fmt: skip
    cv = payload["cross_validation"]
    assert isinstance(cv, dict)
    bands = payload["bands"]
    assert isinstance(bands, dict)
    print(f"\nbands (cross-validated, leave one {cv['holds_out']} out, {bands['coverage']:.0%} quantile span):")
    for key, band in bands["bands"].items():
        print(f"  {key:<28} {band['low_fraction']:+.0%} .. {band['high_fraction']:+.0%}  ({band['cases']} cases)")
    print(f"published figure inside its held-out band: {cv['band_coverage']:.0%} of cases")
    constants = payload["constants"]
    assert isinstance(constants, dict)
    print("\nfitted constants (shipped / refit on all included cases):")
    for name, value in constants["shipped"].items():
        print(f"  {name:<26} {value:<12.4g} {constants['refit'].get(name, float('nan')):.4g}")
    targets = payload["targets"]
    assert isinstance(targets, dict)
    shipped = statistics["in_sample"]["all"]
    print(
        f"\ntargets: median |error| <= {targets['median_abs_error']:.0%} ({shipped['median_abs_error']:.1%}), "
        f">= {targets['within_25_percent']:.0%} within 25 % ({shipped['within_25_percent']:.0%}), none beyond "
        f"{targets['max_abs_error']:.0%} (max {shipped['max_abs_error']:.1%}), bands hold >= "
        f"{targets['band_coverage']:.0%} ({cv['band_coverage']:.0%})"
    )
