"""The worked examples of docs/python.md, run: every ```python block in order
in one namespace, from the repository's root; a block whose first line is
`# not run` is skipped; a block followed at once by a ```text block prints
exactly that text."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
from conftest import REPO

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n?", re.S | re.M)


def blocks(markdown: str) -> List[Tuple[str, Optional[str], int]]:
    """Each python block, the text block right after it (or None), and its line."""
    found = [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(markdown)]
    out = []
    for i, (lang, code, start, end) in enumerate(found):
        if lang != "python":
            continue
        expect = None
        if i + 1 < len(found) and found[i + 1][0] == "text" and markdown[end : found[i + 1][2]].strip() == "":
            expect = found[i + 1][1]
        out.append((code, expect, markdown.count("\n", 0, start) + 1))
    return out


def run_worked_examples(path: Path) -> int:
    """Runs path's python blocks; returns how many ran."""
    namespace: Dict[str, Any] = {"__name__": "__worked_examples__"}
    ran = 0
    here = os.getcwd()
    os.chdir(REPO)
    try:
        for code, expect, line in blocks(path.read_text(encoding="utf-8")):
            if code.startswith("# not run"):
                continue
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{path.name}:{line}", "exec"), namespace)
            ran += 1
            if expect is not None:
                assert out.getvalue() == expect, f"{path.name}:{line} printed\n{out.getvalue()}\nnot\n{expect}"
    finally:
        os.chdir(here)
    return ran


SAMPLE = Path(__file__).parent / "data" / "worked-examples.md"
DOCS = REPO / "docs" / "python.md"


def test_the_worked_examples_of_docs_python_md_run() -> None:
    if not DOCS.is_file():
        pytest.skip("docs/python.md is not in this tree")
    assert run_worked_examples(DOCS) >= 1


def test_the_runner_runs_the_sample_in_one_namespace_skipping_not_run() -> None:
    assert run_worked_examples(SAMPLE) == 3


@pytest.mark.parametrize(
    "markdown,says",
    [
        ('```python\nprint("a")\n```\n\n```text\nb\n```\n', "printed"),
        ("```python\nraise ValueError('x')\n```\n", "ValueError"),
        ('```python\nx = 1\n```\n```python\nprint(y)\n```\n', "NameError"),
    ],
    ids=["other output", "a block that raises", "a name no block defined"],
)
def test_the_runner_fails_an_example_that_does_not_hold(markdown: str, says: str, tmp_path: Path) -> None:
    md = tmp_path / "bad.md"
    md.write_text(markdown)
    with pytest.raises(BaseException) as e:
        run_worked_examples(md)
    assert says in repr(e.value) or says in type(e.value).__name__


def test_a_text_block_after_prose_is_not_an_expected_output() -> None:
    assert blocks('```python\nx = 1\n```\nprose\n```text\nout\n```\n') == [("x = 1\n", None, 1)]
