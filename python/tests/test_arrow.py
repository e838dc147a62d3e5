"""citecheck.arrow and citecheck.pandas: each body's answer beside it, and the columns read from it."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, List, Optional, Tuple

import pandas as pd
import pyarrow as pa
import pytest
from conftest import CASES, REPO

import citecheck
import citecheck.arrow
import citecheck.pandas

BODIES: List[bytes] = [c.body for c in CASES]
VALID = (REPO / "examples" / "valid.json").read_bytes()
MALFORMED: List[bytes] = [b"", b"{", b"null", b"[]", b'{"sources": [], "citations": []}', b"\xff\xfe", b'{"a":1,"a":2}']
ADDED = ["answer", "valid", "reason", "citation_id", "error_code"]


def with_id(cid: str, exact: str = "nowhere") -> bytes:
    """A request whose one citation, named cid, fails (or holds when exact is in the text)."""
    return json.dumps(
        {
            "sources": [{"source_id": "s", "version": "v", "text": "We reached orbit at dawn."}],
            "citations": [
                {"citation_id": "ok", "source_id": "s", "version": "v", "selector": {"type": "TextQuoteSelector", "exact": "orbit"}},
                {"citation_id": cid, "source_id": "s", "version": "v", "selector": {"type": "TextQuoteSelector", "exact": exact}},
            ],
        },
        ensure_ascii=False,
    ).encode()


# Ids the engine writes escaped, or as more than one byte a character.
ODD_IDS = [with_id(i) for i in ['say "hi"', "back\\slash", "tab\there", "Träume", "line\u2028sep", "🙂", "ctl\u0001"]]
ALL_BODIES = BODIES + MALFORMED + ODD_IDS + [with_id("holds", "orbit")]


def reference(answer: bytes) -> Tuple[Optional[bool], Optional[str], Optional[str], Optional[str]]:
    """valid, reason, citation_id and error_code, from the answer parsed whole."""
    env = json.loads(answer)
    if "error" in env:
        return None, None, None, env["error"]["code"]
    if "result" in env:
        r = env["result"]
        d = r["first_discrepancy"]
        return r["valid"], r["reason"], d and d["citation_id"], None
    failing = [c for c in env["all"]["citations"] if not c["valid"]]
    if not failing:
        return env["all"]["valid"], None, None, None
    return env["all"]["valid"], failing[0]["reason"], failing[0]["citation_id"], None


def utf8(b: bytes) -> bool:
    try:
        b.decode()
    except UnicodeDecodeError:
        return False
    return True


def rows(table: Any) -> List[Tuple[Any, ...]]:
    d = table.to_pydict()
    return list(zip(*(d[n] for n in ADDED[1:])))


@pytest.mark.parametrize("all_", [False, True], ids=["execute", "all"])
@pytest.mark.parametrize("kind", ["binary", "string", "large_binary", "large_string"])
def test_check_batch_answers_are_check_raw_row_for_row(kind: str, all_: bool) -> None:
    bodies: List[Any] = ALL_BODIES
    if "string" in kind:
        bodies = [b.decode() for b in bodies if utf8(b)]
    batch = pa.record_batch({"n": list(range(len(bodies))), "body": pa.array(bodies, type=getattr(pa, kind)())})
    out = citecheck.arrow.check_batch(batch, all=all_)
    want = citecheck.check_many_raw(bodies, all=all_)
    assert [a.encode() for a in out.column("answer").to_pylist()] == want
    assert [a.encode() for a in out.column("answer").to_pylist()] == [
        citecheck.check_raw(b) if not all_ else citecheck.check_many_raw([b], all=True)[0] for b in bodies
    ]
    assert out.column("n").to_pylist() == list(range(len(bodies)))


@pytest.mark.parametrize("all_", [False, True], ids=["execute", "all"])
def test_the_columns_are_read_from_the_answer_as_a_whole_parse_reads_them(all_: bool) -> None:
    out = citecheck.arrow.check_batch(pa.record_batch({"body": pa.array(ALL_BODIES, type=pa.binary())}), all=all_)
    got = rows(out)
    want = [reference(a.encode()) for a in out.column("answer").to_pylist()]
    assert got == want
    kinds = {(v, r is None, c is None, e is None) for v, r, c, e in got}
    assert kinds == {(True, True, True, True), (False, False, False, True), (None, True, True, False)}
    ids = {c for _, _, c, _ in got}
    assert {'say "hi"', "back\\slash", "tab\there", "Träume", "line\u2028sep", "🙂", "ctl\u0001"} <= ids


def test_the_columns_types_and_the_batchs_own_columns_and_metadata_are_kept() -> None:
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("body", pa.string())], metadata={b"k": b"v"})
    batch = pa.RecordBatch.from_arrays([pa.array([1, 2]), pa.array([VALID.decode(), "{"])], schema=schema)
    out = citecheck.arrow.check_batch(batch)
    assert isinstance(out, pa.RecordBatch)
    assert out.schema == pa.schema(list(schema) + list(citecheck.arrow.SCHEMA), metadata={b"k": b"v"})
    assert out.schema.metadata == {b"k": b"v"}
    assert rows(out) == [(True, None, None, None), (None, None, None, "invalid_input")]
    large = citecheck.arrow.check_batch(pa.record_batch({"body": pa.array([VALID], type=pa.large_binary())}))
    assert large.schema.field("answer").type == pa.large_string()
    assert citecheck.arrow.SPARK_SCHEMA == ", ".join(f"{f.name} {'boolean' if f.type == pa.bool_() else 'string'}" for f in citecheck.arrow.SCHEMA)


def test_a_table_of_many_chunks_is_a_table_in_the_same_order() -> None:
    chunks = [pa.record_batch({"body": pa.array(BODIES[i : i + 50], type=pa.binary())}) for i in range(0, len(BODIES), 50)]
    table = pa.Table.from_batches(chunks)
    out = citecheck.arrow.check_batch(table, column="body")
    assert isinstance(out, pa.Table)
    assert [a.encode() for a in out.column("answer").to_pylist()] == citecheck.check_many_raw(BODIES)
    assert out.column("body").to_pylist() == BODIES


def test_an_empty_batch_gives_an_empty_batch_with_the_columns() -> None:
    for empty in (pa.record_batch({"body": pa.array([], type=pa.string())}), pa.table({"body": pa.array([], type=pa.binary())}), pa.Table.from_batches([], pa.schema([("body", pa.string())]))):
        out = citecheck.arrow.check_batch(empty)
        assert out.num_rows == 0
        assert out.schema.names == ["body", *ADDED]


def test_a_null_body_is_refused_as_check_raw_of_none_is() -> None:
    for col in (pa.array([None, VALID], type=pa.binary()), pa.array([None, None], type=pa.null())):
        out = citecheck.arrow.check_batch(pa.record_batch({"body": col}))
        assert out.column("answer")[0].as_py().encode() == citecheck.check_raw(None)
        assert rows(out)[0] == (None, None, None, "invalid_input")
    assert b"must be an object, not null" in citecheck.check_raw(None)


def test_an_over_limit_body_is_a_row_with_its_error() -> None:
    big = b'{"sources": [{"text": "' + b"x" * citecheck.MAX_INPUT_BYTES + b'"}]}'
    out = citecheck.arrow.check_batch(pa.record_batch({"body": pa.array([big, VALID], type=pa.binary())}))
    assert rows(out) == [(None, None, None, "limit_exceeded"), (True, None, None, None)]
    assert out.column("answer")[0].as_py().encode() == citecheck.check_raw(big)


@pytest.mark.parametrize(
    "batch,error,words",
    [
        (pa.record_batch({"text": pa.array(["{}"])}), ValueError, "no column 'body'"),
        (pa.record_batch({"body": pa.array(["{}"]), "valid": pa.array([True])}), ValueError, "already has the column(s) ['valid']"),
        (pa.record_batch({"body": pa.array([1])}), TypeError, "holds int64 values"),
        ({"body": ["{}"]}, TypeError, "not a dict"),
    ],
    ids=["no body column", "a column the answers are written to", "a column of numbers", "not a batch"],
)
def test_a_batch_that_cannot_be_answered_is_refused_in_plain_words(batch: Any, error: type, words: str) -> None:
    with pytest.raises(error) as e:
        citecheck.arrow.check_batch(batch)
    assert words in str(e.value)


def test_check_batches_is_check_batch_of_each_as_mapinarrow_calls_it() -> None:
    batches = [pa.record_batch({"b": pa.array(BODIES[i : i + 40], type=pa.binary())}) for i in range(0, 120, 40)]
    got = list(citecheck.arrow.check_batches(iter(batches), column="b", all=True))
    assert [g.to_pydict() for g in got] == [citecheck.arrow.check_batch(b, column="b", all=True).to_pydict() for b in batches]


def test_check_frame_is_check_batch_for_a_dataframe() -> None:
    bodies: List[Any] = [b.decode("utf-8", "replace") for b in ALL_BODIES]
    df = pd.DataFrame({"body": bodies, "n": range(len(bodies))}, index=[f"r{i}" for i in range(len(bodies))])
    out = citecheck.pandas.check_frame(df)
    batch = citecheck.arrow.check_batch(pa.record_batch({"body": pa.array(bodies)}))
    assert list(out.columns) == ["body", "n", *ADDED]
    assert list(out.index) == list(df.index)
    assert out["answer"].tolist() == batch.column("answer").to_pylist()
    assert [tuple(None if x is pd.NA else x for x in r) for r in out[ADDED[1:]].itertuples(index=False)] == rows(batch)
    assert str(out["valid"].dtype) == "boolean"
    assert all(str(out[n].dtype) == "object" for n in ("answer", "reason", "citation_id", "error_code"))
    assert list(df.columns) == ["body", "n"]


def test_check_frame_missing_bodies_bytes_and_dicts() -> None:
    df = pd.DataFrame({"body": [None, float("nan"), pd.NA, VALID, json.loads(VALID), b"{"]})
    out = citecheck.pandas.check_frame(df)
    assert out["answer"].tolist()[:3] == [citecheck.check_raw(None).decode()] * 3
    assert out["valid"].tolist()[3:5] == [True, True]
    assert out["error_code"].tolist() == ["invalid_input"] * 3 + [None, None, "invalid_input"]
    empty = citecheck.pandas.check_frame(pd.DataFrame({"body": pd.Series([], dtype=object)}))
    assert list(empty.columns) == ["body", *ADDED] and len(empty) == 0
    assert str(empty["valid"].dtype) == "boolean"
    frames = [df.iloc[:3], df.iloc[3:]]
    assert [f["answer"].tolist() for f in citecheck.pandas.check_frames(iter(frames))] == [out["answer"].tolist()[:3], out["answer"].tolist()[3:]]
    with pytest.raises(ValueError, match="no column 'text'"):
        citecheck.pandas.check_frame(df, column="text")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_the_core_imports_neither_pyarrow_nor_pandas() -> None:
    r = run_python("import sys, citecheck; citecheck.check_many_raw([b'{}']); print('pyarrow' in sys.modules, 'pandas' in sys.modules)")
    assert r.stdout == "False False\n", r.stderr


@pytest.mark.parametrize("module,needs", [("arrow", "pyarrow"), ("pandas", "pandas")])
def test_without_the_extra_the_import_says_what_to_install(module: str, needs: str) -> None:
    r = run_python(f"import sys; sys.modules[{needs!r}] = None\ntry:\n    import citecheck.{module}\nexcept ImportError as e:\n    print(e)")
    assert r.stdout == f"citecheck.{module} needs {needs}: pip install 'citecheck-engine[{module}]'\n", r.stderr
