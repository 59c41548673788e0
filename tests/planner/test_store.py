"""The ledger's API: seeding, quotes and their validation, CSV import/export, probe runs, plans, settings."""

from __future__ import annotations

import csv
import dataclasses
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import UserError
from planner.gpus import get_gpu
from planner.store import LATEST_VERSION, RENTAL_COLUMNS, Store
from planner.store import validate_rental_quote as rental_reasons
from planner.store.seed import reference_quote, reference_rows
from tests.fixtures.store_reports import report
from tests.fixtures.user_gpus import user_gpu

GOOD = {
    "provider": "Lambda",
    "offer": "gpu_8x_h100_sxm5",
    "gpu": "h100-sxm",
    "gpus_per_instance": "8",
    "price_per_gpu_hour": "2.99",
    "currency": "USD",
    "kind": "on-demand",
    "quoted_on": "2026-09-10",
}


def texts(reasons) -> list[str]:
    """The English texts of validation reasons (planner.messages.Message)."""
    return [reason.text for reason in reasons]


def row_texts(problems) -> list[tuple[int, str]]:
    """(row, English text) of an import's errors or duplicates."""
    return [(row, reason.text) for row, reason in problems]


def validate_rental_quote(quote) -> list[str]:
    return texts(rental_reasons(quote))


@pytest.fixture
def store():
    with Store.open() as opened:
        yield opened


def rental_csv(path: Path, rows: list[dict], columns=RENTAL_COLUMNS, delimiter: str = ",") -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), delimiter=delimiter, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


# ---------------------------------------------------------------------------------------------------------------
# Opening and seeding
# ---------------------------------------------------------------------------------------------------------------


def test_fresh_database_is_configured(store):
    assert store.schema_version == LATEST_VERSION
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert store.path == Path(__import__("os").environ["GPU_ADVISOR_DB"])
    assert store.recovered_from is None


def test_shipped_reference_prices_are_seeded(store):
    rentals = store.rental_quotes.find()
    assert rentals and all(row["origin"] == "reference" for row in rentals)
    assert all(row["source"] and row["quoted_on"] for row in rentals)
    by_offer = {(row["provider"], row["offer"], row["gpu"]): row for row in rentals}
    # The vendors' own price pages, as each row of planner/catalog/reference_prices.csv cites them: RunPod's pricing
    # page (2026-09 snapshot) H100 SXM $3.49, RTX 3090 $0.22; Amazon EC2 On-Demand pricing, us-east-1, p5.4xlarge $6.88.
    assert by_offer[("RunPod", "lowest 1-GPU on-demand", "h100-sxm")]["price_per_gpu_hour"] == 3.49
    assert by_offer[("RunPod", "lowest 1-GPU on-demand", "rtx-3090")]["price_per_gpu_hour"] == 0.22
    aws = by_offer[("AWS", "p5.4xlarge", "h100-sxm")]
    assert (aws["price_per_instance_hour"], aws["region"], aws["quoted_on"]) == (
        6.88,
        "us-east-1",
        "2026-09-01",
    )
    # Compute Census H100 on-demand median $3.90 with the range $1.30-$12.29.
    census = {
        row["provider"]: row["price_per_gpu_hour"] for row in rentals if "Compute Census" in row["provider"]
    }
    assert sorted(census.values()) == [1.30, 3.90, 12.29]
    purchases = {(row["gpu"], row["price"]) for row in store.purchase_quotes.find()}
    # RTX 4090 $1,599 and RTX 3090 $1,499 launch MSRP; H200 about $32k; H100 $25-30k.
    assert {
        ("rtx-4090", 1599.0),
        ("rtx-3090", 1499.0),
        ("h200-sxm", 32000.0),
        ("h100-sxm", 25000.0),
    } <= purchases
    assert store.rental_quotes.find(mine_only=True) == []


def test_every_shipped_reference_row_passes_validation_with_catalog_gpus():
    for row in reference_rows():
        table, _, reasons = reference_quote(row)
        assert table and reasons == [], (row["key"], reasons)
        get_gpu(row["gpu"])  # the id exists in the catalog as written


def test_reopening_does_not_seed_twice(store):
    count = store.rental_quotes.count()
    with Store.open(store.path) as again:
        assert again.rental_quotes.count() == count


# ---------------------------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------------------------


def test_validation_names_each_problem():
    reasons = validate_rental_quote(
        {
            "provider": "",
            "gpu": "H1OO",
            "price_per_gpu_hour": "0",
            "currency": "dollars",
            "kind": "hourly",
            "quoted_on": "10.09.2026",
            "interconnect": "ethernet",
        }
    )
    assert "provider is required" in reasons
    assert "gpu: unknown GPU 'H1OO' (did you mean h100-sxm?)" in reasons
    assert "price_per_gpu_hour must be > 0" in reasons
    assert any(r.startswith("currency must be one of USD, EUR, RUB") for r in reasons)
    assert any(
        r.startswith("kind must be one of on-demand, spot, reserved-1y, reserved-3y, committed")
        for r in reasons
    )
    assert any(r.startswith("quoted_on must be a date YYYY-MM-DD") for r in reasons)
    assert any(r.startswith("interconnect must be one of nvlink, pcie, infiniband") for r in reasons)


