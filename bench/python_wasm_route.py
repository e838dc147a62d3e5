#!/usr/bin/env python3
"""Route A for the Python package (issue 35): the npm package's wasip1
module hosted in CPython by wasmtime-py, measured beside the native engine
and the hand-written checker. Evidence for the choice in docs/python.md.

  (cd js && node scripts/build.js)                  # js/citecheck.wasm
  python3 bench/kit/gen_workloads.py --out /tmp/kitw
  python3 -m venv /tmp/wasmvenv && /tmp/wasmvenv/bin/pip install wasmtime
  /tmp/wasmvenv/bin/python bench/python_wasm_route.py --workloads /tmp/kitw

Standard library and wasmtime only. From the project root; it writes
nothing in the tree (the module cache and the native helper go in a
temporary folder, removed at the end). What it prints, in this order:

  load     compile (Module(...)), serialize, deserialize_file, instantiate
           + _initialize, each the best of --runs; and "first call after
           import" (import wasmtime + load + instantiate + one checkRaw of
           examples/valid.json), timed in fresh interpreters, with and
           without the serialized module;
  small    examples/valid.json through checkRaw in a loop, µs a call
           (best and median of --runs runs of N calls), by two hosts:
           "stock" (wasmtime-py's Func.__call__ and Memory.read/write) and
           "raw" (wasmtime_func_call_unchecked and ctypes.memmove, which a
           package would use), beside the native engine;
  kit      every bench/kit workload: checkRaw via wasm (raw host), the
           native engine's Run + AppendEnvelope (a Go helper built with
           the go command against this tree; --no-native skips it), and
           bench/kit/naive_check.py's json.loads + check, in this process;
           ms a check (best, median) and the ratios wasm/native and
           naive/wasm; every wasm answer is compared with the native one;
  threads  aggregate checks a second with 1, 2 and 8 threads, one Store
           per thread (a Store is not thread-safe), on valid.json and
           rag_typical, and whether every thread's answers equal one
           thread's;
  fork     after this process has checked: whether a child of os.fork can
           call the parent's instance, instantiate the module anew in the
           parent's Store or in a new one, deserialize it, compile it;
  size     the module's bytes (raw and gzip -9) and the installed
           wasmtime package's size.

Timings are per call, the best of several runs (the machine this was
written on has 2 noisy shared cores); no run is longer than about
--target seconds, and each child of the fork section is killed after 60 s.
"""

import argparse
import ctypes
import gzip
import hashlib
import importlib.util
from importlib import metadata
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "kit"))
import naive_check  # noqa: E402  (bench/kit's hand-written checker)

KIT = ["rag_typical", "many_small", "unicode_heavy", "max_scan_benign",
       "adversarial_periodic", "adversarial_overlap"]
MODE_EXECUTE = 0  # js/wasm/adapter.go: the HTTP execute route's envelope


def load_wasmtime():
    import wasmtime
    # _bindings: the ctypes functions themselves, without the wrappers
    # _ffi re-exports (the raw host calls them directly).
    from wasmtime import _bindings as ffi
    return wasmtime, ffi


