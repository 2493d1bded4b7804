"""Offline: the reading site is kept after one visit, Python only once it is used or
asked for, the site installs as an app and downloads as a zip.

The browser tests serve the built site from a server that counts what it sends, so a
first visit's bytes are measured where they leave, whoever fetched them (the page, the
calculators' worker or the service worker). A first visit to a rules page must fetch no
Python file; a first visit to a calculator page each Python file once; with Save-Data
on, not even the rest of the section. Offline, pages kept come from the service worker
and any other address shows the site's 404 page. A copy of the site, served on a port
of its own, checks that a new deploy is offered with a "Reload" prompt and that the old
caches go. The rest reads the built files: every page links the manifest, sw.js knows
every file in the part that stores it and points at no other host, the zip holds the
whole site.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import struct
import threading
import zipfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import (
    ARTIFACTS,
    CALCULATOR_PAGES,
    DEVICES,
    WASM_FILE,
    FirstRequestAborted,
    HeldWheel,
    QuietServer,
    Returning,
    Watched,
    figure,
    launch_options,
    said_code_missing,
    serve,
    wait_live,
)
from playwright.sync_api import Browser, Page, expect

from hooks.package.offline import (
    THEME_COLOR,
    OfflineError,
    add_app_links,
    link_error_page,
    offline_manifest,
    write_service_worker,
    write_zip,
)
from hooks.package.pyodide_bundle import COMPRESSED_SUFFIX, SNAPSHOT, bundle_files, bundle_id
from hooks.pages.embed import FOLDER as EMBEDS
from hooks.pages.site import site_root

ROOT = Path(__file__).resolve().parent.parent
PYTHON = "/assets/pyodide/"
RULES_PAGE = "orcus/combat/"
OTHER_SYSTEM_PAGE = "into-the-unknown/conditions/"


def sw_manifest(service_worker: str) -> dict:
    """The manifest hooks/package/offline.py wrote into sw.js."""
    start = service_worker.index('{"fallback"')
    return json.JSONDecoder().raw_decode(service_worker, start)[0]


class CountingServer:
    """The built site on a port of its own, recording each response body it sends."""

    def __init__(self, directory: Path) -> None:
        sent: list[tuple[str, int]] = []
        self.sent = sent

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format, *args):
                pass

            def copyfile(self, source, outputfile):
                sent.append((self.path.split("?")[0], os.fstat(source.fileno()).st_size))
                super().copyfile(source, outputfile)

        handler = functools.partial(Handler, directory=str(directory))
        self.httpd = QuietServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def python_bodies(self) -> Counter:
        return Counter(path for path, _ in self.sent if path.startswith(PYTHON))

    def megabytes(self) -> float:
        return sum(size for _, size in self.sent) / 1e6

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def counting(site: Path) -> Iterator[CountingServer]:
    server = CountingServer(site)
    yield server
    server.close()


def footer_status(page: Page):
    return page.locator("#offline-status")


def wait_until_ready_offline(page: Page) -> None:
    expect(footer_status(page)).to_contain_text("Ready offline", timeout=120_000)


def shared_link(site: Path, stem: str) -> str:
    """A calculator page's address as a reader shares it: its first number changed, so only
    a live answer, never the build-time one, is the answer to it."""
    html = (site / "calculators" / stem / "index.html").read_text("utf-8")
    found = re.search(r'<input type="text"[^>]*\bname="(\w+)"[^>]*\bvalue="(-?\d+)"', html)
    assert found, f"calculators/{stem}/ has no number to change"
    name, value = found.groups()
    return f"calculators/{stem}/?{name}={int(value) + 1}"


def first_live_answer(page: Page) -> None:
    """Python answered on this page (calculator-widget.mjs marks its first live answer)."""
    page.wait_for_function(
        "() => performance.getEntriesByName('calc-first-live-result').length > 0", timeout=60_000
    )


def start_status(page: Page, calculator: str):
    return page.locator(f'.calc[data-calculator="{calculator}"] .calc-status')


def assert_read_on_screen(page: Page, element) -> None:
    """The element is on the screen and on top: nothing (the docked answer) covers it."""
    box = element.bounding_box()
    viewport = page.viewport_size
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], box
    on_top = element.evaluate(
        """element => {
            const box = element.getBoundingClientRect();
            const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
            return element.contains(top);
        }"""
    )
    assert on_top, "covered by another element"


def report(name: str, server: CountingServer) -> None:
    # Shown with `pytest -s`: the figures of a first visit.
    print(f"\n{name}: {len(server.sent)} bodies, {server.megabytes():.2f} MB")


# The built files -------------------------------------------------------------------------


def test_every_page_links_the_manifest_and_icons(site: Path) -> None:
    # An embed page, a frame in another site's page, is no app to install
    # (tests/test_embed_pages.py).
    pages = sorted(page for page in site.rglob("*.html") if not page.is_relative_to(site / EMBEDS))
    assert len(pages) > 50
    for page in pages:
        html = page.read_text(encoding="utf-8")
        head = html[: html.index("</head>")]
        assert f'<meta name="theme-color" content="{THEME_COLOR}">' in head, page
        for rel in ("manifest", "apple-touch-icon"):
            links = re.findall(rf'<link rel="{rel}" href="([^"]+)">', head)
            assert len(links) == 1, (page, rel)
            href = links[0]
            target = site / href.lstrip("/") if href.startswith("/") else page.parent / href
            assert target.resolve().is_file(), (page, href)


def test_the_manifest_describes_an_installable_app(site: Path) -> None:
    manifest = json.loads((site / "manifest.webmanifest").read_text(encoding="utf-8"))
    assert manifest["name"] == "Open Rules Reference"
    assert manifest["start_url"] == "./" and manifest["scope"] == "./"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] == THEME_COLOR
    sizes = set()
    for icon in manifest["icons"]:
        png = (site / icon["src"]).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and icon["type"] == "image/png"
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add(width)
    assert {192, 512} <= sizes


def test_the_service_worker_stores_each_file_in_one_part(site: Path) -> None:
    service_worker = (site / "sw.js").read_text(encoding="utf-8")
    manifest = sw_manifest(service_worker)
    shell, python, groups = manifest["shell"], manifest["python"], manifest["groups"]
    parts = [shell, python, *groups.values()]
    listed = [path for part in parts for path in part["files"]]
    assert len(listed) == len(set(listed))  # each file in one part
    files = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    assert set(listed) <= files  # relative to sw.js, so the site may live under any path
    # Every page is stored: the home and 404 pages with the shell, the rest by top folder.
    pages = {name for name in files if name.endswith(".html")}
    assert pages <= set(listed)
    assert {name for name in shell["files"] if name.endswith(".html")} == {"index.html", "404.html"}
    for folder, part in groups.items():
        assert part["files"] and all(name.startswith(f"{folder}/") for name in part["files"])
    assert {"orcus", "into-the-unknown", manifest["calculators"]} <= set(groups)
    # Python, and only Python, waits until it is used or asked for; its snapshot, which
    # only speeds up a start on a fast connection, is not stored.
    served = f"assets/pyodide/{bundle_id(ROOT / 'build' / 'pyodide')}"
    bundle = {f"{served}/{path.name}" for path in bundle_files(ROOT / "build" / "pyodide")}
    snapshot = {name for name in bundle if name.endswith(f"{SNAPSHOT}{COMPRESSED_SUFFIX}")}
    assert len(snapshot) == 1 and not snapshot & set(listed)
    bundle -= snapshot
    assert set(python["files"]) == bundle
    assert python["bytes"] == sum((site / name).stat().st_size for name in bundle)
    assert not any(name.startswith("assets/pyodide/") for name in shell["files"])
    # The shell: the theme's and the site's assets, the search, the manifest.
    expected = {
        name
        for name in files
        if name.startswith("assets/")
        and name.endswith((".css", ".js", ".mjs", ".png", ".svg"))
        and not name.startswith(("assets/pyodide/", "assets/javascripts/lunr/"))
    }
    expected |= {"search/search_index.json", "search/systems.json", "search/vocabulary.json"}
    expected |= {"manifest.webmanifest"}
    expected |= {name for name in files if name.startswith("search/pagefind/")}
    assert expected - set(shell["files"]) == set()
    assert any(re.fullmatch(r"assets/javascripts/workers/search\.\w+\.min\.js", u) for u in listed)
    assert manifest["fallback"] == "404.html" and "404.html" in shell["files"]
    assert not any(name.endswith(".map") or name == "sw.js" for name in listed)
    for part in parts:
        assert re.fullmatch(r"[a-z0-9-]+-[0-9a-f]{12}", part["name"]), part["name"]
    # Nothing from another host: nothing imported, no address but the site's own.
    assert "importScripts" not in service_worker and "import " not in service_worker
    assert not re.findall(r"https?://", service_worker)
    assert "//" not in "".join(listed)


def test_a_part_changes_its_cache_name_only_when_its_files_change(
    site: Path, tmp_path: Path
) -> None:
    copy = Path(shutil.copytree(site, tmp_path / "site"))
    before = offline_manifest(copy)
    page = copy / "orcus" / "combat" / "index.html"
    page.write_text(page.read_text("utf-8") + "<!-- changed -->", "utf-8")
    listed = next(copy.glob("assets/pyodide/*/bundle.json"))  # what the worker reads first
    listed.write_text(listed.read_text("utf-8") + "\n", "utf-8")
    after = offline_manifest(copy)
    assert after["groups"]["orcus"]["name"] != before["groups"]["orcus"]["name"]
    assert after["python"]["name"] != before["python"]["name"]
    assert after["shell"]["name"] == before["shell"]["name"]
    assert after["groups"]["into-the-unknown"] == before["groups"]["into-the-unknown"]


def test_the_zip_holds_the_whole_site(site: Path, tmp_path: Path) -> None:
    archive = write_zip(site, tmp_path / "dist" / "open-rules-reference-site.zip")
    with zipfile.ZipFile(archive) as zipped:
        assert zipped.testzip() is None
        names = set(zipped.namelist())
    files = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    assert names == {f"open-rules-reference-site/{name}" for name in files}
    for name in ("index.html", "sw.js", "manifest.webmanifest"):
        assert f"open-rules-reference-site/{name}" in names
    assert any(name.endswith(f"/{WASM_FILE}") for name in names)


def test_app_links_are_relative_to_each_page_and_added_once() -> None:
    page = "<html><head><title>x</title></head><body></body></html>"
    assert (site_root(""), site_root("orcus/combat/")) == ("", "../../")
    home = add_app_links(page, "")
    assert '<link rel="manifest" href="manifest.webmanifest">' in home
    nested = add_app_links(page, "../../")
    assert '<link rel="manifest" href="../../manifest.webmanifest">' in nested
    assert '<link rel="apple-touch-icon" href="../../assets/images/icon-192.png">' in nested
    assert nested.index('rel="manifest"') < nested.index("</head>")
    assert add_app_links(nested, "../../") == nested
    with pytest.raises(OfflineError):
        add_app_links("<p>no head</p>", "")


def test_the_404_page_links_follow_its_favicon(tmp_path: Path) -> None:
    (tmp_path / "404.html").write_text(
        '<head><link rel="icon" href="/docs/assets/images/favicon.png"></head>', "utf-8"
    )
    assert link_error_page(tmp_path)
    html = (tmp_path / "404.html").read_text("utf-8")
    assert '<link rel="manifest" href="/docs/manifest.webmanifest">' in html
    assert not link_error_page(tmp_path / "nowhere")


@pytest.mark.site
def test_a_site_without_its_parts_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<html><head></head></html>", "utf-8")
    with pytest.raises(OfflineError, match=r"has no 404\.html"):
        write_service_worker(tmp_path)  # no 404 page, no search index, no Python
    (tmp_path / "404.html").write_text("<html></html>", "utf-8")
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "search_index.json").write_text("{}", "utf-8")
    with pytest.raises(OfflineError, match=r"has no search/pagefind/pagefind\.js"):
        write_service_worker(tmp_path)
    (tmp_path / "search" / "pagefind").mkdir()
    (tmp_path / "search" / "pagefind" / "pagefind.js").write_text("", "utf-8")
    with pytest.raises(OfflineError, match="no Python runtime"):
        write_service_worker(tmp_path)


def test_the_update_prompt_is_built_from_text_only() -> None:
    script = (ROOT / "docs" / "assets" / "javascripts" / "offline.mjs").read_text("utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in script
    assert "location.protocol" in script  # no registration from file://


# In the browser ---------------------------------------------------------------------------


# What a page kept for the reader: a mark in each store Returning clears.
KEEP_A_MARK = """() => new Promise((done) => {
  localStorage.setItem("left-by-the-test-before", "1");
  const opened = indexedDB.open("left-by-the-test-before");
  opened.onsuccess = () => { opened.result.close(); done(); };
})"""
MARKS_FOUND = """async () => [
  localStorage.getItem("left-by-the-test-before"),
  (await indexedDB.databases()).map((database) => database.name),
]"""


def test_a_returning_readers_page_comes_from_the_service_worker_with_nothing_kept(
    browser: Browser, server: str
) -> None:
    """What the tests of a loaded page stand on (conftest.Returning): the page is one the
    service worker serves, and nothing the test before kept in localStorage or IndexedDB
    is there."""
    before = Returning(browser, server, "phone")
    before.page.goto(server)
    assert before.page.evaluate("() => navigator.serviceWorker.controller !== null")
    before.page.evaluate(KEEP_A_MARK)
    assert before.page.evaluate(MARKS_FOUND)[0] == "1"
    before.close()
    after = Returning(browser, server, "phone")
    after.page.goto(server)
    assert after.page.evaluate("() => navigator.serviceWorker.controller !== null")
    kept, databases = after.page.evaluate(MARKS_FOUND)
    assert kept is None and "left-by-the-test-before" not in databases, (kept, databases)
    after.close()


def unvisited_pages() -> list[str]:
    """A chapter of every system in content/systems.yml (its last), every landing page, a
    Compare page and the calculators' index: none of them visited before going offline."""
    systems = yaml.safe_load((ROOT / "content" / "systems.yml").read_text("utf-8"))["systems"]
    pages = []
    for slug in systems:
        listed = yaml.safe_load((ROOT / "content" / slug / "system.yml").read_text("utf-8"))
        pages += [f"{slug}/", f"{slug}/{listed['pages'][-1]}/"]
    concept = yaml.safe_load((ROOT / "content" / "compare.yml").read_text("utf-8"))["concepts"][0]
    return [*pages, f"compare/{concept['slug']}/", "calculators/"]