def test_prices_derive_each_other_and_must_agree_within_one_percent(store):
    # Instance price only: 23.92 / 8 GPUs = 2.99 per GPU-hour.
    quote_id = store.rental_quotes.add({**GOOD, "price_per_gpu_hour": "", "price_per_instance_hour": "23.92"})
    assert store.rental_quotes.get(quote_id)["price_per_gpu_hour"] == pytest.approx(2.99)
    # 3.00 x 8 = 24.00; 24.2 is 0.83 % off (accepted), 24.5 is 2.1 % off (refused).
    assert validate_rental_quote({**GOOD, "price_per_gpu_hour": "3", "price_per_instance_hour": "24.2"}) == []
    reasons = validate_rental_quote({**GOOD, "price_per_gpu_hour": "3", "price_per_instance_hour": "24.5"})
    assert len(reasons) == 1 and "within 1%" in reasons[0]
    assert validate_rental_quote({**GOOD, "price_per_gpu_hour": ""}) == [
        "price_per_gpu_hour or price_per_instance_hour is required"
    ]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    per_gpu=st.floats(min_value=0.01, max_value=1000, allow_nan=False),
    gpus=st.integers(min_value=1, max_value=16),
    skew=st.floats(min_value=-0.0099, max_value=0.0099),
)
def test_any_agreeing_price_pair_is_accepted(per_gpu, gpus, skew):
    instance = per_gpu * gpus * (1 + skew)
    quote = {
        **GOOD,
        "gpus_per_instance": gpus,
        "price_per_gpu_hour": per_gpu,
        "price_per_instance_hour": instance,
    }
    assert validate_rental_quote(quote) == []


def test_gpu_names_normalise_to_catalog_ids(store):
    quote_id = store.rental_quotes.add({**GOOD, "gpu": "NVIDIA H100 80GB HBM3"})
    assert store.rental_quotes.get(quote_id)["gpu"] == "h100-sxm"
    assert [row["id"] for row in store.rental_quotes.find(gpu="H100 SXM", mine_only=True)] == [quote_id]


# ---------------------------------------------------------------------------------------------------------------
# Quotes: add, list, update, delete, restore
# ---------------------------------------------------------------------------------------------------------------


def test_filters_and_mine(store):
    a = store.rental_quotes.add(GOOD)
    b = store.rental_quotes.add(
        {
            **GOOD,
            "provider": "Vast.ai",
            "gpu": "rtx-4090",
            "gpus_per_instance": 1,
            "price_per_gpu_hour": "0.29",
            "kind": "spot",
        }
    )
    assert [r["id"] for r in store.rental_quotes.find(mine_only=True)] == [
        a,
        b,
    ]  # h100-sxm sorts before rtx-4090
    assert [r["id"] for r in store.rental_quotes.find(provider="vast.AI")] == [b]
    assert [r["id"] for r in store.rental_quotes.find(kind="spot")] == [b]
    runpod_4090 = store.rental_quotes.find(gpu="rtx-4090", provider="runpod")
    assert [r["origin"] for r in runpod_4090] == ["reference"]
    prices = [r["price_per_gpu_hour"] for r in store.rental_quotes.find(gpu="h100-sxm")]
    assert prices == sorted(prices)


def test_duplicate_quote_is_refused(store):
    quote_id = store.rental_quotes.add(GOOD)
    with pytest.raises(UserError, match=f"already stored as #{quote_id}"):
        store.rental_quotes.add({**GOOD, "provider": "LAMBDA"})  # provider compared without letter case


def test_update_rederives_the_other_price_and_reference_rows_are_read_only(store):
    quote_id = store.rental_quotes.add(GOOD)
    updated = store.rental_quotes.update(quote_id, {"price_per_gpu_hour": 2.5})
    assert updated["price_per_instance_hour"] == pytest.approx(20.0)  # 2.5 x 8
    with pytest.raises(UserError, match="must be > 0"):
        store.rental_quotes.update(quote_id, {"price_per_gpu_hour": -1})
    reference = store.rental_quotes.find(provider="AWS")[0]
    with pytest.raises(UserError, match="reference rows can't be edited"):
        store.rental_quotes.update(reference["id"], {"note": "mine now"})
    with pytest.raises(UserError, match="reference rows can't be deleted"):
        store.rental_quotes.delete(reference["id"])


def test_delete_returns_the_row_and_restore_puts_it_back(store):
    quote_id = store.rental_quotes.add({**GOOD, "note": "call back in May"})
    deleted = store.rental_quotes.delete(quote_id)
    assert deleted["note"] == "call back in May"
    assert store.rental_quotes.find(mine_only=True) == []
    assert store.rental_quotes.restore(deleted) == quote_id
    assert store.rental_quotes.get(quote_id) == deleted
    with pytest.raises(UserError, match="no rental quote #999"):
        store.rental_quotes.delete(999)


