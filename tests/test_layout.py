"""The hooks' packages import in one direction: content -> pages -> postprocess -> package.

A package may import itself and those before it, never one after it (content reads
content/, pages turn it into Markdown, postprocess works on the built HTML, package
finishes and ships the site); `hooks/mkdocs_hooks.py`, the one MkDocs adapter, may
import them all and nothing imports it. Read from the source with `ast`, so an import
inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("content", "pages", "postprocess", "package")
ADAPTER = "mkdocs_hooks"


def imported(tree: ast.Module, package: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every module an `import` or `from ... import` names; a
    relative import is resolved against `package` (the importing module's package)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                module = ".".join(parts[: len(parts) - node.level + 1])
                module += f".{node.module}" if node.module else ""
            else:
                module = node.module or ""
            # `from hooks import pages` imports the package hooks.pages itself.
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def violations(hooks: Path) -> list[str]:
    """Each import against the direction, as "hooks/FILE:LINE: ..."."""
    problems = []
    for path in sorted(hooks.rglob("*.py")):
        relative = path.relative_to(hooks.parent)
        parts = relative.with_suffix("").parts  # ("hooks", "pages", "site")
        if parts[1] == ADAPTER:
            continue
        own = parts[1]
        package = ".".join(parts[:-1])  # the package a relative import starts from
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, name in imported(tree, package):
            target = name.split(".")
            if target[0] != "hooks" or len(target) < 2:
                continue
            where = f"{relative.as_posix()}:{line}"
            if target[1] == ADAPTER:
                problems.append(f"{where}: imports {name}, the MkDocs adapter, which imports all")
            elif own not in ORDER:
                problems.append(f"{where}: hooks/{own} is not one of {', '.join(ORDER)}")
            elif target[1] in ORDER and ORDER.index(target[1]) > ORDER.index(own):
                problems.append(
                    f"{where}: hooks/{own} imports {name}, of hooks/{target[1]}, which comes "
                    f"after it ({' -> '.join(ORDER)})"
                )
    return problems


def test_the_hooks_packages_import_in_one_direction() -> None:
    assert violations(ROOT / "hooks") == []


def test_the_check_names_the_file_and_line_of_an_import_against_the_direction(
    tmp_path: Path,
) -> None:
    hooks = tmp_path / "hooks"
    for package in ORDER:
        (hooks / package).mkdir(parents=True)
        (hooks / package / "__init__.py").write_text("", encoding="utf-8")
    (hooks / "content" / "early.py").write_text(
        "import json\nfrom hooks.content import later\n\n\ndef f():\n"
        "    from hooks.postprocess.sanitize import clean\n",
        encoding="utf-8",
    )
    (hooks / "pages" / "relative.py").write_text("from ..package import offline\n", "utf-8")
    (hooks / "package" / "last.py").write_text(
        "import hooks.content.loader\nfrom hooks import pages\n", encoding="utf-8"
    )
    (hooks / "mkdocs_hooks.py").write_text("from hooks.package import last\n", "utf-8")
    problems = violations(hooks)
    assert len(problems) == 2, problems
    assert problems[0].startswith("hooks/content/early.py:6: hooks/content imports ")
    assert "hooks.postprocess.sanitize" in problems[0]
    assert problems[1].startswith("hooks/pages/relative.py:1: hooks/pages imports hooks.package")
