"""Bundle Pyodide and the rules_core wheel into one folder the site serves as `indexURL`.

`python -m hooks.package.pyodide_bundle [OUT_DIR]` (default build/pyodide):

1. copies the runtime files `loadPyodide` fetches from node_modules/pyodide/ (installed
   from package-lock.json by `npm ci`), so no page needs a CDN;
2. builds the rules_core wheel with pip and flit_core, offline (no build isolation), and
   checks the compiled rules data is inside it;
3. adds the wheel to the copied pyodide-lock.json (`pyodide lockfile add-wheels`);
4. cuts the standard library to what Python imports to start and to answer every
   calculator for every system, found by running them (hooks/package/trace_imports.mjs,
   in Node, as the calculators' worker runs them): about 125 of its 579 files. The build
   stops, naming the module and the line that imports it, when the rules core imports a
   module the cut lacks (an import inside a function that no calculator reached);
5. compiles the cut to .pyc as `python -OO` does (no docstrings, no asserts) and the
   wheel as `pyodide py-compile` does (which rewrites the lock file to the compiled
   wheel), members stored, not deflated: each archive is compressed whole (step 8), which
   is smaller, and Python reads a stored member without inflating it. Bytecode, not
   sources: compressed, the cut is 1.0 MB as bytecode against 0.63 MB as sources, about
   2 s more on a phone's 1.6 Mbps, and saves compiling every module at each start, 1.1 s
   in Node on this machine, some 4 s on a phone four times slower;
6. drops from the lock file every package whose file is not in the bundle, so the bundle
   lists only what it serves, and makes the result reproducible: hash-based .pyc
   (SOURCE_DATE_EPOCH set for the compile step) and one fixed date for every member of the
   compiled archives, so the same sources give the same bytes, and a deploy that changes
   only pages changes no file here;
7. makes a memory snapshot of Python (`rules_core.snapshot`, hooks/package/make_snapshot.mjs)
   from the finished files, every calculator having answered for every system: a worker
   on a fast connection starts from it instead of starting Python and importing the core;
8. gzips the WebAssembly, the standard library, the wheel and the snapshot (`NAME.gz`,
   served as they are by any static host: a file, not a Content-Encoding) and writes
   `bundle.json`, what the worker reads first: the lock file, and each compressed file's
   size and SHA-256, before and after decompression. The worker decompresses them as they
   arrive (DecompressionStream) and checks each against its SHA-256.

The bundle is assembled in a scratch folder and moved into place only when every step
has passed, so OUT_DIR is either a complete bundle or absent. `bundle_files(OUT_DIR)`
lists the files a finished bundle serves, for the MkDocs hook to copy (the uncompressed
WebAssembly, standard library and wheel stay beside them for Node, which reads them from
the folder), and `bundle_id(OUT_DIR)` names them: the site serves the bundle under
`assets/pyodide/<id>/`, so a page of one build can never load the runtime, lock file or
wheel of another, from a cache or a service worker.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from hooks.package.made_from import digest

ROOT = Path(__file__).resolve().parents[2]
NODE_PYODIDE = ROOT / "node_modules" / "pyodide"
DEFAULT_OUT = ROOT / "build" / "pyodide"
LOCK_FILE = "pyodide-lock.json"
# What loadPyodide({indexURL}) loads, in Node and in browsers: the ES module (imported by
# the page or worker), the Emscripten glue and module, the standard library and the lock
# file. The source maps and the console pages are left out.
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    LOCK_FILE,
)
STDLIB = "python_stdlib.zip"
WASM = "pyodide.asm.wasm"
# The files the site serves as they are (text, which hosts compress themselves), and the
# worker's list of the rest, which it downloads compressed (COMPRESSED_SUFFIX).
SCRIPTS = ("pyodide.mjs", "pyodide.asm.js")
MANIFEST = "bundle.json"
# What the run of the calculators loaded (trace_imports.mjs), kept beside the bundle (not
# served): what the cut was made from.
TRACE_FILE = "stdlib-trace.json"
# What the compiled wheel was compiled from (_compiled_from): a rules data edit alone then
# swaps the data into it, without compiling (refresh_wheel).
COMPILED_FROM = "rules_core-compiled-from.sha256"
# A digest of the rules core's sources and data the wheel was made from (is_stale).
CORE_SOURCES = "rules_core-sources.sha256"
COMPRESSED_SUFFIX = ".gz"
TRACE = Path(__file__).with_name("trace_imports.mjs")
MAKE_SNAPSHOT = Path(__file__).with_name("make_snapshot.mjs")
# Python's memory with the rules core loaded (make_snapshot.mjs): what the worker starts
# from where the connection is fast enough to fetch it (calculator-worker.mjs).
SNAPSHOT = "rules_core.snapshot"
# The rules core's command line, which the site never runs (and its argparse with it).
COMMAND_LINE = ("rules_core.cli", "rules_core.__main__")
PACKAGE = "rules-core"  # the lock file's (normalised) name
DATA_MEMBER = "rules_core/data/systems.json"
# The date of every member of the compiled archives: the earliest a zip can hold. A fixed
# date, not the commit's, so that the bundle changes only when its sources do.
ARCHIVE_DATE = (1980, 1, 1, 0, 0, 0)


# For the type checker only, without importing `typing`: this module is also the child
# process that compiles the standard library (compile_stdlib), and the bytes of the
# typing.pyc it writes change when that process has imported typing itself (marshal shares
# an object referenced from elsewhere): the same sources would no longer give the same bundle.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NotRequired, TypedDict

    class Traced(TypedDict):
        """What the calculators' run in Pyodide loaded (trace_imports.mjs): each module with its
        origin (a path in the standard library's zip or elsewhere, "built-in", "frozen", or
        None), and the standard library zip's path."""

        modules: dict[str, str | None]
        stdlib: str

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


