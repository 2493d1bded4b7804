"""Shared fixtures: the built site (made once for the whole run), the site on 127.0.0.1 and
Debian's Chromium (one of each per pytest-xdist worker).

`make test` runs the tests on several workers at once (pytest-xdist): a test must not write
anywhere another test reads (only into its own tmp_path), and what is expensive and only read
(a site build, a copy of the project) is made once for the run with built_once()."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from filelock import FileLock
from playwright.sync_api import (
    Browser,
    BrowserContext,
    BrowserType,
    ConsoleMessage,
    Locator,
    Page,
    Request,
    Response,
    Route,
    expect,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import PAGES

# Every session reads the rules data compiled from content/ as it is now.
pytest_plugins = ("fresh_rules_data",)

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# How long an `expect` waits for its condition, in place of Playwright's 5 s. It returns as
# soon as the condition holds, so a quiet machine never waits it out; on a loaded CI machine
# (a run of 37 minutes where 23 is usual) a calculator page's code once took over 5 s to bind
# its buttons, and a test failed on a page that was only slow.
expect.set_options(timeout=20_000)


# The tiers in the order their tests run: the slowest first, so that under pytest-xdist the
# run does not end waiting on one long test while the other workers idle.
TIERS = ("browser", "site", "unit")

# The mark of a test that builds the site or a copy of the project, put on each such test,
# not on its module: `-m` selects by a module's mark too, so a module's `site` would also
# put its tests that drive Chromium (the browser tier) in the site tier's run.
SITE = pytest.mark.site


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test in one tier, from what it uses: `browser` (drives Chromium), `site` (builds
    the site or a clone of the project), else `unit`. `pytest -m unit` is the quick loop.
    The tests marked `longest` run first, so that on several workers the rest runs beside
    them rather than after; then the tests run tier by tier, in TIERS' order (in file order
    within a tier)."""
    tiers: dict[pytest.Item, str] = {}
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("browser") or "browser" in used:
            tiers[item] = "browser"
        elif item.get_closest_marker("site") or used & {"site", "server"}:
            tiers[item] = "site"
        else:
            tiers[item] = "unit"
        # A tier's mark on a test of another tier (its module's, see SITE) would put it in
        # two tiers' runs, so in both CI jobs.
        marked = {mark.name for mark in item.iter_markers()} & set(TIERS) - {tiers[item]}
        if marked:
            raise pytest.UsageError(
                f"{item.nodeid} is in the {tiers[item]} tier but marked {', '.join(marked)}: "
                "mark its module's other tests one by one (conftest.SITE), not the module"
            )
        item.add_marker(getattr(pytest.mark, tiers[item]))
    items.sort(key=lambda item: (not item.get_closest_marker("longest"), TIERS.index(tiers[item])))


def _calculators_by_page() -> dict[str, tuple[str, ...]]:
    """{page stem: its calculators, in the registry's order}, as the site places them."""
    pages: dict[str, tuple[str, ...]] = {}
    for name in CALCULATORS:
        pages[PAGES[name]] = (*pages.get(PAGES[name], ()), name)
    return pages


CALCULATOR_PAGES = _calculators_by_page()


def compare_pages(site: Path) -> list[str]:
    """The Compare pages whose concept has the live widget (the reader's own numbers), found
    in the built site."""
    pages = [
        f"compare/{page.parent.name}/"
        for page in sorted((site / "compare").glob("*/index.html"))
        if "data-compare=" in page.read_text(encoding="utf-8")
    ]
    assert pages, "no Compare page has the live widget"
    return pages


# The files of the Python bundle as the site serves them (hooks/package/pyodide_bundle.py):
# gzipped, downloaded and decompressed by the calculators' worker.
WASM_FILE = "pyodide.asm.wasm.gz"
WHEEL_FILES = "**/rules_core-*.whl.gz"
# The first file the calculators' worker asks for: Python's bundle (python-start.mjs).
PYTHON_LISTING = "**/assets/pyodide/*/bundle.json"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


