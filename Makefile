# GPU Advisor: the two front-door commands are `make run` and `make test`.
# Everything installs into a local virtual environment (.venv) from the project's own files.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
# torch for tests and the probe: pinned so pip takes the CPU build (a bare "torch" pulls a multi-GB CUDA build).
TORCH_PIN ?= torch==2.13.0
# vLLM, for its `vllm serve` argument parser only (tests/exports/test_vllm_serve_parser.py): installed with
# --no-deps (its torch==2.14.0 pin would replace the CPU torch); the parser's imports are the vllm-parser extra.
VLLM_PIN ?= vllm==0.33.0
# torchtitan, for its ConfigManager only (tests/exports/test_torchtitan_parser.py): --no-deps like vLLM; what its
# config registries import is the torchtitan-parser extra.
TORCHTITAN_PIN ?= torchtitan==0.3.0
# Interface translations: the .ts sources and the compiled .qm files the app loads (see `translations` below).
TS_FILES := assets/i18n/gpu_advisor_ru.ts assets/i18n/gpu_advisor_en.ts
QM_FILES := $(TS_FILES:.ts=.qm)
export QT_API := pyside6
export PYQTGRAPH_QT_LIB := PySide6

.PHONY: run test test-fast typecheck bench validate screenshots translations package package-lite package-check lint clean device-check fuzz family-table

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The app itself (no torch: the GUI never imports it; Run probe uses gpu-probe when torch is present).
$(VENV)/.app-installed: $(BIN)/activate pyproject.toml
	$(PY) -m pip install --quiet -e .
	touch $@

# Tests also need torch (probe and the memory cross-check), the dev tools, the trace extra and the frameworks the exports are run
# with (tests/exports: DeepSpeed, accelerate, transformers, peft; pure Python, about 40 s, ~150 MB). DeepSpeed
# builds no ops at install (DS_BUILD_OPS=0) and takes the CPU torch pinned in the same command.
$(VENV)/.test-installed: $(VENV)/.app-installed
	DS_BUILD_OPS=0 $(PY) -m pip install --quiet "$(TORCH_PIN)" -e ".[dev,exports-test,trace,vllm-parser,peer,torchtitan-parser]"
	$(PY) -m pip install --quiet --no-deps "$(VLLM_PIN)" "$(TORCHTITAN_PIN)"
	touch $@

run: $(VENV)/.app-installed $(QM_FILES)
	$(BIN)/gpu-advisor

test: $(VENV)/.test-installed $(QM_FILES)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider --durations=15

# The inner loop (CONTRIBUTING.md): the pure core and the fast GUI tests, under a minute on 2 cores (about 40 s).
# Left to `make test`: tests marked slow (a probe, self-test or screenshot child process, torchrun, a real torch
# training step) and the whole-window suites below, which build the main window or a full page for every test.
WINDOW_SUITES := tests/desktop/test_main_window.py tests/desktop/test_quotes_page.py tests/desktop/test_probe_runs.py \
	tests/desktop/test_issue13_defects.py tests/desktop/test_plan_defaults.py
test-fast: $(VENV)/.test-installed $(QM_FILES)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider -m "not slow" -x $(addprefix --ignore=,$(WINDOW_SUITES))

# The fuzzing harness of issue 14 (tests/fuzz/README.md), long: random hostile inputs against every entry point,
# each one counted; prints the summary table (entry point, inputs, accepted, clean refusals, crashes, hangs, JSON
# violations) and writes it to $(FUZZ_TALLY). `make test` runs the same tests bounded (profile fuzz-ci).
# FUZZ_EXAMPLES=N sets the examples per test (default: the fuzz profile's 1000).
FUZZ_TALLY ?= out/fuzz-tally.json
fuzz: $(VENV)/.test-installed
	HYPOTHESIS_PROFILE=fuzz FUZZ_TALLY=$(FUZZ_TALLY) QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider -rf tests/fuzz

# mypy over planner/, profiler/ (strict) and desktop/ (stated level); configuration in pyproject.toml.
typecheck: $(VENV)/.test-installed
	$(BIN)/mypy

bench: $(VENV)/.test-installed
	QT_QPA_PLATFORM=offscreen $(PY) -m tests.bench

# Issue 26's per-family table: every plan family planned, exported and run one CPU step (or parsed by torchtitan's /
# vLLM's own parser); planned vs measured peak per family (tests/exports/family_table.py; about 15 minutes).
family-table: $(VENV)/.test-installed
	$(PY) -m tests.exports.family_table

