"""One search across every system, from every page: Material's search box answered from
Pagefind's chunked index (assets/javascripts/search.js, hooks/postprocess/search_index.py).

The judged relevance set is every system's glossary: a term's search must bring the section
that defines it (the glossary's own link) near the top, and where the system's Terms list is
a result, land on the term's own entry (what players type: tests/test_search_relevance.py).
The queries go through the page's real search, the object Material talks to in place of its
worker, with its messages. On a phone, Material's own search box is typed into and its
results tapped."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import (
    ARTIFACTS,
    CALCULATOR_PAGES,
    DEVICES,
    Device,
    FirstRequestAborted,
    Returning,
    Watched,
)
from playwright.sync_api import Browser, Page, expect
from searching import article_text, ask, defining_section, landing, lands_in, search_on_phone

from hooks.content.loader import GlossaryEntry, System, load_content
from hooks.pages.site import term_ids

CONTENT = Path(__file__).resolve().parent.parent / "content"
SYSTEMS: dict[str, System] = load_content(CONTENT)
LABELS = {system.short_title: slug for slug, system in SYSTEMS.items()}


def missed_terms(page: Page, site: Path, slug: str, shown: int) -> list[str]:
    """The system's glossary terms whose defining section is not among the first `shown`
    results (a page or one of its sections, or a place in the section: the sentence that
    defines the term) of a search for the term. Where the system's Terms list is among
    them, a tap on it must land on the term's own entry, never on the letter above it."""
    glossary = SYSTEMS[slug].glossary
    entries = term_ids(SYSTEMS[slug])
    answers = ask(page, [entry.term for entry in glossary], shown)
    for entry, groups in zip(glossary, answers, strict=True):
        for group in groups:
            if group[0][0] == f"{slug}/terms/":
                assert landing(group) == f"{slug}/terms/#{entries[entry.term]}", entry.term
    return [
        entry.term
        for entry, groups in zip(glossary, answers, strict=True)
        if not any(
            lands_in(site, location, defining_section(slug, entry))
            for group in groups
            for location, _ in group
        )
    ]


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_a_term_finds_its_defining_section_from_its_systems_pages(
    watched: Watched, server: str, site: Path, slug: str
) -> None:
    """From a system's pages, 9 in 10 of its glossary terms have their defining section in
    the first three results."""
    watched.page.goto(f"{server}{slug}/")
    missed = missed_terms(watched.page, site, slug, 3)
    assert len(missed) <= len(SYSTEMS[slug].glossary) / 10, missed


CALCULATOR_PAGE = f"calculators/{next(iter(CALCULATOR_PAGES))}/"


def test_pages_outside_any_system_search_every_system(
    watched: Watched, server: str, site: Path
) -> None:
    """From the home page, every system's terms are found: 9 in 10 have their defining
    section in the first screen of results (ten). A calculator page, outside any system too,
    gives the same results: asked each system's first terms, the same answers."""
    watched.page.goto(server)
    for slug, system in SYSTEMS.items():
        missed = missed_terms(watched.page, site, slug, 10)
        assert len(missed) <= len(system.glossary) / 10, (slug, missed)
    sample = [entry.term for system in SYSTEMS.values() for entry in system.glossary[:2]]
    from_home = ask(watched.page, sample, 10)
    watched.page.goto(f"{server}{CALCULATOR_PAGE}")
    assert ask(watched.page, sample, 10) == from_home


def shared_terms() -> dict[str, list[str]]:
    """{term: the slugs of the systems whose glossaries define it}, for terms in two or more."""
    systems = defaultdict(list)
    for slug, system in SYSTEMS.items():
        for entry in system.glossary:
            systems[entry.term.lower()].append(slug)
    return {term: slugs for term, slugs in sorted(systems.items()) if len(slugs) > 1}


def test_each_result_is_labelled_with_its_system(watched: Watched, server: str) -> None:
    """A term several systems define: from the home page, each of them answers, labelled."""
    watched.page.goto(server)
    terms = shared_terms()
    assert terms, "no two systems define the same term"
    for term, (groups,) in zip(terms, (ask(watched.page, [t], 10) for t in terms), strict=True):
        labels = [tags for group in groups for _, tags in group[:1]]
        assert all(len(tags) == 1 and tags[0] in LABELS for tags in labels if tags), term
        assert {LABELS[tags[0]] for tags in labels if tags} >= set(terms[term]), term