# The date a build is made on (SOURCE_DATE_EPOCH; `make build` gives the last commit's): one
# date for every build of a run, so a test can compare its build with the run's site.
BUILD_ENV = {"SOURCE_DATE_EPOCH": "1700000000", "NO_MKDOCS_2_WARNING": "1"}


def build_site(output: Path, project: Path = ROOT) -> Path:
    """`mkdocs build --strict` of project's content into output, as `make build` runs it."""
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(output)],
        cwd=project,
        check=True,
        env={**os.environ, **BUILD_ENV},
    )
    return output


class QuietServer(http.server.ThreadingHTTPServer):
    """A test server that prints nothing: a browser dropping a connection (a navigation
    cancels a fetch) would print a traceback to stderr, which a test of the command line
    capturing stderr at that moment would read as the program's own output.

    It also lets every connection a browser opens wait to be accepted. socketserver's
    queue holds 5; a first visit's service worker asks for the whole site at once, and a
    worker process busy with its test accepts them late. The kernel then drops a
    connection's opening packet, which the browser sends again 1, 2, 4, 8... s later:
    this machine counted 2,770 such drops (TcpExtListenOverflows) in a day of test runs,
    and a page's own document once did not come in 120 s."""

    request_queue_size = socket.SOMAXCONN

    def handle_error(self, request, client_address) -> None:
        pass


