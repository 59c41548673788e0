"""`gpu-advisor rentbuy ...`: rent vs buy over a horizon, with break-even hours, months and utilisation.

Its arguments are planner/cli/rentbuy_args.py's (`rentbuy --help` and a refused argument load only the parser)."""

from __future__ import annotations

import argparse
import math

from planner.cli import print_json
from planner.cli.plan_output import spot_pays_limit
from planner.costs import (
    DEFAULT_ELECTRICITY_PER_KWH,
    DEFAULT_PUE,
    DEFAULT_SPOT_CHECKPOINT_WRITE_S,
    DEFAULT_SPOT_OVERHEAD_FRACTION,
    DEFAULT_SPOT_RESTART_S,
    RentBuyInputs,
    RentBuyResult,
    SpotLine,
    rent_vs_buy,
    spot_line,
)
from planner.errors import UserError
from planner.gpus import GpuSpec, get_gpu
from planner.messages import Message, msg
from planner.money import Money, format_money, normalise_currency
from planner.scale import DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR


def usd_default_in(amount_usd: float, currency: str, what: Message, flag: str) -> float:
    """A built-in USD figure (catalog purchase price, default electricity price) in `currency`.

    Converted at the exchange rate stored in Settings; UserError when that rate was never set: a rate is asked
    for, never assumed.
    """
    if currency == "USD":
        return amount_usd
    from planner.cli.store_access import open_store
    from planner.money import convert

    store = open_store()
    try:
        rates = store.settings.exchange_rates()
    finally:
        store.close()
    if currency not in rates.to_usd:
        raise UserError.of(msg("error.no_rate_for_default", currency=currency, what=what, flag=flag))
    return convert(Money(amount_usd, "USD"), currency, rates).amount


def inputs_and_spot(args: argparse.Namespace) -> tuple[RentBuyInputs, SpotLine | None]:
    """The rent vs buy inputs, and the spot line from the interruption rate when one is given."""
    gpu = get_gpu(args.gpu)
    currency = normalise_currency(args.currency)
    purchase = args.purchase_per_gpu
    if purchase is None:
        if gpu.purchase_usd is None:
            raise UserError.of(msg("error.no_reference_price", gpu=gpu.name))
        purchase = usd_default_in(
            gpu.purchase_usd, currency, msg("quantity.catalog_purchase_price"), "--purchase-per-gpu"
        )
    electricity = args.electricity_per_kwh
    if electricity is None:
        electricity = usd_default_in(
            DEFAULT_ELECTRICITY_PER_KWH,
            currency,
            msg("quantity.default_electricity_price"),
            "--electricity-per-kwh",
        )
    if not math.isfinite(args.years):
        raise UserError.of(msg("error.must_be_finite", what="--years", value=args.years))
    months = round(args.years * 12)
    if args.years <= 0 or months < 1:
        raise UserError.of(msg("error.years_at_least_a_month"))
    spot = spot_line_from_args(args, gpu)
    inputs = RentBuyInputs(
        spot_overhead_fraction=spot.overhead_fraction if spot else DEFAULT_SPOT_OVERHEAD_FRACTION,
        spot_overhead_basis=spot.basis if spot else "",
        gpus=args.gpus,
        purchase_per_gpu=purchase,
        rent_on_demand_per_gpu_hour=args.rent_per_gpu_hour,
        rent_spot_per_gpu_hour=args.spot_per_gpu_hour,
        rent_reserved_per_gpu_hour=args.reserved_per_gpu_hour,
        currency=currency,
        infra_overhead_fraction=args.overhead_fraction,
        power_w_per_gpu=gpu.tdp_w if args.power_w is None else args.power_w,
        pue=DEFAULT_PUE if args.pue is None else args.pue,
        electricity_per_kwh=electricity,
        hours_per_day=args.hours_per_day,
        days_per_week=args.days_per_week,
        utilization=args.utilization,
        horizon_months=months,
        resale_fraction=args.resale_fraction,
        maintenance_fraction_per_year=args.maintenance_fraction,
        hybrid_owned_gpus=args.owned_gpus,
    )
    return inputs, spot


def spot_line_from_args(args: argparse.Namespace, gpu: GpuSpec) -> SpotLine | None:
    """The spot line at the interruption rate given, else (with a spot price) the provider's typical one, the
    Rent or buy page's and `plan --spot`'s default; None with neither. With both prices it says up to which job
    size spot pays (planner.costs.spot_line)."""
    if args.spot_per_gpu_hour is None and args.spot_interruptions_per_node_hour is None:
        return None
    rate = args.spot_interruptions_per_node_hour
    if rate is None:
        rate = DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR
    restart = args.restart_minutes if args.restart_minutes is not None else DEFAULT_SPOT_RESTART_S / 60
    write = args.checkpoint_write_minutes
    write = DEFAULT_SPOT_CHECKPOINT_WRITE_S / 60 if write is None else write
    for value, flag in ((rate, "--spot-interruptions-per-node-hour"), (write,
                        "--checkpoint-write-minutes"), (restart, "--restart-minutes")):  # fmt: skip
        if not (math.isfinite(value) and value >= 0):
            raise UserError.of(msg("error.must_not_be_negative", what=flag))
    if args.gpus < 1:
        raise UserError.of(msg("error.gpus_positive"))
    return spot_line(gpu, args.gpus, rate, write * 60, restart * 60,
                     spot_price=args.spot_per_gpu_hour, on_demand_price=args.rent_per_gpu_hour)  # fmt: skip


def print_result(result: RentBuyResult) -> None:
    currency = result.inputs.currency
    print(f"{'month':>5} " + " ".join(f"{key:>14}" for key in result.series))
    step = max(1, len(result.months) // 12)
    for index in [*range(0, len(result.months), step)][:-1] + [len(result.months) - 1]:
        values = " ".join(
            f"{format_money(Money(result.series[key][index], currency)):>14}" for key in result.series
        )
        print(f"{result.months[index]:>5} {values}")
    hours = result.break_even_gpu_hours
    print(f"\nbreak-even: {f'{hours:,.0f} GPU-hours per GPU' if hours else 'never'}", end="")
    months = result.break_even_months
    print(f", {f'{months:.1f} months' if months else 'not within 20 years'} at this schedule", end="")
    utilization = result.break_even_utilization
    print(
        f", {f'{utilization:.0%} utilisation' if utilization else 'above 100% utilisation'} over the horizon"
    )
    print(result.recommendation)
    for line in result.assumptions:
        print(f"assumption: {line}")


def run_rentbuy(args: argparse.Namespace) -> int:
    inputs, spot = inputs_and_spot(args)
    result = rent_vs_buy(inputs)
    if args.json:
        print_json({**result.as_dict(), "spot": spot.as_dict(inputs.currency) if spot else None})
    else:
        print_result(result)
        if spot is not None and spot.comparison is not None:
            print(spot_verdict(spot, inputs.currency))
    return 0


def spot_verdict(spot: SpotLine, currency: str) -> str:
    """When spot stops paying, in English (the GUI says it in its own words from the same numbers)."""
    comparison = spot.comparison
    assert comparison is not None
    price = format_money(Money(comparison.spot_per_useful_gpu_hour, currency))
    limit = spot_pays_limit(comparison.break_even_nodes, f"nodes of {spot.gpus_per_node} GPUs")
    return (f"spot: {price} per useful GPU-hour on {spot.nodes} node(s); spot pays {limit} "
            "(each reclaimed node stops the whole job)")  # fmt: skip
