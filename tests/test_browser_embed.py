"""Embeds (issue 56): a calculator of this site in another site's page, as a GM makes one.

The site is served on 127.0.0.1 as a static host serves it (text gzipped), and the host
page (a campaign wiki) on `localhost`, another site: it holds the snippets the site's own
Embed button gives for shared links. Chromium runs as it ships, with a frame of another
site given storage of its own, partitioned by the site in the address bar (`partitioned`:
Playwright turns that off, and Chromium then keeps no storage for such a frame at all,
which the `browser` fixture keeps: a reader who blocks third-party cookies, a private
window). The calculators come from the registry, the systems from content/systems.yml.
Screenshots at 375 px go to test-artifacts/.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
import yaml
from conftest import (
    ARTIFACTS,
    DEVICES,
    WASM_FILE,
    FirstRequestAborted,
    QuietServer,
    hold_python,
    launch_options,
    said_code_missing,
    settled_address,
)
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Frame,
    FrameLocator,
    Locator,
    Page,
    Route,
    expect,
)

from hooks.package.offline import offline_manifest
from rules_core.calculators import CALCULATORS

ROOT = Path(__file__).resolve().parent.parent
COMPRESSED = (".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg", ".webmanifest")
MOST_FIRST_PAINT_BYTES = 100_000
SIZES = {
    320: {"viewport": {"width": 320, "height": 640}, "has_touch": True, "is_mobile": True},
    375: DEVICES["phone"],
    1280: DEVICES["desktop"],
}
# What the frame's answer place says while Python downloads (calculator-client.mjs).
DOWNLOADING = re.compile(r"downloading the calculators' Python, once per device: \d+\.\d of")


def systems() -> list[str]:
    return yaml.safe_load((ROOT / "content" / "systems.yml").read_text("utf-8"))["systems"]


def rolling_calculators() -> list[str]:
    """The calculators that take a system and roll damage dice (the attack, the damage, the
    fight): the three of the issue, found by what they ask."""
    found = [
        name
        for name, calculator in CALCULATORS.items()
        if {"system", "dice"} <= {field.kind for field in calculator.fields}
        and any(field.kind == "dice" and field.initial for field in calculator.fields)
    ]
    assert len(found) >= 3, found
    return found[:3]


def shared_query(name: str) -> dict[str, str]:
    """A shared link's inputs: the last system of content/systems.yml, and the first number
    one more than its default (or the first roll, one more), where the calculator has one for
    that system, so only a live answer, never the build-time one, answers it."""
    calculator = CALCULATORS[name]
    system = next(field for field in calculator.fields if field.kind == "system")
    chosen = [slug for slug in systems() if slug in dict(system.choices)][-1]
    inputs = {system.name: chosen}
    shown = [f for f in calculator.fields if chosen in (calculator.field_systems(f) or [chosen])]
    number = next((f for f in shown if f.kind == "int" and f.initial.isdigit()), None)
    roll = next((f for f in shown if f.kind == "dice" and f.initial), None)
    if number is not None:
        inputs[number.name] = str(int(number.initial) + 1)
    elif roll is not None:
        inputs[roll.name] = f"{roll.initial}+1"
    return inputs


# ---------------------------------------------------------------------- the servers


class Served:
    """A folder on a port of its own, as a static host serves it: text gzipped where the
    browser accepts it, each request counted by path; at a phone's pace where `pace` is set
    (bytes a second through one pipe, every response after a round trip)."""

    def __init__(self, directory: Path, host: str) -> None:
        self.counts: Counter[str] = Counter()
        self.pace: tuple[float, float] | None = None
        self._pipe = threading.Lock()
        self._free_at = 0.0
        served = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format, *args):
                pass

            def send_head(self):
                served.counts[self.path.split("?")[0]] += 1
                if served.pace:
                    time.sleep(served.pace[1])
                path = Path(self.translate_path(self.path))
                if path.is_dir():
                    path = path / "index.html"
                accepts = "gzip" in self.headers.get("Accept-Encoding", "")
                if not (accepts and path.is_file() and path.suffix in COMPRESSED):
                    return super().send_head()
                body = gzip.compress(path.read_bytes(), 6)
                self.send_response(200)
                self.send_header("Content-Type", self.guess_type(str(path)))
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                return io.BytesIO(body)

            def copyfile(self, source, outputfile):
                while chunk := source.read(16_384):
                    served.wait_for_pipe(len(chunk))
                    outputfile.write(chunk)

        handler = functools.partial(Handler, directory=str(directory))
        self.httpd = QuietServer((host, 0), handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.origin = f"http://{host}:{self.httpd.server_address[1]}/"

    def wait_for_pipe(self, size: int) -> None:
        if not self.pace:
            return
        with self._pipe:
            start = max(time.monotonic(), self._free_at)
            self._free_at = start + size / self.pace[0]
            done = self._free_at
        time.sleep(max(0.0, done - time.monotonic()))

    def downloads(self, name: str) -> int:
        return sum(count for path, count in self.counts.items() if path.endswith(name))

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def site_server(site: Path) -> Iterator[Served]:
    served = Served(site, "127.0.0.1")
    yield served
    served.close()


@pytest.fixture(scope="module")
def host_folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("host")


@pytest.fixture(scope="module")
def host_server(host_folder: Path) -> Iterator[Served]:
    """The embedding page's site: `localhost`, not the site's 127.0.0.1."""
    served = Served(host_folder, "localhost")
    yield served
    served.close()


@pytest.fixture(scope="module")
def partitioned(browser: Browser) -> Iterator[Browser]:
    """Chromium as it ships since 115: a frame of another site has storage, locks and a
    service worker of its own, partitioned by the site in the address bar. Playwright's
    launch disables that (ThirdPartyStoragePartitioning, in its own --disable-features):
    launched here with the rest of its list."""
    launched = browser.browser_type.launch(
        **launch_options(browser.browser_type, enabled=("ThirdPartyStoragePartitioning",))
    )
    yield launched
    launched.close()


class Host:
    """A page of the host's site holding embed snippets, in a context of its own."""

    def __init__(self, browser: Browser, folder: Path, server: Served, name: str, size: int):
        self.folder, self.server, self.name = folder, server, name
        self.context: BrowserContext = browser.new_context(**SIZES[size])
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def open(self, snippets: list[str], text: str = "", between: str = "") -> None:
        parts = [f"<h2>Embed {index + 1}</h2>\n{s}\n" for index, s in enumerate(snippets)]
        body = between.join(parts)
        (self.folder / f"{self.name}.html").write_text(
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<link rel="icon" href="data:,"><title>My campaign wiki</title></head>'
            f'<body style="margin:1rem;font-family:sans-serif"><h1>Session 12</h1>{text}'
            f"{body}</body></html>",
            encoding="utf-8",
        )
        self.page.goto(f"{self.server.origin}{self.name}.html")

    def frame(self, index: int) -> FrameLocator:
        return self.page.frame_locator("iframe").nth(index)

    def bring_into_view(self, index: int) -> None:
        """A reader scrolls to the index-th embed: one out of view has not started Python,
        and, a frame of another site, does not update its rendering (Chromium throttles
        it)."""
        self.page.locator("iframe").nth(index).scroll_into_view_if_needed()

    def content(self, index: int) -> Frame:
        frame = self.page.locator("iframe").nth(index).element_handle().content_frame()
        assert frame is not None
        return frame

    def scroll_to(self, index: int, inside: Locator) -> None:
        """A reader scrolls this page, and the index-th frame where it scrolls inside (one
        whose height no script set), until what is inside it is near the top of the screen,
        as the wheel would. Not a scroll asked from inside the frame (Playwright's, before a
        click): a frame of another site runs in a process of its own, which passes the
        scroll to this page asynchronously, and a click is then aimed where the frame was."""
        below_its_top = inside.evaluate(
            "e => (scrollTo(0, scrollY + e.getBoundingClientRect().top - 160),"
            " e.getBoundingClientRect().top)"
        )
        self.page.locator("iframe").nth(index).evaluate(
            "(frame, y) => scrollTo(0, scrollY + frame.getBoundingClientRect().top + y - 160)",
            below_its_top,
        )
        expect(inside).to_be_in_viewport()

    def close(self) -> None:
        self.context.close()
        # The host page's own icon is data:, so every console error is the embeds'.
        assert self.errors == []
        assert self.dialogs == []


