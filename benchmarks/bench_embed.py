"""Embeds' first contact on a slow phone, in headless Chromium, in one run.

An embed on a campaign wiki is a first contact wherever the reader has seen the site before:
the browser keeps a frame of another site apart by the site in its address bar (its HTTP
cache too). The host page is served from `localhost`, the site from 127.0.0.1, on
bench_calculators.py's slow-phone profile (Lighthouse's mobile: 1.6 Mbps, 150 ms, CPU 4x),
the site as a static host serves it (text gzipped). Chromium runs as it ships (storage
partitioned for frames of other sites; Playwright turns that off). The frame of another
site runs in a process of its own, where Chromium's network emulation of the host page does
not reach (nor its worker's): the site's server itself sends at the profile's pace (one pipe
of 1.6 Mbps for every response, each after 150 ms), and the frame's main thread is slowed 4x
through a session of its own. As in bench_calculators.py, Python's worker runs at this
machine's speed.

1. First paint: each calculator's embed of its defaults, alone on a host page: the bytes the
   site had sent when the frame first painted, its build-time answer (target: at most 100 KB,
   Python not counted).
2. Cold first live answer: an embed of a shared link to the attack calculator
   (`?system=<the first system>&bonus=9&defense=16`), the page's first embed, in view (targets:
   within 30 s, at most 5 MB sent before it); the median of SLOW_RUNS, and what its answer's
   place said meanwhile. Beside it, run for run, the same link opened on the site's own page
   (the site's first contact, the bar an embed's is held to) on the same paced server.
3. Three embeds (the attack, the damage and the fight of shared links) on one host page, a
   reader scrolling to each as the one before answers: the time to each live answer, and how
   often Python's WebAssembly was sent (target: once).

Needs a built site: run `make build` first. Run from the repository root:
    .venv/bin/python benchmarks/bench_embed.py [--site DIR]
"""

from __future__ import annotations

import argparse
import functools
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlencode

from bench_calculators import (
    ANSWER_PLACE,
    ARGS,
    CHROMIUM,
    CPU_SLOWDOWN,
    LIVE_AT,
    PHONE,
    SAMPLE_MS,
    SLOW_NETWORK,
    SLOW_RUNS,
    _QuietServer,
    _Sent,
    first_system,
)
from playwright.sync_api import Browser, Frame, sync_playwright
from playwright.sync_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rules_core.calculators import CALCULATORS  # noqa: E402

# The frame's first paint, in epoch milliseconds (or null); its first live answer and its
# answer's place are read as bench_calculators.py reads a page's.
PAINTED_AT = """(() => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return paint ? performance.timeOrigin + paint.startTime : null;
})()"""


class _Paced(_Sent):
    """_Sent at the slow phone's pace: every response after its round trip, every body's
    bytes through one pipe of the profile's throughput, shared by all."""

    pipe: ClassVar[threading.Lock] = threading.Lock()
    free_at: ClassVar[list[float]] = [0.0]  # when the pipe is free again

    def send_head(self):
        time.sleep(SLOW_NETWORK["latency"] / 1000)
        return super().send_head()

    def copyfile(self, source, outputfile):
        data = source.read()
        for start in range(0, len(data), 16_384):
            chunk = data[start : start + 16_384]
            with self.pipe:
                begins = max(time.monotonic(), self.free_at[0])
                self.free_at[0] = begins + len(chunk) / SLOW_NETWORK["downloadThroughput"]
                done = self.free_at[0]
            time.sleep(max(0.0, done - time.monotonic()))
            outputfile.write(chunk)
        self.sent.append((time.time(), self.path.split("?")[0], len(data)))


