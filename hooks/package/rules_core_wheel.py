"""The rules core as the bundle holds it: a wheel built offline with flit_core, listed in
the bundle's lock file, and compiled to .pyc by `pyodide py-compile` (steps 2, 3 and 5 of
hooks/package/pyodide_bundle.py); and what the dev server's quick refresh needs to tell a
rules data edit from a code edit (compiled_from, swap_data)."""

from __future__ import annotations

import hashlib
import shutil
import sys
import zipfile
from pathlib import Path

from hooks.package.bundle_archives import dated
from hooks.package.bundle_tools import (
    DATA_MEMBER,
    LOCK_FILE,
    ROOT,
    STDLIB,
    BundleError,
    pyodide_cli,
    run,
)


def build_wheel(wheel_dir: Path, project: Path = ROOT) -> Path:
    """Build the pure-Python rules_core wheel with the installed flit_core, no download."""
    wheel_dir.mkdir(parents=True, exist_ok=True)
    if not (project / DATA_MEMBER).is_file():
        raise BundleError(f"{DATA_MEMBER} is missing: run `make data` first")
    run(
        "building the rules_core wheel",
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--wheel-dir",
            wheel_dir,
            project,
        ],
    )
    wheels = sorted(wheel_dir.glob("rules_core-*.whl"))
    if len(wheels) != 1:
        raise BundleError(f"expected one rules_core wheel in {wheel_dir}, found {len(wheels)}")
    with zipfile.ZipFile(wheels[0]) as archive:
        if DATA_MEMBER not in archive.namelist():
            raise BundleError(f"{wheels[0].name} lacks {DATA_MEMBER}")
    return wheels[0]


def register_wheel(out_dir: Path, wheel: Path) -> Path:
    """Copy the wheel into the bundle and add it to the bundle's lock file."""
    target = Path(shutil.copy2(wheel, out_dir / wheel.name))
    lock, new_lock = out_dir / LOCK_FILE, out_dir / f"{LOCK_FILE}.new"
    run(
        "pyodide lockfile add-wheels",
        [
            pyodide_cli(),
            "lockfile",
            "add-wheels",
            "--input",
            lock,
            "--output",
            new_lock,
            "--base-path",
            out_dir,
            target,
        ],
    )
    new_lock.replace(lock)
    return target


def compile_bundle(out_dir: Path) -> None:
    """Compile the wheel to .pyc (the lock file follows), its docstrings kept: the command
    line's help and the dataclasses' own read them. Members stored: each archive is
    compressed whole (compress_bundle)."""
    # With SOURCE_DATE_EPOCH set, py_compile writes hash-based .pyc files: no timestamp.
    run(
        "pyodide py-compile",
        [
            pyodide_cli(),
            "py-compile",
            "--silent",
            "--compression-level",
            "0",
            "--exclude",
            STDLIB,
            out_dir,
        ],
        env={"SOURCE_DATE_EPOCH": "315532800", "PYTHONHASHSEED": "0"},
    )


def unchanged_by_compiling(name: str) -> bool:
    """A member `pyodide py-compile` leaves as it is: the rules data, and the RECORD (which
    lists the sources, compiled or not)."""
    return name == DATA_MEMBER or name.endswith(".dist-info/RECORD")


def compiled_from(wheel: Path) -> str:
    """A digest of the uncompiled wheel's members that compiling reads or rewrites: every
    member but the rules data and the RECORD, names and bytes."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            if not unchanged_by_compiling(member.filename):
                data = archive.read(member)
                digest.update(f"{member.filename}\0{len(data)}\0".encode())
                digest.update(data)
    return digest.hexdigest()


def swap_data(compiled: Path, fresh: Path, target: Path) -> None:
    """The compiled wheel with the rules data and RECORD of a fresh wheel of the same code,
    written as compile_bundle and fix_archive_dates write it: the bytes compiling the fresh
    wheel gives."""
    with (
        zipfile.ZipFile(compiled) as kept,
        zipfile.ZipFile(fresh) as new,
        zipfile.ZipFile(target, "w") as swapped,
    ):
        for member in kept.infolist():
            name = member.filename
            source = new if unchanged_by_compiling(name) else kept
            swapped.writestr(dated(member), source.read(name))
