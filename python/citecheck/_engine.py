"""The engine: `citecheck pipe` children, one per thread that calls at once.

Each child is the citecheck binary running `citecheck pipe`, which reads
framed requests on its standard input and writes framed answers on its
standard output (docs/python.md#the-pipe-protocol). A child is started at
the first call that finds none idle, and is kept for the next; it belongs
to the process that started it: after os.fork the child process starts its
own (the Go runtime does not survive a fork, so none is shared). A child
ends when its standard input closes: when the interpreter exits, or dies.
"""

from __future__ import annotations

import atexit
import io
import mmap
import os
import queue
import select
import struct
import subprocess
import sys
import threading
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, TypeVar, cast

from . import _binary
from ._errors import CitecheckError

T = TypeVar("T")

# The ops and modes of the protocol (cmd/citecheck/pipe.go holds the other side).
HELLO, CHECK, BATCH, QUOTES, ANNOTATIONS = 0, 1, 2, 3, 4
EXECUTE, ALL, EXPLAIN = 0, 1, 2
SHARED = 0x80  # with a check's mode: the body is in the shared memory, the payload its length
# The shared memory's size: max_input_bytes + 1, enough to show a longer body is too long.
SHARED_SIZE = 1048576 + 1
BROKEN = 255
PROTOCOL = b"citecheck-pipe 1\n"
# How long a new engine may take to say hello: a binary that says nothing
# in that time is not the citecheck binary (or the machine is stalled).
HELLO_SECONDS = 30

_HEADER = struct.Struct("<IBBH")
_writev = getattr(os, "writev", None)
_IOV_MAX = 1024
_LENGTH = struct.Struct("<I")
# A frame's payload length is a u32; the engine refuses frames over 2 GiB.
MAX_FRAME = 1 << 31


def fields(parts: Iterable[bytes]) -> list[bytes]:
    """The parts as fields: each a u32 length, then its bytes."""
    out: list[bytes] = []
    for p in parts:
        out.append(_LENGTH.pack(len(p)))
        out.append(p)
    return out


def split_fields(payload: bytes) -> list[bytes]:
    """A payload's fields (the engine writes them; a bad one is a bug)."""
    out = []
    i, n = 0, len(payload)
    mv = memoryview(payload)
    while i < n:
        (size,) = _LENGTH.unpack_from(payload, i)
        i += 4
        out.append(bytes(mv[i : i + size]))
        i += size
    return out


