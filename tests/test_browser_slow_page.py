"""A calculator page arriving slowly, as on a phone's poor network: Chromium paints what it
has parsed so far, and what it has painted must not move when the rest arrives. A style
that depends on what comes later in the page (a title styled by `:has(> .calc)`, a table's
columns sized by all its rows) moves the page under the reader's finger; on a fast network
the whole page is parsed before the first paint, and no other test sees it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CALCULATOR_PAGES, Device, _QuietHandler, compare_pages, serve
from playwright.sync_api import Browser

# A page's HTML, sent this many bytes at a time, with this pause between: about 50 KB a
# second, a 3G connection; a paint between most pieces.
PIECE = 1024
PAUSE = 0.02

# Every layout shift from the start, each with when it was (ms from the navigation) and
# whether any element it moved lies outside the calculator's widget (the page's title, the
# text under it, the navigation), or in the widget above its answer (its form, Copy link,
# the party's note, the status line).
WATCH_SHIFTS = """
window.shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const moved = (entry.sources || []).map((source) => source.node).filter(Boolean);
    const element = (node) => (node.nodeType === 1 ? node : node.parentElement);
    const aboveAnswer = (node) =>
      !node.matches(".calc") && node.closest(".calc") && !node.closest(".calc-result");
    window.shifts.push({
      at: entry.startTime,
      value: entry.value,
      outside: moved.some((node) => !element(node)?.closest(".calc")),
      above_answer: moved.some((node) => element(node) && aboveAnswer(element(node))),
      what: moved.map((node) => (element(node)?.outerHTML || "").slice(0, 120)),
    });
  }
}).observe({ type: "layout-shift", buffered: true });
"""


class _SlowPages(_QuietHandler):
    """Serves the site, its pages' HTML a piece at a time."""

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix != ".html" or not path.is_file():
            super().do_GET()
            return
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        for start in range(0, len(body), PIECE):
            self.wfile.write(body[start : start + PIECE])
            self.wfile.flush()
            time.sleep(PAUSE)


@pytest.fixture(scope="module")
def slow_server(site: Path) -> Iterator[str]:
    httpd = serve(site, _SlowPages)
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def _shifts_while_arriving(browser: Browser, server: str, address: str) -> list[dict]:
    """The layout shifts of a phone's visit to address, until Python's first answer, each
    marked `arrived` where the page's HTML had all arrived (DOMContentLoaded) by then."""
    watched = Device(browser, server, "phone")
    page = watched.page
    page.add_init_script(WATCH_SHIFTS)
    page.goto(server + address)
    page.wait_for_function(
        "() => performance.getEntriesByName('calc-first-live-result').length", timeout=60_000
    )
    page.wait_for_timeout(300)
    shifts = page.evaluate("""() => {
      const arrived = performance.getEntriesByType("navigation")[0].domContentLoadedEventStart;
      return window.shifts.map((shift) => ({ ...shift, arrived: shift.at >= arrived }));
    }""")
    watched.close()
    return shifts


def test_a_compare_page_arriving_slowly_never_moves(
    browser: Browser, slow_server: str, site: Path
) -> None:
    """Nothing on a Compare page moves: its title, its question, its table of answers."""
    for address in compare_pages(site):
        assert _shifts_while_arriving(browser, slow_server, address) == [], address


@pytest.mark.parametrize("stem", sorted(CALCULATOR_PAGES))
def test_a_calculator_page_arriving_slowly_keeps_still(
    browser: Browser, slow_server: str, stem: str
) -> None:
    """The title and the text above a calculator stay where they were first painted. Once
    the page has arrived, nothing above the answer moves either: the widget's code adds no
    room for what it binds (Copy link, the party's note, built in with theirs), and each
    line the status says while Python loads fits the line the build's took. (While the
    form itself arrives, a row grows as its second field comes: that is not asserted.)"""
    shifts = _shifts_while_arriving(browser, slow_server, f"calculators/{stem}/")
    assert [shift for shift in shifts if shift["outside"]] == []
    assert [shift for shift in shifts if shift["arrived"] and shift["above_answer"]] == []


def test_a_compare_tables_columns_are_set_by_its_first_row(
    browser: Browser, server: str, site: Path
) -> None:
    """The names' column is as wide with only the first row arrived as with all of them: a
    row with a longer name, coming later, moves no answer. Checked at 375 px and at 200 %
    text, where the column is the widest share of the screen."""
    watched = Device(browser, server, "phone")
    page = watched.page
    page.goto(server + compare_pages(site)[0])
    widths = page.evaluate("""() => {
      const th = document.querySelector(".compare-answers th");
      const width = () => th.getBoundingClientRect().width;
      const measured = [];
      for (const size of ["", "200%"]) {
        document.documentElement.style.fontSize = size;
        const rows = [...document.querySelectorAll(".compare-answers tr")];
        const all = width();
        rows.slice(1).forEach((row) => row.remove());
        measured.push([width(), all]);
        rows.slice(1).forEach((row) => rows[0].parentElement.append(row));
      }
      return measured;
    }""")
    for first_row_only, all_rows in widths:
        # Within a rounding of the layout (Chromium counts no shift under 3 px).
        assert abs(first_row_only - all_rows) < 0.5, widths
    watched.close()
