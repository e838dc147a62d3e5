"""Throughput of docs/deploy.md's spark recipes against one run --jsonl (docs/deploy.md#spark).

Run by hand in python/test_engine.sh's environment (not by the tests: speed
is measured, never asserted):

    CITECHECK_REPO=. CITECHECK_GO_CLI=/tmp/citecheck-go \
      venv/bin/python python/tests_engines/bench_spark.py 100000

Prints requests a second for one run --jsonl of the Go CLI, and for each
recipe with local[1] and local[2] (1 and 2 workers), each job timed after a
warm-up job, so the JVM's start is not counted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_spark as t

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
shapes = t.bodies()
lines = [shapes[i % t.N] for i in range(n)]
tmp = Path(tempfile.mkdtemp())
src_jsonl = tmp / "requests.jsonl"
src_jsonl.write_bytes(b"".join(b + b"\n" for b in lines))
src_pq = tmp / "requests"
src_pq.mkdir()
per = n // t.PARTITIONS
for k in range(t.PARTITIONS):
    part = lines[k * per : (k + 1) * per]
    pq.write_table(pa.table({"line": range(k * per, k * per + len(part)), "body": [b.decode() for b in part]}), src_pq / f"part-{k:05d}.parquet")

start = time.perf_counter()
with open(src_jsonl, "rb") as f:
    subprocess.run([t.GO_CLI, *t.RUN], stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
run_s = time.perf_counter() - start
print(f"run --jsonl: {n / run_s:,.0f} requests/s ({run_s:.1f} s)")

os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession  # noqa: E402

ns = t.recipes()
binary = os.path.join(sysconfig.get_path("scripts"), "citecheck")
for workers in (1, 2):
    s = SparkSession.builder.master(f"local[{workers}]").config("spark.ui.enabled", "false").getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    s.conf.set("spark.sql.files.maxPartitionBytes", str(max(1, sum(f.stat().st_size for f in src_pq.iterdir()) // t.PARTITIONS)))
    s.conf.set("spark.sql.files.openCostInBytes", "0")
    for name, job in (
        ("arrow", lambda d, s=s: ns["check_requests"](s, str(src_pq), d)),
        ("pipe", lambda d, s=s: ns["pipe_requests"](s.sparkContext, str(src_jsonl), d, citecheck=binary)),
    ):
        job(str(tmp / f"warm-{name}-{workers}"))
        start = time.perf_counter()
        job(str(tmp / f"out-{name}-{workers}"))
        sec = time.perf_counter() - start
        print(f"{name} local[{workers}]: {n / sec:,.0f} requests/s ({sec:.1f} s, {sec / run_s:.2f}x run --jsonl)")
    s.stop()
