"""docs/deploy.md's spark recipes, run as written on a one-machine Spark cluster.

python/test_engine.sh spark runs this with CITECHECK_REPO (the tree),
CITECHECK_GO_CLI (the Go CLI built from it) and CITECHECK_WHEELS (the folder
holding the host's wheel), on the machine's JDK. The recipes are deploy.md's
"## spark" section: its shell block packs the executors' environment from the
wheel, its Python blocks are executed here, on `local-cluster[2,1,1024]`
(two executors, each its own JVM and working folder, as on a cluster); their
answers are held to one `citecheck run … --jsonl` of the Go CLI over the same
lines, row for row.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
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


def section() -> str:
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    return text.split("\n## spark\n", 1)[1].split("\n## ", 1)[0]


def recipes() -> Dict[str, Any]:
    """The Python blocks of docs/deploy.md's "## spark" section, executed: its functions by name."""
    blocks = re.findall(r"```python\n(.*?)```", section(), re.S)
    assert len(blocks) == 3, "deploy.md's spark section has the session, the Arrow and the pipe recipe"
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
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The docs' session, its executors running the environment the docs' shell block packs."""
    job = tmp_path_factory.mktemp("job")
    (script,) = re.findall(r"```sh\n(python -m venv env .*?)```", section(), re.S)
    # As written, with this venv's python as `python`, the wheel found in
    # CITECHECK_WHEELS and the other packages pinned to the spark lock's
    # versions (its hashes would demand one for the wheel too).
    lock = (REPO / "python" / "requirements-spark.txt").read_text(encoding="utf-8")
    (job / "constraints.txt").write_text("".join(line.split(" \\")[0] + "\n" for line in lock.splitlines() if "==" in line and not line[0].isspace()))
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    env.update(PIP_FIND_LINKS=os.environ["CITECHECK_WHEELS"], PIP_CONSTRAINT=str(job / "constraints.txt"), PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_QUIET="1")
    subprocess.run(["sh", "-euc", script], cwd=job, env=env, check=True)
    # The pipe route's other binary: the Go CLI, shipped with spark.files.
    shutil.copy(GO_CLI, job / "citecheck")
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["SPARK_WORKER_DIR"] = str(tmp_path_factory.mktemp("spark-work"))
    os.chdir(job)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local-cluster[2,1,1024]")  # 2 executors of 1 core; a task may fail 3 times and be retried
        .appName("citecheck-test")
        .config("spark.ui.enabled", "false")
        .config("spark.files", "citecheck")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "500")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
    )
    s = recipes()["session"](builder)
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def kill_once(check_batches: Any, marks: str, partition: int) -> Any:
    """check_batches, but the worker of the given partition's first attempt kills itself after its first batch.

    Each attempt leaves a file named for its partition, attempt, process and
    executor (its working folder), holding the python and the citecheck it
    ran, so the test sees the partitions, the executors, the environment
    shipped to them and the retry.
    """

    def wrapped(batches: Iterator[Any]) -> Iterator[Any]:
        from pyspark import TaskContext

        import citecheck

        ctx = TaskContext.get()
        p, a = ctx.partitionId(), ctx.attemptNumber()
        Path(marks, f"{p}-{a}-{os.getpid()}-{os.path.basename(os.getcwd())}").write_text(
            json.dumps({"cwd": os.getcwd(), "python": sys.executable, "citecheck": citecheck.__file__})
        )
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
    assert len({p for p, _, _, _ in attempts}) >= 4, "the job spans at least 4 partitions"
    assert len({e for _, _, _, e in attempts}) == 2, "both executors ran tasks"
    assert ["1", "1"] in [[p, a] for p, a, _, _ in attempts], "the killed task was retried"
    for m in marks.iterdir():
        ran = json.loads(m.read_text())
        shipped = os.path.join(ran["cwd"], "environment", "")
        assert ran["python"].startswith(shipped) and ran["citecheck"].startswith(shipped), "the executors ran the packed environment"
    retried = sum(1 for _, a, _, _ in attempts if a != "0")
    print(f"spark arrow: {len(attempts)} task attempts on 2 executors, {retried} retried")

    refused = got.filter(pa.compute.is_valid(got.column("error_code")))
    assert refused.num_rows >= N // 200, "the malformed bodies are rows with their errors"
    for b, code, answer in zip(refused.column("body").to_pylist()[:50], refused.column("error_code").to_pylist(), refused.column("answer").to_pylist()):
        assert json.loads(answer)["error"]["code"] == code, b


@pytest.mark.parametrize("binary", ["packed", "shipped"])
def test_pipe_recipe_answers_as_one_run(spark: Any, lines: List[bytes], one_run: List[bytes], tmp_path: Path, binary: str) -> None:
    """The pipe recipe with the engine of the packed environment (its default), and with the binary shipped as ./citecheck."""
    src, dst = tmp_path / "requests.jsonl", tmp_path / "answers"
    src.write_bytes(b"".join(b + b"\n" for b in lines))
    ns = recipes()
    kw = {"citecheck": "./citecheck"} if binary == "shipped" else {}
    sc = spark.sparkContext
    real_text_file = sc.textFile
    parts: List[int] = []

    def text_file(path: str) -> Any:
        rdd = real_text_file(path, minPartitions=PARTITIONS)
        parts.append(rdd.getNumPartitions())
        return rdd

    sc.textFile = text_file  # the recipe as written, over at least 4 splits of the one file
    try:
        ns["pipe_requests"](sc, str(src), str(dst), **kw)
    finally:
        del sc.textFile
    assert parts and parts[0] >= 4
    got: List[bytes] = []
    for f in sorted(dst.glob("part-*")):
        got += f.read_bytes().splitlines()
    assert got == one_run