class BundleError(RuntimeError):
    """A step of the bundle failed; the message is one line for the user."""


def runtime_source(node_pyodide: Path = NODE_PYODIDE) -> Path:
    """The npm package's folder, checked to hold every runtime file."""
    if not node_pyodide.is_dir():
        raise BundleError(f"{node_pyodide} is missing: run `make setup` (npm ci) first")
    missing = [name for name in RUNTIME_FILES if not (node_pyodide / name).is_file()]
    if missing:
        raise BundleError(
            f"{node_pyodide} is incomplete (no {', '.join(missing)}): "
            "run `make setup` (npm ci) first"
        )
    return node_pyodide


def copy_runtime(source: Path, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copy2(source / name, out_dir / name)) for name in RUNTIME_FILES]


def _run(
    step: str, command: list[str | Path], cwd: Path = ROOT, env: dict[str, str] | None = None
) -> None:
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )
    if result.returncode != 0:
        output = (result.stderr.strip() or result.stdout.strip()).splitlines()
        detail = output[-1].strip() if output else "no output"
        raise BundleError(f"{step} failed (exit status {result.returncode}): {detail}")


def _pyodide_cli() -> Path:
    """The `pyodide` command installed beside this interpreter (the venv's), else on PATH."""
    beside = Path(sys.executable).parent / "pyodide"
    if beside.is_file():
        return beside
    found = shutil.which("pyodide")
    if found is None:
        raise BundleError(
            "the `pyodide` command (pyodide-build) is not installed: run `make setup`"
        )
    return Path(found)


