"""Tests of wheel_platforms: python3 -m unittest discover -s python -p '*_test.py'.

The list is the one source of the wheels' platforms: these tests hold
build.sh, the hatchling hook and check_wheels to what its command prints.
"""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

import check_wheels
import wheel_platforms
from wheel_platforms import PlatformError, host_tag, of, script_name

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cli_platforms():
    """(tag, "goos/goarch") pairs, as `python3 python/wheel_platforms.py` prints them."""
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, "wheel_platforms.py")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [tuple(line.split(" ")) for line in out.splitlines()]


def hatch_stubs():
    """Modules standing in for hatchling and packaging, which the hook
    imports and the build tools' environment holds, but this one may not."""

    class Hook:
        pass

    def parse_tag(tag):
        if tag.count("-") != 2:
            raise ValueError(tag)
        return frozenset([tag])

    names = {
        "hatchling": {},
        "hatchling.builders": {},
        "hatchling.builders.hooks": {},
        "hatchling.builders.hooks.plugin": {},
        "hatchling.builders.hooks.plugin.interface": {"BuildHookInterface": Hook},
        "hatchling.metadata": {},
        "hatchling.metadata.plugin": {},
        "hatchling.metadata.plugin.interface": {"MetadataHookInterface": Hook},
        "packaging": {},
        "packaging.tags": {"parse_tag": parse_tag},
        "packaging.version": {"InvalidVersion": ValueError, "Version": str},
    }
    modules = {}
    for name, attrs in names.items():
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        modules[name] = m
    return modules


