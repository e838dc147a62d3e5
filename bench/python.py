#!/usr/bin/env python3
"""citecheck from Python beside the native engine and a hand-written checker, in one run.

  python3 bench/python.py [--runs 7] [--many 10000] [--md FILE]

Run it with the interpreter of a virtual environment where the wheel is
installed (bench/python.sh does: it builds the host's wheel, installs it
into bench/out/python/venv and runs this). It measures, in this process:

- each bench/kit workload (generated into bench/out/python/workloads):
  citecheck.check_raw on the body's bytes; the native engine, citecheck.Run
  (Decode + Check) in Go, timed by bench/native on the same files in a
  child started before and after (the faster counts); and the hand-written
  checker (bench/kit/naive_check.py: json.loads and a str.find loop), as a
  user would write it, timed here;
- one small request (examples/valid.json) in a loop: µs per call;
- the first call after `import citecheck`, in a fresh interpreter (the
  engine's start included);
- check_many over --many requests cycling through the kit's rag_typical
  and many_small bodies, beside `citecheck run --jsonl` on the same lines.

Each figure is the fastest of --runs runs (the machine is shared and
noisy); ratios are of figures taken in this run. The table is printed and,
with --md, written between the python:begin and python:end markers of FILE.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out", "python")
WORKLOADS = ["rag_typical", "many_small", "unicode_heavy", "max_scan_benign", "adversarial_periodic", "adversarial_overlap"]

sys.path.insert(0, os.path.join(HERE, "kit"))
import naive_check  # noqa: E402

import citecheck  # noqa: E402


def best_per_call(fn, runs, least=0.2):
    """The fastest of runs runs of fn, each repeating it for at least `least` seconds: seconds per call."""
    best = float("inf")
    for _ in range(runs):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            dt = time.perf_counter() - t0
            if dt >= least:
                break
        best = min(best, dt / n)
    return best


def naive_time(text, runs, deadline=5.0):
    """The hand-written checker's seconds per body (json.loads included), and whether it is an estimate.

    A run that passes the deadline stops after the citation in progress and
    its time is extrapolated from the citations done, as bench/kit does (exact
    when every citation costs the same, as in the adversarial workloads).
    """
    best, est = float("inf"), False
    for _ in range(runs):
        t0 = time.perf_counter()
        r = naive_check.check(json.loads(text), deadline, t0)
        dt = time.perf_counter() - t0
        if r["partial"]:
            done, total = r["partial"]
            dt, est = dt * total / done, True
        best = min(best, dt)
        if dt > deadline:
            break  # one long run says enough
    if best < 0.05:  # short: repeat for a steadier figure
        best = best_per_call(lambda: naive_check.check(json.loads(text)), runs)
    return best, est


def native(files, runs):
    """bench/native's ns per Run for each file, the faster of two children."""
    exe = os.path.join(OUT, "native")
    subprocess.run(["go", "build", "-o", exe, "./bench/native"], cwd=ROOT, check=True)
    got = {}
    for _ in range(2):
        out = subprocess.run([exe, "-runs", str(runs), *files], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            r = json.loads(line)
            got[r["file"]] = min(got.get(r["file"], float("inf")), r["ns"] / 1e9)
    return got


def first_call(runs):
    """Seconds from before `import citecheck` to the end of the first check, in a fresh interpreter."""
    code = (
        "import time; t = time.perf_counter(); import citecheck; "
        f"citecheck.check_raw(open({os.path.join(ROOT, 'examples', 'valid.json')!r}, 'rb').read()); "
        "print(time.perf_counter() - t)"
    )
    return min(float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout) for _ in range(runs))


