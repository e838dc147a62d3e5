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
import collections
import io
import mmap
import os
import queue
import select
import struct
import subprocess
import sys
import threading
import time
import weakref
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, TypeVar, cast

from . import _binary
from ._errors import CitecheckError

T = TypeVar("T")

# The ops and modes of the protocol (cmd/citecheck/pipe.go holds the other side).
HELLO, CHECK, BATCH, QUOTES, ANNOTATIONS = 0, 1, 2, 3, 4
EXECUTE, ALL, EXPLAIN = 0, 1, 2
SHARED = 0x80  # with a check's mode: the body is in the shared memory, the payload its length
# The contract's max_input_bytes (citecheck.MAX_INPUT_BYTES), and the shared
# memory's size: one byte more, enough to show a longer body is too long.
MAX_INPUT_BYTES = 1048576
SHARED_SIZE = MAX_INPUT_BYTES + 1
BROKEN = 255
PROTOCOL = b"citecheck-pipe 1\n"
# How long a new engine may take to say hello: a binary that says nothing
# in that time is not the citecheck binary (or the machine is stalled).
HELLO_SECONDS = 30

_HEADER = struct.Struct("<IBBH")
_writev = getattr(os, "writev", None)
_IOV_MAX = 1024
_PIECE = 1 << 20
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
        self.writing = 0  # writes under way, by any thread: the pipes stay open while there are

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
        self.writing += 1
        try:
            self._write([_HEADER.pack(n, op, mode, 0), *parts])
        finally:
            self.writing -= 1

    def receive(self, op: int, deadline: Optional[float] = None, most: Optional[int] = None) -> tuple[int, bytes]:
        """An answer's status and payload: by deadline (a time.monotonic()) and of at most most bytes, when given."""
        head = self._read(8, deadline)
        size, answered, status, _ = _HEADER.unpack(head)
        if answered != op:
            raise self._gone(f"answered op {answered} to op {op}")
        if most is not None and size > most:
            raise self._gone(f"answered {size} bytes where at most {most} were to come")
        payload = self._read(size, deadline)
        if status == BROKEN:
            raise CitecheckError("internal", "the citecheck engine could not read a call: " + payload.decode("utf-8", "replace"))
        return status, payload

    def answers_within(self, seconds: float) -> bool:
        """Whether some of an answer is ready to read within seconds (always True where select cannot wait on a pipe)."""
        if sys.platform == "win32":
            return True
        ready, _, _ = select.select([self.stdout], [], [], max(seconds, 0))
        return bool(ready)

    def _write(self, parts: list[bytes]) -> None:
        """Writes the parts in order: gathered by writev where there is one, so a body is not copied first."""
        try:
            if _writev is None:
                mv = memoryview(b"".join(parts))
                while mv:
                    mv = mv[self.stdin.write(mv) or 0 :]
                return
            # An index past the views written, not list.pop(0): a request of
            # many sources is many parts, and popping each would be quadratic.
            views = [memoryview(p) for p in parts if p]
            fd = self.stdin.fileno()
            i = 0
            while i < len(views):
                w = _writev(fd, views[i : i + _IOV_MAX])
                while i < len(views) and w >= len(views[i]):
                    w -= len(views[i])
                    i += 1
                if w:
                    views[i] = views[i][w:]
        except (OSError, ValueError) as e:  # ValueError: the pipe was closed here
            raise self._gone(str(e)) from None

    def _read(self, n: int, deadline: Optional[float] = None) -> bytes:
        """n bytes of the answer; by deadline (a time.monotonic()) when given.

        Read in pieces of at most 1 MiB, so that an answer's header never
        makes the package allocate more than the bytes that arrive.
        """
        pieces: list[bytes] = []
        got = 0
        try:
            while got < n:
                if deadline is not None and not self.answers_within(deadline - time.monotonic()):
                    raise self._gone("it stopped answering")
                piece = self.stdout.read(min(n - got, _PIECE))
                if not piece:
                    raise self._gone("its output ended")
                pieces.append(piece)
                got += len(piece)
        except OSError as e:
            raise self._gone(str(e)) from None
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def _gone(self, why: str) -> CitecheckError:
        # The pipes stay open: another thread may be writing to this child
        # (a batch's writer), and a closed descriptor's number can be given
        # to the next child's pipe while that write goes on. The engine
        # closes them once the process has ended and no write is under way.
        code = self.proc.poll()
        status = f" (exit status {code})" if code is not None else ""
        return CitecheckError("internal", f"the citecheck engine stopped{status}: {why}")

    def __del__(self) -> None:
        # A child dropped without being given back (a call that a signal's
        # exception stopped halfway): its Popen lingers in subprocess's list
        # of processes to reap, holding the pipes, so they are closed here
        # and the engine, its input ended, exits. No thread writes to it:
        # a batch's writer holds it while it runs.
        if getattr(self, "stdout", None) is not None and self.pid == os.getpid():
            self.close()

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

    def discard(self) -> None:
        """Ends the process, out of step or broken, without waiting for it.

        Nothing here blocks, so that a signal's exception raised in the
        caller cannot stop it halfway; a write under way in another thread
        fails as the process dies. The engine closes the pipes and reaps the
        process later (Engine._take).
        """
        try:
            self.proc.kill()
        except OSError:
            pass

    def forget(self) -> None:
        """In a forked child: let go of the parent's engine without waiting for it."""
        self.close()
        self.proc.returncode = 0  # not ours to reap


