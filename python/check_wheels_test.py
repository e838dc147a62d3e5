"""Tests of check_wheels: python3 -m unittest discover -s python -p '*_test.py'.

Each case builds a small wheel as python/build.sh lays one out, with a
made-up executable whose header is that of the platform's command, spoils
one thing, and expects check_wheels to name it; the unspoiled wheels must
pass, so every problem found is the one the case made.
"""

import os
import struct
import tempfile
import unittest
import zipfile

import check_wheels
import wheel_platforms
from check_wheels import PLATFORMS, check, record_hash
from wheel_version import DISTRIBUTION, WHEEL_NAME, wheel_file

TAG = "v1.2.0-rc.1"
VERSION = "1.2.0rc1"
LICENSE = b"Apache License\nVersion 2.0, January 2004\n"
PACKAGE = {"citecheck/__init__.py": b'"""citecheck."""\n', "citecheck/py.typed": b""}


def elf(machine: int, interp: bool = False) -> bytes:
    header = bytearray(64)
    header[0:4] = b"\x7fELF"
    header[4], header[5], header[6] = 2, 1, 1  # 64-bit, little-endian, version 1
    struct.pack_into("<HH", header, 16, 2, machine)  # ET_EXEC
    struct.pack_into("<Q", header, 32, 64)  # e_phoff
    struct.pack_into("<HH", header, 54, 56, 2)  # e_phentsize, e_phnum
    load = struct.pack("<I", 1) + bytes(52)
    second = struct.pack("<I", 3 if interp else 4) + bytes(52)  # PT_INTERP or PT_NOTE
    return bytes(header) + load + second


def macho(cpu: int) -> bytes:
    return struct.pack("<IIIIIII", 0xFEEDFACF, cpu, 0, 2, 0, 0, 0) + bytes(4)


def pe(machine: int, subsystem: int = 3) -> bytes:
    data = bytearray(64 + 24 + 240)
    data[0:2] = b"MZ"
    struct.pack_into("<I", data, 0x3C, 64)
    data[64:68] = b"PE\x00\x00"
    struct.pack_into("<H", data, 68, machine)
    struct.pack_into("<H", data, 64 + 22, 0x0022)  # executable image, large address aware
    struct.pack_into("<H", data, 88, 0x20B)  # PE32+
    struct.pack_into("<H", data, 88 + 68, subsystem)
    return bytes(data)


def binary_for(platform: str) -> bytes:
    fmt, machine = check_wheels.expected_format(platform)
    header = {
        ("ELF", "x86-64"): lambda: elf(0x3E),
        ("ELF", "aarch64"): lambda: elf(0xB7),
        ("Mach-O", "x86_64"): lambda: macho(0x01000007),
        ("Mach-O", "arm64"): lambda: macho(0x0100000C),
        ("PE", "amd64"): lambda: pe(0x8664),
        ("PE", "arm64"): lambda: pe(0xAA64),
    }[(fmt, machine)]()
    return header + b"\x00stamped:" + TAG.encode() + b"\x00"


