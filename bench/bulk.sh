#!/usr/bin/env bash
# Time bulk runs of the built CLI and write the table into docs/performance.md
# between the "bulk:begin" and "bulk:end" markers: `citecheck run --jsonl` on a
# file of LINES copies of a kit workload (rag_typical, many_small), on one core
# and on all of them, beside one process per request on the first 200 lines.
# Each figure is the best of 5 runs.
#
#   bench/bulk.sh [LINES]     (default 1000; about a minute)
#
# Needs go and python3. The workloads come from bench/kit/gen_workloads.py
# (seeded: the same bytes on every machine) into bench/out/bulk/.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in go python3; do
  command -v "$tool" >/dev/null || { echo "bench/bulk.sh: $tool is not installed" >&2; exit 2; }
done
mkdir -p bench/out/bulk
go build -o bench/out/citecheck ./cmd/citecheck
python3 bench/kit/gen_workloads.py --out bench/out/bulk --only rag_typical,many_small >/dev/null
python3 - bench/out "${1:-1000}" > bench/out/bulk.md <<'PY'
import datetime, os, subprocess, sys, time
out, lines = sys.argv[1], int(sys.argv[2])
cli = [os.path.join(out, "citecheck"), "run", "citation-batch-check", "1.0.0"]
cores = os.cpu_count()
alone = 200  # lines answered one process each

def best(cmd, stdin_path, env, runs=5):
    """Fastest wall time of runs, each checked to exit 0 (every request valid)."""
    times = []
    for _ in range(runs):
        with open(stdin_path, "rb") as f:
            t = time.monotonic()
            rc = subprocess.run(cmd, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
            times.append(time.monotonic() - t)
        if rc != 0:
            sys.exit(f"bench/bulk.sh: {cmd} exited {rc}")
    return min(times)

def per_process(line, env, runs=3):
    """Fastest wall time of answering `alone` requests, one process each."""
    times = []
    for _ in range(runs):
        t = time.monotonic()
        for _ in range(alone):
            p = subprocess.run(cli + ["--input", "-"], input=line, stdout=subprocess.DEVNULL, env=env)
            if p.returncode != 0:
                sys.exit(f"bench/bulk.sh: one request exited {p.returncode}")
        times.append(time.monotonic() - t)
    return min(times)

rows = {}
for w in ("rag_typical", "many_small"):
    line = open(os.path.join(out, "bulk", w + ".json"), "rb").read().rstrip(b"\n") + b"\n"
    path = os.path.join(out, "bulk", w + ".jsonl")
    with open(path, "wb") as f:
        for _ in range(lines):
            f.write(line)
    cmd = cli + ["--jsonl", "--input", path]
    one = best(cmd, os.devnull, dict(os.environ, GOMAXPROCS="1"))
    allc = best(cmd, os.devnull, dict(os.environ, GOMAXPROCS=str(cores)))
    proc = per_process(line, dict(os.environ))
    rows[w] = (len(line), lines / one, lines / allc, alone / proc)

fmt = lambda r: f"{r:,.0f} req/s"
cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True,
                     capture_output=True, text=True).stdout.strip()
load = " ".join(f"{x:.2f}" for x in os.getloadavg())
md = [f"Measured {datetime.date.today().isoformat()} on {cpu}, {cores} cores (load average {load} at the end), "
      f"with `bench/bulk.sh` ({lines:,} copies of each kit workload in one file; best of 5 runs).", "",
      "| | " + " | ".join(f"{w} ({rows[w][0] / 1024:.0f} KiB a line)" for w in rows) + " |",
      "|---|" + "---|" * len(rows),
      "| `citecheck run … --jsonl`, `GOMAXPROCS=1` | " + " | ".join(fmt(rows[w][1]) for w in rows) + " |",
      f"| `citecheck run … --jsonl`, all {cores} cores | " + " | ".join(fmt(rows[w][2]) for w in rows) + " |",
      f"| one process per request (`citecheck run … --input -`, {alone} requests) | " + " | ".join(fmt(rows[w][3]) for w in rows) + " |",
      "| `--jsonl` on all cores ÷ one process per request | " + " | ".join(f"{rows[w][2] / rows[w][3]:.0f}x" for w in rows) + " |"]
print("\n".join(md))
PY
python3 bench/splice.py docs/performance.md bulk bench/out/bulk.md