class _BatchWriter:
    """A thread that writes batch frames to a child, one waiting at most.

    The thread holds its owner weakly: an owner dropped without stop (an
    exception that ended the batch at an unlucky moment) ends it within a
    second. Nothing here blocks the caller.
    """

    def __init__(self, child: _Child, mode: int) -> None:
        self.todo: queue.Queue[Optional[list[bytes]]] = queue.Queue(maxsize=1)
        owner = weakref.ref(self)
        todo = self.todo

        def write() -> None:
            while True:
                try:
                    parts = todo.get(timeout=1)
                except queue.Empty:
                    if owner() is None:
                        return
                    continue
                if parts is None:
                    return
                try:
                    child.send(BATCH, mode, parts)
                except CitecheckError:
                    return  # the reader finds the engine gone

        threading.Thread(target=write, name="citecheck-batch-writer", daemon=True).start()

    def send(self, parts: list[bytes]) -> None:
        self.todo.put(parts)

    def stop(self) -> None:
        """Ends the thread, after the frame it writes (if the child is gone, at once)."""
        while True:
            try:
                self.todo.put_nowait(None)
                return
            except queue.Full:  # a frame not yet taken: it is not to be sent
                try:
                    self.todo.get_nowait()
                except queue.Empty:
                    pass


class Engine:
    """The children of this process, handed to one calling thread at a time."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.idle: list[_Child] = []
        # Every live child, weakly: one dropped by a call that an exception
        # stopped halfway is collected, its pipes close and it exits.
        self.all: weakref.WeakSet[_Child] = weakref.WeakSet()
        self.ending: list[_Child] = []  # discarded, to be reaped
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
        raises CitecheckError with code "internal". A child is given back
        only when its work ended in step: one interrupted (a signal's
        exception between a request and its answer) is ended and reaped.
        """
        child, fresh = self._take()
        ok = False
        try:
            try:
                out = work(child)
            except CitecheckError:
                if fresh or not child.ended():
                    raise
                self._give_back(child, False)
                child, fresh = self._start(), True
                out = work(child)
            ok = True
        finally:
            self._give_back(child, ok)
        return out

    def _give_back(self, child: _Child, ok: bool) -> None:
        if ok:
            with self.lock:
                self.idle.append(child)
            return
        child.discard()
        with self.lock:
            self.all.discard(child)
            self.ending.append(child)

    def batches(self, mode: int, frames: Iterable[list[bytes]]) -> Iterator[bytes]:
        """The payloads of the answers to batch frames, in order, one frame sent ahead.

        A thread of its own writes frame k+1 while this one reads the answer
        to frame k, so the engine reads the next batch while it checks one.
        An engine that ends during the batch (a signal, a kill) is replaced
        once, and the frames it had not answered sent again.
        """
        source = iter(frames)
        pending: collections.deque[list[bytes]] = collections.deque()  # sent, not yet answered
        replaced = False
        while True:
            child = self._start() if replaced else self._take()[0]  # a retry on a new one: the idle may be dead too
            writer = _BatchWriter(child, mode)
            in_step = False
            try:
                for sent in pending:
                    writer.send(sent)
                while True:
                    if len(pending) < 2:
                        in_step = not pending  # nothing in flight: the child is in step
                        parts = next(source, None)
                        in_step = False
                        if parts is not None:
                            pending.append(parts)
                            writer.send(parts)
                            continue
                    if not pending:
                        break
                    payload = child.receive(BATCH)[1]
                    pending.popleft()
                    yield payload
                in_step = True
            except CitecheckError:
                if replaced or not child.ended():
                    raise
                replaced = True
                continue
            finally:
                # Out of step, the child is ended first, which ends a write
                # in progress.
                self._give_back(child, in_step)
                writer.stop()
            return

    def _take(self) -> tuple[_Child, bool]:
        with self.lock:
            # Reap the children discarded before, without waiting, and close
            # their pipes once no write to them is under way.
            ending = []
            for c in self.ending:
                if c.proc.poll() is None or c.writing:
                    ending.append(c)
                else:
                    c.close()
            self.ending = ending
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
        try:
            child.send(HELLO, 0, ())
            # The whole hello by the deadline: a binary that is not ours may
            # say nothing, or a header and nothing more.
            _, payload = child.receive(HELLO, time.monotonic() + HELLO_SECONDS, most=4096)
        except CitecheckError:
            self._give_back(child, False)
            raise CitecheckError("unavailable", f"{path} did not say hello as the citecheck binary does, within {HELLO_SECONDS} s") from None
        if not payload.startswith(PROTOCOL):
            self._give_back(child, False)
            raise CitecheckError("unavailable", f"{path} does not speak the protocol of this package")
        with self.lock:
            self.all.add(child)
        return child

    def close(self) -> None:
        """Ends every child: their input closes, and they exit."""
        with self.lock:
            children = list(self.all)
            self.all, self.idle = weakref.WeakSet(), []
        for c in children:
            c.close()
        for c in children:
            try:
                c.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                c.proc.kill()

    def forget(self) -> None:
        for c in list(self.all):
            c.forget()
        self.all, self.idle = weakref.WeakSet(), []


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
