"""The citecheck command the wheel installs is the Go CLI: same stdout bytes,
same standard-error line, same exit status, on every example and on the
docs' example commands."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

import pytest
from conftest import REPO, RUN, console_script, examples, go_cli


def both(args: List[str], stdin: bytes = b"", cwd: Path = REPO) -> Tuple[subprocess.CompletedProcess[bytes], subprocess.CompletedProcess[bytes]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITECHECK_")}
    run = lambda exe: subprocess.run([exe, *args], input=stdin, capture_output=True, cwd=cwd, env=env)
    return run(console_script()), run(go_cli())


def assert_same(args: List[str], stdin: bytes = b"", cwd: Path = REPO) -> subprocess.CompletedProcess[bytes]:
    py, go = both(args, stdin, cwd)
    assert (py.returncode, py.stdout, py.stderr) == (go.returncode, go.stdout, go.stderr), args
    return go


def test_the_console_script_is_the_wheels_binary() -> None:
    assert os.path.isfile(console_script()) and os.access(console_script(), os.X_OK)
    with open(console_script(), "rb") as f:
        assert f.read(4) == b"\x7fELF" or os.name != "posix" or os.uname().sysname != "Linux"


EXAMPLE_FLAGS = [[], ["--all"], ["--explain"], ["--fix"], ["--format", "text"], ["--all", "--format", "text"], ["--jsonl"]]


@pytest.mark.parametrize("flags", EXAMPLE_FLAGS, ids=lambda f: " ".join(f) or "plain")
@pytest.mark.parametrize("example", list(examples()), ids=lambda p: p.name)
def test_every_example_as_the_go_cli(example: Path, flags: List[str]) -> None:
    rel = str(example.relative_to(REPO))
    assert_same([*RUN, "--input", rel, *flags])
    if "--jsonl" not in flags:
        assert_same([*RUN, "--input", "-", *flags], example.read_bytes())


MISTAKES = [
    [],
    ["--help"],
    ["run"],
    ["run", "citation-batch-check", "9.9.9", "--input", "examples/valid.json"],
    [*RUN, "--input", "examples/no-such-file.json"],
    [*RUN, "--input", "examples/valid.json", "--no-such-flag"],
    [*RUN, "--input", "examples/valid.json", "--all", "--explain"],
    ["quotes"],
    ["quotes", "--source", "a=examples/no-such.txt", "examples/quotes/report.md"],
    ["annotations", "examples/no-such.json"],
    ["no-such-command"],
]


@pytest.mark.parametrize("args", MISTAKES, ids=lambda a: " ".join(a) or "no arguments")
def test_command_line_mistakes_as_the_go_cli(args: List[str]) -> None:
    assert_same(args)


def test_refused_bodies_on_standard_input_as_the_go_cli() -> None:
    for body in (b"", b"{", b"\xef\xbb\xbf{}", b"[]", b'{"sources":[],"citations":[]}', b"x" * ((1 << 20) + 1)):
        assert_same([*RUN, "--input", "-"], body)


def doc_commands() -> Iterator[Tuple[str, str]]:
    """Every `$ citecheck …` command of the docs (continuation lines joined), with the file it is in."""
    for md in sorted([*(REPO / "docs").glob("*.md"), REPO / "README.md"]):
        lines = md.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("$ citecheck "):
                cmd = line[2:]
                while cmd.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd[:-1] + " " + lines[i].strip()
                yield md.name, cmd
            i += 1


FILE_LIKE = re.compile(r"\.(json|jsonl|txt|md|tsv|html)$")


def runnable(cmd: str) -> Optional[Tuple[List[str], Path]]:
    """The command's arguments (up to a pipe or redirection) and the folder its files are in, if the repository holds them."""
    args: List[str] = []
    for tok in shlex.split(cmd)[1:]:
        if tok in ("|", ">", "<", ">/dev/null", "2>&1") or tok.startswith(">"):
            break
        args.append(tok)
    files = [t.split("=", 1)[-1] for t in args if FILE_LIKE.search(t.split("=", 1)[-1])]
    if not files:
        return None
    found = [p for p in REPO.rglob(os.path.basename(files[0])) if "node_modules" not in p.parts and ".git" not in p.parts]
    for candidate in found:
        # The folder the command runs in: the first file's path, taken off its end.
        base = Path(str(candidate)[: -len(files[0])]) if str(candidate).endswith(files[0]) else None
        if base is not None and all((base / f).is_file() for f in files):
            return args, base
    return None


DOC_COMMANDS = list(doc_commands())


def test_the_docs_commands_are_found_and_most_run() -> None:
    ran = [c for _, c in DOC_COMMANDS if runnable(c)]
    assert len(ran) >= 8, ran


@pytest.mark.parametrize("doc,cmd", DOC_COMMANDS, ids=[f"{d}: {c[:60]}" for d, c in DOC_COMMANDS])
def test_the_docs_commands_as_the_go_cli(doc: str, cmd: str) -> None:
    r = runnable(cmd)
    if r is None:
        pytest.skip(f"{doc}: the repository holds no file this command names")
    args, cwd = r
    assert_same(args, cwd=cwd)


@pytest.mark.parametrize("args", [[*RUN, "--input", "examples/valid.json"], [*RUN, "--input", "examples/version-mismatch.json", "--all"], ["no-such-command"]], ids=["valid", "failing", "misuse"])
def test_python_dash_m_citecheck_is_the_command(args: List[str]) -> None:
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("CITECHECK_")}
    py = subprocess.run([sys.executable, "-m", "citecheck", *args], capture_output=True, cwd=REPO, env=env)
    go = subprocess.run([go_cli(), *args], capture_output=True, cwd=REPO, env=env)
    assert (py.returncode, py.stdout, py.stderr) == (go.returncode, go.stdout, go.stderr)
