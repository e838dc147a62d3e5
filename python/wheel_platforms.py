"""The platforms the citecheck wheels are built for: each wheel's platform
tag and the GOOS/GOARCH of the command it carries, in one place.

python/build.sh reads the list from this file's output, python/hatch_build.py
(the hatchling hook, staged beside it) and python/check_wheels.py import
it, so a platform is added or dropped here and nowhere else.

    python3 python/wheel_platforms.py                     one "TAG GOOS/GOARCH" line each, in build order
    python3 python/wheel_platforms.py --host linux/amd64  the tag of this machine's wheel, for that go env GOHOSTOS/GOHOSTARCH

Standard library only, and no syntax newer than Python 3.8: build.sh runs
it before any build tool is installed, and the hook runs it under the
build tools' Python.
"""

import platform as _platform
import sys
from typing import NamedTuple, Optional, Sequence, Tuple


class Platform(NamedTuple):
    tag: str  # the wheel's platform tag; a dotted one is several tags at once
    goos: str
    goarch: str
    # On linux, the C library the tag promises (glibc for manylinux, musl
    # for musllinux); the command is static, so one binary serves both.
    libc: str = ""


# In the order build.sh builds them. macOS 12 is the oldest Go 1.26 runs on.
PLATFORMS: Tuple[Platform, ...] = (
    Platform("manylinux_2_17_x86_64.manylinux2014_x86_64", "linux", "amd64", "glibc"),
    Platform("musllinux_1_2_x86_64", "linux", "amd64", "musl"),
    Platform("manylinux_2_17_aarch64.manylinux2014_aarch64", "linux", "arm64", "glibc"),
    Platform("musllinux_1_2_aarch64", "linux", "arm64", "musl"),
    Platform("macosx_12_0_x86_64", "darwin", "amd64"),
    Platform("macosx_12_0_arm64", "darwin", "arm64"),
    Platform("win_amd64", "windows", "amd64"),
    Platform("win_arm64", "windows", "arm64"),
)

TAGS: Tuple[str, ...] = tuple(p.tag for p in PLATFORMS)
_BY_TAG = {p.tag: p for p in PLATFORMS}


class PlatformError(ValueError):
    """A platform tag or Go target no wheel is built for."""


def of(tag: str) -> Platform:
    """The platform of a wheel's tag; PlatformError naming the eight for
    any other string."""
    p = _BY_TAG.get(tag)
    if p is None:
        raise PlatformError(f"{tag!r} is not one of the wheels' platforms: {' '.join(TAGS)}")
    return p


def script_name(tag: str) -> str:
    """The command's file name in the wheel of tag (pip installs it so)."""
    return "citecheck.exe" if of(tag).goos == "windows" else "citecheck"


def host_tag(goos: str, goarch: str, libc: str = "") -> str:
    """The tag of the wheel pip installs on a machine of that Go target;
    on linux, libc says which C library it runs (anything but glibc is
    taken for musl, which is what platform.libc_ver reports nothing for)."""
    if goos == "linux":
        libc = "glibc" if libc == "glibc" else "musl"
    else:
        libc = ""
    for p in PLATFORMS:
        if (p.goos, p.goarch, p.libc) == (goos, goarch, libc):
            return p.tag
    raise PlatformError(f"no wheel is built for {goos}/{goarch}")


def main(argv: Sequence[str], libc: Optional[str] = None) -> int:
    if not argv:
        for p in PLATFORMS:
            print(f"{p.tag} {p.goos}/{p.goarch}")
        return 0
    if len(argv) == 2 and argv[0] == "--host" and argv[1].count("/") == 1:
        goos, goarch = argv[1].split("/")
        if libc is None:
            libc = _platform.libc_ver()[0] if goos == "linux" else ""
        try:
            print(host_tag(goos, goarch, libc))
        except PlatformError as e:
            print(f"wheel_platforms: {e}", file=sys.stderr)
            return 1
        return 0
    print("usage: wheel_platforms.py [--host GOOS/GOARCH]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
