#!/usr/bin/env bash
# python/test_engine.sh ENGINE [DIST]: an engine's test (python/tests_engines/
# test_ENGINE.py) against the wheel installed into a fresh virtual
# environment, with the engine installed from python/requirements-ENGINE.txt
# (docs/deploy.md has each engine's recipe, which its test runs).
#
#   python/test_engine.sh dask                 # builds this machine's wheel first
#   python/test_engine.sh dask dist/python     # tests the host's wheel DIST holds
#
# 1. The host's wheel (CITECHECK_WHEEL_TARGETS=host python/build.sh), unless
#    DIST is given.
# 2. A fresh virtual environment in a temporary folder, the wheel installed
#    as a user installs it, and the engine with pytest locked with hashes in
#    python/requirements-ENGINE.txt (the first run downloads them, pip's
#    cache serves the next).
# 3. The Go CLI built from this tree, whose `run --jsonl` the answers are
#    held to.
# 4. pytest over python/tests_engines/test_ENGINE.py, from an empty folder,
#    so the package is the installed one.
#
# Needs Go 1.26 and Python 3.10 or later ($PYTHON, else python3) with venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
if [ $# -lt 1 ] || [ ! -f "$root/python/tests_engines/test_$1.py" ]; then
  echo "usage: python/test_engine.sh ENGINE [DIST], ENGINE one of:" \
    $(cd "$root/python/tests_engines" && ls test_*.py | sed 's/^test_//; s/\.py$//') >&2
  exit 2
fi
engine=$1
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
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$root/python/tests_engines" "$root/python/tests_engines/test_$engine.py"
echo "python/test_engine.sh $engine: the installed wheel passes"