def live(frame: FrameLocator, name: str, timeout: int = 90_000) -> str:
    """Waits for Python's answer in an embed (not the build's, not out of date): its headline.
    Each condition waits as long as Python's start may take: the result stops being busy as
    soon as Python is ready where the inputs are the build's (the answer shown is theirs),
    before Python's own answer has replaced the build's. A wait that runs out says what the
    embed showed."""
    widget = frame.locator(f'.calc[data-calculator="{name}"]')
    result = widget.locator(".calc-result")
    try:
        expect(result).to_have_attribute("aria-busy", "false", timeout=timeout)
        expect(result).not_to_contain_class("calc-result--stale", timeout=timeout)
        expect(result).not_to_contain_class("calc-result--built", timeout=timeout)
    except AssertionError as error:
        shown = widget.evaluate(
            """section => ({sectionClass: section.className,
                resultClass: section.querySelector('.calc-result')?.className,
                busy: section.querySelector('.calc-result')?.getAttribute('aria-busy'),
                status: section.querySelector('.calc-status')?.textContent.trim(),
                calculators: document.documentElement.dataset.calculators ?? null})""",
            timeout=5_000,
        )
        raise AssertionError(f"the embed of {name} is not live: {shown}") from error
    return result.locator(".calc-headline").inner_text()


