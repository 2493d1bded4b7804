"""What content/ prints stands in its source text (hooks/content/source_text.py): every
sentence, heading and table row of every system of content/systems.yml is the text's,
and one changed away from it is refused at its file and line, with the text's words."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from hooks.content.loader import load_content, load_system
from hooks.content.source_text import check_source, source_text, words
from hooks.content.yaml_lines import ContentError
from hooks.pages.site import render_system
from tests.test_hooks_content import COMBAT_MD, SOURCE_TXT, make_system

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
SYSTEMS = [str(slug) for slug in yaml.safe_load((CONTENT / "systems.yml").read_text())["systems"]]


@pytest.fixture(scope="module")
def systems():
    return load_content(CONTENT)


@pytest.mark.parametrize("slug", SYSTEMS)
def test_every_system_prints_only_its_texts_words(systems, slug: str) -> None:
    check_source(systems[slug])  # load_content checked it too: this names the system


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "content"
    shutil.copytree(CONTENT, copy)
    return copy


def _refused(copy: Path, path: Path) -> ContentError:
    """The refusal of the system whose file `path` is, loaded alone as load_content loads
    each system (the others, unchanged, would only be read again)."""
    with pytest.raises(ContentError) as caught:
        load_system(copy / path.relative_to(copy).parts[0])
    assert caught.value.path == str(path), caught.value
    return caught.value


def _number_changed(cell: str) -> tuple[str, str, str] | None:
    """(the cell with its first number one more, that number, the one it became)."""
    found = re.search(r"\d+", cell)
    if not found:
        return None
    more = str(int(found[0]) + 1)
    return cell[: found.start()] + more + cell[found.end() :], found[0], more


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_table_value_changed_away_from_the_text_is_refused_at_its_row(
    tmp_path: Path, systems, slug: str
) -> None:
    system = systems[slug]
    tables = [table for table in system.tables.values() if table.path.exists()]
    if not tables:
        pytest.skip(f"{slug} has no table")
    for table in tables:
        copy = _copy(tmp_path / table.name)
        for row, line in zip(table.rows, table.row_lines, strict=True):  # noqa: B007
            changed = [_number_changed(cell) for cell in row]
            if any(changed):
                break
        else:
            continue
        column = next(index for index, cell in enumerate(changed) if cell)
        cell, number, more = changed[column]
        edited = [*row[:column], cell, *row[column + 1 :]]
        path = copy / slug / "tables" / table.path.name
        lines = path.read_text(encoding="utf-8").split("\n")
        assert yaml.safe_load(lines[line - 1].strip()[2:]) == row, (path, line)
        lines[line - 1] = lines[line - 1][: lines[line - 1].index("[")] + json.dumps(
            edited, ensure_ascii=False
        )
        path.write_text("\n".join(lines), encoding="utf-8")
        if _in_outside_section(system, table.name):
            load_system(copy / slug)  # from outside the text: not checked against it
            continue
        caught = _refused(copy, path)
        assert caught.line == line, caught
        assert " ".join(" ".join(edited).split()) in caught.message
        assert f'prints "{" ".join(" ".join(row).split())}"' in caught.message, caught
        assert f"'{more}' where the text has '{number}'" in caught.message
        assert "errata" in caught.message


def _in_outside_section(system, table: str) -> bool:
    """A table placed in a section from outside the text (`!!! outside`) is not checked."""
    for page in system.pages.values():
        if f"[[table:{table}]]" in page.text and "\n!!! outside " in page.text:
            return True
    return False


def _prose(markdown: str) -> list[tuple[int, str]]:
    """The plain paragraphs of a page (no heading, list, table, note or markup), by line."""
    return [
        (number, line)
        for number, line in enumerate(markdown.split("\n"), start=1)
        if len(line.split()) > 8 and re.fullmatch(r"[A-Z][A-Za-z0-9 ,;:'.()-]+\.", line)
    ]


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_word_changed_in_a_page_is_refused_at_its_line(tmp_path: Path, slug: str) -> None:
    copy = _copy(tmp_path)
    folder = copy / slug / "pages"
    names = yaml.safe_load((copy / slug / "system.yml").read_text())["pages"]
    for name in names:
        path = folder / f"{name}.md"
        text = path.read_text(encoding="utf-8")
        if "\n!!! outside " in text:
            continue
        found = _prose(text)
        if found:
            break
    else:
        raise AssertionError(f"no page of {slug} has a plain paragraph")
    line, paragraph = found[0]
    word = max(paragraph.rstrip(".").split(), key=len).strip(",;:()")
    changed = paragraph.replace(word, word.upper() + "s", 1)
    path.write_text(text.replace(paragraph, changed, 1), encoding="utf-8")
    caught = _refused(copy, path)
    assert caught.line == line
    assert f"'{word.upper()}s' where the text has '{word}'" in caught.message, caught.message
    assert "source.txt:" in caught.message and "Record an erratum" in caught.message


# ------------------------------------------------------------------ the named cases


def test_into_the_unknowns_typical_hard_dc_changed_to_16_is_refused(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    path = copy / "into-the-unknown" / "tables" / "typical-dc.yml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('["Hard", "15"]', '["Hard", "16"]'), encoding="utf-8")
    caught = _refused(copy, path)
    assert caught.line == text[: text.index('["Hard"')].count("\n") + 1
    assert re.search(
        r'source\.txt:\d+ prints "Hard 15" \(\'16\' where the text has \'15\'\)', str(caught)
    )


def test_a_misprint_corrected_is_refused_with_or_without_an_erratum(tmp_path: Path) -> None:
    """4e's "prganized" is kept as printed (its system.yml says so): "correcting" it is
    refused, and an erratum note after the paragraph does not excuse it (a note says what
    is meant; the text stays as printed)."""
    copy = _copy(tmp_path)
    path = next(
        p for p in (copy / "4e-core" / "pages").glob("*.md") if "prganized" in p.read_text()
    )
    text = path.read_text(encoding="utf-8")
    line = text[: text.index("prganized")].count("\n") + 1
    path.write_text(text.replace("prganized", "organized"), encoding="utf-8")
    caught = _refused(copy, path)
    assert caught.line == line
    assert "'organized' where the text has 'prganized'" in caught.message
    paragraph = text.split("\n")[line - 1].replace("prganized", "organized")
    noted = f'{paragraph}\n\n!!! erratum "Erratum"\n    The text says "prganized".'
    path.write_text(text.replace(text.split("\n")[line - 1], noted), encoding="utf-8")
    assert _refused(copy, path).line == line


# ------------------------------------------------------------------ what is and is not checked


def test_an_outside_section_is_not_checked_and_is_listed_on_the_source_page(
    tmp_path: Path,
) -> None:
    page = (
        COMBAT_MD
        + '\n## Budget\n\n!!! outside "Reference from outside this text"\n'
        + "    From another document of the same game.\n\n"
        + "Words of another document.\n\n### Ranks\n\nMore of them.\n\n"
        + "## Combat {#combat-again}\n\n"
    )
    folder = make_system(tmp_path, **{"pages/combat.md": page + "Again.\n"})
    with pytest.raises(ContentError) as caught:
        load_system(folder)
    assert caught.value.line == page.count("\n") + 1  # after the section: checked
    assert '"Again."' in caught.value.message
    (folder / "pages" / "combat.md").write_text(page, encoding="utf-8")
    system = load_system(folder)
    shown = render_system(system)["test/source.md"]
    assert "## From outside this text" in shown
    assert "(combat.md#budget)" in shown


def test_the_source_texts_markup_is_not_its_words(tmp_path: Path) -> None:
    """Emphasis, HTML tags (a list's items apart, a word's parts together), entities and an
    autolink's brackets in source.txt read as the words a reader sees."""
    source = (
        SOURCE_TXT
        + "\nOn his <i>turn</i> , a *character* can: <ul><li>• Move</li><li>• Act</li></ul>\n"
        + "The 1<sup>st</sup> level &amp; up: visit <http://example.org/a>.\n"
    )
    page = COMBAT_MD + (
        "\nOn his turn, a character can: • Move • Act\n\n"
        "The 1<sup>st</sup> level & up: visit <http://example.org/a>.\n"
    )
    load_system(make_system(tmp_path, **{"pages/combat.md": page, "test.txt": source}))