def test_one_visit_to_the_home_page_keeps_the_whole_site_offline_and_fetches_no_python(
    browser: Browser, counting: CountingServer, site: Path
) -> None:
    origin = counting.origin
    watched = Watched(browser, origin)  # wide: the search field shows in the header
    page = watched.page
    page.goto(origin)
    wait_until_ready_offline(page)
    report("first visit to the home page, with the site stored", counting)
    assert counting.python_bodies() == Counter()
    bodies = Counter(path for path, _ in counting.sent)
    assert max(bodies.values()) == 1, bodies.most_common(3)  # nothing downloaded twice
    # The control offers Python with the size the build measured.
    manifest = sw_manifest((site / "sw.js").read_text(encoding="utf-8"))
    button = footer_status(page).get_by_role("button")
    expect(button).to_have_text(
        f"Make the calculators available offline ({manifest['python']['bytes'] / 1e6:.1f} MB)"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("footer").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "offline-ready.png"))

    from_network: list[str] = []
    page.on("response", lambda r: r.from_service_worker or from_network.append(r.url))
    watched.context.set_offline(True)
    assert page.evaluate("navigator.onLine") is False
    for address in unvisited_pages():
        response = page.goto(origin + address)
        assert response is not None and response.ok and response.from_service_worker, address
        expect(page.locator("h1").first).not_to_have_text("404 - Not found")
    # Instant navigation (a fetch, not a navigation) finds the pages too.
    page.goto(origin + RULES_PAGE)
    page.locator(".md-nav__link", has_text="Conditions").first.click()
    expect(page).to_have_url(re.compile(r"/conditions/$"))
    expect(page.locator("h1")).to_contain_text("Conditions")
    # Material's search: its worker and index come from the service worker too.
    # The theme closes its search 125 ms after any navigation (even one that has drawn its
    # page): a box opened sooner closes under the first key.
    page.wait_for_timeout(250)
    # Typed key by key: Material reads the query on keyup, and fill() sends none.
    page.locator(".md-search__input").click()
    page.locator(".md-search__input").press_sequentially("petrified")
    expect(page.locator(".md-search-result__item").first).to_be_visible(timeout=30_000)
    # So does the site's vocabulary, which spells a word the site does not hold.
    page.locator(".md-search__input").fill("")
    page.locator(".md-search__input").press_sequentially("petrifed")
    expect(page.locator(".search-spelling em")).to_have_text("petrified")
    page.keyboard.press("Escape")
    # An address the site never had: the site's 404 page.
    response = page.goto(origin + "no/such/page/")
    assert response is not None and response.from_service_worker
    expect(page.locator("h1")).to_have_text("404 - Not found")
    assert from_network == []
    assert counting.python_bodies() == Counter()
    watched.close()


