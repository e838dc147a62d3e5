#!/usr/bin/env bash
# Benchmark the engine beside its baselines in one run and write the ratio
# tables into docs/performance.md between the "engine:begin" and "engine:end" markers:
#   Check beside a hand-written strings.Index checker (BenchmarkCheckVsNaive),
#   Decode beside encoding/json into plain structs (BenchmarkDecode*).
# The raw figures stay in bench/out/engine.txt for benchstat:
#   benchstat -col /impl -filter '.name:CheckVsNaive' bench/out/engine.txt
#
#   bench/engine.sh [COUNT]      (default 6; about four minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go test -run '^$' -bench 'CheckVsNaive|BenchmarkDecode' -count "${1:-6}" -timeout 60m . | tee bench/out/engine.txt
python3 - bench/out/engine.txt > bench/out/engine.md <<'PY'
import datetime, re, statistics, subprocess, sys
raw = open(sys.argv[1], encoding="utf-8").read()
fig = {}  # (benchmark, workload, impl) -> [(ns/op, B/op)]
for m in re.finditer(r"^Benchmark(CheckVsNaive|DecodeEncodingJSON|Decode)/(\w+?)(?:/impl=([\w-]+))?-\d+\s+\d+\s+([\d.]+) ns/op.*?(\d+) B/op", raw, re.M):
    fig.setdefault((m[1], m[2], m[3] or ""), []).append((float(m[4]), int(m[5])))
med = lambda k: statistics.median(x for x, _ in fig[k])
mem = lambda k: fig[k][0][1]
ms = lambda ns: f"{ns / 1e6:.3g} ms"
work = [w for (b, w, i) in fig if b == "CheckVsNaive" and i == "citecheck"]
cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True, capture_output=True, text=True).stdout.strip()
out = [f"Measured {datetime.date.today().isoformat()} on {cpu}, {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores, "
       "with `bench/engine.sh` (medians of 6 runs, baseline and citecheck interleaved in one run).", "",
       "| workload | citecheck `Check` | hand-written Go (`strings.Index` loop) | ratio | citecheck allocs | hand-written allocs |",
       "|---|---|---|---|---|---|"]
for w in work:
    c, n = ("CheckVsNaive", w, "citecheck"), ("CheckVsNaive", w, "naive-go")
    out.append(f"| {w} | {ms(med(c))} | {ms(med(n))} | {med(n) / med(c):.3g}x | {mem(c) / 1024:.0f} KiB | {mem(n) / 1024:.0f} KiB |")
out += ["", "| workload | citecheck `Decode` (strict) | `encoding/json` into plain structs | ratio | citecheck allocs | `encoding/json` allocs |",
        "|---|---|---|---|---|---|"]
for w in work:
    c, j = ("Decode", w, ""), ("DecodeEncodingJSON", w, "")
    if c in fig and j in fig:
        out.append(f"| {w} | {ms(med(c))} | {ms(med(j))} | {med(j) / med(c):.3g}x | {mem(c) / 1024:.0f} KiB | {mem(j) / 1024:.0f} KiB |")
print("\n".join(out))
PY
python3 bench/splice.py docs/performance.md engine bench/out/engine.md
