"""Content validation: malformed content stops the build with the file and line to fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hooks.content.loader import load_content, load_system
from hooks.content.yaml_lines import ContentError

SYSTEM_YML = """\
title: Test System
short_title: Test
dice: d20
summary: A system for tests.
source:
  file: test.txt
  document: Test Document
  license: none stated
pages:
  - combat
"""

COMBAT_MD = """\
# Combat

## Cover

A target with cover is harder to hit.

## Attacks

Roll and compare. See [cover](combat.md#cover).

[[table:modifiers]]
"""

TABLE_YML = """\
title: "Table - Modifiers"
columns: [Score, Modifier]
rows:
  - ["10-11", "+0"]
  - ["12-13", "+1"]
"""

# What the pages and the table print, as the text prints it (the build checks them
# against it: tests/test_source_text.py).
SOURCE_TXT = """\
COMBAT

COVER

A target with *cover* is harder to hit.

ATTACKS

Roll and compare. See cover.

Table - Modifiers
Score\tModifier
10-11\t+0
12-13\t+1
"""

GLOSSARY_YML = """\
- term: Cover
  kind: term
  definition: A target with cover is harder to hit.
  see: combat#cover
"""


def make_system(root: Path, **overrides: str) -> Path:
    """Write a small valid system; `overrides` replace files by relative path."""
    files = {
        "system.yml": SYSTEM_YML,
        "pages/combat.md": COMBAT_MD,
        "tables/modifiers.yml": TABLE_YML,
        "glossary.yml": GLOSSARY_YML,
        "test.txt": SOURCE_TXT,
    }
    files.update(overrides)
    folder = root / "test"
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def error_for(tmp_path: Path, **overrides: str) -> ContentError:
    folder = make_system(tmp_path, **overrides)
    with pytest.raises(ContentError) as caught:
        load_system(folder)
    return caught.value


def test_valid_system_loads(tmp_path: Path) -> None:
    system = load_system(make_system(tmp_path))
    assert list(system.pages) == ["combat"]
    assert system.pages["combat"].anchors == {"combat", "cover", "attacks"}
    assert system.tables["modifiers"].rows[1] == ["12-13", "+1"]
    assert system.glossary[0].see_anchor == "cover"


def test_unknown_yaml_key_names_file_and_line(tmp_path: Path) -> None:
    error = error_for(tmp_path, **{"tables/modifiers.yml": TABLE_YML + "colour: red\n"})
    assert error.path.endswith("tables/modifiers.yml")
    assert error.line == 6
    assert "unknown key 'colour'" in error.message


def test_misspelt_key_gets_a_did_you_mean_hint(tmp_path: Path) -> None:
    misspelt = TABLE_YML.replace("columns:", "colums:")
    error = error_for(tmp_path, **{"tables/modifiers.yml": misspelt})
    assert error.line == 2
    assert error.message == (
        "unknown key 'colums' in a table (allowed: title, columns, rows, check, errata, "
        "calculator): did you mean 'columns'?"
    )


def test_unlike_key_gets_no_guess(tmp_path: Path) -> None:
    error = error_for(tmp_path, **{"tables/modifiers.yml": TABLE_YML + "shade: red\n"})
    assert error.message.endswith("(allowed: title, columns, rows, check, errata, calculator)")


def test_misspelt_glossary_kind_gets_a_hint(tmp_path: Path) -> None:
    glossary = GLOSSARY_YML.replace("kind: term", "kind: conditon")
    error = error_for(tmp_path, **{"glossary.yml": glossary})
    assert error.line == 2
    assert error.message.endswith("did you mean 'condition'?")


def test_ragged_row_names_its_line(tmp_path: Path) -> None:
    ragged = TABLE_YML.replace('["12-13", "+1"]', '["12-13", "+1", "extra"]')
    error = error_for(tmp_path, **{"tables/modifiers.yml": ragged})
    assert error.line == 5
    assert "ragged row: 3 cells" in error.message


def test_unquoted_cell_is_refused(tmp_path: Path) -> None:
    error = error_for(tmp_path, **{"tables/modifiers.yml": TABLE_YML.replace('"+1"', "1")})
    assert error.line == 5
    assert "must be quoted text" in error.message


def test_glossary_term_defined_twice(tmp_path: Path) -> None:
    twice = GLOSSARY_YML + GLOSSARY_YML.replace("- term: Cover", "- term: Shelter").replace(
        "  kind: term", "  kind: term\n  aliases: [cover]"
    )
    error = error_for(tmp_path, **{"glossary.yml": twice})
    assert error.path.endswith("glossary.yml")
    assert error.line == 5
    assert "'cover' is defined twice (also at line 1)" in error.message


def test_link_to_missing_anchor(tmp_path: Path) -> None:
    broken = COMBAT_MD.replace("combat.md#cover", "combat.md#covers")
    error = error_for(tmp_path, **{"pages/combat.md": broken})
    assert error.path.endswith("pages/combat.md")
    assert error.line == 9
    assert "missing page or anchor: 'combat.md#covers'" in error.message


def test_glossary_see_must_exist(tmp_path: Path) -> None:
    error = error_for(tmp_path, **{"glossary.yml": GLOSSARY_YML.replace("#cover", "#nowhere")})
    assert error.line == 4  # the line of its `see:`, not of the entry's term
    assert "points to no page or heading" in error.message


def test_missing_anchor_suggests_the_nearest_heading(tmp_path: Path) -> None:
    broken = COMBAT_MD.replace("combat.md#cover", "combat.md#covers")
    error = error_for(tmp_path, **{"pages/combat.md": broken})
    assert error.message.endswith("did you mean '#cover'?")  # written as a same-page link
    glossary = GLOSSARY_YML.replace("combat#cover", "combat#covr")
    error = error_for(tmp_path, **{"glossary.yml": glossary})
    assert error.message.endswith("did you mean 'combat#cover'?")


def test_anchor_with_no_near_heading_says_how_anchors_are_made(tmp_path: Path) -> None:
    error = error_for(tmp_path, **{"glossary.yml": GLOSSARY_YML.replace("#cover", "#nowhere")})
    assert "lower case, spaces as hyphens" in error.message


def test_missing_table_for_placeholder(tmp_path: Path) -> None:
    page = COMBAT_MD.replace("[[table:modifiers]]", "[[table:modifiers]]\n\n[[table:costs]]")
    error = error_for(tmp_path, **{"pages/combat.md": page})
    assert error.line == 13
    assert "no table 'tables/costs.yml'" in error.message


def test_duplicate_heading_anchor_needs_an_id(tmp_path: Path) -> None:
    page = COMBAT_MD + "\n## Cover\n\nAgain.\n"
    error = error_for(tmp_path, **{"pages/combat.md": page})
    assert error.line == 13
    assert "give this heading an explicit id" in error.message


def test_explicit_heading_id_makes_anchors_unique(tmp_path: Path) -> None:
    page = COMBAT_MD + "\n## Cover {#cover-again}\n\nAgain.\n"
    source = SOURCE_TXT + "\nCOVER\n\nAgain.\n"
    system = load_system(make_system(tmp_path, **{"pages/combat.md": page, "test.txt": source}))
    assert "cover-again" in system.pages["combat"].anchors


def test_skipped_heading_level(tmp_path: Path) -> None:
    page = COMBAT_MD.replace("## Attacks", "#### Attacks")
    error = error_for(tmp_path, **{"pages/combat.md": page})
    assert error.line == 7
    assert "jumps from 2 to 4" in error.message


def test_invalid_yaml_syntax(tmp_path: Path) -> None:
    error = error_for(tmp_path, **{"glossary.yml": "- term: [unclosed\n"})
    assert error.path.endswith("glossary.yml")
    assert "invalid YAML" in error.message
    assert error.line is not None


def test_page_not_listed(tmp_path: Path) -> None:
    folder = make_system(tmp_path, **{"pages/extra.md": "# Extra\n"})
    with pytest.raises(ContentError, match="not listed under 'pages'"):
        load_system(folder)


def test_table_placed_nowhere(tmp_path: Path) -> None:
    error = error_for(tmp_path, **{"tables/unused.yml": TABLE_YML})
    assert error.path.endswith("tables/unused.yml")
    assert "placed on no page" in error.message


def test_real_content_loads() -> None:
    content = Path(__file__).resolve().parent.parent / "content"
    systems = load_content(content)
    listed = yaml.safe_load((content / "systems.yml").read_text(encoding="utf-8"))["systems"]
    assert list(systems) == listed
    for system in systems.values():
        assert system.pages and system.glossary, system.slug


def test_a_link_to_the_terms_page_says_terms_link_through_the_glossary(tmp_path: Path) -> None:
    page = COMBAT_MD.replace("See [cover](combat.md#cover).", "See [cover](terms.md#term-cover).")
    error = error_for(tmp_path, **{"pages/combat.md": page})
    assert error.line == 9
    assert "made from glossary.yml" in error.message and "Add a glossary term" in error.message
    assert "did you mean '#cover'?" in error.message  # where the glossary says it is defined


def test_a_link_to_another_generated_page_names_the_texts_pages(tmp_path: Path) -> None:
    page = COMBAT_MD.replace("See [cover](combat.md#cover).", "See [cover](source.md).")
    error = error_for(tmp_path, **{"pages/combat.md": page})
    assert "'source' is a page the build makes" in error.message
    assert "(pages: combat)" in error.message
