"""CONTRIBUTING.md is true: every path it names exists, every command it gives is one the
project has (the quick ones are run), every example it says is taken from a file is in
that file, every error it shows is the one the build prints, and each recipe is done here
in a temporary copy of the project that is then built (the new system's, in
tests/test_new_system.py). The systems are taken from content/systems.yml."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from html import unescape
from pathlib import Path

import pytest
import yaml
from conftest import SITE, built_once
from dev_server import project_copy
from tiny_system import add_tiny_system

from hooks.content.loader import heading_anchor
from hooks.content.yaml_lines import ContentError
from hooks.pages.generate import generate

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "CONTRIBUTING.md"
TEXT = GUIDE.read_text(encoding="utf-8")
LISTED = yaml.safe_load((ROOT / "content" / "systems.yml").read_text(encoding="utf-8"))
SYSTEMS = [str(slug) for slug in LISTED["systems"]]
# What the build and `make setup` write: named in the guide, absent from a fresh clone.
WRITTEN = ("site", "dist", "build", ".venv", "node_modules", "rules_core/data/systems.json")
TOP = (
    "content", "hooks", "tests", "rules_core", "docs", "benchmarks", "overrides", ".github",
    ".ci", "Makefile", "README.md", "CONTRIBUTING.md", "mkdocs.yml", "requirements.txt",
    "package-lock.json", "package.json", "pyproject.toml", *WRITTEN,
)  # fmt: skip


def blocks(text: str = TEXT) -> list[tuple[str, str, int]]:
    """Every fenced block: (language, body as written, offset of the fence in the text); a
    block indented under a list item loses its indent."""
    found = []
    for match in re.finditer(r"(?m)^( *)```(\w*)\n(.*?)^\1```", text, re.S):
        indent = len(match[1])
        body = "\n".join(line[indent:] for line in match[3].split("\n"))
        found.append((match[2], body, match.start()))
    return found


def section(title: str, text: str = TEXT) -> str:
    """A section of the guide, from its heading to the next heading of its level or above."""
    match = re.search(rf"(?m)^(#+) {re.escape(title)}\n", text)
    assert match, f"CONTRIBUTING.md has no section '{title}'"
    level = len(match[1])
    end = re.search(rf"(?m)^#{{1,{level}}} ", text[match.end() :])
    return text[match.end() : match.end() + end.start() if end else len(text)]


# --------------------------------------------------------------------------- paths and commands


def named_paths() -> list[str]:
    """Each path of the repository written in backticks, placeholders such as <system> kept."""
    found = []
    for token in re.findall(r"`([^`\s]+)`", TEXT):
        path = token.rstrip("/")
        if path.split("/")[0] in TOP and "#" not in path and "(" not in path:
            found.append(path)
    return sorted(set(found))


def test_every_path_it_names_exists() -> None:
    paths = named_paths()
    assert len(paths) > 30, paths
    for path in paths:
        if path.startswith(WRITTEN):
            continue
        pattern = re.sub(r"<[a-z]+>", "*", path)
        assert list(ROOT.glob(pattern)), f"CONTRIBUTING.md names {path}, which is not there"


def commands() -> list[str]:
    """The commands of the guide's shell blocks, a line each (comments dropped)."""
    lines = []
    for language, body, _ in blocks():
        if language == "sh":
            for line in body.replace("\\\n", " ").splitlines():
                line = line.split("  #", 1)[0].strip()
                if line:
                    lines.append(line)
    return lines


def make_targets(makefile: str) -> set[str]:
    return set(re.findall(r"(?m)^([a-z][a-z-]*):", makefile))


def test_every_make_target_it_names_is_the_makefiles() -> None:
    targets = make_targets((ROOT / "Makefile").read_text(encoding="utf-8"))
    named = []
    for command in [*re.findall(r"`(make [^`]+)`", TEXT), *commands()]:
        for part in command.split("&&"):
            words = shlex.split(part)
            if words[:1] == ["make"]:
                rest = [word for word in words[1:] if not word.startswith("-")]
                options = [w for i, w in enumerate(words[1:]) if i and words[i] == "-o"]
                named += [word for word in rest if word not in options]
    assert {"serve", "test", "build", "test-fast", "test-browser", "lint", "data"} <= set(named)
    assert set(named) <= targets, set(named) - targets


