"""Checking a column of request bodies in Arrow batches (docs/python.md#arrow-and-pandas).

check_batch takes a pyarrow.RecordBatch or Table and gives it back with the
answers beside the bodies; check_batches does so for an iterator of them.
They plug unchanged into Spark's mapInArrow (check_batches), Ray Data's
map_batches(batch_format="pyarrow") (check_batch) and any engine that maps
Arrow batches. Needs pyarrow: pip install 'citecheck-engine[arrow]'.
"""

from __future__ import annotations

import array
import itertools
from typing import Any, Iterable, Iterator, List, TypeVar

try:
    import pyarrow as pa  # type: ignore[import-untyped]
except ImportError as e:  # pragma: no cover - the tests import it both ways
    raise ImportError("citecheck.arrow needs pyarrow: pip install 'citecheck-engine[arrow]'") from e

from ._columns import NAMES, answer_columns, clash

__all__ = ["SCHEMA", "SPARK_SCHEMA", "check_batch", "check_batches"]

#: The columns check_batch adds, as a pyarrow schema (answer is
#: large_string instead when the body column is large_string or large_binary).
SCHEMA = pa.schema(
    [
        pa.field("answer", pa.string()),
        pa.field("valid", pa.bool_()),
        pa.field("reason", pa.string()),
        pa.field("citation_id", pa.string()),
        pa.field("error_code", pa.string()),
    ]
)

#: The same columns in Spark's DDL, to append to the input's for mapInArrow and mapInPandas.
SPARK_SCHEMA = "answer string, valid boolean, reason string, citation_id string, error_code string"

Batch = TypeVar("Batch", "pa.RecordBatch", "pa.Table")

_INT32_MAX = (1 << 31) - 1


def _is_body_type(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    kinds = [pa.types.is_string, pa.types.is_large_string, pa.types.is_binary, pa.types.is_large_binary, pa.types.is_null]
    kinds += [getattr(pa.types, k) for k in ("is_string_view", "is_binary_view") if hasattr(pa.types, k)]
    return any(k(t) for k in kinds)


def _is_large(t: pa.DataType) -> bool:
    return bool(pa.types.is_large_string(t) or pa.types.is_large_binary(t))


def _strings(values: List[bytes], large: bool) -> pa.Array:
    """The answers as a string column, built from their bytes at once (they are UTF-8: the engine writes them)."""
    data = b"".join(values)
    if not large and len(data) > _INT32_MAX:
        raise ValueError(
            f"the batch's answers take {len(data)} bytes, more than a string column holds (2 GiB): "
            "send smaller batches (Spark: spark.sql.execution.arrow.maxRecordsPerBatch), or a large_string column of bodies"
        )
    offsets = array.array("q" if large else "i", itertools.accumulate(map(len, values), initial=0))
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def check_batch(batch: Batch, *, column: str = "body", all: bool = False) -> Batch:
    """The batch with each body's answer and the columns read from it, in the same order.

    batch is a pyarrow.RecordBatch or Table; column names its column of
    request bodies (string or binary: each the request's JSON). The result
    is of the same kind, with the batch's columns (and schema metadata)
    followed by those of SCHEMA:

    - answer: the bytes check_raw gives for the body, as a string
      ({"result"}, {"all"} with all=True, or {"error"});
    - valid: the result's valid, null for a refused body;
    - reason: the first failing citation's reason, null when valid or refused;
    - citation_id: the first failing citation's id, null when valid or refused;
    - error_code: the refusal's code, null unless refused.

    A refused body is a row with its error, never an exception; a null
    body is refused as check_raw(None) is (invalid_input, "body: must be an
    object, not null"). The bodies are checked on every core
    (check_many_raw); memory is the batch's bodies as Python bytes and
    their answers beside the batch. Raises ValueError for a batch without
    the column, with a column named as an added one, or whose answers
    exceed a string column's 2 GiB; TypeError for a column of another type.
    """
    if not isinstance(batch, (pa.RecordBatch, pa.Table)):
        raise TypeError(f"check_batch takes a pyarrow RecordBatch or Table, not a {type(batch).__name__}")
    clash(batch.schema.names, column)
    col = batch.column(batch.schema.get_field_index(column))
    if not _is_body_type(col.type):
        raise TypeError(f"the column {column!r} holds {col.type} values; a body is a string or binary value: the request's JSON")
    got = answer_columns(col.to_pylist(), all)
    added: List[Any] = [
        _strings(got.answer, _is_large(col.type)),
        pa.array(got.valid, type=pa.bool_()),
        pa.array(got.reason, type=pa.string()),
        pa.array(got.citation_id, type=pa.string()),
        pa.array(got.error_code, type=pa.string()),
    ]
    schema = batch.schema
    for name, arr in zip(NAMES, added):
        schema = schema.append(pa.field(name, arr.type))
    kind = pa.RecordBatch if isinstance(batch, pa.RecordBatch) else pa.Table
    return kind.from_arrays([*batch.columns, *added], schema=schema)


def check_batches(batches: Iterable[Batch], *, column: str = "body", all: bool = False) -> Iterator[Batch]:
    """check_batch of each batch, in order, one at a time: Spark's mapInArrow takes it as it is.

    The output's schema is the input's followed by SPARK_SCHEMA's columns.
    """
    for b in batches:
        yield check_batch(b, column=column, all=all)

