"""Offline support: the app links in every page's head, the service worker, the zip.

- `add_app_links(html, base)` puts the web app manifest, the theme colour and the
  touch icon in a page's head (the MkDocs hook calls it for every page);
- `write_service_worker(site_dir)` writes `sw.js`: the template `make setup` minified
  (hooks/package/service_worker.mjs) with `offline_manifest(site_dir)` filled in, the site's
  files in the parts the worker stores at different times (the shell on install, a
  section's pages when read, Python when a calculator is first used or on request),
  each part named after a hash of its files;
- `finish_site(site_dir)` is what the build runs last: the links in the 404 page (a theme
  template, not a page) and the service worker;
- `write_zip(site_dir, archive)` packs the built site into one folder of a zip;
  `python -m hooks.package.offline SITE_DIR ZIP` runs it (`make build` writes
  dist/open-rules-reference-site.zip).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import logging
import re
import sys
import time
import zipfile
from pathlib import Path
from typing import TypedDict

from hooks.package.pyodide_bundle import ARCHIVE_DATE, COMPRESSED_SUFFIX, SNAPSHOT
from hooks.postprocess.search_index import ENTRY as SEARCH_ENTRY

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "build" / "sw-template.js"
SERVICE_WORKER = "sw.js"
MANIFEST = "manifest.webmanifest"
TOUCH_ICON = "assets/images/icon-192.png"
THEME_COLOR = "#7e56c2"  # Material's deep purple (--md-primary-fg-color): the header
PYODIDE_DIR = "assets/pyodide"
PLACEHOLDER = "self.__OFFLINE_MANIFEST"
CALCULATORS = "calculators"  # the folder of the calculator pages, stored with Python
FALLBACK = "404.html"  # what an offline navigation to an unknown address shows
# Not stored for offline use: source maps and the compressed sitemap are for tools, not
# readers. sitemap.xml is stored: instant navigation reads it on every page load.
# Nor is Python's snapshot: some 5.6 MB that only speed up a start, fetched where the
# connection is fast; offline, Python starts from the files that are stored.
UNSTORED_SUFFIXES = (".map", ".xml.gz", f"{SNAPSHOT}{COMPRESSED_SUFFIX}")
# The search's stemmers for other languages: the theme loads them only for a site whose
# search language is not English.
UNSTORED_FOLDERS = ("assets/javascripts/lunr/",)
# Files that are compressed already: stored as they are, which keeps the zip quick.
STORED_SUFFIXES = frozenset({".zip", ".whl", ".gz", ".png", ".jpg", ".jpeg", ".woff2"})
_FAVICON = re.compile(r'<link rel="icon" href="([^"]*?)assets/images/favicon\.png">')

# Under the MkDocs logger, so `mkdocs build` prints it; any generator can attach a handler.
log = logging.getLogger("mkdocs.hooks.package.offline")


class OfflineError(RuntimeError):
    """A step of the offline support failed; the site generator shows the message and stops."""


class Part(TypedDict):
    """Files the service worker stores together, in one cache named after their hash."""

    name: str
    files: list[str]
    bytes: int


class PythonPart(Part):
    integrity: dict[str, str]  # path -> its Subresource Integrity value(s)


class OfflineManifest(TypedDict):
    """What sw.js is given (self.__OFFLINE_MANIFEST in service_worker_template.mjs)."""

    fallback: str
    calculators: str
    shell: Part
    python: PythonPart
    groups: dict[str, Part]


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


def _part(name: str, site_dir: Path, files: list[str]) -> Part:
    """One cache's worth of files, named after a hash of their contents: a deploy that
    changes any of them gives the part a new cache, and the old one is deleted."""
    digest = hashlib.sha256()
    size = 0
    for path in files:
        data = (site_dir / path).read_bytes()
        size += len(data)
        digest.update(f"{path}\0{len(data)}\0".encode())
        digest.update(hashlib.md5(data, usedforsecurity=False).digest())
    return {"name": f"{name}-{digest.hexdigest()[:12]}", "files": files, "bytes": size}


def _integrity(site_dir: Path, files: list[str]) -> dict[str, str]:
    """Each file's Subresource Integrity value: the service worker stores nothing else. A
    gzipped file (the Python bundle's) may also arrive decoded, from a host that sends it
    with a Content-Encoding: its content's digest is the second value it may match."""

    def digest(data: bytes) -> str:
        return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()

    values = {}
    for path in files:
        data = (site_dir / path).read_bytes()
        values[path] = digest(data)
        if path.endswith(".gz"):
            values[path] += " " + digest(gzip.decompress(data))
    return values


def _stored(path: str) -> bool:
    return (
        path != SERVICE_WORKER
        and not path.endswith(UNSTORED_SUFFIXES)
        and not path.startswith(UNSTORED_FOLDERS)
    )


def offline_manifest(site_dir: Path) -> OfflineManifest:
    """What the service worker stores, in three kinds of part (see
    hooks/package/service_worker_template.mjs): the shell, one group per top folder of pages, and
    Python. Paths are relative to the site root, where sw.js sits."""
    site_dir = Path(site_dir)
    shell: list[str] = []
    python: list[str] = []
    groups: dict[str, list[str]] = {}
    for file in sorted(site_dir.rglob("*")):
        path = file.relative_to(site_dir).as_posix()
        if not file.is_file() or not _stored(path):
            continue
        if path.startswith(f"{PYODIDE_DIR}/"):
            python.append(path)
        elif path.endswith(".html") and "/" in path:
            groups.setdefault(path.split("/", 1)[0], []).append(path)
        elif path.startswith(("assets/", "search/")) or "/" not in path:
            shell.append(path)
    for required in (FALLBACK, "index.html", "search/search_index.json", SEARCH_ENTRY):
        if required not in shell:
            raise OfflineError(f"{site_dir} has no {required} for the service worker to store")
    if not python:
        raise OfflineError(f"{site_dir / PYODIDE_DIR} holds no Python runtime to serve")
    return {
        "fallback": FALLBACK,
        "calculators": CALCULATORS,
        "shell": _part("shell", site_dir, shell),
        "python": {**_part("python", site_dir, python), "integrity": _integrity(site_dir, python)},
        "groups": {name: _part(f"pages-{name}", site_dir, files) for name, files in groups.items()},
    }


def write_service_worker(site_dir: Path) -> OfflineManifest:
    """Write site_dir/sw.js: the bundled template with the manifest filled in."""
    site_dir = Path(site_dir).resolve()
    if not TEMPLATE.is_file():
        raise OfflineError(f"{TEMPLATE} is missing: run `make setup` to bundle it")
    template = TEMPLATE.read_text(encoding="utf-8")
    if template.count(PLACEHOLDER) != 1:
        raise OfflineError(f"{TEMPLATE} must hold {PLACEHOLDER} once: run `make setup` again")
    manifest = offline_manifest(site_dir)
    # A JSON object is a JavaScript expression: it takes the placeholder's place as is.
    filled = template.replace(PLACEHOLDER, json.dumps(manifest, separators=(",", ":")))
    (site_dir / SERVICE_WORKER).write_text(filled, encoding="utf-8")
    return manifest


def finish_site(site_dir: Path) -> None:
    """Run after the build: link the 404 page, then write the service worker."""
    started = time.perf_counter()
    link_error_page(site_dir)
    manifest = write_service_worker(site_dir)
    groups = manifest["groups"].values()
    log.info(
        "Service worker: shell %.1f MB stored on install; largest page group %.1f MB; "
        "Python %.1f MB on first use (%.2f s)",
        manifest["shell"]["bytes"] / 1e6,
        max((group["bytes"] for group in groups), default=0) / 1e6,
        manifest["python"]["bytes"] / 1e6,
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
            # One fixed date for every member: the same site gives the same zip.
            member = zipfile.ZipInfo(
                f"{folder}/{path.relative_to(site_dir).as_posix()}", date_time=ARCHIVE_DATE
            )
            member.external_attr = 0o644 << 16
            stored = path.suffix in STORED_SUFFIXES
            member.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            zipped.writestr(member, path.read_bytes())
    partial.replace(archive)
    return archive


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m hooks.package.offline SITE_DIR ZIP", file=sys.stderr)
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