class Host:
    """One instance of the module in a Store of its own (not thread-safe).

    check_raw(body) is js/core.js's checkRaw: the body into buffer 0
    (citecheck_buffer), citecheck_check(MODE_EXECUTE, n), the answer's n
    bytes at citecheck_output. raw=False goes through wasmtime-py's
    public Func.__call__ and Memory.read/write; raw=True calls
    wasmtime_func_call_unchecked with a preallocated argument array and
    copies with ctypes.memmove/string_at, the wasm memory's base read
    again after every call that may grow it."""

    def __init__(self, wt, ffi, engine, module, store=None):
        self.wt, self.ffi = wt, ffi
        self.store = store or wt.Store(engine)
        self.store.set_wasi(wt.WasiConfig())  # no args, env, files: the engine does no I/O
        linker = wt.Linker(engine)
        linker.define_wasi()
        i32 = wt.ValType.i32()

        def refuse(*_):  # the annotations imports: never called by checkRaw
            raise RuntimeError("citecheck: no annotations run in this benchmark")
        linker.define_func("citecheck", "read_export", wt.FuncType([i32, i32], [i32]), refuse)
        linker.define_func("citecheck", "write_lines", wt.FuncType([i32, i32], []), refuse)
        inst = linker.instantiate(self.store, module)
        ex = inst.exports(self.store)
        ex["_initialize"](self.store)
        self.memory = ex["memory"]
        self.f_buffer = ex["citecheck_buffer"]
        self.f_check = ex["citecheck_check"]
        self.f_output = ex["citecheck_output"]
        self._ctx = self.store._context()
        self._args = (ffi.wasmtime_val_raw_t * 2)()
        self._trap = ctypes.POINTER(ffi.wasm_trap_t)()
        self._trap_ref = ctypes.byref(self._trap)
        self._call_raw = ffi._wasmtime_func_call_unchecked
        self._refs = {f: ctypes.byref(f._func) for f in (self.f_buffer, self.f_check, self.f_output)}
        self._mem_ref = ctypes.byref(self.memory._memory)
        self._mem_data = ffi._wasmtime_memory_data
        self._ptr_t = ctypes.c_void_p
        self._at, self._room = 0, -1  # buffer 0's address and the room it has

    def _call(self, f, a=0, b=0):
        args = self._args
        args[0].i32 = a
        args[1].i32 = b
        err = self._call_raw(self._ctx, self._refs[f], args, 2, self._trap_ref)
        if err or self._trap:
            raise RuntimeError("citecheck: the module trapped")
        return args[0].i32 & 0xFFFFFFFF

    def _base(self):
        return ctypes.cast(self._mem_data(self._ctx, self._mem_ref), self._ptr_t).value

    def check_raw(self, body):
        n = len(body)
        # citecheck_buffer keeps slot 0 where it is while it has room (Go's
        # collector does not move it, and only this call replaces it), so
        # the export is called only when the body is the longest yet.
        if n > self._room:
            self._at = self._call(self.f_buffer, 0, n)
            self._room = n
        p = self._at
        ctypes.memmove(self._base() + p, body, n)
        m = self._call(self.f_check, MODE_EXECUTE, n)
        if m == 0:
            return b""
        return ctypes.string_at(self._base() + self._call(self.f_output), m)

    def check_raw_stock(self, body):
        s = self.store
        n = len(body)
        p = self.f_buffer(s, 0, n)
        self.memory.write(s, body, p)
        m = self.f_check(s, MODE_EXECUTE, n)
        if m == 0:
            return b""
        o = self.f_output(s)
        return bytes(self.memory.read(s, o, o + m))


# Engine configurations measured in the "engines" section; every other
# section uses "default". A serialized module is read back only by an
# engine of the same configuration and wasmtime version.
VARIANTS = {
    "default": {},
    "serial compile": {"parallel_compilation": False},
    "opt none": {"cranelift_opt_level": "none"},
}


def engine_config(wt, variant="default"):
    c = wt.Config()
    for k, v in VARIANTS[variant].items():
        setattr(c, k, v)
    return c


def per_call(f, target, runs, min_n=1):
    """Best and median seconds a call of f over runs runs of n calls each,
    n doubled from min_n until one run takes about target seconds."""
    f()
    n = min_n
    while True:
        t = time.perf_counter()
        for _ in range(n):
            f()
        dt = time.perf_counter() - t
        if dt >= target or n >= 1 << 22:
            break
        n = n * 2 if dt < target / 8 else max(n + 1, int(n * target / max(dt, 1e-9)))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(n):
            f()
        times.append((time.perf_counter() - t) / n)
    return min(times), statistics.median(times), n


# The native engine, timed as this script times the module: the best and
# median of runs runs of n calls, n grown until a run takes target; and
# the answer's sha256, so that the module's answers are held to it.
NATIVE_GO = r'''package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/citecheck/citecheck"
)

func main() {
	runs, _ := strconv.Atoi(os.Args[1])
	target, _ := time.ParseDuration(os.Args[2])
	for _, path := range os.Args[3:] {
		body, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		var out []byte
		one := func() {
			res, err := citecheck.Run(body)
			out = citecheck.AppendEnvelope(out[:0], res, err)
		}
		one()
		n := 1
		for {
			t := time.Now()
			for range n {
				one()
			}
			if time.Since(t) >= target || n >= 1<<22 {
				break
			}
			n *= 2
		}
		per := make([]float64, runs)
		for r := range per {
			t := time.Now()
			for range n {
				one()
			}
			per[r] = float64(time.Since(t).Nanoseconds()) / float64(n)
		}
		sort.Float64s(per)
		fmt.Printf("%s %d %.1f %.1f %x\n", path, n, per[0], per[len(per)/2], sha256.Sum256(out))
	}
}
'''


