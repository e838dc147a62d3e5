#!/usr/bin/env bash
# python/build.sh DIST: the Python package's wheels, into DIST (created if
# missing; the citecheck_engine-*.whl it holds are replaced).
#
#   python/build.sh dist/python
#   CITECHECK_WHEEL_TARGETS=host python/build.sh dist/python    # only this machine's wheel
#   CITECHECK_VERSION=v1.2.0 python/build.sh dist/python        # as release v1.2.0
#
# One wheel per platform, citecheck_engine-VERSION-py3-none-PLATFORM.whl,
# each carrying the citecheck command as its script (pip puts it on PATH)
# beside the Python package citecheck. The distribution is citecheck-engine
# (python/wheel_version.py: PyPI's citecheck is another project).
# The platforms, and the GOOS/GOARCH each wheel's command is built for,
# are listed once, in python/wheel_platforms.py (`python3
# python/wheel_platforms.py` prints them): Linux (manylinux2014 and
# musllinux 1.2) on x86_64 and aarch64, macOS 12 or later on x86_64 and
# arm64, Windows on amd64 and arm64.
#
# CITECHECK_WHEEL_TARGETS picks some, separated by spaces: "all" (the
# default), "host" (the one pip on this machine installs) or platform tags.
#
# The command is built as the release archives build it
# (build/citecheck.sh: static, CGO_ENABLED=0, so one linux binary serves
# glibc and musl), stamped with the version: CITECHECK_VERSION if set, else
# the semantic version tag HEAD carries, else v0.0.0-dev. The wheels'
# version is that tag's PEP 440 form (python/wheel_version.py: v1.2.0-rc.1
# is 1.2.0rc1, v0.0.0-dev is 0.0.0.dev0).
#
# The build tools are the ones locked with hashes in
# python/requirements-build.txt, installed into a scratch virtual
# environment (the first build downloads them; pip's cache serves the
# next) and run without build isolation, so nothing else is fetched. It
# needs Go 1.26 and Python 3.10 or later ($PYTHON, else python3); the
# wheels it makes install on Python 3.9 and later.
#
# Reproducible: the same source, version and go release give the same
# bytes (files dated SOURCE_DATE_EPOCH, else the commit time of HEAD, as
# build/release.sh dates the archives). The package is staged in a
# temporary folder, so the tree stays clean. At the end
# python/check_wheels.py checks every wheel: tags, contents, the binary's
# format, metadata and hashes.
set -euo pipefail
usage="usage: python/build.sh DIST"
dist=${1:?$usage}
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}

cd "$root"
if [ ! -f LICENSE ]; then
  echo "python/build.sh: no LICENSE at the repository's root; the wheels' metadata names it, so it must be there" >&2
  exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "python/build.sh: the build tools need Python 3.10 or later; $python is $("$python" -V 2>&1 || echo missing) (set PYTHON)" >&2
  exit 1
fi

# The platforms (python/wheel_platforms.py), as two lists in build order:
# the tags and their goos/goarch.
all_platforms=()
all_targets=()
table=$("$python" python/wheel_platforms.py)
while read -r p target; do
  all_platforms+=("$p")
  all_targets+=("$target")
done <<<"$table"
if [ "${#all_platforms[@]}" -eq 0 ] || [ -z "${all_targets[0]:-}" ]; then
  echo "python/build.sh: python/wheel_platforms.py listed no platforms" >&2
  exit 1
fi

# goos/goarch of a platform tag; fails for a tag no wheel is built for.
target_of() {
  local i
  for i in "${!all_platforms[@]}"; do
    if [ "${all_platforms[$i]}" = "$1" ]; then
      echo "${all_targets[$i]}"
      return 0
    fi
  done
  return 1
}

platforms=()
for p in ${CITECHECK_WHEEL_TARGETS:-all}; do
  case $p in
    all) platforms+=("${all_platforms[@]}") ;;
    host)
      # This machine's wheel: on linux, manylinux where the C library is
      # glibc and musllinux where it is musl.
      host=$("$python" python/wheel_platforms.py --host "$(go env GOHOSTOS)/$(go env GOHOSTARCH)") ||
        { echo "python/build.sh: CITECHECK_WHEEL_TARGETS: host: this machine has no wheel" >&2; exit 2; }
      platforms+=("$host")
      ;;
    *)
      if ! target_of "$p" >/dev/null; then
        echo "python/build.sh: CITECHECK_WHEEL_TARGETS: $p is not one of: all host ${all_platforms[*]}" >&2
        exit 2
      fi
      platforms+=("$p")
      ;;
  esac
done
# Each once, in the order given.
platforms=($(printf '%s\n' "${platforms[@]}" | awk '!seen[$0]++'))

tag=${CITECHECK_VERSION:-}
if [ -z "$tag" ]; then
  tag=$(git tag --points-at HEAD 2>/dev/null | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+([-+].*)?$' | head -n 1 || true)
fi
tag=${tag:-v0.0.0-dev}
version=$("$python" python/wheel_version.py "$tag")
wheel_name=$("$python" python/wheel_version.py --wheel-name)

mtime=${SOURCE_DATE_EPOCH:-}
if [ -z "$mtime" ]; then
  mtime=$(git log -1 --format=%ct 2>/dev/null || true)
fi
export SOURCE_DATE_EPOCH=${mtime:-315532800}

mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The build tools, exactly as locked: wheels only (no build step of their
# own), every file checked against its hash.
"$python" -m venv "$work/venv"
tools=$work/venv/bin/python
[ -x "$tools" ] || tools=$work/venv/Scripts/python.exe
"$tools" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: \
  -r python/requirements-build.txt

# The project as hatchling sees it: pyproject.toml, the hook and the
# platform list it imports, the package, the long description and the
# licence; nothing the tree has beside them (no __pycache__, no build
# output).
stage=$work/stage
mkdir -p "$stage"
cp python/pyproject.toml python/hatch_build.py python/wheel_platforms.py python/README.md LICENSE "$stage/"
cp -R python/citecheck "$stage/citecheck"
find "$stage/citecheck" -name __pycache__ -prune -exec rm -rf {} +
find "$stage/citecheck" -name '*.pyc' -exec rm -f {} +

rm -f "$dist/$wheel_name"-*.whl
built=" "
for platform in "${platforms[@]}"; do
  target=$(target_of "$platform")
  goos=${target%/*}
  goarch=${target#*/}
  exe=citecheck
  [ "$goos" = windows ] && exe=citecheck.exe
  binary=$work/bin/$goos-$goarch/$exe
  if [[ $built != *" $target "* ]]; then
    GOOS=$goos GOARCH=$goarch CITECHECK_VERSION=$tag build/citecheck.sh "$binary"
    built+="$target "
  fi
  CITECHECK_WHEEL_VERSION=$version CITECHECK_WHEEL_PLATFORM=$platform CITECHECK_WHEEL_BINARY=$binary \
    "$tools" -m build --wheel --no-isolation --outdir "$dist" "$stage" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; echo "python/build.sh: the $platform wheel failed" >&2; exit 1; }
  echo "$dist/$wheel_name-$version-py3-none-$platform.whl"
done

"$python" python/check_wheels.py --tag "$tag" --platforms "${platforms[*]}" "$dist"
