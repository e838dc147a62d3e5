"""Ray Data: docs/deploy.md's "## ray" recipe, run as written on a local
cluster of 2 CPUs, gives the answers of one `citecheck run --jsonl` over the
same lines, row for row, also when a worker is killed mid-job.

Run by python/test_engine.sh ray, against the installed wheel, from an
empty folder; CITECHECK_REPO and CITECHECK_GO_CLI as python/test.sh sets them.
About a minute here, most of it Ray's start.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pyarrow as pa
import pytest
import ray

import citecheck
import citecheck.arrow

REPO = Path(os.environ.get("CITECHECK_REPO", Path(__file__).resolve().parents[2]))
if (REPO / "python" / "citecheck") == Path(citecheck.__file__).resolve().parent:
    raise RuntimeError("citecheck was imported from the source tree, not the installed wheel: run python/test_engine.sh ray")

REQUESTS = 20_000
PARTS = 4
WORKERS = 2
# Bodies larger than this are put in once, not cycled: the 1 MiB limit cases
# would otherwise make the input hundreds of megabytes.
CYCLED_MAX = 20_000
MALFORMED = [b"", b"{", b"null", b"[]", b"\xff\xfe", b'{"a":1,"a":2}', b'{"sources": [], "citations": []}']


def line(body: bytes) -> bytes:
    """body as one JSONL line: a newline is JSON whitespace, or makes the body malformed either way."""
    return body.replace(b"\r", b" ").replace(b"\n", b" ")


def conformance_bodies() -> List[bytes]:
    out = []
    with open(REPO / "testdata" / "conformance.jsonl", "rb") as f:
        for raw in f:
            c = json.loads(raw)
            out.append(c["body"].encode("utf-8") if "body" in c else base64.b64decode(c["body_b64"]))
    return out


def example_bodies() -> List[bytes]:
    return [json.dumps(json.loads(p.read_bytes()), separators=(",", ":"), ensure_ascii=False).encode() for p in sorted((REPO / "examples").glob("*.json"))]


def requests() -> List[bytes]:
    """REQUESTS lines: every conformance case and example once, then the small ones and the malformed ones in turn."""
    every = [line(b) for b in conformance_bodies() + example_bodies()] + MALFORMED
    small = [b for b in every if len(b) <= CYCLED_MAX]
    out = list(every)
    i = 0
    while len(out) < REQUESTS:
        out.append(small[i % len(small)])
        i += 1
    return out


LINES = requests()


def go_run_jsonl(lines: List[bytes]) -> List[str]:
    cli = os.environ.get("CITECHECK_GO_CLI")
    if not cli:
        raise RuntimeError("CITECHECK_GO_CLI names the Go CLI built from this tree (go build -o X ./cmd/citecheck)")
    r = subprocess.run([cli, "run", "citation-batch-check", "1.0.0", "--input", "-", "--jsonl"], input=b"".join(b + b"\n" for b in lines), capture_output=True)
    assert r.returncode in (0, 1, 2), r.stderr
    out = r.stdout.decode().split("\n")
    assert out[-1] == "", "run --jsonl ends each answer with a newline"
    return out[:-1]


def recipe() -> Callable[..., pa.Table]:
    """check_on_ray, from the first python block of docs/deploy.md's "## ray" section."""
    doc = (REPO / "docs" / "deploy.md").read_text()
    section = doc.split("\n## ray\n", 1)[1].split("\n## ", 1)[0]
    m = re.search(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert m, "docs/deploy.md's ## ray section has its recipe"
    ns: Dict[str, Any] = {"__name__": "deploy_ray"}
    exec(compile(m.group(1), "docs/deploy.md#ray", "exec"), ns)
    return ns["check_on_ray"]  # type: ignore[no-any-return]


def parts(lines: List[bytes]) -> List[pa.Table]:
    size = -(-len(lines) // PARTS)
    return [
        pa.table({"n": pa.array(range(i, min(i + size, len(lines))), pa.int64()), "body": pa.array(lines[i : i + size], pa.binary())})
        for i in range(0, len(lines), size)
    ]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=WORKERS, include_dashboard=False, log_to_driver=False)
    # Ray Data keeps half of a cluster's CPUs for the operators after each
    # one; on 2 CPUs that leaves one map task at a time (docs/deploy.md#ray).
    ray.data.DataContext.get_current().op_resource_reservation_enabled = False
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def want() -> List[str]:
    return go_run_jsonl(LINES)


def expected_columns(answer: str) -> tuple:
    env = json.loads(answer)
    if "error" in env:
        return (None, None, None, env["error"]["code"])
    r = env["result"]
    d = r["first_discrepancy"]
    return (r["valid"], r["reason"], d and d["citation_id"], None)


def check_answers(got: pa.Table, want: List[str]) -> None:
    assert got.column("n").to_pylist() == list(range(len(want))), "one answer per request, in order"
    assert got.column("body").to_pylist() == LINES
    answers = got.column("answer").to_pylist()
    for i, (a, w) in enumerate(zip(answers, want)):
        assert a == w, f"request {i}: ray answered {a[:200]!r}, run --jsonl {w[:200]!r}"
    cols = list(zip(*(got.column(c).to_pylist() for c in ("valid", "reason", "citation_id", "error_code"))))
    assert cols == [expected_columns(w) for w in want]


def test_ray_answers_equal_one_run_jsonl_row_for_row(cluster: None, want: List[str], tmp_path: Path) -> None:
    seen = tmp_path / "batches"
    seen.mkdir()

    def counted(batch: pa.Table) -> pa.Table:
        # Which process checked how many rows: the spread over blocks and
        # workers. Each batch waits until a second worker has started one, so
        # two at once is required, not left to how fast the first finishes;
        # the wait is bounded, and running one at a time fails below.
        (seen / f"{os.getpid()}-{batch.column('n')[0].as_py()}").write_text(str(batch.num_rows))
        deadline = time.monotonic() + 60
        while len({p.name.split("-")[0] for p in seen.iterdir()}) < WORKERS and time.monotonic() < deadline:
            time.sleep(0.01)
        return citecheck.arrow.check_batch(batch)

    got = recipe()(parts(LINES), WORKERS, check=counted)
    check_answers(got, want)
    batches = [p.name.split("-") for p in seen.iterdir()]
    assert sum(int((seen / "-".join(b)).read_text()) for b in batches) == REQUESTS
    assert len(batches) >= PARTS, batches
    assert len({pid for pid, _ in batches}) >= WORKERS, "the batches ran in at least two worker processes"
    # The malformed bodies are rows with their error, not failed tasks.
    codes = dict(zip(got.column("body").to_pylist(), got.column("error_code").to_pylist()))
    for b in MALFORMED:
        assert codes[b] is not None, b
    assert codes[b"\xff\xfe"] == "invalid_input"


def test_ray_worker_killed_mid_job_still_one_answer_per_request(cluster: None, want: List[str], tmp_path: Path) -> None:
    killed = tmp_path / "killed"
    victim = REQUESTS // 2

    def dies_once(batch: pa.Table) -> pa.Table:
        n = batch.column("n").to_pylist()
        if n[0] <= victim <= n[-1] and not killed.exists():
            # The first attempt at the batch holding the middle request: its
            # worker dies outright, halfway through the job; Ray runs the task again.
            killed.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return citecheck.arrow.check_batch(batch)

    got = recipe()(parts(LINES), WORKERS, check=dies_once)
    assert killed.exists(), "a worker was killed"
    check_answers(got, want)