def fitted(frame: Frame, timeout: float = 30) -> dict:
    """Waits until the frame holds its content without scrolling, as the host script sets
    its height; returns the frame's sizes."""
    deadline = time.monotonic() + timeout
    while True:
        sizes = frame.evaluate(
            "() => ({scrollHeight: document.documentElement.scrollHeight, innerHeight,"
            " scrollWidth: document.documentElement.scrollWidth, innerWidth})"
        )
        inside = sizes["scrollHeight"] <= sizes["innerHeight"]
        if inside and sizes["scrollWidth"] <= sizes["innerWidth"]:
            return sizes
        assert time.monotonic() < deadline, f"{frame.url} scrolls inside: {sizes}"
        frame.page.wait_for_timeout(100)


def full_page_and_snippet(page: Page, origin: str, name: str, inputs: dict[str, str]):
    """A calculator's page opened by a shared link: its live answer, and the snippet its
    Embed button gives for those inputs."""
    page.goto(f"{origin}calculators/{_page_of(name)}/?{urlencode(inputs)}")
    widget = page.locator(f'.calc[data-calculator="{name}"]')
    result = widget.locator(".calc-result")
    expect(result).to_have_attribute("aria-busy", "false", timeout=90_000)
    expect(result).not_to_contain_class("calc-result--stale")
    figure = result.locator(".calc-headline").inner_text()
    widget.locator(".calc-embed").click()
    code = widget.locator(".calc-embed-code")
    expect(code).to_be_visible()
    return figure, code.input_value(), settled_address(page)


def _page_of(name: str) -> str:
    from rules_core.calculators.address import PAGES

    return PAGES[name]


def iframe_of(snippet: str) -> dict[str, str]:
    found = re.search(r"<iframe ([^>]*)>", snippet)
    assert found, snippet
    return {
        k: v.replace("&amp;", "&") for k, v in re.findall(r'([\w-]+)="([^"]*)"', found.group(1))
    }


def screenshot(host: Host, name: str, index: int | None = None) -> None:
    """The host page's screen, with embed `index`'s answer in view where one is named."""
    if index is not None:
        host.scroll_to(index, host.frame(index).locator(".calc-headline").first)
    ARTIFACTS.mkdir(exist_ok=True)
    host.page.screenshot(path=str(ARTIFACTS / f"embed-{name}.png"))


# ---------------------------------------------------------------------- the tests


def test_every_calculator_offers_an_embed_of_the_inputs_on_screen(
    browser: Browser, site_server: Served
) -> None:
    """Embed beside Copy link on every calculator of every page: its snippet's frame has a
    title and the inputs on screen in a shared link's format (a link and an embed of the same
    inputs open the same question), with the host script beside it; the snippet follows an
    edit, and the theme chosen. Python is held (none of this is its), as on a slow phone
    whose reader embeds before the answer comes."""
    context = browser.new_context(**SIZES[375])
    hold_python(context)
    page = context.new_page()
    for name, calculator in CALCULATORS.items():
        has_system = any(f.kind == "system" for f in calculator.fields)
        inputs = shared_query(name) if has_system else {}
        numbers = [f for f in calculator.fields if f.kind == "int" and f.initial.isdigit()]
        if not has_system and numbers:
            inputs = {numbers[0].name: str(int(numbers[0].initial) + 1)}
        number = next((f for f in numbers if f.name in inputs), None)
        page.goto(f"{site_server.origin}calculators/{_page_of(name)}/?{urlencode(inputs)}")
        widget = page.locator(f'.calc[data-calculator="{name}"]')
        embed = widget.locator(".calc-embed")
        expect(embed).to_be_visible()
        expect(embed).to_have_attribute("aria-expanded", "false")
        embed.click()
        expect(embed).to_have_attribute("aria-expanded", "true")
        code = widget.locator(".calc-embed-code")
        frame = iframe_of(code.input_value())
        assert frame["title"].strip(), name
        src = urlsplit(frame["src"])
        assert frame["src"].startswith(f"{site_server.origin}embed/{name}/"), frame
        # The page's own address for these inputs holds the same, in the same words.
        assert dict(parse_qsl(src.query)) == inputs, (name, src.query)
        assert dict(parse_qsl(urlsplit(settled_address(page)).query)).items() >= inputs.items()
        assert f'src="{site_server.origin}assets/javascripts/embed-host.js"' in code.input_value()
        # It follows the reader's edits, and the theme chosen.
        if number is not None:
            widget.locator(f'[name="{number.name}"]').fill(str(int(number.initial) + 2))
            expect(code).to_have_value(
                re.compile(rf"(\?|&amp;){number.name}={int(number.initial) + 2}[&\"]")
            )
        widget.locator(f"#{name}-embed-theme").select_option("dark")
        expect(code).to_have_value(re.compile(r"(\?|&amp;)theme=dark\""))
    context.close()


