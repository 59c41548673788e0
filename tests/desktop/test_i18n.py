"""Russian and English interface: the translation files, the live switch, Russian numbers and both currencies.

The .ts file is what translators edit and the .qm beside it is what the app loads; both are committed, so these
tests also check that they agree with each other and with the tr() strings in desktop/.
"""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QTabWidget,
    QTextEdit,
    QTreeWidget,
)

from desktop.plan_request import render_note

ROOT = Path(__file__).resolve().parents[2]
TS_FILE = ROOT / "assets" / "i18n" / "gpu_advisor_ru.ts"
EN_TS_FILE = TS_FILE.with_name("gpu_advisor_en.ts")  # the English plural forms only
BIN = Path(sys.executable).parent
NBSP_CHARS = (
    "\u00a0\u202f"  # QLocale's Russian group separator is a no-break space (narrow in some CLDR data)
)


@pytest.fixture
def english_afterwards():
    """Translators and the default QLocale are process-wide: put English back for the tests that follow."""
    yield
    from desktop.i18n import set_language

    set_language("en")


def _messages():
    root = ET.parse(TS_FILE).getroot()
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            yield name, message


# ------------------------------------------------------------------------------------------------ the files


def test_every_ts_entry_is_translated_with_the_same_placeholders():
    entries = list(_messages())
    assert len(entries) > 300  # the whole interface, not a sample
    problems = []
    for context, message in entries:
        source = message.findtext("source") or ""
        translation = message.find("translation")
        kind = translation.get("type")
        if kind in ("unfinished", "vanished", "obsolete"):
            problems.append(f"{context}: {source!r} is {kind}")
            continue
        if message.get("numerus") == "yes":
            forms = [form.text or "" for form in translation.iter("numerusform")]
            # Russian has three plural forms: 1 файл, 2 файла, 5 файлов
            if len(forms) != 3 or not all(form.strip() for form in forms):
                problems.append(f"{context}: {source!r} needs three plural forms, has {forms}")
            if not all(re.search(r"%L?n", form) for form in forms):  # %Ln: the count in the locale's digits
                problems.append(f"{context}: {source!r}: every plural form must show the count (%n)")
            texts = forms
        else:
            texts = [translation.text or ""]
            if not texts[0].strip():
                problems.append(f"{context}: {source!r} has an empty translation")
        for text in texts:
            # positional {0} and named {need_bytes} placeholders (the planner's messages) alike
            if sorted(re.findall(r"\{\w+\}", source)) != sorted(re.findall(r"\{\w+\}", text)):
                problems.append(f"{context}: {source!r} -> {text!r}: placeholders differ")
            if source.count("&") != text.count("&") and "&" in source and "<" not in source:
                problems.append(f"{context}: {source!r} -> {text!r}: keyboard accelerator lost")
    assert not problems, "\n".join(problems)


