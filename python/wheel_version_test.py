"""Tests of wheel_version: python3 -m unittest discover -s python -p '*_test.py'."""

import os
import re
import subprocess
import sys
import unittest

from wheel_version import DEV_TAG, DISTRIBUTION, WHEEL_NAME, TagError, pep440, wheel_file

HERE = os.path.dirname(os.path.abspath(__file__))


def pyproject_name() -> str:
    """[project] name in python/pyproject.toml (read without tomllib, which
    Python 3.10 lacks)."""
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    assert section is not None, "pyproject.toml has no [project]"
    name = re.search(r'^name\s*=\s*"([^"]*)"\s*$', section.group(1), re.M)
    assert name is not None, "pyproject.toml's [project] has no name"
    return name.group(1)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(HERE, "wheel_version.py"), *args], capture_output=True, text=True)


class TestDistributionName(unittest.TestCase):
    def test_pyproject_names_the_distribution_the_tooling_expects(self):
        # hatchling reads the name from pyproject.toml; build.sh, venv.sh
        # and check_wheels from wheel_version.
        self.assertEqual(pyproject_name(), DISTRIBUTION)

    def test_the_name_is_not_pypis_other_citecheck(self):
        # `pip install citecheck` installs another project (citecheck 0.3.0,
        # "Run-time protection of citation chains"), whose version beats
        # ours from any index or --find-links folder pip also searches.
        # The test above holds pyproject.toml to this name.
        self.assertNotEqual(WHEEL_NAME, "citecheck")

    def test_wheel_names_are_the_normalized_name(self):
        # As hatchling names them: citecheck-engine is citecheck_engine in
        # file names and the .dist-info and .data folders.
        self.assertEqual(WHEEL_NAME, DISTRIBUTION.replace("-", "_"))
        self.assertEqual(wheel_file("1.2.0rc1", "win_amd64"), f"{WHEEL_NAME}-1.2.0rc1-py3-none-win_amd64.whl")
        self.assertEqual(wheel_file("1.2.0", "win_amd64").count("-"), 4)

    def test_cli_prints_the_names(self):
        self.assertEqual(cli("--name").stdout, DISTRIBUTION + "\n")
        self.assertEqual(cli("--wheel-name").stdout, WHEEL_NAME + "\n")
        self.assertEqual(cli("v1.2.0-rc.1").stdout, "1.2.0rc1\n")
        for args in [(), ("--names",), ("--name", "v1.2.0")]:
            with self.subTest(args=args):
                r = cli(*args)
                self.assertEqual((r.returncode, r.stdout), (2, ""))
                self.assertIn("usage:", r.stderr)


class TestTagToPEP440(unittest.TestCase):
    def test_release_tag_is_its_pep440_version(self):
        cases = [
            ("v1.2.0", "1.2.0"),
            ("v0.0.1", "0.0.1"),
            ("v10.20.30", "10.20.30"),
            (DEV_TAG, "0.0.0.dev0"),
            ("v1.2.0-dev.3", "1.2.0.dev3"),
            ("v1.2.0-alpha", "1.2.0a0"),
            ("v1.2.0-alpha.2", "1.2.0a2"),
            ("v1.2.0-a.2", "1.2.0a2"),
            ("v1.2.0-beta.1", "1.2.0b1"),
            ("v1.2.0-b1", "1.2.0b1"),
            ("v1.2.0-rc.1", "1.2.0rc1"),
            ("v1.2.0-rc1", "1.2.0rc1"),
            ("v1.2.0-rc", "1.2.0rc0"),
            ("v1.2.0+ci.7", "1.2.0+ci.7"),
            ("v1.2.0+Build-5", "1.2.0+build.5"),
            ("v1.2.0-rc.1+ci.7", "1.2.0rc1+ci.7"),
        ]
        for tag, want in cases:
            with self.subTest(tag=tag):
                self.assertEqual(pep440(tag), want)

    def test_tag_without_a_pep440_form_is_refused(self):
        cases = [
            ("1.2.0", "semantic version tag"),
            ("v1.2", "semantic version tag"),
            ("v01.2.0", "semantic version tag"),
            ("v1.2.0-", "semantic version tag"),
            ("v1.2.0 ", "semantic version tag"),
            ("", "semantic version tag"),
            ("v1.2.0-preview.1", "no PEP 440 form"),
            ("v1.2.0-rc.1.2", "no PEP 440 form"),
            ("v1.2.0-rc.01", "no PEP 440 form"),
            ("v1.2.0-alpha.beta", "no PEP 440 form"),
            ("v1.2.0+a--b", "empty part"),
            ("v1.2.0+a.", "empty part"),
        ]
        for tag, words in cases:
            with self.subTest(tag=tag):
                with self.assertRaises(TagError) as cm:
                    pep440(tag)
                self.assertIn(words, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