def test_a_heading_is_the_texts_in_any_case_and_without_its_bullets(tmp_path: Path) -> None:
    source = SOURCE_TXT + "\n## • TAKING ACTION •\n\nAct.\n"
    page = COMBAT_MD + "\n## Taking Action\n\nAct.\n"
    load_system(make_system(tmp_path, **{"pages/combat.md": page, "test.txt": source}))
    page = COMBAT_MD + "\n## Taking Actions\n\nAct.\n"
    folder = make_system(tmp_path / "plural", **{"pages/combat.md": page, "test.txt": source})
    with pytest.raises(ContentError, match="this heading is not in the source text"):
        load_system(folder)


def test_a_two_row_header_is_its_lower_row_and_each_label_above(tmp_path: Path) -> None:
    source = SOURCE_TXT + "\nPace\t[Hex]\t\nName\tFeet\tMiles\nFast\t30\t3\n"
    table = 'title: ""\ncolumns: ["Name", "[Hex] Feet", "[Hex] Miles"]\n'
    table += 'rows:\n  - ["Fast", "30", "3"]\n'
    page = COMBAT_MD + "\n[[table:pace]]\n"
    files = {"pages/combat.md": page, "test.txt": source, "tables/pace.yml": table}
    load_system(make_system(tmp_path, **files))
    files["tables/pace.yml"] = table.replace("[Hex] Miles", "[Point] Miles")
    with pytest.raises(ContentError) as caught:
        load_system(make_system(tmp_path / "other", **files))
    assert caught.value.line == 2 and '"[Point]"' in caught.value.message


