"""Dask for real (docs/deploy.md#dask): the page's recipe on a LocalCluster of two worker processes.

20,000 requests, the conformance cases' bodies and the examples cycled
with malformed ones among them, in 8 Parquet files, are checked by the
recipe's check_parquet, the code block read from docs/deploy.md, and the
answers must be those of one `citecheck run --jsonl` over the same lines,
row for row. Run by python/test_engine.sh dask, against the installed
wheel; CITECHECK_REPO is the repository, CITECHECK_GO_CLI the Go CLI
built from it.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import cloudpickle  # type: ignore[import-untyped]
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin

import citecheck

REPO = Path(os.environ["CITECHECK_REPO"])
GO_CLI = os.environ["CITECHECK_GO_CLI"]
PACKAGE = Path(citecheck.__file__).resolve().parent
if (REPO / "python" / "citecheck") == PACKAGE:
    raise RuntimeError("citecheck was imported from the source tree, not the installed wheel: run python/test_engine.sh dask")

REQUESTS = 20_000
PARTITIONS = 8
BIG = 16 << 10
CLUSTER = "LocalCluster(n_workers=2, threads_per_worker=1, processes=True)"
# Bodies every worker refuses: each must come back as a row with its error.
MALFORMED = [b"", b"{", b"null", b"[]", b'{"sources": [], "citations": []}', b'{"a":1,"a":2}', b"\xff\xfe", b"\r"]

# The plugin below is a class of this module, which the workers cannot
# import: send it by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def recipe() -> Dict[str, Any]:
    """The names docs/deploy.md's Dask recipe defines, run as written (its __main__ part aside)."""
    page = (REPO / "docs" / "deploy.md").read_text()
    section = page.split("\n## dask\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 1, "docs/deploy.md's Dask section holds one Python block"
    assert CLUSTER in blocks[0], "the test's cluster is the recipe's"
    ns: Dict[str, Any] = {"__name__": "deploy_md_dask"}
    exec(compile(blocks[0], "docs/deploy.md#dask", "exec"), ns)
    return ns


def bodies() -> Iterator[bytes]:
    """The conformance cases' and the examples' bodies that fit on a line, then the malformed ones."""
    with open(REPO / "testdata" / "conformance.jsonl", "rb") as f:
        for line in f:
            c = json.loads(line)
            body = c["body"].encode() if "body" in c else base64.b64decode(c["body_b64"])
            if b"\n" not in body:
                yield body
    for p in sorted((REPO / "examples").glob("*.json")):
        # Compact: a body with a newline is not a JSONL line.
        yield json.dumps(json.loads(p.read_bytes()), ensure_ascii=False, separators=(",", ":")).encode()
    yield from MALFORMED


def make_requests(n: int) -> List[bytes]:
    """n requests: each body over BIG once (the size limits' cases, up to 1 MiB), then the others cycled.

    Cycling the big ones too would make the 20,000 requests 380 MB.
    """
    kinds = list(bodies())
    assert len(kinds) > 100
    big = [b for b in kinds if len(b) > BIG]
    small = [b for b in kinds if len(b) <= BIG]
    return big + [small[i % len(small)] for i in range(n - len(big))]


@pytest.fixture(scope="module")
def requests() -> List[bytes]:
    return make_requests(REQUESTS)


@pytest.fixture(scope="module")
def want(requests: List[bytes]) -> List[str]:
    """One `citecheck run --jsonl` over the 20,000 lines: the answers, in order."""
    r = subprocess.run(
        [GO_CLI, "run", "citation-batch-check", "1.0.0", "--jsonl", "--input", "-"],
        input=b"".join(b + b"\n" for b in requests),
        capture_output=True,
        check=False,
    )
    assert r.returncode == 2, r.stderr  # some lines are refused
    lines = r.stdout.decode().split("\n")
    assert lines[-1] == ""
    assert len(lines) - 1 == REQUESTS
    return lines[:-1]


def write_requests(src: Path, requests: List[bytes]) -> None:
    """PARTITIONS Parquet files of (n, body), body binary as some are not UTF-8."""
    src.mkdir()
    size = -(-len(requests) // PARTITIONS)
    for p in range(PARTITIONS):
        part = requests[p * size : (p + 1) * size]
        n = list(range(p * size, p * size + len(part)))
        pq.write_table(pa.table({"n": pa.array(n, pa.int64()), "body": pa.array(part, pa.binary())}), src / f"part.{p:02d}.parquet")


def read_answers(dst: Path) -> pd.DataFrame:
    return pq.read_table(dst).to_pandas()


class KillOnceMidJob(WorkerPlugin):  # type: ignore[misc]
    """Ends its worker's process when a task starts while some, not all, partitions are written.

    Once over the cluster (the marker file is created exclusively), so the
    replacement worker the nanny starts runs its tasks.
    """

    def __init__(self, dst: str, marker: str) -> None:
        self.dst = dst
        self.marker = marker

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish != "executing":
            return
        written = len([f for f in os.listdir(self.dst) if f.endswith(".parquet")]) if os.path.isdir(self.dst) else 0
        if not 0 < written < PARTITIONS:
            return
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        os._exit(1)


def check_rows(got: pd.DataFrame, requests: List[bytes], want: List[str]) -> None:
    """Exactly one row a request, each with run --jsonl's answer and the columns read from it."""
    assert sorted(got["n"].tolist()) == list(range(REQUESTS)), "one answer per request"
    got = got.sort_values("n").reset_index(drop=True)
    assert [bytes(b) for b in got["body"]] == requests
    assert got["answer"].tolist() == want
    refused = 0
    for i, a in enumerate(want):
        env = json.loads(a)
        row = got.iloc[i]
        if "error" in env:
            refused += 1
            assert row["error_code"] == env["error"]["code"] and pd.isna(row["valid"]), i
        else:
            assert bool(row["valid"]) == env["result"]["valid"] and pd.isna(row["error_code"]), i
            d = env["result"]["first_discrepancy"]
            assert (row["citation_id"] if d else None) == (d and d["citation_id"]), i
    assert refused >= REQUESTS // 100, "the malformed bodies came back as rows with their error"


def run_recipe(tmp_path: Path, requests: List[bytes], plugin: Callable[[str], WorkerPlugin] | None) -> pd.DataFrame:
    check_parquet = recipe()["check_parquet"]
    src, dst = tmp_path / "requests", tmp_path / "answers"
    write_requests(src, requests)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        if plugin is not None:
            client.register_plugin(plugin(str(dst)))
        check_parquet(str(src), str(dst))
    assert len(list(dst.glob("*.parquet"))) == PARTITIONS
    return read_answers(dst)


def test_dask_recipe_answers_equal_one_run_jsonl(tmp_path: Path, requests: List[bytes], want: List[str]) -> None:
    check_rows(run_recipe(tmp_path, requests, None), requests, want)


def test_dask_worker_killed_mid_job_leaves_one_answer_per_request(tmp_path: Path, requests: List[bytes], want: List[str]) -> None:
    marker = tmp_path / "killed"
    got = run_recipe(tmp_path, requests, lambda dst: KillOnceMidJob(dst, str(marker)))
    assert marker.exists(), "a worker was killed while a partition was running"
    check_rows(got, requests, want)
