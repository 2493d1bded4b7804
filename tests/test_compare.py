"""Comparison pages: quotes must stand in the sections they cite; answers come from the core."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from hooks.content.loader import load_content
from hooks.content.quotes import section_text, sentence_id
from hooks.content.yaml_lines import ContentError
from hooks.pages.compare import load_compare, render_compare
from rules_core.web import handle

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = load_content(ROOT / "content")
# The quotes below are Orcus's text; every other system of content/systems.yml is listed
# with no passage, so a system added by content alone changes nothing here.
QUOTED = "orcus"
OTHERS = [slug for slug in SYSTEMS if slug != QUOTED]

GOOD = """\
concepts:
  - slug: natural-rolls
    title: Natural rolls
    summary: Two systems.
    calculator:
      name: attack
      inputs: {bonus: "6", defense: "16"}
    systems:
      orcus:
        - see: combat#rolling-1-or-20
          quote: >-
            If the d20 roll for an attack is a 1, the attack misses regardless
            of any modifiers or the target's defenses.
""" + "".join(f"      {slug}: []\n" for slug in OTHERS)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "compare.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_real_concept_map_loads() -> None:
    concepts = load_compare(ROOT / "content" / "compare.yml", SYSTEMS)
    assert len(concepts) >= 10
    slugs = [concept.slug for concept in concepts]
    for slug in ("critical-hits", "natural-1-and-20", "advantage-and-disadvantage", "initiative"):
        assert slug in slugs
    for concept in concepts:
        assert set(concept.passages) == set(SYSTEMS)
        assert any(concept.passages.values()), concept.slug


def test_a_quote_missing_from_its_section_fails_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("misses regardless", "always misses regardless"))
    with pytest.raises(ContentError) as caught:
        load_compare(path, SYSTEMS)
    assert caught.value.line == 11
    assert "not in orcus/combat#rolling-1-or-20" in caught.value.message


def test_a_misquote_says_where_it_stops_matching(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("misses regardless", "always misses regardless"))
    with pytest.raises(ContentError) as caught:
        load_compare(path, SYSTEMS)
    assert "it matches up to 'a 1, the attack'" in caught.value.message
    assert "does not go on with 'always'" in caught.value.message


def test_an_unknown_key_written_as_a_number_is_named_at_its_own_line(tmp_path: Path) -> None:
    # YAML reads `2:` as the number 2; its line is kept under the text "2".
    path = write(
        tmp_path,
        GOOD.replace("    summary: Two systems.\n", "    summary: Two systems.\n    2: x\n"),
    )
    with pytest.raises(ContentError) as caught:
        load_compare(path, SYSTEMS)
    assert caught.value.line == 5
    assert "unknown key '2' in a concept" in caught.value.message


def test_a_quote_from_another_section_fails(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("combat#rolling-1-or-20", "combat#cover"))
    with pytest.raises(ContentError, match="not in orcus/combat#cover"):
        load_compare(path, SYSTEMS)


def test_every_system_must_be_listed(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace(f"      {OTHERS[-1]}: []\n", ""))
    with pytest.raises(ContentError, match="list every system"):
        load_compare(path, SYSTEMS)


def test_section_text_includes_subsections_but_not_the_next_section() -> None:
    text = section_text(SYSTEMS["orcus"], "combat", "making-an-attack")
    assert "Choose a target." in text
    assert "If the d20 roll for an attack is a 20" not in text  # Attack Rolls is a sibling
    attack_rolls = section_text(SYSTEMS["orcus"], "combat", "attack-rolls")
    assert "If the d20 roll for an attack is a 20" in attack_rolls  # in its subsection


def test_pages_quote_and_answer_for_each_system(tmp_path: Path) -> None:
    pages, nav = render_compare(load_compare(write(tmp_path, GOOD), SYSTEMS), SYSTEMS)
    page = pages["compare/natural-rolls.md"]
    assert "> If the d20 roll for an attack is a 1, the attack misses" in page
    # The quote links to its own sentence, not only to the section.
    quoted = re.search(r"> (If the d20 roll for an attack is a 1, .*)", page).group(1)
    assert f"(../orcus/combat.md#{sentence_id(quoted)})" in page
    assert page.count("*This text has no rule on this.*") == len(OTHERS)
    # Every system's answer in one table under the form, each in a cell the page's own
    # numbers refill live; the build-time answer, of the concept's own attack, until then.
    widget = page[page.index('data-compare="attack"') : page.index("</section>")]
    assert 'name="bonus"' in widget
    answers = re.findall(r'<td class="compare-answer" data-system="([^"]+)">([^<]*)</td>', widget)
    assert [slug for slug, _ in answers] == list(SYSTEMS)
    for slug, shown in answers:  # each the core's own answer, as its headline says it
        hit = handle("attack", {"system": slug, "bonus": "6", "defense": "16"})["data"]["hit"]
        assert f"Hit {float(Fraction(hit)) * 100:.2f}%" in shown
    assert page.count('class="compare-answer"') == len(SYSTEMS)  # not again in the tabs
    assert (
        f"[Open in the calculator](../calculators/attack.md?system={OTHERS[-1]}&bonus=6&defense=16)"
        in page
    )
    assert nav == {"Compare": ["compare/index.md", {"Natural rolls": "compare/natural-rolls.md"}]}
