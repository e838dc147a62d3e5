"""Where the citecheck binary is: the wheel installs it as the console script."""

from __future__ import annotations

import os
import sys
import sysconfig

_EXE = "citecheck.exe" if sys.platform == "win32" else "citecheck"


def _user_scheme() -> str:
    if sys.platform == "win32":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", ""):
        return "osx_framework_user"
    return "posix_user"


def candidates() -> list[str]:
    """The places the wheel's script can be, most likely first.

    The scripts folder of the running interpreter's scheme (a virtual
    environment's bin/, a system install), the user scheme's (pip install
    --user), then a bin/ or Scripts/ folder above the package (pip install
    --target DIR puts scripts in DIR/bin; --prefix P in P/bin).
    """
    found = [os.path.join(sysconfig.get_path("scripts"), _EXE)]
    try:
        found.append(os.path.join(sysconfig.get_path("scripts", scheme=_user_scheme()), _EXE))
    except KeyError:
        pass
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for _ in range(4):
        found.append(os.path.join(here, "bin", _EXE))
        found.append(os.path.join(here, "Scripts", _EXE))
        here = os.path.dirname(here)
    return found


def find() -> str:
    """The path of the citecheck binary the package drives.

    CITECHECK_BINARY, when set, names it; else it is the script the wheel
    installed. Raises FileNotFoundError naming every place looked in.
    """
    named = os.environ.get("CITECHECK_BINARY")
    if named:
        if os.path.isfile(named):
            return named
        raise FileNotFoundError(f"CITECHECK_BINARY names {named!r}, which is not a file")
    looked = candidates()
    for path in looked:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "the citecheck binary the wheel installs was not found; looked in: "
        + ", ".join(looked)
        + " (set CITECHECK_BINARY to its path)"
    )
