# Sourced by python/test.sh and python/test_engine.sh: the wheel a user
# installs, in a fresh virtual environment, beside the Go CLI it is held to.
#
#   installed_wheel DIST REQUIREMENTS
#
# makes $scratch (removed on exit) holding: the host's wheel from DIST, or
# built into it when DIST is empty (CITECHECK_WHEEL_TARGETS=host
# python/build.sh); $venv, with the wheel installed as a user installs it
# (pip install --no-index --find-links DIST citecheck-engine, the name
# python/wheel_version.py --name prints) and the tools
# locked with hashes in REQUIREMENTS; the Go CLI built from this tree at
# $scratch/citecheck-go. It then changes to an empty folder, so the
# package imported is the installed one. Needs $root and $python.
installed_wheel() {
  local dist=$1 requirements=$2
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  if [ -n "$dist" ]; then
    dist=$(cd "$dist" && pwd)
  else
    dist=$scratch/dist
    CITECHECK_WHEEL_TARGETS=host "$root/python/build.sh" "$dist"
  fi
  "$python" -m venv "$scratch/venv"
  venv=$scratch/venv
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$dist" \
    "$("$python" "$root/python/wheel_version.py" --name)"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --require-hashes -r "$requirements"
  (cd "$root" && go build -o "$scratch/citecheck-go" ./cmd/citecheck)
  mkdir "$scratch/cwd"
  cd "$scratch/cwd"
}
