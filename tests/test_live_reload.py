"""`make serve`, the contributor's loop: the dev server's script runs (the page's policy
allows it there); a save renders the pages it changed, in one build and one reload, and
the pages are those a full build gives; a rules.yml save recompiles the answers and the
browser's wheel; a content error answers every page at once with the file, line and
message, and the page comes back by itself once a save fixes it.

The server is `make serve`'s own command (tests/dev_server.py) in a temporary copy of the
project, on a free port of 127.0.0.1."""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import ARTIFACTS, ROOT, SITE
from dev_server import (
    BUILT,
    RELOADED,
    DevServer,
    get,
    noted_table,
    project_copy,
    with_erratum,
    with_note,
)
from playwright.sync_api import Browser, Page, expect

from hooks.content.yaml_lines import load_yaml
from hooks.postprocess.csp import script_hash

RELOAD_SECONDS = 300  # a rebuild on a busy machine, then the poll that reloads the page
VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""
CRITICAL = r"(?m)^(  critical:\n(?:    .*\n)*?    from: )(\d+)$"  # attack.critical.from
# Counts the loads of the page in this tab: a save must reload it once.
LOADS = "sessionStorage.loads = String(Number(sessionStorage.loads || 0) + 1);"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return project_copy(ROOT, tmp_path / "project")


@pytest.fixture
def dev_server(project: Path, tmp_path: Path) -> Iterator[DevServer]:
    with DevServer(project, tmp_path / "serve.log") as server:
        yield server


def first_page(project: Path) -> tuple[str, str, Path]:
    """The first page of the first system, whatever the content holds."""
    slug = str(load_yaml(project / "content" / "systems.yml")["systems"][0])
    name = str(load_yaml(project / "content" / slug / "system.yml")["pages"][0])
    return slug, name, project / "content" / slug / "pages" / f"{name}.md"


def saved(server: DevServer, path: Path, text: str) -> tuple[int, int]:
    """Save a file once the server is idle: (builds, reloads) it had printed before."""
    server.settle(quiet=1.5)
    before = server.count(BUILT), server.count(RELOADED)
    path.write_text(text, encoding="utf-8")
    return before


def once(server: DevServer, before: tuple[int, int]) -> None:
    """The save was one build and one reload, whatever it changed."""
    server.settle()
    after = server.count(BUILT) - before[0], server.count(RELOADED) - before[1]
    assert after == (1, 1), f"(builds, reloads) for one save: {after}\n{server.log()[-3000:]}"


def test_editing_a_page_reloads_it_once_with_the_edit(
    browser: Browser, dev_server: DevServer, project: Path
) -> None:
    slug, name, markdown = first_page(project)
    context = browser.new_context()
    context.add_init_script(VIOLATIONS)
    context.add_init_script(LOADS)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.goto(f"{dev_server.origin}{slug}/{name}/")
        expect(page.locator("article h1")).to_be_visible()
        # The dev server's script is in the page, and ran: it polls the server.
        assert "livereload" in page.content()
        page.wait_for_timeout(500)
        assert page.evaluate("() => window.__violations") == []
        page.evaluate("() => { window.__notReloaded = true; }")
        # A service worker left by an earlier visit to this address (README.md, "Offline")...
        page.evaluate("async () => { await navigator.serviceWorker.register('/sw.js'); }")

        marker = f"Live reload check {time.time_ns()}"
        before = saved(dev_server, markdown, with_note(markdown.read_text("utf-8"), marker))

        expect(page.locator("article")).to_contain_text(marker, timeout=RELOAD_SECONDS * 1000)
        assert page.evaluate("() => window.__notReloaded") is None  # a reload, not a patch
        once(dev_server, before)
        assert page.evaluate("() => sessionStorage.loads") == "2"  # the first load, one reload
        # ... is removed by the dev server's pages: it would keep showing the old ones.
        page.wait_for_function(
            "async () => (await navigator.serviceWorker.getRegistrations()).length === 0"
        )
        # Only that page was rendered again (the search and the offline list follow it).
        rendered = rf"rendering 1 of \d+ pages changed: {slug}/{name}\.md\n"
        assert re.search(rendered, dev_server.log()), dev_server.log()[-2000:]
        assert page.evaluate("() => window.__violations") == []
        assert not [error for error in errors if "Content Security Policy" in error], errors
    finally:
        context.close()


