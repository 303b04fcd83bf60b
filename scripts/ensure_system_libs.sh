#!/usr/bin/env bash
# System packages the project needs, from Debian:
#   libusb-1.0-0   open3d's import needs libusb-1.0.so.0
#   tesseract-ocr  the outside reader in the legibility tests (equipment_label, breaker_label)
#   fonts-dejavu-extra  DejaVu Sans Condensed Bold, the plate and RO-board font (car_plate, ro_board)
#   fonts-humor-sans    Humor Sans, the handwritten RO boards' marker lettering (ro_board)
# Install what is missing when we can (root + apt); otherwise stop with the exact command.
set -euo pipefail
missing=()
ldconfig -p 2>/dev/null | grep -q 'libusb-1.0.so.0' || missing+=(libusb-1.0-0)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf ] || missing+=(fonts-dejavu-extra)
[ -f /usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf ] || missing+=(fonts-humor-sans)
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing ${missing[*]}"
  apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null; }
  exit 0
fi
echo "scenebench needs these system packages: ${missing[*]}. Install them, then rerun make:" >&2
if command -v apt-get >/dev/null 2>&1; then
  echo "  sudo apt-get install -y ${missing[*]}" >&2
else
  echo "  install libusb-1.0, tesseract-ocr, the DejaVu fonts (extra) and Humor Sans with your package manager" >&2
fi
exit 1
