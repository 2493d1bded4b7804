"""The bundle's files as the site serves them: its archives dated and hashed anew, so the
same sources give the same bytes; each large file gzipped beside it; and bundle.json, what
the calculators' worker reads first (steps 6 and 8 of hooks/package/pyodide_bundle.py).
Then the files a finished bundle serves, and the folder they are served in."""

from __future__ import annotations

import gzip
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from hooks.package.bundle_tools import (
    ARCHIVE_DATE,
    COMPRESSED_SUFFIX,
    DEFAULT_OUT,
    LOCK_FILE,
    MANIFEST,
    PACKAGE,
    SCRIPTS,
    SNAPSHOT,
    STDLIB,
    WASM,
    BundleError,
)


class Compressed(TypedDict):
    """One file of the bundle gzipped beside it, as bundle.json lists it."""

    name: str
    file: str  # the gzipped file's name
    bytes: int
    sha256: str
    size: int  # before compression
    content_sha256: str


class Manifest(TypedDict):
    """bundle.json, what the worker reads first."""

    wasm: Compressed
    stdlib: Compressed
    wheel: Compressed
    snapshot: NotRequired[Compressed]  # absent once refresh_wheel has changed the wheel
    lock: dict[str, Any]  # pyodide-lock.json, in Pyodide's own format


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def compressed_file(out_dir: Path, name: str) -> Compressed:
    """Gzip one file of the bundle beside it; its entry of bundle.json."""
    content = (out_dir / name).read_bytes()
    # No name and no date in the header: the same content, the same bytes.
    stored = gzip.compress(content, compresslevel=9, mtime=0)
    (out_dir / f"{name}{COMPRESSED_SUFFIX}").write_bytes(stored)
    return {
        "name": name,
        "file": f"{name}{COMPRESSED_SUFFIX}",
        "bytes": len(stored),
        "sha256": sha256(stored),
        "size": len(content),
        "content_sha256": sha256(content),
    }


def write_manifest(
    out_dir: Path,
    wasm: Compressed,
    stdlib: Compressed,
    wheel: Compressed,
    snapshot: Compressed | None = None,
) -> Manifest:
    lock = json.loads((out_dir / LOCK_FILE).read_text(encoding="utf-8"))
    manifest: Manifest = {"wasm": wasm, "stdlib": stdlib, "wheel": wheel, "lock": lock}
    if snapshot:
        manifest["snapshot"] = snapshot
    (out_dir / MANIFEST).write_text(
        json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return manifest


def compress_bundle(out_dir: Path) -> Manifest:
    """Gzip the WebAssembly, the standard library, the wheel and the snapshot beside them,
    and write bundle.json: the lock file, and for each of them its compressed file's name,
    size and SHA-256, and its content's size and SHA-256."""
    lock = json.loads((out_dir / LOCK_FILE).read_text(encoding="utf-8"))
    wasm, stdlib = compressed_file(out_dir, WASM), compressed_file(out_dir, STDLIB)
    wheel = compressed_file(out_dir, lock["packages"][PACKAGE]["file_name"])
    snapshot = compressed_file(out_dir, SNAPSHOT) if (out_dir / SNAPSHOT).is_file() else None
    return write_manifest(out_dir, wasm, stdlib, wheel, snapshot)


def fix_archive_dates(archive: Path) -> None:
    """Rewrite a zip with every member dated ARCHIVE_DATE, in the same order, so that
    compiling the same sources twice gives the same bytes."""
    staged = archive.with_name(archive.name + ".tmp")
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(staged, "w") as target:
        for member in source.infolist():
            target.writestr(dated(member), source.read(member))
    staged.replace(archive)


def dated(member: zipfile.ZipInfo) -> zipfile.ZipInfo:
    """A member as the compiled archives hold it: dated ARCHIVE_DATE, compressed and with
    the attributes it had."""
    fixed = zipfile.ZipInfo(member.filename, date_time=ARCHIVE_DATE)
    fixed.compress_type = member.compress_type
    fixed.external_attr = member.external_attr
    return fixed


def reproducible(out_dir: Path) -> None:
    """Fix the dates of the compiled archives and the lock file's hashes of them."""
    lock_path = out_dir / LOCK_FILE
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    fix_archive_dates(out_dir / "python_stdlib.zip")
    for entry in lock["packages"].values():
        package = out_dir / entry["file_name"]
        fix_archive_dates(package)
        entry["sha256"] = hashlib.sha256(package.read_bytes()).hexdigest()
    lock_path.write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def prune_lock(out_dir: Path) -> dict[str, Any]:
    """Keep in the lock file only the packages whose file the bundle holds."""
    lock_path = out_dir / LOCK_FILE
    lock: dict[str, Any] = json.loads(lock_path.read_text(encoding="utf-8"))
    lock["packages"] = {
        name: entry
        for name, entry in lock["packages"].items()
        if (out_dir / entry["file_name"]).is_file()
    }
    entry = lock["packages"].get(PACKAGE)
    if entry is None or not entry["file_name"].endswith(".whl") or "-cp3" not in entry["file_name"]:
        raise BundleError(f"{LOCK_FILE} does not list a compiled rules_core wheel")
    lock_path.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    return lock


def bundle_files(out_dir: Path = DEFAULT_OUT) -> list[Path]:
    """The files a finished bundle serves: Pyodide's two scripts, bundle.json and the
    compressed files it lists."""
    out_dir = Path(out_dir)
    manifest_path = out_dir / MANIFEST
    if not manifest_path.is_file():
        raise BundleError(f"no Pyodide bundle in {out_dir}: run `make setup`")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    roles = ("wasm", "stdlib", "wheel", "snapshot")
    compressed = sorted(manifest[role]["file"] for role in roles if role in manifest)
    names = [*SCRIPTS, MANIFEST, *compressed]
    files = [out_dir / name for name in names]
    missing = [path.name for path in files if not path.is_file()]
    if missing:
        raise BundleError(f"the Pyodide bundle in {out_dir} lacks {', '.join(missing)}")
    return files


def bundle_id(out_dir: Path = DEFAULT_OUT) -> str:
    """A short hash of every file of the bundle, names and bytes: the folder it is served in."""
    digest = hashlib.sha256()
    for path in bundle_files(out_dir):
        data = path.read_bytes()
        digest.update(f"{path.name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:16]