@pytest.mark.parametrize(("size", "throttled"), [(375, True), (1280, False)])
def test_three_embeds_of_shared_links_answer_as_their_full_pages_from_one_python(
    browser: Browser,
    partitioned: Browser,
    site_server: Served,
    host_server: Served,
    host_folder: Path,
    size: int,
    throttled: bool,
) -> None:
    """A GM copies three shared links' snippets (attack, damage, fight) into a wiki page: a
    reader's first visit to it (nothing cached, the site never seen from there) shows in each
    embed the figure the full page answers for the same inputs, as each comes into view,
    having downloaded Python's WebAssembly once for the three; no embed scrolls inside, after
    its answer or after an edit. At 375 px over a slow connection, each says how far Python's
    download has got meanwhile; then the window narrows to 320 px (the narrowest phone, a
    split screen) and each refits, still not scrolling inside. Two first visits: one where
    the embeds come into view one by one, one (a laptop) where they may start together."""
    names = rolling_calculators()
    reader = browser.new_context(**SIZES[size])
    full = reader.new_page()
    figures, snippets = [], []
    for name in names:
        figure, snippet, _ = full_page_and_snippet(
            full, site_server.origin, name, shared_query(name)
        )
        figures.append(figure)
        snippets.append(snippet)
    reader.close()
    host = Host(partitioned, host_folder, host_server, f"three-{size}", size)
    site_server.counts.clear()
    site_server.pace = (500_000, 0.15) if throttled else None  # 4 Mbps, a phone's round trip
    try:
        host.open(snippets, "<p>Tonight's odds, as the rules say.</p>")
        said: list[str] = []
        for index, (name, figure) in enumerate(zip(names, figures, strict=True)):
            frame = host.frame(index)
            # A reader scrolls to it: Python starts as the first embed comes into view.
            host.bring_into_view(index)
            if throttled and index == 0:
                said = _what_it_says_until_live(frame, name)
            assert live(frame, name, timeout=180_000) == figure, name
            if size == 375:
                screenshot(host, f"{size}-{name}", index)
        assert site_server.downloads(WASM_FILE) == 1, site_server.counts
        assert len(host.page.workers) == 1  # one Python, started once, for the three
        # A citation opens on the site, in a tab of its own: the frame stays as it was.
        shown = host.content(0).url
        citation = host.frame(0).locator(".calc-sources a").first
        host.scroll_to(0, citation)
        with host.context.expect_page() as opened:
            citation.click()
        assert opened.value.url.startswith(site_server.origin)
        assert host.content(0).url == shown
        opened.value.close()
        if throttled:
            assert any(DOWNLOADING.search(text) for text in said), said[:5]
        for index in range(len(names)):
            fitted(host.content(index))
        # An edit in each: answered, and still no scrolling inside.
        for index, name in enumerate(names):
            frame = host.frame(index)
            before = frame.locator(".calc-headline").inner_text()
            _edit(frame, name)
            expect(frame.locator(".calc-headline")).not_to_have_text(before, timeout=60_000)
            live(frame, name)
            fitted(host.content(index))
        if size == 375:
            screenshot(host, f"{size}-edited", 0)
            host.page.set_viewport_size(SIZES[320]["viewport"])
            for index in range(len(names)):
                host.bring_into_view(index)
                fitted(host.content(index))
                assert host.content(index).evaluate("() => innerWidth") < 320
        assert site_server.downloads(WASM_FILE) == 1, site_server.counts
    finally:
        site_server.pace = None
    host.close()


def _what_it_says_until_live(frame: FrameLocator, name: str) -> list[str]:
    """Where the embed's answer is read, as it changes, until Python's answer is there."""
    headline = frame.locator(f'.calc[data-calculator="{name}"] .calc-headline')
    said: list[str] = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        text = headline.evaluate("h => getComputedStyle(h, '::after').content")
        if not said or said[-1] != text:
            said.append(text)
        if DOWNLOADING.search(text) is None and said and any(DOWNLOADING.search(t) for t in said):
            break
        headline.page.wait_for_timeout(100)
    return said


def _edit(frame: FrameLocator, name: str) -> None:
    """A GM's edit of the first number the embed shows (one more), or of its first roll."""
    calculator = CALCULATORS[name]
    for field in calculator.fields:
        control = frame.locator(f'.calc[data-calculator="{name}"] [name="{field.name}"]')
        if field.kind not in ("int", "dice") or not control.is_visible():
            continue
        value = control.input_value()
        if field.kind == "int" and value.lstrip("-").isdigit():
            control.fill(str(int(value) + 1))
            return
        if field.kind == "dice" and value:
            control.fill(f"{value}+1")
            return
    raise AssertionError(f"{name} shows no number or roll to change")


# The first paint of a frame, and what it had received by then: the page's own response and
# every file whose response had ended (the Resource Timing of the frame, its own site's).
FIRST_PAINT = """() => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  if (!paint) return null;
  const [page] = performance.getEntriesByType("navigation");
  const before = performance.getEntriesByType("resource")
    .filter((r) => r.responseEnd <= paint.startTime);
  const headline = document.querySelector(".calc-headline");
  return {
    at: paint.startTime,
    bytes: page.transferSize + before.reduce((sum, r) => sum + r.transferSize, 0),
    files: [page.name, ...before.map((r) => r.name)],
    hidden: document.documentElement.hasAttribute("data-calc-address"),
    headline: headline && getComputedStyle(headline.firstElementChild || headline).visibility,
  };
}"""


