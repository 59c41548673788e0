"""`gpu-advisor validate`: the performance model against the shipped published measurements.

Prints every case (inputs, predicted, published, error), the excluded cases with their reasons, the statistics
with the shipped constants and with leave-one-source-out cross-validation, the bands per class and how often a
held-out source's figure falls inside them, and the fitted constants.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from planner.cli import SUMMARIES, print_json
from planner.files import refuse_overwrite, write_atomically

TARGETS = {"median_abs_error": 0.10, "within_25_percent": 0.90, "max_abs_error": 0.40, "band_coverage": 0.80}
# issue 27: on runs outside the fitting data
TEST_TARGETS = {"median_abs_error": 0.10, "within_25_percent": 0.80, "band_coverage": 0.80}
KINDS = ("training_throughput", "training_run", "decode_latency", "serving_throughput", "ttft", "tpot")
STAT_HEADER = "n  median  in 25%"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help=SUMMARIES["validate"],
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
    parser.add_argument("--force", action="store_true", help="let --write-bands replace FILE")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_validate)


def run_validate(args: argparse.Namespace) -> int:
    from planner.perf import SHIPPED
    from planner.validation import validate
    from planner.validation_cases import included, load_cases
    from planner.validation_predict import PRIOR, fit_constants, predict
    from planner.validation_split import fitting

    if args.write_bands:
        refuse_overwrite([Path(args.write_bands).expanduser()], force=args.force)
    cases = load_cases()
    report = validate(predict, SHIPPED, fit_constants, by=args.by, prior=PRIOR,
                      constant_values=SHIPPED.as_dict())  # fmt: skip
    refit = fit_constants(fitting(included(cases)), PRIOR).as_dict()
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
    """The `--json` shape (docs/validation.md)."""
    from planner.validation import FIGURES, ValidationReport
    from planner.validation_split import frozen_split

    assert isinstance(report, ValidationReport)
    split = frozen_split()
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
            "layout": result.layout, "derived": list(case.derived), "split": "fitting",
        })  # fmt: skip
    statistics = {}
    for figure in FIGURES:
        chosen = report.statistics(figure=figure)
        statistics[figure] = (
            {"all": chosen.as_dict()}
            | {
                kind: report.statistics(kind=kind, figure=figure).as_dict()
                for kind in KINDS
                if report.statistics(kind=kind, figure=figure).cases
            }
            | {key: stats.as_dict() for key, stats in report.by_class(figure).items()}
        )
    cv_by_id = {r.case.id: r for r in report.cross_validated}
    for result in report.test:
        inputs = result.case.inputs
        assert inputs is not None
        cases.append({
            "id": result.case.id, "kind": result.case.kind, "group": result.case.group, "org": result.case.org,
            "url": result.case.url, "gpu": inputs.gpu.id, "gpus": inputs.gpus, "model": inputs.model.name,
            "precision": str(inputs.precision), "metric": result.case.published.metric,
            "published": result.published, "predicted": result.predicted, "error": result.error,
            "cv_predicted": None, "cv_error": None, "layout": result.layout, "derived": list(result.case.derived),
            "split": "test",
        })  # fmt: skip
    assert not set(cv_by_id) & {r.case.id for r in report.test}
    return {
        "cases": cases,
        "excluded": [
            {"id": case.id, "kind": case.kind, "group": case.group, "reason": case.excluded}
            for case in report.excluded
        ],  # fmt: skip
        "sources": report.sources,
        "cross_validation": {"holds_out": report.by, "band_coverage": report.band_coverage},
        "test_split": {
            "rule": split.rule,
            "frozen_on": split.frozen_on,
            "groups": sorted(split.test_groups),
            "sources": report.test_sources,
            "band_coverage": report.test_band_coverage,
        },
        "statistics": statistics,
        "bands": report.bands.as_dict(),
        "constants": {"shipped": dict(report.constants), "refit": refit},
        "targets": TARGETS,
    }


def signed_percent(value: object) -> str:
    return f"{value:+.1%}" if isinstance(value, float) else "-"


def print_report(payload: dict[str, object]) -> None:
    cases = payload["cases"]
    assert isinstance(cases, list)
    print(f"{'case':<56} {'GPU':<14} {'n':>5} {'metric':<28} {'published':>11} {'predicted':>11} "
          f"{'error':>7} {'CV err':>7}  layout")  # fmt: skip
    for row in cases:
        print(f"{row['id']:<56.56} {row['gpu']:<14} {row['gpus']:>5} {row['metric']:<28.28} "
              f"{row['published']:>11.4g} {row['predicted']:>11.4g} {signed_percent(row['error']):>7} "
              f"{signed_percent(row['cv_error']):>7}  {row['layout']}")  # fmt: skip
    excluded = payload["excluded"]
    assert isinstance(excluded, list)
    print(f"\nexcluded ({len(excluded)}):")
    for row in excluded:
        print(f"  {row['id']}: {row['reason']}")
    statistics = payload["statistics"]
    assert isinstance(statistics, dict)
    test_split = payload["test_split"]
    assert isinstance(test_split, dict)
    fitting = sum(1 for row in cases if row["split"] == "fitting")
    print(f"\n{fitting} fitting cases from {payload['sources']} source groups; {len(cases) - fitting} frozen test "
          f"cases from {test_split['sources']} groups (never fitted; frozen {test_split['frozen_on']})")  # fmt: skip
    print(f"test split rule: {test_split['rule']}")
    print(f"\n{'class':<28} {'in-sample (shipped)':>26} {'cross-validated':>26} {'frozen test':>26}")
    print(f"{'':<28} {STAT_HEADER:>26} {STAT_HEADER:>26} {STAT_HEADER:>26}")
    for key in _class_order(statistics):
        cells = [
            _stat_cell(statistics[figure].get(key)) for figure in ("in_sample", "cross_validated", "test")
        ]
        print(f"{key:<28.28} {cells[0]:>26} {cells[1]:>26} {cells[2]:>26}")
    for figure, label in (
        ("in_sample", "in-sample"),
        ("cross_validated", "cross-validated"),
        ("test", "test"),
    ):
        worst = statistics[figure].get("all")
        if worst and worst["cases"]:
            print(f"worst {label}: {worst['worst_case']} ({worst['max_abs_error']:.1%})")
    cv = payload["cross_validation"]
    assert isinstance(cv, dict)
    bands = payload["bands"]
    assert isinstance(bands, dict)
    print(
        f"\nbands (cross-validated, leave one {cv['holds_out']} out, {bands['coverage']:.0%} quantile span):"
    )
    for key, band in bands["bands"].items():
        print(
            f"  {key:<28} {band['low_fraction']:+.0%} .. {band['high_fraction']:+.0%}  ({band['cases']} cases)"
        )
    print(f"published figure inside its held-out band: {cv['band_coverage']:.0%} of cross-validated cases, "
          f"{_share(test_split['band_coverage'])} of frozen test cases")  # fmt: skip
    constants = payload["constants"]
    assert isinstance(constants, dict)
    print("\nfitted constants (shipped / refit on the fitting split):")
    for name, value in constants["shipped"].items():
        print(f"  {name:<26} {value:<12.4g} {constants['refit'].get(name, float('nan')):.4g}")
    targets = payload["targets"]
    assert isinstance(targets, dict)
    shipped = statistics["in_sample"]["all"]
    test = statistics["test"].get("all") or {}
    if test.get("cases"):
        print(
            f"\nout-of-sample targets (frozen test): median |error| <= {TEST_TARGETS['median_abs_error']:.0%} "
            f"({test['median_abs_error']:.1%}), >= {TEST_TARGETS['within_25_percent']:.0%} within 25 % "
            f"({test['within_25_percent']:.0%}), bands hold >= {TEST_TARGETS['band_coverage']:.0%} "
            f"({_share(test_split['band_coverage'])})"
        )
    print(
        f"\ntargets: median |error| <= {targets['median_abs_error']:.0%} ({shipped['median_abs_error']:.1%}), "
        f">= {targets['within_25_percent']:.0%} within 25 % ({shipped['within_25_percent']:.0%}), none beyond "
        f"{targets['max_abs_error']:.0%} (max {shipped['max_abs_error']:.1%}), bands hold >= "
        f"{targets['band_coverage']:.0%} ({cv['band_coverage']:.0%})"
    )


def _stat_cell(stats: object) -> str:
    if not isinstance(stats, dict) or not stats.get("cases"):
        return "-"
    return f"{stats['cases']:>3} {stats['median_abs_error']:>7.1%} {stats['within_25_percent']:>7.0%}"


def _share(value: object) -> str:
    return f"{value:.0%}" if isinstance(value, float) and value == value else "-"


def _class_order(statistics: dict[str, dict[str, object]]) -> list[str]:
    """'all', the kinds, then the classes (dimension: value), over the three figures."""
    keys: list[str] = []
    for figure in ("in_sample", "cross_validated", "test"):
        for key in statistics[figure]:
            if key not in keys:
                keys.append(key)
    kinds = [key for key in keys if ":" not in key]
    return kinds + sorted(key for key in keys if ":" in key)
