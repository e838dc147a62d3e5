#!/usr/bin/env bash
# python/test_frameworks.sh [DIST]: citecheck's adapters for the LLM
# frameworks (docs/frameworks.md), tested with the frameworks' real packages,
# offline, against the wheel installed into a fresh virtual environment, as
# python/test.sh does for the package's own suite.
#
#   python/test_frameworks.sh                 # builds this machine's wheel first
#   python/test_frameworks.sh dist/python     # tests the host's wheel DIST holds
#
# 1. The host's wheel (CITECHECK_WHEEL_TARGETS=host python/build.sh), unless
#    DIST is given.
# 2. A fresh virtual environment, the wheel installed as a user installs it,
#    and the frameworks with pytest and mypy, locked with hashes in
#    python/requirements-frameworks.txt (from requirements-frameworks.in).
# 3. The Go CLI built from this tree: each adapter's outcomes are held to
#    `citecheck quotes` over the same input.
# 4. pytest over python/tests_frameworks from an empty folder, so the package
#    is the installed one; then mypy --strict over the installed package with
#    every framework present (python/test.sh checks it without them).
#
# Needs Go 1.26 and Python 3.10 or later ($PYTHON, else python3) with venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
# shellcheck source=python/venv.sh
. "$root/python/venv.sh"
installed_wheel "${1:-}" "$root/python/requirements-frameworks.txt"
CITECHECK_REPO=$root CITECHECK_GO_CLI=$scratch/citecheck-go \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$root/python/tests_frameworks" "$root/python/tests_frameworks"
"$venv/bin/python" -m mypy --config-file "$root/python/pyproject.toml" --cache-dir "$scratch/mypy" -p citecheck
echo "python/test_frameworks.sh: the adapters pass"
