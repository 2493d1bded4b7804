"""First visits on a busy device: is a snapshot of Python downloaded a snapshot used, and is
the first answer ever later with it than without it? In one run, busy then quiet.

Where the connection is fast, the calculators' worker downloads a snapshot of Python (5.6
MB) and restores Python from it rather than starting it (calculator-worker.mjs,
SNAPSHOT_PACE). On a busy device, inflating that snapshot takes the worker's thread longer:
a snapshot that arrived whole but was dropped because its inflating ran past the worker's
wait for it (SNAPSHOT_WAIT_MS) was downloaded for nothing, and Python then started without
it, later still.

The device is made busy as a reader's is: LOOPS CPU-bound processes and BROWSERS other
browsers, each with two pages that keep their thread busy. The site is served by a process
of its own, first in line for the CPU (`nice -n -15`, as root): a reader's server is not on
their device. VISITS first visits by a shared link to the attack calculator (a fresh
browser context each, nothing cached), every other one with the snapshot's download
refused (Python started without it), interleaved so that the changing load weighs on both
alike. Then the same visits on the device left quiet.

Printed for each: of the visits that could use the snapshot, how many restored Python from
it, how many downloaded it whole and did not use it (target: 0), and how many dropped it
while it was still downloading (the connection slowed); the median time to the first live
answer with and without the snapshot, and their ratio (target: at most 1).

Needs a built site: run `make build` first. Run from the repository root, with nothing else
running: `.venv/bin/python benchmarks/bench_busy_device.py [--site DIR] [--visits N]
[--loops N] [--browsers N]`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench_calculators import ARGS, CHROMIUM, FIRST_LIVE_RESULT, RESTORED, first_system, poll
from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT_FILE = "rules_core.snapshot.gz"
# A page's thread kept busy: 40 ms of work in every 50.
BUSY_PAGE = (
    "setInterval(() => { const t = performance.now(); while (performance.now() - t < 40) {} }, 50)"
)


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """The site served by a process of its own, ahead of the busy ones for the CPU where
    the machine lets it (as root)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = ["nice", "-n", "-15"] if os.geteuid() == 0 else []
    server = subprocess.Popen(
        [*first, sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
         "--directory", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            if time.monotonic() > deadline:
                raise SystemExit("the site's server did not start")
            time.sleep(0.05)
        yield base
    finally:
        server.kill()
        server.wait()


@contextlib.contextmanager
def busy(playwright, base: str, loops: int, browsers: int) -> Iterator[None]:
    """The device kept busy meanwhile: CPU-bound processes and other browsers' busy pages."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(loops)]
    others: list[Browser] = []
    try:
        for _ in range(browsers):
            other = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            others.append(other)
            for _ in range(2):
                page = other.new_page()
                page.goto(f"{base}calculators/fight/")
                page.evaluate(BUSY_PAGE)
        yield
    finally:
        for other in others:
            other.close()
        for process in spinning:
            process.kill()
            process.wait()


def visit(browser: Browser, url: str, without_snapshot: bool) -> dict:
    """One first visit: when the first live answer came, whether Python was restored from
    the snapshot, and whether the snapshot was asked for and arrived whole."""
    context = browser.new_context()
    if without_snapshot:
        context.route(f"**/{SNAPSHOT_FILE}", lambda route: route.abort())
    page = context.new_page()
    snapshot = {"asked": False, "arrived": False}
    page.on("request", lambda r: r.url.endswith(SNAPSHOT_FILE) and snapshot.update(asked=True))
    page.on(
        "requestfinished",
        lambda r: r.url.endswith(SNAPSHOT_FILE) and snapshot.update(arrived=True),
    )
    page.goto(url)
    live = poll(page, FIRST_LIVE_RESULT, timeout=300)
    restored = bool(page.evaluate(RESTORED))
    context.close()
    return {"live": live, "restored": restored, **snapshot}


def visits(browser: Browser, url: str, count: int) -> dict[str, list[dict]]:
    """`count` first visits, every other one without the snapshot."""
    made: dict[str, list[dict]] = {"with": [], "without": []}
    for index in range(count):
        without = index % 2 == 1
        made["without" if without else "with"].append(visit(browser, url, without))
    return made


def report(label: str, made: dict[str, list[dict]]) -> None:
    fetched = made["with"]
    used = sum(v["restored"] for v in fetched)
    wasted = sum(v["arrived"] and not v["restored"] for v in fetched)
    dropped = sum(v["asked"] and not v["arrived"] for v in fetched)
    unasked = sum(not v["asked"] for v in fetched)
    with_it = statistics.median(v["live"] for v in fetched)
    without = statistics.median(v["live"] for v in made["without"])
    print(f"  {label}:")
    print(
        f"    of {len(fetched)} visits that could use the snapshot: restored from it "
        f"{used}, downloaded whole and not used {wasted} (target 0), dropped while "
        f"downloading {dropped}, not asked for (the connection seemed slow) {unasked}"
    )
    print(
        f"    first live answer, median: {with_it / 1000:.2f} s with the snapshot, "
        f"{without / 1000:.2f} s without ({len(made['without'])} visits): ratio "
        f"{with_it / without:.2f} (target <= 1)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--visits", type=int, default=20)
    parser.add_argument("--loops", type=int, default=6)
    parser.add_argument("--browsers", type=int, default=2)
    args = parser.parse_args()
    if not list(args.site.glob("assets/pyodide/*/bundle.json")):
        raise SystemExit(f"no built site in {args.site}: run `make build` first")
    url_path = f"calculators/attack/?system={first_system()}&bonus=9&defense=16"
    print(
        f"first visits by a shared link ({url_path}), {args.visits} busy and {args.visits} "
        "quiet, every other one without the snapshot:"
    )
    with tempfile.TemporaryDirectory() as temporary, sync_playwright() as playwright:
        folder = Path(temporary) / "site"
        shutil.copytree(args.site, folder)
        with served(folder) as base:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            with busy(playwright, base, args.loops, args.browsers):
                busy_visits = visits(browser, base + url_path, args.visits)
                load = os.getloadavg()[0]
            quiet_visits = visits(browser, base + url_path, args.visits)
            browser.close()
    report(f"busy ({args.loops} CPU loops, {args.browsers} other browsers; load {load:.1f})",
           busy_visits)  # fmt: skip
    report(f"quiet (load {os.getloadavg()[0]:.1f})", quiet_visits)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
