"""Where the site names a calculator, it names one of the registry, on the page that holds it.

The registry (`rules_core.calculators.CALCULATORS`) is the list of calculators; the one
table of which page holds which (`rules_core.calculators.address.PAGES`) must agree with it
and with the hand-written pages, both ways; every address is built by one function.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from hooks.pages import compare, dice_chips
from hooks.pages.calculators import PLACEHOLDER, page_title
from hooks.pages.generate import generate
from hooks.pages.site import calculator_of_rules
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import (
    PAGES,
    calculator_address,
    calculator_markdown_address,
)
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle

ROOT = Path(__file__).resolve().parent.parent
CALCULATOR_DOCS = ROOT / "docs" / "calculators"


def placed() -> dict[str, str]:
    """{calculator name: the page stem whose text holds its [[calculator:NAME]]}."""
    found: dict[str, str] = {}
    for path in sorted(CALCULATOR_DOCS.glob("*.md")):
        for name in PLACEHOLDER.findall(path.read_text(encoding="utf-8")):
            assert name not in found, f"[[calculator:{name}]] is on {found[name]}.md and {path}"
            found[name] = path.stem
    return found


def test_the_page_table_names_every_calculator_of_the_registry_and_no_other() -> None:
    assert list(PAGES) == list(CALCULATORS)


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_each_calculator_is_on_the_page_the_table_names(name: str) -> None:
    page = CALCULATOR_DOCS / f"{PAGES[name]}.md"
    assert page.is_file(), f"{name}: no page {page.relative_to(ROOT)}"
    held = PLACEHOLDER.findall(page.read_text(encoding="utf-8"))
    assert name in held, f"{page.relative_to(ROOT)} does not hold [[calculator:{name}]]"


def test_each_calculator_on_a_page_is_in_the_table_at_that_page() -> None:
    assert placed() == dict(PAGES)


def test_the_served_and_the_markdown_address_name_the_same_page_and_inputs() -> None:
    inputs = {"system": system_slugs()[0], "expression": "2d6+1", "note": "a & b"}
    for name in CALCULATORS:
        served = urlsplit(calculator_address(name, inputs, "../../"))
        source = urlsplit(calculator_markdown_address(name, inputs, "../"))
        assert served.path == f"../../calculators/{PAGES[name]}/"
        assert source.path == f"../calculators/{PAGES[name]}.md"
        assert parse_qsl(served.query) == parse_qsl(source.query) == list(inputs.items())
    assert calculator_address("fight", {}, "") == "calculators/fight/"


def test_the_encounter_answer_opens_the_fight_calculator_at_its_address() -> None:
    shown = 0
    for slug in system_slugs():
        response = handle("encounter", {"system": slug}, "../../")
        if not response["ok"] or "data" not in response:
            continue  # this text has no encounter rules
        (href,) = re.findall(r'<a class="calc-link[^"]*" href="([^"]+)"', response["html"])
        link = urlsplit(href.replace("&amp;", "&"))
        assert link.path == calculator_address("fight", {}, "../../")
        assert dict(parse_qsl(link.query, keep_blank_values=True))["system"] == slug
        shown += 1
    assert shown, "no system has an encounter budget: nothing was checked"


def test_a_section_link_goes_to_the_calculator_that_reads_that_rule() -> None:
    reads = calculator_of_rules()
    for name, calculator in CALCULATORS.items():
        rule = calculator.request.RULE
        if rule is not None:
            # The key's calculator reads that key (the first of several: attack, not fight).
            assert CALCULATORS[reads[rule.path[0]]].request.RULE.path[0] == rule.path[0]
            assert list(CALCULATORS).index(reads[rule.path[0]]) <= list(CALCULATORS).index(name)
    for key, name in reads.items():
        # Each key is one that some system's rules define, so the link is ever shown.
        assert any(key in get_system(slug).rules for slug in system_slugs()), key
        assert page_title(name), name


def test_the_pages_choices_name_calculators_of_the_registry() -> None:
    assert set(dice_chips.CALCULATOR_LABELS) <= set(CALCULATORS)
    assert set(compare.COMPARED) <= set(CALCULATORS)
    attack_fields = {field.name for field in CALCULATORS["attack"].fields}
    assert set(compare._ATTACK_FORM) <= attack_fields


def test_a_calculator_pages_edit_button_opens_the_rules_it_reads() -> None:
    """The pencil of a page holding a calculator that reads the rules data opens rules.yml
    (the first system's, the form's default), not the page's one-line Markdown; a page whose
    calculators read no rules (the dice roller) opens its own file."""
    site = generate(ROOT, ROOT / "docs")
    first = next(slug for slug, system in site.systems.items() if system.rules is not None)
    reads = {name for name, calculator in CALCULATORS.items() if calculator.request.RULE}
    assert reads and reads != set(CALCULATORS)
    for name in CALCULATORS:
        path = f"calculators/{PAGES[name]}.md"
        if any(other in reads for other, page in PAGES.items() if page == PAGES[name]):
            assert site.sources[path] == f"content/{first}/rules.yml", name
        else:
            assert path not in site.sources, name
