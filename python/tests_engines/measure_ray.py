"""Throughput of docs/deploy.md's Ray recipe with 1 and 2 workers, against
one `citecheck run --jsonl` over the same lines (test_ray.py's 20,000, or
REQUESTS lines cycled from them), as docs/deploy.md#ray reports it.

    CITECHECK_REPO=. CITECHECK_GO_CLI=/path/to/citecheck VENV/bin/python \\
        python/tests_engines/measure_ray.py [REQUESTS]

VENV is the one python/test_engine.sh ray builds (the wheel and
requirements-ray.txt). Each figure is the best of 3 runs, after one
warm-up run that starts the workers; the input is built before the clock starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import ray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ray as t


def best(f: object, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else t.REQUESTS
    lines = [t.LINES[i % len(t.LINES)] for i in range(n)]
    data = b"".join(b + b"\n" for b in lines)
    cli = os.environ["CITECHECK_GO_CLI"]
    go = best(lambda: subprocess.run([cli, "run", "citation-batch-check", "1.0.0", "--input", "-", "--jsonl"], input=data, capture_output=True, check=False))
    print(f"{n} requests, {len(data) / 1e6:.1f} MB; os.cpu_count() = {os.cpu_count()}")
    print(f"run --jsonl: {go:.2f} s, {n / go:,.0f} requests/s")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().op_resource_reservation_enabled = False
    ray.data.DataContext.get_current().enable_progress_bars = False
    check_on_ray = t.recipe()
    parts = t.parts(lines)
    for workers in (1, 2):
        check_on_ray(parts, workers)
        s = best(lambda w=workers: check_on_ray(parts, w))
        print(f"ray, {workers} worker(s): {s:.2f} s, {n / s:,.0f} requests/s, {s / go:.1f}x run --jsonl's time")
    ray.shutdown()


if __name__ == "__main__":
    main()