def native(paths, runs, target, tmp):
    """{path: (best_s, median_s, n, sha256)} from the Go helper."""
    d = os.path.join(tmp, "native")
    os.makedirs(d)
    with open(os.path.join(d, "main.go"), "w") as f:
        f.write(NATIVE_GO)
    with open(os.path.join(d, "go.mod"), "w") as f:
        f.write("module nativebench\n\ngo 1.26\n\nrequire github.com/citecheck/citecheck v0.0.0\n\n"
                f"replace github.com/citecheck/citecheck => {ROOT}\n")
    shutil.copy(os.path.join(ROOT, "go.sum"), d)
    env = dict(os.environ, GOFLAGS="-mod=mod")
    subprocess.run(["go", "build", "-o", "native", "."], cwd=d, check=True, env=env)
    out = subprocess.run([os.path.join(d, "native"), str(runs), f"{target}s", *paths],
                         check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        path, n, best, med, digest = line.split()
        res[path] = (float(best) / 1e9, float(med) / 1e9, int(n), digest)
    return res


def first_call(wasm, cache, valid):
    """Seconds from before `import wasmtime` to the end of the first
    checkRaw, in this (fresh) interpreter; with cache, the module is
    Module.deserialize_file(cache), else Module(engine, bytes)."""
    t0 = time.perf_counter()
    wt, ffi = load_wasmtime()
    t1 = time.perf_counter()
    engine = wt.Engine(engine_config(wt))
    if cache:
        module = wt.Module.deserialize_file(engine, cache)
    else:
        with open(wasm, "rb") as f:
            module = wt.Module(engine, f.read())
    t2 = time.perf_counter()
    host = Host(wt, ffi, engine, module)
    t3 = time.perf_counter()
    out = host.check_raw(valid)
    t4 = time.perf_counter()
    assert out.startswith(b'{"result":'), out[:200]
    return {"import": t1 - t0, "load": t2 - t1, "instantiate": t3 - t2, "check": t4 - t3, "total": t4 - t0}


def fork_case(case, wt, ffi, engine, module, host, cache, wasm_bytes, valid, expect):
    """In a child of os.fork: does case work? Returns a short verdict."""
    if case == "same instance":
        out = host.check_raw(valid)
    elif case == "new instance, parent's Store":
        out = Host(wt, ffi, engine, module, store=host.store).check_raw(valid)
    elif case == "new Store, parent's Module":
        out = Host(wt, ffi, engine, module).check_raw(valid)
    elif case == "new Engine, deserialize_file":
        e = wt.Engine(engine_config(wt))
        out = Host(wt, ffi, e, wt.Module.deserialize_file(e, cache)).check_raw(valid)
    elif case.startswith("new Engine, compile"):
        e = wt.Engine(engine_config(wt, "serial compile" if "serial" in case else "default"))
        out = Host(wt, ffi, e, wt.Module(e, wasm_bytes)).check_raw(valid)
    else:
        raise ValueError(case)
    return "works" if out == expect else "wrong answer"


def run_fork(case, args, limit=60):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            verdict = fork_case(case, *args)
        except BaseException as e:  # noqa: BLE001: the verdict is the point
            verdict = f"fails: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        os.write(w, verdict.encode()[:500])
        os._exit(0)
    os.close(w)
    deadline = time.monotonic() + limit
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            return f"hangs (killed after {limit} s)"
        time.sleep(0.01)
    verdict = os.read(r, 1000).decode()
    os.close(r)
    if os.WIFSIGNALED(status):
        return f"child killed by signal {os.WTERMSIG(status)}" + (f" after: {verdict}" if verdict else "")
    return verdict or f"child exited {os.WEXITSTATUS(status)} without a verdict"


def threads(wt, ffi, engine, module, body, k, seconds):
    """Aggregate checks a second of k threads, each with its own Host,
    for about seconds; the threads' CPU seconds a wall second (above 1
    only if calls run at once, that is, release the GIL); and whether
    every answer equals the first."""
    hosts = [Host(wt, ffi, engine, module) for _ in range(k)]
    expect = hosts[0].check_raw(body)
    counts = [0] * k
    same = [True] * k
    start = threading.Barrier(k + 1)
    stop = threading.Event()

    cpu = [0.0] * k

    def work(i):
        h = hosts[i]
        start.wait()
        c, t = 0, time.thread_time()
        while not stop.is_set():
            if h.check_raw(body) != expect:
                same[i] = False
            c += 1
        counts[i] = c
        cpu[i] = time.thread_time() - t

    ts = [threading.Thread(target=work, args=(i,)) for i in range(k)]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join()
    wall = time.perf_counter() - t0
    return sum(counts) / wall, sum(cpu) / wall, all(same)


def control(k, seconds):
    """The threads' CPU seconds a wall second of k threads hashing 1 MiB
    at a time with hashlib, which releases the GIL: what this machine
    gives threads that run at once, beside which threads' figure reads."""
    data = b"x" * (1 << 20)
    stop = threading.Event()
    cpu = [0.0] * k

    def work(i):
        t = time.thread_time()
        while not stop.is_set():
            hashlib.sha256(data).digest()
        cpu[i] = time.thread_time() - t
    ts = [threading.Thread(target=work, args=(i,)) for i in range(k)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join()
    return sum(cpu) / (time.perf_counter() - t0)


def gil_probe(wt, ffi, engine, module, body, seconds):
    """Pure-Python loop iterations a second in this thread, alone and
    while another thread checks body in a loop: near equal (on 2 free
    cores) when a call into the module releases the GIL, about half or
    less when it holds it."""
    def spin(t):
        c, end = 0, time.perf_counter() + t
        while time.perf_counter() < end:
            c += 1
        return c / t
    alone = spin(seconds)
    host = Host(wt, ffi, engine, module)
    stop = threading.Event()
    calls = [0]

    def work():
        while not stop.is_set():
            host.check_raw(body)
            calls[0] += 1
    th = threading.Thread(target=work)
    th.start()
    beside = spin(seconds)
    stop.set()
    th.join()
    return alone, beside, calls[0] / seconds


def ms(s):
    return f"{s * 1e3:.3f}"


def us(s):
    return f"{s * 1e6:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wasm", default=os.path.join(ROOT, "js", "citecheck.wasm"))
    ap.add_argument("--workloads", help="bench/kit workloads (gen_workloads.py --out DIR); without it the kit section is skipped")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--target", type=float, default=0.2, help="seconds a timed run aims for")
    ap.add_argument("--no-native", action="store_true")
    ap.add_argument("--only", default="load,small,kit,engines,threads,fork,size",
                    help="comma-separated sections (default: all)")
    ap.add_argument("--first-call", choices=["cache", "nocache"], help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.only = set(a.only.split(","))
    with open(os.path.join(ROOT, "examples", "valid.json"), "rb") as f:
        valid = f.read()
    if a.first_call:  # a fresh interpreter of the "first call" figure
        print(json.dumps(first_call(a.wasm, a.cache if a.first_call == "cache" else None, valid)))
        return
    with open(a.wasm, "rb") as f:
        wasm_bytes = f.read()
    tmp = tempfile.mkdtemp(prefix="citecheck-wasm-route-")
    try:
        report(a, valid, wasm_bytes, tmp)
    finally:
        shutil.rmtree(tmp)


def load_report(a, import_s, compile_s, serialize_s, deser_s, inst_s, cache):
    print("\n## load (ms, best / median)")
    print(f"import wasmtime (this process, first import): {ms(import_s)}")
    print(f"compile Module(engine, bytes):  {ms(min(compile_s))} / {ms(statistics.median(compile_s))}")
    print(f"serialize:                      {ms(min(serialize_s))}  ({os.path.getsize(cache)} B on disk)")
    print(f"deserialize_file:               {ms(min(deser_s))} / {ms(statistics.median(deser_s))}")
    print(f"instantiate + _initialize:      {ms(min(inst_s))} / {ms(statistics.median(inst_s))}")
    for mode in ("cache", "nocache"):
        rows = []
        for _ in range(max(3, a.runs // 2)):
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--wasm", a.wasm,
                                  "--first-call", mode, "--cache", cache],
                                 check=True, capture_output=True, text=True).stdout
            rows.append(json.loads(out))
        best = min(rows, key=lambda r: r["total"])
        med = statistics.median(r["total"] for r in rows)
        parts = ", ".join(f"{k} {ms(v)}" for k, v in best.items() if k != "total")
        print(f"first call after import, {'from the cache' if mode == 'cache' else 'compiling'}: "
              f"{ms(best['total'])} best ({parts}); median {ms(med)}")



def report(a, valid, wasm_bytes, tmp):
    t = time.perf_counter()
    wt, ffi = load_wasmtime()
    import_s = time.perf_counter() - t
    print(f"python {sys.version.split()[0]}, wasmtime {metadata.version('wasmtime')}, "
          f"module {len(wasm_bytes)} B ({len(gzip.compress(wasm_bytes, 9))} B gzip -9), "
          f"{os.cpu_count()} cores")
    engine = wt.Engine(engine_config(wt))
    cache = os.path.join(tmp, "citecheck.cwasm")

    # load (the module and its cache file are made whatever --only says)
    compile_s, serialize_s, deser_s, inst_s = [], [], [], []
    module = None
    for _ in range(a.runs if "load" in a.only else 1):
        e = wt.Engine(engine_config(wt))  # a fresh engine: nothing compiled kept
        t = time.perf_counter()
        m = wt.Module(e, wasm_bytes)
        compile_s.append(time.perf_counter() - t)
        if module is None:
            t = time.perf_counter()
            blob = m.serialize()
            serialize_s.append(time.perf_counter() - t)
            with open(cache, "wb") as f:
                f.write(blob)
    for _ in range(a.runs):
        t = time.perf_counter()
        module = wt.Module.deserialize_file(engine, cache)
        deser_s.append(time.perf_counter() - t)
    for _ in range(a.runs):
        t = time.perf_counter()
        h = Host(wt, ffi, engine, module)
        inst_s.append(time.perf_counter() - t)
        del h
    if "load" in a.only:
        load_report(a, import_s, compile_s, serialize_s, deser_s, inst_s, cache)
    secs = max(1.0, a.target * 5)

    host = Host(wt, ffi, engine, module)
    nat = {}
    paths = [os.path.join(ROOT, "examples", "valid.json")]
    if a.workloads:
        paths += [os.path.join(os.path.abspath(a.workloads), w + ".json") for w in KIT]
    if not a.no_native:
        nat = native(paths, a.runs, a.target, tmp)

    expect = host.check_raw(valid)
    if "small" in a.only:
        small_report(a, wt, ffi, host, valid, expect, nat, paths)
    if a.workloads and "kit" in a.only:
        kit_report(a, host, nat, paths)
    if "engines" in a.only:
        engines_report(a, wt, ffi, wasm_bytes, valid, paths)
    if "threads" in a.only:
        threads_report(a, wt, ffi, engine, module, valid, paths, secs)
    if "fork" in a.only:
        print("\n## os.fork after this process checked")
        host.check_raw(valid)
        args = (wt, ffi, engine, module, host, cache, wasm_bytes, valid, expect)
        for case in ("same instance", "new instance, parent's Store", "new Store, parent's Module",
                     "new Engine, deserialize_file", "new Engine, compile",
                     "new Engine, compile (serial compile)"):
            print(f"{case}: {run_fork(case, args)}")
    if "size" in a.only:
        spec = importlib.util.find_spec("wasmtime")
        pkg = os.path.dirname(spec.origin)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(pkg) for f in fs)
        print(f"\n## size\nmodule {len(wasm_bytes)} B, gzip -9 {len(gzip.compress(wasm_bytes, 9))} B; "
              f"serialized (native code) {os.path.getsize(cache)} B; wasmtime installed {size} B at {pkg}")
        fresh = Host(wt, ffi, engine, module)
        fresh.check_raw(valid)
        line = f"linear memory of an instance: {fresh.memory.data_len(fresh.store)} B after valid.json"
        for w, path in zip(KIT, paths[1:]):
            with open(path, "rb") as f:
                fresh.check_raw(f.read())
            line += f", {fresh.memory.data_len(fresh.store)} B after {w}"
        print(line)


def small_report(a, wt, ffi, host, valid, expect, nat, paths):
    assert host.check_raw_stock(valid) == expect
    print("\n## one small request: examples/valid.json, checkRaw (µs a call, best / median)")
    for name, f in (("stock", host.check_raw_stock), ("raw", host.check_raw)):
        best, med, n = per_call(lambda: f(valid), a.target, a.runs)
        print(f"wasm, {name} host: {us(best)} / {us(med)}  (n={n})")
    if nat:
        best, med, n, digest = nat[paths[0]]
        same = "same answer" if hashlib.sha256(expect).hexdigest() == digest else "DIFFERENT ANSWER"
        print(f"native Run+AppendEnvelope: {us(best)} / {us(med)}  (n={n}; {same})")
    # The pieces of a raw call: what the crossing costs, and the
    # engine's own work in the module (the body already in its buffer).
    best, _, _ = per_call(lambda: host._call(host.f_output), a.target, a.runs)
    print(f"one raw export call (citecheck_output): {us(best)}")
    host.check_raw(valid)
    best, _, _ = per_call(lambda: host._call(host.f_check, MODE_EXECUTE, len(valid)), a.target, a.runs)
    print(f"citecheck_check alone (body in place): {us(best)}")


def kit_report(a, host, nat, paths):
    print("\n## bench/kit workloads (ms a check, best / median)")
    print("| workload | wasm checkRaw | native Run | naive json.loads+check | wasm/native | naive/wasm |")
    print("|---|---|---|---|---|---|")
    for w, path in zip(KIT, paths[1:]):
        with open(path, "rb") as f:
            body = f.read()
        out = host.check_raw(body)
        wb, wm, _ = per_call(lambda: host.check_raw(body), a.target, a.runs)
        deadline = 10.0

        def naive():
            t0 = time.perf_counter()
            r = naive_check.check(json.loads(body), deadline, t0)
            assert r["valid"], r
            if r["partial"]:
                raise TimeoutError(r["partial"])
        try:
            nb, nm, _ = per_call(naive, a.target, max(3, a.runs // 2))
            naive_s = f"{ms(nb)} / {ms(nm)}"
        except TimeoutError as e:
            k, total = e.args[0]
            nb = nm = deadline / k * total
            naive_s = f"~{ms(nb)} (over {deadline} s: {k}/{total} citations, extrapolated)"
        if nat:
            xb, xm, _, digest = nat[path]
            same = "" if hashlib.sha256(out).hexdigest() == digest else " DIFFERENT ANSWER"
            native_s = f"{ms(xb)} / {ms(xm)}{same}"
            ratio = f"{wb / xb:.2f}"
        else:
            native_s = ratio = "-"
        print(f"| {w} | {ms(wb)} / {ms(wm)} | {native_s} | {naive_s} | {ratio} | {nb / wb:.2f} |")


def engines_report(a, wt, ffi, wasm_bytes, valid, paths):
    print("\n## engines: compile (ms, best), then valid.json (µs) and rag_typical (ms) a call, best")
    rag = None
    if a.workloads:
        with open(paths[1], "rb") as f:
            rag = f.read()
    for v in VARIANTS:
        times = []
        for _ in range(min(3, a.runs)):
            e = wt.Engine(engine_config(wt, v))
            t = time.perf_counter()
            m = wt.Module(e, wasm_bytes)
            times.append(time.perf_counter() - t)
        h = Host(wt, ffi, e, m)
        small, _, _ = per_call(lambda: h.check_raw(valid), a.target, a.runs)
        line = f"{v}: compile {ms(min(times))}; valid.json {us(small)}"
        if rag is not None:
            r, _, _ = per_call(lambda: h.check_raw(rag), a.target, a.runs)
            line += f"; rag_typical {ms(r)}"
        print(line)

def threads_report(a, wt, ffi, engine, module, valid, paths, secs):
    print(f"\n## threads: one Store each, aggregate checks/s over ~{secs:.1f} s")
    # ctypes releases the GIL around every call of a CDLL function unless
    # the library was loaded as a PyDLL; wasmtime-py loads it with cdll.
    pyapi = ffi.dll._func_flags_ & ctypes._FUNCFLAG_PYTHONAPI
    print(f"wasmtime's library is a {'PyDLL: calls hold' if pyapi else 'CDLL: calls release'} the GIL")
    bodies = [("valid.json", valid)]
    if a.workloads:
        with open(paths[1], "rb") as f:
            bodies.append(("rag_typical", f.read()))
    print("control, hashlib (releases the GIL): " + "; ".join(
        f"{k} threads CPU {control(k, secs):.2f}x" for k in (1, 2, 8)))
    for name, body in bodies:
        row = []
        for k in (1, 2, 8):
            rate, par, same = threads(wt, ffi, engine, module, body, k, secs)
            row.append(f"{k} threads {rate:,.0f}/s, CPU {par:.2f}x{'' if same else ' (ANSWERS DIFFER)'}")
        print(f"{name}: " + "; ".join(row))

    if a.workloads:
        with open(paths[4], "rb") as f:
            big = f.read()
        alone, beside, rate = gil_probe(wt, ffi, engine, module, big, secs)
        print(f"GIL: a Python loop runs {alone:,.0f} iterations/s alone, {beside:,.0f}/s while another "
              f"thread checks max_scan_benign ({rate:.0f} checks/s)")


if __name__ == "__main__":
    main()