def test_an_embed_of_the_defaults_shows_its_answer_after_at_most_100_kb(
    partitioned: Browser, site_server: Served, host_server: Served, host_folder: Path
) -> None:
    """Every calculator's embed of its defaults, first contact on a phone's network (1.6 Mbps,
    150 ms): the build-time answer is on screen at the frame's first paint, which comes after
    at most 100 KB (as a host compresses text), none of it Python."""
    site_server.pace = (200_000, 0.15)
    try:
        for name in CALCULATORS:
            host = Host(partitioned, host_folder, host_server, f"defaults-{name}", 375)
            title = CALCULATORS[name].title
            host.open(
                [
                    f'<iframe src="{site_server.origin}embed/{name}/" title="{title}" '
                    'width="100%" height="600"></iframe>'
                ]
            )
            frame = host.content(0)
            deadline = time.monotonic() + 60
            while (painted := frame.evaluate(FIRST_PAINT)) is None:
                assert time.monotonic() < deadline, f"{name}: no first paint"
                host.page.wait_for_timeout(50)
            assert painted["bytes"] <= MOST_FIRST_PAINT_BYTES, (name, painted)
            assert not any("/assets/pyodide/" in file for file in painted["files"]), painted
            assert painted["hidden"] is False and painted["headline"] == "visible", painted
            print(f"{name}: first paint after {painted['bytes'] / 1000:.1f} KB")
            host.close()
    finally:
        site_server.pace = None


# What a hostile host page sends the embed, and itself in the embed's name: nested thousands
# deep, a string of 5 MB, wrong types, look-alikes of the protocol's messages.
HOSTILE = """([HOST, HEIGHT]) => {
  let deep = { type: HOST, version: 1 };
  for (let level = 0; level < 5000; level++) deep = { type: HOST, version: 1, theme: deep };
  const huge = "x".repeat(5_000_000);
  const sent = [
    deep, huge, { type: HOST, version: 1, theme: huge }, { type: huge, version: 1 },
    null, 0, true, [HOST, 1, "dark"], "open-rules-reference:host",
    { type: HOST, version: "1", theme: "dark" }, { type: HOST, version: 2, theme: "dark" },
    { type: HOST + " ", version: 1, theme: "dark" },
    { type: HOST.toUpperCase(), version: 1, theme: "dark" },
    { type: HOST, version: 1, theme: "<img src=x onerror=alert(1)>" },
    { type: HOST, version: 1, theme: ["dark"] }, { type: HOST, version: 1, theme: "Dark" },
    { type: HEIGHT, version: 1, height: 1 },
  ];
  const frame = document.querySelector("iframe").contentWindow;
  for (const message of sent) {
    try { frame.postMessage(message, "*"); } catch (error) { /* not cloneable: never sent */ }
  }
  // Look-alikes of the frame's own message, from the host page itself (not the site); then
  // one more, heard once every one before it has been (messages come in order).
  for (const height of [1, 5_000_000, "40px", -1, 12.5]) {
    window.postMessage({ type: HEIGHT, version: 1, height }, "*");
  }
  return new Promise((resolve) => {
    addEventListener("message", (event) => event.data === "heard" && resolve(sent.length));
    window.postMessage("heard", "*");
  });
}"""


def test_hostile_messages_from_the_host_leave_the_embed_answering(
    partitioned: Browser, site_server: Served, host_server: Served, host_folder: Path
) -> None:
    """A host page sends the embed every kind of bad message, and sends itself the frame's
    own: nothing becomes markup, a theme or a height; the embed answers its next edit; the
    protocol's own message, sent right, still works."""
    name = rolling_calculators()[0]
    host = Host(partitioned, host_folder, host_server, "hostile", 375)
    _, snippet, _ = full_page_and_snippet(host.page, site_server.origin, name, shared_query(name))
    host.open([snippet])
    frame, content = host.frame(0), host.content(0)
    first = live(frame, name)
    sizes = fitted(content)
    height = host.page.locator("iframe").evaluate("frame => frame.style.height")
    assert host.page.evaluate(HOSTILE, ["open-rules-reference:host", "open-rules-reference:height"])
    assert host.page.locator("iframe").evaluate("frame => frame.style.height") == height
    assert fitted(content) == sizes
    _edit(frame, name)
    expect(frame.locator(".calc-headline")).not_to_have_text(first, timeout=60_000)
    live(frame, name)
    fitted(content)
    # Nothing taken from them: the reader's theme, no element added.
    assert content.evaluate("document.documentElement.dataset.mdColorScheme") == "default"
    assert content.evaluate("document.querySelectorAll('img, script:not([src])').length") == 0
    # The host's own message, as the README writes it: the frame shows the theme asked.
    host.page.evaluate(
        """() => document.querySelector("iframe").contentWindow.postMessage(
          { type: "open-rules-reference:host", version: 1, theme: "dark" }, "*")"""
    )
    expect(frame.locator("html")).to_have_attribute("data-md-color-scheme", "slate")
    screenshot(host, "375-dark", 0)
    host.close()


