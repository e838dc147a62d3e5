#!/usr/bin/env bash
# Decode per body class (ASCII prose, multi-byte text, many small strings,
# \uXXXX-escaped text) beside the previous decoder (jsontext, kept in the
# tests as the reference) and encoding/json, in one run; benchstat prints
# MB/s and allocations per decoder side by side. Raw figures stay in
# bench/out/decode.txt.
#
#   bench/decode.sh [COUNT]      (default 6; about two minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go test -run '^$' -bench 'BenchmarkDecodeClass' -count "${1:-6}" -timeout 30m . | tee bench/out/decode.txt
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
"$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")" -col /decoder bench/out/decode.txt