def test_a_missing_source_text_is_refused_at_its_name(tmp_path: Path) -> None:
    folder = make_system(tmp_path)
    (folder / "test.txt").unlink()
    with pytest.raises(ContentError) as caught:
        load_system(folder)
    assert caught.value.path == str(folder / "system.yml")
    assert caught.value.line == 6  # source.file
    assert "'test.txt' is not in content/test/" in caught.value.message


def test_the_nearest_words_are_where_most_of_the_sentence_stands(systems) -> None:
    """A sentence with one word changed is shown beside the source's sentence it came from,
    wherever the text has its words elsewhere."""
    for system in systems.values():
        source = source_text(system)
        page = next(iter(system.pages.values()))
        paragraphs = [text for _, text in _prose(page.text)]
        if not paragraphs:
            continue
        said = words(paragraphs[0])
        start, end = source.nearest([*said[:-2], "Zzz", said[-1]], 0)
        assert source.shown(start, end)[:100] == paragraphs[0][:100], system.slug


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_page_cut_short_is_refused_at_the_texts_words_it_left_out(
    tmp_path: Path, slug: str
) -> None:
    """The other way round, as tests/test_site_build.py counts the built pages: the words
    of the text that no page or table shows are at most 2%. The system's longest page with
    its paragraphs left out (its headings and tables kept, so every link still resolves)
    is refused at the line of the text where the words left out begin."""
    copy = _copy(tmp_path)
    pages = sorted((copy / slug / "pages").glob("*.md"), key=lambda page: -page.stat().st_size)
    longest = pages[0]
    kept = [
        line
        for line in longest.read_text(encoding="utf-8").split("\n")
        if line.startswith(("#", "[[table:")) or not line.strip()
    ]
    longest.write_text("\n".join(kept), encoding="utf-8")
    caught = _refused(copy, copy / slug / "source.txt")
    assert "of the words of this text appear on" in caught.message
    source = (copy / slug / "source.txt").read_text(encoding="utf-8").split("\n")
    first = caught.message.split(": ", 1)[1].split("'")[1]
    assert first in source[caught.line - 1].lower()
