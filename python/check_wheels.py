"""Checks the wheels python/build.sh made, before anyone installs them.

    python3 python/check_wheels.py [--tag v1.2.0] [--platforms "TAG ..."] DIST

For each expected platform (all eight unless --platforms names some) DIST
must hold exactly one wheel of the version, named for the distribution
(citecheck_engine-VERSION-py3-none-PLATFORM.whl: wheel_version.WHEEL_NAME),
and each wheel:

- its name and its WHEEL file say py3-none-PLATFORM (every tag a
  compressed platform tag expands to, and no other), Root-Is-Purelib false;
- it holds the package exactly as python/citecheck holds it (every file
  but compiled ones, byte for byte, py.typed among them), the licence, the
  metadata (in citecheck_engine-VERSION.dist-info), and the command at
  citecheck_engine-VERSION.data/scripts/citecheck (citecheck.exe on
  Windows), and nothing else;
- the command is an executable for the platform, read from its header:
  static ELF (no program interpreter) for x86-64 or aarch64, Mach-O for
  x86_64 or arm64, a PE console program for amd64 or arm64; outside
  Windows its mode in the zip is executable (pip copies that bit); with
  --tag it holds the tag it was stamped with (`citecheck version`);
- METADATA names the distribution (citecheck-engine, wheel_version's
  DISTRIBUTION; PyPI's citecheck is another project), the version,
  License-Expression Apache-2.0, Requires-Python >=3.9, no Requires-Dist
  but an extra's (`; extra == 'NAME'`, NAME a Provides-Extra), and
  License-File LICENSE, held under .dist-info/licenses/ with the
  repository's LICENSE bytes;
- no console script called citecheck competes with the command;
- RECORD lists every file once, with its size and valid sha256.

It prints each problem on its own line and exits 1 if there are any.
Standard library only; it reads each wheel once into memory (a wheel is a
few MB), so its cost is linear in the size of DIST's citecheck-engine wheels.
"""

import argparse
import base64
import email.parser
import hashlib
import os
import re
import stat
import struct
import sys
import zipfile
from typing import Dict, List, Optional, Sequence

import wheel_platforms
from wheel_version import DEV_TAG, DISTRIBUTION, WHEEL_NAME, TagError, pep440, wheel_file

# A requirement an extra alone installs: its whole marker is extra == 'NAME'.
_EXTRA_MARKER = re.compile(r"""^[^;]*;\s*extra\s*==\s*['"]([a-z0-9-]+)['"]\s*$""")

# The platform tags, from the one list build.sh and the hook also use.
PLATFORMS = wheel_platforms.TAGS

HERE = os.path.dirname(os.path.abspath(__file__))

# Executable formats: the format each GOOS builds, and the name the
# format's header gives each GOARCH.
_FORMATS = {"linux": "ELF", "darwin": "Mach-O", "windows": "PE"}
_MACHINES = {
    ("ELF", "amd64"): "x86-64",
    ("ELF", "arm64"): "aarch64",
    ("Mach-O", "amd64"): "x86_64",
    ("Mach-O", "arm64"): "arm64",
    ("PE", "amd64"): "amd64",
    ("PE", "arm64"): "arm64",
}
_ELF_MACHINES = {0x3E: "x86-64", 0xB7: "aarch64"}
_MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64"}
_PE_MACHINES = {0x8664: "amd64", 0xAA64: "arm64"}


def expected_format(platform: str) -> "tuple[str, str]":
    """(format, machine) the command of platform's wheel must be, from the
    GOOS/GOARCH it is built for."""
    p = wheel_platforms.of(platform)
    fmt = _FORMATS[p.goos]
    return fmt, _MACHINES[(fmt, p.goarch)]


