"""The conformance cases through the package, beside the Go CLI built from the same tree."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, Tuple

import pytest
from conftest import CASES, Case, go_answer

import citecheck

_go: Dict[Tuple[str, str], bytes] = {}


def go_answers(case: Case) -> Dict[str, bytes]:
    """The CLI's run, run --all and run --explain lines for the case (each process run once)."""
    modes = ("execute", "all", "explain")
    missing = [m for m in modes if (case.name, m) not in _go]
    with ThreadPoolExecutor(3) as pool:
        for m, a in zip(missing, pool.map(lambda m: go_answer(case.body, m), missing)):
            _go[(case.name, m)] = a
    return {m: _go[(case.name, m)] for m in modes}


def test_the_cases_are_there() -> None:
    assert len(CASES) >= 170
    assert any(len(c.body) > citecheck.MAX_INPUT_BYTES for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_raw_is_the_go_answer_byte_for_byte(case: Case) -> None:
    want = go_answers(case)
    assert citecheck.check_raw(case.body) == want["execute"]
    # Every kind of bytes gives the same answer.
    assert citecheck.check_raw(bytearray(case.body)) == want["execute"]
    assert citecheck.check_raw(memoryview(case.body)) == want["execute"]
    # A str is sent as its UTF-8: the same answer (bodies that are not UTF-8 have no str).
    try:
        text = case.body.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert citecheck.check_raw(text) == want["execute"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_typed_calls_are_the_go_lines_parsed(case: Case) -> None:
    want = go_answers(case)
    for fn, mode, member in ((citecheck.check, "execute", "result"), (citecheck.check_all, "all", "all"), (citecheck.explain, "explain", "all")):
        env = json.loads(want[mode])
        if "error" in env:
            with pytest.raises(citecheck.CitecheckError) as e:
                fn(case.body)
            err = env["error"]
            assert (e.value.code, e.value.path, e.value.message) == (err["code"], err["path"], err["message"]), fn.__name__
            assert e.value.error == err, fn.__name__
        else:
            assert fn(case.body) == env[member], fn.__name__
