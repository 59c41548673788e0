"""planner.resolver: the one place the user's inputs become the planner call and its price basis.

Independent expectations (written out, not read back from the code):
- H100 SXM reference on-demand prices (planner/catalog/reference_prices.csv, docs/sources.md): 1.30, 2.75,
  3.25, 3.49, 3.90, 6.88, 12.29 $/GPU-h; median 3.49, lowest 1.30.
- Quotes of your own at $2.00, $3.00 and $5.00 have the median $3.00; with a fourth at $4.00 the median is
  ($3.00 + $4.00) / 2 = $3.50.
- 1 EUR = 1.10 USD turns a 2.00 EUR quote into $2.20.
- An 80 GB H100 is 81,559 MiB as NVML counts it (79.65 GiB); less 10% headroom that leaves 71.68 GiB.
"""

from __future__ import annotations

import pytest

from planner.errors import UserError
from planner.messages import render_en
from planner.money import Money
from planner.resolver import PlanQuestion, resolve
from planner.search import Workload
from planner.store import Store
from tests.fixtures.store_reports import report

LORA = Workload(task="lora", seq_len=2048, global_batch=16, tokens=1e8)


@pytest.fixture
def store():
    with Store.open() as opened:
        yield opened


def quote(
    store, gpu: str, price: float, currency: str = "USD", kind: str = "on-demand", provider: str = "Hand"
) -> int:
    return store.rental_quotes.add(
        {"provider": provider, "offer": f"{gpu} {price} {currency} {kind}", "gpu": gpu, "gpus_per_instance": 1,
         "price_per_gpu_hour": price, "currency": currency, "kind": kind, "quoted_on": "2026-09-01"}
    )  # fmt: skip


def ask(*hardware: str, **changes) -> PlanQuestion:
    return PlanQuestion(model="llama-3.1-8b", workload=LORA, hardware=hardware, **changes)


def test_without_quotes_of_your_own_the_price_is_the_median_reference_quote(store):
    resolved = resolve(ask("h100-sxm"), store)
    assert resolved.prices["h100-sxm"] == Money(3.49, "USD")  # not the market low of 1.30
    assert resolved.price_sources["h100-sxm"].code == "price.reference_median"
    assert resolved.calibration == {}  # a catalog choice: the datasheet


def test_your_own_quotes_replace_the_reference_ones_and_give_their_median(store):
    for price in (2.00, 3.00, 5.00):
        quote(store, "h100-sxm", price)
    assert resolve(ask("catalog:h100-sxm"), store).prices["h100-sxm"].amount == pytest.approx(3.00)
    quote(store, "h100-sxm", 4.00)
    resolved = resolve(ask("catalog:h100-sxm"), store)
    assert resolved.prices["h100-sxm"].amount == pytest.approx(3.50)
    assert resolved.price_sources["h100-sxm"].code == "price.mine_median"


def test_a_chosen_quote_prices_its_gpu_type_converted_with_the_stored_rate(store):
    store.settings.set_exchange_rate("EUR", 1.10, "2026-09-01")
    chosen = quote(store, "a100-sxm-80gb", 2.00, "EUR")
    resolved = resolve(ask(f"quote:{chosen}"), store)
    assert resolved.prices["a100-sxm-80gb"].amount == pytest.approx(2.20)
    source = resolved.price_sources["a100-sxm-80gb"]
    assert source.code == "price.quote" and "(€2.00)" in source.text  # the quoted original beside it


def test_a_quote_without_an_exchange_rate_is_left_out_and_named(store):
    quote(store, "a10", 250.0, "RUB")
    resolved = resolve(ask("a10"), store)
    assert "a10" not in resolved.prices
    assert [message.code for message in resolved.missing_rates] == ["error.no_exchange_rate"]


def test_only_a_chosen_probe_run_calibrates_and_a_machine_limits_the_gpu_count(store):
    run_id = store.probe_runs.save(report(bf16_flop_per_s=6.0e14), source="local")
    spec = resolve(ask("h100-sxm"), store)
    assert spec.calibration == {}  # a stored run nobody chose changes nothing
    measured = resolve(ask(f"run:{run_id}"), store)
    assert set(measured.calibration) == {"h100-sxm"}
    assert measured.constraints.max_gpus == 1  # the machine has one H100: "this machine" means at most that
    exact = resolve(ask(f"run:{run_id}", exact_gpus=8), store)
    assert exact.constraints.gpus == 8  # an explicit count is the user's


def test_a_user_set_price_prices_every_gpu_type_and_says_so(store):
    resolved = resolve(
        ask("h100-sxm", "a100-sxm-80gb", price_per_gpu_hour=2.5, price_from_quotes=False), store
    )
    assert resolved.prices == {"h100-sxm": Money(2.5), "a100-sxm-80gb": Money(2.5)}
    assert {m.code for m in resolved.price_sources.values()} == {"price.user_set"}


def test_the_memory_headroom_is_part_of_the_fit(store):
    resolved = resolve(ask("h100-sxm", memory_headroom=0.10), store)
    gpu = resolved.gpus[0]
    assert resolved.constraints.usable_bytes(gpu) == int(gpu.memory_bytes * 0.9)
    assert resolved.constraints.usable_bytes(gpu) / 2**30 == pytest.approx(81559 / 1024 * 0.9, abs=0.001)


def test_nothing_chosen_and_an_unknown_gpu_are_user_errors(store):
    with pytest.raises(UserError) as none:
        resolve(ask(), store)
    assert none.value.message.code == "error.no_hardware_chosen"
    with pytest.raises(UserError, match="unknown GPU"):
        resolve(ask("h1000"), store)


def test_a_sequence_longer_than_the_models_context_is_warned_about_first():
    # Llama 3.1 8B's config.json: max_position_embeddings 131072 (meta-llama/Llama-3.1-8B)
    import dataclasses

    longer = dataclasses.replace(LORA, seq_len=131_073)
    resolved = resolve(PlanQuestion(model="llama-3.1-8b", workload=longer, hardware=("h100-sxm",)), None)
    assert resolved.notes[0].code == "memory.seq_beyond_context"
    assert "131073" in render_en(resolved.notes[0]) and "131072" in render_en(resolved.notes[0])
    within = dataclasses.replace(LORA, seq_len=131_072)
    resolved = resolve(PlanQuestion(model="llama-3.1-8b", workload=within, hardware=("h100-sxm",)), None)
    assert all(note.code != "memory.seq_beyond_context" for note in resolved.notes)


def test_a_multimodal_models_vision_tower_is_named_with_its_size_and_left_out(tmp_path):
    from tests.planner.gemma3_config import write_gemma3_4b

    path = write_gemma3_4b(tmp_path)
    resolved = resolve(PlanQuestion(model=str(path), workload=LORA, hardware=("h100-sxm",)), None)
    note = next(note for note in resolved.notes if note.code == "memory.towers_not_counted")
    assert "siglip_vision_model" in render_en(note)
    # 417M (the Gemma 3 report's vision encoder, arXiv 2503.19786 Table 1) + 2.95M of projector
    assert round(resolved.model.tower_params / 1e6) == 420
    assert resolved.model.total_params < 4_000_000_000  # the text decoder only (Gemma 3 4B's is 3.9B)
