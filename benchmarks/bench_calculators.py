"""Calculator speed in headless Chromium, served from 127.0.0.1, in one run.

1. Cold start: time from navigation to the first live result on the attack page, against
   a bare `loadPyodide()` on an otherwise empty page of the same site (target: <= 1.15x).
   Each run uses a fresh browser context, so nothing is cached; the median of RUNS.
2. Latency: from an input change to the updated result, for ordinary inputs (target:
   p95 under 16 ms) and for inputs at the bounds (target: p95 under 100 ms), once the
   service worker has finished its one-off precache of the site.

Needs a built site: run `make build` first. Run from the repository root:
    .venv/bin/python benchmarks/bench_calculators.py
"""

from __future__ import annotations

import functools
import http.server
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RUNS = 5
CHANGES = 60

EMPTY_PAGE = """<!doctype html><meta charset="utf-8"><title>bare Pyodide</title>
<script type="module">
import { loadPyodide } from "./assets/pyodide/pyodide.mjs";
await loadPyodide({ indexURL: new URL("./assets/pyodide/", location.href).href });
window.benchDone = performance.now();
</script>"""

# Inputs typed into the attack and damage calculators, cycled through CHANGES times.
ORDINARY = [
    ("attack", "#attack-bonus", [str(b) for b in range(0, 12)]),
    ("damage", "#damage-expression", ["2d6+3", "1d8+4", "3d4+3", "4d6kh3", "d%", "1d12+5"]),
]
AT_BOUNDS = [
    (
        "damage",
        "#damage-expression",
        ["100d6", "20d60kh19", "12d6+12d8+12d10+12d12", "80d8", "60d12"],
    ),
    ("attack", "#attack-damage", ["100d6", "80d8", "20d20kh10+20d20kh10"]),
]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def poll(page: Page, expression: str, timeout: float = 120.0) -> float:
    """Evaluate expression until it gives a number. Not wait_for_function: that compiles
    its predicate in the page, which the site's Content-Security-Policy forbids."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = page.evaluate(expression)
        if value is not None:
            return value
        page.wait_for_timeout(20)
    raise TimeoutError(f"{expression} gave nothing in {timeout:.0f} s")


def first_live_result_ms(page: Page, url: str) -> float:
    page.goto(url)
    # The time the page marked, not the time the poll saw it.
    return poll(page, FIRST_LIVE_RESULT)


def bare_pyodide_ms(page: Page, url: str) -> float:
    page.goto(url)
    return poll(page, "window.benchDone ?? null")


# calculators.mjs marks when the page shows its first result computed by Python.
FIRST_LIVE_RESULT = "performance.getEntriesByName('calc-first-live-result')[0]?.startTime ?? null"

LATENCY_SCRIPT = """async ([selector, values, rounds]) => {
  const input = document.querySelector(selector);
  const result = input.closest('.calc').querySelector('.calc-result');
  const times = [];
  for (let i = 0; i < rounds; i++) {
    // Let the previous result render first, as it would between two keystrokes.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const changed = new Promise((resolve) => {
      const observer = new MutationObserver(() => { observer.disconnect(); resolve(); });
      observer.observe(result, { childList: true, subtree: true, characterData: true });
    });
    const start = performance.now();
    input.value = values[i % values.length];
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await changed;
    times.push(performance.now() - start);
  }
  return times;
}"""


def latencies(page: Page, base: str, cases) -> list[float]:
    times: list[float] = []
    for calculator, selector, values in cases:
        page.goto(f"{base}calculators/{calculator}/")
        poll(page, FIRST_LIVE_RESULT)
        # The first visit also precaches the site for offline use (about 20 MB, once):
        # measure after that, as every later visit would.
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        # Successive values differ, so every change produces a new result.
        times += page.evaluate(LATENCY_SCRIPT, [selector, values, CHANGES])
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> int:
    site = ROOT / "site"
    if not (site / "assets" / "pyodide" / "pyodide.mjs").exists():
        print("no built site: run `make build` first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "site"
        shutil.copytree(site, folder)
        (folder / "bench-empty.html").write_text(EMPTY_PAGE, encoding="utf-8")
        httpd, base = serve(folder)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            calculator_runs, bare_runs = [], []
            for _ in range(RUNS):
                for runs, measure, url in (
                    (calculator_runs, first_live_result_ms, f"{base}calculators/attack/"),
                    (bare_runs, bare_pyodide_ms, f"{base}bench-empty.html"),
                ):
                    context = browser.new_context()
                    runs.append(measure(context.new_page(), url))
                    context.close()
            context = browser.new_context()
            page = context.new_page()
            ordinary = latencies(page, base, ORDINARY)
            bounds = latencies(page, base, AT_BOUNDS)
            context.close()
            browser.close()
        httpd.shutdown()
    calculator, bare = statistics.median(calculator_runs), statistics.median(bare_runs)
    print(f"first live result (attack page), median of {RUNS}: {calculator:8.0f} ms")
    print(f"bare loadPyodide() on an empty page, median:    {bare:8.0f} ms")
    print(f"ratio: {calculator / bare:.2f} (target <= 1.15)")
    print(
        f"input -> result, ordinary inputs: p95 {p95(ordinary):6.1f} ms, "
        f"median {statistics.median(ordinary):5.1f} ms over {len(ordinary)} changes (target < 16)"
    )
    print(
        f"input -> result, at the bounds:   p95 {p95(bounds):6.1f} ms, "
        f"median {statistics.median(bounds):5.1f} ms over {len(bounds)} changes (target < 100)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