def test_ts_covers_every_tr_string_in_desktop(tmp_path):
    """pyside6-lupdate over desktop/ into a copy of the .ts finds nothing new: no string is left untranslated."""
    copy = tmp_path / TS_FILE.name
    shutil.copy(TS_FILE, copy)
    sources = sorted(str(path) for path in (ROOT / "desktop").rglob("*.py"))
    subprocess.run(
        [str(BIN / "pyside6-lupdate"), "-no-obsolete", *sources, "-ts", str(copy)],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    fresh = [
        f"{context}: {message.findtext('source')!r}"
        for context, message in _parse(copy)
        if message.find("translation").get("type") == "unfinished"
    ]
    assert not fresh, "strings missing from the .ts (run `make translations`, then translate):\n" + "\n".join(
        fresh
    )


def _parse(path: Path):
    root = ET.parse(path).getroot()
    for context in root.iter("context"):
        for message in context.iter("message"):
            yield context.findtext("name") or "", message


@pytest.mark.parametrize("ts_file", [TS_FILE, EN_TS_FILE], ids=["ru", "en plurals"])
def test_committed_qm_is_built_from_the_committed_ts(tmp_path, ts_file):
    """`make run` loads the committed .qm; it must be exactly what pyside6-lrelease makes of the .ts."""
    rebuilt = tmp_path / "rebuilt.qm"
    subprocess.run(
        [str(BIN / "pyside6-lrelease"), str(ts_file), "-qm", str(rebuilt)], check=True, capture_output=True
    )
    qm_file = ts_file.with_suffix(".qm")
    assert qm_file.is_file(), "run `make translations`"
    assert filecmp.cmp(rebuilt, qm_file, shallow=False), "the .qm is stale: run `make translations`"


def test_every_count_reads_in_its_plural_form_in_both_languages(qapp, english_afterwards):
    """Qt picks the form from the catalogs: English one/other (gpu_advisor_en.ts), Russian one/few/many."""
    from desktop.i18n import set_language
    from desktop.plurals import plurals

    set_language("en", strict=True)
    assert [plurals().adding_quotes(n) for n in (1, 2)] == ["adding 1 quote", "adding 2 quotes"]
    assert plurals().published_runs(1) == "1 published run"
    set_language("ru", strict=True)
    assert [plurals().accumulation_steps(n) for n in (1, 3, 5, 21)] == [
        "1 шаг накопления", "3 шага накопления", "5 шагов накопления", "21 шаг накопления",
    ]  # fmt: skip


def test_a_count_reads_in_english_even_where_no_english_catalog_is_installed(qapp, english_afterwards):
    """No translator at all (a stripped install, a Qt application that installed none): English's own rule on
    the "(s)", for every count text of desktop/plurals.py; Russian keeps its three forms."""
    from PySide6.QtCore import QCoreApplication

    from desktop import i18n
    from desktop.plurals import Plurals, plurals

    i18n.set_language("en", strict=True)
    for translator in list(i18n._installed):  # what a missing gpu_advisor_en.qm leaves: no translator
        QCoreApplication.instance().removeTranslator(translator)
    i18n._installed.clear()
    words = plurals()
    assert [words.accumulation_steps(n) for n in (1, 32)] == ["1 accumulation step", "32 accumulation steps"]
    assert [words.nodes(n) for n in (1, 9)] == ["1 node", "9 nodes"]
    assert [words.published_runs(1), words.adding_quotes(2), words.deleting_quotes(1)] == [
        "1 published run", "adding 2 quotes", "deleting 1 quote"]  # fmt: skip
    assert words.users_per_replica(1) == "up to 1 user decoded together on each replica"
    texts = [name for name, value in vars(Plurals).items() if callable(value) and not name.startswith("_")]
    assert len(texts) == 11
    assert [words.gpus(n) for n in (1, 128)] == ["1 GPU", "128 GPUs"]
    assert words.exported_files(1) == "Exported 1 file to {0}"
    assert words.cheapest_for_gpus(8).startswith("<b>{0} is cheapest</b> over {1} years for 8 {2} GPUs at")
    for name in texts:  # every count text, at 1 and at 2: no "(s)" left in English
        for count in (1, 2):
            assert "(s)" not in getattr(words, name)(count), name
    i18n.set_language("en", strict=True)  # with the English catalog: the same words
    assert [words.accumulation_steps(n) for n in (1, 32)] == ["1 accumulation step", "32 accumulation steps"]
    assert [words.nodes(n) for n in (1, 9)] == ["1 node", "9 nodes"]
    i18n.set_language("ru", strict=True)
    assert [words.accumulation_steps(n) for n in (1, 3, 5, 32)] == [
        "1 шаг накопления", "3 шага накопления", "5 шагов накопления", "32 шага накопления"]  # fmt: skip


def test_every_count_text_has_english_plural_forms():
    """The English catalog covers every %n text the Russian one has (so no "1 quote(s)" is left)."""
    russian = {(c, m.findtext("source")) for c, m in _parse(TS_FILE) if m.get("numerus") == "yes"}
    english = {(c, m.findtext("source")) for c, m in _parse(EN_TS_FILE) if m.get("numerus") == "yes"}
    assert russian == english


def test_the_qm_ships_in_the_package_data():
    from importlib.resources import files

    shipped = files("gpu_advisor_assets") / "i18n" / "gpu_advisor_ru.qm"
    assert shipped.is_file()


# ------------------------------------------------------------------------------------------------ language


def test_language_follows_the_system_unless_chosen():
    from desktop.i18n import resolve_language

    russian = QLocale(QLocale.Language.Russian, QLocale.Country.Russia)
    german = QLocale(QLocale.Language.German, QLocale.Country.Germany)
    assert resolve_language("", russian) == "ru"
    assert resolve_language(None, german) == "en"  # unsupported system language: English
    assert resolve_language("en", russian) == "en"
    assert resolve_language("ru", german) == "ru"


def test_russian_numbers_units_and_money(qapp, english_afterwards):
    from desktop import fmt
    from desktop.i18n import set_language
    from planner.money import Money

    assert set_language("ru", strict=True) == "ru"
    # QLocale("ru") groups thousands with a no-break space and uses a decimal comma
    text = fmt.number(1234.5, 1)
    assert plain_text(text) == "1 234,5"
    assert text != "1 234,5"  # the separator is a no-break space, so "1 234" never wraps
    assert plain_text(fmt.gib(80 * 2**30)) == "80,0 ГиБ"
    assert plain_text(fmt.tflops(989.4e12)) == "989,4 ТФЛОПС"
    assert plain_text(fmt.bandwidth(3.35e12)) == "3 350 ГБ/с"
    assert plain_text(fmt.watts(700)) == "700 Вт"
    assert plain_text(fmt.money(250, "RUB")) == "250,00 ₽"
    assert plain_text(fmt.money_with_original(Money(2.75, "USD"), Money(250, "RUB"))) == "≈ 2,75 USD (250,00 ₽)"
    set_language("en", strict=True)
    assert fmt.number(1234.5, 1) == "1,234.5"
    assert fmt.money_with_original(Money(2.75, "USD"), Money(250, "RUB")) == "≈\u00a0$2.75 (250.00\u00a0₽)"


def plain_text(text: str) -> str:
    return "".join(" " if ch in NBSP_CHARS else ch for ch in text)


# ------------------------------------------------------------------------------------------------ widget walk

# Latin-script words allowed in the Russian interface: proper names, product and file names, units and the
# abbreviations Russian ML engineers use as they are. Anything else in Latin script is an untranslated string.
ALLOWED_WORDS = {
    # the goodput block's sources: a vendor, a storage kind, a preprint server, a journal, systems, a library
    "meta",
    "nvme",
    "arxiv",
    "fgcs",
    "tectonic",
    "trainmover",
    "nccl",
    "pytorch",
    # products, libraries, vendors, formats
    "gpu",
    "cpu",
    "nvidia",
    "nvml",
    "cuda",
    "pcie",
    "pci",
    "nvlink",
    "mig",
    "ecc",
    "qt",
    "python",
    "pyside6",
    "pyqtgraph",
    "torch",
    "json",
    "csv",
    "gpu-advisor",
    "gpu-probe",
    "advisor",
    "deepspeed",
    "accelerate",
    "torchrun",
    "safetensors",
    "megatron-lm",
    "torchtitan",
    "flashattention",
    "gptq",
    "awq",
    "hugging",
    "face",
    "profiler",
    # the CUDA term kept in English by Russian docs
    "compute",
    "capability",
    # parallelism, precision and methods: written this way in Russian texts too
    "zero-1",
    "zero-2",
    "zero-3",
    "zero",
    "ddp",
    "fsdp",
    "tp",
    "pp",
    "dp",
    "ep",
    "mfu",
    "ttft",
    "tpot",
    "pue",
    "kv",
    "lora",
    "qlora",
    "nf4",
    "bf16",
    "fp16",
    "fp32",
    "fp8",
    "tf32",
    "int8",
    "int4",
    # currencies
    "usd",
    "eur",
    "rub",
    # the language combo names each language in its own language
    "english",
    # language codes in "gpu-advisor --lang en|ru"
    "en",
    "ru",
}


def latin_words(text: str) -> list[str]:
    text = re.sub(r"<[^>]+>", " ", text)  # rich text: tags are not words
    text = re.sub(r"&\w+;", " ", text)
    text = re.sub(r"(?<![\w-])--?[A-Za-z][\w-]*", " ", text)  # command-line flags (--lang, -m) as typed
    text = text.replace("°C", " ")  # the unit reads the same in Russian
    words = []
    for token in re.findall(r"[A-Za-z][A-Za-z0-9_.+/\-]*", text):
        token = token.strip(".-/")
        if not token or "/" in token or "." in token or "_" in token:  # paths and file names (config.json)
            continue
        if any(ch.isdigit() for ch in token) and token.lower() not in ALLOWED_WORDS:
            continue  # model and GPU ids such as H100, A100, 70B, RTX 4090, cuda:0
        words.append(token)
    return words


def _in_window(window, widgets):
    """Widgets of the window itself (pyqtgraph's right-click menus are windows of their own, never shown here)."""
    return [widget for widget in widgets if widget.window() is window]


def _widget_texts(window) -> list[tuple[str, str]]:
    """(where, text) for every text a person can see in the window's widgets and charts."""
    texts: list[tuple[str, str]] = [("window title", window.windowTitle())]

    def children(kind):
        return _in_window(window, window.findChildren(kind))

    # (not QAction.menu(): its PySide6 wrapper takes the menu with it when collected)
    for menu in window.menuBar().findChildren(QMenu):
        texts.append(("menu", menu.title()))
        texts += [("menu item", item.text()) for item in menu.actions() if not item.isSeparator()]
    for widget in children(QLabel):
        texts.append((f"label {widget.objectName()}", widget.text()))
    for widget in children(QAbstractButton):
        texts.append(("button", widget.text()))
    for widget in children(QGroupBox):
        texts.append(("group box", widget.title()))
    for widget in children(QTabWidget):
        texts += [("tab", widget.tabText(i)) for i in range(widget.count())]
    for widget in children(QComboBox):
        texts += [("combo item", widget.itemText(i)) for i in range(widget.count())]
    for widget in children(QLineEdit):
        texts.append(("placeholder", widget.placeholderText()))
    for widget in children(QTextEdit):  # rich text panels: the Plan page's advice and excluded strategies
        texts.append((f"text panel {widget.objectName()}", widget.toPlainText()))
    for widget in children(QAbstractSpinBox):
        for name in ("suffix", "prefix", "specialValueText"):
            getter = getattr(widget, name, None)
            if getter is not None:
                texts.append((f"spin box {name}", getter()))
    for widget in children(QListWidget):
        texts += [("list item", widget.item(i).text()) for i in range(widget.count())]
    for widget in children(QTreeWidget):
        for i in range(widget.topLevelItemCount()):
            texts.append(("tree group", widget.topLevelItem(i).text(0)))
    for view in children(QAbstractItemView):
        model = view.model()
        if model is None or isinstance(view, (QListWidget, QTreeWidget)):
            continue
        from PySide6.QtCore import Qt

        for section in range(model.columnCount()):
            texts.append(("table header", str(model.headerData(section, Qt.Orientation.Horizontal) or "")))
    texts += _chart_texts(window)
    return [(where, text) for where, text in texts if text]


def _chart_texts(window) -> list[tuple[str, str]]:
    import pyqtgraph as pg

    texts = []
    for widget in _in_window(window, window.findChildren(pg.GraphicsView)):
        scene = widget.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.LabelItem):
                texts.append(("chart label", item.text))
            elif isinstance(item, pg.AxisItem) and item.isVisible():
                texts.append(("chart axis", item.labelText))
            elif isinstance(item, pg.TextItem):
                texts.append(("chart text", item.toPlainText()))
    return texts