def test_the_readers_system_ranks_first(watched: Watched, server: str) -> None:
    """A term several systems define, asked from one of their pages: that system's result
    comes first. Each system's page is visited once and asked all of its shared terms."""
    asked: dict[str, list[str]] = defaultdict(list)
    for term, slugs in shared_terms().items():
        for slug in slugs:
            asked[slug].append(term)
    assert len(asked) > 1
    for slug, terms in asked.items():
        watched.page.goto(f"{server}{slug}/")
        for term, groups in zip(terms, ask(watched.page, terms, 3), strict=True):
            assert groups[0][0][1] == [SYSTEMS[slug].short_title], (term, slug)


def test_material_search_box_shows_labelled_results_on_a_phone(
    browser: Browser, server: str
) -> None:
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}{CALCULATOR_PAGE}")
    term, slugs = next(iter(shared_terms().items()))
    page.locator("label[for='__search']").first.click()
    page.locator(".md-search__input").press_sequentially(term)
    results = page.locator(".md-search-result__item")
    expect(results.first).to_be_visible(timeout=30_000)
    # The count says what is listed: the best matches, not every page that matches.
    count = page.locator(".md-search-result__meta")
    expect(count).to_have_text(re.compile(r"Top \d+ matches|1 match"))
    tags = page.locator(".md-search-result__item .md-tag").all_inner_texts()
    assert {LABELS[tag] for tag in tags} >= set(slugs)
    # A result opens its page with the words marked, by instant navigation.
    results.first.locator("a").first.click()
    expect(page.locator("mark[data-md-highlight]").first).to_be_visible()
    watched.close()


def test_a_calculators_form_is_not_searched_as_prose(watched: Watched, server: str) -> None:
    """A label that only the calculator's form holds does not find the calculator's page:
    the form is not indexed (its page's prose is)."""
    page = watched.page
    page.goto(f"{server}{CALCULATOR_PAGE}")
    form_only = page.evaluate(FORM_ONLY_LABELS)
    assert form_only, "every label of the form is also in the page's prose"
    answers = ask(page, form_only, 20)
    for label, groups in zip(form_only, answers, strict=True):
        assert CALCULATOR_PAGE not in [group[0][0] for group in groups], label
    (groups,) = ask(page, [page.locator("h1").inner_text().strip("¶ ")], 10)
    assert CALCULATOR_PAGE in [group[0][0] for group in groups]


# The form's labels whose words appear nowhere in the page's text outside the calculators.
FORM_ONLY_LABELS = """() => {
  const prose = document.querySelector("article").cloneNode(true);
  prose.querySelectorAll(".calc").forEach((calculator) => calculator.remove());
  const words = new Set(prose.textContent.toLowerCase().match(/[a-z]+/g));
  const labels = [...document.querySelectorAll(".calc .calc-label, .calc .calc-check")]
    .map((label) => label.textContent.trim().toLowerCase().match(/[a-z]+/g) ?? []);
  return labels.filter((w) => w.length && w.every((word) => !words.has(word)))
    .map((w) => w.join(" "));
}"""


# On a phone, what a game master taps and reads: the result list and the section it opens.
def deepest_defined_section(site: Path) -> tuple[str, GlossaryEntry]:
    """The glossary entry, over every system, whose defining section starts the furthest
    into its page: a landing that does not scroll leaves it screens below the top."""
    found = []
    for slug, system in SYSTEMS.items():
        for entry in system.glossary:
            if not entry.see_anchor:
                continue
            html = (site / slug / entry.see_page / "index.html").read_text("utf-8")
            found.append((html.find(f'id="{entry.see_anchor}"'), slug, entry))
    _, slug, entry = max(found, key=lambda item: item[0])
    return slug, entry


EMPTY_SITEMAP = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>'
HEADING_IN_VIEW = """(id) => {
  const top = document.getElementById(id).getBoundingClientRect().top;
  const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
  return [top, header, window.innerHeight];
}"""


