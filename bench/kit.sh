#!/usr/bin/env bash
# Time the built CLI beside Apache Annotator and hand-written Python with the
# benchmark kit in bench/kit/, check every answer, and write the kit's tables
# into docs/performance.md between the "kit:begin" and "kit:end" markers,
# with the date and the machine.
#
#   bench/kit.sh [--quick] [--workloads a,b] [--peers a,b]
#
# Needs go, python3, node and npm; the kit installs Apache Annotator itself
# (npm ci from bench/kit/node/package-lock.json) into its scratch folder,
# bench/out/kit/. A full run takes about ten minutes: the peers need minutes
# on the adversarial workloads.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
for tool in go python3 node npm; do
  command -v "$tool" >/dev/null || { echo "bench/kit.sh: $tool is not installed (the kit's peers need python3, node and npm)" >&2; exit 2; }
done
mkdir -p bench/out
export BENCH_DIR="$root/bench/out/kit" # the kit's scratch copy: workloads, Node peer
go build -o bench/out/citecheck ./cmd/citecheck
bash bench/kit/run_all.sh --candidate "$root/bench/out/citecheck run citation-batch-check 1.0.0 --input {}" \
  --candidate-name citecheck --md "$root/bench/out/kit.md" --json "$root/bench/out/kit.json" "$@"
# The engine's in-process time on the same bodies (Check after decoding, as
# the peers report theirs), right after the peers, to sit beside them.
CITECHECK_KIT_WORKLOADS="$BENCH_DIR/workloads" go test -run '^$' -bench KitWorkload -count 5 . \
  > bench/out/kitworkload.txt
python3 - "$root/bench/out/kit.md" "$root/bench/out/kit.json" "$root/bench/out/kitworkload.txt" > bench/out/kit-page.md <<'PY'
import datetime, json, platform, re, subprocess, sys
md = open(sys.argv[1], encoding="utf-8").read().strip()
kit = json.load(open(sys.argv[2], encoding="utf-8"))
best = {}  # (workload, stage) -> best ns/op of the Go benchmark
for line in open(sys.argv[3], encoding="utf-8"):
    m = re.match(r"BenchmarkKitWorkload/(\w+)/stage=(\w+)-\d+\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        k = (m[1], m[2])
        best[k] = min(best.get(k, float("inf")), float(m[3]))
rows = ["", "### In-process check time beside the peers' (best of runs; citecheck from `go test -bench KitWorkload`)", "",
        "| workload | citecheck Check | citecheck Decode+Check | naive-py | annotator | naive-py / citecheck Check |",
        "|---|---|---|---|---|---|"]
for w, peers in kit["results"].items():
    def peer(p):
        out = (peers.get(p) or {}).get("inproc", {}).get("output", "")
        m = re.search(r"check_ms_min=([\d.]+)", out)
        est = re.search(r"est_full_ms=([\d.]+)", out)
        return float(est[1]) if est else (float(m[1]) if m else None), bool(est)
    c, r = best.get((w, "check")), best.get((w, "run"))
    if c is None:
        continue
    py, py_est = peer("naive-py")
    an, an_est = peer("annotator")
    f = lambda v, e: "-" if v is None else ("~" if e else "") + f"{v:.3g} ms"
    ratio = "-" if py is None else ("~" if py_est else "") + f"{py / (c / 1e6):.3g}x"
    rows.append(f"| {w} | {c / 1e6:.3g} ms | {r / 1e6:.3g} ms | {f(py, py_est)} | {f(an, an_est)} | {ratio} |")
md += "\n" + "\n".join(rows)
cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True,
                     capture_output=True, text=True).stdout.strip()
head = (f"Measured {datetime.date.today().isoformat()} on {platform.machine()}, {cpu}, "
        f"{subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores, "
        "with `bench/kit.sh`.\n\n")
print(head + md)
PY
python3 bench/splice.py docs/performance.md kit bench/out/kit-page.md
