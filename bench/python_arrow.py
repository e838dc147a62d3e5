"""citecheck.arrow.check_batch and citecheck.pandas.check_frame beside
check_many_raw on the same bodies: what the columns cost over the answers.

    python bench/python_arrow.py [REPO]      (about 15 s)

Run with the interpreter of an environment where the wheel and the
extras are installed (pip install 'citecheck-engine[arrow,pandas]' from a
python/build.sh folder). The bodies are testdata/conformance.jsonl's under
100 kB (valid, failing and refused ones), repeated to 20,000 rows, in one
batch (binary column) and one frame; each figure is the fastest of 7 runs.
"""

import base64
import json
import sys
import time
from pathlib import Path

import citecheck
import citecheck.arrow
import citecheck.pandas
import pandas as pd
import pyarrow as pa

ROWS = 20000
RUNS = 7


def best(f):
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    bodies = []
    for line in (repo / "testdata" / "conformance.jsonl").open("rb"):
        c = json.loads(line)
        bodies.append(c["body"].encode() if "body" in c else base64.b64decode(c["body_b64"]))
    bodies = [b for b in bodies if len(b) < 100000]
    rows = (bodies * (ROWS // len(bodies) + 1))[:ROWS]
    batch = pa.record_batch({"body": pa.array(rows, type=pa.binary())})
    frame = pd.DataFrame({"body": rows})
    citecheck.check_many_raw(rows[:2000])  # the engines started
    raw = best(lambda: citecheck.check_many_raw(rows))
    arrow = best(lambda: citecheck.arrow.check_batch(batch))
    frames = best(lambda: citecheck.pandas.check_frame(frame))
    print(f"{ROWS} rows, {sum(map(len, rows)) / 1e6:.1f} MB of bodies, fastest of {RUNS}:")
    print(f"check_many_raw   {raw * 1e3:6.0f} ms  {ROWS / raw:8,.0f} rows/s")
    print(f"arrow.check_batch {arrow * 1e3:5.0f} ms  {ROWS / arrow:8,.0f} rows/s  {arrow / raw:.2f}x")
    print(f"pandas.check_frame {frames * 1e3:4.0f} ms  {ROWS / frames:8,.0f} rows/s  {frames / raw:.2f}x")


if __name__ == "__main__":
    main()
