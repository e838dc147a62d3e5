"""quotes() and annotations() print what `citecheck quotes` and `citecheck
annotations` print, for text and sources held in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
from conftest import REPO, go

import citecheck

Q = REPO / "examples" / "quotes"


def tsv_sources() -> Dict[str, str]:
    out = {}
    for line in (Q / "sources.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            sid, name = line.split("\t")
            out[sid] = (Q / name).read_text(encoding="utf-8")
    return out


QUOTES_CASES = [
    # name, input file, extra CLI flags, quotes() keyword arguments beyond sources
    ("report", "report.md", [], {}),
    ("report text explain", "report.md", ["--format", "text", "--explain"], {"format": "text", "explain": True}),
    ("answer", "answer.json", [], {}),
    ("answer text", "answer.json", ["--format", "text"], {"format": "text"}),
    ("answer explain", "answer.json", ["--explain"], {"explain": True}),
]


@pytest.mark.parametrize("name,file,flags,kwargs", QUOTES_CASES, ids=[c[0] for c in QUOTES_CASES])
def test_quotes_prints_what_citecheck_quotes_prints(name: str, file: str, flags: List[str], kwargs: Dict[str, Any]) -> None:
    cli = go(["quotes", "--sources", str(Q / "sources.tsv"), *flags, str(Q / file)])
    assert cli.returncode in (0, 1), cli.stderr
    text = (Q / file).read_text(encoding="utf-8")
    assert citecheck.quotes(text, sources=tsv_sources(), **kwargs) == cli.stdout.decode()
    # bytes and a JSON value are the same input.
    assert citecheck.quotes((Q / file).read_bytes(), sources=tsv_sources(), **kwargs) == cli.stdout.decode()
    if file.endswith(".json"):
        assert citecheck.quotes(json.loads(text), sources=tsv_sources(), **kwargs) == cli.stdout.decode()


@pytest.mark.parametrize("explain", [False, True])
def test_quotes_of_an_anthropic_response_against_its_request(explain: bool) -> None:
    flags = ["--explain"] if explain else []
    cli = go(["quotes", *flags, "--request", str(Q / "anthropic-request.json"), str(Q / "anthropic-response.json")])
    assert cli.returncode in (0, 1), cli.stderr
    got = citecheck.quotes(
        (Q / "anthropic-response.json").read_text(encoding="utf-8"),
        request=json.loads((Q / "anthropic-request.json").read_text(encoding="utf-8")),
        explain=explain,
    )
    assert got == cli.stdout.decode()


def cli_message(stderr: bytes) -> str:
    """The CLI's error line without "citecheck: " and the name it gives its input."""
    line = [s for s in stderr.decode().splitlines() if s.startswith("citecheck: ")][-1]
    return line[len("citecheck: ") :].split(": ", 1)[1]


QUOTES_REFUSALS = [
    ("not JSON", b"{not json"),
    ("a bad shape", b'{"citations": 5}'),
    ("a citation that is not an object", b'{"citations": [5]}'),
    ("not UTF-8", b"caf\xe9 \xab quoted \xbb"),
]


@pytest.mark.parametrize("name,text", QUOTES_REFUSALS, ids=[c[0] for c in QUOTES_REFUSALS])
def test_quotes_refuses_what_the_cli_refuses_in_its_words(name: str, text: bytes, tmp_path: Path) -> None:
    src = tmp_path / "s.txt"
    src.write_text("the text")
    cli = go(["quotes", "--source", f"a={src}", "-"], text)
    assert cli.returncode == 2, cli.stdout
    with pytest.raises(citecheck.CitecheckError) as e:
        citecheck.quotes(text, sources={"a": "the text"})
    assert e.value.code == "invalid_input"
    assert e.value.message.split(": ", 1)[1] == cli_message(cli.stderr)
    assert e.value.lines == cli.stdout.decode()


