"""Wherever Python code runs: threads, fork, spawn, forkserver, asyncio,
pickling, an engine killed from outside, and nothing written to disk."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Callable, List

import pytest
from conftest import CASES, REPO

import citecheck

# Bodies with results, refusals and failures among them, each different.
BODIES: List[bytes] = [c.body for c in CASES if len(c.body) < 64 << 10][:80]
Q = REPO / "examples" / "quotes"
REPORT = (Q / "report.md").read_text(encoding="utf-8")
SOURCES = {"1": (Q / "austen.txt").read_text(encoding="utf-8"), "2": (Q / "declaration.txt").read_text(encoding="utf-8"), "3": (Q / "kafka.txt").read_text(encoding="utf-8")}


def outcome(fn: Callable[[bytes], Any], body: bytes) -> Any:
    """What fn gives for body: its value, or the refusal's code, path and message."""
    try:
        return fn(body)
    except citecheck.CitecheckError as e:
        return ("refused", e.code, e.path, e.message)


def one_thread() -> List[Any]:
    return [(outcome(citecheck.check, b), outcome(citecheck.explain, b)) for b in BODIES] + [citecheck.quotes(REPORT, sources=SOURCES)]


def test_eight_threads_at_once_give_the_answers_of_one() -> None:
    want = one_thread()
    got: List[Any] = [None] * 8
    errors: List[BaseException] = []
    start = threading.Barrier(8)

    def work(i: int) -> None:
        try:
            start.wait()
            # Each thread walks the bodies from a different place, so different bodies run at once.
            k = i * len(BODIES) // 8
            order = list(range(k, len(BODIES))) + list(range(k))
            res: List[Any] = [None] * len(BODIES)
            for j in order:
                res[j] = (outcome(citecheck.check, BODIES[j]), outcome(citecheck.explain, BODIES[j]))
                if j % 20 == 0:
                    assert citecheck.quotes(REPORT, sources=SOURCES) == want[-1]
            got[i] = [*res, citecheck.quotes(REPORT, sources=SOURCES)]
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for g in got:
        assert g == want


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_after_fork_in_a_process_that_checked_both_keep_working() -> None:
    want = [outcome(citecheck.check, b) for b in BODIES]
    pid = os.fork()
    if pid == 0:  # the child: every answer as before, then exit without pytest's cleanup
        ok = False
        try:
            ok = [outcome(citecheck.check, b) for b in BODIES] == want and citecheck.check_many_raw(BODIES) == [citecheck.check_raw(b) for b in BODIES]
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert [outcome(citecheck.check, b) for b in BODIES] == want


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_pool_of_each_start_method_gives_the_answers_of_this_process(method: str) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{method} is not available here")
    citecheck.check_raw(BODIES[0])  # this process has an engine before the pool starts
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2) as pool:
        got = pool.map(citecheck.check_raw, BODIES)
    assert got == [citecheck.check_raw(b) for b in BODIES]
    # A refusal raised in a worker comes back as the same CitecheckError.
    with ctx.Pool(1) as pool:
        with pytest.raises(citecheck.CitecheckError) as e:
            pool.map(citecheck.check, [b"{"])
    with pytest.raises(citecheck.CitecheckError) as here:
        citecheck.check(b"{")
    assert (e.value.code, e.value.path, e.value.message, e.value.error) == (here.value.code, here.value.path, here.value.message, here.value.error)


def refusals() -> List[citecheck.CitecheckError]:
    out = []
    for call in (lambda: citecheck.check(b"{"), lambda: citecheck.check(b"x" * (citecheck.MAX_INPUT_BYTES + 1)),
                 lambda: citecheck.annotations(b'{"id":"a","target":"s"}\n{bad'), lambda: citecheck.quotes(b"{", sources={"a": "b"}),
                 lambda: citecheck.check({"x": {1}})):
        with pytest.raises(citecheck.CitecheckError) as e:
            call()
        out.append(e.value)
    return out


def test_results_and_errors_pickle_and_unpickle_equal() -> None:
    for b in BODIES:
        for fn in (citecheck.check, citecheck.check_all, citecheck.explain):
            v = outcome(fn, b)
            assert pickle.loads(pickle.dumps(v)) == v
    assert pickle.loads(pickle.dumps(citecheck.check_many(BODIES))) == citecheck.check_many(BODIES)
    for err in refusals():
        for proto in range(pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(err, protocol=proto))
            assert type(back) is citecheck.CitecheckError
            assert (back.code, back.path, back.message, back.error, back.lines, str(back)) == (err.code, err.path, err.message, err.error, err.lines, str(err))


def test_asyncio_tasks_through_to_thread_give_the_answers_of_one() -> None:
    want = [outcome(citecheck.check, b) for b in BODIES]

    async def main() -> List[Any]:
        async def one(b: bytes) -> Any:
            return await asyncio.to_thread(outcome, citecheck.check, b)

        return list(await asyncio.gather(*(one(b) for b in BODIES)))

    assert asyncio.run(main()) == want


def engine_pids() -> List[int]:
    """The citecheck children of this process that have not exited (from /proc).

    By the name in stat, not the command line: a process that is exiting
    has an empty command line, and is still an engine the package holds.
    """
    me = str(os.getpid())
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if name == "citecheck" and rest[1] == me and rest[0] not in ("Z", "X"):
            pids.append(int(d))
    return pids


def kill_all_engines() -> None:
    """SIGKILLs every engine of this process and waits until each has exited (a zombie until the package reaps it)."""
    pids = engine_pids()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    for pid in pids:
        while state(pid) not in ("", "Z", "X"):
            os.sched_yield()