@pytest.mark.parametrize("arrival", ["instant navigation", "full load"])
def test_a_tapped_result_lands_on_its_section_on_a_phone(
    browser: Browser, server: str, site: Path, arrival: str
) -> None:
    """From another system's page, a glossary term's defining section, tapped in the
    results, opens with where it lands (its heading, or the sentence in it that defines
    the term) at the top of the screen, under the header."""
    slug, entry = deepest_defined_section(site)
    start = next(other for other in SYSTEMS if other != slug)
    phone = Device(browser, server, "phone")
    page = phone.page
    if arrival == "full load":
        # With no page in the sitemap the theme takes over no link: the browser loads it.
        phone.context.route("**/sitemap.xml*", lambda route: route.fulfill(body=EMPTY_SITEMAP))
    page.goto(f"{server}{start}/")
    search_on_phone(page, entry.term)
    section = f"/{slug}/{entry.see_page}/"
    item = page.locator(".md-search-result__item").filter(
        has=page.locator(f".md-search-result__link[href*='{section}']")
    )
    link = item.locator(":scope > .md-search-result__link[href*='#']").first
    expect(link).to_be_visible()
    href = link.get_attribute("href") or ""
    place = href.removeprefix(server).split("?")[0] + "#" + href.split("#")[1]
    assert lands_in(site, place, defining_section(slug, entry)), place
    target = href.split("#")[1]
    page.evaluate("window.beforeTheTap = true")
    link.tap()
    page.wait_for_url(re.compile(re.escape(section) + r".*#" + re.escape(target)))
    page.wait_for_timeout(1500)  # the theme's search closes and its backdrop shrinks
    stayed = page.evaluate("window.beforeTheTap === true")
    assert stayed == (arrival == "instant navigation")
    top, header, height = page.evaluate(HEADING_IN_VIEW, target)
    page.screenshot(path=str(ARTIFACTS / f"search-landing-{arrival.replace(' ', '-')}.png"))
    assert header - 1 <= top < height / 3, (entry.term, top, header)
    phone.close()


def silent_term(site: Path) -> tuple[str, list[str], list[str]]:
    """A one-word term several systems define and some system's pages never use:
    (term, the systems whose pages use it, the systems whose pages do not). The search
    matches a word's stem ("acrobat" for "acrobatics"): a term that some system's pages
    hold only in another form is passed over, its answer being the index's to decide."""
    texts = {
        slug: " ".join(
            article_text(path.read_text("utf-8")) for path in (site / slug).rglob("index.html")
        ).lower()
        for slug in SYSTEMS
    }
    for term in shared_terms():
        if " " in term:
            continue
        word = re.compile(rf"\b{re.escape(term)}")
        stem = re.compile(rf"\b{re.escape(term[: max(4, len(term) - 3)])}")
        using = [slug for slug in SYSTEMS if word.search(texts[slug])]
        silent = [slug for slug in SYSTEMS if not stem.search(texts[slug])]
        if silent and len(using) + len(silent) == len(SYSTEMS):
            return term, using, silent
    raise AssertionError("no shared one-word term is absent from some system's pages")


def test_each_system_shows_its_best_section_or_says_it_has_nothing(
    browser: Browser, server: str, site: Path
) -> None:
    """From the home page on a phone, a term some systems lack: the results open with one
    result of each system that has it, landing (unfolded) in the defining section of each
    system that defines it, and a line names each system that has nothing on it."""
    term, using, silent = silent_term(site)
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(server)
    search_on_phone(page, term)
    absent = page.locator(".md-search-result .search-absent li")
    expect(absent).to_have_text(
        [f"{SYSTEMS[slug].short_title}: nothing on “{term}”" for slug in silent]
    )
    items = page.locator(".md-search-result__item")
    leading = [items.nth(i).locator(".md-tag").first.inner_text() for i in range(len(using))]
    assert sorted(LABELS[label] for label in leading) == sorted(using), leading
    for slug in shared_terms()[term]:
        label = SYSTEMS[slug].short_title
        defined = next(e for e in SYSTEMS[slug].glossary if e.term.lower() == term)
        item = items.filter(has=page.locator(".md-tag", has_text=label)).filter(
            has=page.locator(f".md-search-result__link[href*='/{slug}/{defined.see_page}/']")
        )
        unfolded = item.locator(":scope > .md-search-result__link[href*='#']").first
        expect(unfolded).to_be_visible()
        href = unfolded.get_attribute("href") or ""
        place = href.removeprefix(server).split("?")[0] + "#" + href.split("#")[1]
        assert lands_in(site, place, defining_section(slug, defined)), place
    page.screenshot(path=str(ARTIFACTS / "search-silent-systems.png"))
    phone.close()


def _section_words(site: Path, location: str) -> set[str]:
    """The words of the section a result's location opens ("slug/page/#id"): from its
    heading to the next heading with an id, as Pagefind cuts a page into sections."""
    place, _, anchor = location.partition("#")
    html = (site / place.strip("/") / "index.html").read_text("utf-8")
    article = html[html.find("<article") : html.find("</article>")]
    start = article.find(f'id="{anchor}"')
    after = re.search(r"<h[1-6][^>]*\sid=", article[start + 1 :])
    section = article[start : start + 1 + after.start()] if after else article[start:]
    return set(re.findall(r"\w+", re.sub(r"<[^>]+>", " ", section).lower()))


