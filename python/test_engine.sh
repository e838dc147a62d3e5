#!/usr/bin/env bash
# python/test_engine.sh ENGINE [DIST]: the test of the Python package on a
# data engine (docs/deploy.md's recipe for it), against the wheel installed
# into a fresh virtual environment, like python/test.sh.
#
#   python/test_engine.sh spark              # builds this machine's wheel first
#   python/test_engine.sh spark dist/python  # tests the host's wheel DIST holds
#
# 1. The host's wheel (CITECHECK_WHEEL_TARGETS=host python/build.sh), unless
#    DIST is given.
# 2. A fresh virtual environment in a temporary folder, the wheel installed
#    as a user installs it, and the engine with its test tools locked with
#    hashes in python/requirements-ENGINE.txt (the first run downloads
#    them, pip's cache serves the next).
# 3. The Go CLI built from this tree, which the answers are held to.
# 4. pytest over python/tests_engines/test_ENGINE.py, from an empty folder,
#    so the package is the installed one.
#
# Needs Go 1.26 and Python ($PYTHON, else python3) with venv; each engine
# states what else (spark: Python 3.11 or later and a JDK 17 or 21).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: python/test_engine.sh ENGINE [DIST]" >&2
  exit 2
fi
engine=$1
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$root/python/tests_engines/test_$engine.py" ] || [ ! -f "$root/python/requirements-$engine.txt" ]; then
  echo "python/test_engine.sh: no test for the engine \"$engine\" (python/tests_engines/test_$engine.py and python/requirements-$engine.txt)" >&2
  exit 2
fi
python=${PYTHON:-python3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ $# -ge 2 ]; then
  dist=$(cd "$2" && pwd)
else
  dist=$scratch/dist
  CITECHECK_WHEEL_TARGETS=host "$root/python/build.sh" "$dist"
fi

"$python" -m venv "$scratch/venv"
venv=$scratch/venv
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$dist" citecheck
"$venv/bin/python" -m pip install -q --disable-pip-version-check --require-hashes -r "$root/python/requirements-$engine.txt"

(cd "$root" && go build -o "$scratch/citecheck-go" ./cmd/citecheck)

mkdir "$scratch/cwd"
cd "$scratch/cwd"
CITECHECK_REPO=$root CITECHECK_GO_CLI=$scratch/citecheck-go \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$root/python/tests_engines" \
  "$root/python/tests_engines/test_$engine.py"
echo "python/test_engine.sh: the installed wheel passes on $engine"
