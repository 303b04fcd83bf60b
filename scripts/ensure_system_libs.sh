#!/usr/bin/env bash
# open3d needs the system library libusb-1.0. Install it when missing and we can;
# otherwise stop with the exact command to run.
set -euo pipefail
if ldconfig -p 2>/dev/null | grep -q 'libusb-1.0.so.0'; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing libusb-1.0-0 (needed by open3d)"
  apt-get install -y -qq libusb-1.0-0 >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq libusb-1.0-0 >/dev/null; }
  exit 0
fi
echo "open3d needs libusb-1.0. Install it, then rerun make:" >&2
if command -v apt-get >/dev/null 2>&1; then
  echo "  sudo apt-get install -y libusb-1.0-0" >&2
elif command -v dnf >/dev/null 2>&1; then
  echo "  sudo dnf install -y libusbx" >&2
else
  echo "  install the libusb-1.0 runtime library with your package manager" >&2
fi
exit 1