def test_prices_and_gpu_counts_have_upper_limits_that_hold_in_any_currency():
    # 1e308 per GPU-hour x 8 GPUs overflows to an instance price of infinity, which JSON cannot carry.
    reasons = validate_rental_quote({**GOOD, "price_per_gpu_hour": "1e308"})
    assert reasons == ["price_per_gpu_hour must be at most 1,000,000, got 1e+308"]
    reasons = validate_rental_quote({**GOOD, "price_per_gpu_hour": "", "price_per_instance_hour": "1e308"})
    assert reasons == ["price_per_instance_hour must be at most 8,000,000 (1,000,000 per GPU), got 1e+308"]
    # 1e23 GPUs reached SQLite as an integer past 2**63 (OverflowError); a cell or a CLI argument alike.
    for count in ("1e23", "99999999999999999999999", 100_001, "0"):
        (reason,) = validate_rental_quote({**GOOD, "gpus_per_instance": count})
        assert reason.startswith("gpus_per_instance must be a whole number between 1 and 100,000, got "), (
            reason
        )
    # Real quotes in a small currency unit pass: an H100 at about 65,000 VND an hour, 64 GPUs in one instance
    # (4,160,000 VND an instance-hour), and 2,000 GPUs bought at about 8e8 VND each (1.6e12 VND in all).
    vnd = {**GOOD, "currency": "VND", "gpus_per_instance": 64, "price_per_gpu_hour": 65_000}
    assert validate_rental_quote({**vnd, "price_per_instance_hour": 4_160_000}) == []
    assert validate_rental_quote({**GOOD, "gpus_per_instance": 100_000}) == []


def test_purchase_price_and_power_have_upper_limits(store):
    quote = {"vendor": "x", "gpu": "h100-sxm", "gpus": 2000, "price": 1.6e12, "currency": "VND",
             "quoted_on": "2026-01-01"}  # fmt: skip
    assert texts(store.purchase_quotes.validate(quote)) == []
    assert texts(store.purchase_quotes.validate({**quote, "gpus": 1, "price": "1e13"})) == [
        "price must be at most 1,000,000,000,000 (1,000,000,000,000 per GPU), got 1e+13"
    ]
    assert texts(store.purchase_quotes.validate({**quote, "power_w": "7000"})) == [
        "power_w must be at most 5,000 W, got 7000"
    ]
    assert texts(store.purchase_quotes.validate({**quote, "gpus": "1e23"})) == [
        "gpus must be a whole number between 1 and 100,000, got 1e23"
    ]


def test_purchase_quotes(store):
    quote_id = store.purchase_quotes.add(
        {
            "vendor": "Reseller",
            "gpu": "h100-sxm",
            "gpus": 8,
            "price": "240000",
            "currency": "usd",
            "quoted_on": "2026-09-10",
            "server_overhead_fraction": "0.25",
            "power_w": "700",
        }
    )
    mine = store.purchase_quotes.find(mine_only=True)
    assert [(r["id"], r["price"], r["currency"], r["server_overhead_fraction"]) for r in mine] == [
        (quote_id, 240000.0, "USD", 0.25)
    ]
    assert texts(
        store.purchase_quotes.validate(
            {"vendor": "x", "gpu": "h100-sxm", "price": "0", "currency": "USD", "quoted_on": "2026-01-01"}
        )
    ) == ["price must be > 0"]
    assert store.purchase_quotes.delete(quote_id)["vendor"] == "Reseller"


def test_hostile_text_is_stored_as_text(store):
    hostile = "'); DROP TABLE rental_quotes;--"
    quote_id = store.rental_quotes.add({**GOOD, "offer": hostile, "note": '=HYPERLINK("http://evil","x")'})
    row = store.rental_quotes.get(quote_id)
    assert row["offer"] == hostile and row["note"] == '=HYPERLINK("http://evil","x")'
    assert store.rental_quotes.count() > 1  # the table is still there


# ---------------------------------------------------------------------------------------------------------------
# CSV import and export
# ---------------------------------------------------------------------------------------------------------------


def ten_rows_two_bad() -> list[dict]:
    rows = [{**GOOD, "offer": f"offer-{i}", "price_per_gpu_hour": f"{2 + i / 10:.2f}"} for i in range(10)]
    rows[2]["price_per_gpu_hour"] = "-1"  # spreadsheet row 4 (header is row 1)
    rows[6]["quoted_on"] = "yesterday"  # spreadsheet row 8
    return rows


def test_two_bad_rows_of_ten_refuse_the_file_by_default(store, tmp_path):
    path = rental_csv(tmp_path / "q.csv", ten_rows_two_bad())
    result = store.rental_quotes.import_csv(path)
    assert result.refused and result.added == 0
    assert row_texts(result.errors) == [
        (4, "price_per_gpu_hour must be > 0"),
        (8, "quoted_on must be a date YYYY-MM-DD, got 'yesterday'"),
    ]
    assert store.rental_quotes.find(mine_only=True) == []


def test_skip_invalid_imports_the_eight_good_rows(store, tmp_path):
    path = rental_csv(tmp_path / "q.csv", ten_rows_two_bad())
    stages = []
    result = store.rental_quotes.import_csv(
        path, skip_invalid=True, progress=lambda stage, done, total: stages.append(stage)
    )
    assert (result.added, result.refused, result.bad_rows) == (8, False, 2)
    assert len(store.rental_quotes.find(mine_only=True)) == 8
    assert stages[0] == "checking" and stages[-1] == "writing"


