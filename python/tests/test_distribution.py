"""The installed distribution is citecheck-engine (python/wheel_version.py's
DISTRIBUTION, pyproject.toml's name), not citecheck: that name on PyPI is
another project's, which `pip install citecheck` would fetch. Its import
package and its command are citecheck."""

from __future__ import annotations

import importlib.util
import os
import sysconfig
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest
from conftest import PACKAGE, REPO, console_script

import citecheck


def wheel_version() -> ModuleType:
    """python/wheel_version.py, the one place the tooling names the distribution."""
    spec = importlib.util.spec_from_file_location("wheel_version", REPO / "python" / "wheel_version.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DISTRIBUTION: str = wheel_version().DISTRIBUTION


def test_the_installed_distribution_is_named_as_the_tooling_names_it() -> None:
    assert metadata.metadata(DISTRIBUTION)["Name"] == DISTRIBUTION


def test_no_distribution_named_citecheck_is_installed() -> None:
    # A wheel whose METADATA said Name: citecheck would be found here, and
    # would be the name PyPI's other project is installed under.
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.distribution("citecheck")


def test_the_version_is_the_distributions() -> None:
    assert citecheck.__version__ == metadata.version(DISTRIBUTION)


def test_the_distribution_holds_the_package_and_the_command() -> None:
    dist = metadata.distribution(DISTRIBUTION)
    files = {Path(str(dist.locate_file(f))).resolve() for f in dist.files or []}
    assert PACKAGE / "__init__.py" in files
    assert Path(console_script()).resolve() in files
    assert os.path.dirname(console_script()) == sysconfig.get_path("scripts")
