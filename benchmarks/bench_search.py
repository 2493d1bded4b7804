"""Search at 1x and 10x content, in Chromium with the CPU slowed 4x (a phone), in one run.

For each judged query (the terms, then questions and misspellings as players type them,
which the search reads for their naming words and respells from the site's vocabulary),
typed key by key into the home page's search box on a fresh page:
- the time from the last key to the first result on screen (target at 10x: < 300 ms);
- the bytes the page downloaded for search before the first query (Material's settings
  file and the script that answers it), then for the first query (Pagefind's runtime and
  the index chunks of its words) and for each later query (chunks and excerpts only).

The 10x site is the real content with every system copied ten times (as bench_build.py).
Run from the repository root after `make build`:
.venv/bin/python benchmarks/bench_search.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_build import build_seconds, copy_project, replicated_project  # noqa: E402
from bench_calculators import serve  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
THROTTLE = 4
QUERIES = ["prone", "opportunity attack", "escalation", "death save", "grapple", "cover"]
ASKED = ["how does cover work", "how do I grapple someone", "critcal hit", "initative"]

# Marks the last key and the first change of the result list after it.
TIMING = """() => {
  window.searchTiming = { lastKey: 0, firstResult: 0 };
  const input = document.querySelector(".md-search__input");
  input.addEventListener("keyup", () => {
    window.searchTiming.lastKey = performance.now();
    window.searchTiming.firstResult = 0;
  });
  const list = document.querySelector(".md-search-result__list");
  new MutationObserver(() => {
    const timing = window.searchTiming;
    if (timing.lastKey && !timing.firstResult && list.children.length) {
      timing.firstResult = performance.now();
    }
  }).observe(list, { childList: true });
}"""


def is_search(url: str) -> bool:
    return "/search/" in url or url.endswith("/search.js")


def measure(browser, origin: str, queries: list[str]) -> dict[str, float]:
    """The figures of the queries, each typed on a fresh page; each query's own time is
    printed too, so that the worst is named."""
    times, first_query, later_query, before = [], [], [], []
    for query in queries:
        # The measuring script waits on a page value: the site's policy forbids the eval.
        context = browser.new_context(service_workers="block", bypass_csp=True)
        page = context.new_page()
        sizes: list[tuple[str, int]] = []
        page.on(
            "requestfinished",
            lambda request, sizes=sizes: sizes.append(
                (request.url, request.sizes()["responseBodySize"])
            ),
        )
        session = context.new_cdp_session(page)
        session.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
        page.goto(origin, wait_until="networkidle")
        before.append(sum(size for url, size in sizes if is_search(url)))
        seen = len(sizes)
        page.locator(".md-search__input").click()
        page.evaluate(TIMING)
        page.locator(".md-search__input").press_sequentially(query, delay=120)
        page.wait_for_function(
            "() => window.searchTiming.firstResult > 0", timeout=60_000, polling=50
        )
        timing = page.evaluate("() => window.searchTiming")
        times.append(timing["firstResult"] - timing["lastKey"])
        print(f"  {query!r}: {times[-1]:.0f} ms", flush=True)
        page.wait_for_load_state("networkidle")
        first_query.append(sum(size for _, size in sizes[seen:]))
        seen = len(sizes)
        page.locator(".md-search__input").fill("")
        page.locator(".md-search__input").press_sequentially("attack roll", delay=120)
        page.wait_for_function(
            "() => window.searchTiming.firstResult > 0", timeout=60_000, polling=50
        )
        page.wait_for_load_state("networkidle")
        later_query.append(sum(size for _, size in sizes[seen:]))
        context.close()
    return {
        "last key to first result, median ms": statistics.median(times),
        "last key to first result, worst ms": max(times),
        "search bytes before the first query, KB": statistics.median(before) / 1000,
        "bytes for the first query, median KB": statistics.median(first_query) / 1000,
        "bytes for a later query, median KB": statistics.median(later_query) / 1000,
    }


def main() -> int:
    results: dict[str, dict[str, dict[str, float]]] = {"terms": {}, "asked": {}}
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        one, ten = base / "x1", base / "x10"
        copy_project(one)
        replicated_project(ten, 10)
        build_seconds(one, 1)
        build_seconds(ten, 1)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            for name, project in (("1x", one), ("10x", ten)):
                httpd, origin = serve(project / "site")
                print(f"{name}, last key to first result of each query:", flush=True)
                results["terms"][name] = measure(browser, origin, QUERIES)
                results["asked"][name] = measure(browser, origin, ASKED)
                httpd.shutdown()
            browser.close()
    for group, queries in (("terms", QUERIES), ("asked", ASKED)):
        print(f"search, CPU slowed {THROTTLE}x, queries: {', '.join(queries)}")
        for metric in results[group]["1x"]:
            one_x, ten_x = results[group]["1x"][metric], results[group]["10x"][metric]
            print(f"{metric:<42} 1x {one_x:8.1f}   10x {ten_x:8.1f}   ratio {ten_x / one_x:5.2f}")
        worst = results[group]["10x"]["last key to first result, worst ms"]
        print(f"worst at 10x: {worst:.0f} ms (target < 300 ms)\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