class Wheel:
    """The files of one wheel, as python/build.sh makes it, to spoil."""

    def __init__(self, platform: str):
        self.platform = platform
        self.distinfo = f"{WHEEL_NAME}-{VERSION}.dist-info"
        self.script = f"{WHEEL_NAME}-{VERSION}.data/scripts/{wheel_platforms.script_name(platform)}"
        tags = "".join(f"Tag: py3-none-{p}\n" for p in platform.split("."))
        self.files = dict(PACKAGE)
        self.files[self.script] = binary_for(platform)
        self.files[f"{self.distinfo}/METADATA"] = (
            f"Metadata-Version: 2.4\nName: {DISTRIBUTION}\n"
            f"Version: {VERSION}\nLicense-Expression: Apache-2.0\nLicense-File: LICENSE\n"
            "Requires-Python: >=3.9\n\nlong description\n"
        ).encode()
        self.files[f"{self.distinfo}/WHEEL"] = (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n" + tags
        ).encode()
        self.files[f"{self.distinfo}/licenses/LICENSE"] = LICENSE
        self.modes = {f: 0o100644 for f in self.files}
        self.modes[self.script] = 0o100755
        self.record_edit = None
        self.name = f"{WHEEL_NAME}-{VERSION}-py3-none-{platform}.whl"

    def replace(self, path: str, old: bytes, new: bytes) -> None:
        assert old in self.files[path], (path, old)
        self.files[path] = self.files[path].replace(old, new)

    def write(self, folder: str) -> None:
        record = f"{self.distinfo}/RECORD"
        lines = [f"{f},{record_hash(d)},{len(d)}" for f, d in self.files.items()]
        lines.append(f"{record},,")
        text = "\n".join(lines) + "\n"
        if self.record_edit:
            text = self.record_edit(text)
        with zipfile.ZipFile(os.path.join(folder, self.name), "w") as zf:
            for f, data in [*self.files.items(), (record, text.encode())]:
                info = zipfile.ZipInfo(f, (2026, 1, 1, 0, 0, 0))
                info.external_attr = self.modes.get(f, 0o100644) << 16
                zf.writestr(info, data)


