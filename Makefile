# GPU Advisor: the two front-door commands are `make run` and `make test`.
# Everything installs into a local virtual environment (.venv) from the project's own files.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
# torch for tests and the probe: pinned so pip takes the CPU build (a bare "torch" pulls a multi-GB CUDA build).
TORCH_PIN ?= torch==2.13.0
export QT_API := pyside6
export PYQTGRAPH_QT_LIB := PySide6

.PHONY: run test bench screenshots translations package package-lite package-check lint clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The app itself (no torch: the GUI never imports it; Run probe uses gpu-probe when torch is present).
$(VENV)/.app-installed: $(BIN)/activate pyproject.toml
	$(PY) -m pip install --quiet -e .
	touch $@

# Tests also need torch (probe and the memory cross-check) and the dev tools.
$(VENV)/.test-installed: $(VENV)/.app-installed
	$(PY) -m pip install --quiet "$(TORCH_PIN)" -e ".[dev]"
	touch $@

run: $(VENV)/.app-installed
	$(BIN)/gpu-advisor

test: $(VENV)/.test-installed
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider

bench: $(VENV)/.test-installed
	QT_QPA_PLATFORM=offscreen $(PY) -m tests.bench

screenshots: $(VENV)/.app-installed
	QT_QPA_PLATFORM=offscreen $(BIN)/gpu-advisor --screenshots docs/screenshots

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) build dist *.egg-info
