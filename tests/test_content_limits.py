"""Content files are read within limits, and every refusal names the file and the line.

A contributor's file that is too big, not UTF-8, built on YAML features content never
needs (anchors and aliases, merge keys, tags, deep nesting) or named with something other
than a slug stops the load at its line, quickly, with no traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hooks.content.loader import load_content, load_system
from hooks.content.yaml_lines import MAX_FILE_BYTES, MAX_YAML_DEPTH, ContentError, load_yaml
from tests.test_hooks_content import COMBAT_MD, SOURCE_TXT, SYSTEM_YML, make_system

ROOT = Path(__file__).resolve().parent.parent

# Nine levels of nine aliases each: about 387 million strings once expanded, from 600 bytes.
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]\n"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
)


def yaml_error(tmp_path: Path, text: str | bytes) -> ContentError:
    path = tmp_path / "file.yml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        load_yaml(path)
    assert caught.value.path == str(path)
    return caught.value


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    assert len(ALIAS_BOMB) < 1000
    started = time.perf_counter()
    error = yaml_error(tmp_path, ALIAS_BOMB)
    assert time.perf_counter() - started < 0.5
    assert error.line == 1
    assert "anchors" in error.message


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("first: 1\nloop: &loop [*loop]\n", 2, "anchors"),
        ("base: {a: 1}\nother:\n  <<: {a: 2}\n  b: 3\n", 3, "merge keys"),
        ("title: !!str 12\n", 1, "tag"),
        ("title: !custom x\n", 1, "tag"),
        ("title: x\n  bad: indent\n", 2, "invalid YAML"),
    ],
)
def test_yaml_features_content_never_needs_are_refused_at_their_line(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    error = yaml_error(tmp_path, text)
    assert error.line == line
    assert words in error.message


def test_deep_nesting_is_refused_at_the_level_past_the_limit(tmp_path: Path) -> None:
    deep = "".join(f"{'  ' * level}k:\n" for level in range(100)) + ("  " * 100) + "v\n"
    error = yaml_error(tmp_path, "x: " + "[" * 20_000 + "]" * 20_000 + "\n")
    assert error.line == 1
    assert f"{MAX_YAML_DEPTH} levels" in error.message
    error = yaml_error(tmp_path, deep)
    assert error.line == MAX_YAML_DEPTH + 1


def test_non_utf8_yaml_names_its_line_and_byte(tmp_path: Path) -> None:
    error = yaml_error(tmp_path, b"title: Test\nsummary: caf\xe9 au lait\n")
    assert error.line == 2
    assert "0xe9" in error.message and "UTF-8" in error.message


def test_an_oversized_yaml_file_is_refused_unread(tmp_path: Path) -> None:
    error = yaml_error(tmp_path, "rows:\n" + '  - ["1", "2"]\n' * (MAX_FILE_BYTES // 10))
    assert error.line is None
    assert "over the limit" in error.message


def load_error(folder: Path) -> ContentError:
    with pytest.raises(ContentError) as caught:
        load_system(folder)
    return caught.value


def test_a_page_that_is_not_utf8_is_refused_at_its_line(tmp_path: Path) -> None:
    folder = make_system(tmp_path)
    (folder / "pages" / "combat.md").write_bytes(COMBAT_MD.encode() + b"\nna\xefve\n")
    error = load_error(folder)
    assert error.path == str(folder / "pages" / "combat.md")
    assert error.line == COMBAT_MD.count("\n") + 2


def test_an_oversized_page_is_refused(tmp_path: Path) -> None:
    paragraph = "The attacker rolls a d20 and adds the bonus. " * 20 + "\n\n"
    big = COMBAT_MD + paragraph * (MAX_FILE_BYTES // len(paragraph) + 1)
    error = load_error(make_system(tmp_path, **{"pages/combat.md": big}))
    assert error.path.endswith("combat.md")
    assert "over the limit" in error.message


def test_a_page_just_under_the_limit_loads_quickly(tmp_path: Path) -> None:
    paragraph = "The attacker rolls a d20 and adds the bonus against the cover. " * 10 + "\n\n"
    big = COMBAT_MD + "\n" + paragraph * ((MAX_FILE_BYTES - len(COMBAT_MD)) // len(paragraph) - 1)
    assert len(big.encode()) <= MAX_FILE_BYTES
    started = time.perf_counter()
    # The source text prints it too: the build checks the page's every sentence against it.
    printed = SOURCE_TXT + big.removeprefix(COMBAT_MD)
    assert len(printed.encode()) <= MAX_FILE_BYTES
    system = load_system(make_system(tmp_path, **{"pages/combat.md": big, "test.txt": printed}))
    assert "combat" in system.pages
    assert time.perf_counter() - started < 10


@pytest.mark.parametrize(
    "name", ["../../x", "Combat", "com bat", "a/b", 'x"y', "<b>", "-x", "x--y"]
)
def test_a_page_name_must_be_a_slug(tmp_path: Path, name: str) -> None:
    system_yml = SYSTEM_YML + f"  - {json.dumps(name)}\n"
    folder = make_system(tmp_path, **{"system.yml": system_yml})
    error = load_error(folder)
    assert error.path == str(folder / "system.yml")
    assert error.line == system_yml.count("\n")
    assert "not a valid name" in error.message


def test_a_page_file_and_a_table_file_must_be_slugs(tmp_path: Path) -> None:
    folder = make_system(tmp_path)
    (folder / "pages" / "Bad Name.md").write_text("# Bad\n", encoding="utf-8")
    error = load_error(folder)
    assert error.path == str(folder / "pages" / "Bad Name.md")
    assert "not a valid name" in error.message
    (folder / "pages" / "Bad Name.md").unlink()
    shutil.move(folder / "tables" / "modifiers.yml", folder / "tables" / "Modifiers.yml")
    error = load_error(folder)
    assert error.path == str(folder / "tables" / "Modifiers.yml")


def test_a_system_slug_must_be_a_slug(tmp_path: Path) -> None:
    make_system(tmp_path)
    (tmp_path / "systems.yml").write_text('systems:\n  - test\n  - "../x"\n', encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        load_content(tmp_path)
    assert caught.value.path == str(tmp_path / "systems.yml")
    assert caught.value.line == 3


def test_the_build_prints_file_and_line_not_a_traceback(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(
        ROOT,
        clone,
        ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "site", "dist", "test-*"),
        symlinks=True,
    )
    glossary = (
        clone
        / "content"
        / next(
            line.strip()[2:]
            for line in (ROOT / "content/systems.yml").read_text().splitlines()
            if line.strip().startswith("- ")
        )
        / "glossary.yml"
    )
    glossary.write_text(ALIAS_BOMB, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        cwd=clone,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=120,
    )
    assert result.returncode != 0
    assert f"content error: {glossary}:1: anchors" in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
