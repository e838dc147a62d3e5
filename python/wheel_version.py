"""The wheels' name and version: the distribution's name on PyPI, and the
Go module's release tag in its PEP 440 form.

The distribution is citecheck-engine (pip install citecheck-engine): the
name citecheck on PyPI is another project's. The import package and the
command it installs are both citecheck. The name is written here for the
tooling (build.sh, venv.sh, check_wheels.py and the tests read it), and in
pyproject.toml, which hatchling reads and a test holds to this one; wheel
file names and their .dist-info and .data folders carry it as WHEEL_NAME.

The Go module is released by a tag vX.Y.Z (build/release.sh), and the
wheels of that commit are X.Y.Z, as the npm package's are
(js/scripts/version.js). A semantic version's pre-release becomes PEP 440's
(v1.2.0-rc.1 is 1.2.0rc1), its build metadata a local version (v1.2.0+ci.7
is 1.2.0+ci.7, which PyPI refuses to host but pip installs from a folder).
Between releases the tag is v0.0.0-dev and the version 0.0.0.dev0.

    python3 python/wheel_version.py v1.2.0-rc.1     prints 1.2.0rc1
    python3 python/wheel_version.py --name          prints citecheck-engine, the name pip installs
    python3 python/wheel_version.py --wheel-name    prints citecheck_engine, the name in wheel file names

Standard library only: python/build.sh and python/check_wheels.py run it
before any build tool is installed.
"""

import re
import sys

# The distribution's name: what pip installs and METADATA's Name.
DISTRIBUTION = "citecheck-engine"
# The name as the binary distribution format writes it in a wheel's file
# name and its NAME-VERSION.dist-info and NAME-VERSION.data folders
# (normalized, runs of - _ . as one _), as hatchling writes it.
WHEEL_NAME = re.sub(r"[-_.]+", "_", DISTRIBUTION).lower()


def wheel_file(version: str, platform: str) -> str:
    """The file name of the wheel of version for platform (a platform tag)."""
    return f"{WHEEL_NAME}-{version}-py3-none-{platform}.whl"


# The tag the wheels of an untagged commit are built as.
DEV_TAG = "v0.0.0-dev"

_NUMBER = r"(?:0|[1-9][0-9]*)"
_TAG = re.compile(
    rf"v({_NUMBER})\.({_NUMBER})\.({_NUMBER})"
    r"(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?"
)
# The pre-releases PEP 440 can say: one of its phases, then at most one
# number, joined by a dot or not (rc.1, rc1, rc). Semantic versioning
# allows any dotted identifiers; those outside this have no PEP 440 form.
_PRE = re.compile(rf"(alpha|beta|rc|a|b|dev)(?:\.?({_NUMBER}))?")
_PHASE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "rc": "rc", "dev": ".dev"}
_BUILD = re.compile(r"[0-9A-Za-z]+(?:[.-][0-9A-Za-z]+)*")


class TagError(ValueError):
    """A tag that is not a release tag with a PEP 440 form."""


def pep440(tag: str) -> str:
    """The PEP 440 version (normalized, as wheel names carry it) of a
    release tag such as v1.2.0, v1.2.0-rc.1 or v0.0.0-dev; TagError, in
    words saying which part is wrong, for any other string."""
    m = _TAG.fullmatch(tag)
    if m is None:
        raise TagError(
            f"{tag!r} is not a semantic version tag like v1.2.0 or v1.2.0-rc.1"
            " (a v, three numbers without leading zeros, then an optional"
            " -pre-release and +build)"
        )
    major, minor, patch, pre, build = m.groups()
    version = f"{major}.{minor}.{patch}"
    if pre is not None:
        p = _PRE.fullmatch(pre)
        if p is None:
            raise TagError(
                f"the pre-release {pre!r} of {tag!r} has no PEP 440 form;"
                " use alpha.N, beta.N, rc.N or dev.N"
            )
        version += _PHASE[p.group(1)] + (p.group(2) or "0")
    if build is not None:
        if _BUILD.fullmatch(build) is None:
            raise TagError(
                f"the build metadata {build!r} of {tag!r} has an empty part"
            )
        # PEP 440 local versions are lower case, dot separated.
        version += "+" + build.lower().replace("-", ".")
    return version


def main(argv: "list[str]") -> int:
    if argv == ["--name"]:
        print(DISTRIBUTION)
        return 0
    if argv == ["--wheel-name"]:
        print(WHEEL_NAME)
        return 0
    if len(argv) != 1 or argv[0].startswith("--"):
        print("usage: wheel_version.py TAG | --name | --wheel-name   (TAG e.g. v1.2.0)", file=sys.stderr)
        return 2
    try:
        print(pep440(argv[0]))
    except TagError as e:
        print(f"wheel_version: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