def test_duplicates_are_reported_not_doubled(store, tmp_path):
    existing = store.rental_quotes.add(GOOD)
    rows = [GOOD, {**GOOD, "offer": "other"}, {**GOOD, "offer": "OTHER"}]
    result = store.rental_quotes.import_csv(rental_csv(tmp_path / "q.csv", rows))
    assert result.added == 1
    assert row_texts(result.duplicates) == [
        (2, f"duplicate of rental quote #{existing}"),
        (4, "duplicate of row 3"),
    ]
    again = store.rental_quotes.import_csv(rental_csv(tmp_path / "q.csv", rows))
    assert again.added == 0 and len(again.duplicates) == 3


def test_export_import_round_trip(store, tmp_path):
    store.rental_quotes.add(
        {
            **GOOD,
            "region": "us-west-1",
            "interconnect": "NVLink",
            "min_term_hours": "720",
            "valid_until": "2026-10-10",
            "source": "https://lambda.ai/pricing",
            "note": "Привет, мир",
        }
    )
    store.rental_quotes.add(
        {
            **GOOD,
            "gpu": "l40s",
            "gpus_per_instance": 1,
            "price_per_gpu_hour": "0.8",
            "currency": "EUR",
            "kind": "reserved-1y",
            "note": "=1+2",
            "offer": "-5% promo",
        }
    )
    path = tmp_path / "mine.csv"
    assert store.rental_quotes.export_csv(path) == 2
    with Store.open(tmp_path / "other.sqlite") as other:
        result = other.rental_quotes.import_csv(path)
        assert (result.added, result.errors, result.duplicates) == (2, [], [])
        strip = lambda rows: [{k: v for k, v in r.items() if k not in ("id", "created_at")} for r in rows]  # noqa: E731
        assert strip(other.rental_quotes.find(mine_only=True)) == strip(
            store.rental_quotes.find(mine_only=True)
        )
    assert store.rental_quotes.import_csv(path).added == 0  # importing its own export adds nothing


def test_export_guards_formula_cells(store, tmp_path):
    store.rental_quotes.add({**GOOD, "note": '=HYPERLINK("http://evil")', "offer": "@SUM(A1)"})
    path = tmp_path / "mine.csv"
    store.rental_quotes.export_csv(path)
    row = next(csv.DictReader(open(path, encoding="utf-8-sig")))
    assert row["note"] == '\'=HYPERLINK("http://evil")'
    assert row["offer"] == "'@SUM(A1)"
    assert row["price_per_gpu_hour"] == "2.99"  # numbers are not prefixed


def test_export_all_includes_reference_rows(store, tmp_path):
    assert (
        store.rental_quotes.export_csv(tmp_path / "all.csv", mine_only=False) == store.rental_quotes.count()
    )
    assert store.rental_quotes.export_csv(tmp_path / "mine.csv") == 0


