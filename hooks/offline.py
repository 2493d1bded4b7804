"""Offline support: the app links in every page's head, the service worker, the zip.

- `add_app_links(html, base)` puts the web app manifest, the theme colour and the
  touch icon in a page's head (the MkDocs hook calls it for every page);
- `write_service_worker(site_dir)` runs `hooks/service_worker.mjs`, which writes
  `sw.js` with Workbox's injectManifest into the template `make setup` bundled: every
  page and asset of the built site, Pyodide and the rules_core wheel included, precached
  with a revision per file;
- `finish_site(site_dir)` is what the build runs last: the links in the 404 page (a theme
  template, not a page) and the service worker;
- `write_zip(site_dir, archive)` packs the built site into one folder of a zip;
  `python -m hooks.offline SITE_DIR ZIP` runs it (`make build` writes
  dist/open-rules-reference-site.zip).
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "hooks" / "service_worker.mjs"
WORKBOX = ROOT / "node_modules" / "workbox-build"
TEMPLATE = ROOT / "build" / "sw-template.js"
SERVICE_WORKER = "sw.js"
MANIFEST = "manifest.webmanifest"
TOUCH_ICON = "assets/images/icon-192.png"
THEME_COLOR = "#7e56c2"  # Material's deep purple (--md-primary-fg-color): the header
PYODIDE_DIR = "assets/pyodide"
# Files that are compressed already: stored as they are, which keeps the zip quick.
STORED_SUFFIXES = frozenset({".zip", ".whl", ".gz", ".png", ".jpg", ".jpeg", ".woff2"})
_FAVICON = re.compile(r'<link rel="icon" href="([^"]*?)assets/images/favicon\.png">')

log = logging.getLogger("mkdocs.hooks.offline")


class OfflineError(PluginError):
    """A step of the offline support failed; MkDocs shows the message and stops."""


def app_links(base: str) -> str:
    """The head elements that make the site installable; base leads to the site root."""
    return (
        f'<link rel="manifest" href="{base}{MANIFEST}">'
        f'<meta name="theme-color" content="{THEME_COLOR}">'
        f'<link rel="apple-touch-icon" href="{base}{TOUCH_ICON}">'
    )


def add_app_links(html: str, base: str) -> str:
    """Put the manifest, theme colour and touch icon links at the end of the head, once."""
    if 'rel="manifest"' in html:
        return html
    head_end = html.find("</head>")
    if head_end < 0:
        raise OfflineError("a page has no </head> for the web app manifest link")
    return html[:head_end] + app_links(base) + html[head_end:]


def link_error_page(site_dir: Path) -> bool:
    """The 404 page is a theme template, served at any depth with site-absolute links:
    its links follow its favicon's. False when there is no 404 page to link."""
    page = Path(site_dir) / "404.html"
    if not page.is_file():
        return False
    html = page.read_text(encoding="utf-8")
    favicon = _FAVICON.search(html)
    if favicon is None:
        return False
    page.write_text(add_app_links(html, favicon.group(1)), encoding="utf-8")
    return True


def write_service_worker(site_dir: Path) -> dict:
    """Write site_dir/sw.js with injectManifest; returns {"count", "size", "files"}."""
    site_dir = Path(site_dir).resolve()
    node = shutil.which("node")
    if node is None:
        raise OfflineError("the service worker needs Node.js (`node` is not on PATH)")
    if not WORKBOX.is_dir():
        raise OfflineError(f"{WORKBOX} is missing: run `make setup` (npm install) first")
    if not TEMPLATE.is_file():
        raise OfflineError(f"{TEMPLATE} is missing: run `make setup` to bundle it")
    result = subprocess.run(
        [node, str(SCRIPT), "inject", str(site_dir), str(TEMPLATE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        detail = (result.stderr.strip() or result.stdout.strip() or "no output").splitlines()
        raise OfflineError(
            f"the service worker failed: {' '.join(line.strip() for line in detail)}"
        )
    report = json.loads(result.stdout)
    precached = set(report["files"])
    pyodide = site_dir / PYODIDE_DIR
    missing = sorted(
        path.relative_to(site_dir).as_posix()
        for path in (pyodide.iterdir() if pyodide.is_dir() else ())
        if path.relative_to(site_dir).as_posix() not in precached
    )
    if not pyodide.is_dir() or missing:
        raise OfflineError(f"the service worker does not precache {', '.join(missing) or pyodide}")
    return report


def finish_site(site_dir: Path) -> None:
    """Run after the build: link the 404 page, then write the service worker."""
    started = time.perf_counter()
    link_error_page(site_dir)
    report = write_service_worker(site_dir)
    log.info(
        "Service worker: %d files precached (%.1f MB) in %.1f s",
        report["count"],
        report["size"] / 1e6,
        time.perf_counter() - started,
    )


def write_zip(site_dir: Path, archive: Path, folder: str | None = None) -> Path:
    """Pack every file of the built site into `folder/` (the archive's stem) of a zip."""
    site_dir, archive = Path(site_dir).resolve(), Path(archive).resolve()
    if not (site_dir / "index.html").is_file():
        raise OfflineError(f"{site_dir} holds no built site (no index.html)")
    folder = archive.stem if folder is None else folder
    archive.parent.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(archive.name + ".partial")
    files = sorted(
        path for path in site_dir.rglob("*") if path.is_file() and path not in (archive, partial)
    )
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zipped:
        for path in files:
            stored = path.suffix in STORED_SUFFIXES
            zipped.write(
                path,
                f"{folder}/{path.relative_to(site_dir).as_posix()}",
                compress_type=zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED,
            )
    partial.replace(archive)
    return archive


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m hooks.offline SITE_DIR ZIP", file=sys.stderr)
        return 1
    try:
        archive = write_zip(Path(args[0]), Path(args[1]))
    except (OfflineError, OSError) as error:
        print(f"error: zip: {error}", file=sys.stderr)
        return 1
    print(f"{args[1]}: {archive.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
