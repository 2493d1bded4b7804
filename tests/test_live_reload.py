"""Live reload under `mkdocs serve`: the dev server's script runs (the page's policy allows
it there), and editing a page's Markdown reloads the page in the browser with the edit.

The server runs in a temporary copy of the project, on a free port of 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
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
    """The repository without its heavy, generated folders; those are linked."""
    heavy = ("node_modules", "build")
    shutil.copytree(
        ROOT,
        target,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "site", "test-artifacts", "__pycache__", "*_cache", *heavy
        ),
    )
    for name in heavy:
        (target / name).symlink_to(ROOT / name)
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
