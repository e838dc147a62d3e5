"""docs/deploy.md's spark recipes, run as written on pyspark in local mode.

python/test_engine.sh spark runs this against the installed wheel, with
CITECHECK_REPO (the tree) and CITECHECK_GO_CLI (the Go CLI built from it),
on the machine's JDK. The recipes are the Python blocks of deploy.md's
"## spark" section, executed here; their answers are held to one
`citecheck run … --jsonl` of the Go CLI over the same lines, row for row.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import citecheck

REPO = Path(os.environ["CITECHECK_REPO"])
GO_CLI = os.environ["CITECHECK_GO_CLI"]
N = 20_000
PARTITIONS = 8
RUN = ["run", "citation-batch-check", "1.0.0", "--jsonl", "--input", "-"]

if (REPO / "python" / "citecheck") == Path(citecheck.__file__).resolve().parent:
    raise RuntimeError("citecheck was imported from the source tree, not the installed wheel: run python/test_engine.sh spark")

# Lines the engines must answer with an error row, not a failed task.
MALFORMED = [b"", b"{", b"not json", b"[]", b"null", b'{"contract":', b'"a string"', b"{}"]


def as_line(body: bytes) -> bytes | None:
    """body as one JSONL line a text-reading engine keeps whole, or None when it cannot be one.

    A body with a line break is compacted when it parses; one that is not
    UTF-8 is left out (Spark's text reading replaces such bytes).
    """
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if b"\n" not in body and b"\r" not in body:
        return body
    try:
        compact = json.dumps(json.loads(body), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except ValueError:
        return None
    return None if b"\n" in compact or b"\r" in compact else compact


def bodies() -> List[bytes]:
    """N request lines cycling through the conformance cases, the examples and MALFORMED."""
    shapes: List[bytes] = []
    with open(REPO / "testdata" / "conformance.jsonl", "rb") as f:
        for line in f:
            c = json.loads(line)
            shapes.append(c["body"].encode("utf-8") if "body" in c else base64.b64decode(c["body_b64"]))
    shapes += [p.read_bytes() for p in sorted((REPO / "examples").glob("*.json"))]
    kept = [b for b in (as_line(s) for s in shapes) if b is not None]
    kept += MALFORMED
    assert len(kept) > 150, "the conformance cases and examples give the lines' shapes"
    return [kept[i % len(kept)] for i in range(N)]


def recipes() -> Dict[str, Any]:
    """The Python blocks of docs/deploy.md's "## spark" section, executed: its functions by name."""
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = text.split("\n## spark\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "deploy.md's spark section has the Arrow and the pipe recipe"
    ns: Dict[str, Any] = {"__name__": "deploy_md_spark"}
    for b in blocks:
        exec(compile(b, "docs/deploy.md#spark", "exec"), ns)
    return ns


@pytest.fixture(scope="module")
def lines() -> List[bytes]:
    return bodies()


@pytest.fixture(scope="module")
def one_run(lines: List[bytes]) -> List[bytes]:
    """The Go CLI's answers to all the lines in one run."""
    r = subprocess.run([GO_CLI, *RUN], input=b"".join(b + b"\n" for b in lines), capture_output=True)
    assert r.returncode in (0, 1, 2), r.stderr
    out = r.stdout.split(b"\n")
    assert out[-1] == b""
    assert len(out) - 1 == len(lines)
    return out[:-1]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    # The workers run this environment's python, which has the wheel: on one
    # machine that is how the docs' environment reaches the executors.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    s = (
        SparkSession.builder.master("local[2,4]")  # 2 task slots; a task may fail 3 times and be retried
        .appName("citecheck-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "500")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def kill_once(check_batches: Any, marks: str, partition: int) -> Any:
    """check_batches, but the worker of the given partition's first attempt kills itself after its first batch.

    Each attempt leaves a file named for its partition, attempt and process,
    so the test sees the partitions, the workers and the retry.
    """

    def wrapped(batches: Iterator[Any]) -> Iterator[Any]:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        p, a = ctx.partitionId(), ctx.attemptNumber()
        Path(marks, f"{p}-{a}-{os.getpid()}").touch()
        for i, out in enumerate(check_batches(batches)):
            if p == partition and a == 0 and i == 1:
                os.kill(os.getpid(), signal.SIGKILL)
            yield out

    return wrapped


def test_arrow_recipe_answers_as_one_run_with_a_worker_killed(spark: Any, lines: List[bytes], one_run: List[bytes], tmp_path: Path) -> None:
    import pyspark.cloudpickle

    pyspark.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    src, dst, marks = tmp_path / "requests", tmp_path / "answers", tmp_path / "marks"
    src.mkdir()
    marks.mkdir()
    per = N // PARTITIONS
    for k in range(PARTITIONS):
        part = lines[k * per : (k + 1) * per]
        t = pa.table({"line": pa.array(range(k * per, k * per + len(part)), pa.int64()), "body": [b.decode() for b in part]})
        pq.write_table(t, src / f"part-{k:05d}.parquet")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(1, sum(f.stat().st_size for f in src.iterdir()) // PARTITIONS)))
    spark.conf.set("spark.sql.files.openCostInBytes", "0")

    ns = recipes()
    ns["check_batches"] = kill_once(ns["check_batches"], str(marks), partition=1)
    ns["check_requests"](spark, str(src), str(dst))

    got = pq.read_table(dst).sort_by("line")
    assert got.column("line").to_pylist() == list(range(N)), "exactly one answer per request"
    answers = [a.encode() for a in got.column("answer").to_pylist()]
    assert answers == one_run

    attempts = [m.name.split("-") for m in marks.iterdir()]
    assert len({p for p, _, _ in attempts}) >= 4, "the job spans at least 4 partitions"
    assert len({pid for _, _, pid in attempts}) >= 2, "at least 2 workers ran"
    assert ["1", "1"] in [[p, a] for p, a, _ in attempts], "the killed task was retried"
    retried = sum(1 for _, a, _ in attempts if a != "0")
    print(f"spark arrow: {len(attempts)} task attempts, {retried} retried")

    refused = got.filter(pa.compute.is_valid(got.column("error_code")))
    assert refused.num_rows >= N // 200, "the malformed bodies are rows with their errors"
    for b, code, answer in zip(refused.column("body").to_pylist()[:50], refused.column("error_code").to_pylist(), refused.column("answer").to_pylist()):
        assert json.loads(answer)["error"]["code"] == code, b


def test_pipe_recipe_answers_as_one_run(spark: Any, lines: List[bytes], one_run: List[bytes], tmp_path: Path) -> None:
    src, dst = tmp_path / "requests.jsonl", tmp_path / "answers"
    src.write_bytes(b"".join(b + b"\n" for b in lines))
    ns = recipes()
    # The wheel's console script is the binary on the workers here.
    citecheck_bin = os.path.join(sysconfig.get_path("scripts"), "citecheck")
    sc = spark.sparkContext
    real_text_file = sc.textFile
    parts: List[int] = []

    def text_file(path: str) -> Any:
        rdd = real_text_file(path, minPartitions=PARTITIONS)
        parts.append(rdd.getNumPartitions())
        return rdd

    sc.textFile = text_file  # the recipe as written, over at least 4 splits of the one file
    try:
        ns["pipe_requests"](sc, str(src), str(dst), citecheck=citecheck_bin)
    finally:
        del sc.textFile
    assert parts and parts[0] >= 4
    got: List[bytes] = []
    for f in sorted(dst.glob("part-*")):
        got += f.read_bytes().splitlines()
    assert got == one_run
