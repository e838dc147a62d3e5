"""The types work for users: mypy --strict passes a use of every function and
catches the mistakes the types exist for (py.typed is in the wheel)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import citecheck

DATA = Path(__file__).parent / "data"


def mypy(path: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-color-output", "--cache-dir", str(cache), str(path)],
        capture_output=True, text=True, cwd=cache,
    )


def test_the_wheel_holds_py_typed() -> None:
    assert (Path(citecheck.__file__).parent / "py.typed").is_file()


def test_a_typed_use_of_every_function_passes_mypy_strict(tmp_path: Path) -> None:
    r = mypy(DATA / "typed_usage.py", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_catches_each_mistake_of_the_misuse_file(tmp_path: Path) -> None:
    r = mypy(DATA / "typed_misuse.py", tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = (DATA / "typed_misuse.py").read_text().splitlines()
    want = {i + 1 for i, line in enumerate(lines) if "# E:" in line}
    got = {int(m.group(1)) for m in re.finditer(r"typed_misuse\.py:(\d+): error", r.stdout)}
    assert got == want, r.stdout
