#!/usr/bin/env bash
# Print, from one run:
#   1. Check time per scan unit for each text class of classes_bench_test.go
#      beside max_limits (prose), and the ratio (goal: at most 3x);
#   2. the start-up of `citecheck run` on examples/valid.json beside a Go
#      hello world (bench/hello), whole process, paired runs with hyperfine
#      (goal: within 1.5 ms);
#   3. `citecheck run` on each workload of the benchmark kit (bench/kit, or
#      $CITECHECK_BENCH_KIT) beside the scan floor
#      (bench/scanfloor: read the body, look at every byte once; goal: at
#      most 1.5x) and the kit's hand-written Python (goal: at least 10x
#      slower), whole process, with hyperfine.
# Raw figures stay in bench/out/ (classes.txt, startup.json, kit-*.json).
#
#   bench/classes.sh [COUNT]      (COUNT benchmark runs per class, default 6)
#   bench/classes.sh --kit        (section 3 alone)
#
# With CITECHECK_BEFORE=/path/to/an/older/citecheck, section 3 also times
# that build in the same paired runs (a "before" column), e.g. one built at
# the commit before a change:
#   git worktree add /tmp/before c88877d && (cd /tmp/before && go build -o /tmp/citecheck-before ./cmd/citecheck)
#   CITECHECK_BEFORE=/tmp/citecheck-before bench/classes.sh --kit
# Section 3 takes the fastest of ${KIT_RUNS:-300} runs of each program.
#
# Needs go, hyperfine (Debian: apt-get install hyperfine), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
kit_only=
if [ "${1:-}" = --kit ]; then kit_only=1; shift; fi
count=${1:-6}
out=$root/bench/out
mkdir -p "$out"
go build -o "$out/citecheck" ./cmd/citecheck
go build -o "$out/hello" ./bench/hello
go build -o "$out/scanfloor" ./bench/scanfloor

if [ -z "$kit_only" ]; then
echo "## Check per scan unit, by text class (best of $count runs; ratio to max_limits of the same run)"
go test -run '^$' -bench 'CheckClass' -count "$count" -timeout 60m . > "$out/classes.txt"
python3 - "$out/classes.txt" <<'PY'
import re, sys
best, order = {}, []
# The benchmark thread's CPU time a unit (cpu-ns/unit) is the figure
# compared: on a shared machine, wall time swings with the other load.
for m in re.finditer(r"^BenchmarkCheckClass/class=(\w+)-\d+\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) cpu-ns/unit\s+([\d.]+) ns/unit", open(sys.argv[1]).read(), re.M):
    name, op, cpu, unit = m[1], float(m[2]), float(m[3]), float(m[4])
    if name not in best:
        order.append(name)
    best[name] = min(best.get(name, (float("inf"), 0, 0)), (cpu, unit, op))
if "max_limits" not in best:
    sys.exit("no max_limits row in " + sys.argv[1] + ": has the benchmark's output changed?")
base = best["max_limits"]
print("| class | Check | CPU ns per scan unit | ÷ max_limits | wall ns per unit | ÷ max_limits |\n|---|---|---|---|---|---|")
for n in order:
    cpu, unit, op = best[n]
    print(f"| {n} | {op / 1e6:.3g} ms | {cpu:.4f} | {cpu / base[0]:.2f}x | {unit:.4f} | {unit / base[1]:.2f}x |")
PY

echo
echo "## Start-up: citecheck run beside a Go hello world (hyperfine, paired runs)"
hyperfine -N --warmup 30 --runs 500 --export-json "$out/startup.json" \
  "$out/hello" "$out/citecheck run citation-batch-check 1.0.0 --input examples/valid.json" > /dev/null
python3 - "$out/startup.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
h, c = r[0]["times"], r[1]["times"]
ms = lambda s: f"{s * 1e3:.2f} ms"
print("| program | fastest | median |\n|---|---|---|")
print(f"| Go hello world | {ms(min(h))} | {ms(statistics.median(h))} |")
print(f"| citecheck run (examples/valid.json) | {ms(min(c))} | {ms(statistics.median(c))} |")
print(f"| difference | {ms(min(c) - min(h))} | {ms(statistics.median(c) - statistics.median(h))} |")
PY
fi

kit=${CITECHECK_BENCH_KIT:-bench/kit} # the kit as vendored in this repository
echo
echo "## Whole process on the kit's workloads (hyperfine; Python: fewer runs, cut at ${PY_TIMEOUT:=120} s)"
work=$out/kit
mkdir -p "$work"
cp "$kit"/{gen_workloads.py,refcheck.py,naive_check.py} "$work/"
[ -f "$work/workloads/MANIFEST.json" ] || (cd "$work" && python3 gen_workloads.py >&2)
for w in rag_typical many_small unicode_heavy max_scan_benign adversarial_periodic adversarial_overlap; do
  f=$work/workloads/$w.json
  before=()
  [ -n "${CITECHECK_BEFORE:-}" ] && before=("$CITECHECK_BEFORE run citation-batch-check 1.0.0 --input $f")
  hyperfine -N --warmup 20 --runs "${KIT_RUNS:-300}" -i --export-json "$out/kit-$w.json" \
    "$out/scanfloor $f" "$out/citecheck run citation-batch-check 1.0.0 --input $f" "${before[@]}" > /dev/null
  start=$(date +%s.%N)
  if timeout "$PY_TIMEOUT" python3 "$work/naive_check.py" "$f" --reps 1 > /dev/null; then py_cut=""; else py_cut=">"; fi
  python3 -c "import time,sys; print(time.time() - float(sys.argv[1]))" "$start" > "$out/kit-$w.py"
  echo "$py_cut" >> "$out/kit-$w.py"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
ms = lambda s: f"{s * 1e3:.3g} ms"
r0 = json.load(open(f"{out}/kit-rag_typical.json"))["results"]
before = len(r0) > 2
head = "| workload | scan floor | citecheck run | ÷ scan floor |" + (" before | before ÷ scan floor |" if before else "")
print(head + " hand-written Python (one run) | Python ÷ citecheck |")
print("|---" * (head.count("|") + 1) + "|")
for w in ["rag_typical", "many_small", "unicode_heavy", "max_scan_benign", "adversarial_periodic", "adversarial_overlap"]:
    r = json.load(open(f"{out}/kit-{w}.json"))["results"]
    floor, cc = min(r[0]["times"]), min(r[1]["times"])
    py, cut = open(f"{out}/kit-{w}.py").read().split("\n")[:2]
    py = float(py)
    b = f" {ms(min(r[2]['times']))} | {min(r[2]['times']) / floor:.2f}x |" if before else ""
    print(f"| {w} | {ms(floor)} | {ms(cc)} | {cc / floor:.2f}x |{b} {cut}{py:.3g} s | {cut}{py / cc:.0f}x |")
PY
