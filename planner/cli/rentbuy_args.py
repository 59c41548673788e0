"""`gpu-advisor rentbuy`'s arguments: the parser alone, so that `rentbuy --help` and a refused argument import no
cost model (planner/cli/rentbuy_cmd.py runs once the arguments are parsed). The defaults the help shows are
planner.costs' values written here; tests/planner/test_cli_parser_imports.py checks them against it. Defaults
the run uses (PUE, checkpoint write) are taken from planner.costs itself when an option is not given.
"""

from __future__ import annotations

import argparse

from planner.cli import SUMMARIES

DEFAULT_ELECTRICITY_PER_KWH = 0.12  # planner.costs.DEFAULT_ELECTRICITY_PER_KWH (USD)
DEFAULT_PUE = 1.4  # planner.costs.DEFAULT_PUE


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rentbuy",
        help=SUMMARIES["rentbuy"],
        description="Cumulative cost of renting (on demand, spot, reserved), buying and a hybrid, month by month; "
        "when owning pays off in GPU-hours, months and utilisation.",
    )
    parser.add_argument(
        "--gpu", required=True, help="GPU id from `gpus` (gives the default power and purchase price)"
    )
    parser.add_argument("--gpus", type=int, default=8, help="GPUs needed at peak (default 8)")
    parser.add_argument("--rent-per-gpu-hour", type=float, required=True, help="on-demand rent per GPU-hour")
    parser.add_argument(
        "--purchase-per-gpu",
        type=float,
        default=None,
        help="purchase price per GPU (default: catalog reference)",
    )
    parser.add_argument("--spot-per-gpu-hour", type=float, default=None)
    parser.add_argument(
        "--spot-interruptions-per-node-hour", type=float, default=None,
        help="spot reclaims per instance-hour: the spot line counts the lost work and restarts of a job on all "
        "--gpus (default: AWS Spot Instance Advisor's top band, as the Rent or buy page and plan --spot use)",
    )  # fmt: skip
    parser.add_argument(
        "--checkpoint-write-minutes", type=float, default=None,
        help="with --spot-interruptions-per-node-hour: minutes to write one checkpoint (1)",
    )  # fmt: skip
    parser.add_argument(
        "--restart-minutes", type=float, default=None,
        help="with --spot-interruptions-per-node-hour: minutes per restart (default 15: 10 min NCCL timeout + 5 min)",
    )  # fmt: skip
    parser.add_argument(
        "--reserved-per-gpu-hour",
        type=float,
        default=None,
        help="reserved/committed rent (paid around the clock)",
    )
    parser.add_argument(
        "--overhead-fraction",
        type=float,
        default=0.0,
        help="server/network/infra as a share of the GPU price",
    )
    parser.add_argument(
        "--power-w", type=float, default=None, help="watts per busy GPU (default: the GPU's TDP)"
    )
    parser.add_argument(
        "--electricity-per-kwh",
        type=float,
        default=None,
        help=f"in --currency (default: ${DEFAULT_ELECTRICITY_PER_KWH}/kWh, converted at the stored rate)",
    )
    parser.add_argument(
        "--pue", type=float, default=None, help=f"power usage effectiveness (default {DEFAULT_PUE:g})"
    )
    parser.add_argument("--hours-per-day", type=float, default=24.0)
    parser.add_argument("--days-per-week", type=float, default=7.0)
    parser.add_argument(
        "--utilization", type=float, default=1.0, help="busy share of the scheduled hours, 0-1"
    )
    parser.add_argument("--years", type=float, default=3.0, help="horizon")
    parser.add_argument(
        "--resale-fraction", type=float, default=0.0, help="share of the purchase recovered at the end"
    )
    parser.add_argument(
        "--maintenance-fraction", type=float, default=0.0, help="maintenance per year, share of purchase"
    )
    parser.add_argument(
        "--owned-gpus", type=int, default=None, help="hybrid: GPUs owned for the base load (default half)"
    )
    parser.add_argument(
        "--currency",
        default="USD",
        help="currency of every price given and of the result (USD, EUR, RUB); the catalog's USD purchase price "
        "is converted at the rate stored in Settings",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler="planner.cli.rentbuy_cmd:run_rentbuy")  # imported when it runs
