#!/usr/bin/env bash
# Explain beside check, on maximum-size requests (1 MiB, a 512 KiB source)
# in which every citation fails (BenchmarkExplainFailingMax): for each
# workload the fastest of COUNT runs of Decode, CheckAll and Explain, by
# process CPU time, and two ratios: the engine's (Explain ÷ CheckAll of a
# decoded request) and the request's (Decode+Explain ÷ Decode+CheckAll:
# what `run --explain` costs beside `run --all`, or the explain route
# beside execute). Raw figures stay in bench/out/explain.txt.
#
#   bench/explain.sh [COUNT]      (default 10; a minute or two)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go test -run '^$' -bench 'BenchmarkExplainFailingMax' -benchtime 3x -count "${1:-10}" -timeout 30m . > bench/out/explain.txt
python3 - bench/out/explain.txt <<'PY'
import collections, re, sys
best = collections.defaultdict(lambda: float("inf"))
order = []
for line in open(sys.argv[1]):
    m = re.match(r"BenchmarkExplainFailingMax/(\w+)/(\w+)-\d+\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) cpu-ns/op", line)
    if m:
        if m[1] not in order:
            order.append(m[1])
        best[m[1], m[2]] = min(best[m[1], m[2]], float(m[3]))
print("| workload | Decode | CheckAll | Explain | engine ratio | request ratio |")
print("|---|---|---|---|---|---|")
for w in order:
    d, c, e = (best[w, k] / 1e6 for k in ("decode", "check_all", "explain"))
    print(f"| {w} | {d:.2f} ms | {c:.2f} ms | {e:.2f} ms | {e / c:.1f}x | {(d + e) / (d + c):.1f}x |")
PY