def test_save_data_keeps_only_what_is_read(browser: Browser, counting: CountingServer) -> None:
    """Chromium emulates Save-Data through the DevTools protocol
    (Emulation.setDataSaverOverride sets navigator.connection.saveData)."""
    watched = Watched(browser, counting.origin, width=375)
    page = watched.page
    watched.context.new_cdp_session(page).send(
        "Emulation.setDataSaverOverride", {"dataSaverEnabled": True}
    )
    page.goto(counting.origin + RULES_PAGE)
    assert page.evaluate("navigator.connection.saveData") is True
    expect(footer_status(page)).to_contain_text("Saving data: 1 of", timeout=60_000)
    page.wait_for_timeout(1000)  # room for any background download to show up
    report("first visit to a rules page with Save-Data", counting)
    assert counting.python_bodies() == Counter()
    sent = {path for path, _ in counting.sent}
    assert not [path for path in sent if path.startswith("/orcus/") and path != f"/{RULES_PAGE}"]
    expect(footer_status(page)).not_to_contain_text("Ready offline")
    # What was read is kept: the page itself, offline.
    watched.context.set_offline(True)
    response = page.reload()
    assert response is not None and response.from_service_worker
    expect(page.locator("h1")).to_contain_text("Combat")
    # A page of the site that was not read says so, and names what is stored.
    response = page.goto(counting.origin + OTHER_SYSTEM_PAGE)
    assert response is not None and response.from_service_worker
    expect(page.locator("h1")).to_have_text("You are offline")
    expect(page.locator("main")).to_contain_text("not stored on this device")
    watched.close()


