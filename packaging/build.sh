#!/usr/bin/env bash
# Build the GPU Advisor bundle with PyInstaller: dist/gpu-advisor/ with gpu-advisor and gpu-probe.
#
#   packaging/build.sh lite|full
#
# Used by `make package` (full), `make package-lite` and `make package-check`, and by packaging/github-ci.yml on
# Linux and Windows (Git Bash), so every platform runs the same steps. PYTHON selects the interpreter (default:
# the project's .venv); it must already have the app and the `package` extra installed, plus torch for "full".
set -euo pipefail
cd "$(dirname "$0")/.."

variant="${1:-lite}"
case "$variant" in lite|full) ;; *) echo "usage: $0 lite|full" >&2; exit 2 ;; esac

if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python
  elif [[ -x .venv/Scripts/python.exe ]]; then PYTHON=.venv/Scripts/python.exe
  else PYTHON=python; fi
fi

if [[ "$variant" == full ]] && ! "$PYTHON" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"; then
  echo "the full variant needs torch in $PYTHON (make package installs the CPU build)" >&2
  exit 2
fi

rm -rf dist/gpu-advisor "build/pyinstaller-$variant"
start=$(date +%s)
GPU_ADVISOR_VARIANT="$variant" "$PYTHON" -m PyInstaller --noconfirm --log-level WARN \
  --distpath dist --workpath "build/pyinstaller-$variant" packaging/gpu_advisor.spec
end=$(date +%s)
echo "built the $variant bundle in $((end - start)) s: $(du -sh dist/gpu-advisor | cut -f1) in dist/gpu-advisor/"