def _data_names(window) -> set[str]:
    """Proper names from the data on screen: GPU and model names, providers, hostnames, the NVML diagnostic."""
    from planner.models import list_presets

    context = window.context
    names: set[str] = set()
    for gpu in context.gpu_catalog().values():
        names.update(re.findall(r"[A-Za-z][A-Za-z0-9\-]*", gpu.name))
    for preset in list_presets():
        names.update(re.findall(r"[A-Za-z][A-Za-z0-9\-]*", f"{preset.name} {preset.family}"))
    for quote in context.store.rental_quotes.find() + context.store.purchase_quotes.find():
        names.update(
            re.findall(r"[A-Za-z][A-Za-z0-9\-]*", f"{quote.get('provider', '')} {quote.get('vendor', '')}")
        )
    for run in context.store.probe_runs.all():
        names.update(
            re.findall(
                r"[A-Za-z][A-Za-z0-9\-]*",
                " ".join((run.machine, run.hostname, run.source, run.mode, run.label or "")),
            )
        )
    inventory_model = window.page("hardware").inventory_model  # device names: "CPU: AMD EPYC 7763", GPUs
    for row in range(inventory_model.rowCount()):
        names.update(re.findall(r"[A-Za-z][A-Za-z0-9\-]*", str(inventory_model.index(row, 0).data() or "")))
    # the open plan's name is the user's (the example plan was named before the switch)
    names.update(re.findall(r"[A-Za-z][A-Za-z0-9\-]*", str(window.page("plan").state.plan_name or "")))
    inventory = context.inventory
    # NVML's own diagnostic ("NVML library not found ...") is shown verbatim, like an OS error message.
    names.update(re.findall(r"[A-Za-z][A-Za-z0-9\-]*", str(getattr(inventory, "reason", "") or "")))
    return {name.lower() for name in names}


