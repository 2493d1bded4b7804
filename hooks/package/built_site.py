"""The steps after a site generator has written its HTML, as one plain function and command.

    python -m hooks.package SITE_DIR [--theme DIR ...] [--site-url URL]

(from the repository root: it reads content/, overrides/ and build/pyodide/ there).

Each page is marked for search and gets the search dialog's label, its calculator or
Compare assets, its Content-Security-Policy and the web app links; then each calculator's
embed page, robots.txt, the search index (one for every system) and the service worker
are written. MkDocs runs this from its post-build hook; another generator runs the
command on its output, so moving generators leaves this unchanged. It joins the steps of
hooks/postprocess/ to this package's own (the web app links, the service worker), so it
lives here, in the last of the hooks' packages: no package imports one after it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

from hooks.package.embeds import write_embeds
from hooks.package.offline import add_app_links, finish_site
from hooks.pages.calculators import add_page_assets
from hooks.pages.embed import FOLDER as EMBEDS
from hooks.pages.gm_screen import PAGE as GM_SCREEN_PAGE
from hooks.pages.site import REFERENCE_PAGES, TERMS_PAGE, site_root, write_robots
from hooks.postprocess.a11y import label_search_dialog
from hooks.postprocess.csp import add_content_security_policy, theme_scripts
from hooks.postprocess.line_breaks import break_after_slashes
from hooks.postprocess.search_index import mark_for_search, page_system, write_index

# The theme's not-found page is served at any depth: its links are fixed by finish_site.
NOT_FOUND = "404.html"
PYTHON_BUNDLE = "assets/pyodide"  # where the site serves the Python bundle
CALCULATOR_PAGES = "calculators/"  # the folder of the calculators' pages


def finish_page(
    html: str,
    page_url: str,
    bundle: str,
    allowed: Sequence[re.Pattern[str]],
    systems: Mapping[str, str],
) -> str:
    """One generated page ("orcus/combat/", "" for the home), ready to serve and to index;
    systems maps each system's slug to its short title."""
    base = site_root(page_url)
    system = page_system(page_url, systems)
    name = page_url.removeprefix(f"{system[0]}/").strip("/") if system else None
    html = mark_for_search(
        label_search_dialog(html),
        system,
        rules_text=name is not None and name not in REFERENCE_PAGES,
        terms_page=name == TERMS_PAGE,
        restating=name in (TERMS_PAGE, GM_SCREEN_PAGE),
    )
    html = break_after_slashes(html)
    html = add_page_assets(html, base, bundle)
    html = add_content_security_policy(html, allowed)
    return add_app_links(html, base)


def finish_theme_page(html: str, allowed: Sequence[re.Pattern[str]]) -> str:
    """A page the theme writes on its own (404.html): its label and its policy."""
    return add_content_security_policy(label_search_dialog(html), allowed)


def pages(site_dir: Path) -> Iterable[tuple[Path, str]]:
    """Each page of the built site with its address, in a stable order; the Python bundle's
    files are not pages."""
    for path in sorted(site_dir.rglob("index.html")):
        relative = path.parent.relative_to(site_dir).as_posix()
        # The embed pages are written finished (hooks/package/embeds.py), and are no page
        # of the site's own: not searched, not in its sitemap.
        if relative.startswith((PYTHON_BUNDLE, f"{EMBEDS}/")):
            continue
        yield path, "" if relative == "." else f"{relative}/"


def postprocess(
    site_dir: Path,
    *,
    bundle: str,
    allowed: Sequence[re.Pattern[str]],
    systems: Mapping[str, str],
    site_url: str | None = None,
    only: Collection[str] | None = None,
) -> None:
    """Everything after the generator: each page finished, then the site-wide files;
    systems maps each system's slug to its short title. With `only` (page addresses, as
    `pages` gives them), the other pages are left as an earlier run finished them: the dev
    server's rebuild of the pages an edit changed. The site-wide files follow every page."""
    for path, page_url in pages(site_dir):
        if only is not None and page_url not in only:
            continue
        html = path.read_text(encoding="utf-8")
        path.write_text(finish_page(html, page_url, bundle, allowed, systems), encoding="utf-8")
    not_found = site_dir / NOT_FOUND
    if not_found.is_file():
        html = not_found.read_text(encoding="utf-8")
        not_found.write_text(finish_theme_page(html, allowed), encoding="utf-8")
    # The embed pages follow their calculators' pages (their answers, their stylesheets).
    if only is None or any(page.startswith(CALCULATOR_PAGES) for page in only):
        write_embeds(site_dir, bundle)
    write_robots(site_dir, site_url)
    write_index(site_dir, systems)
    finish_site(site_dir)


def _material_templates() -> Path:
    import material  # the theme's package: its templates hold the inline scripts to allow

    return Path(material.__file__).parent / "templates"


def main(argv: list[str] | None = None) -> int:
    from hooks.content.loader import load_content
    from hooks.package.offline import OfflineError
    from hooks.package.pyodide_bundle import bundle_id
    from hooks.postprocess.search_index import SearchIndexError

    parser = argparse.ArgumentParser(prog="python -m hooks.package", description=__doc__)
    parser.add_argument("site_dir", type=Path)
    parser.add_argument("--theme", action="append", type=Path, help="a template folder")
    parser.add_argument("--bundle", type=Path, default=Path("build/pyodide"))
    parser.add_argument("--site-url")
    args = parser.parse_args(argv)
    if not (args.site_dir / "index.html").is_file():
        print(f"error: {args.site_dir} holds no built site (no index.html)", file=sys.stderr)
        return 1
    themes = args.theme or [Path("overrides"), _material_templates()]
    try:
        postprocess(
            args.site_dir,
            bundle=bundle_id(args.bundle),
            allowed=theme_scripts(themes),
            systems={
                slug: system.short_title for slug, system in load_content(Path("content")).items()
            },
            site_url=args.site_url,
        )
    except (OfflineError, SearchIndexError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0