# Notes whether the calculators had answered when the page registered its service worker.
REGISTERED_WHEN = """
const register = ServiceWorkerContainer.prototype.register;
ServiceWorkerContainer.prototype.register = function (...args) {
  const answered = performance.getEntriesByName("calc-first-live-result").length > 0;
  window.registeredWhen = answered ? "answered" : "before Python's first answer";
  return register.apply(this, args);
};
"""


def test_a_first_calculator_visit_fetches_python_once_and_keeps_it(
    browser: Browser, counting: CountingServer, tmp_path: Path, site: Path
) -> None:
    """In a browser profile with a disk cache, as a reader's browser has: the service
    worker keeps the very files the calculators' worker fetched."""
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile",
        **launch_options(browser.browser_type),
        viewport={"width": 375, "height": 812},
    )
    page = context.pages[0] if context.pages else context.new_page()
    page.add_init_script(REGISTERED_WHEN)
    page.goto(counting.origin + "calculators/attack/")
    wait_live(page, "attack")
    expect(footer_status(page)).to_contain_text("Calculators available offline", timeout=60_000)
    report("first visit to a calculator page", counting)
    bodies = counting.python_bodies()
    served = f"{PYTHON}{bundle_id(ROOT / 'build' / 'pyodide')}/"
    bundle = {f"{served}{path.name}" for path in bundle_files(ROOT / "build" / "pyodide")}
    stored = {
        f"/{name}" for name in sw_manifest((site / "sw.js").read_text("utf-8"))["python"]["files"]
    }
    # Every file Python needs; the snapshot too where the worker found the connection fast.
    assert stored <= set(bodies) <= bundle
    assert max(bodies.values()) == 1, bodies  # each Python file fetched once
    # The site is stored once Python has answered, not beside its download, start and answer.
    assert page.evaluate("window.registeredWhen") == "answered"
    # Offline, a calculator reloads from what was kept.
    context.set_offline(True)
    page.goto(counting.origin + "calculators/damage/")
    wait_live(page, "damage")
    page.fill("#damage-expression", "2d6+3")
    expect(page.locator("#damage-result")).to_contain_text("5 to 15")
    assert figure(page, "damage", "Mean").split()[0] == "10.00"
    context.close()


