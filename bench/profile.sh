#!/usr/bin/env bash
# CPU and allocation profiles of the costliest call, a maximum-size body
# (BenchmarkRun/max_limits: 1 MiB, 16,777,216 scan units), into bench/out/,
# and their top entries into docs/performance.md between the "profile:begin" and
# "profile:end" markers. Explore further with
#   go tool pprof -http=: bench/out/citecheck.test bench/out/cpu.prof
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
go test -run '^$' -bench 'BenchmarkRun/max_limits$' -benchtime 300x -o bench/out/citecheck.test \
  -cpuprofile bench/out/cpu.prof -memprofile bench/out/mem.prof . >/dev/null
top() { go tool pprof -top -nodecount=12 "$@" 2>/dev/null | sed -n '/flat%/,$p'; }
{
  echo '```'
  echo "CPU (go tool pprof -top bench/out/cpu.prof)"
  top bench/out/citecheck.test bench/out/cpu.prof
  echo
  echo "Allocated bytes (go tool pprof -sample_index=alloc_space -top bench/out/mem.prof)"
  top -sample_index=alloc_space bench/out/citecheck.test bench/out/mem.prof
  echo '```'
} > bench/out/profile.md
python3 bench/splice.py docs/performance.md profile bench/out/profile.md