class _Child:
    """One `citecheck pipe` process and its two pipes; used by one thread at a time."""

    def __init__(self, path: str) -> None:
        kwargs: dict[str, Any] = {}
        args = [path, "pipe"]
        self.shared: Optional[mmap.mmap] = None
        fd = -1
        if hasattr(os, "memfd_create"):
            # Linux: a check's body crosses through memory shared with the
            # engine (one copy) instead of the pipe (two, and a wake-up per
            # 1 MiB). The memory file is anonymous: nothing on disk.
            try:
                fd = os.memfd_create("citecheck-body", os.MFD_CLOEXEC)
                os.ftruncate(fd, SHARED_SIZE)
                self.shared = mmap.mmap(fd, SHARED_SIZE)
                args.append(f"--body-fd={fd}")
                kwargs["pass_fds"] = (fd,)
            except OSError:
                if fd >= 0:
                    os.close(fd)
                fd, self.shared = -1, None
        if sys.platform == "win32":
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        else:
            # Out of the terminal's process group: Ctrl-C interrupts the
            # caller's Python, which may go on, not its engine.
            kwargs["start_new_session"] = True
        try:
            self.proc = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
                close_fds=True,
                **kwargs,
            )
        finally:
            if fd >= 0:
                os.close(fd)  # the map and the engine hold it
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.stdout = cast(io.RawIOBase, self.proc.stdout)  # bufsize=0: unbuffered, with readinto
        self.pid = os.getpid()

    def check(self, mode: int, body: bytes) -> bytes:
        """One check's answer: the body through the shared memory where there is one."""
        if self.shared is not None and len(body) <= SHARED_SIZE:
            self.shared[: len(body)] = body
            self.send(CHECK, mode | SHARED, (_LENGTH.pack(len(body)),))
        else:
            self.send(CHECK, mode, (body,))
        return self.receive(CHECK)[1]

    def call(self, op: int, mode: int, parts: Sequence[bytes]) -> tuple[int, bytes]:
        """Sends one frame and returns its answer's status and payload."""
        self.send(op, mode, parts)
        return self.receive(op)

    def send(self, op: int, mode: int, parts: Sequence[bytes]) -> None:
        n = sum(len(p) for p in parts)
        if n > MAX_FRAME:
            raise CitecheckError(
                "limit_exceeded", f"one call of {n} bytes; the engine takes at most {MAX_FRAME}"
            )
        self._write([_HEADER.pack(n, op, mode, 0), *parts])

    def receive(self, op: int) -> tuple[int, bytes]:
        head = self._read(8)
        size, answered, status, _ = _HEADER.unpack(head)
        if answered != op:
            raise self._gone(f"answered op {answered} to op {op}")
        payload = self._read(size)
        if status == BROKEN:
            raise CitecheckError("internal", "the citecheck engine could not read a call: " + payload.decode("utf-8", "replace"))
        return status, payload

    def answers_within(self, seconds: float) -> bool:
        """Whether an answer is ready to read within seconds (always True where select cannot wait on a pipe)."""
        if sys.platform == "win32":
            return True
        ready, _, _ = select.select([self.stdout], [], [], seconds)
        return bool(ready)

    def _write(self, parts: list[bytes]) -> None:
        """Writes the parts in order: gathered by writev where there is one, so a body is not copied first."""
        try:
            if _writev is None:
                mv = memoryview(b"".join(parts))
                while mv:
                    mv = mv[self.stdin.write(mv) or 0 :]
                return
            views = [memoryview(p) for p in parts if p]
            fd = self.stdin.fileno()
            while views:
                w = _writev(fd, views[:_IOV_MAX])
                while views and w >= len(views[0]):
                    w -= len(views[0])
                    views.pop(0)
                if w:
                    views[0] = views[0][w:]
        except OSError as e:
            raise self._gone(str(e)) from None

    def _read(self, n: int) -> bytes:
        if n == 0:
            return b""
        buf = bytearray(n)
        mv = memoryview(buf)
        got = 0
        try:
            while got < n:
                r = self.stdout.readinto(mv[got:])
                if not r:
                    raise self._gone("its output ended")
                got += r
        except OSError as e:
            raise self._gone(str(e)) from None
        return bytes(buf)

    def _gone(self, why: str) -> CitecheckError:
        self.close()
        code = self.proc.poll()
        status = f" (exit status {code})" if code is not None else ""
        return CitecheckError("internal", f"the citecheck engine stopped{status}: {why}")

    def ended(self) -> bool:
        """Whether the process has ended, or ends within a moment.

        Its pipes close as it dies, a moment before it can be reaped: a
        call that found them closed waits that moment to tell an engine
        that died from one that broke a call.
        """
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return False
        return True

    def close(self) -> None:
        for f in (self.stdin, self.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self.shared is not None:
            self.shared.close()
            self.shared = None

    def forget(self) -> None:
        """In a forked child: let go of the parent's engine without waiting for it."""
        self.close()
        self.proc.returncode = 0  # not ours to reap


class Engine:
    """The children of this process, handed to one calling thread at a time."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.idle: list[_Child] = []
        self.all: list[_Child] = []
        self.path: str | None = None

    def call(self, op: int, mode: int, parts: Sequence[bytes]) -> tuple[int, bytes]:
        """One frame's answer (status and payload), on an idle child (a new one when none is idle)."""
        return self.on_child(lambda child: child.call(op, mode, parts))

    def check(self, mode: int, body: bytes) -> bytes:
        """One check's answer, on an idle child."""
        return self.on_child(lambda child: child.check(mode, body))

    def on_child(self, work: Callable[[_Child], T]) -> T:
        """work done on an idle child, or a new one when none is idle.

        A child that died while idle (killed from outside) is replaced and
        the work done once more on a new one; work that stops a new child
        raises CitecheckError with code "internal".
        """
        child, fresh = self._take()
        try:
            try:
                out = work(child)
            except CitecheckError:
                if fresh or not child.ended():
                    raise
                self._drop(child)
                child, fresh = self._start(), True
                out = work(child)
        except BaseException:
            # Out of step (an interrupt between write and read) or dead.
            child.close()
            self._drop(child)
            raise
        with self.lock:
            self.idle.append(child)
        return out

    def batches(self, mode: int, frames: Iterable[list[bytes]]) -> Iterator[bytes]:
        """The payloads of the answers to batch frames, in order, one frame sent ahead.

        A thread of its own writes frame k+1 while this one reads the answer
        to frame k, so the engine reads the next batch while it checks one.
        """
        child, _ = self._take()
        todo: queue.Queue[Optional[list[bytes]]] = queue.Queue(maxsize=1)
        failed: list[BaseException] = []

        def write() -> None:
            while True:
                parts = todo.get()
                if parts is None:
                    return
                try:
                    child.send(BATCH, mode, parts)
                except BaseException as e:  # the reader sees the engine gone
                    failed.append(e)
                    return

        writer = threading.Thread(target=write, name="citecheck-batch-writer", daemon=True)
        writer.start()
        ok = False
        try:
            pending = 0
            for parts in frames:
                todo.put(parts)
                pending += 1
                if pending == 2:
                    yield child.receive(BATCH)[1]
                    pending -= 1
            todo.put(None)
            while pending:
                yield child.receive(BATCH)[1]
                pending -= 1
            ok = True
        finally:
            if not ok:
                # Out of step, or gone: the writer may be blocked on the
                # pipe, which ends with the child.
                child.proc.kill()
                child.close()
                self._drop(child)
                try:
                    todo.put_nowait(None)
                except queue.Full:
                    pass
            writer.join()
            if ok:
                with self.lock:
                    self.idle.append(child)
        if failed:  # pragma: no cover - the reader fails first
            raise failed[0]

    def _take(self) -> tuple[_Child, bool]:
        with self.lock:
            if self.idle:
                return self.idle.pop(), False
        return self._start(), True

    def _start(self) -> _Child:
        with self.lock:
            if self.path is None:
                try:
                    self.path = _binary.find()
                except FileNotFoundError as e:
                    raise CitecheckError("unavailable", str(e)) from None
            path = self.path
        try:
            child = _Child(path)
        except OSError as e:
            raise CitecheckError("unavailable", f"could not start the citecheck engine {path}: {e}") from None
        child.send(HELLO, 0, ())
        if not child.answers_within(HELLO_SECONDS):
            child.proc.kill()
            child.close()
            raise CitecheckError("unavailable", f"{path} did not answer within {HELLO_SECONDS} s; is it the citecheck binary?")
        _, payload = child.receive(HELLO)
        if not payload.startswith(PROTOCOL):
            child.close()
            raise CitecheckError("internal", f"{path} does not speak the protocol of this package: {payload[:80]!r}")
        with self.lock:
            self.all.append(child)
        return child

    def _drop(self, child: _Child) -> None:
        with self.lock:
            if child in self.all:
                self.all.remove(child)

    def close(self) -> None:
        """Ends every child: their input closes, and they exit."""
        with self.lock:
            children, self.all, self.idle = self.all, [], []
        for c in children:
            c.close()
        for c in children:
            try:
                c.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                c.proc.kill()

    def forget(self) -> None:
        for c in self.all:
            c.forget()
        self.all, self.idle = [], []


_engine = Engine()


def engine() -> Engine:
    return _engine


def _after_fork_in_child() -> None:
    global _engine
    old = _engine
    _engine = Engine()
    old.forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _close_at_exit() -> None:
    if _engine.pid == os.getpid():
        _engine.close()