def test_the_calculators_are_made_available_offline_on_request(
    browser: Browser, counting: CountingServer, site: Path
) -> None:
    watched = Watched(browser, counting.origin, width=375)
    page = watched.page
    page.goto(counting.origin + RULES_PAGE)
    wait_until_ready_offline(page)
    assert counting.python_bodies() == Counter()
    button = footer_status(page).get_by_role("button")
    box = button.bounding_box()
    assert box and box["height"] >= 44, box  # a thumb's target on a phone
    button.click()
    expect(footer_status(page)).to_contain_text("Calculators available offline", timeout=60_000)
    bodies = counting.python_bodies()
    manifest = sw_manifest((site / "sw.js").read_text(encoding="utf-8"))
    assert sorted(bodies) == sorted(f"/{name}" for name in manifest["python"]["files"])
    assert max(bodies.values()) == 1, bodies

    watched.context.set_offline(True)
    page.goto(f"{counting.origin}calculators/attack/?system=into-the-unknown")
    wait_live(page, "attack")
    expect(page.locator("#attack-system")).to_have_value("into-the-unknown")
    page.select_option("#attack-mode", "advantage")
    page.fill("#attack-bonus", "6")
    page.fill("#attack-defense", "16")
    expect(page.locator("#attack-result")).to_contain_text("79.75%")  # 319/400
    assert max(counting.python_bodies().values()) == 1  # the worker read the kept copy
    watched.close()