class TestCheckWheels(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = tmp.name
        self.dist = os.path.join(self.root, "dist")
        os.mkdir(self.dist)
        pkg = os.path.join(self.root, "citecheck")
        os.makedirs(os.path.join(pkg, "__pycache__"))
        for rel, data in PACKAGE.items():
            with open(os.path.join(self.root, rel), "wb") as f:
                f.write(data)
        with open(os.path.join(pkg, "__pycache__", "x.pyc"), "wb") as f:
            f.write(b"compiled")  # not part of the package
        self.license = os.path.join(self.root, "LICENSE")
        with open(self.license, "wb") as f:
            f.write(LICENSE)

    def run_check(self, platforms=PLATFORMS):
        return check(
            self.dist,
            platforms,
            tag=TAG,
            package_dir=os.path.join(self.root, "citecheck"),
            license_path=self.license,
        )

    def test_sound_wheels_pass(self):
        for p in PLATFORMS:
            Wheel(p).write(self.dist)
        self.assertEqual(self.run_check(), [])

    def test_each_spoiled_wheel_is_named(self):
        linux = PLATFORMS[0]
        win = "win_arm64"
        mac = "macosx_12_0_arm64"

        def spoil_file(path_of, old, new):
            return lambda w: w.replace(path_of(w), old, new)

        wheel_file = lambda name: (lambda w: f"{w.distinfo}/{name}")
        cases = [
            # (name, platform, spoil, words the problem must hold)
            ("purelib", linux, spoil_file(wheel_file("WHEEL"), b"Root-Is-Purelib: false", b"Root-Is-Purelib: true"), "Root-Is-Purelib true"),
            ("one tag of two", linux, spoil_file(wheel_file("WHEEL"), b"Tag: py3-none-manylinux2014_x86_64\n", b""), "WHEEL's tags"),
            ("tag of another platform", mac, spoil_file(wheel_file("WHEEL"), b"macosx_12_0_arm64", b"macosx_11_0_arm64"), "WHEEL's tags"),
            ("abi tag", win, spoil_file(wheel_file("WHEEL"), b"py3-none-", b"cp311-cp311-"), "WHEEL's tags"),
            ("name of PyPI's other citecheck", linux, spoil_file(wheel_file("METADATA"), f"Name: {DISTRIBUTION}\n".encode(), b"Name: citecheck\n"), f"Name: citecheck, not {DISTRIBUTION}"),
            ("version", linux, spoil_file(wheel_file("METADATA"), b"Version: 1.2.0rc1", b"Version: 1.2.0"), "Version: 1.2.0, not 1.2.0rc1"),
            ("licence expression", linux, spoil_file(wheel_file("METADATA"), b"Apache-2.0", b"MIT"), "License-Expression: MIT"),
            ("licence file named", linux, spoil_file(wheel_file("METADATA"), b"License-File: LICENSE\n", b""), "License-File entries"),
            ("metadata version", linux, spoil_file(wheel_file("METADATA"), b"Metadata-Version: 2.4", b"Metadata-Version: 2.1"), "needs 2.4"),
            ("runtime dependency", linux, spoil_file(wheel_file("METADATA"), b"Requires-Python", b"Requires-Dist: wasmtime\nRequires-Python"), "no runtime dependency"),
            ("runtime dependency beside an extra", linux, spoil_file(wheel_file("METADATA"), b"Requires-Python", b"Provides-Extra: arrow\nRequires-Dist: wasmtime; python_version >= '3.9'\nRequires-Python"), "no runtime dependency"),
            ("extra marker joined to another", linux, spoil_file(wheel_file("METADATA"), b"Requires-Python", b"Provides-Extra: arrow\nRequires-Dist: wasmtime; extra == 'arrow' or python_version >= '3'\nRequires-Python"), "no runtime dependency"),
            ("extra not declared", linux, spoil_file(wheel_file("METADATA"), b"Requires-Python", b"Requires-Dist: pyarrow>=11; extra == 'arrow'\nRequires-Python"), "no Provides-Extra declares"),
            ("licence text", linux, spoil_file(wheel_file("licenses/LICENSE"), b"2004", b"2005"), "differs from the repository's LICENSE"),
            ("licence missing", linux, lambda w: w.files.pop(f"{w.distinfo}/licenses/LICENSE"), f"lacks {WHEEL_NAME}-1.2.0rc1.dist-info/licenses/LICENSE"),
            ("package file missing", linux, lambda w: w.files.pop("citecheck/py.typed"), "lacks citecheck/py.typed"),
            ("package file stale", linux, lambda w: w.replace("citecheck/__init__.py", b"citecheck.", b"old."), "citecheck/__init__.py differs"),
            ("extra file", linux, lambda w: w.files.update({"citecheck/__pycache__/x.pyc": b"compiled"}), "holds citecheck/__pycache__/x.pyc"),
            ("path outside", linux, lambda w: w.files.update({"../evil": b""}), "a path outside"),
            ("binary missing", mac, lambda w: w.files.pop(w.script), f"lacks {WHEEL_NAME}-1.2.0rc1.data/scripts/citecheck"),
            ("windows binary without .exe", win, lambda w: w.files.update({w.script[:-4]: w.files.pop(w.script)}), f"lacks {WHEEL_NAME}-1.2.0rc1.data/scripts/citecheck.exe"),
            ("not executable", linux, lambda w: w.modes.update({w.script: 0o100644}), "not executable in the archive"),
            ("dynamic ELF", linux, lambda w: w.files.update({w.script: elf(0x3E, interp=True)}), "dynamically linked"),
            ("ELF for the wrong machine", "musllinux_1_2_aarch64", lambda w: w.files.update({w.script: elf(0x3E) + TAG.encode()}), "ELF for x86-64, not ELF for aarch64"),
            ("Mach-O for the wrong cpu", mac, lambda w: w.files.update({w.script: macho(0x01000007) + TAG.encode()}), "Mach-O for x86_64, not Mach-O for arm64"),
            ("ELF in a macOS wheel", mac, lambda w: w.files.update({w.script: elf(0xB7) + TAG.encode()}), "ELF for aarch64, not Mach-O for arm64"),
            ("PE for the wrong machine", win, lambda w: w.files.update({w.script: pe(0x8664) + TAG.encode()}), "PE for amd64, not PE for arm64"),
            ("windowed PE", win, lambda w: w.files.update({w.script: pe(0xAA64, subsystem=2)}), "not a console program"),
            ("not an executable", linux, lambda w: w.files.update({w.script: b"#!/bin/sh\n"}), "not an ELF, Mach-O or PE"),
            ("unstamped", linux, lambda w: w.replace(w.script, TAG.encode(), b"(devel)"), "does not hold the version v1.2.0-rc.1"),
            ("console script over the command", linux, lambda w: w.files.update({f"{w.distinfo}/entry_points.txt": b"[console_scripts]\ncitecheck = citecheck:main\n"}), "would replace the command"),
            ("record hash", linux, lambda w: setattr(w, "record_edit", lambda t: t.replace(record_hash(PACKAGE["citecheck/py.typed"]), record_hash(b"x"), 1)), "RECORD's hash of citecheck/py.typed is wrong"),
            ("record size", linux, lambda w: setattr(w, "record_edit", lambda t: t.replace("citecheck/py.typed,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0", "citecheck/py.typed,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,1")), "RECORD's size of citecheck/py.typed is 1, not 0"),
            ("record omits a file", linux, lambda w: setattr(w, "record_edit", lambda t: "\n".join(s for s in t.splitlines() if not s.startswith("citecheck/__init__.py"))), "RECORD does not list citecheck/__init__.py"),
        ]
        for name, platform, spoil, words in cases:
            with self.subTest(name):
                for f in os.listdir(self.dist):
                    os.remove(os.path.join(self.dist, f))
                w = Wheel(platform)
                spoil(w)
                w.write(self.dist)
                problems = self.run_check([platform])
                self.assertTrue(problems, "no problem found")
                self.assertTrue(all(p.startswith(w.name + ": ") for p in problems), problems)
                self.assertTrue(any(words in p for p in problems), problems)

    def test_an_extras_requirement_is_accepted(self):
        for p in PLATFORMS:
            w = Wheel(p)
            w.replace(
                f"{w.distinfo}/METADATA",
                b"Requires-Python",
                b"Provides-Extra: arrow\nRequires-Dist: pyarrow>=11; extra == 'arrow'\nProvides-Extra: pandas\nRequires-Dist: pandas>=1.5; extra == \"pandas\"\nRequires-Python",
            )
            w.write(self.dist)
        self.assertEqual(self.run_check(), [])

    def test_missing_and_stray_wheels_are_named(self):
        for p in PLATFORMS[1:]:
            Wheel(p).write(self.dist)
        stray = Wheel("win_amd64")
        stray.name = f"{WHEEL_NAME}-1.1.0-py3-none-win_amd64.whl"
        stray.write(self.dist)
        problems = self.run_check()
        self.assertIn(f"{WHEEL_NAME}-{VERSION}-py3-none-{PLATFORMS[0]}.whl: missing", problems)
        self.assertTrue(any(p.startswith(f"{WHEEL_NAME}-1.1.0-py3-none-win_amd64.whl: not one of this build's wheels") for p in problems), problems)
        self.assertEqual(len(problems), 2, problems)

    def test_wheels_of_the_name_citecheck_are_not_these(self):
        # PyPI's citecheck is another project: wheels built under that name
        # (as from pyproject.toml's name = "citecheck") are not the
        # build's, and its wheels are missing.
        for p in PLATFORMS:
            w = Wheel(p)
            w.replace(f"{w.distinfo}/METADATA", f"Name: {DISTRIBUTION}\n".encode(), b"Name: citecheck\n")
            for f in list(w.files):
                if f.startswith(f"{WHEEL_NAME}-"):
                    w.files["citecheck-" + f[len(WHEEL_NAME) + 1 :]] = w.files.pop(f)
                    w.modes["citecheck-" + f[len(WHEEL_NAME) + 1 :]] = w.modes.pop(f)
            w.distinfo = f"citecheck-{VERSION}.dist-info"
            w.name = f"citecheck-{VERSION}-py3-none-{p}.whl"
            w.write(self.dist)
        self.assertEqual(self.run_check(), [f"{wheel_file(VERSION, p)}: missing" for p in PLATFORMS])

    def test_a_file_that_is_not_a_zip_is_named(self):
        for p in PLATFORMS:
            Wheel(p).write(self.dist)
        with open(os.path.join(self.dist, f"{WHEEL_NAME}-{VERSION}-py3-none-win_arm64.whl"), "wb") as f:
            f.write(b"not a zip")
        problems = self.run_check()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("not a readable zip archive", problems[0])


if __name__ == "__main__":
    unittest.main()