def test_quotes_arguments_it_cannot_run_on() -> None:
    for kwargs in ({}, {"sources": {}}, {"sources": {"a": 5}}, {"sources": {"a": "x"}, "format": "yaml"}):
        with pytest.raises(citecheck.CitecheckError) as e:
            citecheck.quotes("a report", **kwargs)  # type: ignore[arg-type]
        assert e.value.code == "invalid_input", kwargs
    with pytest.raises(citecheck.CitecheckError) as e:
        citecheck.quotes("a report \ud800", sources={"a": "x"})
    assert e.value.code == "invalid_input"


# `citecheck quotes`'s --max-source-size default, which the package's quotes applies too.
MAX_SOURCE_BYTES = 64 << 20


def test_quotes_refuses_a_source_over_the_commands_bound_in_its_words(tmp_path: Path) -> None:
    at = "a" * MAX_SOURCE_BYTES
    assert json.loads(citecheck.quotes('"aaa" [s]', sources={"s": at}))["outcome"] == "verbatim"
    src = tmp_path / "s.txt"
    src.write_text(at + "a")
    cli = go(["quotes", "--source", f"s={src}", "-"], b'"aaa" [s]')
    assert cli.returncode == 2 and b"larger than --max-source-size (64MiB)" in cli.stderr, cli.stderr
    for kwargs in ({"sources": {"s": at + "a"}}, {"sources": {"s" * 1000: at + "a"}}):
        with pytest.raises(citecheck.CitecheckError) as e:
            citecheck.quotes('"aaa" [s]', **kwargs)  # type: ignore[arg-type]
        assert e.value.code == "limit_exceeded"
        assert "larger than 64MiB" in e.value.message and "--max-source-size" in e.value.message
        assert len(e.value.message) < 300
    with pytest.raises(citecheck.CitecheckError) as e:
        citecheck.quotes('"aaa" [s]' + " " * MAX_SOURCE_BYTES, sources={"s": "aaa"})
    assert e.value.code == "limit_exceeded" and e.value.message.startswith("text: larger than 64MiB")


W3C = REPO / "annotation" / "testdata" / "w3c-collection1.json"
ESTUARY = REPO / "cmd" / "citecheck" / "testdata" / "annotations"


def test_annotations_prints_what_citecheck_annotations_prints_on_the_w3c_collection() -> None:
    cli = go(["annotations", str(W3C)])
    assert cli.returncode in (0, 1), cli.stderr
    assert citecheck.annotations(W3C.read_text(encoding="utf-8")) == cli.stdout.decode()
    assert citecheck.annotations(json.loads(W3C.read_bytes())) == cli.stdout.decode()


@pytest.mark.parametrize("page", ["estuary-v1.txt", "estuary-v2.txt"])
def test_annotations_prints_what_citecheck_annotations_prints_on_the_hypothesis_search(page: str) -> None:
    iri = "https://example.org/field-notes/estuary"
    cli = go(["annotations", "--source", f"{iri}={ESTUARY / page}", str(ESTUARY / "hypothesis-search.json")])
    assert cli.returncode in (0, 1), cli.stderr
    text = (ESTUARY / page).read_text(encoding="utf-8")
    export = (ESTUARY / "hypothesis-search.json").read_bytes()
    assert citecheck.annotations(export, sources={iri: text}) == cli.stdout.decode()
    assert citecheck.annotations(export, sources={iri: {"text": text}}) == cli.stdout.decode()


def test_annotations_refuses_an_export_that_is_not_json_in_the_cli_words() -> None:
    export = b'{"id":"a","target":"s"}\n{bad'
    cli = go(["annotations", "-"], export)
    assert cli.returncode == 2
    with pytest.raises(citecheck.CitecheckError) as e:
        citecheck.annotations(export)
    assert e.value.code == "invalid_input"
    assert "citecheck: " + e.value.message == cli.stderr.decode().splitlines()[-1]
    assert e.value.lines == cli.stdout.decode()


def test_annotations_refuses_sources_it_cannot_take() -> None:
    for sources in ({"u": 5}, {"u": {"text": 5}}, {"u": {"text": "x", "version": 5}}, {5: "x"}, {"u": "a\ud800"}):
        with pytest.raises(citecheck.CitecheckError) as e:
            citecheck.annotations("[]", sources=sources)  # type: ignore[dict-item]
        assert e.value.code == "invalid_input", sources


