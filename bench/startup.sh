#!/usr/bin/env bash
# Start-up of the one citecheck binary beside a Go hello world, and what
# each heavy dependency costs a process that merely links it.
#
#   bench/startup.sh [RUNS]     (hyperfine runs a program, default 1000)
#   STARTUP_CANDIDATE=github.com/VictoriaMetrics/metrics@v1.45.0 bench/startup.sh
#
# STARTUP_CANDIDATE, a module@version, adds the probe of every dependency
# with that module in place of Prometheus (it is fetched with go get into
# the probes' module only), to see what a lighter metrics library would
# save.
#
# Every program is built as the release is (build/citecheck.sh's flags:
# static, -trimpath) and timed by hyperfine, whole process, in one run so
# that they share the machine's load; the table gives each one's fastest
# and median run and its fastest above the hello world's. The probes are
# the hello world with nothing but blank imports (`import _ "…"`): their
# package initialisation and a bigger binary are all they add, so the
# difference between two probes is what a dependency costs at start-up.
# Raw figures stay in bench/out/startup-deps.json.
#
# Needs go, hyperfine (Debian: apt-get install hyperfine), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${1:-1000}
out=$root/bench/out
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build/citecheck.sh "$work/bin/citecheck"

GOFLAGS= CGO_ENABLED=0 go build -trimpath -o "$work/bin/hello" ./bench/hello

# The probes, in a module of their own that requires what ours does.
mkdir -p "$work/probes"
cp go.mod go.sum "$work/probes/"
sed -i.orig '1s#.*#module probes#' "$work/probes/go.mod"
probe() {
  local name=$1
  shift
  mkdir -p "$work/probes/$name"
  {
    printf 'package main\n\nimport (\n\t"os"\n'
    for p in "$@"; do printf '\t_ "%s"\n' "$p"; done
    printf ')\n\nfunc main() { os.Stdout.WriteString("hello, world\\n") }\n'
  } > "$work/probes/$name/main.go"
}
service="net/http html/template github.com/modelcontextprotocol/go-sdk/mcp golang.org/x/net/html"
prometheus="github.com/prometheus/client_golang/prometheus github.com/prometheus/client_golang/prometheus/collectors github.com/prometheus/client_golang/prometheus/promhttp"
probe net-http net/http
probe x-net-html golang.org/x/net/html
probe mcp-sdk github.com/modelcontextprotocol/go-sdk/mcp
probe prometheus $prometheus
probe every-dependency $service $prometheus
probe every-dependency-but-prometheus $service
probe every-dependency-but-x-net-html net/http html/template github.com/modelcontextprotocol/go-sdk/mcp $prometheus
names=(hello net-http x-net-html mcp-sdk prometheus every-dependency-but-prometheus every-dependency-but-x-net-html every-dependency)
if [ -n "${STARTUP_CANDIDATE:-}" ]; then
  (cd "$work/probes" && GOFLAGS=-mod=mod go get "$STARTUP_CANDIDATE")
  probe every-dependency-with-candidate $service "${STARTUP_CANDIDATE%@*}"
  names+=(every-dependency-with-candidate)
fi
(cd "$work/probes" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$work/bin/" ./...)

cp examples/valid.json "$work/valid.json"
cd "$work"
cmds=()
for n in "${names[@]}"; do cmds+=("bin/$n"); done
cmds+=("bin/citecheck run citation-batch-check 1.0.0 --input valid.json")
hyperfine -N --warmup 50 --runs "$runs" --export-json "$out/startup-deps.json" "${cmds[@]}" > /dev/null
python3 - "$out/startup-deps.json" "${names[@]}" "citecheck run (examples/valid.json)" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
names = sys.argv[2:]
base = min(r[0]["times"])
print("| program | fastest | median | fastest above hello |\n|---|---|---|---|")
for name, res in zip(names, r):
    t = res["times"]
    print(f"| {name} | {min(t) * 1e3:.2f} ms | {statistics.median(t) * 1e3:.2f} ms | {(min(t) - base) * 1e3:+.2f} ms |")
PY
