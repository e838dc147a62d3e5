#!/usr/bin/env python3
"""Replace what stands between "<!-- NAME:begin -->" and "<!-- NAME:end -->"
in PAGE with the contents of FILE: how the benchmark scripts write their
tables into docs/performance.md, in place, leaving the rest of the page as
it is.

  python3 bench/splice.py PAGE NAME FILE
"""
import sys

page, name, src = sys.argv[1:4]
md = open(src, encoding="utf-8").read().strip()
text = open(page, encoding="utf-8").read()
b, e = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
if b not in text or e not in text:
    sys.exit(f"{page} has no {name} markers")
pre, rest = text.split(b, 1)
_, post = rest.split(e, 1)
open(page, "w", encoding="utf-8").write(pre + b + "\n" + md + "\n" + e + post)
print(f"{page}: {name} figures updated", file=sys.stderr)
