"""Render the app icons (192 and 512 px PNG) from docs/assets/images/icon.svg.

`python -m hooks.postprocess.app_icons` uses Debian's Chromium through Playwright, the same browser
the tests drive. The PNGs are committed: the build only copies them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "assets" / "images"
SOURCE = IMAGES / "icon.svg"
SIZES = (192, 512)
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def render(
    source: Path = SOURCE, out_dir: Path = IMAGES, sizes: Iterable[int] = SIZES
) -> list[Path]:
    from playwright.sync_api import sync_playwright

    svg = source.read_text(encoding="utf-8")
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        for size in sizes:
            page.set_viewport_size({"width": size, "height": size})
            sized = svg.replace('width="512" height="512"', f'width="{size}" height="{size}"', 1)
            page.set_content(f'<body style="margin:0">{sized}</body>')
            target = out_dir / f"icon-{size}.png"
            page.screenshot(path=str(target), clip={"x": 0, "y": 0, "width": size, "height": size})
            written.append(target)
        browser.close()
    return written


if __name__ == "__main__":
    for path in render():
        print(path.relative_to(ROOT), file=sys.stdout)
