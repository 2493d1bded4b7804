"""Bundle Pyodide and the rules_core wheel into one folder the site serves as `indexURL`.

`python -m hooks.package.pyodide_bundle [OUT_DIR]` (default build/pyodide):

1. copies the runtime files `loadPyodide` fetches from node_modules/pyodide/ (installed
   from package-lock.json by `npm ci`), so no page needs a CDN;
2. builds the rules_core wheel with pip and flit_core, offline (no build isolation), and
   checks the compiled rules data is inside it;
3. adds the wheel to the copied pyodide-lock.json (`pyodide lockfile add-wheels`);
4. compiles the wheel and the standard library to .pyc (`pyodide py-compile`, which
   rewrites the lock file to the compiled wheel), and drops from the lock file every
   package whose file is not in the bundle, so the bundle lists only what it serves;
5. makes the result reproducible: hash-based .pyc (SOURCE_DATE_EPOCH set for the compile
   step) and one fixed date for every member of the compiled archives, so the same
   sources give the same bytes, and a deploy that changes only pages changes no file here.

The bundle is assembled in a scratch folder and moved into place only when every step
has passed, so OUT_DIR is either a complete bundle or absent. `bundle_files(OUT_DIR)`
lists a finished bundle's files for the MkDocs hook to copy, and `bundle_id(OUT_DIR)` names
them: the site serves the bundle under `assets/pyodide/<id>/`, so a page of one build can
never load the runtime, lock file or wheel of another, from a cache or a service worker.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

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
PACKAGE = "rules-core"  # the lock file's (normalised) name
DATA_MEMBER = "rules_core/data/systems.json"
# The date of every member of the compiled archives: the earliest a zip can hold. A fixed
# date, not the commit's, so that the bundle changes only when its sources do.
ARCHIVE_DATE = (1980, 1, 1, 0, 0, 0)


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


def compile_bundle(out_dir: Path) -> None:
    """Compile the wheel and the standard library to .pyc; the lock file follows."""
    # With SOURCE_DATE_EPOCH set, py_compile writes hash-based .pyc files: no timestamp.
    _run(
        "pyodide py-compile",
        [_pyodide_cli(), "py-compile", "--silent", out_dir],
        env={"SOURCE_DATE_EPOCH": "315532800"},
    )


def fix_archive_dates(archive: Path) -> None:
    """Rewrite a zip with every member dated ARCHIVE_DATE, in the same order, so that
    compiling the same sources twice gives the same bytes."""
    staged = archive.with_name(archive.name + ".tmp")
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(staged, "w") as target:
        for member in source.infolist():
            fixed = zipfile.ZipInfo(member.filename, date_time=ARCHIVE_DATE)
            fixed.compress_type = member.compress_type
            fixed.external_attr = member.external_attr
            target.writestr(fixed, source.read(member))
    staged.replace(archive)


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


def prune_lock(out_dir: Path) -> dict:
    """Keep in the lock file only the packages whose file the bundle holds."""
    lock_path = out_dir / LOCK_FILE
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
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
    """The files of a finished bundle: the runtime and every package its lock file lists."""
    out_dir = Path(out_dir)
    lock_path = out_dir / LOCK_FILE
    if not lock_path.is_file():
        raise BundleError(f"no Pyodide bundle in {out_dir}: run `make setup`")
    lock = json.loads(lock_path.read_text(encoding="utf-8"))
    names = [*RUNTIME_FILES, *sorted(entry["file_name"] for entry in lock["packages"].values())]
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


def is_stale(out_dir: Path = DEFAULT_OUT, project: Path = ROOT) -> bool:
    """Whether the rules core's sources or data changed since the bundle was built (what
    the Makefile's rule for it checks, for the dev server)."""
    lock = out_dir / "pyodide-lock.json"
    if not lock.is_file():
        return True
    sources = [*(project / "rules_core").rglob("*.py"), *(project / "rules_core").rglob("*.json")]
    sources.append(project / "pyproject.toml")
    built = lock.stat().st_mtime
    return any(source.stat().st_mtime > built for source in sources if source.is_file())


def refresh_wheel(out_dir: Path = DEFAULT_OUT, project: Path = ROOT) -> list[Path]:
    """Rebuild only the rules_core wheel of a finished bundle, in this process: the dev
    server's way after a rules.yml or rules core edit, in a few tenths of a second where
    `bundle` takes seconds (the runtime and its compiled standard library do not change).

    The same steps as `bundle` give the same bytes: the wheel by the same flit_core build
    `pip wheel` runs, compiled by the function `pyodide py-compile` runs, dated as
    `reproducible` dates it, and its lock file entry takes the new digest (its name, its
    imports and dependencies are the project's and do not change)."""
    from flit_core.wheel import make_wheel_in
    from pyodide_build._py_compile import _py_compile_archive

    out_dir = Path(out_dir)
    lock_path = out_dir / LOCK_FILE
    lock = json.loads(lock_path.read_text(encoding="utf-8")) if lock_path.is_file() else {}
    entry = lock.get("packages", {}).get(PACKAGE)
    if entry is None:
        raise BundleError(f"no rules_core wheel in {out_dir} to refresh: run `make setup`")
    if not (project / DATA_MEMBER).is_file():
        raise BundleError(f"{DATA_MEMBER} is missing: run `make data` first")
    with tempfile.TemporaryDirectory(prefix=".wheel-", dir=out_dir.parent) as scratch:
        built = make_wheel_in(project / "pyproject.toml", Path(scratch))
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = "315532800"  # hash-based .pyc, as compile_bundle
        try:
            compiled = _py_compile_archive(Path(built.file), keep=False, verbose=False)
        finally:
            if epoch is None:
                del os.environ["SOURCE_DATE_EPOCH"]
            else:
                os.environ["SOURCE_DATE_EPOCH"] = epoch
        if compiled is None or compiled.name != entry["file_name"]:
            raise BundleError(f"the compiled wheel is not {entry['file_name']}: run `make setup`")
        fix_archive_dates(compiled)
        entry["sha256"] = hashlib.sha256(compiled.read_bytes()).hexdigest()
        compiled.replace(out_dir / entry["file_name"])
    lock_path.write_text(json.dumps(lock, indent=2, sort_keys=True) + "\n", encoding="utf-8")
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
        compile_bundle(stage)
        prune_lock(stage)
        reproducible(stage)
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
