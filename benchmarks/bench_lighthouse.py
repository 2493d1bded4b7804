"""Lighthouse mobile performance of the built site, the median of three runs per page.

Pages: the home page, the largest rules page of any system (the most term links to set up)
and that system's Terms page, the attack calculator and the first Compare page (target:
0.95 or more on each). Each page's line ends with its runs' scores; a run marked "held"
painted first only after its load event (observed, unthrottled), so its simulated paints
come late: Lighthouse counts all the work before that paint (the theme's script included)
as work the paint waited for. In the traces of held runs the renderer has painted by about
250 ms, and the frame reaches the screen only about 1 or 2 seconds later (observed first
paint 1.2 or 2.2 s), the renderer idle in between once the page's scripts have run. This
machine does it now and then on pages with the theme's stylesheet, even with every script
of the page removed, with or without --disable-gpu; it did not on a page without
stylesheets, nor in Playwright's Chromium (traced or not). The site is served gzipped, as
any static host serves it; Lighthouse 12.2.3 (the last release that runs on Node 20) comes
from the npm registry through npx and drives Debian's chromium.
Run from the repository root after `make build`:
.venv/bin/python benchmarks/bench_lighthouse.py
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
LIGHTHOUSE = "lighthouse@12.2.3"
RUNS = 3
# What GitHub Pages and the like compress; the rest (.wasm, .zip, .whl, .gz) is sent as it is.
COMPRESSED = (".html", ".css", ".js", ".mjs", ".json", ".xml", ".svg", ".webmanifest")


class Gzipped(http.server.SimpleHTTPRequestHandler):
    """The site as a static host serves it: text gzipped, the rest as stored."""

    def log_message(self, format, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in COMPRESSED):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def pages() -> list[str]:
    content = ROOT / "content"
    slugs = yaml.safe_load((content / "systems.yml").read_text(encoding="utf-8"))["systems"]
    rules_pages = [
        path
        for slug in slugs
        for name in yaml.safe_load((content / slug / "system.yml").read_text(encoding="utf-8"))[
            "pages"
        ]
        for path in [SITE / slug / name / "index.html"]
    ]
    largest = max(rules_pages, key=lambda path: path.stat().st_size).parent.relative_to(SITE)
    compare = yaml.safe_load((content / "compare.yml").read_text(encoding="utf-8"))
    first_concept = compare["concepts"][0]["slug"]
    return [
        "",
        f"{largest.as_posix()}/",
        f"{largest.parts[0]}/terms/",
        "calculators/attack/",
        f"compare/{first_concept}/",
    ]


def run(url: str, report: Path) -> dict[str, float]:
    subprocess.run(
        [
            "npx",
            "--yes",
            LIGHTHOUSE,
            url,
            "--only-categories=performance",
            "--form-factor=mobile",
            "--output=json",
            f"--output-path={report}",
            "--quiet",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        ],
        check=True,
        env={**os.environ, "CHROME_PATH": os.environ.get("CHROMIUM", "/usr/bin/chromium")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    result = json.loads(report.read_text(encoding="utf-8"))
    audits = result["audits"]
    observed = audits["metrics"]["details"]["items"][0]
    return {
        "score": result["categories"]["performance"]["score"],
        "tbt": audits["total-blocking-time"]["numericValue"],
        "lcp": audits["largest-contentful-paint"]["numericValue"],
        "held": observed["observedFirstContentfulPaint"] > observed["observedLoad"],
    }


def main() -> int:
    if not (SITE / "index.html").is_file():
        print("no built site: run `make build` first", file=sys.stderr)
        return 1
    handler = functools.partial(Gzipped, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    print(f"Lighthouse mobile performance, median of {RUNS} runs (target >= 0.95)")
    worst = 1.0
    held = 0
    measured = pages()
    with tempfile.TemporaryDirectory() as temporary:
        report = Path(temporary) / "report.json"
        for page in measured:
            runs = [run(base + page, report) for _ in range(RUNS)]
            score = statistics.median(r["score"] for r in runs)
            tbt = statistics.median(r["tbt"] for r in runs)
            lcp = statistics.median(r["lcp"] for r in runs)
            worst = min(worst, score)
            held += sum(r["held"] for r in runs)
            each = " ".join(f"{r['score']:.2f}{' held' if r['held'] else ''}" for r in runs)
            print(f"  /{page:<34} {score:4.2f}   TBT {tbt:5.0f} ms   LCP {lcp:5.0f} ms   ({each})")
    httpd.shutdown()
    print(f"worst page: {worst:.2f}; held runs: {held} of {RUNS * len(measured)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