def _snippet(browser: Browser, origin: str, name: str) -> tuple[str, str]:
    """A shared link's live figure and snippet, from the site in a context of its own."""
    context = browser.new_context(**SIZES[375])
    figure, snippet, _ = full_page_and_snippet(context.new_page(), origin, name, shared_query(name))
    context.close()
    return figure, snippet


# How the site's service worker names its caches (hooks/package/service_worker_template.mjs).
CACHE_PREFIX = "open-rules-reference-"
# How many files of a part the site's service worker, in the host page's partition, lacks.
STORED = """async ([name, files]) => {
  const cache = await caches.open(name);
  const held = new Set((await cache.keys()).map((request) => new URL(request.url).pathname));
  return files.filter((file) => !held.has(file)).length;
}"""


def test_an_embed_seen_once_answers_offline_on_that_host(
    browser: Browser,
    partitioned: Browser,
    site: Path,
    site_server: Served,
    host_server: Served,
    host_folder: Path,
) -> None:
    """Once an embed has answered on a host page, the site's service worker (the host page's
    partition's) holds its page and Python, and none of the site's other pages: offline, the
    embed shown again answers its inputs and the next edit. No cookie is set."""
    manifest = offline_manifest(site)
    name = rolling_calculators()[0]
    figure, snippet = _snippet(browser, site_server.origin, name)
    host = Host(partitioned, host_folder, host_server, "offline", 375)
    host.open([snippet])
    assert live(host.frame(0), name) == figure
    root = urlsplit(site_server.origin).path
    python = [
        root + file for file in manifest["python"]["files"] if not file.endswith(".snapshot.gz")
    ]
    page = [root + f"embed/{name}/index.html"]
    for part, files in (
        (manifest["python"]["name"], python),
        (manifest["groups"]["embed"]["name"], page),
    ):
        deadline = time.monotonic() + 60
        while host.content(0).evaluate(STORED, [CACHE_PREFIX + part, files]):
            assert time.monotonic() < deadline, f"{part} is not stored"
            host.page.wait_for_timeout(200)
    # Of the site's pages, only this embed's: none of its other groups of pages.
    for group, part in manifest["groups"].items():
        if group != "embed":
            files = [root + file for file in part["files"]]
            missing = host.content(0).evaluate(STORED, [CACHE_PREFIX + part["name"], files])
            assert missing == len(files), group
    # Offline, the host page shows the embed again (a VTT's journal page opened anew): a new
    # frame, its page, its styles, its scripts and Python all from this host's storage.
    host.context.set_offline(True)
    host.page.evaluate(
        "() => { const shown = document.querySelector('iframe');"
        " shown.replaceWith(shown.cloneNode()); }"
    )
    assert live(host.frame(0), name) == figure
    _edit(host.frame(0), name)
    expect(host.frame(0).locator(".calc-headline")).not_to_have_text(figure, timeout=60_000)
    live(host.frame(0), name)
    assert host.context.cookies() == []
    host.close()


def test_without_storage_for_frames_each_embed_answers_and_offline_says_why_not(
    browser: Browser, site_server: Served, host_server: Served, host_folder: Path
) -> None:
    """A browser that keeps no storage for a frame of another site (third-party cookies
    blocked, a private window: Playwright's Chromium, `browser`) gives the embeds no lock to
    share Python by and no service worker: each answers with a Python of its own. An embed
    scrolled to once the network has gone says, where its answer is read, that the device is
    offline and the calculators are not stored on it, with what to do."""
    names = rolling_calculators()[:2]
    shared = [_snippet(browser, site_server.origin, name) for name in names]
    host = Host(browser, host_folder, host_server, "blocked", 1280)
    site_server.counts.clear()
    host.open([snippet for _, snippet in shared])
    for index, (name, (figure, _)) in enumerate(zip(names, shared, strict=True)):
        host.bring_into_view(index)
        assert live(host.frame(index), name) == figure
    print(f"without storage for frames: the WebAssembly sent {site_server.downloads(WASM_FILE)}")
    host.close()
    name = names[0]
    host = Host(browser, host_folder, host_server, "blocked-offline", 375)
    site_server.counts.clear()
    # Below the screen, within what the browser loads of a lazy frame ahead of a scroll.
    host.open([shared[0][1]], '<p style="height: 1000px">The session so far.</p>')
    expect(host.frame(0).locator(".calc[data-bound]")).to_have_count(1)  # its code has run
    # Out of view, Python is not started.
    assert site_server.downloads(WASM_FILE) == 0 and site_server.downloads("bundle.json") == 0
    host.context.set_offline(True)
    host.bring_into_view(0)
    status = host.frame(0).locator(f'.calc[data-calculator="{name}"] .calc-status-text')
    expect(status).to_contain_text(
        "You are offline, and the calculators are not stored on this device", timeout=60_000
    )
    expect(host.frame(0).locator(".calc-retry")).to_have_text(
        "Store the calculators for offline use: needs a connection"
    )
    screenshot(host, "375-offline-unstored", 0)
    host.close()


