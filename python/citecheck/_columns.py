"""The columns an analyst filters on, for citecheck.arrow and citecheck.pandas.

Neither pyarrow nor pandas is imported here: each module turns these
lists into its own columns.
"""

from __future__ import annotations

import json
from typing import Any, Hashable, List, NamedTuple, Optional, Sequence

from . import check_many_raw

#: The columns check_batch and check_frame add, in this order.
NAMES = ("answer", "valid", "reason", "citation_id", "error_code")

# The engine writes an answer's fields in one order, so the columns are
# read from the prefixes below without parsing the rest: a valid result
# needs nothing more, a refusal its code, a failing result its reason and
# the citation's id. The reason and the code are closed enums of ASCII
# words (never escaped); an id is read as the JSON string it is. An answer
# of another shape (all=True's failing ones) is parsed whole.
_VALID = (b'{"result":{"valid":true,', b'{"all":{"valid":true,')
_ERROR = b'{"error":{"code":"'
_INVALID = b'{"result":{"valid":false,"reason":"'
_DISCREPANCY = b'","first_discrepancy":{"citation_index":'
_ID = b',"citation_id":'
_DECODER = json.JSONDecoder()


class Columns(NamedTuple):
    """One list per added column, a row per body, in input order."""

    answer: List[bytes]
    valid: List[Optional[bool]]
    reason: List[Optional[str]]
    citation_id: List[Optional[str]]
    error_code: List[Optional[str]]


def clash(existing: Sequence[Hashable], column: Hashable) -> None:
    """Raises ValueError when the input lacks the body column, has two of that name, or already has a column the answers would add."""
    n = list(existing).count(column)
    if n == 0:
        raise ValueError(f"there is no column {column!r} of request bodies; the columns are {list(existing)!r} (name it with column=)")
    if n > 1:
        raise ValueError(f"there are {n} columns named {column!r}: name the column of request bodies once")
    taken = [n for n in NAMES if n in existing]
    if taken:
        raise ValueError(f"the input already has the column(s) {taken!r} that the answers are written to; rename or drop them first")


def _row(answer: bytes) -> tuple[Optional[bool], Optional[str], Optional[str], Optional[str]]:
    """valid, reason, citation_id and error_code of one answer."""
    if answer.startswith(_VALID):
        return True, None, None, None
    if answer.startswith(_ERROR):
        return None, None, None, answer[len(_ERROR) : answer.index(b'"', len(_ERROR))].decode()
    if answer.startswith(_INVALID):
        end = answer.index(b'"', len(_INVALID))
        if answer.startswith(_DISCREPANCY, end):
            # ASCII up to the id, so its byte offset is its offset in the text.
            at = answer.index(_ID, end + len(_DISCREPANCY)) + len(_ID)
            cid, _ = _DECODER.raw_decode(answer.decode(), at)
            return False, answer[len(_INVALID) : end].decode(), cid, None
    env: Any = json.loads(answer)
    if "error" in env:
        return None, None, None, env["error"]["code"]
    if "result" in env:
        r = env["result"]
        d = r["first_discrepancy"]
        return r["valid"], r["reason"], (d["citation_id"] if d else None), None
    a = env["all"]
    for c in a["citations"]:
        if not c["valid"]:
            return False, c["reason"], c["citation_id"], None
    return a["valid"], None, None, None


def answer_columns(bodies: List[Any], all: bool) -> Columns:
    """Each body's answer (check_many_raw, on every core) and the columns read from it.

    A body of None is answered as check_raw(None) is: the engine refuses
    the JSON null with invalid_input. Parsing costs one json.loads per
    answer that is not a valid result, linear in its length.
    """
    answers = check_many_raw(bodies, all=all)
    valid: List[Optional[bool]] = []
    reason: List[Optional[str]] = []
    cid: List[Optional[str]] = []
    code: List[Optional[str]] = []
    for a in answers:
        v, r, c, e = _row(a)
        valid.append(v)
        reason.append(r)
        cid.append(c)
        code.append(e)
    return Columns(answers, valid, reason, cid, code)
