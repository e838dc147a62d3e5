"""Hatchling hooks that make one platform wheel around a prebuilt binary.

python/build.sh builds the citecheck command for each platform
(build/citecheck.sh) and runs hatchling once per wheel with:

    CITECHECK_WHEEL_VERSION   the PEP 440 version (python/wheel_version.py)
    CITECHECK_WHEEL_PLATFORM  the platform tag, e.g. manylinux_2_17_x86_64.manylinux2014_x86_64
    CITECHECK_WHEEL_BINARY    the command built for that platform

The binary goes in as the wheel's script (citecheck_engine-VERSION.data/scripts/),
so pip puts the Go command itself on PATH; the wheel holds no Python
extension, so it is tagged py3-none-PLATFORM: one wheel serves every
Python 3 on that platform. The platforms are python/wheel_platforms.py's,
which build.sh stages beside this file. Without these variables the build stops and says
to use python/build.sh: a wheel without its binary would install a package
that cannot run.
"""

import importlib.util
import os

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface
from packaging.tags import parse_tag
from packaging.version import InvalidVersion, Version


def _load_platforms():
    """python/wheel_platforms.py, loaded from beside this file: hatchling
    runs the hook from a file, with neither its folder nor the project on
    sys.path."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wheel_platforms.py")
    spec = importlib.util.spec_from_file_location("citecheck_wheel_platforms", path)
    if spec is None or spec.loader is None or not os.path.isfile(path):
        raise RuntimeError(f"{path} is missing: python/build.sh stages it beside hatch_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wheel_platforms = _load_platforms()


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
        try:
            script = wheel_platforms.script_name(platform)
        except wheel_platforms.PlatformError as e:
            raise RuntimeError(f"CITECHECK_WHEEL_PLATFORM: {e}") from None
        binary = _required("CITECHECK_WHEEL_BINARY")
        if not os.path.isfile(binary):
            raise RuntimeError(f"CITECHECK_WHEEL_BINARY {binary!r} is not a file")
        tag = f"py3-none-{platform}"
        parse_tag(tag)  # a malformed tag fails here, not at install
        build_data["tag"] = tag
        build_data["pure_python"] = False
        build_data["shared_scripts"] = {os.path.abspath(binary): script}
