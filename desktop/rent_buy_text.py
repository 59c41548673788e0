"""The Rent-or-buy page's words: the recommendation above the chart, the table of totals and break-evens under it,
and what spot reclaims cost, each worded (translated) from planner.costs.rent_vs_buy's result and the page's inputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox

from desktop import fmt
from desktop.plan_request import Note, render_note
from desktop.plurals import plurals
from desktop.qmodels.quotes import rate_text
from planner.costs import RentBuyResult, SpotLine


class RentBuyView(Protocol):
    """What these words read of desktop.pages.rent_buy.RentBuyPage (which imports this module, so it is named
    here by what it offers): the result and its spot line, the chosen GPU, the currency, the price sources and
    notes, the reclaim rate in use and the chart's series."""

    @property
    def result(self) -> RentBuyResult | None: ...
    @property
    def spot(self) -> SpotLine | None: ...
    @property
    def gpu_combo(self) -> QComboBox: ...
    @property
    def currency(self) -> str: ...
    @property
    def price_sources(self) -> Mapping[str, str]: ...
    @property
    def notes(self) -> Sequence[Note]: ...

    def rate_in_use(self) -> tuple[float, str]: ...

    def chart_series(self) -> tuple[dict[str, list[float]], dict[str, float | None]]: ...

translate = QCoreApplication.translate  # with the context written at each call, so lupdate finds the texts


def plan_name(key: str) -> str:
    return {
        "on_demand": translate("RentBuyPage", "renting on demand"),
        "spot": translate("RentBuyPage", "renting spot"),
        "reserved": translate("RentBuyPage", "renting reserved"),
        "buy": translate("RentBuyPage", "buying"),
        "hybrid": translate("RentBuyPage", "hybrid (own the base load, rent the bursts)"),
    }[key]


def recommendation(page: RentBuyView) -> str:
    result = page.result
    assert result is not None  # _draw shows the error instead
    inputs = result.inputs
    years = fmt.number(inputs.horizon_months / 12, 1 if inputs.horizon_months % 12 else 0)
    cheapest = result.cheapest
    text = plurals().cheapest_for_gpus(inputs.gpus).format(
        plan_name(cheapest).capitalize(),
        years,
        escape(page.gpu_combo.currentText()),
        fmt.percent(inputs.utilization),
        fmt.number(inputs.hours_per_day, 0),
        fmt.money_obj(result.totals[cheapest]),
    )
    if not inputs.buys:
        return (
            text
            + " "
            + translate("RentBuyPage", "No purchase price is known for {0}: type one to compare buying.").format(
                escape(page.gpu_combo.currentText())
            )
        )
    if result.break_even_gpu_hours is None:
        text += " " + translate(
            "RentBuyPage", "Owning never pays off: renting costs less per hour than running an owned GPU."
        )
    else:
        text += " " + translate("RentBuyPage", "Buying pays off after {0} GPU-hours per GPU").format(
            fmt.integer(round(result.break_even_gpu_hours))
        )
        if result.break_even_months is not None:
            text += " " + translate("RentBuyPage", "(about {0} months at this schedule).").format(
                fmt.number(result.break_even_months, 1)
            )
        else:
            text += "."
    if result.break_even_utilization is None:
        text += " " + translate("RentBuyPage", "Renting wins even at 100% utilisation over this horizon.")
    else:
        text += " " + translate("RentBuyPage", "Owning beats on-demand renting above {0} utilisation.").format(
            fmt.percent(result.break_even_utilization)
        )
    return text


def figures_html(page: RentBuyView) -> str:
    result = page.result
    assert result is not None  # _draw shows the error instead
    series, break_even = page.chart_series()
    rows = []
    for key in ("on_demand", "spot", "reserved", "buy", "hybrid"):
        if key not in result.totals:
            continue
        months = break_even.get(key)
        when = ""
        if key in break_even:
            if months is not None:
                when = translate("RentBuyPage", "buying cheaper after {0} months").format(fmt.number(months, 1))
            elif result.totals["buy"].amount < result.totals[key].amount:
                # The cumulative lines never cross before the horizon: only the resale at the end tips it.
                when = translate("RentBuyPage", "buying cheaper only at the end, counting the resale")
            else:
                when = translate("RentBuyPage", "buying never cheaper")
        source = page.price_sources.get(key, "") if hasattr(page, "price_sources") else ""
        if key == "buy":
            source = page.price_sources.get("purchase", "") if hasattr(page, "price_sources") else ""
        rows.append(
            f"<tr><td>{escape(plan_name(key))}</td><td align='right'>{fmt.money_obj(result.totals[key])}</td>"
            f"<td>{escape(when)}</td><td><small>{escape(source)}</small></td></tr>"
        )
    owned = translate("RentBuyPage", "Owned cost per busy GPU-hour: {0}; running cost (power, maintenance): {1}.").format(
        fmt.money(result.owned_cost_per_gpu_hour, page.currency),
        fmt.money(result.running_cost_per_gpu_hour, page.currency),
    )
    notes = "".join(f"<br><small>{escape(render_note(n))}</small>" for n in dict.fromkeys(page.notes))
    spot = spot_verdict(page)
    spot_html = f"<br>{escape(spot)}" if spot else ""
    names = (
        translate("RentBuyPage", "Plan"),
        translate("RentBuyPage", "Total over the horizon"),
        translate("RentBuyPage", "Break-even"),
        translate("RentBuyPage", "Price from"),
    )
    header = (
        f"<tr><th align='left'>{names[0]}</th><th align='right'>{names[1]}</th>"
        f"<th align='left'>{names[2]}</th><th align='left'>{names[3]}</th></tr>"
    )
    return f"<table cellspacing='6'>{header}{''.join(rows)}</table>{escape(owned)}{spot_html}{notes}"


def spot_verdict(page: RentBuyView) -> str:
    """What reclaims cost the spot line and up to which job size spot pays (planner.costs.spot_line)."""
    spot = page.spot
    if spot is None or page.result is None or "spot" not in page.result.series:
        return ""
    rate, source = page.rate_in_use()
    text = plurals().spot_reclaims_on_nodes(spot.nodes).format(
        rate_text(rate), source, fmt.percent(spot.overhead_fraction, 1)
    )
    comparison = spot.comparison
    if comparison is None:
        return text
    text += " " + translate("RentBuyPage", "That is {0} per useful GPU-hour against {1} on demand;").format(
        fmt.money(comparison.spot_per_useful_gpu_hour, page.currency),
        fmt.money(comparison.on_demand_per_useful_gpu_hour, page.currency),
    )
    nodes = comparison.break_even_nodes
    if nodes is None:
        text += " " + translate("RentBuyPage", "spot pays at every job size.")
    elif nodes == 0:
        text += " " + translate("RentBuyPage", "spot does not pay, not even on one node.")
    else:
        if not comparison.pays:  # this job is above the size at which spot stops paying
            text += " " + translate("RentBuyPage", "spot does not pay for this job;")
        text += " " + plurals().spot_pays_up_to_nodes(nodes).format(spot.gpus_per_node)
    return text


def escape(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