def test_semicolon_csv_with_decimal_commas_and_bom(store, tmp_path):
    path = tmp_path / "excel.csv"
    rental_csv(path, [{**GOOD, "price_per_gpu_hour": "2,99"}], delimiter=";")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    result = store.rental_quotes.import_csv(path)
    assert result.added == 1
    assert store.rental_quotes.find(mine_only=True)[0]["price_per_gpu_hour"] == 2.99


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"   \n\n", "is empty"),
        (b"provider,gpu,price_per_gpu_hour,currency,quoted_on\n", "has a header but no rental quotes"),
        (
            b"provider,gpu,prise,currency\nx,h100-sxm,1,USD\n",
            "missing columns: quoted_on; unknown columns: 'prise'",
        ),
        (
            b"provider,gpu,currency,quoted_on\nx,h100-sxm,USD,2026-01-01\n",
            "missing columns: price_per_gpu_hour or price_per_instance_hour",
        ),
        (
            "provider,gpu,price_per_gpu_hour,currency,quoted_on\nСелектел,h100-sxm,1,USD,2026-01-01\n".encode(
                "cp1251"
            ),
            "is not UTF-8 text (byte 0xd1 on line 2)",
        ),
    ],
)
def test_file_level_problems_have_clear_messages(store, tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(UserError, match=__import__("re").escape(message)):
        store.rental_quotes.import_csv(path)


def test_a_header_with_thousands_of_unknown_and_repeated_columns_gives_one_short_line(store, tmp_path):
    path = tmp_path / "wide.csv"
    columns = ["provider", "gpu", "currency", "quoted_on", "price_per_gpu_hour"]
    columns += [f"c{i}" for i in range(200_000)] + ["x", "x", "y", "y"]
    path.write_text(",".join(columns) + "\n")
    with pytest.raises(UserError) as refused:
        store.rental_quotes.import_csv(path)  # with header.count() per column this took minutes
    message = str(refused.value)
    # 200,002 unknown columns: the first ten are named, then how many more.
    assert (
        "unknown columns: 'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9' and 199,992 more"
        in message
    )
    assert "repeated columns: x, y" in message
    assert "\n" not in message and len(message) < 1000


def test_row_with_too_many_cells_is_reported(store, tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("provider,gpu,price_per_gpu_hour,currency,quoted_on\nx,h100-sxm,1,USD,2026-01-01,extra\n")
    result = store.rental_quotes.import_csv(path)
    assert result.refused and row_texts(result.errors) == [(2, "6 cells but the header has 5 columns")]


def test_ten_thousand_rows_import(store, tmp_path):
    rows = [{**GOOD, "offer": f"node-{i}"} for i in range(10_000)]
    result = store.rental_quotes.import_csv(rental_csv(tmp_path / "big.csv", rows))
    assert result.added == 10_000 and store.rental_quotes.count(mine_only=True) == 10_000


def test_templates_import_cleanly(store):
    from importlib.resources import files

    assets = files("gpu_advisor_assets") if _has_assets_package() else Path(__file__).parents[2] / "assets"
    rental = Path(str(assets.joinpath("quotes_template.csv")))
    purchase = Path(str(assets.joinpath("purchase_quotes_template.csv")))
    assert rental.read_text(encoding="utf-8").splitlines()[0].split(",") == list(RENTAL_COLUMNS)
    assert store.rental_quotes.import_csv(rental).added == 1
    assert store.purchase_quotes.import_csv(purchase).added == 1


def _has_assets_package() -> bool:
    import importlib.util

    return importlib.util.find_spec("gpu_advisor_assets") is not None


# ---------------------------------------------------------------------------------------------------------------
# Probe runs, plans, settings, user GPUs
# ---------------------------------------------------------------------------------------------------------------


def test_probe_runs_keep_report_and_key_figures(store):
    local = store.probe_runs.save(
        report(hostname="rig-1", bf16_flop_per_s=7.1e14, bandwidth_bytes_per_s=2.9e12)
    )
    remote = store.probe_runs.save(
        report(hostname="rented-box", created_at="2026-09-15T08:00:00Z", bf16_flop_per_s=7.9e14),
        source="imported",
    )
    runs = {run.id: run for run in store.probe_runs.all()}
    assert [run.id for run in store.probe_runs.all()] == [remote, local]  # newest first
    assert runs[local].machine == "this machine" and runs[local].source == "local"
    assert runs[remote].machine == "rented-box (imported)" and runs[remote].source == "imported"
    # The best ok bf16 value: 7.1e14 beats the 3.55e14 shape; the failed fp8 row is ignored.
    assert runs[local].best_bf16_flop_per_s == 7.1e14
    assert runs[local].memory_bandwidth_bytes_per_s == 2.9e12
    assert runs[local].devices == ("NVIDIA H100 80GB HBM3",)
    assert store.probe_runs.report(local).data == report(hostname="rig-1").data
    kinds = [(m.kind, m.dtype, m.ok) for m in store.probe_runs.measurements(local)]
    assert kinds == [
        ("matmul", "bf16", True),
        ("matmul", "bf16", True),
        ("matmul", "fp8", False),
        ("memory_bandwidth", None, True),
    ]
    seen = store.probe_runs.gpus_seen()
    assert {(g.name, g.catalog_id, g.memory_total_bytes) for g in seen} == {
        ("NVIDIA H100 80GB HBM3", "h100-sxm", 85899345920)
    }
    assert len(seen) == 2  # one GPU on each machine
    with pytest.raises(UserError, match=f"already stored as run #{local}"):
        store.probe_runs.save(report(hostname="rig-1"))
    store.probe_runs.delete(local)
    assert [run.id for run in store.probe_runs.all()] == [remote]


def test_a_stored_report_calibrates_exactly_like_the_report_that_was_saved(store):
    """The report is kept as its canonical JSON and read back through profiler.report's loader: the planner's
    calibration from the stored run equals the one from the object that was saved (7.1e14 FLOP/s = 710
    TFLOPS bf16, 2.9e12 B/s), newest run first."""
    from planner.perf import calibration_from_report

    older = report(hostname="rig-1", created_at="2026-09-01T08:00:00Z", bf16_flop_per_s=6.0e14)
    newer = report(hostname="rig-2", created_at="2026-09-02T08:00:00Z")
    store.probe_runs.save(older)
    newest_id = store.probe_runs.save(newer)
    assert [r.data for r in store.probe_runs.recent_reports(5)] == [newer.data, older.data]
    assert store.probe_runs.recent_reports(1)[0].data == newer.data
    stored = store.probe_runs.report(newest_id)
    assert calibration_from_report(stored) == calibration_from_report(newer)
    calibration = calibration_from_report(stored)["h100-sxm"]
    assert calibration.tflops["bf16"] == pytest.approx(710.0)
    assert calibration.memory_bandwidth_bytes_per_s == 2.9e12
    assert store.probe_runs.get(newest_id).machine == "this machine"
    with pytest.raises(UserError, match="no probe run #999"):
        store.probe_runs.report(999)


def test_gpus_seen_know_the_users_own_gpu_types(store):
    """A GPU the catalog lacks is matched to the user's GPU type by its NVML name (planner.gpus.match_nvml_name,
    the one place names are matched), as the Hardware page and the planner match it."""
    mine = user_gpu("my-rtx-5090", "GeForce RTX 5090", 32 * 10**9, 1.792e12, {"bf16": 209.5},
                    nvml_names=["NVIDIA GeForce RTX 5090"])  # fmt: skip
    store.user_gpus.add(mine)
    store.probe_runs.save(report(hostname="desk", gpu_name="NVIDIA GeForce RTX 5090"))
    store.probe_runs.save(report(hostname="lab", gpu_name="NVIDIA H100 80GB HBM3"))
    assert sorted((g.name, g.catalog_id) for g in store.probe_runs.gpus_seen()) == [
        ("NVIDIA GeForce RTX 5090", "my-rtx-5090"),
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
    ]
    # both runs are local: one machine, "this machine", with the host name of its latest run
    assert [(m.name, m.hostname, m.kind) for m in store.probe_runs.machines()] == [
        ("this machine", "lab", "local")
    ]


def test_quote_rows_carry_every_column_under_its_own_name():
    """The row builders unpack cursor tuples by position: each column must land under its own name."""
    from planner.store.rows import (
        PURCHASE_ROW_COLUMNS,
        RENTAL_ROW_COLUMNS,
        PurchaseQuoteRow,
        RentalQuoteRow,
        purchase_rows,
        rental_rows,
    )

    for columns, row_type, build in (
        (RENTAL_ROW_COLUMNS, RentalQuoteRow, rental_rows),
        (PURCHASE_ROW_COLUMNS, PurchaseQuoteRow, purchase_rows),
    ):
        assert tuple(row_type.__annotations__) == columns
        (row,) = build([tuple(f"value of {name}" for name in columns)])
        assert row == {name: f"value of {name}" for name in columns}


def test_reopening_brings_shipped_citations_up_to_date_and_leaves_user_rows_alone(store):
    """A reference row that an older version stored with another citation gets the shipped file's source and
    note on the next open (planner/store/seed.py); its price, and every user row, stay as they were."""
    shipped = {row["key"]: row for row in reference_rows()}
    key = "runpod-2026-09-h100-sxm"
    mine = store.rental_quotes.add({**GOOD, "source": "my notes", "note": "my own"})
    store.conn.execute(
        "UPDATE rental_quotes SET source = 'an old citation', note = '' WHERE seed_key = ?", [key]
    )
    with Store.open(store.path) as again:
        (row,) = [r for r in again.rental_quotes.find() if r["origin"] == "reference" and
                  (r["provider"], r["gpu"], r["price_per_gpu_hour"]) == ("RunPod", "h100-sxm", 3.49)]  # fmt: skip
        assert (row["source"], row["note"]) == (shipped[key]["source"], shipped[key]["note"])
        assert (again.rental_quotes.get(mine)["source"], again.rental_quotes.get(mine)["note"]) == (
            "my notes",
            "my own",
        )


def test_plans(store):
    plan_id = store.plans.save("70B on H100", {"model": "llama-3.1-70b", "gpus": (8,)}, {"options": []})
    assert store.plans.get(plan_id)["inputs"] == {"model": "llama-3.1-70b", "gpus": [8]}
    store.plans.rename(plan_id, "70B fine-tune")
    store.plans.update(plan_id, {"model": "llama-3.1-70b"}, {"options": [1]})
    assert [(p["id"], p["name"]) for p in store.plans.all()] == [(plan_id, "70B fine-tune")]
    assert store.plans.get(plan_id)["results"] == {"options": [1]}
    store.plans.delete(plan_id)
    with pytest.raises(UserError, match="no saved plan"):
        store.plans.get(plan_id)


def test_settings_and_exchange_rates(store):
    assert store.settings.get("display_currency", "USD") == "USD"
    store.settings.set("display_currency", "RUB")
    store.settings.set("electricity", {"price_per_kwh": 7.5, "currency": "RUB"})
    assert store.settings.get("display_currency") == "RUB"
    assert store.settings.get("electricity") == {"price_per_kwh": 7.5, "currency": "RUB"}
    store.settings.set_exchange_rate("eur", 1.08, "2026-09-01")
    store.settings.set_exchange_rate("RUB", 0.011, "2026-08-15")
    rates = store.settings.exchange_rates()
    assert dict(rates.to_usd) == {"USD": 1.0, "EUR": 1.08, "RUB": 0.011}
    assert rates.as_of == "2026-08-15"  # the oldest rate's date
    with pytest.raises(UserError, match="must be a number > 0"):
        store.settings.set_exchange_rate("EUR", 0, "2026-09-01")


def test_user_gpu_types(store):
    mine = user_gpu(
        "my-rtx-5090",
        "GeForce RTX 5090",
        32 * 10**9,
        1.792e12,
        {"bf16": 209.5},
        nvml_names=["NVIDIA GeForce RTX 5090"],
        source="my notes",
        source_date="2026-05-01",
    )
    assert store.user_gpus.add(mine) == "my-rtx-5090"
    assert store.user_gpus.all() == [mine]
    quote_id = store.rental_quotes.add({**GOOD, "gpu": "my-rtx-5090", "gpus_per_instance": 1})
    assert store.rental_quotes.get(quote_id)["gpu"] == "my-rtx-5090"
    with pytest.raises(UserError, match="already have"):
        store.user_gpus.add(mine)
    with pytest.raises(UserError, match="already in the GPU catalog"):
        store.user_gpus.add(user_gpu("h100-sxm", "clash", 1, 1.0, {"bf16": 1.0}))
    # a type a plan would divide by zero with is refused before it is kept, as fields or as a GpuSpec
    with pytest.raises(UserError, match="positive memory size"):
        fields = {f.name: getattr(mine, f.name) for f in dataclasses.fields(mine)}
        store.user_gpus.add({**fields, "id": "zero", "memory_bytes": 0})
    with pytest.raises(UserError, match="at least one TFLOPS"):
        store.user_gpus.add(user_gpu("no-tflops", "none", 32 * 10**9, 1e12, {}))
    assert [g.id for g in store.user_gpus.all()] == ["my-rtx-5090"]
    store.user_gpus.delete("my-rtx-5090")
    assert store.user_gpus.all() == []


def test_sql_is_parameterised_everywhere():
    """No statement in the store is built from values with f-strings: only constants and `?` placeholders."""
    import re

    source = "\n".join(
        p.read_text() for p in Path(__file__).parents[2].joinpath("planner", "store").glob("*.py")
    )
    # An f-string SQL piece may interpolate only names of constants, column lists or placeholders (`aside`: the
    # TEMP table an undone import waits in, set_aside_<table>).
    for match in re.finditer(r'f"(?:SELECT|INSERT|UPDATE|DELETE)[^"]*"', source):
        for name in re.findall(r"\{([^}]*)\}", match.group(0)):
            assert re.match(
                r"^(spec\.table|table|aside|quoted_table|', '\.join\(.*\)|' AND '\.join\(.*\)|assignments)$",
                name,
            ), (
                match.group(0),
                name,
            )


def test_store_is_usable_from_another_thread(store):
    import threading

    errors = []

    def worker():
        try:
            store.rental_quotes.add({**GOOD, "offer": "from a thread"})
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert errors == [] and store.rental_quotes.find(mine_only=True)[0]["offer"] == "from a thread"


def test_raw_sqlite_sees_wal_database(store):
    store.rental_quotes.add(GOOD)
    conn = sqlite3.connect(str(store.path))
    assert conn.execute("SELECT count(*) FROM rental_quotes WHERE origin = 'user'").fetchone()[0] == 1
    conn.close()


# ---------------------------------------------------------------------------------------------------------------
# Price summaries in SQL (planner/store/prices.py): medians worked out by hand on a small set
# ---------------------------------------------------------------------------------------------------------------

A10 = {**GOOD, "provider": "Hand cloud", "gpu": "a10", "gpus_per_instance": 1}  # no reference row for the A10


def add_a10(store, price: float, currency: str = "USD", kind: str = "on-demand", offer: str = "") -> int:
    return store.rental_quotes.add(
        {**A10, "offer": offer or f"{kind} {currency} {price}", "price_per_gpu_hour": price,
         "currency": currency, "kind": kind}
    )  # fmt: skip


@pytest.fixture
def a10_quotes(store):
    # on-demand USD: 4.00, 1.00, 2.00      -> sorted 1, 2, 4        -> odd count: median 2.00
    # on-demand EUR: 3.00, 1.00, 10.00, 2.00 -> sorted 1, 2, 3, 10  -> even count: median (2 + 3) / 2 = 2.50
    # spot USD: 0.50                        -> one quote: 0.50
    for price in (4.00, 1.00, 2.00):
        add_a10(store, price)
    for price in (3.00, 1.00, 10.00, 2.00):
        add_a10(store, price, "EUR")
    add_a10(store, 0.50, kind="spot")
    return store


def test_price_summary_gives_count_lowest_median_highest_per_group(a10_quotes):
    rows = a10_quotes.rental_quotes.price_summary("a10")
    assert [tuple(vars(row).values()) for row in rows] == [
        ("a10", "on-demand", "EUR", "user", 4, 1.00, 2.50, 10.00),
        ("a10", "on-demand", "USD", "user", 3, 1.00, 2.00, 4.00),
        ("a10", "spot", "USD", "user", 1, 0.50, 0.50, 0.50),
    ]
    assert [row.kind for row in a10_quotes.rental_quotes.price_summary("a10", ["spot"])] == ["spot"]
    assert a10_quotes.rental_quotes.price_summary("a10", []) == []
    assert a10_quotes.rental_quotes.price_summary("t4") == []


def test_price_summary_of_the_shipped_h100_reference_points(store):
    # planner/catalog/reference_prices.csv, H100 SXM on-demand (each row citing its price page): 1.30, 2.75, 3.25, 3.49,
    # 3.90, 6.88, 12.29 $/GPU-h -> seven prices, the fourth (3.49) is the median.
    (row,) = store.rental_quotes.price_summary("h100-sxm", ["on-demand"])
    assert (row.origin, row.currency, row.count) == ("reference", "USD", 7)
    assert (row.min_per_gpu_hour, row.median_per_gpu_hour, row.max_per_gpu_hour) == (1.30, 3.49, 12.29)
    everything = store.rental_quotes.price_summary()  # every GPU at once
    assert row in everything and {r.gpu for r in everything} >= {"h100-sxm", "rtx-4090", "l40s"}


def test_median_across_currencies_is_the_median_of_the_converted_prices(a10_quotes):
    on_demand = ("on-demand",)
    # Dollars only: 1, 2, 4 -> 2.
    assert a10_quotes.rental_quotes.price_median("a10", on_demand, "user", {"USD": 1.0}) == 2.0
    # Euros at 1.10 $: 1.10, 2.20, 3.30, 11.00 beside 1, 2, 4 -> 1, 1.1, 2, 2.2, 3.3, 4, 11: the 4th is 2.20.
    mixed = a10_quotes.rental_quotes.price_median("a10", on_demand, "user", {"USD": 1.0, "EUR": 1.10})
    assert mixed == pytest.approx(2.20)
    # Euros at 0.50 $: 0.5, 1, 1.5, 5 beside 1, 2, 4 -> 0.5, 1, 1, 1.5, 2, 4, 5: the 4th is 1.50.
    assert a10_quotes.rental_quotes.price_median("a10", on_demand, "user", {"USD": 1.0, "EUR": 0.5}) == 1.5
    # Two kinds, dollars only: 0.5 (spot), 1, 2, 4 -> even count: (1 + 2) / 2 = 1.5.
    both = a10_quotes.rental_quotes.price_median("a10", ("on-demand", "spot"), "user", {"USD": 1.0})
    assert both == 1.5
    assert a10_quotes.rental_quotes.price_median("a10", on_demand, "reference", {"USD": 1.0}) is None
    assert a10_quotes.rental_quotes.price_median("a10", on_demand, "user", {"RUB": 0.011}) is None
    with pytest.raises(ValueError, match="finite and > 0"):
        a10_quotes.rental_quotes.price_median("a10", on_demand, "user", {"USD": 0.0})


def test_cheapest_offers_are_bounded_per_gpu_kind_and_currency(store):
    dollars = [add_a10(store, price, offer=f"d{price}") for price in (5.0, 4.0, 3.0, 2.0, 1.0)]
    euros = [add_a10(store, price, "EUR", offer=f"e{price}") for price in (7.0, 6.0, 8.0)]
    spot = add_a10(store, 0.9, kind="spot")
    offers = store.rental_quotes.cheapest_offers(per_group=2)
    mine = [row["id"] for row in offers if row["origin"] == "user"]
    # the two cheapest of each group, sorted by GPU then price: spot 0.9, $1, $2, €6, €7
    assert mine == [spot, dollars[4], dollars[3], euros[1], euros[0]]
    reference_ids = {row["id"] for row in store.rental_quotes.find() if row["origin"] == "reference"}
    assert {row["id"] for row in offers if row["origin"] == "reference"} == reference_ids  # all of them
    assert set(offers[0]) == {"id", *RENTAL_COLUMNS, "origin", "created_at"}  # the list_rental_quotes shape
    only_a10 = store.rental_quotes.cheapest_offers(per_group=1, gpus=["a10"])
    assert [row["id"] for row in only_a10] == [spot, dollars[4], euros[1]]
    with pytest.raises(ValueError):
        store.rental_quotes.cheapest_offers(per_group=0)


def test_data_stamp_changes_with_every_write_here_or_in_another_process(store):
    before = store.data_stamp()
    assert store.data_stamp() == before  # reading changes nothing
    store.rental_quotes.add(GOOD)
    after_own_write = store.data_stamp()
    assert after_own_write != before
    other = sqlite3.connect(str(store.path))
    other.execute("UPDATE settings SET value = value")  # a commit by another connection (the CLI, say)
    other.execute("INSERT INTO settings (key, value, updated_at) VALUES ('x', '1', 'now')")
    other.commit()
    other.close()
    assert store.data_stamp() != after_own_write


def test_price_queries_read_one_index_range_per_group(a10_quotes):
    """Each per-GPU statement seeks the (gpu, kind, currency, origin, price) index of migration 4, so its cost
    follows the rows it returns, not the table (a GPU's whole range is never read to prove a group empty)."""
    store = a10_quotes
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    try:
        store.rental_quotes.price_summary("a10", ["on-demand"])
        store.rental_quotes.price_median("a10", ["on-demand", "spot"], "user", {"USD": 1.0, "EUR": 1.1})
        store.rental_quotes.cheapest_offers(per_group=2)
    finally:
        store.conn.set_trace_callback(None)
    per_gpu = [sql for sql in statements if "gpu = '" in sql]  # the trace shows the bound values
    assert len(per_gpu) >= 3
    for sql in per_gpu:
        plan = " | ".join(row[3] for row in store.conn.execute("EXPLAIN QUERY PLAN " + sql))
        assert "USING COVERING INDEX idx_rental_quotes_price_groups" in plan or (
            "USING INDEX idx_rental_quotes_price_groups" in plan
        ), (sql, plan)
