#!/usr/bin/env bash
# Smoke-test the built bundle (dist/gpu-advisor/) offscreen, the same way on Linux and Windows (Git Bash):
#
#   packaging/check.sh lite|full
#
# 1. `gpu-advisor --self-test` (main window, a plan, every page rendered, NVML, a temporary database, and in the
#    full variant a short CPU probe through the bundled gpu-probe); its JSON summary lands in dist/selftest.json.
# 2. full only: `gpu-probe --quick --device cpu` writes a probe report that the app's schema accepts.
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
fi