def a(id: str, source: str) -> Dict[str, Any]:
    return {"id": id, "target": {"source": source, "selector": {"type": "TextQuoteSelector", "exact": "old pier"}}}


NOTICE_CASES: List[Tuple[str, Any, List[Dict[str, Any]]]] = [
    ("next", {"type": "AnnotationPage", "items": [a("p", "urn:p")], "next": {"id": "https://e.org/p2"}}, [{"kind": "one_page", "next": "https://e.org/p2"}]),
    ("total", {"total": 50, "rows": [a("p", "urn:p")]}, [{"kind": "one_page", "total": 50, "here": 1}]),
    (
        "missing",
        [a("p", "urn:p"), a("m", "urn:m"), a("m2", "urn:m"), a("n", "urn:n")],
        [{"kind": "sources_not_supplied", "sources": [{"iri": "urn:m", "targets": 2}, {"iri": "urn:n", "targets": 1}]}],
    ),
    ("whole", [a("p", "urn:p")], []),
]


@pytest.mark.parametrize("name,value,want", NOTICE_CASES, ids=[c[0] for c in NOTICE_CASES])
def test_annotations_tells_on_notice_what_the_cli_says_beside_its_counts(name: str, value: Any, want: List[Dict[str, Any]], tmp_path: Path) -> None:
    src = tmp_path / "notice.txt"
    src.write_text("the old pier stands")
    export = json.dumps(value)
    cli = go(["annotations", "--source", f"urn:p={src}", "-"], export.encode())
    notices: List[citecheck.AnnotationsNotice] = []
    assert citecheck.annotations(export, sources={"urn:p": "the old pier stands"}, on_notice=notices.append) == cli.stdout.decode()
    said = [line.strip() for line in cli.stderr.decode().splitlines()[1:] if line.strip()]
    assert [{k: v for k, v in n.items() if k != "message"} for n in notices] == want
    for n in notices:
        assert n["message"] in said, (n, said)


def test_annotations_notice_of_targets_that_name_no_source(tmp_path: Path) -> None:
    bare = json.dumps({"id": "b", "target": {"selector": {"type": "TextQuoteSelector", "exact": "old pier"}}})
    notices: List[citecheck.AnnotationsNotice] = []
    assert citecheck.annotations(bare, on_notice=notices.append) == go(["annotations", "-"], bare.encode()).stdout.decode()
    assert [(n["kind"], n.get("targets"), n["message"]) for n in notices] == [
        ("targets_name_no_source", 1, '1 targets name no source: sources[""] gives their text')
    ]
    src = tmp_path / "s.txt"
    src.write_text("the old pier stands")
    assert citecheck.annotations(bare, sources={"": "the old pier stands"}) == go(["annotations", "--source", f"={src}", "-"], bare.encode()).stdout.decode()


def test_annotations_notices_come_before_the_error() -> None:
    export = json.dumps({"total": 50, "rows": [a("p", "urn:p")]})[:-1]  # cut: not JSON at its end
    notices: List[citecheck.AnnotationsNotice] = []
    with pytest.raises(citecheck.CitecheckError):
        citecheck.annotations(export, on_notice=notices.append)
    cli = go(["annotations", "-"], export.encode())
    said = [line.strip() for line in cli.stderr.decode().splitlines()[1:] if line.strip()]
    assert all(n["message"] in said for n in notices), (notices, said)


def test_a_source_that_starts_with_a_byte_order_mark_reads_as_the_cli_reads_its_file(tmp_path: Path) -> None:
    src = tmp_path / "bom.txt"
    exp = '{"id":"p","target":{"source":"urn:b","selector":[{"type":"TextPositionSelector","start":0,"end":3},{"type":"TextQuoteSelector","exact":"The"}]}}\n'
    for text in ("\ufeffThe quick brown fox", "\ufeff\ufeffThe quick"):
        src.write_text(text, encoding="utf-8")
        cli = go(["annotations", "--source", f"urn:b={src}", "-"], exp.encode())
        assert citecheck.annotations(exp, sources={"urn:b": src.read_text(encoding="utf-8")}) == cli.stdout.decode()