@SITE
def test_editing_a_rules_file_recompiles_the_answers_and_the_wheel_in_one_build(
    dev_server: DevServer, project: Path
) -> None:
    """No restart, and one build: the build writes the rules data and the wheel, and the
    server does not take those writes for another edit."""
    slug = str(load_yaml(project / "content" / "systems.yml")["systems"][0])  # the form's default
    rules = project / "content" / slug / "rules.yml"
    text = rules.read_text(encoding="utf-8")
    critical = re.search(CRITICAL, text)
    assert critical, f"{slug}'s rules.yml gives no attack.critical.from: edit another number"
    page = f"{dev_server.origin}calculators/attack/"
    before_page = get(page)[1]
    bundle_before = re.search(r'data-bundle="([^"]+)"', before_page)[1]

    lower = int(critical[2]) - 1
    before = saved(
        dev_server, rules, text[: critical.start(2)] + str(lower) + text[critical.end(2) :]
    )
    crit_before = re.search(r"Crit [0-9.]+%", before_page)[0]
    deadline = time.monotonic() + RELOAD_SECONDS
    while crit_before in (after := get(page)[1]):
        assert time.monotonic() < deadline, "the build-time answer did not follow rules.yml"
        time.sleep(0.5)
    once(dev_server, before)
    # What the edited rules give, by the clone's own command line and recompiled data.
    argv = ["attack", "--system", slug, "--bonus", "6", "--defense", "16", "--damage", "1d8+4"]
    answer = subprocess.run(
        [sys.executable, "-m", "rules_core", *argv, "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    crit = json.loads(answer.stdout)["crit"]
    assert f"Crit {float(Fraction(crit)) * 100:.2f}%" in after
    bundle_after = re.search(r'data-bundle="([^"]+)"', after)[1]
    assert bundle_after != bundle_before, "the browser's wheel was not rebuilt"
    manifest = get(f"{dev_server.origin}assets/pyodide/{bundle_after}/bundle.json")[1]
    assert "rules_core" in manifest
    # No snapshot of Python with the rules before the edit: the browser starts Python anew.
    assert "snapshot" not in json.loads(manifest)
    # The site serves the new bundle only.
    assert get(f"{dev_server.origin}assets/pyodide/{bundle_before}/bundle.json")[0] == 404


def _broken_situation(project: Path) -> tuple[Path, str, str, int]:
    """A rules.yml with a situation's `confers` misspelt: (file, text, broken text, line)."""
    for slug in load_yaml(project / "content" / "systems.yml")["systems"]:
        rules = project / "content" / str(slug) / "rules.yml"
        if not rules.exists():
            continue
        text = rules.read_text(encoding="utf-8")
        confers = re.search(r"confers: \[([a-z0-9-]+)", text)
        if confers:
            line = text[: confers.start(1)].count("\n") + 1
            broken = text[: confers.start(1)] + "x" + text[confers.start(1) :]
            return rules, text, broken, line
    raise AssertionError("no system's situation confers another: break another name")


def _look(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_a_content_error_is_on_the_page_at_once_and_goes_when_fixed(
    browser: Browser, dev_server: DevServer, project: Path
) -> None:
    slug, name, _ = first_page(project)
    rules, text, broken, line = _broken_situation(project)
    where = f"{rules.relative_to(project).as_posix()}:{line}"
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{dev_server.origin}{slug}/{name}/")
        expect(page.locator("article h1")).to_be_visible()

        saved(dev_server, rules, broken)
        # The open page reloads into the error: the file and line, the message and the fix.
        expect(page.locator("h1")).to_have_text("Content error", timeout=RELOAD_SECONDS * 1000)
        expect(page.locator(".where")).to_have_text(where)
        expect(page.locator(".message")).to_contain_text("which is no situation of")
        expect(page.locator(".message")).to_contain_text("did you mean")
        expect(page.locator(".here")).to_contain_text(f"{line} ")
        _look(page, "dev-server-content-error-375")
        # Any page answers with it, rather than waiting for a build that never comes (the
        # bound of the wait is the machine's, not a speed asked of the server).
        status, body = get(f"{dev_server.origin}calculators/attack/")
        assert status == 500 and where in body and "livereload" in body
        assert get(f"{dev_server.origin}sitemap-paths.js")[0] in (200, 404)  # not a page

        saved(dev_server, rules, text)
        # The page comes back by itself.
        expect(page.locator("article h1")).to_be_visible(timeout=RELOAD_SECONDS * 1000)
        assert get(f"{dev_server.origin}calculators/attack/")[0] == 200
    finally:
        context.close()


def _built_after(server: DevServer, builds: int) -> None:
    """Wait until a build has started since `builds` were counted, and none runs."""
    deadline = time.monotonic() + RELOAD_SECONDS
    while server.count(BUILT) <= builds or server.building():
        assert time.monotonic() < deadline, server.log()[-3000:]
        time.sleep(0.1)


class _Asking:
    """A page asked for 20 times a second in a thread, as a polling browser or a second tab
    does, while in the `with`; `statuses` are the answers."""

    def __init__(self, url: str) -> None:
        self.url, self.statuses = url, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._ask, daemon=True)

    def _ask(self) -> None:
        while not self.stop.wait(0.05):
            self.statuses.append(get(self.url, timeout=RELOAD_SECONDS)[0])

    def __enter__(self) -> _Asking:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


@SITE
def test_fixes_saved_while_a_page_is_requested_leave_it_served(
    dev_server: DevServer, project: Path
) -> None:
    """A content error fixed while its page is asked for 20 times a second, three times:
    once idle, the page is served, and no build was failed by the requests (the error page
    is no warning of the build)."""
    slug, name, _ = first_page(project)
    rules, text, broken, line = _broken_situation(project)
    where = f"{rules.relative_to(project).as_posix()}:{line}"
    page = f"{dev_server.origin}{slug}/{name}/"
    for _ in range(3):
        saved(dev_server, rules, broken)
        deadline = time.monotonic() + RELOAD_SECONDS
        while where not in (shown := get(page))[1]:
            assert time.monotonic() < deadline, dev_server.log()[-3000:]
            time.sleep(0.1)
        assert shown[0] == 500 and "<h1>Content error</h1>" in shown[1]
        builds = dev_server.count(BUILT)
        with _Asking(page) as asking:
            rules.write_text(text, encoding="utf-8")  # the fix, while the page is asked for
            _built_after(dev_server, builds)
        # Asked while the build ran (a request then waits for it: one may be all there is).
        assert asking.statuses and set(asking.statuses) <= {200, 500}, asking.statuses
        dev_server.settle()
        status, body = get(page)
        assert status == 200, body[:3000]
    log = dev_server.log()
    assert "in strict mode" not in log and "the site did not build" not in log, log[-3000:]


@SITE
def test_a_server_started_on_broken_content_shows_the_error_and_then_the_site(
    project: Path, tmp_path: Path
) -> None:
    rules, text, broken, line = _broken_situation(project)
    rules.write_text(broken, encoding="utf-8")
    with DevServer(project, tmp_path / "serve.log") as server:
        status, body = get(server.origin)
        assert status == 500
        assert f"{rules.relative_to(project).as_posix()}:{line}" in body
        assert "content error:" in server.log()  # in the terminal too
        rules.write_text(text, encoding="utf-8")
        deadline = time.monotonic() + RELOAD_SECONDS
        while (status := get(server.origin)[0]) != 200:
            assert time.monotonic() < deadline, server.log()[-3000:]
            time.sleep(0.5)


def _served(server: DevServer) -> dict[str, str]:
    """Every page the server lists in its sitemap, and the offline list (sw.js, which holds
    a digest of every file of the site), without the script the server adds to each page."""
    sitemap = get(f"{server.origin}sitemap.xml")[1]
    paths = sorted(re.findall(r"<loc>[^<]*?:\d+/([^<]*)</loc>", sitemap))
    assert len(paths) > 50, sitemap[:500]
    served = {"sw.js": get(f"{server.origin}sw.js")[1]}
    for path in paths:
        status, html = get(f"{server.origin}{path}")
        assert status == 200, path
        served[path] = _without_reload_script(html)
    return served


def _without_reload_script(html: str) -> str:
    """A page as built: the script the server adds, and its hash in the page's policy, out."""
    script = re.search(r"<script>(\s*var livereload = .*?)</script>", html, re.S)
    assert script, "the dev server adds its reload script to every page"
    html = html.replace(f" {script_hash(script[1])}", "", 1)
    return html.replace(script[0], "", 1)


@SITE
def test_the_pages_after_saves_are_the_pages_of_a_full_build(project: Path, tmp_path: Path) -> None:
    """A page, the home page, a table, a glossary and a rules.yml saved one after the other,
    each rendering only what it changed: the site served then is the one a server started
    afresh on the edited content builds in full (same port, so the same addresses)."""
    slug, _, markdown = first_page(project)
    folder = project / "content" / slug
    table = noted_table(folder / "tables")
    glossary = folder / "glossary.yml"
    rules = folder / "rules.yml"
    edits = [
        (markdown, lambda text: with_note(text, "A note the dev server adds.")),
        (project / "docs" / "index.md", lambda text: text + "\nA sentence the home page gains.\n"),
        (table, lambda text: with_erratum(text, "An erratum note the dev server adds.")),
        (glossary, lambda text: text.replace("  definition: ", "  definition: Edited. ", 1)),
        (rules, lambda text: re.sub(CRITICAL, lambda m: f"{m[1]}{int(m[2]) - 1}", text, count=1)),
    ]  # fmt: skip
    with DevServer(project, tmp_path / "first.log") as server:
        port = server.port
        for path, edit in edits:
            text = path.read_text(encoding="utf-8")
            assert edit(text) != text, path
            before = saved(server, path, edit(text))
            once(server, before)
        assert "rendering every page: a first build" in server.log()
        partial = re.findall(r"rendering (\d+) of (\d+) pages changed", server.log())
        assert len(partial) == len(edits), server.log()[-3000:]
        assert all(int(done) < int(every) for done, every in partial)
        incremental = _served(server)
    with DevServer(project, tmp_path / "second.log", port=port) as server:
        full = _served(server)
    assert incremental.keys() == full.keys()
    differ = [path for path in full if incremental[path] != full[path]]
    first = differ[0] if differ else ""
    was, now = full.get(first, ""), incremental.get(first, "")
    diff = difflib.unified_diff(was.split(">"), now.split(">"))
    shown = "".join(list(diff)[:20])
    assert differ == [], shown