# The performance model against the shipped published runs (planner/catalog/validation.json): every case, the
# statistics, leave-one-source-out cross-validation and the error bands (docs/architecture.md, "Performance model").
validate: $(VENV)/.app-installed
	$(BIN)/gpu-advisor validate
	$(PY) -m planner.cli.validate_peer  # NVIDIA's AIConfigurator beside ours where the peer extra is installed

screenshots: $(VENV)/.app-installed
	QT_QPA_PLATFORM=offscreen $(BIN)/gpu-advisor --screenshots docs/screenshots
	QT_QPA_PLATFORM=offscreen $(BIN)/gpu-advisor --lang ru --screenshots docs/screenshots/ru  # README.ru.md

# Translations (desktop/i18n.py). assets/i18n/gpu_advisor_ru.ts is what translators edit; the .qm beside it is
# what the app loads. Both are committed, so `make run` works from a clean checkout (tests check the .qm matches
# the .ts and the .ts covers every tr() string). `make translations` re-reads the tr() strings in desktop/ into
# the .ts (pyside6-lupdate keeps existing translations; new strings come in "unfinished") and rebuilds the .qm.
# gpu_advisor_en.ts holds only English plural forms ("1 quote" / "2 quotes"), written from the "(s)" in each
# %n text by packaging/fill_english_plurals.py.
DESKTOP_SOURCES = $$(find desktop -name '*.py' | sort)
translations: $(VENV)/.app-installed
	$(BIN)/pyside6-lupdate -no-obsolete -locations relative $(DESKTOP_SOURCES) -ts assets/i18n/gpu_advisor_ru.ts
	$(BIN)/pyside6-lupdate -pluralonly -no-obsolete -locations relative -target-language en_US $(DESKTOP_SOURCES) \
		-ts assets/i18n/gpu_advisor_en.ts
	$(PY) packaging/fill_english_plurals.py assets/i18n/gpu_advisor_en.ts
	$(BIN)/pyside6-lrelease $(TS_FILES)

$(QM_FILES): %.qm: %.ts | $(VENV)/.app-installed
	$(BIN)/pyside6-lrelease $< -qm $@

# Packaged executables (packaging/gpu_advisor.spec): dist/gpu-advisor/ with gpu-advisor and gpu-probe.
# PyInstaller (the `package` extra) is installed here only, never by `make test`.
$(VENV)/.package-installed: $(VENV)/.app-installed
	$(PY) -m pip install --quiet -e ".[package]"
	touch $@

package: $(VENV)/.package-installed  # "full": gpu-probe carries torch (CPU build here)
	$(PY) -m pip install --quiet "$(TORCH_PIN)"
	PYTHON=$(PY) bash packaging/build.sh full

package-lite: $(VENV)/.package-installed  # "lite": no torch; planning, NVML and report import
	PYTHON=$(PY) bash packaging/build.sh lite

# Build a bundle and smoke-test it offscreen: `gpu-advisor --self-test`, and for VARIANT=full also
# `gpu-probe --quick`. The same two scripts run in packaging/github-ci.yml on Linux and Windows.
VARIANT ?= lite
package-check: $(VENV)/.package-installed
	$(if $(filter full,$(VARIANT)),$(PY) -m pip install --quiet "$(TORCH_PIN)")
	PYTHON=$(PY) bash packaging/build.sh $(VARIANT)
	bash packaging/check.sh $(VARIANT)

# The checks only a real NVIDIA GPU can answer (docs/device-check.md): under 10 minutes, one JSON file and a
# summary. Uses this venv's torch, or a CUDA build of torch in python3/python on PATH (or DEVICE_CHECK_PYTHON);
# DEVICE_CHECK_TORCH=torch==2.13.0 installs one into the venv first (PyPI's Linux wheel is a CUDA build).
# Without a GPU the GPU steps are skipped, with the reason, and it still exits 0.
DEVICE_CHECK_OUT ?= device-check.json
device-check: $(VENV)/.app-installed
	$(if $(DEVICE_CHECK_TORCH),$(PY) -m pip install --quiet "$(DEVICE_CHECK_TORCH)")
	$(PY) -m profiler.device_check --out $(DEVICE_CHECK_OUT)

# ruff (pyproject.toml [tool.ruff]), the import-linter layer contracts (pyproject.toml [tool.importlinter]) and
# vulture's dead-code check (pyproject.toml [tool.vulture]).
lint: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/vulture

clean:
	rm -rf $(VENV) build dist *.egg-info
