"""A refused body, on every kind of input: the engine's answer for its bytes,
raised by check/check_all/explain as CitecheckError with the CLI's code,
path and message; never another exception."""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Dict, List, Tuple

import pytest
from conftest import go_answer

import citecheck

GOOD = json.loads(
    '{"sources":[{"source_id":"s","version":"v","text":"abcdef"}],'
    '"citations":[{"citation_id":"c","source_id":"s","version":"v","selector":{"type":"TextQuoteSelector","exact":"bcd"}}]}'
)


def body_with_text(text: str) -> str:
    b = json.loads(json.dumps(GOOD))
    b["sources"][0]["text"] = "TEXT"
    return json.dumps(b, separators=(",", ":")).replace("TEXT", text)


def padded(n: int) -> bytes:
    """A valid body of exactly n bytes: GOOD with spaces after it (a text that long is over max_text_bytes)."""
    base = json.dumps(GOOD).encode()
    return base + b" " * (n - len(base))


KINDS: List[Tuple[str, Callable[[bytes], Any]]] = [
    ("bytes", lambda b: b),
    ("bytearray", bytearray),
    ("memoryview", memoryview),
    ("memoryview of a slice", lambda b: memoryview(b"xx" + b + b"yy")[2:-2]),
]

BODIES: List[Tuple[str, bytes]] = [
    ("truncated JSON", json.dumps(GOOD).encode()[:-7]),
    ("empty", b""),
    ("a byte order mark at the start", b"\xef\xbb\xbf" + json.dumps(GOOD).encode()),
    ("a lone surrogate's bytes", body_with_text("a\xed\xa0\x80b".encode("latin-1").decode("latin-1")).encode("latin-1")),
    ("an integer past 2^53", json.dumps({**GOOD, "citations": [{**GOOD["citations"][0], "selector": {"type": "TextPositionSelector", "start": 2**53 + 1, "end": 2**53 + 2}, "quote": "x"}]}).encode()),
    ("an integer past 2^63", json.dumps({**GOOD, "citations": [{**GOOD["citations"][0], "selector": {"type": "TextPositionSelector", "start": 0, "end": 2**63 + 5}, "quote": "x"}]}).encode()),
    ("100000-deep nesting", b"[" * 100000 + b"]" * 100000),
    ("not an object", b"[1,2]"),
    ("exactly max_input_bytes", padded(citecheck.MAX_INPUT_BYTES)),
    ("max_input_bytes + 1", padded(citecheck.MAX_INPUT_BYTES + 1)),
    ("ten times max_input_bytes", padded(10 * citecheck.MAX_INPUT_BYTES)),
]


def assert_refused_as_the_cli(body: Any, raw: bytes) -> None:
    """check_raw gives the CLI's answer for raw; the typed calls raise it, or return its result."""
    want = {m: go_answer(raw, m) for m in ("execute", "all", "explain")}
    assert citecheck.check_raw(body) == want["execute"]
    for fn, mode, member in ((citecheck.check, "execute", "result"), (citecheck.check_all, "all", "all"), (citecheck.explain, "explain", "all")):
        env = json.loads(want[mode])
        if "error" not in env:
            assert fn(body) == env[member]
            continue
        with pytest.raises(citecheck.CitecheckError) as e:
            fn(body)
        err = env["error"]
        assert (e.value.code, e.value.path, e.value.message) == (err["code"], err["path"], err["message"])


@pytest.mark.parametrize("kind,make", KINDS, ids=[k[0] for k in KINDS])
@pytest.mark.parametrize("name,raw", BODIES, ids=[b[0] for b in BODIES])
def test_a_refused_body_on_every_kind_of_bytes(name: str, raw: bytes, kind: str, make: Callable[[bytes], Any]) -> None:
    assert_refused_as_the_cli(make(raw), raw)


def test_the_limit_is_the_clis() -> None:
    assert json.loads(go_answer(padded(citecheck.MAX_INPUT_BYTES)))["result"]["valid"]
    err = json.loads(go_answer(padded(citecheck.MAX_INPUT_BYTES + 1)))["error"]
    assert (err["code"], err["limit"]) == ("limit_exceeded", "max_input_bytes")
    with pytest.raises(citecheck.CitecheckError) as e:
        citecheck.check(padded(citecheck.MAX_INPUT_BYTES + 1).decode())
    assert e.value.code == "limit_exceeded" and e.value.error is not None and e.value.error["max"] == citecheck.MAX_INPUT_BYTES


STRS: List[Tuple[str, str, bytes]] = [
    # name, the str, the bytes it must answer as
    ("a lone high surrogate", body_with_text("a\ud800b"), body_with_text("a").replace('"a"', '"a\xed\xa0\x80b"').encode("latin-1")),
    ("a lone low surrogate", body_with_text("a\udfffb"), body_with_text("a").replace('"a"', '"a\xed\xbf\xbfb"').encode("latin-1")),
    ("a high surrogate before a pair", body_with_text("\ud83d\U0001f600"), body_with_text("a").replace('"a"', '"\xed\xa0\xbd\xf0\x9f\x98\x80"').encode("latin-1")),
    ("a lone surrogate alone", "\ud800", b"\xed\xa0\x80"),
    ("a byte order mark", "\ufeff" + json.dumps(GOOD), b"\xef\xbb\xbf" + json.dumps(GOOD).encode()),
    ("truncated", json.dumps(GOOD)[:-3], json.dumps(GOOD).encode()[:-3]),
    ("over the limit", padded(citecheck.MAX_INPUT_BYTES + 1).decode(), padded(citecheck.MAX_INPUT_BYTES + 1)),
    ("astral characters", body_with_text("a\U0001f600b"), body_with_text("a\U0001f600b").encode()),
]


