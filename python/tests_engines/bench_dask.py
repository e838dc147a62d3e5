"""Throughput of docs/deploy.md's Dask recipe with 1 and 2 workers, against one `run --jsonl`.

    CITECHECK_REPO=. CITECHECK_GO_CLI=/tmp/citecheck VENV/bin/python \\
        python/tests_engines/bench_dask.py [REQUESTS]

in the environment python/test_engine.sh dask builds. The requests are
test_dask.make_requests's (the conformance cases and the
examples, cycled), in 8
Parquet files; each figure is one run's wall time, the cluster started
beforehand (not counted), the reading and writing of Parquet counted.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import test_dask
from distributed import Client, LocalCluster


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    requests = test_dask.make_requests(n)
    lines = b"".join(b + b"\n" for b in requests)
    t = time.perf_counter()
    subprocess.run([test_dask.GO_CLI, "run", "citation-batch-check", "1.0.0", "--jsonl", "--input", "-"], input=lines, capture_output=True, check=False)
    base = time.perf_counter() - t
    print(f"{n} requests, {len(lines)} bytes; run --jsonl: {base:.2f} s, {n / base:,.0f}/s")
    check_parquet = test_dask.recipe()["check_parquet"]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "requests"
        test_dask.write_requests(src, requests)
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as c, Client(c):
                t = time.perf_counter()
                check_parquet(str(src), str(Path(tmp) / f"answers{workers}"))
                took = time.perf_counter() - t
            print(f"dask, {workers} worker(s): {took:.2f} s, {n / took:,.0f}/s, {took / base:.2f}x run --jsonl")


if __name__ == "__main__":
    main()
