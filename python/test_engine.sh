#!/usr/bin/env bash
# python/test_engine.sh ENGINE [DIST]: the tests of citecheck on a data
# engine (python/tests_engines/test_ENGINE.py), against the wheel installed
# into a fresh virtual environment, as python/test.sh does for the package's
# own suite (docs/deploy.md holds each engine's recipe, which the test runs).
#
#   python/test_engine.sh ray                 # builds this machine's wheel first (ENGINE: ray, dask, …)
#   python/test_engine.sh ray dist/python     # tests the host's wheel DIST holds
#
# 1. The host's wheel (CITECHECK_WHEEL_TARGETS=host python/build.sh), unless
#    DIST is given.
# 2. A fresh virtual environment, the wheel installed as a user installs it,
#    and the engine with pytest, locked with hashes in
#    python/requirements-ENGINE.txt (from python/requirements-ENGINE.in).
# 3. The Go CLI built from this tree: the tests hold each answer to one
#    `citecheck run --jsonl` over the same lines.
# 4. pytest over python/tests_engines/test_ENGINE.py, from an empty folder,
#    so the package is the installed one.
#
# Needs Go 1.26 and Python 3.10 or later ($PYTHON, else python3) with venv.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: python/test_engine.sh ENGINE [DIST]" >&2; exit 2; }
engine=$1
root=$(cd "$(dirname "$0")/.." && pwd)
test -f "$root/python/tests_engines/test_$engine.py" || { echo "python/test_engine.sh: no tests for the engine $engine" >&2; exit 2; }
python=${PYTHON:-python3}
# shellcheck source=python/venv.sh
. "$root/python/venv.sh"
installed_wheel "${2:-}" "$root/python/requirements-$engine.txt"
CITECHECK_REPO=$root CITECHECK_GO_CLI=$scratch/citecheck-go CITECHECK_WHEELS=$wheels \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$root/python/tests_engines" "$root/python/tests_engines/test_$engine.py"
echo "python/test_engine.sh: $engine passes"
