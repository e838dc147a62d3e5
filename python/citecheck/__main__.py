"""python -m citecheck: the citecheck command itself (the binary the wheel installs)."""

from __future__ import annotations

import os
import subprocess
import sys

from ._binary import find


def main() -> int:
    path = find()
    args = [path, *sys.argv[1:]]
    if sys.platform == "win32":
        return subprocess.call(args)
    os.execv(path, args)
    return 2  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())