def _holds(words: set[str], typed: str) -> bool:
    # A form of the word, leniently: its first four letters, a final "e" let go ("sav" of
    # "save" for "saving"; "oppo" of "opportunity" for "opportunities").
    stem = typed.lower()[:4].removesuffix("e")
    return any(word.startswith(stem) for word in words)


def test_a_section_with_only_some_of_the_words_is_listed_only_among_a_pages_best(
    watched: Watched, server: str, site: Path
) -> None:
    """Of the sections under a result, past the page's best two, only those holding every
    word searched are listed: for a glossary term of two words, a section that mentions only
    one of them ("attack" alone, for "opportunity attack") is no answer. Every two-word
    term of every system is asked; at least one must list more than two sections."""
    page = watched.page
    page.goto(server)
    terms = sorted(
        {
            e.term
            for system in SYSTEMS.values()
            for e in system.glossary
            # Two naming words: none of the small words a search lets go ("at", "of").
            if [len(word) >= 4 for word in re.findall(r"\w+", e.term)] == [True, True]
        }
    )
    checked = 0
    for term, groups in zip(terms, ask(page, terms, 10), strict=True):
        for group in groups:
            sections = [location for location, _ in group[1:] if "#" in location]
            for location in sections[2:]:
                words = _section_words(site, location)
                assert all(_holds(words, typed) for typed in re.findall(r"\w+", term)), (
                    term,
                    location,
                )
                checked += 1
    assert checked, "no page answered a two-word term with more than two sections"


@pytest.mark.parametrize("code", ["search-results.mjs", "pagefind.js"])
def test_a_search_whose_code_fails_once_answers_all_the_same(
    browser: Browser, server: str, code: str
) -> None:
    """The search's code (the site's, or Pagefind's) fails to arrive the first time (Chromium
    aborted search-results.mjs so, on a returning reader's page in a test run): the query is
    asked once more, its code fetched anew, and answered; the first failure is said in the
    console as a warning, and the path that tells the reader the search did not arrive (its
    `search:` error) is never taken."""
    slug = next(iter(SYSTEMS))
    term = SYSTEMS[slug].glossary[0].term
    # No service worker: its download of the whole site asks for the same files, and the
    # first request (the one aborted) would be the page's or the worker's by chance.
    context = browser.new_context(**DEVICES["phone"], service_workers="block")
    aborted = FirstRequestAborted()
    context.route(f"**/{code}", aborted)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.goto(server)
    (groups,) = ask(page, [term], 10)
    assert groups, console
    assert aborted.asked[code] == 2, aborted.asked
    assert any(line.startswith("warning: The search failed to load once") for line in console)
    assert not any(line.startswith("error: search:") for line in console), console
    context.close()


@pytest.mark.parametrize("code", ["search-results.mjs", "pagefind.js"])
def test_a_search_whose_code_did_not_arrive_says_so_and_answers_when_typed_again(
    browser: Browser, server: str, code: str
) -> None:
    """The search's code (the site's, or Pagefind's) does not arrive: in place of the count,
    the reader is told that the search could not be loaded and what to do, as a status
    line, and no result is listed. Once it arrives, the next key brings the results and the note
    goes: a failed download is not kept. On a first visit, whose page asks the network for
    each file before the site is kept."""
    slug = next(iter(SYSTEMS))
    term = SYSTEMS[slug].glossary[0].term
    context = browser.new_context(**DEVICES["phone"])
    refused = {"now": True}
    context.route(
        f"**/{code}", lambda route: route.abort() if refused["now"] else route.continue_()
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    page.goto(server)
    page.locator("label[for='__search']").first.tap()
    box = page.locator(".md-search__input")
    box.press_sequentially(term)
    note = page.locator(".md-search-result .search-unloaded")
    expect(note).to_have_text(
        "The search could not be loaded. Check the connection, then type again."
    )
    expect(note).to_have_attribute("role", "status")
    expect(page.locator(".md-search-result__item")).to_have_count(0)
    # Not the theme's "No matching documents": nothing was searched.
    count = page.locator(".md-search-result__meta")
    expect(count).to_be_hidden()
    page.screenshot(path=str(ARTIFACTS / f"search-not-loaded-{code}.png"))
    refused["now"] = False
    box.press("Backspace")
    box.press_sequentially(term[-1])
    expect(page.locator(".md-search-result__item").first).to_be_visible(timeout=30_000)
    expect(note).to_have_count(0)
    expect(count).to_be_visible()
    # What the console heard: the refused download and the search's own line, no more.
    unexpected = [
        text for text in errors if "net::ERR_FAILED" not in text and not text.startswith("search:")
    ]
    assert unexpected == [] and any(text.startswith("search:") for text in errors), errors
    context.close()
