#!/usr/bin/env bash
# python/test.sh [DIST]: the Python package's tests, against the wheel
# installed into a fresh virtual environment (docs/python.md, CONTRIBUTING.md).
#
#   python/test.sh                  # builds this machine's wheel first (about 10 s)
#   python/test.sh dist/python      # tests the host's wheel DIST already holds
#
# 1. The host's wheel (CITECHECK_WHEEL_TARGETS=host python/build.sh), unless
#    DIST is given.
# 2. A fresh virtual environment in a temporary folder, the wheel installed
#    as a user installs it (pip install --no-index --find-links DIST
#    citecheck-engine), and the test tools locked with hashes in
#    python/requirements-test.txt (pytest, mypy, ruff, and pyarrow and
#    pandas for the extras' modules; the first run
#    downloads them, pip's cache serves the next).
# 3. The Go CLI built from this tree, which the tests hold the package to.
# 4. pytest over python/tests, from an empty folder, so the package is the
#    installed one (the tests refuse the source tree's); mypy --strict over
#    the installed package; ruff check over python/; the build tools' own
#    unittests (python/*_test.py).
#
# Needs Go 1.26 and Python 3.10 or later ($PYTHON, else python3) with venv.
# About a minute on a 2-core machine, after the first run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
# shellcheck source=python/venv.sh
. "$root/python/venv.sh"
installed_wheel "${1:-}" "$root/python/requirements-test.txt"
CITECHECK_REPO=$root CITECHECK_GO_CLI=$scratch/citecheck-go \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$root/python/tests" "$root/python/tests"
"$venv/bin/python" -m mypy --config-file "$root/python/pyproject.toml" --cache-dir "$scratch/mypy" -p citecheck
"$venv/bin/ruff" check --no-cache "$root/python"
"$venv/bin/python" -m unittest discover -s "$root/python" -p '*_test.py'
echo "python/test.sh: the installed wheel passes"
