"""Compare pages in Chromium on a phone: every system answers the reader's own numbers, and
the interpretations under each system's quotes follow them."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from conftest import (
    ARTIFACTS,
    WHEEL_FILES,
    Device,
    Returning,
    clock_stood_still,
    compare_pages,
    settled_address,
)
from playwright.sync_api import Browser, Page, expect

from rules_core.systems import system_slugs
from rules_core.web import handle

# The reader's own attack, typed into a Compare page's form.
TYPED = {"bonus": "+7", "defense": "18", "damage": "2d8+4"}


def _wait_compare_live(page: Page) -> None:
    """Until every system has answered the page's own question with Python."""
    page.wait_for_function(
        "() => performance.getEntriesByName('calc-first-live-result').length", timeout=60_000
    )


def _asked(page: Page) -> dict[str, str]:
    """What a Compare page asks each system: its form's fields, hidden ones included."""
    form = page.locator(".calc[data-compare] form")
    return form.evaluate("(form) => Object.fromEntries(new FormData(form))")


def _notes(system: str, inputs: dict[str, str]) -> list[str]:
    """The interpretations the attack calculator's answer rests on, as text."""
    html_text = handle("attack", {**inputs, "system": system})["html"]
    notes = re.findall(r'<p class="calc-interpretation">(.*?)</p>', html_text)
    return [html.unescape(re.sub(r"<[^>]+>", "", note)) for note in notes]


def _short_answer(system: str, inputs: dict[str, str]) -> str:
    """What a Compare column should say: the attack calculator's headline for the system,
    or, where its text lacks the rule, why; worked out here by the rules core itself."""
    html_text = handle("attack", {**inputs, "system": system})["html"]
    headline = r'<div class="calc-headline">(.*?)</div>'
    undefined = r'<div class="calc-undefined"><p>(.*?)</p>'
    short = re.search(f"{headline}|{undefined}", html_text)
    assert short, html_text
    # The headline's why (the roll mode and what gave it) is a line of its own.
    shown = re.sub(r'<span class="calc-why">', "\n", short.group(1) or short.group(2))
    return html.unescape(re.sub(r"<[^>]+>", "", shown))


def test_compare_answers_every_system_with_the_readers_numbers(
    browser: Browser, server: str, site: Path
) -> None:
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(server + compare_pages(site)[0])
    answers = page.locator(".compare-answer[data-system]")
    systems = [answers.nth(i).get_attribute("data-system") for i in range(answers.count())]
    assert len(systems) == len(system_slugs())
    _wait_compare_live(page)
    # A quick answer replaces the last one unmarked: an "out of date" line at each key,
    # gone a few milliseconds later, would make the rows jump as the reader types.
    marked = page.evaluate("""() => {
      const bonus = document.querySelector("#compare-bonus");
      bonus.value = "5";
      bonus.dispatchEvent(new Event("input", { bubbles: true }));
      return document.querySelectorAll(".compare-answer.calc-result--stale").length;
    }""")
    assert marked == 0
    for name, value in TYPED.items():
        page.fill(f"#compare-{name}", value)
    # The typed numbers and the concept's own fields (advantage, on its page).
    asked = _asked(page)
    assert TYPED.items() <= asked.items()
    expected = [_short_answer(system, asked) for system in systems]
    for index, words in enumerate(expected):
        expect(answers.nth(index)).to_have_text(words)
        expect(answers.nth(index)).not_to_contain_class("calc-result--stale")
        # On the phone's screen with the numbers just typed: no swipe to read any system.
        expect(answers.nth(index)).to_be_in_viewport(ratio=1)
    # Under each system's quotes, "Open in the calculator" carries the same numbers.
    links = page.locator('.compare a[href*="calculators/"]')
    queries = [parse_qs(urlsplit(link.get_attribute("href")).query) for link in links.all()]
    assert sorted(queries, key=lambda query: systems.index(query["system"][0])) == [
        {**{k: [v] for k, v in asked.items() if v}, "system": [system]} for system in systems
    ]
    address = settled_address(page)
    assert parse_qs(urlsplit(address).query) == {k: [v] for k, v in TYPED.items()}
    # The address alone gives the same answers, in a fresh page.
    again = Device(browser, server, "phone")
    again.page.goto(address)
    for index, words in enumerate(expected):
        expect(again.page.locator(".compare-answer[data-system]").nth(index)).to_have_text(
            words, timeout=60_000
        )
    again.close()
    watched.close()


