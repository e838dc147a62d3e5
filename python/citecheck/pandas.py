"""Checking a column of request bodies in pandas DataFrames (docs/python.md#arrow-and-pandas).

check_frame is citecheck.arrow.check_batch for a DataFrame: it plugs
unchanged into Dask's map_partitions, and check_frames into Spark's
mapInPandas. Needs pandas: pip install 'citecheck-engine[pandas]'.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

try:
    import pandas as pd  # type: ignore[import-untyped]
except ImportError as e:  # pragma: no cover - the tests import it both ways
    raise ImportError("citecheck.pandas needs pandas: pip install 'citecheck-engine[pandas]'") from e

from ._columns import NAMES, answer_columns, clash

__all__ = ["check_frame", "check_frames"]


def check_frame(df: Any, *, column: str = "body", all: bool = False) -> Any:
    """A new DataFrame: df's columns and index, then each body's answer and the columns read from it.

    The body column holds each request's JSON as a str or bytes (or the
    request as a dict, written as JSON as check_raw writes it). The added
    columns are those of citecheck.arrow.check_batch: answer (str), valid
    (pandas' nullable "boolean", <NA> for a refused body), and reason,
    citation_id and error_code (str or None); all but valid are of dtype
    object, whatever pandas' default string dtype. A missing body (None,
    NaN, pd.NA) is refused as check_raw(None) is: a row with its error,
    never an exception. The bodies are checked on every core; memory is
    the bodies and their answers beside the frame. Raises ValueError for a
    frame without the column or with a column named as an added one.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"check_frame takes a pandas DataFrame, not a {type(df).__name__}")
    clash([str(c) for c in df.columns], column)
    series = df[column]
    missing = series.isna().tolist()
    bodies = [None if m else v for v, m in zip(series.tolist(), missing)]
    got = answer_columns(bodies, all)
    out = df.copy(deep=False)
    values = [
        [a.decode() for a in got.answer],
        got.valid,
        got.reason,
        got.citation_id,
        got.error_code,
    ]
    for name, vals in zip(NAMES, values):
        out[name] = pd.Series(vals, index=df.index, dtype="boolean" if name == "valid" else object)
    return out


def check_frames(frames: Iterable[Any], *, column: str = "body", all: bool = False) -> Iterator[Any]:
    """check_frame of each frame, in order, one at a time: Spark's mapInPandas takes it as it is."""
    for f in frames:
        yield check_frame(f, column=column, all=all)
