"""Bundle Pyodide and the rules_core wheel into one folder the site serves as `indexURL`.

`python -m hooks.package.pyodide_bundle [OUT_DIR]` (default build/pyodide), each step in a
module of its own (bundle_tools: the names and commands they share):

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

import hashlib
import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from hooks.package.bundle_archives import (
    Manifest,
    bundle_files,
    bundle_id,
    compress_bundle,
    compressed_file,
    fix_archive_dates,
    prune_lock,
    reproducible,
    write_manifest,
)
from hooks.package.bundle_tools import (
    ARCHIVE_DATE,
    COMPILED_FROM,
    COMPRESSED_SUFFIX,
    CORE_SOURCES,
    DATA_MEMBER,
    DEFAULT_OUT,
    LOCK_FILE,
    MANIFEST,
    NODE_PYODIDE,
    PACKAGE,
    ROOT,
    RUNTIME_FILES,
    SNAPSHOT,
    STDLIB,
    TRACE_FILE,
    BundleError,
    run_node,
)
from hooks.package.made_from import digest
from hooks.package.rules_core_wheel import (
    build_wheel,
    compile_bundle,
    compiled_from,
    register_wheel,
    swap_data,
)
from hooks.package.stdlib_cut import (
    check_cut,
    compile_stdlib,
    core_imports,
    core_modules,
    cut_stdlib,
    stdlib_members,
    trace_imports,
)

# What the site, the dev server and the tests take from the bundle, through this module.
__all__ = [
    "ARCHIVE_DATE",
    "COMPRESSED_SUFFIX",
    "MANIFEST",
    "SNAPSHOT",
    "TRACE_FILE",
    "BundleError",
    "bundle",
    "bundle_files",
    "bundle_id",
    "check_cut",
    "core_imports",
    "core_modules",
    "is_stale",
    "refresh_wheel",
]

MAKE_SNAPSHOT = Path(__file__).with_name("make_snapshot.mjs")

if TYPE_CHECKING:
    from hooks.package.stdlib_cut import Traced


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


def make_snapshot(stage: Path) -> Path:
    """Python's memory once every calculator has answered for every system, from the
    finished files of `stage` (hooks/package/make_snapshot.mjs): the same files, the same
    bytes. Made after the archives are final: Python keeps their tables of contents."""
    run_node(MAKE_SNAPSHOT, [str(stage), str(stage / SNAPSHOT)], "making Python's snapshot")
    return stage / SNAPSHOT


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
    kept, digest_file = out_dir / entry["file_name"], out_dir / COMPILED_FROM
    with tempfile.TemporaryDirectory(prefix=".wheel-", dir=out_dir.parent) as scratch:
        fresh = Path(make_wheel_in(project / "pyproject.toml", Path(scratch)).file)
        source = compiled_from(fresh)
        code_unchanged = (
            kept.is_file()
            and digest_file.is_file()
            and digest_file.read_text(encoding="utf-8").strip() == source
        )
        if code_unchanged:
            compiled = Path(scratch) / "swapped" / kept.name
            compiled.parent.mkdir()
            swap_data(kept, fresh, compiled)
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
    digest_file.write_text(source + "\n", encoding="utf-8")
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
    wheel = compressed_file(out_dir, entry["file_name"])
    write_manifest(out_dir, manifest["wasm"], manifest["stdlib"], wheel)
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
        (stage / COMPILED_FROM).write_text(compiled_from(wheel) + "\n", encoding="utf-8")
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