class Site:
    """The site (127.0.0.1) and a host site (localhost) holding one page, each on a port."""

    def __init__(self, folder: Path, host_folder: Path) -> None:
        self.sent: list[tuple[float, str, int]] = []
        paced = type("Sent", (_Paced,), {"sent": self.sent})
        handler = functools.partial(paced, directory=str(folder))
        self.httpd = _QuietServer(("127.0.0.1", 0), handler)
        host = functools.partial(type("Host", (_Sent,), {"sent": []}), directory=str(host_folder))
        self.host_httpd = _QuietServer(("localhost", 0), host)
        for server in (self.httpd, self.host_httpd):
            threading.Thread(target=server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.host = f"http://localhost:{self.host_httpd.server_address[1]}/"
        self.host_folder = host_folder

    def page(self, frames: list[str]) -> str:
        """The host page's address, its frames those of the site's embed pages given."""
        body = "".join(
            f'<h2>Embed {index + 1}</h2><iframe src="{self.origin}{src}" title="embed" '
            'width="100%" height="600" style="border: 0"></iframe>'
            for index, src in enumerate(frames)
        )
        script = f'<script src="{self.origin}assets/javascripts/embed-host.js" async></script>'
        (self.host_folder / "index.html").write_text(
            '<!doctype html><meta charset="utf-8"><meta name="viewport" '
            'content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">'
            f"<title>wiki</title><h1>Session 12</h1>{body}{script}",
            encoding="utf-8",
        )
        self.sent.clear()
        return self.host

    def bytes_before(self, at: float) -> int:
        return sum(size for when, _, size in self.sent if when <= at)

    def close(self) -> None:
        for server in (self.httpd, self.host_httpd):
            server.shutdown()
            server.server_close()


def launch(playwright) -> Browser:
    """Chromium as it ships: storage partitioned for frames of other sites."""
    probe = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    page = probe.new_page()
    page.goto("chrome://version")
    command = page.locator("#command_line").inner_text()
    probe.close()
    disabled = re.search(r"--disable-features=(\S+)", command)
    if not disabled:
        raise SystemExit("Playwright's Chromium names no --disable-features")
    kept = [
        name for name in disabled.group(1).split(",") if name != "ThirdPartyStoragePartitioning"
    ]
    return playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[*ARGS, f"--disable-features={','.join(kept)}"],
        ignore_default_args=[disabled.group(0)],
    )


def slow_phone_host(browser: Browser):
    """A phone's page whose frames' main threads are slowed as its own is, each as it comes."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})

    def slow(frame: Frame) -> None:
        if frame.parent_frame is None:
            return
        try:
            cdp = context.new_cdp_session(frame)
        except PlaywrightError:
            return  # in the page's process: slowed with it
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})

    page.on("framenavigated", slow)
    return context, page


def frame_of(page, index: int = 0) -> Frame:
    deadline = time.time() + 60
    while len(page.frames) <= index + 1:
        if time.time() > deadline:
            raise TimeoutError("the embed's frame did not come")
        page.wait_for_timeout(50)
    return page.frames[index + 1]


def read(frame: Frame, expression: str):
    """The expression in the frame's page, or None while the frame is still on its way to it."""
    try:
        return frame.evaluate(expression)
    except PlaywrightError as error:
        if "Execution context was destroyed" in str(error):
            return None
        raise


def until(frame: Frame, expression: str, timeout: float = 300):
    deadline = time.time() + timeout
    while (value := read(frame, expression)) is None:
        if time.time() > deadline:
            raise TimeoutError(expression)
        frame.page.wait_for_timeout(SAMPLE_MS)
    return value


def first_paint(browser: Browser, site: Site, name: str) -> float:
    """KB the site had sent when a defaults embed of `name` first painted."""
    context, page = slow_phone_host(browser)
    page.goto(site.page([f"embed/{name}/"]), wait_until="commit")
    painted = until(frame_of(page), PAINTED_AT)
    context.close()
    return site.bytes_before(painted / 1000) / 1000


