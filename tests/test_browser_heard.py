"""What a screen reader hears is what the screen shows, in Chromium's accessibility tree.

A shared link's inputs are not the defaults the build answered: until Python answers them,
none of the build's figures that differ from their answer is in the tree (before the
widgets' code has arrived too), and the status line says nothing untrue of them. How far
Python's download has got is a progress bar with a name, and the live region says each step
once, never each tick; the answer, once, when it arrives. A value being typed is said once
the typing pauses (its answer, or its refusal), or at once when the field is left; its error
never comes and goes under the field meanwhile. A docked answer that names a field takes a
tap to that field.

The announcements are counted as a screen reader hears them: each change of a live
region's text (role status, alert or log, or aria-live), watched from before the page's
scripts run. Calculators come from the registry, systems from content/systems.yml.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

import pytest
from conftest import (
    ARTIFACTS,
    CALCULATOR_PAGES,
    DEVICES,
    ROOT,
    Device,
    HeldWheel,
    Returning,
    clock_stood_still,
    wait_live,
)
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect
from test_reflow import VIEWS as REFLOW_VIEWS
from test_reflow import laid_out_anew

from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import PAGES
from rules_core.systems import system_slugs
from rules_core.web import handle

# Every change of a live region's text from the page's first content on: [when (ms),
# politeness, text, the calculator whose widget it is in]. A region's text as the page
# arrives (parsed, or brought by an instant navigation) is what it starts with, not a
# change; a region whose aria-live is "off" says nothing.
WATCH_LIVE_REGIONS = """
window.heard = [];
(() => {
  const LIVE = "[aria-live], [role=status], [role=alert], [role=log]";
  const last = new WeakMap();
  const politeness = (region) =>
    region.getAttribute("aria-live") ||
    (region.getAttribute("role") === "alert" ? "assertive" : "polite");
  const regionsIn = (node) =>
    node.nodeType !== 1 ? []
    : [...(node.matches(LIVE) ? [node] : []), ...node.querySelectorAll(LIVE)];
  let started = false;
  const start = () => {
    started = true;
    for (const region of document.querySelectorAll(LIVE)) {
      last.set(region, region.textContent.trim());
    }
  };
  document.addEventListener("DOMContentLoaded", start);
  new MutationObserver((changes) => {
    if (!started) return;
    const arrived = new Set();
    for (const change of changes) {
      for (const node of change.addedNodes) {
        for (const region of regionsIn(node)) {
          if (!last.has(region)) arrived.add(region);
        }
      }
    }
    for (const region of arrived) last.set(region, region.textContent.trim());
    const changed = new Set();
    for (const change of changes) {
      const node = change.target.nodeType === 1 ? change.target : change.target.parentElement;
      const region = node?.closest(LIVE);
      if (region && !arrived.has(region)) changed.add(region);
    }
    for (const region of changed) {
      const text = region.textContent.trim();
      if (text && text !== last.get(region) && politeness(region) !== "off") {
        const widget = region.closest("[data-calculator]")?.dataset.calculator ?? "";
        window.heard.push([performance.now(), politeness(region), text, widget]);
      }
      last.set(region, text);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""


class _Texts(HTMLParser):
    """An answer's text as a reader gets it: its text and its images' labels."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        label = dict(attrs).get("aria-label")
        if label:
            self.texts.add(label.strip())

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.texts.add(data.strip())


def texts_of(markup: str) -> set[str]:
    parser = _Texts()
    parser.feed(markup)
    parser.close()
    return parser.texts


def figures_of_another_answer(name: str, inputs: dict[str, str]) -> set[str]:
    """The figures of the build's answer (the defaults') that the answer to `inputs` does not
    give: each text with a digit in it, which none of the tree's names may hold while those
    inputs are on screen. A refused answer gives none."""
    built = texts_of(handle(name, {}, "../../")["html"])
    answer = handle(name, inputs, "../../")
    answered = texts_of(answer["html"]) if answer["ok"] else set()
    return {text for text in built - answered if re.search(r"\d", text) and len(text) >= 3}


def other_inputs(name: str) -> dict[str, str]:
    """Inputs other than the defaults, with another answer: the first number field one
    higher (or twice as high), else the first dice field with one more die."""
    default = handle(name, {})
    for field in CALCULATORS[name].fields:
        if field.group or not field.initial:
            continue
        if field.kind == "int" and field.initial.isdigit():
            values = [str(int(field.initial) + 1), str(int(field.initial) * 2 + 1)]
        elif field.kind == "dice":  # one more die: the value is no longer the default's
            values = [re.sub(r"\d+", lambda n: str(int(n.group()) + 1), field.initial, count=1)]
        else:
            continue
        for value in values:
            answer = handle(name, {field.name: value})
            if answer["ok"] and answer["summary"] != default["summary"]:
                return {field.name: value}
    raise AssertionError(f"{name}: no field gives another answer to test with")


def heard(page: Page) -> list[tuple[float, str, str]]:
    """(when, politeness, text) of each announcement so far."""
    return [(at, politeness, text) for at, politeness, text, _ in page.evaluate("window.heard")]


def tree_under(page: Page, selector: str) -> list[dict]:
    """The accessibility nodes Chromium exposes (not ignored) under the element, from its
    whole tree (Accessibility.getFullAXTree)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("Accessibility.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        found = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert found, f"no element {selector}"
        backend = cdp.send("DOM.describeNode", {"nodeId": found})["node"]["backendNodeId"]
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {node["nodeId"]: node for node in nodes}
    top = next(node["nodeId"] for node in nodes if node.get("backendDOMNodeId") == backend)

    def within(node: dict | None) -> bool:
        # By each node's parent (a text box's own text is not among its childIds).
        while node is not None:
            if node["nodeId"] == top:
                return True
            node = by_id.get(node.get("parentId", ""))
        return False

    # (An InlineTextBox repeats its StaticText, under another id at each call.)
    shown = [node for node in nodes if not node.get("ignored") and role_of(node) != "InlineTextBox"]
    return [node for node in shown if within(node)]


def name_of(node: dict) -> str:
    return str(node.get("name", {}).get("value", ""))


def role_of(node: dict) -> str:
    return str(node.get("role", {}).get("value", ""))


def value_text(node: dict) -> str:
    """A progress bar's value as said (aria-valuetext), else its value."""
    properties = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
    return str(properties.get("valuetext") or node.get("value", {}).get("value", ""))


def figures_heard(page: Page, calculator: str, figures: set[str]) -> list[str]:
    """The names in the widget's tree, its form's aside (a field's hint may give an example
    that is a default), that hold one of `figures`."""
    widget = f'.calc[data-calculator="{calculator}"]'
    form = {node["nodeId"] for node in tree_under(page, f"{widget} form")}
    names = [name_of(node) for node in tree_under(page, widget) if node["nodeId"] not in form]
    return [name for name in names if any(figure in name for figure in figures)]


def status_heard(page: Page, calculator: str) -> str:
    """What the widget's status line says in the tree."""
    nodes = tree_under(page, f'.calc[data-calculator="{calculator}"] .calc-status')
    return " ".join(name_of(node) for node in nodes if role_of(node) == "StaticText")


class Held:
    """Holds every request whose address matches `pattern` until released."""

    def __init__(self, context: BrowserContext, pattern: str) -> None:
        self.routes: list[Route] = []
        self.released = False
        self.pattern = pattern
        context.route(pattern, self._hold)

    def _hold(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self) -> None:
        self.released = True
        for route in self.routes:
            route.continue_()


def _first_with_another_answer(stem: str) -> tuple[str, dict[str, str]]:
    for name in CALCULATOR_PAGES[stem]:
        try:
            return name, other_inputs(name)
        except AssertionError:
            continue
    raise AssertionError(f"no calculator of {stem} gives another answer to test with")


# Where a shared link's inputs are read: a calculator page of the site (the widgets' code
# is calculator-site.mjs), or a calculator's embed page in another site's frame (embed-page.mjs).
WHERE = {
    "site": ("calculators/{stem}/", "**/calculator-site.mjs"),
    "embed": ("embed/{calculator}/", "**/embed-page.mjs"),
}


@pytest.mark.parametrize("where", list(WHERE))
@pytest.mark.parametrize("stem", list(CALCULATOR_PAGES))
def test_a_shared_link_keeps_the_defaults_figures_out_of_the_tree_while_python_loads(
    browser: Browser, server: str, stem: str, where: str
) -> None:
    """Python held back at the rules core: before the widgets' code has arrived (it is held
    too), and once it has bound them, no figure of the defaults' answer that the link's
    inputs do not give is in the tree; the status line does not say the figures are the
    build's; how far Python has got is a named progress bar. On the site's page and in the
    embed of the same inputs alike."""
    calculator, inputs = _first_with_another_answer(stem)
    figures = figures_of_another_answer(calculator, inputs)
    assert figures, f"{calculator}: the two answers differ in no figure"
    watched = Device(browser, server, "phone")
    page = watched.page
    wheel = HeldWheel(watched.context)
    path, code = WHERE[where]
    widgets_code = Held(watched.context, code)
    query = "&".join(f"{key}={value}" for key, value in inputs.items()).replace("+", "%2B")
    page.goto(f"{server}{path.format(stem=stem, calculator=calculator)}?{query}")
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    expect(widget.locator(".calc-result .calc-headline")).to_have_count(1)
    expect(widget).not_to_have_attribute("data-bound", "")
    for moment in ("before the widgets' code", "with the widgets bound"):
        if moment == "with the widgets bound":
            widgets_code.release()
            expect(widget).to_have_attribute("data-bound", "")
        assert figures_heard(page, calculator, figures) == [], moment
        status = status_heard(page, calculator)
        assert "when the site was built" not in status, (moment, status)
        bars = [
            node
            for node in tree_under(page, f'.calc[data-calculator="{calculator}"]')
            if role_of(node) == "progressbar"
        ]
        # An embed asks for Python only once its code runs (as it comes into view): before,
        # there is no progress to show.
        if where == "site" or moment == "with the widgets bound":
            assert len(bars) == 1 and "Python" in name_of(bars[0]), (moment, bars)
    page.screenshot(path=str(ARTIFACTS / f"heard-shared-link-{where}-{stem}.png"))
    wheel.release()
    watched.close()


def _first_with_a_system() -> str:
    """The registry's first calculator with a system field."""
    return next(
        name
        for name, calculator in CALCULATORS.items()
        if any(field.kind == "system" for field in calculator.fields)
    )


def test_a_throttled_shared_link_says_each_step_once_and_its_answer_once(
    browser: Browser, server: str
) -> None:
    """A shared link on a slow connection: the progress bar follows the download, tick by
    tick, while the live region says each step of Python's start once (never a tick's
    figures); then the link's answer, said once, is in the tree."""
    calculator = _first_with_a_system()
    inputs = other_inputs(calculator)
    answer = handle(calculator, inputs)
    watched = Device(browser, server, "phone")
    page = watched.page
    page.add_init_script(WATCH_LIVE_REGIONS)
    page.add_init_script(
        """window.progressSaid = [];
        new MutationObserver((changes) => {
          for (const change of changes) {
            if (change.target.localName !== "progress") continue;
            window.progressSaid.push(change.target.getAttribute("aria-valuetext"));
          }
        }).observe(document, {
          subtree: true, attributes: true, attributeFilter: ["aria-valuetext"]
        });"""
    )
    cdp = watched.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 150,
            "downloadThroughput": 500_000,
            "uploadThroughput": 93_750,
        },
    )
    query = "&".join(f"{key}={value}" for key, value in inputs.items()).replace("+", "%2B")
    page.goto(f"{server}calculators/{PAGES[calculator]}/?{query}", wait_until="commit")
    wait_live(page, calculator)
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    summary = answer["summary"]
    said = page.locator(f'.calc[data-calculator="{calculator}"] .calc-status')
    expect(said).to_contain_text(summary.splitlines()[0])
    progress = [text for text in page.evaluate("window.progressSaid") if text]
    announced = [text for _, politeness, text in heard(page) if politeness == "polite"]
    ticks = [text for text in progress if re.search(r"\d+\.\d of \d+\.\d MB", text)]
    assert len(set(ticks)) >= 5, progress
    before_answer = announced[
        : next(i for i, text in enumerate(announced) if summary.splitlines()[0] in text)
    ]
    assert len(before_answer) <= 3, before_answer
    assert not any(re.search(r"\d+\.\d of \d+\.\d MB", text) for text in before_answer), (
        before_answer
    )
    assert sum(summary.splitlines()[0] in text for text in announced) == 1, announced
    assert [p for _, p, _ in heard(page) if p == "assertive"] == []
    names = [name_of(node) for node in tree_under(page, f'.calc[data-calculator="{calculator}"]')]
    first_part = summary.splitlines()[0].split(" · ")[0]
    assert any(first_part in name for name in names), names
    watched.close()


def _a_link_to_another_calculator() -> tuple[str, str, dict[str, str]]:
    """(the page whose built answer links to another calculator's page, the calculator
    linked to, the link's inputs), from the registry's answers."""
    for name in CALCULATORS:
        markup = handle(name, {}, "../../")["html"]
        for href in re.findall(r'href="([^"]*calculators/[a-z]+/\?[^"]*)"', markup):
            stem = urlsplit(href).path.rstrip("/").split("/")[-1]
            inputs = dict(
                parse_qsl(urlsplit(href.replace("&amp;", "&")).query, keep_blank_values=True)
            )
            return PAGES[name], CALCULATOR_PAGES[stem][0], inputs
    raise AssertionError("no answer links to another calculator: the test checks nothing")


def test_a_calculator_opened_from_another_answer_hears_no_figures_and_its_dock_goes_to_its_field(
    browser: Browser, server: str
) -> None:
    """A calculator opened from a link in another one's answer (a fight from the encounter's
    budget, no party kept): until its own answer, none of its build's figures the link's
    inputs do not give is in the tree; where its answer names a field (a question not yet
    complete, a refusal), a tap on the docked answer goes to that field."""
    stem, target, inputs = _a_link_to_another_calculator()
    figures = figures_of_another_answer(target, inputs)
    assert figures
    expected = handle(target, inputs, "../../")
    named = [*expected.get("notes", {}), *expected["errors"]]
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}calculators/{stem}/")
    for calculator in CALCULATOR_PAGES[stem]:
        wait_live(page, calculator)
    link = page.locator(f'.calc-result a[href*="calculators/{PAGES[target]}/"]').first
    link.scroll_into_view_if_needed()
    link.tap()
    result = page.locator(f"#{target}-result")
    expect(result).to_have_attribute("aria-busy", "false", timeout=60_000)
    assert figures_heard(page, target, figures) == []
    if not named:
        watched.close()
        return
    field = page.locator(f"#{target}-{named[0]}")
    dock = result.locator(".calc-headline")
    expect(dock).to_be_in_viewport()
    before = page.evaluate("scrollY")
    dock.tap(position={"x": 10, "y": 10})
    expect(field).to_be_focused()
    page.wait_for_function(
        """(field) => {
          const box = field.getBoundingClientRect();
          const dock = field.closest(".calc").querySelector(".calc-headline")
            .getBoundingClientRect();
          const header = document.querySelector(".md-header").getBoundingClientRect();
          return box.top >= header.bottom - 1 && box.bottom <= dock.top + 1;
        }""",
        arg=field.element_handle(),
    )
    page.screenshot(path=str(ARTIFACTS / "heard-dock-goes-to-field.png"))
    assert abs(page.evaluate("scrollY") - before) < page.viewport_size["height"] * 2
    watched.close()


def _a_dice_calculator() -> tuple[str, str]:
    """(calculator, its main field): the registry's first whose main field is a dice roll."""
    for name, calculator in CALCULATORS.items():
        primary = next(field for field in calculator.fields if field.name == calculator.primary)
        if primary.kind == "dice":
            return name, primary.name
    raise AssertionError("no calculator's main field is a dice roll")


# The pause in the typing after which a field's refusal is said (calculator-refusal.mjs),
# and a millisecond past it.
PAST_THE_TYPING_PAUSE_MS = 1 + int(
    re.search(
        r"TYPING_PAUSE_MS = (\d+);",
        (ROOT / "docs/assets/javascripts/calculator-refusal.mjs").read_text("utf-8"),
    )[1]
)


def _typed_into(page: Page, calculator: str, name: str, text: str, replacing: bool = True) -> None:
    """`text` typed into the field (over its text, selected first, or after it) as a player
    types, a key every 150 ms, well within the pause, without waiting for the answers: on a
    busy machine an answer can take longer than the pause, and waiting for it would be a
    pause. (Quiet, each key's answer, a refusal too, comes before the next key: what an
    alert at each key would have said.)"""
    field = page.locator(f"#{calculator}-{name}")
    field.focus()
    if replacing:
        field.select_text()
    page.keyboard.type(text, delay=150)


def test_typing_a_dice_roll_is_said_once_it_pauses_and_never_as_errors(
    browser: Browser, server: str
) -> None:
    """'1d10+4' typed key by key ('1d' and '1d10+' are refused on the way): nothing under
    the field comes and goes, and the live region says one thing, the answer, once the
    typing pauses."""
    calculator, name = _a_dice_calculator()
    typed = "1d10+4"
    steps = [handle(calculator, {name: typed[:n]}) for n in range(1, len(typed) + 1)]
    assert any(not step["ok"] for step in steps), "no refused step: the test checks nothing"
    final = steps[-1]["summary"].splitlines()[0]
    watched = Device(browser, server, "phone")
    page = watched.page
    page.add_init_script(WATCH_LIVE_REGIONS)
    page.add_init_script(
        """window.underField = [];
        new MutationObserver(() => {
          for (const slot of document.querySelectorAll(".calc-error")) {
            if (slot.textContent.trim()) window.underField.push(slot.textContent.trim());
          }
        }).observe(document, { subtree: true, childList: true, characterData: true });"""
    )
    page.clock.install()  # its time flows, but for the typing below
    page.goto(f"{server}calculators/{PAGES[calculator]}/")
    wait_live(page, calculator)
    page.evaluate("window.heard.length = 0")
    # On a loaded machine two keys sent 150 ms apart can reach the page more than the pause
    # apart, which would be a pause.
    with clock_stood_still(page):
        _typed_into(page, calculator, name, typed)
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    expect(widget.locator(".calc-headline")).to_contain_text(final)
    expect(widget.locator(".calc-status")).to_contain_text(final)
    said = heard(page)
    assert [(politeness, text) for _, politeness, text in said] == [("polite", final)], said
    assert page.evaluate("window.underField") == []
    watched.close()


def test_a_refusal_is_said_after_a_pause_or_at_once_on_leaving_the_field_and_its_dock_goes_there(
    browser: Browser, server: str
) -> None:
    calculator, name = _a_dice_calculator()
    refused = handle(calculator, {name: "1d6+"})
    other = handle(calculator, {name: "1d6+x"})
    assert not refused["ok"] and not other["ok"]
    message, later = refused["errors"][name], other["errors"][name]
    assert message != later
    watched = Device(browser, server, "phone")
    page = watched.page
    page.add_init_script(WATCH_LIVE_REGIONS)
    page.clock.install()  # its time flows, but for the typing below
    page.goto(f"{server}calculators/{PAGES[calculator]}/")
    wait_live(page, calculator)
    page.evaluate("window.heard.length = 0")
    field = f"#{calculator}-{name}"
    error = page.locator(f"{field}-error")
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    headline = widget.locator(".calc-headline")
    # The clock stands still from here: on a loaded machine two keys sent 150 ms apart
    # reached the page more than the pause apart, and '1d' was said as a refusal on the way.
    # (Once and for all: after a resume, this Playwright's page clock misreads its time.)
    with clock_stood_still(page):
        _typed_into(page, calculator, name, "1d6+")
        # After a pause, the page's timers run through it: beside the field, and said once,
        # politely.
        page.clock.run_for(PAST_THE_TYPING_PAUSE_MS)
        expect(error).to_have_text(message)
        expect(widget.locator(".calc-status")).to_contain_text(message)
        said = [(politeness, text) for _, politeness, text in heard(page)]
        assert len(said) == 1 and said[0][0] == "polite" and message in said[0][1], said
        # Typed on: the message stays as it is until the typing pauses or the field is left.
        # The pause cannot end before the answer to the key comes (on a busy machine it may
        # come after a second).
        _typed_into(page, calculator, name, "x", replacing=False)
        page.wait_for_function(
            "(h) => getComputedStyle(h, '::after').content.includes('typing')",
            arg=headline.element_handle(),
        )
        expect(error).to_have_text(message)
        page.keyboard.press("Tab")
        assert error.text_content() == later  # at once: no pause waited for
    said = [(politeness, text) for _, politeness, text in heard(page)]
    assert len(said) == 2 and later in said[1][1], said
    # The docked answer names the field: a tap on it (not on its button) goes there.
    expect(page.locator(field)).not_to_be_focused()
    headline.locator(".calc-refusal-text").tap()
    expect(page.locator(field)).to_be_focused()
    page.screenshot(path=str(ARTIFACTS / "heard-refusal-dock-tap.png"))
    watched.close()


# Where each of the headline's first two parts lies: whether a word of it is broken over two
# lines, whether it is inside the dock's box (never cut) and shown; and whether the dock is
# docked. A part lies in one text node.
PARTS_SHOWN = r"""(headline) => {
  const text = headline.textContent;
  const parts = FIRST_LINE.split(" · ").slice(0, 2);
  const box = headline.getBoundingClientRect();
  const found = [];
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    if (at < 0) { found.push({ part, missing: true }); continue; }
    from = at + part.length;
    const range = document.createRange();
    let seen = 0;
    const walker = document.createTreeWalker(headline, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const end = seen + node.data.length;
      if (seen <= at && at < end) range.setStart(node, at - seen);
      if (seen < from && from <= end) range.setEnd(node, from - seen);
      seen = end;
    }
    const rects = [...range.getClientRects()].filter((r) => r.width > 0.5);
    // Its words each whole on a line: a part may wrap between its words, never inside one
    // (a word as tests/test_reflow.py has it: a line may break after a dash, "(10–" "30)").
    const broken = [];
    for (const word of part.matchAll(/[^\s\-–—/]+[\-–—/]?/g)) {
      const one = document.createRange();
      one.setStart(range.startContainer, range.startOffset + word.index);
      one.setEnd(range.startContainer, range.startOffset + word.index + word[0].length);
      const lines = new Set([...one.getClientRects()].filter((r) => r.width > 0.5)
        .map((r) => Math.round(r.bottom)));
      if (lines.size !== 1) broken.push(word[0]);
    }
    const parent = range.startContainer.parentElement;
    found.push({
      part,
      broken,
      inside: rects.length > 0 && rects.every((r) => r.left >= box.left - 1
        && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1),
      shown: getComputedStyle(parent).visibility !== "hidden" && parent.getClientRects().length > 0,
    });
  }
  return { docked: box.bottom >= innerHeight - 1, parts: found };
}"""

VIEWS = {"375 px": DEVICES["phone"], "200% text": REFLOW_VIEWS["200% text"]}


def dock_shows_its_first_parts(page: Page, calculator: str) -> dict:
    """The docked answer's first two parts, each whole on one line inside the dock."""
    summary = page.locator(f'.calc[data-calculator="{calculator}"] .calc-headline').evaluate(
        "(h) => [...h.childNodes].filter((n) => !n.classList?.contains('calc-why')"
        " && !n.classList?.contains('calc-refusal')).map((n) => n.textContent).join('')"
    )
    headline = page.locator(f'.calc[data-calculator="{calculator}"] .calc-headline')
    return headline.evaluate(
        f"(headline) => {{ const FIRST_LINE = {json.dumps(summary)}; "
        f"return ({PARTS_SHOWN})(headline); }}"
    )


def _with_checks_and_a_system() -> list[str]:
    """The calculators with a system and a box to tick (what a box adds, under the
    headline, is what crowds a phone's dock)."""
    return [
        name
        for name, calculator in CALCULATORS.items()
        if any(field.kind == "system" for field in calculator.fields)
        and any(field.kind == "check" for field in calculator.fields)
    ]


@pytest.mark.parametrize("calculator", _with_checks_and_a_system())
def test_the_dock_shows_its_first_two_figures_whole_for_every_system_with_every_box_ticked(
    browser: Browser, server: str, calculator: str
) -> None:
    """Both sides' chances (a fight's), a roll's mean and range: the dock's first two
    parts stay whole at 200% text and on a phone, wrapping to a second line rather than
    cutting a number, however much the ticked boxes add under them. The page is loaded at
    200% text, then laid out at 375 px (tests/test_reflow.laid_out_anew): one Python."""
    first, then = "200% text", "375 px"
    device = Returning(browser, server, **VIEWS[first])
    page = device.page
    page.goto(f"{server}calculators/{PAGES[calculator]}/")
    wait_live(page, calculator)
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    failures = {}
    for view in (first, then):
        if view == then:
            laid_out_anew(page, VIEWS[then]["viewport"])
        for system in system_slugs():
            select = widget.locator('select[name="system"]')
            select.focus()
            select.select_option(system)
            wait_live(page, calculator)
            widget.locator("form details").evaluate_all(
                "(folds) => folds.forEach((f) => (f.open = true))"
            )
            boxes = widget.locator(".calc-field--check input[type=checkbox]")
            for index in range(boxes.count()):
                box = boxes.nth(index)
                if box.is_visible() and not box.is_checked():
                    box.focus()
                    box.check()
                    wait_live(page, calculator)
            widget.locator(".calc-field--check input[type=checkbox]:visible, select").first.focus()
            shown = dock_shows_its_first_parts(page, calculator)
            assert shown["docked"], (view, system, shown)
            bad = [
                p
                for p in shown["parts"]
                if p.get("missing") or p["broken"] or not p["inside"] or not p["shown"]
            ]
            if bad:
                failures[f"{system} at {view}"] = bad
            page.screenshot(
                path=str(ARTIFACTS / f"heard-dock-{calculator}-{system}-{view.split()[0]}.png")
            )
    device.close()
    assert failures == {}


def test_a_refusal_said_in_the_dock_at_200_percent_text_stays_a_line_with_its_button(
    browser: Browser, server: str
) -> None:
    """At 200% text the docked answer is a line: once a refused value is said (the field
    left), the dock holds the button to the field and what fits of the refusal beside it,
    within a quarter of the screen, never the refusal's words a letter a line."""
    calculator, name = _a_dice_calculator()
    assert not handle(calculator, {name: "1d6+"})["ok"]
    device = Returning(browser, server, **VIEWS["200% text"])
    page = device.page
    page.goto(f"{server}calculators/{PAGES[calculator]}/")
    wait_live(page, calculator)
    _typed_into(page, calculator, name, "1d6+")
    page.keyboard.press("Tab")
    headline = page.locator(f"#{calculator}-result .calc-headline")
    expect(headline.locator(".calc-refusal")).to_have_count(1)
    expect(headline).to_have_class(re.compile(r"\bcalc-headline--line\b"))
    where = headline.evaluate(
        """(dock) => ({
          height: dock.getBoundingClientRect().height,
          room: innerHeight - document.querySelector(".md-header").getBoundingClientRect().bottom,
          button: dock.querySelector(".calc-refusal-go").getBoundingClientRect().height,
        })"""
    )
    assert where["button"] > 0 and where["height"] <= where["room"] / 4 + 1, where
    page.screenshot(path=str(ARTIFACTS / "heard-refusal-dock-200.png"))
    device.close()