def _fill_pages(window, qtbot) -> None:
    for page in window.pages:
        page.load_example()
    qtbot.waitUntil(lambda: window.context.jobs.running_count == 0, timeout=20_000)


def _english_left(window) -> list[str]:
    allowed = ALLOWED_WORDS | _data_names(window)
    found = []
    for where, text in _widget_texts(window):
        english = [word for word in latin_words(text) if word.lower() not in allowed]
        if english:
            found.append(f"{where}: {text!r} -> {english}")
    return found


@pytest.mark.slow
def test_live_switch_to_russian_leaves_no_english_and_keeps_the_work(open_window, qtbot, english_afterwards):
    """The Settings combo switches the running window to Russian: every page, menu and chart is retranslated.

    Not walked: table cells (data: GPU names, providers, sources). The Plan page's advice and exclusion panels
    (text browsers) are walked: the planner's messages are rendered in the interface language.
    """
    window = open_window("none")
    _fill_pages(window, qtbot)
    plan = window.page("plan")
    inputs_before = plan.state.inputs
    settings = window.page("settings")
    settings.language_combo.setCurrentIndex(settings.language_combo.findData("ru"))
    qtbot.waitUntil(lambda: window.context.jobs.running_count == 0, timeout=20_000)

    assert window.page_actions[0].text() == "Оборудование"
    assert window.navigation.item(4).text() == "Настройки"
    assert window.file_menu.title() == "&Файл"
    assert window.context.language() == "ru"  # stored for the next start
    assert plan.state.inputs == inputs_before  # the user's plan survived the switch
    found = _english_left(window)
    assert not found, "English left in the Russian interface:\n" + "\n".join(found)
    # and back: the English texts return
    settings.language_combo.setCurrentIndex(settings.language_combo.findData("en"))
    assert window.navigation.item(4).text() == "Settings"
    assert window.file_menu.title() == "&File"