def serve(
    directory: Path, handler_class: type[_QuietHandler] = _QuietHandler
) -> http.server.ThreadingHTTPServer:
    """A static server for directory on a free port of 127.0.0.1, in a daemon thread;
    handler_class, where given, serves it some other way (a page slowly)."""
    handler = functools.partial(handler_class, directory=str(directory))
    httpd = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's folder that every pytest-xdist worker sees (each worker's own base
    temporary folder is inside it); without xdist, the run's base temporary folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]
) -> Path:
    """The folder `make` fills, made once for the whole run however many workers ask: the
    first one makes it while the others wait on a file lock, then all of them read it. What
    uses it must not change it (copy it first). A make that failed fails every asker with
    its error, without a second try."""
    shared = shared_folder(tmp_path_factory)
    folder, done, failed = (shared / f"{name}{end}" for end in ("", ".done", ".failed"))
    with FileLock(shared / f"{name}.lock"):
        if failed.exists():
            pytest.fail(f"making {name} failed in another worker: {failed.read_text()}")
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            try:
                make(folder)
            except BaseException as error:
                failed.write_text(f"{type(error).__name__}: {error}", encoding="utf-8")
                raise
            done.touch()
    return folder


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for the whole run and shared by every worker. Tests only read
    it (test_offline's copy it to change them)."""
    return built_once(tmp_path_factory, "site", build_site)


@pytest.fixture(scope="session")
def server(site: Path) -> Iterator[str]:
    assert list(site.glob("assets/pyodide/*/pyodide.mjs")), "the site must serve Pyodide"
    httpd = serve(site)
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


# Parts of Chromium's own window, which a headless test never shows but which each new
# window, so each new page, starts: the omnibox's popup, a WebUI page in a renderer of its
# own. Measured: 0.7 s of CPU for each new page, a fifth of a calculator page's first load.
UNSHOWN_WINDOW_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup")


@functools.cache
def _playwrights_disabled_features(chromium: BrowserType) -> str:
    """The --disable-features argument Playwright gives Chromium, as Chromium got it."""
    probe = chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
    page = probe.new_page()
    page.goto("chrome://version")
    command = page.locator("#command_line").inner_text()
    probe.close()
    given = re.findall(r"--disable-features=\S+", command)
    assert len(given) == 1, command
    return given[0]


def launch_options(chromium: BrowserType, enabled: tuple[str, ...] = ()) -> dict[str, Any]:
    """The options to launch Debian's Chromium with (a browser or a persistent context):
    Playwright's own --disable-features with UNSHOWN_WINDOW_FEATURES added and `enabled`
    taken out. Chromium reads one such list, the last, so Playwright's, read from a first
    launch, is replaced whole."""
    given = _playwrights_disabled_features(chromium)
    names = [name for name in given.split("=", 1)[1].split(",") if name not in enabled]
    names += [name for name in UNSHOWN_WINDOW_FEATURES if name not in names]
    return {
        "executable_path": CHROMIUM,
        "args": [*LAUNCH_ARGS, f"--disable-features={','.join(names)}"],
        "ignore_default_args": [given],
    }


def _window_pages(browser: Browser) -> list[str]:
    """The pages of Chromium's own window (its omnibox popup...) open beside a page."""
    page = browser.new_page()
    targets = browser.new_browser_cdp_session().send("Target.getTargets")["targetInfos"]
    page.close()
    return [target["url"] for target in targets if target["type"] == "browser_ui"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), f"Debian's chromium is expected at {CHROMIUM}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options(playwright.chromium))
        # A Chromium whose window has parts of another name starts them again for each
        # page: name them in UNSHOWN_WINDOW_FEATURES.
        assert _window_pages(browser) == [], _window_pages(browser)
        yield browser
        browser.close()


# A game master's phone and a laptop.
DEVICES = {
    "phone": {"viewport": {"width": 375, "height": 812}, "has_touch": True, "is_mobile": True},
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}


class Watched:
    """A page with its console errors and its requests to other hosts recorded, in a new
    context: a reader's first visit."""

    def __init__(self, browser: Browser, origin: str, width: int = 1280, **options) -> None:
        """A context `width` wide (as high as the laptop of DEVICES: at 1280, the laptop's
        own options, so its returning reader is the same context), or made with
        Playwright's context `options` when given."""
        height = DEVICES["desktop"]["viewport"]["height"]
        self.context = self._context(
            browser, origin, options or {"viewport": {"width": width, "height": height}}
        )
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.foreign: list[str] = []
        # For a failed test's report: the whole console, and the requests that failed.
        self.console: list[str] = []
        self.failed: list[str] = []
        # How far each document got (its response, its whole body, its parsing), seconds
        # from the start: a page whose content never showed was either never served or
        # never read, and a stuck renderer takes no screenshot and answers no evaluate.
        self.documents: list[str] = []
        self._started = time.monotonic()
        self.page.on("console", self._console)
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        self.page.on("response", self._document_responded)
        self.page.on("requestfinished", self._document_finished)
        for step in ("domcontentloaded", "load"):
            self.page.on(step, functools.partial(self._page_step, step))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: r.url.startswith(origin) or self.foreign.append(r.url))
        self.page.add_init_script(COUNT_DOCUMENTS)
        _OPEN.append(self)

    def _console(self, message: ConsoleMessage) -> None:
        self.console.append(f"{message.type}: {message.text}")
        if message.type == "error":
            self.errors.append(message.text)

    def _document_responded(self, response: Response) -> None:
        if self._is_document(response.request):
            self._page_step(f"response {response.status} {response.url}")

    def _document_finished(self, request: Request) -> None:
        if self._is_document(request):
            self._page_step(f"finished {request.url}")

    def _is_document(self, request: Request) -> bool:
        return request.resource_type == "document" and request.frame == self.page.main_frame

    def _page_step(self, step: str, *_: object) -> None:
        self.documents.append(f"{time.monotonic() - self._started:.1f} s {step}")

    def _context(self, browser: Browser, origin: str, options: dict[str, Any]) -> BrowserContext:
        return browser.new_context(**options)

    def _close(self) -> None:
        self.context.close()

    def close(self) -> None:
        if self in _OPEN:
            _OPEN.remove(self)
        self._close()
        assert self.errors == []
        assert self.foreign == []

    def describe(self, name: str) -> str:
        """Where its page stood: for a failed test's report, with a screenshot in ARTIFACTS."""
        lines = [f"{self.page.url} ({type(self).__name__})"]
        try:
            self.page.screenshot(path=str(ARTIFACTS / f"failed-{name}.png"), timeout=5_000)
            lines.append(f"state: {self.page.evaluate(PAGE_STATE)}")
        except Exception as error:  # the page may be gone or stuck: say so
            lines.append(f"unreadable: {error}")
        lines.append(f"documents: {self.documents}")
        lines.append(f"requests failed: {self.failed}")
        lines.append(f"errors: {self.errors}")
        lines += ["console:", *self.console[-40:]]
        return "\n".join(lines)


