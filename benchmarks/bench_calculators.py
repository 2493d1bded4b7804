"""Calculator speed in headless Chromium, served from 127.0.0.1, in one run.

0. Journeys at the table, on a 375x812 touch screen: four questions a game master asks,
   each as the taps, keys and swipes it takes, and the time from opening the calculator to
   the answer in view. Cold: a fresh browser, nothing cached, Python boots. Warm: the site
   already open on another calculator, reached by its own link (instant navigation keeps
   Python loaded). A swipe is counted whenever the next thing to tap, or the answer at
   the end, is not on screen.
1. Second calculator page: from a tap on the link to the live answer, Python already
   loaded on the first page (target: < 400 ms).
2. Cold start: time from navigation to the first live result on the attack page, against
   a bare `loadPyodide()` on an otherwise empty page of the same server (target: <= 1.15x).
   Bare is Pyodide as npm ships it (pyodide.asm.wasm, pyodide.asm.js and its whole standard
   library, compiled to bytecode as the site served it before it was cut), under
   bench-pyodide/, the same for any build measured. Each run uses a fresh browser context,
   so nothing is cached; the median of RUNS. The calculators' worker restores Python from
   the bundle's snapshot where the connection is fast, as it is here: how many runs did is
   said. Between the two, the calculators' own worker alone on an empty page (its
   downloads, Python restored or started, the wheel, a first answer) splits the gap into
   Python's own start and the page around it. Below them all, a
   worker that only calls `loadPyodide()`: the floor of any page that runs Python off its
   main thread, as the calculators must to keep the page responsive.
3. Latency: from an input change to the updated result, for ordinary inputs (target:
   p95 under 16 ms) and for inputs at the bounds (target: p95 under 100 ms), once the
   service worker has finished its one-off precache of the site. Each change follows the
   previous answer by one frame, faster than anyone types: the page writes its address
   once such a burst pauses, so these figures hold no address writes. A third figure
   spaces the ordinary changes by PAUSE_MS, so that each follows the address written for
   the one before, as when a reader stops to look at each answer. Every page is loaded
   afresh, so Python has just started: the first changes after that run while V8 is
   still tiering up Pyodide's WebAssembly, and the ordinary figures are also given
   without the first WARM_UP changes of each page. A fourth figure is of ordinary changes
   made during that one-off store, on a first visit: it begins at the first answer, so
   as not to slow Python's start, and takes about a second here.
4. Slow phone, first visit: a shared link to the attack calculator
   (`?system=<the first system>&bonus=9&defense=16`) opened with nothing cached on
   Lighthouse's mobile profile: 1.6 Mbps down, 150 ms round trip (Chromium's network
   emulation, which holds for the calculators' worker too), CPU 4x slower, from a server
   that compresses text (HTML, CSS, scripts, JSON) and sends the rest (WebAssembly, zip
   archives, wheels, gzip files) as stored, as GitHub Pages and the like do (targets: the
   first live answer within 30 s, at most 5 MB sent before it). Chromium slows only the
   page's own thread ("Emulation.setCPUThrottlingRate": "Operation is only supported for
   pages, not workers"), so Python runs at this machine's speed: the time from the last
   byte of Python sent to the answer is also given four times over, an estimate of that
   phone's. How far Python has got is read every SAMPLE_MS where the answer is read (its
   headline, and the mark beside it): the longest time it stood still is given too. The
   median of SLOW_RUNS.

Needs a built site: run `make build` first. Run from the repository root:
    .venv/bin/python benchmarks/bench_calculators.py [--site DIR] [--base DIR] [--only PARTS]
--site measures another build (default: site/); --base measures a second one the same way,
printed beside it (for example a build of an earlier commit: `git worktree add ../base
COMMIT`, `make build` there, `--base ../base/site`); --only runs some parts: a comma list of
journeys, second-page, cold-start, latency, slow-phone.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import itertools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml
from bench_lighthouse import Gzipped
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
TRACE = False
CHANGES = 60
PAUSE_MS = 400  # longer than the page waits (300 ms) before it writes the address
PAUSED_CHANGES = 20
WARM_UP = 10

EMPTY_PAGE = """<!doctype html><meta charset="utf-8"><title>bare Pyodide</title>
<script type="module">
import { loadPyodide } from "./bench-pyodide/pyodide.mjs";
await loadPyodide({ indexURL: new URL("./bench-pyodide/", location.href).href });
window.benchDone = performance.now();
</script>"""

WORKER_PAGE = """<!doctype html><meta charset="utf-8"><title>the worker alone</title>
<script type="module">
const worker = new Worker("./assets/javascripts/calculator-worker.mjs", {
  type: "module",
  name: "BUNDLE",
});
const request = JSON.stringify({ calculator: "attack", inputs: {}, base: "./" });
worker.onmessage = ({ data }) => {
  if (data.ready) worker.postMessage({ id: 1, request });
  else if (data.id === 1) window.benchDone = performance.now();
};
</script>"""

BARE_WORKER_PAGE = """<!doctype html><meta charset="utf-8"><title>bare Pyodide in a worker</title>
<script type="module">
const worker = new Worker("./assets/javascripts/bench-bare-worker.mjs", { type: "module" });
worker.onmessage = () => { window.benchDone = performance.now(); };
</script>"""

# Beside calculator-worker.mjs, as a worker of the site would be.
BARE_WORKER = """import { loadPyodide } from "../../bench-pyodide/pyodide.mjs";
await loadPyodide({ indexURL: new URL("../../bench-pyodide/", import.meta.url).href });
self.postMessage("loaded");
"""

NPM_PYODIDE = ROOT / "node_modules" / "pyodide"
BARE_FILES = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")


def bare_pyodide(folder: Path) -> None:
    """Pyodide as npm ships it, its standard library compiled to bytecode and its lock file
    listing no package, as the site served it before issue 45: what a bare loadPyodide()
    loads, the same whichever build is measured."""
    folder.mkdir(parents=True)
    for name in BARE_FILES:
        shutil.copy(NPM_PYODIDE / name, folder / name)
    lock = json.loads((NPM_PYODIDE / "pyodide-lock.json").read_text(encoding="utf-8"))
    lock["packages"] = {}
    (folder / "pyodide-lock.json").write_text(json.dumps(lock), encoding="utf-8")
    pyodide = Path(sys.executable).parent / "pyodide"
    subprocess.run(
        [pyodide, "py-compile", "--silent", "--no-keep", folder / "python_stdlib.zip"], check=True
    )


SLOW_RUNS = 3
SAMPLE_MS = 250
# Lighthouse's mobile profile (its "slow 4G"), as Chromium's DevTools protocol takes it.
SLOW_NETWORK = {
    "offline": False,
    "latency": 150,
    "downloadThroughput": 1.6e6 / 8,
    "uploadThroughput": 750e3 / 8,
}
CPU_SLOWDOWN = 4


class _Sent(Gzipped):
    """Text gzipped, the rest as stored (as bench_lighthouse serves the site); every
    body's size and the time it was sent."""

    sent: list[tuple[float, str, int]]

    def copyfile(self, source, outputfile):
        data = source.read()
        outputfile.write(data)
        self.sent.append((time.time(), self.path.split("?")[0], len(data)))


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a body cut off by the closing browser is not the benchmark's concern