@pytest.mark.parametrize("race", [False, True], ids=["registered-after", "installed-during"])
def test_a_first_visit_by_a_shared_calculator_link_keeps_python_offline(
    browser: Browser, counting: CountingServer, site: Path, race: bool
) -> None:
    """A fresh browser (its HTTP cache in memory, which keeps no file as large as the wasm)
    whose first page is a calculator link: once the footer says the calculators are
    stored, another calculator answers offline. Raced: another tab of the site installs
    the service worker while this page's Python is still downloading (held at its wheel)."""
    (first_stem, (first, *_)), (other_stem, (other, *_)) = list(CALCULATOR_PAGES.items())[:2]
    context = browser.new_context(**DEVICES["phone"])
    held = HeldWheel(context) if race else None
    page = context.new_page()
    page.goto(counting.origin + shared_link(site, first_stem))
    if held:
        tab = context.new_page()
        tab.goto(counting.origin)
        tab.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60_000)
        held.release()
    wait_live(page, first)
    first_live_answer(page)
    expect(footer_status(page)).to_contain_text("Ready offline", timeout=120_000)
    expect(footer_status(page)).to_contain_text("Calculators available offline", timeout=60_000)
    report(f"first visit by a shared calculator link ({'raced' if race else 'plain'})", counting)
    # What is kept is what the worker downloads: Python's files as the site serves them,
    # compressed, each checked against the build's digest before it was stored.
    kept = page.evaluate(
        """async () => {
            const name = (await caches.keys()).find((key) => key.includes("-python-"));
            return (await (await caches.open(name)).keys()).map((request) => request.url);
        }"""
    )
    manifest = sw_manifest((site / "sw.js").read_text(encoding="utf-8"))
    assert sorted(url.removeprefix(counting.origin) for url in kept) == sorted(
        manifest["python"]["files"]
    )
    assert any(url.endswith(f"/{WASM_FILE}") for url in kept)

    context.set_offline(True)
    page.goto(counting.origin + shared_link(site, other_stem))
    wait_live(page, other)
    first_live_answer(page)
    expect(page.locator(".calc--failed")).to_have_count(0)
    context.close()


def test_a_runtime_that_does_not_arrive_is_said_and_tried_again(
    browser: Browser, server: str, site: Path
) -> None:
    """The WebAssembly fails: Pyodide only logged it, and the calculator said "Loading"
    for ever. Now it says what happened, what the figures are and what to do, on the
    screen of a phone, and its button starts it once the file arrives."""
    stem, (calculator, *_) = next(iter(CALCULATOR_PAGES.items()))
    context = browser.new_context(**DEVICES["phone"])
    context.route(f"**/{WASM_FILE}", lambda route: route.abort())
    page = context.new_page()
    page.goto(server + shared_link(site, stem))
    status = start_status(page, calculator)
    expect(status).to_contain_text("part of it could not be downloaded", timeout=60_000)
    # A shared link's inputs are not the defaults: the build's figures stay hidden, and the
    # sentence says that no figures are shown for them, not that the ones shown are the build's.
    expect(status).to_contain_text("No figures are shown for these inputs until it starts")
    expect(
        page.locator(f'.calc[data-calculator="{calculator}"] .calc-figures').first
    ).to_be_hidden()
    assert not re.search(r"Error|fetch|wasm", status.inner_text()), status.inner_text()
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    expect(widget.locator(".calc-status--busy")).to_have_count(0)
    expect(widget.locator(".calc-result")).to_have_attribute("aria-busy", "false")
    expect(widget.locator(".calc-result")).to_contain_class("calc-result--stale")
    mark = widget.locator(".calc-headline").evaluate(
        "headline => getComputedStyle(headline, '::after').content"
    )
    assert "computing" not in mark, mark
    retry = status.get_by_role("button", name="Try again")
    assert_read_on_screen(page, retry)
    assert retry.bounding_box()["height"] >= 44
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "calculator-download-failed-phone.png"))

    context.unroute(f"**/{WASM_FILE}")
    retry.click()
    wait_live(page, calculator)
    first_live_answer(page)
    expect(widget).not_to_contain_class("calc--failed")
    expect(status.get_by_role("button")).to_have_count(0)
    context.close()


