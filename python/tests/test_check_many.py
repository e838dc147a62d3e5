"""check_many and check_many_raw: each body's answer alone, in input order."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from conftest import CASES, RUN, go

import citecheck

# The conformance bodies, over-limit and invalid ones among them, in a mixed order.
BODIES: List[bytes] = [c.body for c in CASES]
MIXED: List[bytes] = BODIES[::2] + BODIES[1::2][::-1]


def test_the_mix_holds_refusals_over_limit_bodies_and_results() -> None:
    answers = [citecheck.check_raw(b) for b in MIXED]
    assert any(a.startswith(b'{"result"') for a in answers)
    assert any(b'"limit_exceeded"' in a for a in answers)
    assert any(b'"invalid_input"' in a for a in answers)


def test_check_many_raw_is_check_raw_one_by_one_in_input_order() -> None:
    assert citecheck.check_many_raw(MIXED) == [citecheck.check_raw(b) for b in MIXED]


def test_check_many_raw_all_is_run_all_one_by_one() -> None:
    many = citecheck.check_many_raw(MIXED[:60], all=True)
    assert [json.loads(a) for a in many] == [{"all": citecheck.check_all(b)} if b'"result"' in citecheck.check_raw(b) else json.loads(citecheck.check_raw(b)) for b in MIXED[:60]]


def test_check_many_is_the_raw_answers_parsed_refusals_as_entries() -> None:
    envs = citecheck.check_many(MIXED)
    assert envs == [json.loads(citecheck.check_raw(b)) for b in MIXED]
    assert any("error" in e for e in envs)


def test_check_many_is_run_jsonl_over_the_same_lines() -> None:
    # --jsonl reads one body a line: the bodies without a newline in them.
    lines = [b for b in MIXED if b"\n" not in b and b"\r" not in b and len(b) <= citecheck.MAX_INPUT_BYTES]
    cli = go([*RUN, "--jsonl", "--input", "-"], b"".join(b + b"\n" for b in lines))
    assert cli.stdout.splitlines() == citecheck.check_many_raw(lines)
    assert len(lines) > 100


def test_check_many_takes_any_iterable_and_every_kind_of_body() -> None:
    body = CASES[0].body
    kinds = [body, bytearray(body), memoryview(body), body.decode(), json.loads(body), b"{"]
    got = citecheck.check_many_raw(iter(kinds))
    assert got[:5] == [citecheck.check_raw(body)] * 5
    assert b'"invalid_input"' in got[5]
    assert citecheck.check_many_raw([]) == []
    assert citecheck.check_many(x for x in [body]) == [json.loads(citecheck.check_raw(body))]


def test_check_many_a_value_json_cannot_hold_is_its_error_entry() -> None:
    body = CASES[0].body
    cycle: Dict[str, Any] = {}
    cycle["self"] = cycle
    got = citecheck.check_many([body, {"x": float("nan")}, {"x": {1, 2}}, cycle, body])
    assert got[0] == got[4] == json.loads(citecheck.check_raw(body))
    for g in got[1:4]:
        assert g["error"]["code"] == "invalid_input"  # type: ignore[typeddict-item]


def test_check_many_past_one_frame_keeps_the_order() -> None:
    # More bodies than one frame holds (1024), each different.
    body = json.loads(CASES[0].body)
    bodies = []
    for i in range(2100):
        b = json.loads(json.dumps(body))
        b["citations"][0]["citation_id"] = f"c{i}"
        b["citations"][0]["selector"]["start"] = i % 7
        bodies.append(b)
    got = citecheck.check_many(bodies)
    assert got == [json.loads(citecheck.check_raw(b)) for b in bodies]
    assert any("result" in g and not g["result"]["valid"] for g in got)  # type: ignore[typeddict-item]
