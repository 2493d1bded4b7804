"""The standard library cut to what the calculators import, compiled (steps 4 and 5 of
hooks/package/pyodide_bundle.py).

What Python imports to start and to answer every calculator for every system is found by
running them (trace_imports.mjs, in Node, as the calculators' worker runs them); the cut
keeps those files, and the build stops, naming the module and the line, where the rules
core imports one the cut lacks (an import inside a function that no calculator reached).
The cut is compiled to .pyc as `python -OO` compiles, in a child process of a fixed hash
seed (`python -m hooks.package.stdlib_cut ARCHIVE`), so the same sources give the same bytes.
"""

from __future__ import annotations

import ast
import json
import py_compile
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from hooks.package.bundle_tools import COMMAND_LINE, ROOT, BundleError, run, run_node

TRACE = Path(__file__).with_name("trace_imports.mjs")

# For the type checker only, without importing `typing`: this module is also the child
# process that compiles the standard library (compile_stdlib), and the bytes of the
# typing.pyc it writes change when that process has imported typing itself (marshal shares
# an object referenced from elsewhere): the same sources would no longer give the same bundle.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypedDict

    class Traced(TypedDict):
        """What the calculators' run in Pyodide loaded (trace_imports.mjs): each module with its
        origin (a path in the standard library's zip or elsewhere, "built-in", "frozen", or
        None), and the standard library zip's path."""

        modules: dict[str, str | None]
        stdlib: str


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


def trace_imports(stage: Path, project: Path = ROOT) -> Traced:
    """Run the calculators in Pyodide from `stage` (hooks/package/trace_imports.mjs): each
    module Python loaded, with its origin, and the standard library zip's path."""
    output = run_node(
        TRACE, [str(stage), json.dumps(core_modules(project))], "running the calculators in Pyodide"
    )
    traced: Traced = json.loads(output)
    return traced


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
    run(
        "compiling the standard library",
        [sys.executable, "-m", "hooks.package.stdlib_cut", archive],
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


if __name__ == "__main__":  # compile_stdlib's own child
    if len(sys.argv) != 2:
        print("usage: python -m hooks.package.stdlib_cut ARCHIVE", file=sys.stderr)
        raise SystemExit(1)
    _compile_stdlib(Path(sys.argv[1]))