@pytest.mark.parametrize("missing", ["calculator-site.mjs", "calculator-loader.mjs"])
def test_calculator_code_that_does_not_arrive_is_said_and_reloaded(
    browser: Browser, server: str, site: Path, missing: str
) -> None:
    """The widgets' code fails to download (calculator-site.mjs, imported by the loader; or
    the loader itself, the page's module script): nothing bound the page's calculators, and
    a shared link's answer said "Computing the answer to these inputs…" for ever while
    Python loaded and answered nothing. Now each says why and what to do, on a phone's
    screen, its figures are never shown as the answer to inputs they do not answer, and its
    button reloads the page."""
    stem, (calculator, *_) = next(iter(CALCULATOR_PAGES.items()))
    context = browser.new_context(**DEVICES["phone"])
    context.route(f"**/{missing}", lambda route: route.abort())
    page = context.new_page()
    warned: list[str] = []
    page.on("console", lambda m: m.type == "warning" and warned.append(m.text))
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    status = start_status(page, calculator)
    mark = lambda: widget.locator(".calc-headline").first.evaluate(  # noqa: E731
        "headline => getComputedStyle(headline, '::after').content"
    )
    for address, figures in ((f"calculators/{stem}/", True), (shared_link(site, stem), False)):
        page.goto(server + address)
        reload = said_code_missing(widget, link=not figures)
        # However far Python gets, nothing says it is computing: once it has loaded too.
        page.wait_for_function(
            "() => !document.documentElement.hasAttribute('data-calc-loading')", timeout=60_000
        )
        assert "omputing" not in mark() and "loading" not in mark(), mark()
        expect(widget.locator(".calc-status--busy")).to_have_count(0)
        expect(widget.locator(".calc-result")).to_have_attribute("aria-busy", "false")
        assert_read_on_screen(page, reload)
        assert reload.bounding_box()["height"] >= 44
        # The build's figures answer the defaults on screen, until an edit leaves them behind.
        built = "Computed when the site was built" if figures else "Out of date"
        assert built in mark(), mark()
        widget.locator("input[type=text]").first.fill("3")
        assert "Out of date: the calculator could not start" in mark(), mark()
    # Why, for whoever opens the console: the module that did not come.
    assert any("code could not be loaded" in text and missing in text for text in warned), warned
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"calculator-code-missing-{missing}-phone.png"))

    context.unroute(f"**/{missing}")
    reload.click()
    wait_live(page, calculator)
    first_live_answer(page)
    expect(widget).not_to_contain_class("calc--failed")
    expect(status.get_by_role("button")).to_have_count(0)
    context.close()


@pytest.mark.parametrize(
    "aborted",
    ["calculator-address.mjs", "calculator-loader.mjs", "pyodide.mjs", "python-start.mjs"],
)
def test_calculator_code_that_fails_once_is_fetched_again(
    browser: Browser, server: str, aborted: str
) -> None:
    """One module of the widgets' code, or of Python's start in the calculators' worker,
    fails to arrive the first time (Chromium aborted such a fetch on a returning reader's
    page in full runs: calculator-address.mjs, the loader, the page's module script, and
    the worker's pyodide.mjs): it is fetched again and the calculator answers, with no
    reload and nothing said on screen; the first failure is said in the console."""
    stem, (calculator, *_) = next(iter(CALCULATOR_PAGES.items()))
    context = browser.new_context(**DEVICES["phone"])
    context.route(f"**/{aborted}", FirstRequestAborted())
    page = context.new_page()
    warned: list[str] = []
    page.on("console", lambda m: m.type == "warning" and warned.append(m.text))
    page.goto(f"{server}calculators/{stem}/")
    wait_live(page, calculator)
    first_live_answer(page)
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    expect(widget).to_have_attribute("data-bound", "")
    expect(widget).not_to_contain_class("calc--failed")
    assert any("failed to load once; trying again" in text for text in warned), warned
    assert not any("could not be loaded" in text for text in warned), warned
    context.close()


