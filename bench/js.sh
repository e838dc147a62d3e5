#!/usr/bin/env bash
# The JavaScript package beside the native engine: steady-state checkRaw
# (WebAssembly, in Node) against the native Decode+Check (Run, from
# `go test -bench KitWorkload`, stage=run) on every workload of the
# benchmark kit, the first call after init on a 1 MB body (fresh
# processes), and the .wasm's size compressed. Prints a markdown table;
# with --write, puts it into docs/performance.md between the "js:begin"
# and "js:end" markers.
#
#   bench/js.sh [--write]
#
# Needs go, python3 and node. About five minutes on an idle 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out/js
mkdir -p "$out"
python3 bench/kit/gen_workloads.py --out "$out/workloads" >/dev/null
(cd js && node scripts/build.js)
workloads=(rag_typical many_small unicode_heavy max_scan_benign adversarial_periodic adversarial_overlap)
# Native first, then wasm, then native again: the best of both native
# runs, so that a noisy neighbour during one does not make the ratio.
bench_native() {
  CITECHECK_KIT_WORKLOADS="$PWD/$out/workloads" go test -run '^$' -bench 'KitWorkload/.*/stage=run$' -count 15 -benchtime 200ms . >> "$out/native.txt"
}
: > "$out/native.txt"
bench_native
node bench/js_wasm.mjs "$out/workloads" "${workloads[@]}" > "$out/wasm.json"
bench_native
: > "$out/first.jsonl"
for _ in $(seq 11); do
  for warm in "" warm; do node bench/js_wasm.mjs --first-call $warm >> "$out/first.jsonl"; done
done
python3 - "$out/native.txt" "$out/wasm.json" "$out/first.jsonl" > "$out/js.md" <<'PY'
import json, re, sys, platform, subprocess
best = {}
for line in open(sys.argv[1]):
    m = re.match(r"BenchmarkKitWorkload/(\w+)/stage=run-\d+\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        best[m[1]] = min(best.get(m[1], float("inf")), float(m[2]))
wasm = json.load(open(sys.argv[2]))
first = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True, capture_output=True, text=True).stdout.strip()
node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
go = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True).stdout.strip()
print(f"Measured with `bench/js.sh` on {platform.machine()}, {cpu}; {go}, Node {node}.\n")
print("| workload | body | native Decode+Check | wasm checkRaw | wasm / native |")
print("|---|---|---|---|---|")
fmt = lambda ns: f"{ns / 1e6:.3g} ms" if ns >= 1e5 else f"{ns / 1e3:.3g} µs"
for w, r in wasm["workloads"].items():
    n = best[w]
    print(f"| {w} | {r['bytes'] / 1024:.0f} KiB | {fmt(n)} | {fmt(r['ns_per_op'])} | {r['ns_per_op'] / n:.2f}x |")
print()
print(f"First call on a {first[0]['bytes'] / 1e6:.2f} MB body that holds, each in a fresh process, fastest [median] of {len(first) // 2} runs:")
print()
print("| after init | init | first checkRaw | second checkRaw |")
print("|---|---|---|---|")
for warm in (False, True):
    rs = [r for r in first if r["warm"] == warm]
    lo = lambda k: min(r[k] for r in rs)
    med = lambda k: sorted(r[k] for r in rs)[len(rs) // 2]
    what = "`warm()` (in init's column)" if warm else "nothing"
    print(f"| {what} | {lo('init_ms'):.0f} [{med('init_ms'):.0f}] ms | {lo('first_ms'):.0f} [{med('first_ms'):.0f}] ms | {lo('second_ms'):.0f} [{med('second_ms'):.0f}] ms |")
z = wasm["wasm"]
print()
print(f"citecheck.wasm: {z['bytes'] / 1e6:.2f} MB; gzip -9 {z['gzip9'] / 1e6:.3f} MB; brotli 11 {z['brotli11'] / 1e6:.3f} MB.")
PY
cat "$out/js.md"
if [ "${1:-}" = "--write" ]; then
  python3 - docs/performance.md "$out/js.md" <<'PY'
import sys
doc = open(sys.argv[1], encoding="utf-8").read()
table = open(sys.argv[2], encoding="utf-8").read().strip()
a, b = doc.index("<!-- js:begin -->") + len("<!-- js:begin -->"), doc.index("<!-- js:end -->")
open(sys.argv[1], "w", encoding="utf-8").write(doc[:a] + "\n" + table + "\n" + doc[b:])
PY
fi