# Where the answer is read, as text: the headline (its figures) and the mark beside it.
ANSWER_PLACE = """(() => {
  const headline = document.querySelector(".calc-headline");
  if (!headline) return "";
  const mark = getComputedStyle(headline, "::after").content;
  return headline.innerText + " | " + (mark === "none" ? "" : mark);
})()"""
# The first live answer, in epoch milliseconds (the server's clock), or null.
LIVE_AT = """(() => {
  const mark = performance.getEntriesByName("calc-first-live-result")[0];
  return mark ? performance.timeOrigin + mark.startTime : null;
})()"""


def first_system() -> str:
    return yaml.safe_load((ROOT / "content" / "systems.yml").read_text("utf-8"))["systems"][0]


def slow_phone_visit(browser, folder: Path) -> dict:
    """One first visit by a shared link on the slow-phone profile: seconds to the first live
    answer, bytes sent before it, the longest time the answer's place stood still, and the
    time from the last byte of Python to the answer."""
    sent: list[tuple[float, str, int]] = []
    handler = functools.partial(type("Sent", (_Sent,), {"sent": sent}), directory=str(folder))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    context = browser.new_context(**PHONE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", SLOW_NETWORK)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    started = time.time()
    page.goto(
        f"{base}calculators/attack/?system={first_system()}&bonus=9&defense=16", wait_until="commit"
    )
    said: list[tuple[float, str]] = []
    live = None
    while live is None and time.time() - started < 300:
        shown = page.evaluate(ANSWER_PLACE)
        if not said or said[-1][1] != shown:
            said.append((time.time(), shown))
        live = page.evaluate(LIVE_AT)
        page.wait_for_timeout(SAMPLE_MS)
    context.close()
    httpd.shutdown()
    httpd.server_close()
    if live is None:
        raise TimeoutError("no live answer on the slow phone in 300 s")
    live /= 1000
    before = [(when, path, size) for when, path, size in sent if when <= live]
    python = [when for when, path, _ in before if "/assets/pyodide/" in path]
    changes = [when for when, _ in said if when <= live] + [live]
    return {
        "seconds": live - started,
        "megabytes": sum(size for _, _, size in before) / 1e6,
        "python_megabytes": sum(size for _, path, size in before if "/assets/pyodide/" in path)
        / 1e6,
        "still": max(b - a for a, b in itertools.pairwise(changes)),
        "after_python": live - max(python) if python else float("nan"),
        "said": [(when - started, text) for when, text in said],
    }


def slow_phone(visits: list[dict]) -> dict:
    """The median of a build's visits (each figure on its own), and what the first said."""
    median = {
        key: statistics.median(visit[key] for visit in visits)
        for key in ("seconds", "megabytes", "python_megabytes", "still", "after_python")
    }
    return {**median, "said": visits[0]["said"]}


def print_slow_phone(label: str, figures: dict) -> None:
    estimate = figures["seconds"] + (CPU_SLOWDOWN - 1) * figures["after_python"]
    print(
        f"  {label}: first live answer {figures['seconds']:5.1f} s (target <= 30), "
        f"{figures['megabytes']:5.2f} MB sent before it (target <= 5; Python "
        f"{figures['python_megabytes']:.2f} MB); the answer's place stood still at most "
        f"{figures['still']:4.1f} s; the answer came {figures['after_python']:4.1f} s after "
        f"Python's last byte: with Python too {CPU_SLOWDOWN}x slower, about {estimate:4.1f} s"
    )


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


PHONE = {"viewport": {"width": 375, "height": 812}, "has_touch": True, "is_mobile": True}

# (title, page, calculator, actions). Actions: ("pick", field, value) chooses from a select;
# ("type", field, text) taps a field, clears it and types; ("tick", label) taps a box.
JOURNEYS = [
    (
        "Orcus +7 vs 18 with combat advantage",
        "attack",
        "attack",
        [
            ("pick", "system", "orcus"),
            ("type", "bonus", "+7"),
            ("type", "defense", "18"),
            ("tick", "Combat advantage"),
        ],
    ),
    (
        "2d8+4 on a critical hit in Orcus, then Into the Unknown",
        "damage",
        "damage",
        [
            ("pick", "system", "orcus"),
            ("type", "expression", "2d8+4"),
            ("tick", "Critical hit"),
            ("pick", "system", "into-the-unknown"),
        ],
    ),
    (
        "Encounter: five level-3 PCs vs two level-4 standard, four level-3 mooks",
        "encounter",
        "encounter",
        [
            ("pick", "system", "orcus"),
            ("type", "party", "5"),
            ("type", "level", "3"),
            ("type", "m1_level", "4"),
            ("pick", "m1_rank", "standard"),
            ("type", "m1_count", "2"),
            ("type", "m2_level", "3"),
            ("pick", "m2_rank", "mook"),
            ("type", "m2_count", "4"),
        ],
    ),
    (
        "3d6 Combat +5 vs 17, escalation 2, vulnerable target",
        "attack",
        "attack",
        [
            ("pick", "system", "3d6-combat"),
            ("type", "bonus", "+5"),
            ("type", "defense", "17"),
            ("type", "escalation", "2"),
            ("tick", "Target Vulnerable"),
        ],
    ),
]

IN_VIEW = """(element) => {
  const box = element.getBoundingClientRect();
  const inside = box.height > 0 && box.top >= 0 && box.bottom <= innerHeight;
  if (!inside) return false;
  // Not under the docked answer: what the finger lands on is the element itself.
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return hit === element || element.contains(hit) || hit?.control === element;
}"""

ANSWER_IN_VIEW = """(calculator) => {
  const widget = document.querySelector(`.calc[data-calculator="${calculator}"]`);
  const result = widget?.querySelector(".calc-result");
  const answer = widget?.querySelector(".calc-headline, .calc-undefined");
  if (!result || !answer || result.getAttribute("aria-busy") !== "false") return null;
  if (result.classList.contains("calc-result--stale")) return null;
  const box = answer.getBoundingClientRect();
  return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight ? true : false;
}"""


class Tally:
    def __init__(self) -> None:
        self.taps = self.keys = self.swipes = 0
        self.swiped_to: list[str] = []  # what each swipe was for

    def reach(self, page: Page, locator, what: str) -> None:
        """Bring an element on screen as a reader would: a swipe if it is not."""
        if not locator.evaluate(IN_VIEW):
            self.swipe(what)
            locator.evaluate("element => element.scrollIntoView({block: 'center'})")

    def swipe(self, what: str) -> None:
        self.swipes += 1
        self.swiped_to.append(what)

    def __str__(self) -> str:
        swipes = f" ({', '.join(self.swiped_to)})" if self.swiped_to else ""
        return (
            f"{self.taps} taps, {self.keys} keys, {self.swipes} swipes{swipes}; "
            f"answer {self.after_last:.0f} ms after the last input"
        )


def run_journey(page: Page, calculator: str, actions) -> Tally:
    tally = Tally()
    # Bound to Python's worker once its Copy link button is there: a reader's first tap
    # comes later than a script's.
    page.locator(f'.calc[data-calculator="{calculator}"] .calc-copy').wait_for()
    form = page.locator(f'.calc[data-calculator="{calculator}"] form')
    for kind, target, *value in actions:
        if TRACE:
            print(f"      {time.monotonic():.3f} {kind} {target}", file=sys.stderr)
        if kind == "tick":  # the system's own box, perhaps folded under its side
            inner = page.locator("label.calc-check:not([hidden])", has_text=target)
        else:
            inner = page.locator(f'[name="{target}"]')
        control = form.locator(inner).first
        # A field folded away ("More options", a side's situations) takes a tap on it first.
        folded = form.locator("details:not([open])", has=inner)
        if folded.count():
            summary = folded.first.locator("summary")
            tally.reach(page, summary, summary.inner_text())
            summary.tap()
            tally.taps += 1
        tally.reach(page, control, target)
        if kind == "pick":
            control.tap()
            control.select_option(value[0])
            tally.taps += 2  # open the list, pick
        elif kind == "type":
            control.tap()
            control.fill("")
            control.press_sequentially(value[0])
            tally.taps += 1
            tally.keys += len(value[0])
        else:
            control.tap()
            tally.taps += 1
    tally.last_input = time.monotonic()
    answer = poll(page, f"(({ANSWER_IN_VIEW})({calculator!r}))")
    if answer is False:  # live, but off screen: the reader swipes to it
        tally.swipe("the answer")
    tally.after_last = (time.monotonic() - tally.last_input) * 1000
    return tally


def follow_link(page: Page, slug: str) -> bool:
    """Follow the site's own link to a calculator page; whether the visit's window (and
    Python) was kept, as instant navigation does, rather than the page loaded afresh.

    Callers pause before it, as a reader would: a link tapped while the previous
    navigation still swaps the page's parts can be detached, and the browser then loads
    the page afresh."""
    page.evaluate("window.benchVisit = true")
    page.locator(f'a[href$="calculators/{slug}/"]').first.evaluate("link => link.click()")
    page.wait_for_url(f"**/calculators/{slug}/")
    return page.evaluate("window.benchVisit === true")


def journeys(browser, base: str) -> list[tuple[str, str, float, str, float]]:
    rows = []
    for title, slug, calculator, actions in JOURNEYS:
        # Cold: a fresh browser opens the calculator's address.
        context = browser.new_context(**PHONE)
        page = context.new_page()
        started = time.monotonic()
        page.goto(f"{base}calculators/{slug}/")
        cold_tally = run_journey(page, calculator, actions)
        cold = (time.monotonic() - started) * 1000
        # Warm: from another calculator of the same visit, by the site's own link.
        other = "dice" if slug != "dice" else "damage"
        page.wait_for_timeout(300)
        follow_link(page, other)
        poll(page, FIRST_LIVE_RESULT)
        page.wait_for_timeout(300)  # a reader's pause (see follow_link), not counted
        started = time.monotonic()
        kept = follow_link(page, slug)
        warm_tally = run_journey(page, calculator, actions)
        warm = (time.monotonic() - started) * 1000
        context.close()
        warm_note = str(warm_tally) + ("" if kept else " (NOT kept warm: the page loaded afresh)")
        rows.append((title, str(cold_tally), cold, warm_note, warm))
    return rows


SECOND_PAGE = """async (slug) => {
  const start = performance.now();
  document.querySelector(`a[href$="calculators/${slug}/"]`).click();
  return start;
}"""


def live_after(page: Page, start: float) -> float:
    """When the page showed a live answer after `start` (its own mark, not the last page's)."""
    return poll(
        page,
        "performance.getEntriesByName('calc-first-live-result')"
        f".map((mark) => mark.startTime).find((time) => time > {start}) ?? null",
    )


FOLLOW = """async (selector) => {
  const start = performance.now();
  document.querySelector(selector).click();
  return start;
}"""


def after_rule_page_ms(browser, base: str) -> float:
    """Check the rule, then recompute: from the attack calculator to the rule its answer
    cites, then by that page's own calculator link to a live answer again."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{base}calculators/attack/")
    poll(page, FIRST_LIVE_RESULT)
    page.wait_for_timeout(300)
    page.evaluate("window.benchVisit = true")
    page.evaluate(FOLLOW, ".calc-result .calc-sources a")
    page.wait_for_url(lambda url: "/calculators/" not in url)
    # The address changes before instant navigation swaps the content in: wait for the rule.
    poll(page, "document.querySelector('article .calc') ? null : 1")
    page.wait_for_timeout(300)  # reading the rule, not counted
    # The rule page's own link to a calculator (not Material's "edit this page" button).
    start = page.evaluate(FOLLOW, 'article a[href*="calculators/"]:not(.md-content__button)')
    page.wait_for_url("**/calculators/**")
    if not page.evaluate("window.benchVisit === true"):
        raise RuntimeError("the rule page or the calculator loaded afresh: no instant navigation")
    live = live_after(page, start)
    context.close()
    return live - start


def second_page_ms(browser, base: str) -> float:
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{base}calculators/attack/")
    poll(page, FIRST_LIVE_RESULT)
    page.wait_for_timeout(300)  # a reader's pause (see follow_link), not counted
    page.evaluate("window.benchVisit = true")
    start = page.evaluate(SECOND_PAGE, "damage")
    page.wait_for_url("**/calculators/damage/")
    if not page.evaluate("window.benchVisit === true"):
        raise RuntimeError("the second calculator page loaded afresh: no instant navigation")
    live = live_after(page, start)
    context.close()
    return live - start


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = _QuietServer(("127.0.0.1", 0), handler)
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


def empty_page_ms(page: Page, url: str) -> float:
    page.goto(url)
    return poll(page, "window.benchDone ?? null")


# calculator-widget.mjs marks when the page shows its first result computed by Python.
FIRST_LIVE_RESULT = "performance.getEntriesByName('calc-first-live-result')[0]?.startTime ?? null"

LATENCY_SCRIPT = """async ([selector, values, rounds, pause]) => {
  const input = document.querySelector(selector);
  const result = input.closest('.calc').querySelector('.calc-result');
  const times = [];
  for (let i = 0; times.length < rounds; i++) {
    const value = values[i % values.length];
    if (value === input.value) continue; // the same input asks nothing new
    // Let the previous result render first, as it would between two keystrokes.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, pause)));
    // Answered: the page has shown Python's reply to this input, a result or a message.
    const answered = new Promise((resolve, reject) => {
      const observer = new MutationObserver(() => {
        if (result.getAttribute('aria-busy') !== 'false') return;
        observer.disconnect();
        resolve();
      });
      observer.observe(result, { attributes: true, attributeFilter: ['aria-busy'] });
      setTimeout(() => reject(new Error(`no answer to ${value} in 10 s`)), 10000);
    });
    const start = performance.now();
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await answered;
    times.push(performance.now() - start);
  }
  return times;
}"""


def latencies(
    page: Page, base: str, cases, changes: int = CHANGES, pause_ms: int = 0, stored: bool = True
) -> list[list[float]]:
    """For each case, its changes' times in the order made, from a fresh load of its page."""
    times: list[list[float]] = []
    for calculator, selector, values in cases:
        page.goto(f"{base}calculators/{calculator}/")
        poll(page, FIRST_LIVE_RESULT)
        if stored:
            # The first visit also stores the site for offline use (about 20 MB, once):
            # measure after that, as every later visit would.
            poll(page, "document.querySelector('.offline-status__ready') ? true : null")
        # Successive values differ, so every change produces a new result.
        times.append(page.evaluate(LATENCY_SCRIPT, [selector, values, changes, pause_ms]))
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def summary(per_page: list[list[float]], skip: int = 0) -> str:
    times = [time for page in per_page for time in page[skip:]]
    return (
        f"p95 {p95(times):6.1f} ms, median {statistics.median(times):5.1f} ms "
        f"over {len(times)} changes"
    )


PARTS = ("journeys", "second-page", "cold-start", "latency", "slow-phone")


def prepared(site: Path, temporary: Path, name: str) -> Path:
    """A copy of a built site with the benchmark's own pages and bare Pyodide beside it."""
    runtimes = list(site.glob("assets/pyodide/*/pyodide.mjs"))
    if not runtimes:
        raise SystemExit(f"no built site in {site}: run `make build` first")
    bundle = runtimes[0].parent.name  # the pages' Python bundle (assets/pyodide/<id>/)
    folder = temporary / name
    shutil.copytree(site, folder)
    for page, text in (
        ("bench-empty.html", EMPTY_PAGE),
        ("bench-worker.html", WORKER_PAGE),
        ("bench-bare-worker.html", BARE_WORKER_PAGE),
        ("assets/javascripts/bench-bare-worker.mjs", BARE_WORKER),
    ):
        (folder / page).write_text(text.replace("BUNDLE", bundle), encoding="utf-8")
    shutil.copytree(temporary / "bench-pyodide", folder / "bench-pyodide")
    return folder


def cold_start(browser, bases: dict[str, str]) -> dict[str, dict[str, float]]:
    """The cold start of each build, their runs interleaved: a machine whose load changes
    during the benchmark weighs on every build alike."""
    runs: dict[str, dict[str, list[float]]] = {
        label: {"calculator": [], "worker": [], "bare_worker": [], "bare": [], "restored": []}
        for label in bases
    }
    for _ in range(RUNS):
        for label, base in bases.items():
            for name, measure, url in (
                ("calculator", first_live_result_ms, f"{base}calculators/attack/"),
                ("worker", empty_page_ms, f"{base}bench-worker.html"),
                ("bare_worker", empty_page_ms, f"{base}bench-bare-worker.html"),
                ("bare", empty_page_ms, f"{base}bench-empty.html"),
            ):
                context = browser.new_context()
                page = context.new_page()
                runs[label][name].append(measure(page, url))
                if name == "calculator":
                    runs[label]["restored"].append(float(page.evaluate(RESTORED)))
                context.close()
    return {
        label: {
            **{name: statistics.median(times) for name, times in measured.items()},
            "restored": sum(measured["restored"]),
        }
        for label, measured in runs.items()
    }


# Whether the calculators' worker restored Python from the bundle's snapshot, as the page
# marks it (calculator-client.mjs); a build before the snapshot marks nothing.
RESTORED = "performance.getEntriesByName('calc-python-ready')[0]?.detail.snapshot === true"


def print_cold_start(label: str, figures: dict[str, float]) -> None:
    calculator, worker = figures["calculator"], figures["worker"]
    bare, bare_worker = figures["bare"], figures["bare_worker"]
    print(f"  {label}:")
    print(f"    first live result (attack page), median of {RUNS}: {calculator:8.0f} ms")
    print(f"      Python restored from the snapshot in {figures['restored']:.0f} of {RUNS} runs")
    print(f"    the calculators' worker alone on an empty page: {worker:8.0f} ms")
    print(f"    bare loadPyodide() in a worker, median:         {bare_worker:8.0f} ms")
    print(f"    bare loadPyodide() on an empty page, median:    {bare:8.0f} ms")
    print(
        f"    ratio: {calculator / bare:.2f} (target <= 1.15); the worker alone "
        f"{worker / bare:.2f}, so the page around it adds {(calculator - worker) / bare:.2f}; "
        f"a worker that only loads Pyodide {bare_worker / bare:.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--base", type=Path, help="a second build, measured the same way")
    parser.add_argument("--only", default=",".join(PARTS), help=",".join(PARTS))
    args = parser.parse_args()
    parts = set(args.only.split(","))
    if parts - set(PARTS):
        parser.error(f"--only takes {', '.join(PARTS)}")
    sites = {"this build": args.site, **({"base": args.base} if args.base else {})}
    cold: dict[str, dict[str, float]] = {}
    slow: dict = {}
    with tempfile.TemporaryDirectory() as temporary:
        bare_pyodide(Path(temporary) / "bench-pyodide")
        folders = {
            label: prepared(site, Path(temporary), f"site-{index}")
            for index, (label, site) in enumerate(sites.items())
        }
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            servers = {label: serve(folder) for label, folder in folders.items()}
            bases = {label: base for label, (_, base) in servers.items()}
            measure_the_rest(browser, bases["this build"], parts)
            if "cold-start" in parts:
                cold = cold_start(browser, bases)
            if "slow-phone" in parts:
                for _ in range(SLOW_RUNS):
                    for label, folder in folders.items():
                        slow.setdefault(label, []).append(slow_phone_visit(browser, folder))
            for httpd, _ in servers.values():
                httpd.shutdown()
            browser.close()
    if cold:
        print("cold start, unthrottled (a fresh browser context each run):")
        for label, figures in cold.items():
            print_cold_start(label, figures)
    if slow:
        print(
            f"slow phone, first visit by a shared link (1.6 Mbps, 150 ms, CPU {CPU_SLOWDOWN}x; "
            f"median of {SLOW_RUNS}):"
        )
        slow = {label: slow_phone(visits) for label, visits in slow.items()}
        for label, figures in slow.items():
            print_slow_phone(label, figures)
        for label, figures in slow.items():
            print(f"  what {label}'s answer place said (first run; seconds from the link):")
            for at, text in figures["said"]:
                print(f"    {at:5.1f} s  {text}")
    return 0


def measure_the_rest(browser, base: str, parts: set[str]) -> None:
    """Journeys, the second page and latency: this build only, printed as measured."""
    if "journeys" in parts:
        print("journeys at 375x812 (touch), from opening the page to the answer in view")
        print("(the taps and keys are played by Playwright, whose own time is included):")
        for title, cold_tally, cold, warm_tally, warm in journeys(browser, base):
            print(f"  {title}")
            print(f"    cold {cold:7.0f} ms  {cold_tally}")
            print(f"    warm {warm:7.0f} ms  {warm_tally}")
    if "second-page" in parts:
        second = statistics.median(second_page_ms(browser, base) for _ in range(RUNS))
        via_rule = statistics.median(after_rule_page_ms(browser, base) for _ in range(RUNS))
        print(
            f"second calculator page to a live answer, median of {RUNS}: {second:.0f} ms "
            "(target < 400)"
        )
        print(
            f"a calculator after one of its rules to a live answer, median of {RUNS}: "
            f"{via_rule:.0f} ms (target < 400)"
        )
    if "latency" in parts:
        context = browser.new_context()
        page = context.new_page()
        ordinary = latencies(page, base, ORDINARY)
        bounds = latencies(page, base, AT_BOUNDS)
        paused = latencies(page, base, ORDINARY, PAUSED_CHANGES, PAUSE_MS)
        context.close()
        context = browser.new_context()
        storing = latencies(context.new_page(), base, ORDINARY[:1], stored=False)
        context.close()
        print(f"input -> result, ordinary inputs: {summary(ordinary)} (target < 16)")
        print(f"  the same without each page's first {WARM_UP}: {summary(ordinary, WARM_UP)}")
        print(f"input -> result, at the bounds:   {summary(bounds)} (target < 100)")
        print(f"input -> result, ordinary, {PAUSE_MS} ms apart: {summary(paused)}")
        print(f"input -> result, ordinary, while a first visit stores the site: {summary(storing)}")


if __name__ == "__main__":
    raise SystemExit(main())