def executable_format(data: bytes) -> "tuple[str, str]":
    """(format, machine) of an executable from its header, or raises
    ValueError saying why it is not one this package ships."""
    if data[:4] == b"\x7fELF":
        if len(data) < 64 or data[4] != 2 or data[5] != 1:
            raise ValueError("an ELF file, but not 64-bit little-endian")
        e_type, e_machine = struct.unpack_from("<HH", data, 16)
        if e_type != 2:
            raise ValueError(f"an ELF file of type {e_type}, not an executable (static builds are type 2)")
        phoff = struct.unpack_from("<Q", data, 32)[0]
        phentsize, phnum = struct.unpack_from("<HH", data, 54)
        for i in range(phnum):
            off = phoff + i * phentsize
            if off + 4 > len(data):
                raise ValueError("an ELF file whose program headers run past its end")
            if struct.unpack_from("<I", data, off)[0] == 3:  # PT_INTERP
                raise ValueError("a dynamically linked ELF executable; it must be static to run under both glibc and musl")
        return "ELF", _ELF_MACHINES.get(e_machine, f"machine {e_machine:#x}")
    if data[:4] == b"\xcf\xfa\xed\xfe":
        cpu, _, filetype = struct.unpack_from("<III", data, 4)
        if filetype != 2:
            raise ValueError(f"a Mach-O file of type {filetype}, not an executable")
        return "Mach-O", _MACHO_CPUS.get(cpu, f"cpu {cpu:#x}")
    if data[:2] == b"MZ" and len(data) >= 64:
        pe = struct.unpack_from("<I", data, 0x3C)[0]
        if data[pe : pe + 4] != b"PE\x00\x00" or pe + 24 + 70 > len(data):
            raise ValueError("an MZ file without a PE header")
        machine = struct.unpack_from("<H", data, pe + 4)[0]
        characteristics = struct.unpack_from("<H", data, pe + 22)[0]
        optional = pe + 24
        magic, = struct.unpack_from("<H", data, optional)
        subsystem, = struct.unpack_from("<H", data, optional + 68)
        if not characteristics & 0x0002:
            raise ValueError("a PE file that is not an executable image")
        if magic != 0x20B:
            raise ValueError("a 32-bit PE file (PE32), not PE32+")
        if subsystem != 3:
            raise ValueError(f"a PE program of subsystem {subsystem}, not a console program (3)")
        return "PE", _PE_MACHINES.get(machine, f"machine {machine:#x}")
    raise ValueError("not an ELF, Mach-O or PE executable")


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def expand_platform(platform: str) -> List[str]:
    return sorted(f"py3-none-{p}" for p in platform.split("."))


def package_files(package_dir: str) -> Dict[str, bytes]:
    """The files the wheel must hold under citecheck/, by their path in the
    wheel: all the package folder holds but __pycache__ and .pyc files,
    which build.sh leaves out."""
    files = {}
    for folder, dirs, names in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if not name.endswith(".pyc"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.dirname(package_dir)).replace(os.sep, "/")
                with open(path, "rb") as f:
                    files[rel] = f.read()
    return files


