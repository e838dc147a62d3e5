"""What every framework test needs: the installed package, the Go CLI built
from the same tree (each adapter's outcomes are held to its `citecheck
quotes`), and docs/frameworks.md, whose worked examples the tests run.

python/test_frameworks.sh runs this suite against the wheel installed into a
virtual environment with the frameworks' real packages, from an empty folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from pydantic import BaseModel, Field

import citecheck

REPO = Path(os.environ.get("CITECHECK_REPO", Path(__file__).resolve().parents[2]))

if (REPO / "python" / "citecheck") == Path(citecheck.__file__).resolve().parent:
    raise RuntimeError("citecheck was imported from the source tree, not the installed wheel: run python/test_frameworks.sh")


class Citation(BaseModel):
    """A citation of LangChain's citations how-to, which the other frameworks' tests answer with too."""

    source_id: int = Field(..., description="The integer ID of a SPECIFIC source which justifies the answer.")
    quote: str = Field(..., description="The VERBATIM quote from the specified source that justifies the answer.")


class QuotedAnswer(BaseModel):
    """The how-to's answer: with_structured_output(QuotedAnswer)."""

    answer: str = Field(..., description="The answer to the user question, which is based only on the given sources.")
    citations: List[Citation] = Field(..., description="Citations from the given sources that justify the answer.")


def go_quotes(text: bytes, sources: Mapping[str, str], request: Optional[bytes] = None, explain: bool = False) -> List[Dict[str, Any]]:
    """`citecheck quotes` of the Go CLI built from this tree over text: its JSON lines, parsed."""
    cli = os.environ["CITECHECK_GO_CLI"]
    with tempfile.TemporaryDirectory() as d:
        args = [cli, "quotes"]
        for i, (sid, body) in enumerate(sources.items()):
            f = Path(d, f"s{i}.txt")
            f.write_text(body, encoding="utf-8")
            args += ["--source", f"{sid}={f}"]
        if request is not None:
            Path(d, "request.json").write_bytes(request)
            args += ["--request", str(Path(d, "request.json"))]
        if explain:
            args.append("--explain")
        args.append("-")
        r = subprocess.run(args, input=text, capture_output=True)
    assert r.returncode in (0, 1), r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def worked_example(section: str) -> List[str]:
    """The Python blocks of docs/frameworks.md's section headed `## {section}`, in order."""
    text = (REPO / "docs" / "frameworks.md").read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, re.S)
