#!/usr/bin/env bash
# build/citecheck.sh OUT: the one build of the citecheck command. The
# Dockerfile, the release archives (build/release.sh) and the tests of the
# built binary (cmd/citecheck/binary_test.go) all build with it, so they
# all give the same command; `go build ./cmd/citecheck` and `go install`
# give the same command too, only without these flags.
#
#   build/citecheck.sh bin/citecheck
#   GOOS=windows GOARCH=arm64 build/citecheck.sh dist/citecheck.exe
#   CITECHECK_VERSION=v1.2.0 build/citecheck.sh bin/citecheck
#
# Static (CGO_ENABLED=0: the image has no libc, and any GOOS/GOARCH builds
# from any machine) and reproducible: -trimpath keeps the build folder out
# of the binary, the GOFLAGS of the environment are ignored, and the same
# source with the same go release gives the same bytes. -buildvcs=auto
# stamps the VCS revision `citecheck version` prints when the source is a
# git checkout (and, at a tag, the go command stamps the tag as the module
# version). CITECHECK_VERSION, when set (a release tag such as v1.2.0), is
# the version `citecheck version` prints.
set -euo pipefail
out=${1:?usage: build/citecheck.sh OUT}
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
cd "$(dirname "$0")/.."
ldflags=
if [ -n "${CITECHECK_VERSION:-}" ]; then
  ldflags="-X main.stampedVersion=$CITECHECK_VERSION"
fi
GOFLAGS= CGO_ENABLED=0 exec go build -trimpath -buildvcs=auto -ldflags="$ldflags" -o "$out" ./cmd/citecheck