def check_wheel(
    path: str,
    platform: str,
    version: str,
    tag: Optional[str],
    package: Dict[str, bytes],
    license_bytes: Optional[bytes],
) -> List[str]:
    """The problems of one wheel, each a sentence naming the wheel."""
    name = os.path.basename(path)
    problems: List[str] = []

    def problem(msg: str) -> None:
        problems.append(f"{name}: {msg}")

    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        return [f"{name}: not a readable zip archive ({e})"]
    with zf:
        infos = zf.infolist()
        try:
            files = {i.filename: zf.read(i) for i in infos}
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            return [f"{name}: an entry cannot be read ({e})"]
        if len(files) != len(infos):
            problem("the archive holds the same name twice")
        info = {i.filename: i for i in infos}

    distinfo = f"{WHEEL_NAME}-{version}.dist-info"
    data_dir = f"{WHEEL_NAME}-{version}.data"
    windows = wheel_platforms.of(platform).goos == "windows"
    script = f"{data_dir}/scripts/{wheel_platforms.script_name(platform)}"
    license_entry = f"{distinfo}/licenses/LICENSE"
    expected = set(package) | {
        f"{distinfo}/METADATA",
        f"{distinfo}/WHEEL",
        f"{distinfo}/RECORD",
        license_entry,
        script,
    }
    optional = {f"{distinfo}/entry_points.txt"}
    for f in sorted(set(files) - expected - optional):
        problem(f"holds {f}, which the wheel should not")
    for f in sorted(expected - set(files)):
        problem(f"lacks {f}")
    for f, want in sorted(package.items()):
        if f in files and files[f] != want:
            problem(f"{f} differs from python/{f}")
    for f in files:
        if f.startswith("/") or ".." in f.split("/"):
            problem(f"holds {f}, a path outside the install folder")

    # WHEEL
    wheel = files.get(f"{distinfo}/WHEEL")
    if wheel is not None:
        fields = email.parser.BytesParser().parsebytes(wheel)
        if fields.get("Wheel-Version") != "1.0":
            problem(f"WHEEL says Wheel-Version {fields.get('Wheel-Version')}, not 1.0")
        if fields.get("Root-Is-Purelib") != "false":
            problem(f"WHEEL says Root-Is-Purelib {fields.get('Root-Is-Purelib')}, not false: it is a platform wheel")
        tags = sorted(fields.get_all("Tag") or [])
        if tags != expand_platform(platform):
            problem(f"WHEEL's tags are {tags}, not {expand_platform(platform)}")

    # The command.
    binary = files.get(script)
    if binary is not None:
        try:
            got = executable_format(binary)
            want = expected_format(platform)
            if got != want:
                problem(f"{script} is {got[0]} for {got[1]}, not {want[0]} for {want[1]}")
        except ValueError as e:
            problem(f"{script} is {e}")
        mode = info[script].external_attr >> 16
        if not windows and not (stat.S_ISREG(mode) and mode & 0o100):
            problem(f"{script} is not executable in the archive (mode {mode:o}); pip would install it so")
        if tag is not None and tag.encode("ascii") not in binary:
            problem(f"{script} does not hold the version {tag} it should be stamped with")

    # METADATA
    metadata = files.get(f"{distinfo}/METADATA")
    if metadata is not None:
        m = email.parser.BytesParser().parsebytes(metadata)
        for field, want in (
            ("Name", DISTRIBUTION),
            ("Version", version),
            ("License-Expression", "Apache-2.0"),
            ("Requires-Python", ">=3.9"),
        ):
            if m.get(field) != want:
                problem(f"METADATA says {field}: {m.get(field)}, not {want}")
        mv = m.get("Metadata-Version", "")
        if tuple(int(x) for x in re.findall(r"\d+", mv)[:2]) < (2, 4):
            problem(f"METADATA is version {mv}; License-Expression needs 2.4")
        # Only an extra (citecheck-engine[arrow]) may require a package: a
        # requirement without a marker, or with any other, would be
        # installed with the command itself.
        extras = m.get_all("Provides-Extra") or []
        for req in m.get_all("Requires-Dist") or []:
            got = _EXTRA_MARKER.search(req)
            if got is None:
                problem(f"METADATA requires {req!r}; the package has no runtime dependency, only extras' (…; extra == 'NAME')")
            elif got.group(1) not in extras:
                problem(f"METADATA requires {req!r} for the extra {got.group(1)!r}, which no Provides-Extra declares")
        license_files = m.get_all("License-File") or []
        if license_files != ["LICENSE"]:
            problem(f"METADATA's License-File entries are {license_files}, not ['LICENSE']")
    if license_bytes is not None and files.get(license_entry, license_bytes) != license_bytes:
        problem(f"{license_entry} differs from the repository's LICENSE")

    # A console script named citecheck would be written over the command.
    entry_points = files.get(f"{distinfo}/entry_points.txt", b"").decode("utf-8", "replace")
    section = ""
    for line in entry_points.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section in ("[console_scripts]", "[gui_scripts]") and line.split("=")[0].strip() == "citecheck":
            problem(f"entry_points.txt declares a {section[1:-1]} entry citecheck, which would replace the command")

    # RECORD
    record = files.get(f"{distinfo}/RECORD")
    if record is not None:
        listed = {}
        for n, line in enumerate(record.decode("utf-8", "replace").splitlines(), 1):
            if not line:
                continue
            parts = line.rsplit(",", 2)
            if len(parts) != 3:
                problem(f"RECORD line {n} is not path,hash,size")
                continue
            f, h, size = parts
            if f in listed:
                problem(f"RECORD lists {f} twice")
            listed[f] = (h, size)
        for f, data in sorted(files.items()):
            if f not in listed:
                problem(f"RECORD does not list {f}")
                continue
            h, size = listed[f]
            if f == f"{distinfo}/RECORD":
                if h or size:
                    problem("RECORD gives a hash for itself")
                continue
            if h != record_hash(data):
                problem(f"RECORD's hash of {f} is wrong")
            if size != str(len(data)):
                problem(f"RECORD's size of {f} is {size}, not {len(data)}")
        for f in sorted(set(listed) - set(files)):
            problem(f"RECORD lists {f}, which the wheel does not hold")
    return problems


