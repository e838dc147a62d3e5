# Mistakes the types catch; every line marked E: must be an error.
from __future__ import annotations

import citecheck

r = citecheck.check(b"{}")
s: str = r["valid"]  # E: bool is not str
r["no_such_member"]  # E: not a member of Result
n: int = citecheck.check_raw(b"{}")  # E: bytes is not int
citecheck.quotes("x", sources={"1": "t"}, format="yaml")  # E: json or text
citecheck.check_many([b"{}"], all=True)[0]["result"]  # E: an AllEnvelope has no result
