"""What every test needs: the installed package, the Go CLI built from the
same tree, and the repository the examples and cases are read from.

The suite runs against the wheel installed into a virtual environment, from
an empty folder (python/test.sh): importing citecheck from the source tree
would hide a file the wheel lacks, so that is refused here.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

import citecheck

REPO = Path(os.environ.get("CITECHECK_REPO", Path(__file__).resolve().parents[2]))
PACKAGE = Path(citecheck.__file__).resolve().parent

if (REPO / "python" / "citecheck") == PACKAGE:
    raise RuntimeError(f"citecheck was imported from the source tree ({PACKAGE}), not the installed wheel: run python/test.sh")


def go_cli() -> str:
    """The Go CLI built from the same tree (CITECHECK_GO_CLI), beside which the package is held."""
    path = os.environ.get("CITECHECK_GO_CLI")
    if not path or not os.path.isfile(path):
        raise RuntimeError("CITECHECK_GO_CLI names the Go CLI built from this tree (go build -o X ./cmd/citecheck)")
    return path


def console_script() -> str:
    """The citecheck command the wheel installed into this environment's scripts folder."""
    return os.path.join(sysconfig.get_path("scripts"), "citecheck")


RUN = ["run", "citation-batch-check", "1.0.0"]
MODE_FLAGS = {"execute": [], "all": ["--all"], "explain": ["--explain"]}


def go(args: List[str], stdin: bytes = b"", cwd: Optional[Path] = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([go_cli(), *args], input=stdin, capture_output=True, cwd=cwd or REPO)


def go_answer(body: bytes, mode: str = "execute") -> bytes:
    """What `citecheck run` prints for body, without its newline."""
    r = go([*RUN, *MODE_FLAGS[mode], "--input", "-"], body)
    assert r.stdout.endswith(b"\n"), r.stderr
    return r.stdout[:-1]


@dataclass(frozen=True)
class Case:
    name: str
    body: bytes


def conformance_cases() -> List[Case]:
    """Every case of testdata/conformance.jsonl (the cases.jsonl format: body or body_b64)."""
    out = []
    with open(REPO / "testdata" / "conformance.jsonl", "rb") as f:
        for line in f:
            c = json.loads(line)
            body = c["body"].encode("utf-8") if "body" in c else base64.b64decode(c["body_b64"])
            out.append(Case(c["name"], body))
    return out


CASES = conformance_cases()


@pytest.fixture(scope="session")
def cases() -> List[Case]:
    return CASES


def examples() -> Iterator[Path]:
    yield from sorted((REPO / "examples").glob("*.json"))