def test_every_tool_and_module_it_runs_is_installed() -> None:
    for command in commands():
        for part in re.split(r"&&|\|\|", command):
            words = shlex.split(part)
            if not words or not words[0].startswith(".venv/bin/"):
                continue
            assert (ROOT / words[0]).exists(), words[0]
            if "-m" in words:
                module = words[words.index("-m") + 1]
                assert importlib.util.find_spec(module) is not None, module
            for word in words:
                if word.startswith("tests/"):
                    assert (ROOT / word).is_file(), word


def test_the_command_line_examples_it_gives_answer() -> None:
    run = [command for command in commands() if " -m rules_core " in command]
    assert run, "the guide gives the rules core's command line"
    for command in run:
        words = shlex.split(command)
        result = subprocess.run(
            [sys.executable, *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, (command, result.stderr)


def test_the_quick_check_it_gives_checks_the_content(tmp_path: Path) -> None:
    command = next(line for line in commands() if "-m hooks.content.rules_data" in line)
    words = shlex.split(command)
    words[-1] = str(tmp_path / "systems.json")
    subprocess.run([sys.executable, *words[1:]], cwd=ROOT, check=True, timeout=300)
    assert json.loads((tmp_path / "systems.json").read_text("utf-8"))["order"] == SYSTEMS


def test_every_example_said_to_come_from_a_file_is_in_it() -> None:
    """A block after a paragraph saying it is from a file ("From `FILE`", "in `FILE`:") holds
    lines of that file (a YAML block's comments are the guide's; it may leave lines out)."""
    checked = 0
    for language, body, offset in blocks():
        before = TEXT[:offset].rstrip()
        paragraph = before[before.rfind("\n\n") + 2 :]
        named = re.findall(r"(?:[Ff]rom|in)\s+`([^`]+\.(?:yml|md))`", paragraph)
        if not named or language not in ("yaml", "markdown"):
            continue
        lines = (ROOT / named[-1]).read_text(encoding="utf-8").splitlines()
        for line in body.splitlines():
            if language == "yaml":
                line = re.sub(r"\s+# .*$", "", line)
            if line.strip():
                assert line.rstrip() in lines, f"{named[-1]} has no line {line!r}"
        checked += 1
    assert checked >= 6


ERRATUM_OF_36 = (
    'errata:\n  - row: "36"\n    column: d10\n    note: "36 x 5.5 = 198; the table prints 190."\n'
)
# (the file, the text replaced, its replacement): the breakages "When validation fails" shows,
# in its order; each block there is what the build prints for one.
BREAKAGES = [
    ("content/orcus/tables/ability-scores.yml", "\ncolumns:", "\ncolums:"),
    ("content/orcus/glossary.yml", "see: adventuring#long-rest\n", "see: adventuring#long-rests\n"),
    ("content/orcus/pages/combat.md", "\n## Attack Rolls\n", "\n#### Attack Rolls\n"),
    ("content/orcus/rules.yml", "confers: [target-dazed]", "confers: [target-dazd]"),
    ("content/orcus/system.yml", "  - glossary\n", "  - ../notes\n"),
    ("content/into-the-unknown/tables/typical-dc.yml", '["Hard", "15"]', '["Hard", "16"]'),
    ("content/4e-core/pages/combat.md", "prganized", "organized"),
    ("content/3d6-combat/tables/damage-averages.yml", ERRATUM_OF_36, ""),
]  # fmt: skip


def _any_line(said: str) -> str:
    """An error as the guide shows it, its line number left out: an example's line moves
    when a contribution adds lines above it (a situation at the top of a rules.yml), and
    the example still shows the message the build prints."""
    return re.sub(r"^(content error: [^:\s]+):\d+:", r"\1:LINE:", said)


def test_the_errors_it_shows_are_those_the_build_prints(tmp_path: Path) -> None:
    shown = [body.strip() for language, body, _ in blocks(section("When validation fails"))]
    shown = [text for text in shown if text.startswith("content error: ")]
    assert len(shown) == len(BREAKAGES)
    for (file, old, new), said in zip(BREAKAGES, shown, strict=True):
        copy = tmp_path / file.replace("/", "_")
        shutil.copytree(ROOT / "content", copy / "content")
        broken = copy / file
        text = broken.read_text(encoding="utf-8")
        assert text.count(old) >= 1, (file, old)
        broken.write_text(text.replace(old, new, 1), encoding="utf-8")
        with pytest.raises(ContentError) as caught:
            generate(copy, ROOT / "docs")
        printed = f"content error: {caught.value}".replace(f"{copy}/", "")
        assert _any_line(printed) == _any_line(said)


def test_its_way_to_see_an_error_prints_the_first_one(tmp_path: Path) -> None:
    """The shell lines of "When validation fails", run in a copy of the project."""
    steps = [
        language == "sh" and body for language, body, _ in blocks(section("When validation fails"))
    ]
    (script,) = [body for body in steps if body]
    copy = tmp_path / "project"
    for name in ("content", "hooks", "rules_core"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / ".venv").symlink_to(ROOT / ".venv")
    result = subprocess.run(
        ["bash", "-c", script.replace("/tmp/systems.json", str(tmp_path / "systems.json"))],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1
    first = next(
        body for language, body, _ in blocks(section("When validation fails")) if language == "text"
    )
    assert _any_line(result.stderr.strip().replace(f"{copy}/", "")) == _any_line(first.strip())


# --------------------------------------------------------------------------- the recipes


def recipes() -> list[str]:
    return re.findall(r"(?m)^### (.+)$", section("Recipes"))


# Each recipe and the test that follows it; the code recipes, the tests that fail when a
# step is forgotten (each recipe's "What fails if a place is forgotten").
WALKED = {
    "Fix a typo": "tests/test_contributing.py::test_recipe_fix_a_typo",
    "Record an erratum": "tests/test_contributing.py::test_recipe_record_an_erratum",
    "Add an attack situation": "tests/test_contributing.py::test_recipe_add_an_attack_situation",
    "Add a glossary term": "tests/test_contributing.py::test_recipe_add_a_glossary_term",
    "Add a table": "tests/test_contributing.py::test_recipe_add_a_table",
    "Add a concept to the comparison pages": "tests/test_contributing.py::test_recipe_add_a_comparison_concept",  # noqa: E501
    "Add a whole new system": "tests/test_new_system.py",
    "Add a calculator": "tests/test_calculator_pages.py",
    "Add a new effect kind": "tests/test_effect_vocabulary.py",
}  # fmt: skip


def test_every_recipe_is_followed_by_a_test() -> None:
    assert recipes() == list(WALKED)
    for test in WALKED.values():
        file, _, name = test.partition("::")
        source = (ROOT / file).read_text(encoding="utf-8")
        assert not name or f"def {name}(" in source, test
        assert file in TEXT or file == "tests/test_contributing.py", f"the guide names {file}"


def _build(project: Path) -> Path:
    """What `make build` runs after its setup: the rules data, then the strict build."""
    for command in (
        [sys.executable, "-m", "hooks.content.rules_data", "rules_core/data/systems.json"],
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", "site"],
    ):
        result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return project / "site"


def _system(project: Path, wanted: Callable[[Path], bool] = lambda folder: True) -> Path:
    """The folder of the first system of content/systems.yml that has what a test needs."""
    for slug in SYSTEMS:
        folder = project / "content" / slug
        if wanted(folder):
            return folder
    raise AssertionError("no system has what this recipe needs")


def _pages(folder: Path) -> list[str]:
    return [str(name) for name in yaml.safe_load((folder / "system.yml").read_text())["pages"]]


def _prose(markdown: str) -> list[str]:
    """A page's plain paragraphs of a few sentences: no heading, list, table, note or markup."""
    return [
        line
        for line in markdown.splitlines()
        if len(line.split()) > 12 and re.fullmatch(r"[A-Z][A-Za-z0-9 ,;:'.()-]+\.", line)
    ]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _in_order(needle: list[str], haystack: list[str]) -> bool:
    size = len(needle)
    return any(haystack[i : i + size] == needle for i in range(len(haystack) - size + 1))


# The recipes are done one after the other in one copy of the project, built once (each
# edits what the one before left, as a contributor's branch would): each test then reads
# what its recipe gave, and CI's fast tier is run in it. A recipe's way of failing (a
# misspelt name, a wrong cell) is tried in a copy of its own.


def _fix_a_typo(project: Path) -> dict:
    """Our typo, a word of a page that differs from the source text, refused by the build
    at its line, then corrected to the text: what the build said of it."""
    folder = _system(project)
    name = _pages(folder)[0]
    page = folder / "pages" / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    source = _words((folder / "source.txt").read_text(encoding="utf-8"))
    # Step 2: the pages follow the text word for word.
    line = next(line for line in _prose(text) if _in_order(_words(line), source))
    word = max(line.split(), key=len).strip(".,;:()")
    typo = line.replace(word, word[::-1], 1)
    page.write_text(text.replace(line, typo, 1), encoding="utf-8")  # the typo a reader reports
    assert not _in_order(_words(typo), source)
    with pytest.raises(ContentError) as caught:
        generate(project, project / "docs")
    refused = {
        "path": caught.value.path,
        "line": caught.value.line,
        "message": caught.value.message,
        "expected_path": str(page),
        "expected_line": text[: text.index(line)].count("\n") + 1,
    }
    # Step 3: correct it to the source, and nothing else.
    page.write_text(page.read_text(encoding="utf-8").replace(typo, line, 1), encoding="utf-8")
    return {"slug": folder.name, "name": name, "word": word, "refused": refused}


def _record_an_erratum(project: Path) -> dict:
    """The recipe's note after the first plain paragraph of the first system's last page."""
    example = next(
        body for lang, body, _ in blocks(section("Record an erratum")) if lang == "markdown"
    )
    opening = next(line for line in example.splitlines() if line.startswith("!!! erratum"))
    folder = _system(project)
    name = _pages(folder)[-1]
    page = folder / "pages" / f"{name}.md"
    text = page.read_text(encoding="utf-8")
    paragraph = _prose(text)[0]
    note = 'The text says "this"; "that" is meant (a note of the contributing test).'
    page.write_text(text.replace(paragraph, f"{paragraph}\n\n{opening}\n    {note}", 1), "utf-8")
    before = text[: text.index(paragraph)]
    heading = re.findall(r"(?m)^#+ (.+)$", before)[-1]
    return {"slug": folder.name, "name": name, "heading": heading}


def _rules_with_situations(folder: Path) -> bool:
    rules = folder / "rules.yml"
    return rules.exists() and "\n  situations:\n" in rules.read_text(encoding="utf-8")


def _cli(project: Path, *args: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "rules_core", "attack", *args, "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _add_a_situation(folder: Path) -> tuple[str, Path, str]:
    """A situation of its own added by the recipe to a system's rules.yml, conferring
    another (one giving a roll mode where the text gives advantage dice), with a reading
    that quotes its sentence: (the system, its rules.yml, the situation conferred)."""
    rules = folder / "rules.yml"
    text = rules.read_text(encoding="utf-8")
    attack = yaml.safe_load(text)["attack"]
    # A situation of its own: no branch, no attack type to give on the command line.
    plain = ("when", "attack_type", "attack_types", "confers", "prevents")
    candidates = [(k, v) for k, v in attack["situations"].items() if not set(plain) & set(v)]
    if "advantage" in attack:
        candidates.sort(key=lambda item: not ({"advantage", "disadvantage"} & set(item[1])))
    other, entry = candidates[0]
    cite = entry["cite"][0]
    words = " ".join(cite["quote"].split()[:5])
    added = (
        "    contributing-blessing:\n"
        "      label: Blessed by the contributing test\n"
        "      side: attacker\n"
        "      attack: 3\n"
        f"      confers: [{other}]\n"
        "      cite:\n"
        f"        - see: {cite['see']}\n"
        f"          quote: {json.dumps(cite['quote'])}\n"
        f"      interpretation: {json.dumps(f'The contributing test reads "{words}" so.')}\n"
    )
    rules.write_text(text.replace("\n  situations:\n", f"\n  situations:\n{added}", 1), "utf-8")
    return folder.name, rules, other


def _add_attack_situations(project: Path) -> dict:
    """The situation in every system that has situations: the first of them, to test."""
    added = [
        _add_a_situation(project / "content" / slug)
        for slug in SYSTEMS
        if _rules_with_situations(project / "content" / slug)
    ]
    slug, _, other = added[0]
    return {"slug": slug, "other": other}


def _term_to_add(folder: Path) -> tuple[str, str, str]:
    """A word the text uses that could be a new term: (the page, the anchor of its first
    section, the word), the word said once on that page, in the plain prose of its second
    section, and named by no glossary entry of the system (so its mention is the entry's
    to link, outside the section `see` points at)."""
    forms = " ".join(
        str(form)
        for entry in yaml.safe_load((folder / "glossary.yml").read_text(encoding="utf-8"))
        for form in [entry["term"], entry.get("plural") or "", *(entry.get("aliases") or [])]
    ).lower()
    for name in _pages(folder):
        text = (folder / "pages" / f"{name}.md").read_text(encoding="utf-8")
        headings = re.findall(r"(?m)^(#{2,4}) (.+)$", text)
        if len(headings) < 2:
            continue
        marker = f"{headings[1][0]} {headings[1][1]}\n"
        section = text[text.index(marker) + len(marker) :].split("\n#", 1)[0]
        for line in _prose(section):
            for word in re.findall(r"[a-z]{7,}", line):
                if len(re.findall(rf"\b{word}\b", text, re.I)) == 1 and word not in forms:
                    return name, heading_anchor(headings[0][1])[1], word
    raise AssertionError(f"no page of {folder.name} has a word fit for a new term")


def _add_a_glossary_term(project: Path) -> dict:
    """An entry of the first system for a word its text uses."""
    folder = _system(project)
    name, anchor, word = _term_to_add(folder)
    glossary = folder / "glossary.yml"
    entry = (
        f"- term: {word.capitalize()}\n"
        "  kind: rule\n"
        "  plural: null\n"
        "  aliases: []\n"
        "  definition: The contributing test's term, for a word of its own.\n"
        f"  see: {name}#{anchor}\n"
    )
    glossary.write_text(glossary.read_text(encoding="utf-8").rstrip("\n") + "\n" + entry, "utf-8")
    return {"slug": folder.name, "name": name, "anchor": anchor, "word": word}


def _guides_table() -> dict:
    example = next(body for lang, body, _ in blocks(section("Add a table")) if lang == "yaml")
    table = yaml.safe_load(example)
    table.pop("calculator", None)
    return table


def _add_a_table(project: Path) -> dict:
    """The guide's example table, as written there, placed on the first system's first page."""
    folder = _system(project)
    (folder / "tables").mkdir(exist_ok=True)
    written = yaml.safe_dump(
        _guides_table(), default_flow_style=None
    )  # a row a line, as in the guide
    (folder / "tables" / "contributing-test.yml").write_text(written, "utf-8")
    name = _pages(folder)[0]
    page = folder / "pages" / f"{name}.md"
    page.write_text(page.read_text("utf-8") + "\n[[table:contributing-test]]\n", "utf-8")
    return {"slug": folder.name, "name": name}


def _add_a_comparison_concept(project: Path) -> dict:
    """A concept quoting the first sentence of the first system's first page, the others
    silent: the quote."""
    folder = _system(project)
    name = _pages(folder)[0]
    text = (folder / "pages" / f"{name}.md").read_text(encoding="utf-8")
    quote = _prose(text)[0].split(". ")[0].rstrip(".") + "."
    compare = project / "content" / "compare.yml"
    data = yaml.safe_load(compare.read_text(encoding="utf-8"))
    data["concepts"].append(
        {
            "slug": "contributing-test",
            "title": "The contributing test",
            "summary": "A concept the contributing test adds.",
            "systems": {slug: [] for slug in SYSTEMS}
            | {folder.name: [{"see": name, "quote": quote}]},
        }
    )
    compare.write_text(
        yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000), "utf-8"
    )
    return {"quote": quote}


RECIPES = {
    "fix a typo": _fix_a_typo,
    "record an erratum": _record_an_erratum,
    "add an attack situation": _add_attack_situations,
    "add a glossary term": _add_a_glossary_term,
    "add a table": _add_a_table,
    "add a comparison concept": _add_a_comparison_concept,
}


def _do_every_recipe(folder: Path) -> None:
    """Every content recipe done in one copy of the project, then a whole new system added
    (tests/test_new_system.py builds and checks it in a clone of its own), then built."""
    project = project_copy(ROOT, folder / "project")
    done = {recipe: do(project) for recipe, do in RECIPES.items()}
    add_tiny_system(project)
    (folder / "done.json").write_text(json.dumps(done), "utf-8")
    _build(project)


@pytest.fixture(scope="module")
def recipes_done(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    """(the project with every recipe done and built, what each recipe did): made once for
    the run. Read only (the unit tier run in it writes only Python's caches)."""
    folder = built_once(tmp_path_factory, "contributing-recipes", _do_every_recipe)
    return folder / "project", json.loads((folder / "done.json").read_text("utf-8"))


def _content_copy(project: Path, copy: Path, *names: str) -> Path:
    """A copy of the parts of the done project that a check of its own changes."""
    for name in ("content", *names):
        shutil.copytree(project / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


@SITE
def test_recipe_fix_a_typo(recipes_done) -> None:
    project, done = recipes_done
    typo = done["fix a typo"]
    # The build refused the typo at its line, with the text's words: where the reader's
    # report leads.
    refused, word = typo["refused"], typo["word"]
    assert (refused["path"], refused["line"]) == (
        refused["expected_path"],
        refused["expected_line"],
    )
    assert f"'{word[::-1]}' where the text has '{word}'" in refused["message"]
    html = (project / "site" / typo["slug"] / typo["name"] / "index.html").read_text("utf-8")
    assert word in html and word[::-1] not in html
    # Step 1: the page's edit button opens that file.
    assert f"/edit/main/content/{typo['slug']}/pages/{typo['name']}.md" in html


@SITE
def test_recipe_record_an_erratum(recipes_done) -> None:
    """A note in the guide's format after a paragraph: shown there, and listed with a link
    to its section on the system's Source page."""
    project, done = recipes_done
    erratum = done["record an erratum"]
    site, name = project / "site", erratum["name"]
    html = (site / erratum["slug"] / name / "index.html").read_text(encoding="utf-8")
    assert re.search(
        r'<div class="admonition erratum">\s*<p class="admonition-title">Erratum</p>', html
    )
    assert "a note of the contributing test" in html
    title = re.escape(erratum["heading"].split(" {#")[0])
    anchor = re.search(r'<h[1-6][^>]* id="([^"]+)"[^>]*>' + title, html)
    assert anchor, erratum["heading"]
    listed = (site / erratum["slug"] / "source" / "index.html").read_text(encoding="utf-8")
    assert f'href="../{name}/#{anchor[1]}"' in listed


@SITE
def test_recipe_add_an_attack_situation(recipes_done, tmp_path: Path) -> None:
    """A situation added as data, citing a sentence of the text: offered by the attack
    calculator, applied by the command line, listed on the GM screen; a misspelt name it
    gives stops `make data` at its line."""
    project, done = recipes_done
    slug, other = done["add an attack situation"]["slug"], done["add an attack situation"]["other"]
    site = project / "site"
    common = ["--system", slug, "--bonus", "6", "--defense", "16"]
    with_it = _cli(project, *common, "--situation", "contributing-blessing")
    alone = _cli(project, *common, "--situation", other)
    assert with_it["attack_modifier"] == alone["attack_modifier"] + 3
    assert Fraction(with_it["hit"]) >= Fraction(alone["hit"])
    assert any(
        because["source"].startswith("Blessed by the contributing test")
        for because in with_it["because"]
    )
    attack = (site / "calculators" / "attack" / "index.html").read_text(encoding="utf-8")
    assert "Blessed by the contributing test" in attack
    screen = (site / slug / "gm-screen" / "index.html").read_text(encoding="utf-8")
    assert "Blessed by the contributing test" in screen
    # The build checks the names it gives.
    copy = _content_copy(project, tmp_path / "project", "hooks", "rules_core")
    rules = copy / "content" / slug / "rules.yml"
    broken = rules.read_text(encoding="utf-8").replace(
        f"confers: [{other}]", f"confers: [{other}x]", 1
    )
    rules.write_text(broken, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "hooks.content.rules_data", "rules_core/data/systems.json"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
    )
    line = broken[: broken.index(f"[{other}x]")].count("\n") + 1
    assert result.returncode == 1
    assert f"{rules}:{line}: " in result.stderr and f"did you mean '{other}'" in result.stderr


@SITE
def test_recipe_add_a_glossary_term(recipes_done) -> None:
    """A new entry for a word the text uses: listed on the Terms page under its kind, and its
    first mention in a section of the system's pages linked to `see`, with the definition
    to show."""
    project, done = recipes_done
    term = done["add a glossary term"]
    site, anchor, word = project / "site", term["anchor"], term["word"]
    html = (site / term["slug"] / term["name"] / "index.html").read_text(encoding="utf-8")
    link = next(
        tag for tag, said in re.findall(r"(<a [^>]*>)([^<]*)</a>", html) if said.lower() == word
    )
    assert 'class="term-link"' in link, "the first mention links to the term"
    assert re.search(rf'href="[^"]*#{anchor}"', link)
    assert "for a word of its own" in unescape(re.search(r'data-definition="([^"]*)"', link)[1])
    terms = (site / term["slug"] / "terms" / "index.html").read_text(encoding="utf-8")
    assert word.capitalize() in terms


@SITE
def test_recipe_add_a_table(recipes_done, tmp_path: Path) -> None:
    """A table written as data in the guide's format and placed on a page: shown there under
    its anchor, its numbers recomputed by the check it declares."""
    project, done = recipes_done
    table = done["add a table"]
    html = (project / "site" / table["slug"] / table["name"] / "index.html").read_text("utf-8")
    assert 'id="table-contributing-test"' in html
    assert _guides_table()["title"] in html
    # A cell the text does not print stops the build, at its row.
    copy = _content_copy(project, tmp_path / "project", "docs")
    wrong = _guides_table()
    wrong["rows"][-1][-1] = "+9"
    written = yaml.safe_dump(wrong, default_flow_style=None)
    (copy / "content" / table["slug"] / "tables" / "contributing-test.yml").write_text(
        written, "utf-8"
    )
    with pytest.raises(ContentError) as caught:
        generate(copy, copy / "docs")
    assert caught.value.path.endswith("tables/contributing-test.yml")
    assert caught.value.line == written[: written.index("+9")].count("\n") + 1
    assert (
        '"30 +9"' in caught.value.message and "'9' where the text has '10'" in caught.value.message
    )


@SITE
def test_recipe_add_a_comparison_concept(recipes_done) -> None:
    """A concept quoting a sentence of the first system, the others silent: its page, the
    systems side by side, and its edit button to compare.yml."""
    project, done = recipes_done
    quote, site = done["add a comparison concept"]["quote"], project / "site"
    html = (site / "compare" / "contributing-test" / "index.html").read_text(encoding="utf-8")
    assert "The contributing test" in html and quote in unescape(html)
    assert "/edit/main/content/compare.yml" in html
    assert 'href="contributing-test/"' in (site / "compare" / "index.html").read_text("utf-8")


def unit_tier(project: Path) -> None:
    """CI's fast tier as far as content goes: every test of the `unit` tier (the rules core
    on the compiled data, the content's checks, the guides), run in the project given, with
    this checkout's installed packages (the guide names the tools of .venv)."""
    if not (project / ".venv").exists():
        (project / ".venv").symlink_to(ROOT / ".venv")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "unit", "-q", "-x", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=1800,
        # A tenth of the fuzzer's random cases (test_fuzz.py's FUZZ_SCALE): they try this
        # checkout's code, which the run's own unit tier has just tried with every case;
        # here they only need to meet the recipes' content, which every hostile-value test
        # walks whole. The random cases were most of test_fuzz.py's 42 s, of the tier's 132 s
        # (run alone).
        env={**os.environ, "FUZZ_SCALE": "0.1"},
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]


@SITE
@pytest.mark.longest
def test_the_recipes_followed_together_pass_the_tests_ci_runs(recipes_done) -> None:
    """The content recipes done together in one copy of the project (a situation in every
    system that has situations), and a whole new system added: the copy builds, and the
    tests CI runs on content pass in it, not only the build (the browser tier and the Node
    tests are not run here). One run of the tier for every recipe: it is the suite's
    longest test."""
    project, _ = recipes_done
    unit_tier(project)
