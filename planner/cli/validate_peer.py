"""`python -m planner.cli.validate_peer` (make validate): NVIDIA's AIConfigurator beside our performance model on
every serving case of the validation set (planner/validation_peer.py asks it; this module prints).

A maintainer's comparison, not a `gpu-advisor` command: it needs the optional `peer` extra and takes about 5 s a
case. Prints per case the published figure, our error in-sample and out of sample, AIConfigurator's error (or why
it has none), and both models' statistics over the cases both predict; `--json` prints the same as JSON.
"""

from __future__ import annotations

import argparse
from importlib.metadata import PackageNotFoundError, version

from planner import validation_peer
from planner.cli import print_json
from planner.cli.validate_cmd import signed_percent
from planner.validation import CaseResult, Statistics, ValidationReport
from planner.validation_peer import PACKAGE, peer_results


def peer_json(report: ValidationReport) -> dict[str, object]:
    """AIConfigurator beside ours on every serving case (fitting and test split): its figure or why none, and
    both models' statistics over the cases it predicts. Ours out of sample: cross-validated on the fitting split
    (its group held out of the fit), the shipped constants on the test split (never fitted to); AIConfigurator
    was fitted to none of them."""
    unseen = {r.case.id: r for r in (*report.cross_validated, *report.test)}
    tested = {r.case.id for r in report.test}
    ours = [r for r in (*report.results, *report.test) if r.case.inputs and r.case.inputs.serving]
    peers = peer_results(r.case for r in ours)
    rows, compared = [], []
    for result in ours:
        peer, held_out = peers[result.case.id], unseen.get(result.case.id)
        rows.append({"id": result.case.id, "split": "test" if result.case.id in tested else "fitting",
                     "metric": result.case.published.metric, "published": result.published,
                     "predicted": result.predicted, "error": result.error,
                     "out_of_sample_error": held_out.error if held_out else None, "peer": peer.value,
                     "peer_error": None if peer.value is None else peer.value / result.published - 1.0,
                     "peer_batch": peer.batch, "peer_note": peer.reason})  # fmt: skip
        if peer.value is not None and held_out is not None:
            compared.append((result, held_out, CaseResult(result.case, peer.value)))
    return {
        "tool": PACKAGE, "version": metadata_version(PACKAGE) if validation_peer.installed() else None, "cases": rows,
        "ours": Statistics.of([row[0] for row in compared]).as_dict(),
        "ours_out_of_sample": Statistics.of([row[1] for row in compared]).as_dict(),
        "peer": Statistics.of([row[2] for row in compared]).as_dict(),
    }  # fmt: skip


def metadata_version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def print_peer(peer: dict[str, object]) -> None:
    rows = peer["cases"]
    assert isinstance(rows, list)
    if peer["version"] is None:
        print(f"\npeer: {peer['tool']} is not installed (pip install -e '.[peer]')")
        return
    print(f"\npeer: NVIDIA AIConfigurator {peer['version']} (its measured operator tables) beside ours on the "
          "serving cases; ours in-sample and out of sample (cross-validated, or the test split)")  # fmt: skip
    print(
        f"{'case':<56} {'split':<8} {'published':>11} {'ours':>8} {'ours CV':>8} {'AIC':>8}  AIC batch / why none"
    )
    for row in rows:
        note = row["peer_note"] or f"batch {row['peer_batch']}"
        print(f"{row['id']:<56.56} {row['split']:<8} {row['published']:>11.4g} {signed_percent(row['error']):>8} "
              f"{signed_percent(row['out_of_sample_error']):>8} {signed_percent(row['peer_error']):>8}  {note}")  # fmt: skip
    for label, name in (("ours", "ours in-sample"), ("ours_out_of_sample", "ours out of sample"),
                        ("peer", "AIConfigurator")):  # fmt: skip
        stats = peer[label]
        assert isinstance(stats, dict)
        if stats["cases"]:
            print(f"{name:<19} on the {stats['cases']} cases both predict: median |error| "
                  f"{stats['median_abs_error']:.1%}, {stats['within_25_percent']:.0%} within 25 %, max "
                  f"{stats['max_abs_error']:.1%} ({stats['worst_case']})")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    from planner.perf import SHIPPED
    from planner.validation import validate
    from planner.validation_predict import PRIOR, fit_constants, predict

    parser = argparse.ArgumentParser(prog="python -m planner.cli.validate_peer", description=__doc__)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    report = validate(predict, SHIPPED, fit_constants, prior=PRIOR, constant_values=SHIPPED.as_dict())
    payload = peer_json(report)
    if args.json:
        print_json(payload)
    else:
        print_peer(payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
