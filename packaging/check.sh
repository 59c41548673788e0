#!/usr/bin/env bash
# Smoke-test the built bundle (dist/gpu-advisor/) offscreen, the same way on Linux and Windows (Git Bash):
#
#   packaging/check.sh lite|full
#
# 1. `gpu-advisor --self-test` (main window, a plan, every page rendered, NVML, a temporary database, and in the
#    full variant a short CPU probe through the bundled gpu-probe); its JSON summary lands in dist/selftest.json.
# 2. full only: `gpu-probe --quick --device cpu` writes a probe report that the app's schema accepts.
# 3. full only, Linux/macOS: the frozen collectives hand-off. A frozen gpu-probe cannot run
#    `python -m torch.distributed.run`; it runs torchrun through its own `--torchrun` entry point and each rank as
#    `gpu-probe --collectives-worker` (profiler/collectives.py). Two gloo ranks on the CPU stand in for GPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

variant="${1:-lite}"
bundle=dist/gpu-advisor
exe=""
case "$(uname -s)" in MINGW*|MSYS*|CYGWIN*) exe=".exe" ;; esac
export QT_QPA_PLATFORM=offscreen

start=$(date +%s)
"$bundle/gpu-advisor$exe" --self-test --summary dist/selftest.json
end=$(date +%s)
echo "self-test of the $variant bundle passed in $((end - start)) s (summary: dist/selftest.json)"

if [[ "$variant" == full ]]; then
  start=$(date +%s)
  "$bundle/gpu-probe$exe" --quick --device cpu --json dist/probe-quick.json
  end=$(date +%s)
  test -s dist/probe-quick.json
  echo "gpu-probe --quick from the bundle wrote dist/probe-quick.json in $((end - start)) s"

  if [[ -z "$exe" ]]; then  # torchrun's gloo rendezvous on Windows runners is not part of this check
    start=$(date +%s)
    "$bundle/gpu-probe" --quick --device cpu --collectives --collectives-backend gloo \
      --json dist/probe-collectives.json
    end=$(date +%s)
    if ! grep -q '"busbw_bytes_per_s"' dist/probe-collectives.json; then
      echo "the frozen torchrun hand-off measured no collective:" >&2
      grep -o '"error": "[^"]*"' dist/probe-collectives.json >&2 || true
      exit 1
    fi
    echo "gpu-probe --collectives (torchrun inside the bundle, 2 gloo ranks) worked in $((end - start)) s"
  fi
fi