@pytest.mark.slow
def test_english_interface_has_no_russian_left(open_window, qtbot):
    window = open_window("none")
    _fill_pages(window, qtbot)
    cyrillic = [
        f"{where}: {text!r}"
        for where, text in _widget_texts(window)
        if re.search("[А-Яа-яЁё]", text) and text != "Русский"  # a language is named in its own language
    ]
    assert not cyrillic


# ------------------------------------------------------------------------------------------------ currencies


def _add_rub_quote(store, price: float = 250.0) -> int:
    return store.rental_quotes.add(
        {"provider": "Selectel", "offer": "1x A100 80GB", "gpu": "a100-sxm-80gb", "gpus_per_instance": 1,
         "price_per_gpu_hour": price, "currency": "RUB", "kind": "on-demand", "quoted_on": "2026-09-03",
         "source": "test"}
    )  # fmt: skip


@pytest.mark.slow
def test_a_plan_priced_from_a_rub_quote_shows_both_currencies(open_window, qtbot, english_afterwards):
    """Display currency USD, 1 RUB = 0.011 USD: the 250 ₽ quote prices the plan at 250 x 0.011 = $2.75/GPU-h."""
    from desktop.i18n import switch_language

    window = open_window("none")
    context = window.context
    context.set_exchange_rate("RUB", 0.011, "2026-09-01")
    context.set_display_currency("USD")
    quote_id = _add_rub_quote(context.store)
    switch_language("ru")
    plan = window.page("plan")
    plan.load_example()
    plan.state.update(hardware=(f"quote:{quote_id}",))
    plan.replan()
    qtbot.waitUntil(
        lambda: plan.call is not None and "a100-sxm-80gb" in plan.call.price_sources, timeout=20_000
    )
    qtbot.waitUntil(lambda: window.context.jobs.running_count == 0, timeout=20_000)
    plan.state.mark_saved(None, "RUB test")  # nothing unsaved: closing the window asks no question
    price = plan.call.prices["a100-sxm-80gb"]
    assert (price.currency, round(price.amount, 6)) == ("USD", 2.75)
    source = plain_text(render_note(plan.call.price_sources["a100-sxm-80gb"]))
    assert "≈ 2,75 USD (250,00 ₽)" in source  # Russian number format, converted first, original beside it
    shown = "\n".join(plain_text(text) for _where, text in _widget_texts(window)) + plain_text(
        plan.results.advice.toPlainText()
    )
    assert "250,00 ₽" in shown and "2,75 USD" in shown


