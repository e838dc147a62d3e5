#!/usr/bin/env bash
# Throughput beside a baseline commit, in one run: the execute handler
# (in-process, and over keep-alive loopback connections to Server.Serve)
# and `run --jsonl` bulk runs, at HEAD and at BASE (default c88877d, the
# code before issue 11), alternated COUNT times (default 10) so that both
# see the same machine. Writes bench/out/throughput.txt (benchstat) and the
# table between "throughput:begin" and "throughput:end" in
# docs/performance.md: per benchmark, the fastest run of each side and
# their ratio, in wall time (req/s) and in process CPU per request.
#
#   bench/throughput.sh [BASE] [COUNT]      (about 4 minutes at COUNT 10)
#
# BASE is checked out in a temporary git worktree, and the benchmark files
# of HEAD (server/execute_bench_test.go, cmd/citecheck/bulk_bench_test.go)
# are copied into it: they use nothing that c88877d lacks. Needs go and
# python3; benchstat (golang.org/x/perf/cmd/benchstat) if installed.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-c88877d}
count=${2:-10}
for tool in go python3 git; do
  command -v "$tool" >/dev/null || { echo "bench/throughput.sh: $tool is not installed" >&2; exit 2; }
done
out=bench/out/throughput
mkdir -p "$out"
wt=$(mktemp -d)
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"' EXIT
git worktree add --detach "$wt" "$base" >/dev/null 2>&1
cp server/execute_bench_test.go "$wt/server/"
cp cmd/citecheck/bulk_bench_test.go "$wt/cmd/citecheck/"
go test -c -o "$out/new_server.test" ./server/
go test -c -o "$out/new_cmd.test" ./cmd/citecheck/
# (-tags load: the base commit may still keep its load tests behind that tag.)
(cd "$wt" && go test -c -tags load -o "$OLDPWD/$out/base_server.test" ./server/ &&
  go test -c -o "$OLDPWD/$out/base_cmd.test" ./cmd/citecheck/)
: > "$out/base.txt"
: > "$out/new.txt"
for i in $(seq "$count"); do
  # Alternate which side goes first, so that neither always runs on a
  # machine the other has just warmed (or heated).
  sides="base new"
  if [ $((i % 2)) -eq 0 ]; then sides="new base"; fi
  for side in $sides; do
    (cd server && "../$out/${side}_server.test" -test.run '^$' -test.bench 'ExecuteCPU|ExecuteLoopback' \
      -test.benchtime 1s -test.benchmem) >> "$out/$side.txt"
    (cd cmd/citecheck && "../../$out/${side}_cmd.test" -test.run '^$' -test.bench 'Bulk|SingleRequest' \
      -test.benchtime 10x) >> "$out/$side.txt"
  done
done
if command -v benchstat >/dev/null; then
  benchstat "$out/base.txt" "$out/new.txt" > bench/out/throughput.txt
fi
python3 - "$out/base.txt" "$out/new.txt" "$base" "$count" > "$out/table.md" <<'PY'
import datetime, os, re, subprocess, sys
base_txt, new_txt, base, count = sys.argv[1:5]

def fastest(path):
    """Per benchmark: the fastest run's sec/op, the lowest CPU per request,
    the highest req/s (each the best of its runs, as the page quotes)."""
    best = {}
    for line in open(path):
        if not line.startswith("Benchmark"):
            continue
        f = line.split()
        name = re.sub(r"-\d+$", "", f[0][len("Benchmark"):])
        m = {f[i + 1]: float(f[i]) for i in range(2, len(f) - 1, 2)}
        cpu = m.get("cpu-ns/op", m.get("cpu-ns/req"))
        rps = m.get("req/s")
        if rps is None and "ns/op" in m:
            rps = 1e9 / m["ns/op"]  # one request an op
        b = best.setdefault(name, [0.0, float("inf")])
        b[0], b[1] = max(b[0], rps), min(b[1], cpu)
    return best

old, new = fastest(base_txt), fastest(new_txt)
label = {
    "ExecuteCPU": "execute handler, in-process (`BenchmarkExecuteCPU`)",
    "ExecuteLoopback": "execute over keep-alive loopback, 4 clients (`BenchmarkExecuteLoopback`)",
    "Bulk/small_2x4KB_8cit": "`run --jsonl`, small rows (`BenchmarkBulk`, 2 workers)",
    "Bulk/rag_4x20KB_24cit": "`run --jsonl`, typical batch (`BenchmarkBulk`, 2 workers)",
    "SingleRequest/small_2x4KB_8cit": "one after another, small rows (`BenchmarkSingleRequest`)",
    "SingleRequest/rag_4x20KB_24cit": "one after another, typical batch (`BenchmarkSingleRequest`)",
}
cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True,
                     capture_output=True, text=True).stdout.strip()
head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
load = " ".join(f"{x:.2f}" for x in os.getloadavg())
print(f"Measured {datetime.date.today().isoformat()} on {cpu}, {os.cpu_count()} cores (load average {load} "
      f"at the end), with `bench/throughput.sh`: HEAD ({head}) beside {base}, alternated {count} times; "
      "each figure is the best of its runs, the ratio HEAD ÷ base (CPU: base ÷ HEAD, > 1 is faster).")
print()
print("| | req/s base | req/s HEAD | ratio | CPU/request base | CPU/request HEAD | ratio |")
print("|---|---|---|---|---|---|---|")
for name, text in label.items():
    if name not in old or name not in new:
        continue
    (ro, co), (rn, cn) = old[name], new[name]
    print(f"| {text} | {ro:,.0f} | {rn:,.0f} | {rn / ro:.2f}x | {co / 1e3:,.0f} µs | {cn / 1e3:,.0f} µs | {co / cn:.2f}x |")
PY
cat "$out/table.md"
python3 bench/splice.py docs/performance.md throughput "$out/table.md"
