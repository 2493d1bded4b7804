"""Offline: after one visit the site works with no network, installs as an app, and
downloads as a zip.

The browser tests load the home page once, wait until the service worker controls it
with its precache complete, then take the browser offline: a page never visited, the
search and two calculators must still work, every response coming from the service
worker. A copy of the site, served on a port of its own, checks that a new deploy is
offered with a "Reload" prompt. The rest reads the built files: every page links the
manifest, sw.js precaches every page and the Pyodide bundle and points at no other host,
the zip holds the whole site.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import urllib.request
import zipfile
from pathlib import Path

import pytest
from conftest import ARTIFACTS, Watched, figure, serve, wait_live
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from hooks.offline import (
    THEME_COLOR,
    OfflineError,
    add_app_links,
    link_error_page,
    write_service_worker,
    write_zip,
)
from hooks.pyodide_bundle import bundle_files
from hooks.site import site_root

ROOT = Path(__file__).resolve().parent.parent
# injectManifest writes each precache entry as {"revision":...,"url":"..."}.
PRECACHE_ENTRY = re.compile(r'\{"revision":(?:"[0-9a-f]+"|null),"url":"([^"]+)"\}')
# The one address in Workbox's runtime: a "learn more" link inside a console warning.
WORKBOX_MESSAGE_LINKS = {"https://bit.ly/wb-precache"}


def precache_urls(service_worker: str) -> list[str]:
    return PRECACHE_ENTRY.findall(service_worker)


def wait_until_offline_ready(page: Page) -> int:
    """Wait until the service worker controls the page and holds its whole precache;
    returns how many entries the precache holds. (Evaluated as a function: the pages'
    Content-Security-Policy forbids the string evaluation wait_for_function uses.)"""
    return page.evaluate(
        """async () => {
            const timeout = new Promise((_, reject) =>
                setTimeout(() => reject(new Error("no service worker after 120 s")), 120000));
            const controlled = (async () => {
                await navigator.serviceWorker.ready;
                if (!navigator.serviceWorker.controller) {
                    await new Promise((resolve) => navigator.serviceWorker.addEventListener(
                        "controllerchange", resolve, { once: true }));
                }
            })();
            await Promise.race([controlled, timeout]);
            const names = await caches.keys();
            const name = names.find((cacheName) => cacheName.includes("precache"));
            return name ? (await (await caches.open(name)).keys()).length : 0;
        }"""
    )


# The built files -------------------------------------------------------------------------


def test_every_page_links_the_manifest_and_icons(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
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


def test_the_service_worker_precaches_every_page_and_the_pyodide_bundle(site: Path) -> None:
    service_worker = (site / "sw.js").read_text(encoding="utf-8")
    urls = precache_urls(service_worker)
    assert len(urls) == len(set(urls)) > 100
    files = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    assert set(urls) <= files  # relative to sw.js, so the site may live under any path
    expected = {
        name
        for name in files
        if name.endswith((".html", ".css", ".js", ".mjs", ".png", ".svg")) and name != "sw.js"
    }
    pyodide = {path.name for path in bundle_files(ROOT / "build" / "pyodide")}
    expected |= {f"assets/pyodide/{name}" for name in pyodide}
    expected |= {"search/search_index.json", "manifest.webmanifest"}
    assert expected - set(urls) == set()
    assert "assets/pyodide/pyodide.asm.wasm" in urls
    assert "into-the-unknown/conditions/index.html" in urls
    assert any(re.fullmatch(r"assets/javascripts/workers/search\.\w+\.min\.js", u) for u in urls)
    assert not any(url.endswith(".map") for url in urls)
    # Directory addresses and calculator addresses with a query find their page.
    assert 'directoryIndex:"index.html"' in service_worker
    assert "ignoreURLParametersMatching:[/.*/]" in service_worker
    # Nothing from another host: the Workbox runtime is inlined, nothing is imported.
    assert "importScripts" not in service_worker
    assert not list(site.glob("workbox-*.js"))
    assert set(re.findall(r"https?://[^\s\"'`]+", service_worker)) <= WORKBOX_MESSAGE_LINKS
    assert "//" not in "".join(urls)


def test_the_zip_holds_the_whole_site(site: Path, tmp_path: Path) -> None:
    archive = write_zip(site, tmp_path / "dist" / "open-rules-reference-site.zip")
    with zipfile.ZipFile(archive) as zipped:
        assert zipped.testzip() is None
        names = set(zipped.namelist())
    files = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    assert names == {f"open-rules-reference-site/{name}" for name in files}
    for name in ("index.html", "sw.js", "manifest.webmanifest", "assets/pyodide/pyodide.asm.wasm"):
        assert f"open-rules-reference-site/{name}" in names


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


def test_a_service_worker_failure_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<html><head></head></html>", "utf-8")
    with pytest.raises(OfflineError, match="the service worker failed"):
        write_service_worker(tmp_path)  # no search index, no assets: patterns match nothing


def test_the_update_prompt_is_built_from_text_only() -> None:
    script = (ROOT / "docs" / "assets" / "javascripts" / "offline.mjs").read_text("utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in script
    assert "location.protocol" in script  # no registration from file://


# In the browser ---------------------------------------------------------------------------


def test_after_one_visit_the_site_works_offline(browser: Browser, server: str) -> None:
    sw_text = urllib.request.urlopen(f"{server}sw.js").read().decode("utf-8")
    watched = Watched(browser, server)
    page = watched.page
    page.goto(server)
    assert wait_until_offline_ready(page) == len(precache_urls(sw_text))

    offline = False
    from_network: list[str] = []
    failed: list[str] = []

    def on_response(response) -> None:
        if offline and not response.from_service_worker:
            from_network.append(response.url)

    page.on("response", on_response)
    page.on("requestfailed", lambda request: offline and failed.append(request.url))
    watched.context.set_offline(True)
    offline = True
    assert page.evaluate("navigator.onLine") is False

    # A page never visited, by its directory address.
    response = page.goto(f"{server}into-the-unknown/conditions/")
    assert response is not None and response.ok and response.from_service_worker
    expect(page.locator("h1")).to_contain_text("Conditions")

    # Material's search: its worker and index come from the precache too.
    # Typed key by key: Material reads the query on keyup, and fill() sends none.
    page.locator(".md-search__input").click()
    page.locator(".md-search__input").press_sequentially("petrified")
    results = page.locator(".md-search-result__item")
    expect(results.first).to_be_visible(timeout=30_000)
    expect(page.locator(".md-search-result__list")).to_contain_text("Petrified")

    # Two calculators, Python and the rules core from the precache; the query is kept.
    page.goto(f"{server}calculators/attack/?system=into-the-unknown")
    wait_live(page, "attack")
    expect(page.locator("#attack-system")).to_have_value("into-the-unknown")
    page.select_option("#attack-mode", "advantage")
    page.fill("#attack-bonus", "6")
    page.fill("#attack-defense", "16")
    expect(page.locator("#attack-result")).to_contain_text("79.75%")  # 319/400

    page.goto(f"{server}calculators/damage/")
    wait_live(page, "damage")
    page.fill("#damage-expression", "2d6+3")
    expect(page.locator("#damage-result")).to_contain_text("5 to 15")
    assert figure(page, "damage", "Range") == "5 to 15"
    assert figure(page, "damage", "Mean").split()[0] == "10.00"

    assert from_network == []
    assert failed == []
    watched.close()


def test_offline_reaches_the_service_worker_too(browser: Browser, server: str) -> None:
    """The control for the test above: a page missing from the precache does not load
    offline, so what loaded there came from the cache, not from the network."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(server)
    wait_until_offline_ready(page)
    page.evaluate(
        """async () => {
            const name = (await caches.keys()).find((cacheName) => cacheName.includes("precache"));
            const cache = await caches.open(name);
            for (const request of await cache.keys()) {
                if (request.url.includes("orcus/combat/index.html")) await cache.delete(request);
            }
        }"""
    )
    context.set_offline(True)
    with pytest.raises(PlaywrightError, match="net::ERR_"):
        page.goto(f"{server}orcus/combat/")
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
        wait_until_offline_ready(page)
        expect(page.locator("#offline-update")).to_have_count(0)  # none on the first visit

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
