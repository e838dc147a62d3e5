#!/usr/bin/env bash
# citecheck from Python beside the native engine and a hand-written
# checker (bench/python.py), on the wheel a user installs: builds this
# machine's wheel, installs it into a fresh virtual environment in
# bench/out/python/venv, and runs bench/python.py there, writing its table
# into docs/performance.md between the python:begin and python:end markers.
#
#   bench/python.sh [bench/python.py flags]     (about 3 minutes)
#
# Needs go and python3 (3.10 or later, for the wheel build).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out/python
mkdir -p "$out"
rm -rf "$out/dist" "$out/venv"
CITECHECK_WHEEL_TARGETS=host python/build.sh "$out/dist" >/dev/null
python3 -m venv "$out/venv"
"$out/venv/bin/pip" install -q --no-index --find-links "$out/dist" "$(python3 python/wheel_version.py --name)"
"$out/venv/bin/python" bench/python.py --md docs/performance.md "$@"
