#!/usr/bin/env bash
# Decode per body class (ASCII prose, multi-byte text, many small strings,
# \uXXXX-escaped text, bodies written by Python's json.dumps and by Go's
# encoding/json) beside the previous decoder (jsontext, kept in the
# tests as the reference) and encoding/json, in one run; benchstat prints
# the medians per decoder side by side, then the fastest of the runs per
# benchmark: MB/s of wall time, of the process's CPU time (the garbage
# collector's workers included) and of the decoding thread's CPU time.
# Raw figures stay in bench/out/decode.txt.
#
#   bench/decode.sh [COUNT]      (default 10; about three minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go test -run '^$' -bench 'BenchmarkDecodeClass' -count "${1:-10}" -timeout 30m . | tee bench/out/decode.txt
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
"$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")" -col /decoder bench/out/decode.txt
echo
echo "fastest of the runs (MB/s of body):"
awk '/^BenchmarkDecodeClass/ {
	n = $1; sub(/^BenchmarkDecodeClass\//, "", n); sub(/-[0-9]+$/, "", n)
	for (i = 3; i <= NF; i++) {
		if ($i == "MB/s" && $(i-1) > w[n]) w[n] = $(i-1)
		if ($i == "cpu-MB/s" && $(i-1) > c[n]) c[n] = $(i-1)
		if ($i == "thread-MB/s" && $(i-1) > t[n]) t[n] = $(i-1)
		if ($i == "B/op") b[n] = $(i-1)
		if ($i == "kept-B/op") k[n] = $(i-1)
	}
}
END {
	printf "%-44s %8s %8s %8s %10s %10s\n", "benchmark", "wall", "process", "thread", "B/op", "kept-B/op"
	for (n in w) printf "%-44s %8.0f %8.0f %8.0f %10d %10d\n", n, w[n], c[n], t[n], b[n], k[n] | "sort"
}' bench/out/decode.txt
