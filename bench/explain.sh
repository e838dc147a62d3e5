#!/usr/bin/env bash
# Explain beside check, on maximum-size requests (1 MiB, a 512 KiB source)
# in which every citation fails. Two benchmarks, each stage the fastest of
# COUNT runs by process CPU time, with two ratios: the engine's (Explain ÷
# CheckAll of a decoded request) and the request's (Decode+Explain ÷
# Decode+CheckAll: what `run --explain` costs beside `run --all`, or the
# explain route beside execute).
#   - BenchmarkExplainFailingMax: the workloads of honest failures;
#   - BenchmarkExplainHostile: the hostile families of
#     testkit.HostileRequest (text where every question is a scan, claims
#     that nearly occur), with the work the budget counted and its pool.
# Raw figures stay in bench/out/explain.txt and bench/out/explain-hostile.txt.
#
#   bench/explain.sh [COUNT]      (default 10; a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
count="${1:-10}"
go test -run '^$' -bench 'BenchmarkExplainFailingMax' -benchtime 3x -count "$count" -timeout 30m . > bench/out/explain.txt
go test -run '^$' -bench 'BenchmarkExplainHostile' -benchtime 3x -count "$count" -timeout 30m . > bench/out/explain-hostile.txt
python3 - bench/out/explain.txt bench/out/explain-hostile.txt <<'PY'
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
print()
best = collections.defaultdict(lambda: float("inf"))
work = {}
order = []
for line in open(sys.argv[2]):
    m = re.match(r"BenchmarkExplainHostile/(\w+)-\d+\s+\d+\s+[\d.]+ ns/op(.*)", line)
    if not m:
        continue
    if m[1] not in order:
        order.append(m[1])
    metrics = {k: float(v) for v, k in re.findall(r"([\d.e+]+) ([\w/-]+)", m[2])}
    for k in ("decode-cpu-ns/op", "all-cpu-ns/op", "explain-cpu-ns/op"):
        best[m[1], k] = min(best[m[1], k], metrics[k])
    work[m[1]] = (metrics["work-units"], metrics["pool-units"])
print("| family | Decode | CheckAll | Explain | engine ratio | request ratio | work / pool (units) |")
print("|---|---|---|---|---|---|---|")
for w in order:
    d, c, e = (best[w, k] / 1e6 for k in ("decode-cpu-ns/op", "all-cpu-ns/op", "explain-cpu-ns/op"))
    u, p = work[w]
    print(f"| {w} | {d:.2f} ms | {c:.2f} ms | {e:.2f} ms | {e / c:.1f}x | {(d + e) / (d + c):.1f}x | {u / 1e6:.2f} M / {p / 1e6:.2f} M |")
PY
