# A user's code, checked by mypy --strict against the installed package.
from __future__ import annotations

from typing import List

import citecheck

body = b"{}"
r: citecheck.Result = citecheck.check(body)
valid: bool = r["valid"]
checked: int = r["citations_checked"]
reason = r["reason"]
if reason is not None:
    why: str = reason
d = r["first_discrepancy"]
if d is not None:
    index: int = d["citation_index"]

a: citecheck.AllResult = citecheck.check_all({"sources": [], "citations": []})
for c in a["citations"]:
    ok: bool = c["valid"]

x: citecheck.Explanation = citecheck.explain("{}")
for e in x["citations"]:
    for f in e["findings"]:
        kind: str = f["kind"]
        start: int = f["start"]

raw: bytes = citecheck.check_raw(bytearray(b"{}"))
many: List[bytes] = citecheck.check_many_raw([b"{}", "{}", {"a": 1}], all=True)
envs: List[citecheck.Envelope] = citecheck.check_many([b"{}"])
alls: List[citecheck.AllEnvelope] = citecheck.check_many([b"{}"], all=True)

lines: str = citecheck.quotes("a report", sources={"1": "text"}, format="text", explain=True)


def told(n: citecheck.AnnotationsNotice) -> None:
    print(n["kind"], n["message"])


out: str = citecheck.annotations("[]", sources={"u": "t", "v": {"text": "t", "version": "2"}}, on_notice=told)

try:
    citecheck.check(b"{")
except citecheck.CitecheckError as err:
    code: str = err.code
    path: str = err.path
    message: str = err.message

req: citecheck.Request = {"sources": [{"source_id": "s", "version": "v", "text": "abc"}], "citations": []}
citecheck.check(req)
limit: int = citecheck.MAX_INPUT_BYTES
