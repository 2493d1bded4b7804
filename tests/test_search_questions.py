"""Search as players type: questions and misspellings (assets/javascripts/search-words.mjs,
search-results.mjs, search-notes.mjs), in the built site, through the page's real search.

The queries come from the content of every system of content/systems.yml: each glossary
term misspelt (a letter dropped, two swapped, or one doubled, in its longest word) and put
as a question ("how do I grapple someone", "how does cover work", "what happens if someone
is prone"). A misspelt term lands where the term does, with the words searched said and
the words typed a link away; a question lands where its naming words do, its small words
deciding nothing. A system whose pages mention a word only outside its text (its home
page's "It covers skill checks") says it has no rule on it, and the other systems' rules
lead.

The share of these queries that land as their term does is printed by
`pytest -s tests/test_search_questions.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ARTIFACTS, Returning, Watched
from playwright.sync_api import Browser, Page, expect
from searching import article_text, ask, defining_section, landing, lands_in, search_on_phone

from hooks.content.loader import GlossaryEntry, load_content
from hooks.pages.site import SOURCE_PAGE

CONTENT = Path(__file__).resolve().parent.parent / "content"
SYSTEMS = load_content(CONTENT)
LABELS = {system.short_title: slug for slug, system in SYSTEMS.items()}


def question(entry: GlossaryEntry) -> str:
    """The term as a player asks about it."""
    term = entry.term.lower()
    if entry.kind == "action":
        return f"how do I {term} someone"
    if entry.kind == "condition":
        return f"what happens if someone is {term}"
    return f"how does {term} work"


NOTES = """() => [...document.querySelectorAll(".search-spelling, .search-absent li")]
  .map((note) => note.textContent)"""


def first_landings(page: Page, queries: list[str]) -> list[str | None]:
    return [landing(groups[0]) if groups else None for groups in ask(page, queries, 1)]


def mentioned_outside_the_text(site: Path) -> tuple[str, str, list[tuple[str, GlossaryEntry]]]:
    """A one-word term some systems define, and a system whose text (its chapters) and the
    pages that restate it (its Terms list, its GM screen) never hold a form of it, but its
    home or source page does ("It covers skill checks"): (the system, the term, the systems
    that define it with their entries)."""
    about = ("", SOURCE_PAGE)
    for slug in SYSTEMS:
        texts = {
            path.parent.relative_to(site / slug).as_posix().strip("."): article_text(
                path.read_text("utf-8")
            ).lower()
            for path in (site / slug).rglob("index.html")
        }
        chapters = " ".join(text for name, text in texts.items() if name not in about)
        others = " ".join(text for name, text in texts.items() if name in about)
        for other, defining in SYSTEMS.items():
            for entry in defining.glossary if other != slug else ():
                # Any form of the term ("mark" for "marked") is one the search finds.
                term = entry.term.lower()
                stem = re.compile(rf"\b{re.escape(term[: max(4, len(term) - 3)])}")
                if " " in term or not term.isalpha() or stem.search(chapters):
                    continue
                if re.search(rf"\b{re.escape(term)}", others):
                    defined = [
                        (where, found)
                        for where, system_of in SYSTEMS.items()
                        for found in system_of.glossary
                        if found.term.lower() == term
                    ]
                    return slug, term, defined
    raise AssertionError("no system mentions another's term only outside its text")


def test_a_system_that_only_mentions_a_word_says_it_has_no_rule_on_it(
    watched: Watched, server: str, site: Path
) -> None:
    """From the home page of a system whose text has no section on a word that only its
    home or source page mentions, the results open with another system's rule on it (where
    that system's text defines it), and say that this system's text has no rule on it."""
    slug, term, defined = mentioned_outside_the_text(site)
    page = watched.page
    page.goto(f"{server}{slug}/")
    (groups,) = ask(page, [term], 10)
    first = groups[0]
    assert first[0][1] != [SYSTEMS[slug].short_title], first
    where = LABELS[first[0][1][0]]
    assert any(
        lands_in(site, landing(first), defining_section(other, entry))
        for other, entry in defined
        if other == where
    ), (term, landing(first))
    label = SYSTEMS[slug].short_title
    assert f"{label}: no rule on “{term}” in its text" in page.evaluate(NOTES)


def misspelt(word: str, nth: int) -> str:
    """The word with a typo in its middle: a letter dropped, two swapped, or one doubled."""
    middle = len(word) // 2
    return [
        word[:middle] + word[middle + 1 :],
        word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :],
        word[:middle] + word[middle] + word[middle:],
    ][nth % 3]


def misspellings(entries: list[GlossaryEntry]) -> list[tuple[str, str, str]]:
    """(term, the term misspelt, the misspelt word) for each term with a word of five
    letters or more."""
    found = []
    for nth, entry in enumerate(entries):
        term = entry.term.lower()
        longest = max(re.findall(r"[a-z]+", term), key=len)
        if len(longest) >= 5:
            typo = misspelt(longest, nth)
            found.append((entry.term, term.replace(longest, typo, 1), typo))
    return found


HELD = """async (words) => {
  const search = document.querySelector("script[src$='/search.js']").src;
  const results = await import(new URL("search-results.mjs", search).href);
  const site = await results.loadVocabulary();
  return words.map((word) => site.holds(word));
}"""


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_a_question_or_a_misspelt_term_lands_where_the_term_does(
    watched: Watched, server: str, slug: str
) -> None:
    """From a system's pages, each of its terms asked as a question ("how do I grapple
    someone") lands where the term does: "how", "do", "I", "someone", "is" decide nothing.
    And each misspelt (a typo the site's words do not hold) lands there too, and the results
    say the words they searched."""
    page = watched.page
    page.goto(f"{server}{slug}/")
    glossary = SYSTEMS[slug].glossary
    asked = [entry.term for entry in glossary]
    terms = dict(zip(asked, first_landings(page, asked), strict=True))  # where each lands
    questions = first_landings(page, [question(entry) for entry in glossary])
    missed = [
        (question(entry), found, terms[entry.term])
        for entry, found in zip(glossary, questions, strict=True)
        if found != terms[entry.term]
    ]
    print(f"{slug}: {len(glossary) - len(missed)} of {len(glossary)} questions land as the term")
    assert missed == []
    cases = misspellings(glossary)
    held = page.evaluate(HELD, [typo for _, _, typo in cases])
    cases = [case for case, site_holds in zip(cases, held, strict=True) if not site_holds]
    assert len(cases) >= len(glossary) / 2, "too few typos to judge"
    typos = first_landings(page, [typo for _, typo, _ in cases])
    missed = [
        (typo, found, terms[term])
        for (term, typo, _), found in zip(cases, typos, strict=True)
        if found != terms[term]
    ]
    print(f"{slug}: {len(cases) - len(missed)} of {len(cases)} misspelt terms land as the term")
    assert missed == []
    # The last answer's note: the words searched, and the words typed a link away.
    typo = cases[-1][1]
    assert page.evaluate(NOTES)[0].startswith("Showing results for "), typo


def test_the_words_searched_are_said_and_the_words_typed_are_a_link_away(
    browser: Browser, server: str
) -> None:
    """On a phone, a misspelt term typed into Material's search box: the results say the
    words searched (a status line, in the accessibility tree as text), and the words typed
    are a link away, which searches them as typed (quoted in the box); from there the
    site's words are a link away again. With a keyboard, the arrow keys reach the link."""
    slug, system = next(iter(SYSTEMS.items()))
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}{slug}/")
    cases = [case for case in misspellings(system.glossary) if " " not in case[0]]
    held = page.evaluate(HELD, [typo for _, typo, _ in cases])
    term, typo = next(
        (term.lower(), typo) for (term, typo, _), h in zip(cases, held, strict=True) if not h
    )
    search_on_phone(page, typo)
    line = page.locator(".md-search-result .search-spelling")
    expect(line).to_have_text(f"Showing results for {term}. Search instead for {typo}")
    expect(line).to_have_attribute("role", "status")
    tree = page.locator(".md-search-result").aria_snapshot()
    said = rf"- status:\n *- text: Showing results for\n *- emphasis: {term}\n"
    assert re.search(said, tree), tree
    page.screenshot(path=str(ARTIFACTS / "search-respelt-phone.png"))
    line.get_by_role("link", name=typo).tap()
    expect(page.locator(".md-search__input")).to_have_value(f'"{typo}"')
    expect(line).to_have_text(f'Showing results for "{typo}", as typed. Search instead for {term}')
    assert page.url.startswith(f"{server}{slug}/") and "?q=" not in page.url
    line.get_by_role("link", name=term).tap()
    expect(page.locator(".md-search__input")).to_have_value(term)
    expect(line).to_have_text("")
    phone.close()

    desktop = Returning(browser, server, "desktop")
    page = desktop.page
    page.goto(f"{server}{slug}/")
    page.locator(".md-search__input").click()
    page.locator(".md-search__input").press_sequentially(typo)
    link = page.locator(".md-search-result .search-spelling a")
    expect(link).to_have_text(typo)
    page.keyboard.press("ArrowDown")
    expect(link).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".md-search__input")).to_have_value(f'"{typo}"')
    # The link taken, the keyboard is on the one that took its place.
    expect(page.locator(".md-search-result .search-spelling a")).to_be_focused()
    expect(page.locator(".md-search-result .search-spelling a")).to_have_text(term)
    page.screenshot(path=str(ARTIFACTS / "search-as-typed-desktop.png"))
    desktop.close()