def test_when_the_embed_that_runs_python_goes_the_others_answer_still(
    browser: Browser,
    partitioned: Browser,
    site_server: Served,
    host_server: Served,
    host_folder: Path,
) -> None:
    """The host page removes the embed whose frame runs the shared Python (a wiki's editor
    re-rendering): another embed takes it over, starts Python again, and answers its edits."""
    names = rolling_calculators()[:2]
    shared = [_snippet(browser, site_server.origin, name) for name in names]
    host = Host(partitioned, host_folder, host_server, "leader", 1280)
    # The second below the screen: the first runs Python, the one first in view.
    host.open([snippet for _, snippet in shared], between='<p style="height: 1500px"></p>')
    for index, (name, (figure, _)) in enumerate(zip(names, shared, strict=True)):
        host.bring_into_view(index)
        assert live(host.frame(index), name) == figure
    assert len(host.page.workers) == 1  # one Python for both
    host.page.evaluate("() => document.querySelector('iframe').remove()")
    name = names[1]
    _edit(host.frame(0), name)
    expect(host.frame(0).locator(".calc-headline")).not_to_have_text(shared[1][0], timeout=90_000)
    live(host.frame(0), name)
    host.close()


def test_an_embed_whose_code_does_not_arrive_says_so_and_its_button_reloads_it(
    browser: Browser,
    partitioned: Browser,
    site_server: Served,
    host_server: Served,
    host_folder: Path,
) -> None:
    """A reader's phone fails to download the embed's code: what embed-boot.js imports
    (embed-page.mjs), then what that imports once it runs (the widget's). Each time each
    embed, of the defaults and of a shared link, says why and what to do where its answer is
    read, never says it is computing (however far Python gets), shows no figures for a
    link's inputs it did not read, says the build's figures are out of date after an edit,
    and its button reloads it to a live answer."""
    name = rolling_calculators()[0]
    figure, shared = _snippet(browser, site_server.origin, name)
    defaults = (
        f'<iframe src="{site_server.origin}embed/{name}/" title="{CALCULATORS[name].title}" '
        'width="100%" height="900"></iframe>'
    )
    host = Host(partitioned, host_folder, host_server, "code-missing", 375)
    warned: list[str] = []
    host.page.on(
        "console", lambda message: message.type == "warning" and warned.append(message.text)
    )
    for missing in ("embed-page.mjs", "calculator-widget.mjs"):
        host.context.route(f"**/{missing}", lambda route: route.abort())
        warned.clear()
        host.open([defaults, shared])
        for index, figures in ((0, True), (1, False)):
            content = host.content(index)
            widget = host.frame(index).locator(f'.calc[data-calculator="{name}"]')
            reload = said_code_missing(widget, link=not figures)
            # Once in view Python starts, where the embed's code that starts it arrived.
            host.bring_into_view(index)
            if missing != "embed-page.mjs":  # what says the frame's height arrived
                fitted(content)
            host.scroll_to(index, widget.locator(".calc-headline").first)
            content.wait_for_function(
                "() => !document.documentElement.hasAttribute('data-calc-loading')",
                timeout=90_000,
            )
            mark = widget.locator(".calc-headline").first.evaluate(
                "headline => getComputedStyle(headline, '::after').content"
            )
            assert "omputing" not in mark and "oading" not in mark, (missing, mark)
            assert ("Computed when the site was built" if figures else "Out of date") in mark
            expect(widget.locator(".calc-status--busy")).to_have_count(0)
            expect(widget.locator(".calc-result")).to_have_attribute("aria-busy", "false")
            host.scroll_to(index, reload)
            assert reload.bounding_box()["height"] >= 44
        screenshot(host, f"375-code-missing-{missing.split('.')[0]}")
        widget = host.frame(0).locator(f'.calc[data-calculator="{name}"]')
        widget.locator("input[type=text]").first.fill("3")
        expect(widget.locator(".calc-result").first).to_contain_class("calc-result--stale")
        mark = widget.locator(".calc-headline").first.evaluate(
            "headline => getComputedStyle(headline, '::after').content"
        )
        assert "Out of date: the calculator could not start" in mark, mark
        # Why, for whoever opens the console: the module that did not come.
        assert any("code could not be loaded" in text and missing in text for text in warned), (
            missing,
            warned,
        )
        host.context.unroute(f"**/{missing}")
    # The link's embed, reloaded by its button: its live answer, the full page's.
    reload = host.frame(1).get_by_role("button", name="Reload the page")
    host.scroll_to(1, reload)
    reload.click()
    assert live(host.frame(1), name) == figure
    expect(host.frame(1).locator(".calc--failed")).to_have_count(0)
    # What the console said is each download refused, and nothing else.
    refused = [error for error in host.errors if "net::ERR_FAILED" not in error]
    assert refused == [], refused
    host.errors.clear()
    host.close()