def load_hook(folder):
    """hatch_build.py as hatchling loads it: from its file, in folder."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hatch_build", os.path.join(folder, "hatch_build.py"))
    module = importlib.util.module_from_spec(spec)
    with mock.patch.dict(sys.modules, hatch_stubs()):
        spec.loader.exec_module(module)
    return module


class TestWheelPlatforms(unittest.TestCase):
    def test_cli_prints_the_list_in_build_order(self):
        want = [(p.tag, f"{p.goos}/{p.goarch}") for p in wheel_platforms.PLATFORMS]
        self.assertEqual(cli_platforms(), want)
        self.assertEqual(len(set(wheel_platforms.TAGS)), len(wheel_platforms.TAGS), "a tag twice")

    def test_each_platform_has_an_executable_format(self):
        for tag in wheel_platforms.TAGS:
            with self.subTest(tag):
                check_wheels.expected_format(tag)  # KeyError for a GOOS/GOARCH it cannot check

    def test_script_name(self):
        cases = [
            ("win_amd64", "citecheck.exe"),
            ("win_arm64", "citecheck.exe"),
            ("macosx_12_0_arm64", "citecheck"),
            ("musllinux_1_2_x86_64", "citecheck"),
            ("manylinux_2_17_aarch64.manylinux2014_aarch64", "citecheck"),
        ]
        for tag, want in cases:
            with self.subTest(tag):
                self.assertEqual(script_name(tag), want)

    def test_tag_outside_the_list_is_refused(self):
        for tag in ["", "win32", "manylinux2014_x86_64", "macosx_11_0_arm64", "WIN_AMD64", "win_amd64 "]:
            with self.subTest(tag=tag):
                with self.assertRaises(PlatformError) as cm:
                    of(tag)
                self.assertIn(" ".join(wheel_platforms.TAGS), str(cm.exception))

    def test_host_tag_is_the_wheel_pip_installs(self):
        cases = [
            ("linux", "amd64", "glibc", "manylinux_2_17_x86_64.manylinux2014_x86_64"),
            ("linux", "arm64", "glibc", "manylinux_2_17_aarch64.manylinux2014_aarch64"),
            ("linux", "amd64", "", "musllinux_1_2_x86_64"),  # libc_ver finds nothing on musl
            ("linux", "arm64", "musl", "musllinux_1_2_aarch64"),
            ("darwin", "amd64", "", "macosx_12_0_x86_64"),
            ("darwin", "arm64", "glibc", "macosx_12_0_arm64"),  # libc only matters on linux
            ("windows", "amd64", "", "win_amd64"),
            ("windows", "arm64", "", "win_arm64"),
        ]
        for goos, goarch, libc, want in cases:
            with self.subTest(f"{goos}/{goarch} {libc}"):
                self.assertEqual(host_tag(goos, goarch, libc), want)

    def test_host_without_a_wheel_is_refused(self):
        for goos, goarch in [("linux", "386"), ("freebsd", "amd64"), ("windows", "386"), ("", "")]:
            with self.subTest(f"{goos}/{goarch}"):
                with self.assertRaises(PlatformError) as cm:
                    host_tag(goos, goarch, "glibc")
                self.assertIn(f"no wheel is built for {goos}/{goarch}", str(cm.exception))

    def test_cli_host(self):
        cases = [
            (["--host", "linux/arm64"], "glibc", 0, "manylinux_2_17_aarch64.manylinux2014_aarch64\n", ""),
            (["--host", "linux/amd64"], "", 0, "musllinux_1_2_x86_64\n", ""),
            (["--host", "windows/arm64"], None, 0, "win_arm64\n", ""),
            (["--host", "plan9/amd64"], None, 1, "", "no wheel is built for plan9/amd64"),
            (["--host", "linux"], None, 2, "", "usage"),
            (["--host"], None, 2, "", "usage"),
            (["extra"], None, 2, "", "usage"),
        ]
        for argv, libc, code, out, err in cases:
            with self.subTest(argv=argv, libc=libc):
                stdout, stderr = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                    self.assertEqual(wheel_platforms.main(argv, libc=libc), code)
                self.assertEqual(stdout.getvalue(), out)
                self.assertIn(err, stderr.getvalue())


class TestOneListEverywhere(unittest.TestCase):
    """build.sh, the hook and check_wheels see the platforms the command prints."""

    def setUp(self):
        self.cli = cli_platforms()
        self.tags = [tag for tag, _ in self.cli]

    def test_check_wheels_sees_the_list(self):
        self.assertEqual(list(check_wheels.PLATFORMS), self.tags)

    def test_hook_sees_the_list_when_staged_as_build_sh_stages_it(self):
        with tempfile.TemporaryDirectory() as stage:
            for f in ("hatch_build.py", "wheel_platforms.py"):
                shutil.copy(os.path.join(HERE, f), stage)
            binary = os.path.join(stage, "citecheck-binary")
            with open(binary, "wb") as f:
                f.write(b"binary")
            hook_module = load_hook(stage)
            for tag, target in [*self.cli, ("win_x86", None), ("manylinux2014_x86_64", None)]:
                with self.subTest(tag):
                    hook = hook_module.BinaryHook()
                    hook.target_name = "wheel"
                    build_data = {}
                    env = {"CITECHECK_WHEEL_PLATFORM": tag, "CITECHECK_WHEEL_BINARY": binary}
                    with mock.patch.dict(os.environ, env):
                        if target is None:
                            with self.assertRaises(RuntimeError) as cm:
                                hook.initialize("standard", build_data)
                            self.assertIn(" ".join(self.tags), str(cm.exception))
                            continue
                        hook.initialize("standard", build_data)
                    exe = "citecheck.exe" if target.startswith("windows/") else "citecheck"
                    self.assertEqual(build_data["tag"], f"py3-none-{tag}")
                    self.assertEqual(build_data["shared_scripts"], {os.path.abspath(binary): exe})

    def test_hook_without_the_list_beside_it_says_so(self):
        with tempfile.TemporaryDirectory() as stage:
            shutil.copy(os.path.join(HERE, "hatch_build.py"), stage)
            with self.assertRaises(RuntimeError) as cm:
                load_hook(stage)
            self.assertIn("wheel_platforms.py is missing", str(cm.exception))

    @unittest.skipUnless(shutil.which("bash"), "build.sh needs bash")
    @unittest.skipUnless(sys.version_info >= (3, 10), "build.sh refuses Python older than 3.10 first")
    def test_build_sh_sees_the_list(self):
        # A target outside the list stops build.sh before it builds
        # anything, naming every target it knows, in its order.
        env = dict(os.environ, PYTHON=sys.executable, CITECHECK_WHEEL_TARGETS="win_x86")
        with tempfile.TemporaryDirectory() as dist:
            run = subprocess.run(
                ["bash", os.path.join(HERE, "build.sh"), dist],
                env=env,
                capture_output=True,
                text=True,
            )
            self.assertEqual(os.listdir(dist), [])
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(
            run.stderr,
            "python/build.sh: CITECHECK_WHEEL_TARGETS: win_x86 is not one of: all host "
            + " ".join(self.tags)
            + "\n",
        )


if __name__ == "__main__":
    unittest.main()
