"""`gpu-advisor quotes add|list|import|export|delete|add-purchase`: the user's rental and purchase quotes.

Reference prices shipped with the app (origin "reference") are listed with the user's own quotes, marked as
such, and hidden by --mine; they can be neither edited nor deleted. --purchase switches list, import, export
and delete from rental quotes to purchase quotes.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import Any, TextIO, TypeAlias, TypeVar

from planner.cli import SUMMARIES, print_json, print_json_list
from planner.cli.store_access import money, open_store, row_id
from planner.errors import UserError
from planner.files import refuse_overwrite
from planner.messages import msg
from planner.store import (
    INTERCONNECTS,
    KINDS,
    PURCHASE_COLUMNS,
    RENTAL_COLUMNS,
    ImportResult,
    PurchaseQuoteRow,
    RentalQuoteRow,
)

SECONDS_PER_HOUR = 3600
WIDTH_SAMPLE_ROWS = 1000  # a streamed listing pads its columns to the widest cell of its first rows
Actions: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
RowT = TypeVar("RowT", RentalQuoteRow, PurchaseQuoteRow)


def register(subparsers: Actions) -> None:
    parser = subparsers.add_parser("quotes", help=SUMMARIES["quotes"])
    actions = parser.add_subparsers(dest="quotes_action", metavar="ACTION", parser_class=type(parser))
    actions.required = True
    _register_add(actions)
    _register_add_purchase(actions)
    _register_list(actions)
    _register_import(actions)
    _register_export(actions)
    _register_delete(actions)


def _register_add(actions: Actions) -> None:
    add = actions.add_parser("add", help="add one rental quote")
    add.add_argument("--provider", required=True, help="cloud or seller, e.g. RunPod")
    add.add_argument("--offer", default="", help="instance or offer name, e.g. p5.48xlarge")
    add.add_argument("--gpu", required=True, help="GPU model: catalog id or name, e.g. h100-sxm")
    add.add_argument(
        "--gpus", "--gpus-per-instance", dest="gpus_per_instance", default="1", help="GPUs per instance (1)"
    )
    add.add_argument(
        "--price", "--price-per-gpu-hour", dest="price_per_gpu_hour", default="", help="price per GPU-hour"
    )
    add.add_argument(
        "--instance-price",
        "--price-per-instance-hour",
        dest="price_per_instance_hour",
        default="",
        help="price per instance-hour (give either price; the other is derived)",
    )
    add.add_argument("--currency", default="USD", help="USD, EUR, RUB or another ISO code (USD)")
    add.add_argument("--kind", default="on-demand", help=f"one of {', '.join(KINDS)} (on-demand)")
    add.add_argument("--region", default="")
    add.add_argument("--interconnect", default="", help=f"one of {', '.join(INTERCONNECTS)}")
    add.add_argument(
        "--min-term-hours", dest="min_term_hours", default="", help="minimum rental term in hours"
    )
    add.add_argument(
        "--interruptions-per-hour", dest="interruptions_per_hour", default="",
        help="spot/preemptible: reclaims per instance-hour (blank: the provider's typical rate is assumed)",
    )  # fmt: skip
    add.add_argument(
        "--quoted-on", dest="quoted_on", default=None, help="date of the quote, YYYY-MM-DD (today)"
    )
    add.add_argument("--valid-until", dest="valid_until", default="", help="YYYY-MM-DD")
    add.add_argument("--source", default="", help="URL or where the quote came from")
    add.add_argument("--note", default="")
    add.add_argument("--json", action="store_true", help="print the stored quote as JSON")
    add.set_defaults(handler=run_add)


def _register_add_purchase(actions: Actions) -> None:
    add = actions.add_parser("add-purchase", help="add one purchase quote")
    add.add_argument("--vendor", required=True)
    add.add_argument("--gpu", required=True, help="GPU model: catalog id or name")
    add.add_argument("--gpus", default="1", help="GPUs in the quote (1)")
    add.add_argument("--price", required=True, help="price of the whole quote")
    add.add_argument("--currency", default="USD")
    add.add_argument("--quoted-on", dest="quoted_on", default=None, help="YYYY-MM-DD (today)")
    add.add_argument(
        "--server-overhead",
        dest="server_overhead_fraction",
        default="",
        help="server, network and rack cost as a fraction of the price (0.3 = +30%%)",
    )
    add.add_argument("--power-w", dest="power_w", default="", help="power per GPU in watts")
    add.add_argument("--source", default="")
    add.add_argument("--note", default="")
    add.add_argument("--json", action="store_true")
    add.set_defaults(handler=run_add_purchase)


def _register_list(actions: Actions) -> None:
    listing = actions.add_parser("list", help="list quotes (reference prices included and marked)")
    listing.add_argument("--gpu", help="only this GPU (catalog id or name)")
    listing.add_argument("--provider", help="only this provider (or vendor, with --purchase)")
    listing.add_argument("--kind", choices=KINDS, help="only this kind of rental")
    listing.add_argument("--mine", action="store_true", help="hide the reference prices shipped with the app")
    listing.add_argument("--purchase", action="store_true", help="purchase quotes instead of rental quotes")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=run_list)


def _register_import(actions: Actions) -> None:
    importing = actions.add_parser(
        "import", help="import a CSV file (all rows or none, unless --skip-invalid)"
    )
    importing.add_argument("file")
    importing.add_argument(
        "--skip-invalid", action="store_true", help="import the good rows, report the bad ones"
    )
    importing.add_argument("--purchase", action="store_true", help="the file holds purchase quotes")
    importing.add_argument("--json", action="store_true")
    importing.set_defaults(handler=run_import)


def _register_export(actions: Actions) -> None:
    exporting = actions.add_parser("export", help="write your quotes to a CSV file (same columns as import)")
    exporting.add_argument("file")
    exporting.add_argument("--all", action="store_true", help="include the reference prices")
    exporting.add_argument("--purchase", action="store_true")
    exporting.add_argument("--force", action="store_true", help="replace FILE if it exists")
    exporting.set_defaults(handler=run_export)


def _register_delete(actions: Actions) -> None:
    deleting = actions.add_parser("delete", help="delete one of your quotes by id")
    deleting.add_argument("id", type=row_id)
    deleting.add_argument("--purchase", action="store_true")
    deleting.add_argument("--json", action="store_true")
    deleting.set_defaults(handler=run_delete)


# ----------------------------------------------------------------------------------------------------------------
# JSON shapes
# ----------------------------------------------------------------------------------------------------------------


def rental_json(row: RentalQuoteRow) -> dict[str, Any]:
    """A rental quote for --json: prices as money, the minimum term in seconds."""
    term_h = row["min_term_hours"]
    return {
        "id": row["id"],
        "origin": row["origin"],
        "provider": row["provider"],
        "offer": row["offer"],
        "gpu": row["gpu"],
        "gpus_per_instance": row["gpus_per_instance"],
        "price_per_gpu_hour": money(row["price_per_gpu_hour"], row["currency"]),
        "price_per_instance_hour": money(row["price_per_instance_hour"], row["currency"]),
        "kind": row["kind"],
        "region": row["region"],
        "interconnect": row["interconnect"],
        "min_term_s": None if term_h is None else term_h * SECONDS_PER_HOUR,
        "interruptions_per_hour": row["interruptions_per_hour"],
        "quoted_on": row["quoted_on"],
        "valid_until": row["valid_until"] or None,
        "source": row["source"],
        "note": row["note"],
        "created_at": row["created_at"],
    }


def purchase_json(row: PurchaseQuoteRow) -> dict[str, Any]:
    return {
        "id": row["id"],
        "origin": row["origin"],
        "vendor": row["vendor"],
        "gpu": row["gpu"],
        "gpus": row["gpus"],
        "price": money(row["price"], row["currency"]),
        "price_per_gpu": money(row["price"] / row["gpus"], row["currency"]),
        "quoted_on": row["quoted_on"],
        "server_overhead_fraction": row["server_overhead_fraction"],
        "power_w": row["power_w"],
        "source": row["source"],
        "note": row["note"],
        "created_at": row["created_at"],
    }


def import_json(result: ImportResult) -> dict[str, Any]:
    return {
        "added": result.added,
        "refused": result.refused,
        "rows": result.total_rows,
        "duplicate_rows": result.duplicate_rows,
        "bad_rows": result.bad_rows,
        # the first rows of each (planner.store.quote_import.REPORTED_ROWS_MAX); the counts above cover them all
        "duplicates": [{"row": row, "reason": reason.text} for row, reason in result.duplicates],
        "errors": [{"row": row, "reason": reason.text} for row, reason in result.errors],
    }


# ----------------------------------------------------------------------------------------------------------------
# Handlers
# ----------------------------------------------------------------------------------------------------------------


def _quote_from_options(args: argparse.Namespace, columns: Sequence[str]) -> dict[str, object]:
    """The quote the options describe (one option per store column; dated today unless --quoted-on)."""
    quote = {name: getattr(args, name) for name in columns}
    quote["quoted_on"] = args.quoted_on or date.today().isoformat()
    return quote


def run_add(args: argparse.Namespace) -> int:
    with open_store() as store:
        quotes = store.rental_quotes
        row = quotes.get(quotes.add(_quote_from_options(args, RENTAL_COLUMNS)))
    if args.json:
        print_json(rental_json(row))
    else:
        print(
            f"added rental quote #{row['id']}: {row['provider']} {row['gpu']} "
            f"{row['price_per_gpu_hour']:.4g} {row['currency']} per GPU-hour ({row['kind']}, {row['quoted_on']})"
        )
    return 0


def run_add_purchase(args: argparse.Namespace) -> int:
    with open_store() as store:
        quotes = store.purchase_quotes
        row = quotes.get(quotes.add(_quote_from_options(args, PURCHASE_COLUMNS)))
    if args.json:
        print_json(purchase_json(row))
    else:
        print(
            f"added purchase quote #{row['id']}: {row['vendor']} {row['gpus']} x {row['gpu']} for "
            f"{row['price']:,.2f} {row['currency']} ({row['quoted_on']})"
        )
    return 0


def run_list(args: argparse.Namespace) -> int:
    """The matching quotes, streamed: a million rows start printing at once in bounded memory."""
    with open_store() as store:
        if args.gpu:
            _, unknown = store.user_gpus.resolver().resolve(args.gpu)
            if unknown:
                raise UserError.of(unknown)
        filters = {"gpu": args.gpu, "mine_only": args.mine}
        if args.purchase:
            purchases = store.purchase_quotes.stream(vendor=args.provider, **filters)
            return _print_quotes(args, purchases, purchase_json, _PURCHASE_TABLE)
        rentals = store.rental_quotes.stream(provider=args.provider, kind=args.kind, **filters)
        return _print_quotes(args, rentals, rental_json, _RENTAL_TABLE)


def _print_quotes(
    args: argparse.Namespace,
    rows: Iterator[RowT],
    shape: Callable[[RowT], dict[str, Any]],
    columns: tuple[tuple[str, Callable[[RowT], str]], ...],
) -> int:
    if args.json:
        print_json_list({"kind": "purchase" if args.purchase else "rental"}, "quotes", map(shape, rows))
        return 0
    first = list(itertools.islice(rows, WIDTH_SAMPLE_ROWS))  # the column widths come from the first rows
    if not first:
        if args.mine and not (args.gpu or args.provider or getattr(args, "kind", None)):
            print("you have no quotes of your own yet: add one with `gpu-advisor quotes add` or import a CSV")
        else:
            print("no quotes match these filters")
        return 0
    headers = [header for header, _ in columns]
    sample = [[cell(row) for _, cell in columns] for row in first]
    widths = [max(len(text) for text in column) for column in zip(headers, *sample, strict=True)]
    print(_padded(headers, widths))
    references = 0
    for row in itertools.chain(first, rows):
        references += row["origin"] == "reference"
        print(_padded([cell(row) for _, cell in columns], widths))
    if references:
        print(
            f"\n{references} reference price(s) marked 'reference': dated public figures shipped with GPU Advisor "
            "(sources in the source column; --json shows them); --mine hides them"
        )
    return 0


def _padded(cells: list[str], widths: list[int]) -> str:
    """One line of a table (store_access.table's layout); a cell wider than its column pushes the rest right."""
    return "  ".join(text.ljust(width) for text, width in zip(cells, widths, strict=True)).rstrip()


def _origin(row: RentalQuoteRow | PurchaseQuoteRow) -> str:
    return "reference" if row["origin"] == "reference" else "mine"


# The text tables of `quotes list`: (header, cell of a row), in column order.
_RENTAL_TABLE: tuple[tuple[str, Callable[[RentalQuoteRow], str]], ...] = (
    ("id", lambda r: str(r["id"])),
    ("origin", _origin),
    ("provider", lambda r: r["provider"]),
    ("offer", lambda r: r["offer"]),
    ("gpu", lambda r: r["gpu"]),
    ("gpus", lambda r: str(r["gpus_per_instance"])),
    ("per GPU-h", lambda r: f"{r['price_per_gpu_hour']:.4g}"),
    ("per instance-h", lambda r: f"{r['price_per_instance_hour']:.4g}"),
    ("currency", lambda r: r["currency"]),
    ("kind", lambda r: r["kind"]),
    ("region", lambda r: r["region"]),
    ("quoted on", lambda r: r["quoted_on"]),
)
_PURCHASE_TABLE: tuple[tuple[str, Callable[[PurchaseQuoteRow], str]], ...] = (
    ("id", lambda r: str(r["id"])),
    ("origin", _origin),
    ("vendor", lambda r: r["vendor"]),
    ("gpu", lambda r: r["gpu"]),
    ("gpus", lambda r: str(r["gpus"])),
    ("price", lambda r: f"{r['price']:,.2f}"),
    ("per GPU", lambda r: f"{r['price'] / r['gpus']:,.2f}"),
    ("currency", lambda r: r["currency"]),
    ("power W/GPU", lambda r: "" if r["power_w"] is None else f"{r['power_w']:g}"),
    ("quoted on", lambda r: r["quoted_on"]),
)


def run_import(args: argparse.Namespace) -> int:
    with open_store() as store:
        quotes = store.purchase_quotes if args.purchase else store.rental_quotes
        result = quotes.import_csv(args.file, skip_invalid=args.skip_invalid)
    for row, reason in result.errors:
        sys.stderr.write(f"row {row}: {reason.text}\n")
    _more_rows(result.bad_rows - len({row for row, _ in result.errors}), sys.stderr)
    if args.json:
        print_json(import_json(result))
    if result.refused:
        good = result.total_rows - result.bad_rows
        raise UserError.of(msg("error.import_refused", file=args.file, bad=result.bad_rows, total=result.total_rows,
                               good=good))  # fmt: skip
    if not args.json:
        for row, reason in result.duplicates:
            print(f"row {row}: not added, {reason.text}")
        _more_rows(result.duplicate_rows - len(result.duplicates), sys.stdout)
        kind = "purchase" if args.purchase else "rental"
        summary = f"imported {result.added} {kind} quote(s) from {args.file}"
        if result.duplicate_rows:
            summary += f"; {result.duplicate_rows} duplicate(s) not added"
        if result.bad_rows:
            summary += f"; {result.bad_rows} bad row(s) skipped (listed on stderr)"
        print(summary)
    return 0


def _more_rows(count: int, stream: TextIO) -> None:
    """The line that stands for the rows an import result does not list (it lists the first ones of each)."""
    if count > 0:
        stream.write(f"... and {count} more row(s) like these, not listed\n")


def run_export(args: argparse.Namespace) -> int:
    refuse_overwrite([Path(args.file).expanduser()], force=args.force)
    with open_store() as store:
        quotes = store.purchase_quotes if args.purchase else store.rental_quotes
        count = quotes.export_csv(args.file, mine_only=not args.all)
    which = "quotes, reference prices included" if args.all else "of your own quotes"
    print(f"wrote {count} {which} to {args.file}")
    return 0


def run_delete(args: argparse.Namespace) -> int:
    with open_store() as store:
        if args.purchase:
            deleted = purchase_json(store.purchase_quotes.delete(args.id))
        else:
            deleted = rental_json(store.rental_quotes.delete(args.id))
    if args.json:
        print_json({"deleted": deleted})
    else:
        print(f"deleted {'purchase' if args.purchase else 'rental'} quote #{args.id}")
    return 0