class FirstRequestFailedLate(FirstRequestAborted):
    """FirstRequestAborted, the first request for each file failing only once the embed has
    asked to import its code (embed-boot.js does on the frame's load, in a task of its own,
    which this waits for behind it): where that request is the page's preload, the import
    has joined it and is handed its failure, with no download of its own, as on a slow
    connection whose preload fails late."""

    def __call__(self, route: Route) -> None:
        if not self.asked[route.request.url.rsplit("/", 1)[-1]]:
            frame = route.request.frame
            frame.wait_for_function("() => document.readyState === 'complete'")
            frame.evaluate("() => new Promise((resolve) => setTimeout(resolve))")
        super().__call__(route)


@pytest.mark.parametrize("failing", [FirstRequestAborted, FirstRequestFailedLate])
def test_an_embed_whose_code_fails_once_is_fetched_again(
    browser: Browser,
    partitioned: Browser,
    site_server: Served,
    host_server: Served,
    host_folder: Path,
    failing: type[FirstRequestAborted],
) -> None:
    """What embed-boot.js imports (embed-page.mjs, preloaded: the import fetches it again,
    and tries once more where it was handed the preload's failure), and what that imports
    (the widget's, tried twice: calculator-unbound.mjs), each fail to download the first
    time, at once or late: a shared link's embed answers as its full page does, with
    nothing said on screen."""
    name = rolling_calculators()[0]
    figure, shared = _snippet(browser, site_server.origin, name)
    host = Host(partitioned, host_folder, host_server, f"code-once-{failing.__name__}", 375)
    once = failing()
    for module in ("embed-page.mjs", "calculator-widget.mjs"):
        host.context.route(f"**/{module}", once)
    host.open([shared])  # a shared link's embed: Python answers it
    host.scroll_to(0, host.frame(0).locator(".calc-headline").first)
    assert live(host.frame(0), name) == figure
    expect(host.frame(0).locator(".calc--failed")).to_have_count(0)
    assert min(once.asked["embed-page.mjs"], once.asked["calculator-widget.mjs"]) >= 2, once.asked
    # What the console said is each first download refused, and nothing else.
    refused = [error for error in host.errors if "net::ERR_FAILED" not in error]
    assert refused == [], refused
    host.errors.clear()
    host.close()


def test_embeds_and_their_snippet_have_no_serious_accessibility_violation(
    partitioned: Browser, site_server: Served, host_server: Served, host_folder: Path
) -> None:
    """axe-core, as tests/test_accessibility.py runs it, on every embed with its live answer,
    each in its frame of one host page at 375 px, as a GM's wiki holds them (one Python
    answers them all), and on a calculator's page with its Embed panel open, in the light
    and the dark palette as the reader's setting says (an embed follows a change of it on
    the page): no violation of impact serious or critical."""
    from test_accessibility import AXE, BLOCKING, PALETTES, RUN_AXE, violations

    names = list(CALCULATORS)
    host = Host(partitioned, host_folder, host_server, "every-embed", 375)
    host.context.add_init_script(path=str(AXE))  # in every frame, of whatever site
    host.open(
        [
            f'<iframe src="{site_server.origin}embed/{name}/" title="The {name} calculator" '
            'width="100%" height="600" style="border: 0"></iframe>'
            for name in names
        ],
        f'<script src="{site_server.origin}assets/javascripts/embed-host.js"></script>',
    )
    found = []
    for index, name in enumerate(names):
        host.bring_into_view(index)  # below the fold, an embed costs nothing
        live(host.frame(index), name)
    assert len(host.page.workers) == 1  # one Python answers every embed
    for scheme, palette in PALETTES.items():
        host.page.emulate_media(color_scheme=scheme)
        for index, name in enumerate(names):
            host.bring_into_view(index)  # where its rendering tells it of the new setting
            # The palette on the page's root (embed-boot.js), where a page of the site has
            # it on its body (which test_accessibility's violations() reads).
            expect(host.frame(index).locator("html")).to_have_attribute(
                "data-md-color-scheme", palette
            )
            frame = host.content(index)
            # The theme's colours change in short transitions: axe reads them once done.
            frame.wait_for_function("() => document.getAnimations().length === 0")
            found += [
                f"{scheme} embed/{name}/: {violation['id']} ({violation['impact']}) at "
                f"{[node['target'] for node in violation['nodes']]}"
                for violation in frame.evaluate(RUN_AXE)["violations"]
                if violation["impact"] in BLOCKING
            ]
    host.close()
    context = partitioned.new_context(**SIZES[375])
    context.add_init_script(path=str(AXE))
    page = context.new_page()
    name = names[0]
    for scheme in PALETTES:
        # A page of the site takes the reader's setting on a first visit, then keeps its
        # palette in localStorage (and stores it again when the setting changes while it
        # is open): each palette's visit is a first one, from a page without Material.
        page.goto(f"{site_server.origin}robots.txt")
        page.evaluate("() => localStorage.clear()")
        page.emulate_media(color_scheme=scheme)
        page.goto(f"{site_server.origin}calculators/{_page_of(name)}/")
        page.locator(f'.calc[data-calculator="{name}"] .calc-embed').click()
        expect(page.locator(".calc-embed-panel")).to_be_visible()
        found += violations(page, scheme, f"calculators/{_page_of(name)}/ with its Embed panel")
    context.close()
    assert found == []