@pytest.mark.parametrize("name,text,raw", STRS, ids=[s[0] for s in STRS])
def test_a_str_answers_as_its_utf8_a_lone_surrogate_as_its_three_bytes(name: str, text: str, raw: bytes) -> None:
    # A lone surrogate stands for the three bytes ED xx xx, which are not UTF-8.
    assert_refused_as_the_cli(text, raw)
    if "\ud800" in text or "\udfff" in text:
        assert json.loads(citecheck.check_raw(text))["error"]["code"] == "invalid_input"


def deep(n: int) -> Any:
    v: Any = "x"
    for _ in range(n):
        v = {"a": v}
    return v


def cycle() -> Dict[str, Any]:
    c: Dict[str, Any] = dict(GOOD)
    c["self"] = c
    return c


VALUES: List[Tuple[str, Any]] = [
    ("NaN", {**GOOD, "x": float("nan")}),
    ("infinity", {**GOOD, "x": float("inf")}),
    ("a set", {**GOOD, "x": {1, 2}}),
    ("bytes in a dict", {**GOOD, "x": b"abc"}),
    ("a cycle", cycle()),
    ("100000-deep nesting", {**GOOD, "x": deep(100000)}),
    ("a key that is not a string", {**GOOD, (1, 2): "x"}),
    ("an object", object()),
]


@pytest.mark.parametrize("name,value", VALUES, ids=[v[0] for v in VALUES])
def test_a_value_json_cannot_hold_is_invalid_input(name: str, value: Any) -> None:
    plain = re.compile(r"Error|Object of type|serializable|\bset\b|\bdict\b|\bfloat\b")
    for fn in (citecheck.check, citecheck.check_all, citecheck.explain):
        with pytest.raises(citecheck.CitecheckError) as e:
            fn(value)
        assert e.value.code == "invalid_input", fn.__name__
        assert e.value.path == ""
        assert e.value.message.startswith("the body "), e.value.message
        assert not plain.search(e.value.message), e.value.message  # plain words, no Python names
    # check_raw raises nothing for a refused body: the answer says so.
    answer = json.loads(citecheck.check_raw(value))
    assert answer["error"]["code"] == "invalid_input" and answer["error"]["path"] == ""
    assert answer["error"]["message"] == e.value.message


DICTS: List[Tuple[str, Any]] = [
    ("an integer past 2^53", {**GOOD, "citations": [{**GOOD["citations"][0], "claimed_start": 2**53 + 1}]}),
    ("an integer past 2^63", {**GOOD, "citations": [{**GOOD["citations"][0], "claimed_start": 2**63 + 1}]}),
    ("a negative integer past -2^63", {**GOOD, "citations": [{**GOOD["citations"][0], "claimed_start": -(2**64)}]}),
    ("a missing member", {"sources": []}),
    ("a lone surrogate in a string", {**GOOD, "sources": [{**GOOD["sources"][0], "text": "a\ud800b"}]}),
    ("a valid request", GOOD),
]


@pytest.mark.parametrize("name,value", DICTS, ids=[d[0] for d in DICTS])
def test_a_dict_answers_as_its_compact_json(name: str, value: Any) -> None:
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    assert_refused_as_the_cli(value, raw)
    if name != "a valid request":
        assert b'"error"' in citecheck.check_raw(value)


ARGUMENTS: List[Tuple[str, Callable[[], Any], str]] = [
    ("check_many of a number", lambda: citecheck.check_many(5), "bodies is a list"),
    ("check_many of None", lambda: citecheck.check_many(None), "bodies is a list"),
    ("check_many of one body's bytes", lambda: citecheck.check_many(b"{}"), "not one body"),
    ("check_many of one body as a dict", lambda: citecheck.check_many({"sources": []}), "not one body"),
    ("check_many_raw of one body's str", lambda: citecheck.check_many_raw("{}"), "not one body"),
    ("quotes with sources as a list", lambda: citecheck.quotes("x", sources=[("a", "b")]), "a dict"),  # type: ignore[arg-type]
    ("quotes with a text as bytes", lambda: citecheck.quotes("x", sources={"a": b"b"}), "sources['a'] is not a string"),  # type: ignore[dict-item]
    ("quotes with an id not a string", lambda: citecheck.quotes("x", sources={1: "b"}), "an id is not a string"),  # type: ignore[dict-item]
    ("quotes with an empty id", lambda: citecheck.quotes("x", sources={"": "b"}), "a source's id is not empty"),
    ("quotes with a format as bytes", lambda: citecheck.quotes("x", sources={"a": "b"}, format=b"json"), "format is json or text"),  # type: ignore[arg-type]
    ("annotations with sources as a list", lambda: citecheck.annotations("[]", sources=[("a", "b")]), "a dict"),  # type: ignore[arg-type]
    ("annotations with on_notice not a function", lambda: citecheck.annotations("[]", on_notice=5), "on_notice is a function"),  # type: ignore[arg-type]
    ("annotations with an IRI not a string", lambda: citecheck.annotations("[]", sources={1: "b"}), "an IRI is not a string"),  # type: ignore[dict-item]
]


@pytest.mark.parametrize("name,call,says", ARGUMENTS, ids=[a[0] for a in ARGUMENTS])
def test_a_wrong_argument_is_refused_in_plain_words(name: str, call: Callable[[], Any], says: str) -> None:
    with pytest.raises(citecheck.CitecheckError) as e:
        call()
    assert e.value.code == "invalid_input"
    assert says in e.value.message, e.value.message
    assert not re.search(r"Error|object|\bint\b|\bbytes\b|b'", e.value.message), e.value.message
