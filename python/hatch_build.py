"""Hatchling hooks that make one platform wheel around a prebuilt binary.

python/build.sh builds the citecheck command for each platform
(build/citecheck.sh) and runs hatchling once per wheel with:

    CITECHECK_WHEEL_VERSION   the PEP 440 version (python/wheel_version.py)
    CITECHECK_WHEEL_PLATFORM  the platform tag, e.g. manylinux_2_17_x86_64.manylinux2014_x86_64
    CITECHECK_WHEEL_BINARY    the command built for that platform

The binary goes in as the wheel's script (citecheck-VERSION.data/scripts/),
so pip puts the Go command itself on PATH; the wheel holds no Python
extension, so it is tagged py3-none-PLATFORM: one wheel serves every
Python 3 on that platform. Without these variables the build stops and says
to use python/build.sh: a wheel without its binary would install a package
that cannot run.
"""

import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface
from packaging.tags import parse_tag
from packaging.version import InvalidVersion, Version

# The platform tags python/build.sh builds; a tag outside them is a typo.
PLATFORMS = (
    "manylinux_2_17_x86_64.manylinux2014_x86_64",
    "manylinux_2_17_aarch64.manylinux2014_aarch64",
    "musllinux_1_2_x86_64",
    "musllinux_1_2_aarch64",
    "macosx_12_0_x86_64",
    "macosx_12_0_arm64",
    "win_amd64",
    "win_arm64",
)


def _required(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise RuntimeError(
            f"{name} is not set: the citecheck wheels are built by python/build.sh"
            " (python/build.sh DIST), which builds the command each wheel carries"
        )
    return value


class VersionHook(MetadataHookInterface):
    """Sets the version from CITECHECK_WHEEL_VERSION (pyproject.toml lists
    version as dynamic)."""

    PLUGIN_NAME = "custom"

    def update(self, metadata: dict) -> None:
        version = _required("CITECHECK_WHEEL_VERSION")
        try:
            normalized = str(Version(version))
        except InvalidVersion:
            raise RuntimeError(f"CITECHECK_WHEEL_VERSION {version!r} is not a PEP 440 version") from None
        if normalized != version:
            raise RuntimeError(
                f"CITECHECK_WHEEL_VERSION {version!r} is not in its normal form {normalized!r}"
            )
        metadata["version"] = version


class BinaryHook(BuildHookInterface):
    """Tags the wheel for its platform and adds the binary as its script."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        platform = _required("CITECHECK_WHEEL_PLATFORM")
        if platform not in PLATFORMS:
            raise RuntimeError(
                f"CITECHECK_WHEEL_PLATFORM {platform!r} is none of " + ", ".join(PLATFORMS)
            )
        binary = _required("CITECHECK_WHEEL_BINARY")
        if not os.path.isfile(binary):
            raise RuntimeError(f"CITECHECK_WHEEL_BINARY {binary!r} is not a file")
        tag = f"py3-none-{platform}"
        parse_tag(tag)  # a malformed tag fails here, not at install
        script = "citecheck.exe" if platform.startswith("win_") else "citecheck"
        build_data["tag"] = tag
        build_data["pure_python"] = False
        build_data["shared_scripts"] = {os.path.abspath(binary): script}
