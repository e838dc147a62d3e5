#!/usr/bin/env bash
# Decode per body class and check per text class at HEAD beside a baseline
# commit, in one run: the test binaries of both (the baseline with HEAD's
# benchmark files copied in, so that both measure the same bodies),
# alternated ROUNDS times; per benchmark the fastest run of each side by
# the thread's CPU (decode: thread-MB/s; check: cpu-ns/unit, the decoding
# or checking thread's CPU time, which a shared machine disturbs least),
# their ratio, and each check class's cost over max_limits (prose) of the
# same side. Writes the table between "beside:begin" and "beside:end" in
# docs/performance.md; benchstat of all runs in bench/out/beside.txt, raw
# runs in bench/out/beside/.
#
#   bench/beside.sh [BASE] [ROUNDS]      (default b999bf9, 6; ~8 minutes)
#
# BASE defaults to the engine before its escape loops copied by blocks and
# its rare-byte lists. Needs go, git and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-b999bf9}
rounds=${2:-6}
out=bench/out/beside
mkdir -p "$out"
wt=$(mktemp -d)
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"' EXIT
git worktree add --detach "$wt" "$base" >/dev/null 2>&1
cp decode_bench_test.go classes_bench_test.go "$wt/"
cp internal/testkit/*.go "$wt/internal/testkit/"
go test -c -o "$out/new.test" .
(cd "$wt" && go test -c -o "$OLDPWD/$out/base.test" .)
: > "$out/base.txt"
: > "$out/new.txt"
for i in $(seq "$rounds"); do
  sides="base new"
  if [ $((i % 2)) -eq 0 ]; then sides="new base"; fi
  for side in $sides; do
    "$out/$side.test" -test.run '^$' -test.bench 'DecodeClass/./decoder=citecheck$' -test.benchmem >> "$out/$side.txt"
    "$out/$side.test" -test.run '^$' -test.bench 'CheckClass' -test.benchtime 200x >> "$out/$side.txt"
  done
done
# benchstat of every run, both sides (installed by go install if missing).
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
"$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")" base="$out/base.txt" head="$out/new.txt" > bench/out/beside.txt
python3 - "$out/base.txt" "$out/new.txt" "$base" "$rounds" > "$out/table.md" <<'PY'
import datetime, os, re, subprocess, sys
base_txt, new_txt, base, rounds = sys.argv[1:5]

def fastest(path):
    best = {}
    for line in open(path):
        if not line.startswith("Benchmark"):
            continue
        f = line.split()
        name = re.sub(r"-\d+$", "", f[0][len("Benchmark"):])
        m = {f[i + 1]: float(f[i]) for i in range(2, len(f) - 1, 2)}
        if "thread-MB/s" in m:
            best[name] = max(best.get(name, 0.0), m["thread-MB/s"])
        elif "cpu-ns/unit" in m:
            best[name] = min(best.get(name, float("inf")), m["cpu-ns/unit"])
    return best

old, new = fastest(base_txt), fastest(new_txt)
head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
cpu = next((l.split(":", 1)[1].strip() for l in open(new_txt) if l.startswith("cpu:")), "?")
print(f"Measured {datetime.date.today()} on {cpu}, {os.cpu_count()} cores (load average {' '.join(open('/proc/loadavg').read().split()[:3])} at the end), "
      f"with `bench/beside.sh`: HEAD ({head}) beside {base}, alternated {rounds} times; each figure is the best of its runs by the thread's CPU.")
print()
print("| decode, body class | MB/s base | MB/s HEAD | HEAD ÷ base | HEAD ÷ ascii_prose |")
print("|---|---|---|---|---|")
dec = [n for n in new if n.startswith("DecodeClass/")]
prose = new.get("DecodeClass/class=ascii_prose/decoder=citecheck")
for n in dec:
    c = n.split("/")[1][len("class="):]
    print(f"| {c} | {old.get(n, 0):.0f} | {new[n]:.0f} | {new[n] / old[n]:.2f}x | {new[n] / prose:.2f} |")
print()
print("| check, text class | CPU ns a scan unit base | HEAD | base ÷ HEAD | base ÷ max_limits | HEAD ÷ max_limits |")
print("|---|---|---|---|---|---|")
ob, nb = old["CheckClass/class=max_limits"], new["CheckClass/class=max_limits"]
for n in [n for n in new if n.startswith("CheckClass/")]:
    c = n.split("=", 1)[1]
    print(f"| {c} | {old[n]:.4f} | {new[n]:.4f} | {old[n] / new[n]:.2f}x | {old[n] / ob:.2f}x | {new[n] / nb:.2f}x |")
PY
python3 - docs/performance.md "$out/table.md" <<'PY'
import sys
page, table = sys.argv[1], open(sys.argv[2]).read()
s = open(page).read()
a, b = "<!-- beside:begin -->\n", "<!-- beside:end -->"
i, j = s.index(a) + len(a), s.index(b)
open(page, "w").write(s[:i] + table + s[j:])
PY
cat "$out/table.md"