def build_wheel(wheel_dir: Path, project: Path = ROOT) -> Path:
    """Build the pure-Python rules_core wheel with the installed flit_core, no download."""
    wheel_dir.mkdir(parents=True, exist_ok=True)
    if not (project / DATA_MEMBER).is_file():
        raise BundleError(f"{DATA_MEMBER} is missing: run `make data` first")
    _run(
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
    _run(
        "pyodide lockfile add-wheels",
        [
            _pyodide_cli(),
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


def core_modules(project: Path = ROOT) -> list[str]:
    """The rules core's modules the site runs: all but its command line."""
    package = project / "rules_core"
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(project).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if name not in COMMAND_LINE:
            names.append(name)
    return names


def _type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def core_imports(project: Path = ROOT) -> list[tuple[str, str]]:
    """(module, "rules_core/FILE.py:LINE") of every module outside the rules core that the
    modules of core_modules() import, wherever the import is (in a function too), but for
    imports under `if TYPE_CHECKING:`, which never run."""
    found: list[tuple[str, str]] = []
    modules = set(core_modules(project))
    for path in sorted((project / "rules_core").rglob("*.py")):
        parts = path.relative_to(project).with_suffix("").parts
        if ".".join(parts[:-1] if parts[-1] == "__init__" else parts) not in modules:
            continue
        where = path.relative_to(project).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=where)
        skipped = {
            id(inner) for node in ast.walk(tree) if _type_checking(node) for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                # `from a import b`: b may be a module of package a, which the check finds.
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            found += [
                (name, f"{where}:{node.lineno}")
                for name in names
                if name.split(".")[0] != "rules_core"
            ]
    return found


def _run_node(script: Path, args: list[str], doing: str) -> str:
    """Run one of the bundle's Node scripts (`doing` says what for); its standard output."""
    node = shutil.which("node")
    if node is None:
        raise BundleError(f"Node is needed for {doing}: run `make setup`")
    result = subprocess.run(
        [node, script, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        output = result.stderr.strip().splitlines()
        detail = output[-1].strip() if output else "no output"
        raise BundleError(f"{doing} failed: {detail}")
    return result.stdout


def trace_imports(stage: Path, project: Path = ROOT) -> Traced:
    """Run the calculators in Pyodide from `stage` (hooks/package/trace_imports.mjs): each
    module Python loaded, with its origin, and the standard library zip's path."""
    output = _run_node(
        TRACE, [str(stage), json.dumps(core_modules(project))], "running the calculators in Pyodide"
    )
    traced: Traced = json.loads(output)
    return traced


def make_snapshot(stage: Path) -> Path:
    """Python's memory once every calculator has answered for every system, from the
    finished files of `stage` (hooks/package/make_snapshot.mjs): the same files, the same
    bytes. Made after the archives are final: Python keeps their tables of contents."""
    _run_node(MAKE_SNAPSHOT, [str(stage), str(stage / SNAPSHOT)], "making Python's snapshot")
    return stage / SNAPSHOT


def _files_of(module: str) -> tuple[str, str]:
    """The two members of a standard library zip that can hold a module."""
    path = module.replace(".", "/")
    return f"{path}.py", f"{path}/__init__.py"


def stdlib_members(traced: Traced) -> list[str]:
    """The standard library's files Python loaded, as members of its zip (sources)."""
    prefix = traced["stdlib"].rstrip("/") + "/"
    origins = traced["modules"].values()
    return sorted(
        origin[len(prefix) :].removesuffix("c")
        for origin in origins
        if isinstance(origin, str) and origin.startswith(prefix)
    )


def check_cut(
    imports: Iterable[tuple[str, str]], traced: Traced, kept: Iterable[str], whole: Iterable[str]
) -> None:
    """Stop the build when the rules core imports a module of Python's standard library
    (`whole`: the members of its zip) that the cut (`kept`) lacks, naming the module and
    the line; a module built into Pyodide (or frozen in it) has no file to keep."""
    kept, whole = set(kept), set(whole)
    loaded = traced["modules"]
    problems = []
    for module, where in imports:
        files = _files_of(module)
        if not any(file in whole for file in files):
            if module in loaded or module.rpartition(".")[0] in loaded:
                continue  # built in, frozen, or a name imported from a module: no file
            problems.append(f"{where} imports {module}, which Pyodide's standard library lacks")
        elif not any(file in kept for file in files) and loaded.get(module) not in (
            "built-in",
            "frozen",
        ):
            reached = "" if module not in loaded else " (loaded, yet left out)"
            problems.append(
                f"{where} imports {module}, which the cut of the standard library lacks{reached}:"
                " no calculator imported it when the build ran them all. Import it at the top"
                " of its module, so that every start imports it"
            )
    if problems:
        raise BundleError("; ".join(dict.fromkeys(problems)))


def cut_stdlib(archive: Path, members: Iterable[str]) -> int:
    """Keep in the standard library's zip only `members`, in their order; their count."""
    keep = set(members)
    staged = archive.with_name(archive.name + ".cut")
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(staged, "w") as target:
        for member in source.infolist():
            if member.filename in keep:
                target.writestr(member, source.read(member))
    missing = keep - set(zipfile.ZipFile(staged).namelist())
    if missing:
        raise BundleError(f"{archive.name} lacks {', '.join(sorted(missing))}")
    staged.replace(archive)
    return len(keep)


def compile_stdlib(archive: Path) -> None:
    """`_compile_stdlib` in a Python of a fixed hash seed: the order of a set's constants in
    the bytecode follows the seed, and the same sources must give the same bytes."""
    _run(
        "compiling the standard library",
        [sys.executable, "-m", "hooks.package.pyodide_bundle", "--compile-stdlib", archive],
        env={"PYTHONHASHSEED": "0"},
    )


def _compile_stdlib(archive: Path) -> None:
    """Compile the standard library's zip to .pyc in place, members stored, as `python -OO`
    compiles: without docstrings and asserts, which the calculators never read, and which
    are 0.19 MB of its 1.2 MB compressed. Hash-based .pyc, with no source to check them
    against: no timestamp in them."""
    staged = archive.with_name(archive.name + ".pyc")
    with (
        tempfile.TemporaryDirectory() as scratch,
        zipfile.ZipFile(archive) as source,
        zipfile.ZipFile(staged, "w", zipfile.ZIP_STORED) as target,
    ):
        for member in source.infolist():
            data = source.read(member)
            if not member.filename.endswith(".py"):
                target.writestr(member.filename, data)
                continue
            module = Path(scratch) / "module.py"
            module.write_bytes(data)
            compiled = Path(scratch) / "module.pyc"
            py_compile.compile(
                str(module),
                cfile=str(compiled),
                dfile=member.filename,
                doraise=True,
                optimize=2,
                invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
            )
            target.writestr(f"{member.filename}c", compiled.read_bytes())
    staged.replace(archive)


def compile_bundle(out_dir: Path) -> None:
    """Compile the wheel to .pyc (the lock file follows), its docstrings kept: the command
    line's help and the dataclasses' own read them. Members stored: each archive is
    compressed whole (compress_bundle)."""
    # With SOURCE_DATE_EPOCH set, py_compile writes hash-based .pyc files: no timestamp.
    _run(
        "pyodide py-compile",
        [
            _pyodide_cli(),
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


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _compressed(out_dir: Path, name: str) -> Compressed:
    """Gzip one file of the bundle beside it; its entry of bundle.json."""
    content = (out_dir / name).read_bytes()
    # No name and no date in the header: the same content, the same bytes.
    stored = gzip.compress(content, compresslevel=9, mtime=0)
    (out_dir / f"{name}{COMPRESSED_SUFFIX}").write_bytes(stored)
    return {
        "name": name,
        "file": f"{name}{COMPRESSED_SUFFIX}",
        "bytes": len(stored),
        "sha256": _sha256(stored),
        "size": len(content),
        "content_sha256": _sha256(content),
    }


def _write_manifest(
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
    wasm, stdlib = _compressed(out_dir, WASM), _compressed(out_dir, STDLIB)
    wheel = _compressed(out_dir, lock["packages"][PACKAGE]["file_name"])
    snapshot = _compressed(out_dir, SNAPSHOT) if (out_dir / SNAPSHOT).is_file() else None
    return _write_manifest(out_dir, wasm, stdlib, wheel, snapshot)


def fix_archive_dates(archive: Path) -> None:
    """Rewrite a zip with every member dated ARCHIVE_DATE, in the same order, so that
    compiling the same sources twice gives the same bytes."""
    staged = archive.with_name(archive.name + ".tmp")
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(staged, "w") as target:
        for member in source.infolist():
            target.writestr(_dated(member), source.read(member))
    staged.replace(archive)


def _dated(member: zipfile.ZipInfo) -> zipfile.ZipInfo:
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


def _core_sources(project: Path) -> str:
    """A digest of what the rules core's wheel is made from: its Python, its data and
    pyproject.toml, by their bytes (a checkout that rewrites them as they were is no change)."""
    core = project / "rules_core"
    sources = [*core.rglob("*.py"), *core.rglob("*.json"), project / "pyproject.toml"]
    return digest(sources, root=project)


def is_stale(out_dir: Path = DEFAULT_OUT, project: Path = ROOT) -> bool:
    """Whether the rules core's sources or data changed since the bundle's wheel was made
    (the dev server's question before each build)."""
    record = out_dir / CORE_SOURCES
    made_from = record.read_text(encoding="utf-8").strip() if record.is_file() else None
    return made_from != _core_sources(project)


def _unchanged_by_compiling(name: str) -> bool:
    """A member `pyodide py-compile` leaves as it is: the rules data, and the RECORD (which
    lists the sources, compiled or not)."""
    return name == DATA_MEMBER or name.endswith(".dist-info/RECORD")


def _compiled_from(wheel: Path) -> str:
    """A digest of the uncompiled wheel's members that compiling reads or rewrites: every
    member but the rules data and the RECORD, names and bytes."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            if not _unchanged_by_compiling(member.filename):
                data = archive.read(member)
                digest.update(f"{member.filename}\0{len(data)}\0".encode())
                digest.update(data)
    return digest.hexdigest()


def _swap_data(compiled: Path, fresh: Path, target: Path) -> None:
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
            source = new if _unchanged_by_compiling(name) else kept
            swapped.writestr(_dated(member), source.read(name))


def refresh_wheel(out_dir: Path = DEFAULT_OUT, project: Path = ROOT) -> list[Path]:
    """Rebuild only the rules_core wheel of a finished bundle: the dev server's way after a
    rules.yml or rules core edit, in about a second where `bundle` takes several (the
    runtime and its cut, compiled standard library do not change); after a rules data edit
    alone, in a tenth of that: the new data goes into the compiled wheel as it is.

    The same steps as `bundle` give the same bytes: the wheel by the same flit_core build
    `pip wheel` runs, compiled by `pyodide py-compile` as compile_bundle runs it, dated as
    `reproducible` dates it, gzipped as compress_bundle does, and its lock file entry and
    bundle.json take the new digests (its name, its imports and dependencies are the
    project's and do not change). The snapshot, which holds the old rules core, is dropped:
    the worker starts Python without it until the next whole bundle (`make setup`)."""
    from flit_core.wheel import make_wheel_in

    out_dir = Path(out_dir)
    lock_path = out_dir / LOCK_FILE
    lock = json.loads(lock_path.read_text(encoding="utf-8")) if lock_path.is_file() else {}
    entry = lock.get("packages", {}).get(PACKAGE)
    if entry is None:
        raise BundleError(f"no rules_core wheel in {out_dir} to refresh: run `make setup`")
    if not (project / DATA_MEMBER).is_file():
        raise BundleError(f"{DATA_MEMBER} is missing: run `make data` first")
    kept, compiled_from = out_dir / entry["file_name"], out_dir / COMPILED_FROM
    with tempfile.TemporaryDirectory(prefix=".wheel-", dir=out_dir.parent) as scratch:
        fresh = Path(make_wheel_in(project / "pyproject.toml", Path(scratch)).file)
        source = _compiled_from(fresh)
        code_unchanged = (
            kept.is_file()
            and compiled_from.is_file()
            and compiled_from.read_text(encoding="utf-8").strip() == source
        )
        if code_unchanged:
            compiled = Path(scratch) / "swapped" / kept.name
            compiled.parent.mkdir()
            _swap_data(kept, fresh, compiled)
        else:
            compile_bundle(Path(scratch))
            compiled = next(Path(scratch).glob("rules_core-*.whl"), None)
            if compiled is None or compiled.name != entry["file_name"]:
                raise BundleError(
                    f"the compiled wheel is not {entry['file_name']}: run `make setup`"
                )
            fix_archive_dates(compiled)
        entry["sha256"] = hashlib.sha256(compiled.read_bytes()).hexdigest()
        compiled.replace(kept)
    compiled_from.write_text(source + "\n", encoding="utf-8")
    (out_dir / CORE_SOURCES).write_text(_core_sources(project) + "\n", encoding="utf-8")
    lock_path.write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    manifest: Manifest = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
    if not code_unchanged:
        # The cut standard library stays, where it has every module the core imports now; a
        # core that imports one it lacks gets the whole bundle, which traces the imports anew.
        try:
            traced: Traced = json.loads((out_dir / TRACE_FILE).read_text(encoding="utf-8"))
            with zipfile.ZipFile(runtime_source() / STDLIB) as whole:
                imports = core_imports(project)
                check_cut(imports, traced, stdlib_members(traced), whole.namelist())
        except (OSError, BundleError):
            return bundle(out_dir, project=project)
    (out_dir / manifest["wheel"]["file"]).unlink(missing_ok=True)
    # The snapshot holds the rules core it was made with: it goes with that wheel.
    for name in (SNAPSHOT, f"{SNAPSHOT}{COMPRESSED_SUFFIX}"):
        (out_dir / name).unlink(missing_ok=True)
    wheel = _compressed(out_dir, entry["file_name"])
    _write_manifest(out_dir, manifest["wasm"], manifest["stdlib"], wheel)
    return bundle_files(out_dir)


def bundle(
    out_dir: Path = DEFAULT_OUT, node_pyodide: Path = NODE_PYODIDE, project: Path = ROOT
) -> list[Path]:
    """Build the whole bundle (the rules core of `project`) in a scratch folder, then move
    it to out_dir."""
    out_dir = Path(out_dir).absolute()
    source = runtime_source(node_pyodide)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{out_dir.name}-", dir=out_dir.parent) as scratch:
        stage = Path(scratch) / "bundle"
        copy_runtime(source, stage)
        wheel = build_wheel(Path(scratch) / "wheel", project)
        register_wheel(stage, wheel)
        (stage / COMPILED_FROM).write_text(_compiled_from(wheel) + "\n", encoding="utf-8")
        (stage / CORE_SOURCES).write_text(_core_sources(project) + "\n", encoding="utf-8")
        traced = trace_imports(stage, project)
        (stage / TRACE_FILE).write_text(
            json.dumps(traced, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        kept = stdlib_members(traced)
        with zipfile.ZipFile(stage / STDLIB) as whole:
            check_cut(core_imports(project), traced, kept, whole.namelist())
        cut_stdlib(stage / STDLIB, kept)
        compile_stdlib(stage / STDLIB)
        compile_bundle(stage)
        prune_lock(stage)
        reproducible(stage)
        make_snapshot(stage)
        compress_bundle(stage)
        bundle_files(stage)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        stage.rename(out_dir)
    return bundle_files(out_dir)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "--compile-stdlib":  # compile_stdlib's own child
        _compile_stdlib(Path(args[1]))
        return 0
    if len(args) > 1:
        print("usage: python -m hooks.package.pyodide_bundle [OUT_DIR]", file=sys.stderr)
        return 1
    out_dir = Path(args[0]) if args else DEFAULT_OUT
    try:
        files = bundle(out_dir)
    except (BundleError, OSError) as error:
        print(f"error: Pyodide bundle: {error}", file=sys.stderr)
        return 1
    size = sum(path.stat().st_size for path in files)
    print(f"Pyodide bundle: {len(files)} files, {size / 1e6:.1f} MB in {out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
