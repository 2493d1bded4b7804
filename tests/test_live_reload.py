"""Live reload under `mkdocs serve`: the dev server's script runs (the page's policy allows
it there), and editing a page's Markdown reloads the page in the browser with the edit.

The server runs in a temporary copy of the project, on a free port of 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import ROOT
from playwright.sync_api import Browser, expect

from hooks.content.yaml_lines import load_yaml

pytestmark = pytest.mark.site  # each test here builds the site or a copy of the project

STARTUP_SECONDS = 300  # a first full build on a busy machine
RELOAD_SECONDS = 300  # a rebuild, then the poll that reloads the page
VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _project_copy(target: Path) -> Path:
    """The repository without node_modules (linked); build/ is copied, since the dev server
    rebuilds the Pyodide bundle there when the rules change."""
    shutil.copytree(
        ROOT,
        target,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "site", "test-artifacts", "__pycache__", "*_cache", "node_modules"
        ),
    )
    (target / "node_modules").symlink_to(ROOT / "node_modules")
    return target


@pytest.fixture
def dev_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    project = _project_copy(tmp_path / "project")
    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    origin = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            assert server.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                with urllib.request.urlopen(origin, timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "mkdocs serve did not start in time"
            time.sleep(1)
        yield origin, project
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=20)
        log.close()


def test_editing_a_page_reloads_it_in_the_browser(
    browser: Browser, dev_server: tuple[str, Path]
) -> None:
    origin, project = dev_server
    # The first page of the first system, whatever the content holds.
    slug = str(load_yaml(project / "content" / "systems.yml")["systems"][0])
    name = str(load_yaml(project / "content" / slug / "system.yml")["pages"][0])
    markdown = project / "content" / slug / "pages" / f"{name}.md"

    context = browser.new_context()
    context.add_init_script(VIOLATIONS)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.goto(f"{origin}{slug}/{name}/")
        expect(page.locator("article h1")).to_be_visible()
        # The dev server's script is in the page, and ran: it polls the server.
        assert "livereload" in page.content()
        page.wait_for_timeout(500)
        assert page.evaluate("() => window.__violations") == []
        page.evaluate("() => { window.__notReloaded = true; }")

        marker = f"Live reload check {time.time_ns()}"
        markdown.write_text(markdown.read_text(encoding="utf-8") + f"\n{marker}\n", "utf-8")

        expect(page.locator("article")).to_contain_text(marker, timeout=RELOAD_SECONDS * 1000)
        assert page.evaluate("() => window.__notReloaded") is None  # a reload, not a patch
        assert page.evaluate("() => window.__violations") == []
        assert not [error for error in errors if "Content Security Policy" in error], errors
    finally:
        context.close()


def _page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode("utf-8")


def test_editing_a_rules_file_recompiles_the_answers_and_the_wheel(
    dev_server: tuple[str, Path],
) -> None:
    """No restart: the build-time answer and the browser's Python follow a rules.yml edit."""
    origin, project = dev_server
    slug = str(load_yaml(project / "content" / "systems.yml")["systems"][0])  # the form's default
    rules = project / "content" / slug / "rules.yml"
    text = rules.read_text(encoding="utf-8")
    critical = re.search(r"(?m)^(  critical:\n(?:    .*\n)*?    from: )(\d+)$", text)
    assert critical, f"{slug}'s rules.yml gives no attack.critical.from: edit another number"
    page = f"{origin}calculators/attack/"
    before = _page(page)
    bundle_before = re.search(r'data-bundle="([^"]+)"', before)[1]

    lower = int(critical[2]) - 1
    rules.write_text(text[: critical.start(2)] + str(lower) + text[critical.end(2) :], "utf-8")
    crit_before = re.search(r"Crit [0-9.]+%", before)[0]
    deadline = time.monotonic() + RELOAD_SECONDS
    while crit_before in (after := _page(page)):
        assert time.monotonic() < deadline, "the build-time answer did not follow rules.yml"
        time.sleep(1)
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
    lock = _page(f"{origin}assets/pyodide/{bundle_after}/pyodide-lock.json")
    assert "rules_core" in lock
