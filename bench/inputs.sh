#!/usr/bin/env bash
# Issue 11's figures in one run: decode MB/s per body class beside the
# previous decoder and encoding/json (bench/decode.sh), then check time
# per scan unit per text class beside max_limits, start-up beside a Go
# hello world, and the kit's workloads beside the scan floor and the
# hand-written Python (bench/classes.sh). docs/performance-matching.md is
# written from its output.
#
#   bench/inputs.sh [DECODE_COUNT] [CLASS_COUNT]      (defaults 10 and 6; about 15 minutes)
set -euo pipefail
cd "$(dirname "$0")"
echo "## Decode per body class"
./decode.sh "${1:-10}"
echo
./classes.sh "${2:-6}"