def state(pid: int) -> str:
    """The process's state letter ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]
    except (OSError, IndexError):
        return ""


def signals_pending(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return False
    return any(line.split(":")[0] in ("SigPnd", "ShdPnd") and int(line.split()[1], 16) != 0 for line in status)


ANNOTATIONS = (REPO / "annotation" / "testdata" / "w3c-collection1.json").read_text(encoding="utf-8")


def every_call() -> List[Any]:
    return [citecheck.check_raw(BODIES[0]), citecheck.check_many_raw(BODIES[:3]), citecheck.quotes(REPORT, sources=SOURCES), citecheck.annotations(ANNOTATIONS)]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the engine through /proc")
def test_an_engine_killed_between_calls_the_next_call_still_answers() -> None:
    want = every_call()
    for i in range(len(want)):
        assert engine_pids(), "no engine to kill"
        kill_all_engines()
        assert every_call()[i] == want[i]
        assert every_call() == want


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the engine through /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_engine_sent_a_stop_signal_between_calls_every_call_still_answers(sig: signal.Signals) -> None:
    want = every_call()
    pids = engine_pids()
    assert pids, "no engine to signal"
    for pid in pids:
        os.kill(pid, sig)
    for pid in pids:  # until the signal is delivered (or the engine gone)
        while state(pid) not in ("", "Z") and signals_pending(pid):
            os.sched_yield()
    # The engine either ended (and is replaced) or goes on as before: either
    # way every later call answers as before. A bounded number of rounds.
    try:
        for _ in range(20):
            assert every_call() == want
    finally:  # an engine left broken would fail the tests after this one
        kill_all_engines()


def test_nothing_is_written_to_disk_by_a_check(tmp_path: Path) -> None:
    cwd, home, tmp = tmp_path / "cwd", tmp_path / "home", tmp_path / "tmp"
    for d in (cwd, home, tmp):
        d.mkdir()
    script = textwrap.dedent(
        """
        import citecheck, json, sys
        body = json.loads(sys.stdin.read())
        citecheck.check_raw(body); citecheck.check_all(body); citecheck.explain(body)
        citecheck.check_many([body] * 50)
        citecheck.quotes('"abc" [1]', sources={"1": "abc"})
        citecheck.annotations("[]")
        try:
            citecheck.check(b"{")
        except citecheck.CitecheckError:
            pass
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
    env.update(HOME=str(home), TMPDIR=str(tmp), TMP=str(tmp), TEMP=str(tmp), PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", script], input=CASES[0].body, cwd=cwd, env=env, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"" and r.stderr == b""
    for d in (cwd, home, tmp):
        assert list(d.iterdir()) == [], d


def test_the_engine_children_end_with_the_interpreter(tmp_path: Path) -> None:
    script = "import citecheck, os; citecheck.check_raw(b'{}'); print(os.getpid())"
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # The interpreter has exited; no `citecheck pipe` it started is left running.
    parent = r.stdout.strip()
    for d in os.listdir("/proc") if os.path.isdir("/proc") else []:
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        assert stat[stat.rindex(")") + 2 :].split()[1] != parent.decode()


def writer_threads() -> List[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "citecheck-batch-writer"]


def test_a_generator_that_raises_leaves_the_engine_in_step_and_no_thread() -> None:
    citecheck.check_raw(BODIES[0])
    engines = engine_pids()

    class Stop(Exception):
        pass

    def bodies(n: int) -> Any:
        for i in range(n):
            yield BODIES[i % len(BODIES)]
        raise Stop()

    # Before the first body, and with frames in flight (1024 bodies a frame).
    for n in (0, 1500, 5000):
        with pytest.raises(Stop):
            citecheck.check_many_raw(bodies(n))
        assert citecheck.check_many_raw(BODIES[:3]) == [citecheck.check_raw(b) for b in BODIES[:3]]
    for t in writer_threads():
        t.join(timeout=5)
    assert not writer_threads()
    if os.path.isdir("/proc/self"):
        assert engine_pids() == engines or len(engine_pids()) <= len(engines) + 1


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the engine through /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_an_engine_ended_during_check_many_every_answer_still_comes(sig: signal.Signals) -> None:
    bodies = [BODIES[i % len(BODIES)] for i in range(4000)]
    want = [citecheck.check_raw(b) for b in BODIES]
    signalled = []

    def feed() -> Any:
        for i, b in enumerate(bodies):
            if i == 2100:  # two frames sent, the first perhaps answered
                for pid in engine_pids():
                    os.kill(pid, sig)
                    signalled.append(pid)
            yield b

    got = citecheck.check_many_raw(feed())
    assert signalled
    assert got == [want[i % len(BODIES)] for i in range(len(bodies))]


def test_a_binary_that_stalls_after_a_header_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform == "win32":
        pytest.skip("a shell script as the binary")
    stall = tmp_path / "stall"
    # A hello header that claims 2 GiB, then nothing: the package must
    # neither wait for ever nor set aside what the header claims.
    stall.write_text("#!/bin/sh\nprintf '\\377\\377\\377\\177\\000\\000\\000\\000'\nexec sleep 60\n")
    stall.chmod(0o755)
    code = textwrap.dedent(
        """
        import citecheck, citecheck._engine as e, resource, sys
        e.HELLO_SECONDS = 1
        try:
            citecheck.check_raw(b"{}")
        except citecheck.CitecheckError as err:
            print(err.code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 500_000)
        """
    )
    env = {**os.environ, "CITECHECK_BINARY": str(stall)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.split() == ["unavailable", "True"], out.stderr
    # A hello that claims 2 GiB and sends it: refused at its header.
    stall.write_text("#!/bin/sh\nprintf '\\377\\377\\377\\177\\000\\000\\000\\000'\nexec cat /dev/zero\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.split() == ["unavailable", "True"], out.stderr