def cold_answer(browser: Browser, site: Site, embedded: bool = True) -> dict:
    """A cold embed of a shared link (or, not embedded, the same link on the site's own page):
    seconds to its first live answer, MB sent before it, and what its answer's place said."""
    query = urlencode({"system": first_system(), "bonus": 9, "defense": 16})
    context, page = slow_phone_host(browser)
    started = time.time()
    if embedded:
        page.goto(site.page([f"embed/attack/?{query}"]), wait_until="commit")
        frame = frame_of(page)
    else:
        site.sent.clear()
        page.goto(f"{site.origin}calculators/attack/?{query}", wait_until="commit")
        frame = page.main_frame
    said: list[tuple[float, str]] = []
    live = None
    while live is None and time.time() - started < 300:
        shown = read(frame, ANSWER_PLACE)
        if shown is not None and (not said or said[-1][1] != shown):
            said.append((time.time() - started, shown))
        live = read(frame, LIVE_AT)
        page.wait_for_timeout(SAMPLE_MS)
    context.close()
    if live is None:
        raise TimeoutError("no live answer in 300 s")
    live /= 1000
    python = [size for when, path, size in site.sent if when <= live and "/pyodide/" in path]
    return {
        "seconds": live - started,
        "megabytes": site.bytes_before(live) / 1e6,
        "python_megabytes": sum(python) / 1e6,
        "said": said,
    }


def three_embeds(browser: Browser, site: Site) -> tuple[list[float], int]:
    """Three embeds of shared links: seconds to each live answer, scrolling to each in turn,
    and how often the WebAssembly was sent."""
    query = urlencode({"system": first_system(), "bonus": 9, "defense": 16})
    frames = [
        f"embed/attack/?{query}",
        "embed/damage/?expression=3d6%2B2",
        "embed/fight/?c1_bonus=7",
    ]
    context, page = slow_phone_host(browser)
    started = time.time()
    page.goto(site.page(frames), wait_until="commit")
    seconds = []
    for index in range(len(frames)):
        page.locator("iframe").nth(index).scroll_into_view_if_needed()
        until(frame_of(page, index), LIVE_AT)
        seconds.append(time.time() - started)
    context.close()
    wasm = sum(1 for _, path, _ in site.sent if path.endswith("pyodide.asm.wasm.gz"))
    return seconds, wasm


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    args = parser.parse_args()
    if not (args.site / "embed").is_dir():
        raise SystemExit(f"no embed pages in {args.site}: run `make build` first")
    with tempfile.TemporaryDirectory() as host_folder, sync_playwright() as playwright:
        site = Site(args.site, Path(host_folder))
        browser = launch(playwright)
        print(
            f"embeds on a slow phone (1.6 Mbps, 150 ms, CPU {CPU_SLOWDOWN}x), "
            "the host page on another site:"
        )
        painted = {name: first_paint(browser, site, name) for name in CALCULATORS}
        largest = max(painted, key=painted.__getitem__)
        print(
            f"  first paint of a defaults embed: at most {painted[largest]:.1f} KB sent "
            f"({largest}, target <= 100), least {min(painted.values()):.1f} KB; "
            + ", ".join(f"{name} {kb:.1f}" for name, kb in painted.items())
        )
        # Interleaved, the embed and the site's own page: the machine's load weighs on both.
        visits: dict[bool, list[dict]] = {True: [], False: []}
        for _ in range(SLOW_RUNS):
            for embedded in (True, False):
                visits[embedded].append(cold_answer(browser, site, embedded))
        for embedded, label in ((True, "cold embed of"), (False, "the site's own page, by")):
            median = {
                key: statistics.median(v[key] for v in visits[embedded])
                for key in ("seconds", "megabytes", "python_megabytes")
            }
            print(
                f"  {label} a shared link (attack), median of {SLOW_RUNS}: first live answer "
                f"{median['seconds']:5.1f} s (target <= 30), "
                f"{median['megabytes']:.2f} MB sent before it "
                f"(target <= 5; Python {median['python_megabytes']:.2f} MB)"
            )
        seconds, wasm = three_embeds(browser, site)
        print(
            "  three embeds (attack, damage, fight), each scrolled to as the one before "
            "answers: live at "
            + ", ".join(f"{s:.1f} s" for s in seconds)
            + f"; the WebAssembly sent {wasm} time(s) (target: 1)"
        )
        print("  what the cold embed's answer place said (first run; seconds from the link):")
        for at, text in visits[True][0]["said"]:
            print(f"    {at:5.1f} s  {text}")
        browser.close()
        site.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