def test_offline_without_python_a_calculator_says_so_and_stores_it_when_asked(
    browser: Browser, counting: CountingServer, site: Path
) -> None:
    stem, (calculator, *_) = next(iter(CALCULATOR_PAGES.items()))
    context = browser.new_context(**DEVICES["phone"])
    page = context.new_page()
    page.goto(counting.origin)
    wait_until_ready_offline(page)
    assert counting.python_bodies() == Counter()

    context.set_offline(True)
    # The page at its own inputs, the defaults: the build's answer is theirs, readable.
    page.goto(f"{counting.origin}calculators/{stem}/")
    status = start_status(page, calculator)
    expect(status).to_contain_text(
        "You are offline, and the calculators are not stored on this device", timeout=60_000
    )
    expect(status).to_contain_text("computed when the site was built, for the default inputs")
    assert "TypeError" not in page.locator("main").inner_text()
    offer = status.get_by_role("button", name="Store the calculators for offline use")
    # Offline, the offer says it needs a connection.
    expect(offer).to_have_text("Store the calculators for offline use: needs a connection")
    assert_read_on_screen(page, offer)
    # The build-time answer is still there to read, said to be the build's for these very
    # inputs (the defaults): not out of date until an input changes.
    result = page.locator(f'.calc[data-calculator="{calculator}"] .calc-result')
    expect(result.locator(".calc-headline")).not_to_be_empty()
    expect(result.locator(".calc-figures").first).to_be_visible()
    expect(result).not_to_contain_class("calc-result--stale")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "calculator-offline-unstored-phone.png"))
    offer.click()
    expect(status).to_contain_text("Still offline")

    context.set_offline(False)
    expect(status).to_contain_text("back online")
    expect(offer).to_have_text("Store the calculators for offline use")
    offer.click()
    wait_live(page, calculator)
    first_live_answer(page)
    expect(footer_status(page)).to_contain_text("Calculators available offline", timeout=60_000)
    context.close()


def test_a_new_deploy_is_offered_with_a_reload_prompt(
    browser: Browser, site: Path, tmp_path: Path
) -> None:
    # A deploy of its own on another port (another origin): this test edits the site.
    site = Path(shutil.copytree(site, tmp_path / "site"))
    httpd = serve(site)
    origin = f"http://127.0.0.1:{httpd.server_address[1]}/"
    try:
        watched = Watched(browser, origin, width=375)
        page = watched.page
        page.goto(origin)
        wait_until_ready_offline(page)
        expect(page.locator("#offline-update")).to_have_count(0)  # none on the first visit
        caches_before = set(page.evaluate("caches.keys()"))

        # Deploy a new version: the home page changes, the service worker is rewritten.
        index = site / "index.html"
        index.write_text(
            index.read_text("utf-8").replace(
                '<h1 id="open-rules-reference">Open Rules Reference',
                '<h1 id="open-rules-reference">Open Rules Reference, updated',
                1,
            ),
            "utf-8",
        )
        write_service_worker(site)
        page.reload()
        expect(page.locator("h1")).not_to_contain_text("updated")  # still the cached copy
        prompt = page.get_by_role("status").filter(has_text="A new version is available")
        expect(prompt).to_be_visible(timeout=60_000)
        reload = prompt.get_by_role("button", name="Reload")
        expect(reload).to_be_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "offline-update-phone.png"))
        reload.click()
        expect(page.locator("h1")).to_contain_text("updated", timeout=30_000)
        expect(page.locator("#offline-update")).to_have_count(0)
        # The home page is in the shell: a new shell cache, the old one deleted.
        shell = "open-rules-reference-" + offline_manifest(site)["shell"]["name"]
        caches_after = set(page.evaluate("caches.keys()"))
        assert shell in caches_after and shell not in caches_before
        assert not {name for name in caches_before - caches_after if "shell" not in name}
        assert len([name for name in caches_after if "-shell-" in name]) == 1
        watched.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_page_opened_from_a_file_registers_nothing(browser: Browser, site: Path) -> None:
    context = browser.new_context()
    page = context.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.on("pageerror", lambda error: messages.append(str(error)))
    page.goto((site / "orcus" / "index.html").as_uri())
    expect(page.locator("h1").first).to_be_visible()
    page.wait_for_load_state("load")
    registrations = page.evaluate(
        """async () => "serviceWorker" in navigator
            ? (await navigator.serviceWorker.getRegistrations().catch(() => [])).length
            : 0"""
    )
    assert registrations == 0
    # (Chromium refuses module scripts from file:// anyway; offline.mjs checks the
    # protocol itself for browsers that run them.)
    assert not [text for text in messages if re.search(r"service ?worker|sw\.js", text, re.I)]
    context.close()