def test_compare_interpretations_follow_the_readers_numbers(
    browser: Browser, server: str, site: Path
) -> None:
    """Under each system's quotes, the interpretations its answer rests on: those of the
    reader's numbers once typed, not those of the page's own question."""
    watched = Returning(browser, server, "phone")
    page = watched.page
    changed = 0
    for path in compare_pages(site):
        page.goto(server + path)
        _wait_compare_live(page)
        question = _asked(page)
        for name, value in TYPED.items():
            page.fill(f"#compare-{name}", value)
        asked = _asked(page)
        for system in system_slugs():
            answer = page.locator(f'.compare-answer[data-system="{system}"]')
            expect(answer).to_have_text(_short_answer(system, asked))
            wanted = _notes(system, asked)
            notes = page.locator(f'.compare .calc-interpretation[data-system="{system}"]')
            assert notes.all_text_contents() == wanted, (path, system)
            changed += wanted != _notes(system, question)
    assert changed, "the typed numbers should change some system's interpretations"
    watched.close()


def test_the_question_above_the_form_states_the_readers_numbers(
    browser: Browser, server: str, site: Path
) -> None:
    """The page's words above the form say which attack every system answers: once the
    reader types their own numbers, those, and no longer the page's own."""
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(server + compare_pages(site)[0])
    _wait_compare_live(page)
    question = page.locator(".calc[data-compare]").locator("xpath=preceding-sibling::p[1]")
    asked = _asked(page)

    def stated(number: str) -> re.Pattern:
        return re.compile(rf"(?<![\d+-])\+?{re.escape(number.lstrip('+'))}(?!\d)")

    own = [asked["bonus"], asked["defense"]]
    typed = [str(int(number) + 3) for number in own]
    for number in own:
        expect(question).to_have_text(stated(number))
    for name, number in zip(("bonus", "defense"), typed, strict=True):
        page.fill(f"#compare-{name}", number)
    for number in typed:
        expect(question).to_have_text(stated(number))
    for number in own:
        expect(question).not_to_have_text(stated(number))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "compare-question-phone.png"))
    watched.close()


# Notes every Compare answer marked out of date, and every layout shift, from the start.
WATCH_MARKS = """
window.markedStale = 0;
window.shifted = 0;
new MutationObserver((records) => {
  for (const record of records) {
    if (record.target.classList?.contains("calc-result--stale")) window.markedStale++;
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["class"] });
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.shifted += entry.value;
}).observe({ type: "layout-shift", buffered: true });
"""


def test_a_compare_page_asking_its_own_question_keeps_its_answers_still(
    browser: Browser, server: str, site: Path
) -> None:
    """The build-time answers are those of the page's own numbers: while Python starts and
    answers them (slowly, on a phone's CPU), they are not marked out of date, and nothing
    on the page moves."""
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.add_init_script(WATCH_MARKS)
    watched.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(server + compare_pages(site)[0])
    _wait_compare_live(page)
    page.wait_for_timeout(500)
    assert page.evaluate("[window.markedStale, window.shifted]") == [0, 0]
    watched.close()