def many(n, bodies, runs):
    """check_many's and run --jsonl's seconds for n requests cycling through bodies."""
    lines = [bodies[i % len(bodies)] for i in range(n)]
    binary = citecheck._binary.find()  # the wheel's own binary
    with tempfile.NamedTemporaryFile(dir=OUT, suffix=".jsonl", delete=False) as f:
        for b in lines:
            f.write(b)
            f.write(b"\n")
        path = f.name
    try:
        expect = citecheck.check_many_raw(lines[: len(bodies)])
        t_many = t_jsonl = float("inf")
        for _ in range(runs):
            t0 = time.perf_counter()
            got = citecheck.check_many_raw(lines)
            t_many = min(t_many, time.perf_counter() - t0)
            assert got[: len(bodies)] == expect and len(got) == n
            with open(path, "rb") as stdin:
                t0 = time.perf_counter()
                subprocess.run([binary, "run", "citation-batch-check", "1.0.0", "--input", "-", "--jsonl"], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                t_jsonl = min(t_jsonl, time.perf_counter() - t0)
    finally:
        os.unlink(path)
    return t_many, t_jsonl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--many", type=int, default=10000)
    ap.add_argument("--md")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    wdir = os.path.join(OUT, "workloads")
    subprocess.run([sys.executable, os.path.join(HERE, "kit", "gen_workloads.py"), "--out", wdir], check=True, capture_output=True)
    files = {w: os.path.join(wdir, w + ".json") for w in WORKLOADS}
    small = os.path.join(ROOT, "examples", "valid.json")
    nat = native([small, *files.values()], a.runs)

    rows = []
    for w, path in files.items():
        body = open(path, "rb").read()
        text = body.decode()
        py = best_per_call(lambda: citecheck.check_raw(body), a.runs)
        naive, est = naive_time(text, a.runs)
        rows.append((w, nat[path], py, naive, est))
    small_body = open(small, "rb").read()
    loop = best_per_call(lambda: citecheck.check_raw(small_body), a.runs, least=0.5)
    first = first_call(a.runs)
    bodies = [open(files[w], "rb").read() for w in ("rag_typical", "many_small")]
    t_many, t_jsonl = many(a.many, bodies, max(2, a.runs // 2))

    md = [
        f"Measured by `bench/python.sh` on {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
        f"citecheck {citecheck.__version__}; the fastest of {a.runs} runs each.",
        "",
        "| workload | native Decode+Check (ms) | citecheck from Python (ms) | Python ÷ native | hand-written (ms) | hand-written ÷ Python |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for w, n, p, h, est in rows:
        mark = "~" if est else ""
        md.append(f"| {w} | {n * 1e3:.3f} | {p * 1e3:.3f} | {p / n:.2f}× | {mark}{h * 1e3:,.3f} | {mark}{h / p:,.1f}× |")
    md += [
        "",
        "~: the hand-written checker passed 5 s and was stopped; its time is extrapolated from the citations it did.",
        "",
        "| figure | value | goal |",
        "|---|---:|---|",
        f"| one small request (examples/valid.json) in a loop | {loop * 1e6:.1f} µs a call (native {nat[small] * 1e6:.1f} µs) | ≤ 25 µs |",
        f"| first call after `import citecheck` (fresh interpreter) | {first * 1e3:.1f} ms | ≤ 100 ms |",
        f"| check_many, {a.many:,} requests (rag_typical, many_small) | {a.many / t_many:,.0f} requests/s | |",
        f"| `citecheck run --jsonl`, the same lines | {a.many / t_jsonl:,.0f} requests/s | |",
        f"| check_many ÷ run --jsonl throughput | {t_jsonl / t_many:.2f}× | ≥ 0.8× |",
    ]
    table = "\n".join(md)
    print(table)
    if a.md:
        doc = open(a.md).read()
        new, k = re.subn(r"(<!-- python:begin -->\n).*?(<!-- python:end -->)", lambda m: m.group(1) + table + "\n" + m.group(2), doc, flags=re.S)
        if k != 1:
            sys.exit(f"bench/python.py: {a.md} has no python:begin/python:end markers")
        open(a.md, "w").write(new)


if __name__ == "__main__":
    main()