# The pages of the test under way, for a failed test's report.
_OPEN: list[Watched] = []

# Counts the pages Material's document$ hands to the site's scripts (calculator-loader.mjs
# binds a page's calculators on it): an observer, for a failed test's report.
COUNT_DOCUMENTS = """(() => {
  let subject;
  Object.defineProperty(window, "document$", {
    configurable: true,
    get: () => subject,
    set: (value) => {
      subject = value;
      window.documentsEmitted = 0;
      value.subscribe(() => window.documentsEmitted++);
    },
  });
})();"""

# What a failed test's report says of its page beyond the screenshot: whether the site's
# scripts ran and bound its calculators, and Python's state.
PAGE_STATE = """() => ({
  readyState: document.readyState,
  material: typeof window.document$,
  documentsEmitted: window.documentsEmitted,
  calculators: document.querySelectorAll(".calc").length,
  bound: document.querySelectorAll(".calc[data-bound]").length,
  loading: document.documentElement.getAttribute("data-calc-loading"),
  worker: typeof window.rulesCoreWorker,
  serviceWorker: navigator.serviceWorker.controller?.state ?? null,
  modules: performance.getEntriesByType("resource").map((entry) => entry.name)
    .filter((name) => name.endsWith(".mjs")).map((name) => name.split("/").pop()),
})"""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test that left a page open reports where the page stood."""
    report = yield
    if report.failed and _OPEN:
        ARTIFACTS.mkdir(exist_ok=True)
        name = re.sub(r"\W+", "-", item.name)
        report.sections.append(
            ("pages left open", "\n\n".join(watched.describe(name) for watched in _OPEN))
        )
    if report.when == "call":
        _OPEN.clear()  # the next test's are its own (a fixture's closes in its teardown)
    return report


# Each worker's returning readers' contexts, by the site and the options they were made with.
_RETURNING: dict[tuple[Browser, str, str], BrowserContext] = {}


class Returning(Watched):
    """A Watched page of a reader back on the site with the same device: in a context kept
    for the worker's run, one per set of options, whose service worker already holds every
    page (as after any first visit: test_offline.py), so the page comes from it. What pages
    keep for a reader (localStorage, IndexedDB) is cleared first: no test reads what another
    kept.

    For tests of what a page shows and does once loaded: a calculator page costs 1.9 s of
    CPU here against 3.2 to 3.7 s in a new context, most of it its service worker's
    download of the whole site. A first visit's own journey (the download, Python fetched
    from the network, a route, a permission or a setting on the context) keeps Watched.
    One reader at a time per context: another page would share its storage and Python."""

    def __init__(
        self, browser: Browser, origin: str, device: str | None = None, **options: Any
    ) -> None:
        """On a device of DEVICES by its name, as Device; else as Watched, with `options`."""
        super().__init__(browser, origin, **(DEVICES[device] if device else options))
        cdp = self.context.new_cdp_session(self.page)
        cdp.send(
            "Storage.clearDataForOrigin",
            {"origin": origin.rstrip("/"), "storageTypes": "local_storage,indexeddb"},
        )
        cdp.detach()

    def _context(self, browser: Browser, origin: str, options: dict[str, Any]) -> BrowserContext:
        key = (browser, origin, json.dumps(options, sort_keys=True))
        if key not in _RETURNING:
            context = browser.new_context(**options)
            first = context.new_page()
            first.goto(origin)
            expect(first.locator("#offline-status")).to_contain_text(
                "Ready offline", timeout=120_000
            )
            first.close()
            _RETURNING[key] = context
        context = _RETURNING[key]
        for left in context.pages:  # by a test that failed before it closed them
            left.close()
        return context

    def _close(self) -> None:
        # Every page the test opened in the context (a second tab...): none is left open,
        # with its Python, for the next test.
        for page in self.context.pages:
            page.close()
        # Nor a permission it granted (the clipboard's, to read a copied link).
        self.context.clear_permissions()


@pytest.fixture
def watched(browser: Browser, server: str) -> Iterator[Watched]:
    """A returning reader's 1280 px page, closed after the test with no console error and
    no other host asked."""
    watched = Returning(browser, server)
    yield watched
    watched.close()


class FirstRequestAborted:
    """A route handler: the first request for each file (by its name) is aborted, as a
    download that failed once; the next ones go on. `asked` counts the requests by name."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def __call__(self, route: Route) -> None:
        name = route.request.url.rsplit("/", 1)[-1]
        self.asked[name] += 1
        if self.asked[name] == 1:
            route.abort()
        else:
            route.continue_()