def test_a_refused_question_marks_each_answer_with_where_to_look(
    browser: Browser, server: str, site: Path
) -> None:
    """A bonus the rules core refuses: its message beside the field, and every system's
    answer (still the last good one) marked out of date with where to look, not "computing"
    though nothing computes. The fixed bonus brings every answer back."""
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(server + compare_pages(site)[0])
    _wait_compare_live(page)
    answers = page.locator(".compare-answer[data-system]")
    page.fill("#compare-bonus", "seven")
    expect(page.locator("#compare-bonus-error")).not_to_be_empty()
    expect(page.locator("#compare-bonus")).to_have_attribute("aria-invalid", "true")
    for answer in answers.all():
        expect(answer).to_contain_class("calc-result--stale")
        mark = answer.evaluate("answer => getComputedStyle(answer, '::after').content")
        assert "see the marked field" in mark and "computing" not in mark, mark
    page.fill("#compare-bonus", "+7")
    asked = _asked(page)
    for answer in answers.all():
        expect(answer).to_have_text(_short_answer(answer.get_attribute("data-system"), asked))
        expect(answer).not_to_contain_class("calc-result--stale")
    expect(page.locator("#compare-bonus-error")).to_be_empty()
    watched.close()


def test_a_number_being_typed_is_refused_only_once_the_typing_pauses(
    browser: Browser, server: str, site: Path
) -> None:
    """'-2' typed key by key: the '-' on the way is refused, but nothing comes under the field
    (no alert) until the typing pauses; a pause on '-' says it there and in the status line,
    and the next key takes it away."""
    assert not handle("attack", {"bonus": "-"})["ok"] and handle("attack", {"bonus": "-2"})["ok"]
    watched = Device(browser, server, "phone")
    page = watched.page
    page.add_init_script(
        """window.underField = [];
        new MutationObserver(() => {
          for (const slot of document.querySelectorAll(".calc-error")) {
            if (slot.textContent.trim()) window.underField.push(slot.textContent.trim());
          }
        }).observe(document, { subtree: true, childList: true, characterData: true });"""
    )
    page.clock.install()  # its time flows, but for the typing below
    page.goto(server + compare_pages(site)[0])
    # Python ready, and the widget bound (the page's own performance marks are the clock's
    # fakes now, never found: _wait_compare_live cannot read them).
    expect(page.locator("html[data-calc-loading]")).to_have_count(0, timeout=60_000)
    expect(page.locator(".calc[data-compare][data-bound]")).to_have_count(1)
    assert page.locator('.calc[data-compare] [role="alert"]').count() == 0
    field, error = page.locator("#compare-bonus"), page.locator("#compare-bonus-error")
    field.select_text()
    # On a loaded machine the answers to '-' can take longer than the pause, and waiting
    # for them would be a pause.
    with clock_stood_still(page):
        page.keyboard.type("-")
        answers = page.locator(".compare-answer[data-system]")
        for answer in answers.all():  # each system has refused it
            expect(answer).to_contain_class("calc-result--stale")
        page.keyboard.type("2")
        asked = _asked(page)
        for answer in answers.all():
            expect(answer).to_have_text(_short_answer(answer.get_attribute("data-system"), asked))
        assert page.evaluate("window.underField") == []
    # A pause on a refused value says it, under the field and in the status line.
    page.keyboard.press("Backspace")
    expect(error).not_to_be_empty()
    expect(page.locator(".calc[data-compare] .calc-status-text")).not_to_be_empty()
    page.keyboard.type("3")
    expect(error).to_be_empty()
    watched.close()


def test_a_compare_page_whose_python_cannot_start_says_so_at_each_answer(
    browser: Browser, server: str, site: Path
) -> None:
    context = browser.new_context()
    context.route(WHEEL_FILES, lambda route: route.abort())
    page = context.new_page()
    page.goto(server + compare_pages(site)[0] + "?bonus=5")
    expect(page.locator(".calc[data-compare] .calc-status-text")).to_contain_text(
        "The calculator could not start", timeout=60_000
    )
    # The answers on screen are the page's own question's, not the reader's bonus, and
    # nothing will compute that: each says so, not "computing".
    answers = page.locator(".compare-answer[data-system]")
    assert answers.count() == len(system_slugs())
    for answer in answers.all():
        expect(answer).to_contain_class("calc-result--stale")
        mark = answer.evaluate("answer => getComputedStyle(answer, '::after').content")
        assert "could not start" in mark and "computing" not in mark, mark
    context.close()