@pytest.mark.slow
def test_a_missing_rate_is_asked_for_not_assumed(open_window, qtbot, english_afterwards):
    from desktop.i18n import switch_language

    window = open_window("none")
    context = window.context
    context.set_display_currency("USD")
    _add_rub_quote(context.store)
    converted, problem = context.to_display_currency(250.0, "RUB")
    assert converted is None
    assert "RUB → USD" in problem and "Settings" in problem
    switch_language("ru")
    converted, problem = context.to_display_currency(250.0, "RUB")
    assert converted is None
    assert problem == "Нет курса RUB → USD: задайте его в «Настройках» (Курсы валют)."
    # the Quotes page says "no rate" in the price cell and shows the prompt when hovered
    from PySide6.QtCore import Qt

    quotes = window.page("quotes")
    quotes.reload()
    model = quotes.rental.model
    row = next(i for i, quote in enumerate(model.rows) if quote.get("provider") == "Selectel")
    cell = model.index(row, model.column_of("derived:display_price"))
    assert cell.data() == "нет курса"
    assert cell.data(Qt.ItemDataRole.ToolTipRole) == problem


@pytest.mark.slow
def test_screenshots_in_russian_write_every_page_with_russian_numbers(tmp_path):
    """`gpu-advisor --lang ru --screenshots DIR` in a child process (a fresh QApplication, as a user runs it)."""
    out = tmp_path / "shots-ru"
    probe = (
        "import sys\n"
        "from desktop import app\n"
        "seen = []\n"
        "original = app.settle\n"
        "def settle(qapp, context=None, *a, **k):\n"
        "    original(qapp, context, *a, **k)\n"
        "    from PySide6.QtWidgets import QApplication, QLabel\n"
        "    for w in QApplication.topLevelWidgets():\n"
        "        seen.extend(label.text() for label in w.findChildren(QLabel))\n"
        "app.settle = settle\n"
        "code = app.main(sys.argv[1:])\n"
        "open(sys.argv[-1] + '.labels', 'w', encoding='utf-8').write('\\n'.join(seen))\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", probe, "--lang", "ru", "--screenshots", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    for page in ("hardware", "quotes", "plan", "rent_buy", "settings"):
        assert (out / f"{page}.png").stat().st_size > 10_000
    labels = Path(str(out) + ".labels").read_text(encoding="utf-8")
    assert "Валюта отображения:" in labels  # the Settings page, in Russian
    # Russian-formatted numbers: a no-break group separator ("2 588 USD") and a decimal comma ("5,8 ч")
    assert re.search(r"\d[\u00a0\u202f]\d{3}", labels), "no Russian group separator in a visible label"
    assert re.search(r"\d,\d", labels), "no Russian decimal comma in a visible label"