def hold_python(context: BrowserContext) -> None:
    """Python's start held at its first request for as long as the context lasts: its pages
    show the calculators as built, and start no Python they would leave unused. Held in the
    network, which the service worker's requests pass through too; a returning reader's
    service worker answers from its own copy, so not for a Returning context."""
    context.route(PYTHON_LISTING, lambda route: None)  # never answered


class HeldWheel:
    """Holds every request for the rules core's wheel until released, so Python waits.

    The calculators' worker asks for the wheel, and so does the service worker (to keep
    it offline), in either order: all of them are held, and all let through at once."""

    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        self.routes: list[Route] = []
        self.released = False
        context.route(WHEEL_FILES, self._hold)

    def _hold(self, route: Route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self, timeout_ms: int = 60_000) -> None:
        # The worker asks for the wheel once its module and the lock file have loaded,
        # which on a cold machine can be after the test is done with the page: wait for
        # the request (route handlers run while Playwright waits, never during a plain sleep).
        waited = 0
        while not self.routes and waited < timeout_ms:
            self.context.pages[0].wait_for_timeout(50)
            waited += 50
        assert self.routes, "Python should be waiting for the rules core"
        self.released = True
        for route in self.routes:
            route.continue_()


def open_calculator(page: Page, server: str, slug: str) -> None:
    """Go to a calculator page through the site's own link (an instant navigation, once
    on the site: Python stays loaded), or by address for the first page."""
    link = f'a[href$="calculators/{slug}/"]'
    if urlsplit(page.url).path == f"/calculators/{slug}/":
        return  # already there (a page with several calculators)
    if not page.url.startswith(server) or not page.locator(link).count():
        page.goto(f"{server}calculators/{slug}/")
        return
    page.locator(link).first.evaluate("link => link.click()")  # in the drawer, on a phone
    expect(page).to_have_url(f"{server}calculators/{slug}/")


def wait_live(page: Page, calculator: str) -> None:
    """Wait until the widget shows a live (not stale, not loading) result."""
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    expect(widget.locator(".calc-result")).to_have_attribute("aria-busy", "false", timeout=60_000)
    # to_have_class with a string matches the whole class attribute ("calc-result
    # calc-result--stale" never equals "calc-result--stale"): test the one class.
    expect(widget.locator(".calc-result")).not_to_contain_class("calc-result--stale")


# Where the site keeps a game master's party (party-store.mjs), and a member's name that is
# markup, which every page must show as text.
PARTY_STORE = "orr-party"
MARKUP = "<b>Bram</b>"


def keep_party(page: Page, kept: list[dict[str, str]] | str, then: str) -> None:
    """The party kept on the device (its members, or an entry as stored, however damaged),
    then the page at address `then` opened to offer it. Kept from the page open: any page
    of the site (the 404 page starts no Python), left once its calculators are bound. Left
    while their code was still on its way, a calculator page once left the next without
    it, under load: its module fetches were aborted, and the next page's import of
    calculator-site.mjs failed, at both tries ("could not start")."""
    entry = kept if isinstance(kept, str) else json.dumps({"version": 1, "members": kept})
    expect(page.locator(".calc:not([data-bound])")).to_have_count(0)
    page.evaluate("([key, entry]) => localStorage.setItem(key, entry)", [PARTY_STORE, entry])
    page.goto(then)


