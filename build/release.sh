#!/usr/bin/env bash
# build/release.sh VERSION OUTDIR [GOOS/GOARCH...]: the release archives.
#
#   build/release.sh v1.2.0 dist
#
# For each target (by default linux, darwin and windows on amd64 and
# arm64) it builds citecheck with build/citecheck.sh, VERSION stamped into
# `citecheck version`, and packs it with README.md and LICENSE into
# OUTDIR/citecheck_VERSION_GOOS_GOARCH.tar.gz (.zip for windows), under a
# folder of the same name; then OUTDIR/SHA256SUMS, in the format
# `sha256sum -c` and `shasum -a 256 -c` check.
#
# Reproducible: the same source, VERSION and go release give the same
# bytes. The binary is built as build/citecheck.sh says; the archives
# (build/archive) hold their files in a fixed order, owned by 0:0, with
# fixed modes, and dated SOURCE_DATE_EPOCH, else the commit time of HEAD,
# else 1980-01-01.
set -euo pipefail
usage="usage: build/release.sh VERSION OUTDIR [GOOS/GOARCH...]   (VERSION: the tag, e.g. v1.2.0)"
version=${1:?$usage}
outdir=${2:?$usage}
shift 2
if ! [[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
  echo "build/release.sh: VERSION $version is not a semantic version tag like v1.2.0" >&2
  exit 2
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
fi
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# The version is the tag being released: say so when HEAD carries another.
if tag=$(git describe --tags --exact-match HEAD 2>/dev/null) && [ "$tag" != "$version" ]; then
  echo "build/release.sh: warning: HEAD is tagged $tag; releasing it as $version" >&2
fi

mtime=${SOURCE_DATE_EPOCH:-}
if [ -z "$mtime" ]; then
  mtime=$(git log -1 --format=%ct 2>/dev/null || true)
fi
mtime=${mtime:-315532800}

docs=(README.md LICENSE)

# The packer, built once (GOFLAGS of the environment ignored, as for the
# command).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GOFLAGS= go build -o "$work/archive" ./build/archive

archives=()
for target in "${targets[@]}"; do
  goos=${target%/*}
  goarch=${target#*/}
  name=citecheck_${version}_${goos}_${goarch}
  exe=citecheck
  ext=tar.gz
  if [ "$goos" = windows ]; then
    exe=citecheck.exe
    ext=zip
  fi
  mkdir -p "$work/$name"
  GOOS=$goos GOARCH=$goarch CITECHECK_VERSION=$version build/citecheck.sh "$work/$name/$exe"
  cp "${docs[@]}" "$work/$name/"
  "$work/archive" -o "$outdir/$name.$ext" -mtime "$mtime" -dir "$work/$name" "$exe" "${docs[@]}"
  archives+=("$name.$ext")
  echo "$outdir/$name.$ext"
done
"$work/archive" -sums "$outdir/SHA256SUMS" -dir "$outdir" "${archives[@]}"
echo "$outdir/SHA256SUMS"