def check(
    dist: str,
    platforms: Sequence[str] = PLATFORMS,
    tag: Optional[str] = None,
    version: Optional[str] = None,
    package_dir: str = os.path.join(HERE, "citecheck"),
    license_path: Optional[str] = os.path.join(os.path.dirname(HERE), "LICENSE"),
) -> List[str]:
    """Every problem of the citecheck-engine wheels in dist. With tag, the version
    is its PEP 440 form and each command must hold the tag; else version
    (or, if None, the one version the wheels' names agree on)."""
    problems: List[str] = []
    if tag is not None:
        version = pep440(tag)
    wheels = sorted(f for f in os.listdir(dist) if f.startswith(f"{WHEEL_NAME}-") and f.endswith(".whl"))
    if version is None:
        versions = sorted({w.split("-")[1] for w in wheels if w.count("-") == 4})
        if len(versions) != 1:
            return [f"{dist}: the {WHEEL_NAME} wheels should share one version; they have {versions or 'none'}"]
        version = versions[0]
    package = package_files(package_dir)
    if not package:
        problems.append(f"{package_dir}: no package files to compare the wheels with")
    license_bytes = None
    if license_path is not None and os.path.isfile(license_path):
        with open(license_path, "rb") as f:
            license_bytes = f.read()
    names = {wheel_file(version, p): p for p in platforms}
    for w in wheels:
        if w not in names:
            problems.append(f"{w}: not one of this build's wheels (version {version}, platforms {' '.join(platforms)}); pip might pick it")
    for w, platform in names.items():
        path = os.path.join(dist, w)
        if not os.path.isfile(path):
            problems.append(f"{w}: missing")
            continue
        problems += check_wheel(path, platform, version, tag, package, license_bytes)
    return problems


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=f"Checks the {DISTRIBUTION} wheels in DIST.")
    parser.add_argument("dist", metavar="DIST")
    parser.add_argument("--tag", help=f"the tag the wheels were built as (e.g. v1.2.0, {DEV_TAG})")
    parser.add_argument("--platforms", help="the platform tags expected, separated by spaces (default: all eight)")
    args = parser.parse_args(argv)
    platforms = PLATFORMS
    if args.platforms:
        platforms = tuple(args.platforms.split())
        for p in platforms:
            if p not in PLATFORMS:
                parser.error(f"--platforms: {p} is not one of {' '.join(PLATFORMS)}")
    try:
        problems = check(args.dist, platforms, tag=args.tag)
    except TagError as e:
        parser.error(f"--tag: {e}")
    except OSError as e:
        print(f"check_wheels: {e}", file=sys.stderr)
        return 1
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check_wheels: {len(problems)} problem(s) in {args.dist}", file=sys.stderr)
        return 1
    print(f"check_wheels: {len(platforms)} wheel(s) in {args.dist} are sound")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