# A field and the answer docked at the foot of a phone's screen: each docked headline's
# height, whether the field lies on screen below the header and under no docked headline,
# and the room under the header.
FIELD_AND_DOCK = """(field) => {
  const docked = [...document.querySelectorAll(".calc-headline")]
    .map((h) => h.getBoundingClientRect()).filter((r) => r.bottom >= innerHeight - 1 && r.height);
  const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
  const box = field.getBoundingClientRect();
  return {
    id: field.id,
    dock: docked.map((r) => r.height),
    onScreen: box.top >= header - 1 && box.bottom <= innerHeight + 1,
    underDock: docked.some((r) => box.bottom > r.top + 1 && box.top < r.bottom),
    room: innerHeight - header,
  };
}"""


def placed(field: Locator, measure: str, settled: str, timeout_ms: int = 10_000) -> Any:
    """What `measure` (a function of the field, run in the page) finds once `settled` (a
    condition on what it found, `where`) holds: else, after `timeout_ms`, what it finds
    then, for the test's assertion to show. A field given focus is scrolled into view, and
    the docked answer refits to each change, in the frames that follow: measured between a
    change and the frame that answers it, the page is not as it is drawn."""
    condition = f"(field) => {{ const where = ({measure})(field); return ({settled}) && where; }}"
    try:
        found = field.page.wait_for_function(
            condition, arg=field.element_handle(), timeout=timeout_ms
        )
        return found.json_value()
    except PlaywrightTimeoutError:
        return field.evaluate(measure)


@contextmanager
def clock_stood_still(page: Page) -> Iterator[None]:
    """The page's clock (installed with page.clock.install()) stands still inside
    the block, then flows again: no timer of the page fires meanwhile, so keys that reach a
    starved page a second apart make no typing pause.

    Install it before the page loads: Playwright's clearTimeout and clearInterval ignore a
    timer the page made before the clock came, so one of Material's (RxJS) left running
    then fires on after it is cancelled, each time logging "executing a cancelled action"."""
    page.clock.pause_at(page.evaluate("Date.now()") + 1)
    yield
    page.clock.resume()


def settled_address(page: Page, quiet_ms: int = 1000) -> str:
    """The page's address once the reader has paused: a calculator writes it when the edits
    stop for a moment, not at each answer. Settled: unchanged for quiet_ms."""
    address = page.url
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < quiet_ms / 1000:
        page.wait_for_timeout(50)
        if page.url != address:
            address, quiet_since = page.url, time.monotonic()
    return address


def said_code_missing(widget: Locator, link: bool) -> Locator:
    """Waits until a calculator whose code did not arrive (calculator-unbound.mjs) says so
    where its answer is read, with the fix, and says of its figures what is true: beside a
    link's inputs, that it could not read them, and none are shown; on its defaults, that
    they are the build's. Returns the line's button that reloads the page."""
    status = widget.locator(".calc-status")
    expect(status).to_contain_text("its code could not be downloaded", timeout=60_000)
    said = status.inner_text()
    if link:
        assert "The inputs of this link could not be read" in said, said
        expect(widget.locator(".calc-figures").first).to_be_hidden()
    else:
        assert "The figures shown were computed when the site was built" in said, said
    return status.get_by_role("button", name="Reload the page")


def figure(page: Page, calculator: str, label: str) -> str:
    row = page.locator(f'.calc[data-calculator="{calculator}"] .calc-figures tr', has_text=label)
    return row.locator("td").first.inner_text()


class Device(Watched):
    """A Watched page on a given device. Instant navigation works on the test server's
    port as it is: a local build's sitemap lists paths, which sitemap-paths.js resolves."""

    def __init__(self, browser: Browser, origin: str, device: str) -> None:
        super().__init__(browser, origin, **DEVICES[device])
