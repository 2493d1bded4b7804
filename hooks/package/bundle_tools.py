"""What every step of the Pyodide bundle shares: the names of its files, and the commands
its steps run (pip, `pyodide`, Node), each failure said in one line (BundleError).

Imported by the standard library's compiling child process too (stdlib_cut.py), which
must not import `typing`: neither does this module.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
# Python's memory with the rules core loaded (make_snapshot.mjs): what the worker starts
# from where the connection is fast enough to fetch it (python-snapshot.mjs).
SNAPSHOT = "rules_core.snapshot"
# The rules core's command line, which the site never runs (and its argparse with it).
COMMAND_LINE = ("rules_core.cli", "rules_core.__main__")
PACKAGE = "rules-core"  # the lock file's (normalised) name
DATA_MEMBER = "rules_core/data/systems.json"
# The date of every member of the compiled archives: the earliest a zip can hold. A fixed
# date, not the commit's, so that the bundle changes only when its sources do.
ARCHIVE_DATE = (1980, 1, 1, 0, 0, 0)


class BundleError(RuntimeError):
    """A step of the bundle failed; the message is one line for the user."""


def run(
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


def pyodide_cli() -> Path:
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


def run_node(script: Path, args: list[str], doing: str) -> str:
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
