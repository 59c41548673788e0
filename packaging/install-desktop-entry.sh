#!/usr/bin/env bash
# Add GPU Advisor to the Linux desktop menu for the current user (no root needed):
#
#   packaging/install-desktop-entry.sh [/path/to/gpu-advisor-executable]
#
# Default executable: the unpacked bundle next to this script's repository (dist/gpu-advisor/gpu-advisor), or
# `gpu-advisor` on PATH (a pip install). Copies the icon into the hicolor theme and the .desktop file into
# ~/.local/share/applications with Exec pointing at the executable. Undo with --uninstall.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
sizes=(16 24 32 48 64 128 256 512)

if [[ "${1:-}" == "--uninstall" ]]; then
  rm -f "$data/applications/gpu-advisor.desktop"
  for size in "${sizes[@]}"; do rm -f "$data/icons/hicolor/${size}x${size}/apps/gpu-advisor.png"; done
  rm -f "$data/icons/hicolor/scalable/apps/gpu-advisor.svg"
  echo "removed GPU Advisor from the desktop menu"
  exit 0
fi

exe="${1:-}"
if [[ -z "$exe" ]]; then
  if [[ -x "$here/dist/gpu-advisor/gpu-advisor" ]]; then exe="$here/dist/gpu-advisor/gpu-advisor"
  else exe="$(command -v gpu-advisor || true)"; fi
fi
[[ -n "$exe" && -x "$exe" ]] || { echo "cannot find the gpu-advisor executable; pass its path" >&2; exit 2; }
exe="$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")"

# Icons: from the source tree, or from the bundle's copy of the assets.
icons="$here/assets/icons"
[[ -d "$icons" ]] || icons="$(dirname "$exe")/_internal/gpu_advisor_assets/icons"
desktop_file="$(dirname "$icons")/gpu-advisor.desktop"

for size in "${sizes[@]}"; do
  install -D -m 644 "$icons/gpu-advisor-$size.png" "$data/icons/hicolor/${size}x${size}/apps/gpu-advisor.png"
done
[[ -f "$icons/gpu-advisor.svg" ]] && install -D -m 644 "$icons/gpu-advisor.svg" "$data/icons/hicolor/scalable/apps/gpu-advisor.svg"
mkdir -p "$data/applications"
# Quote the path for the Exec key (desktop entry spec: arguments with spaces go in double quotes).
sed "s|^Exec=.*|Exec=\"$exe\"|" "$desktop_file" > "$data/applications/gpu-advisor.desktop"
chmod 644 "$data/applications/gpu-advisor.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
echo "GPU Advisor added to the desktop menu (Exec=$exe)"
