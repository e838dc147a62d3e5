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
import os
import struct
import subprocess
import sys
import threading
from typing import Any, Iterable, Sequence, cast

from . import _binary
from ._errors import CitecheckError

# The ops and modes of the protocol (cmd/citecheck/pipe.go holds the other side).
HELLO, CHECK, BATCH, QUOTES, ANNOTATIONS = 0, 1, 2, 3, 4
EXECUTE, ALL, EXPLAIN = 0, 1, 2
BROKEN = 255
PROTOCOL = b"citecheck-pipe 1\n"

_HEADER = struct.Struct("<IBBH")
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
        if sys.platform == "win32":
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        else:
            # Out of the terminal's process group: Ctrl-C interrupts the
            # caller's Python, which may go on, not its engine.
            kwargs["start_new_session"] = True
        self.proc = subprocess.Popen(
            [path, "pipe"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            close_fds=True,
            **kwargs,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.stdout = cast(io.RawIOBase, self.proc.stdout)  # bufsize=0: unbuffered, with readinto
        self.pid = os.getpid()

    def call(self, op: int, mode: int, parts: Sequence[bytes]) -> tuple[int, bytes]:
        """Sends one frame and returns its answer's status and payload."""
        n = sum(len(p) for p in parts)
        if n > MAX_FRAME:
            raise CitecheckError(
                "limit_exceeded", f"one call of {n} bytes; the engine takes at most {MAX_FRAME}"
            )
        self._write(b"".join([_HEADER.pack(n, op, mode, 0), *parts]))
        head = self._read(8)
        size, answered, status, _ = _HEADER.unpack(head)
        if answered != op:
            raise self._gone(f"answered op {answered} to op {op}")
        payload = self._read(size)
        if status == BROKEN:
            raise CitecheckError("internal", "the citecheck engine could not read a call: " + payload.decode("utf-8", "replace"))
        return status, payload

    def _write(self, data: bytes) -> None:
        mv = memoryview(data)
        try:
            while mv:
                w = self.stdin.write(mv)
                if w is None:  # pragma: no cover - the pipe is blocking
                    continue
                mv = mv[w:]
        except (BrokenPipeError, OSError) as e:
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

    def close(self) -> None:
        for f in (self.stdin, self.stdout):
            try:
                f.close()
            except OSError:
                pass

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
        """One call on an idle child (a new one when none is idle).

        A child that died while idle (killed from outside) is replaced and
        the call made once more on a new one; a call that stops a new child
        raises CitecheckError with code "internal".
        """
        child, fresh = self._take()
        try:
            try:
                out = child.call(op, mode, parts)
            except CitecheckError:
                if fresh or child.proc.poll() is None:
                    raise
                self._drop(child)
                child, fresh = self._start(), True
                out = child.call(op, mode, parts)
        except BaseException:
            # Out of step (an interrupt between write and read) or dead.
            child.close()
            self._drop(child)
            raise
        with self.lock:
            self.idle.append(child)
        return out

    def _take(self) -> tuple[_Child, bool]:
        with self.lock:
            if self.idle:
                return self.idle.pop(), False
        return self._start(), True

    def _start(self) -> _Child:
        with self.lock:
            if self.path is None:
                self.path = _binary.find()
            path = self.path
        try:
            child = _Child(path)
        except OSError as e:
            raise CitecheckError("unavailable", f"could not start the citecheck engine {path}: {e}") from None
        _, payload = child.call(HELLO, 0, ())
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
