#!/usr/bin/env bash
# Time the built CLI beside Apache Annotator and hand-written Python with the
# shared benchmark kit (../shared/bench), check every answer, and write the
# kit's tables into README.md between the "kit:begin" and "kit:end" markers,
# with the date and the machine.
#
#   bench/kit.sh [--quick] [--workloads a,b] [--peers a,b]
#
# Needs python3, node and npm (the kit installs Apache Annotator from npm into
# its cache folder). A full run takes about ten minutes: the peers need
# minutes on the adversarial workloads.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
kit=${CITECHECK_BENCH_KIT:-$root/../shared/bench}
[ -x "$kit/run_all.sh" ] || [ -f "$kit/run_all.sh" ] || { echo "bench/kit.sh: no kit at $kit" >&2; exit 2; }
mkdir -p bench/out
go build -o bench/out/citecheck ./cmd/citecheck
bash "$kit/run_all.sh" --candidate "$root/bench/out/citecheck run citation-batch-check 1.0.0 --input {}" \
  --candidate-name citecheck --md "$root/bench/out/kit.md" --json "$root/bench/out/kit.json" "$@"
python3 - "$root/README.md" "$root/bench/out/kit.md" <<'PY'
import datetime, platform, subprocess, sys
readme, md = sys.argv[1], open(sys.argv[2], encoding="utf-8").read().strip()
cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True,
                     capture_output=True, text=True).stdout.strip()
head = (f"Measured {datetime.date.today().isoformat()} on {platform.machine()}, {cpu}, "
        f"{subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores, "
        "with `bench/kit.sh`.\n\n")
text = open(readme, encoding="utf-8").read()
b, e = "<!-- kit:begin -->", "<!-- kit:end -->"
if b not in text or e not in text:
    sys.exit("README.md has no kit markers")
pre, rest = text.split(b, 1)
_, post = rest.split(e, 1)
open(readme, "w", encoding="utf-8").write(pre + b + "\n" + head + md + "\n" + e + post)
print("README.md: kit tables updated", file=sys.stderr)
PY
