"""MkDocs hooks: load the content, add the generated pages, point "edit" at content/.

Thin on purpose: the work happens in plain functions of `hooks.pages.generate` (the
pages, also `python -m hooks.pages.generate`) and `hooks.package.built_site` (all
after the HTML is written, also `python -m hooks.package`), which the tests call
without MkDocs.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

# MkDocs imports this file by path; the package next to it needs the repository root.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hooks.content.loader import System  # noqa: E402
from hooks.content.rules_data import rules_data, write_if_changed  # noqa: E402
from hooks.content.yaml_lines import ContentError  # noqa: E402
from hooks.package.built_site import postprocess  # noqa: E402
from hooks.package.offline import OfflineError  # noqa: E402
from hooks.package.pyodide_bundle import bundle, bundle_files, bundle_id, is_stale  # noqa: E402
from hooks.pages.calculators import expand_calculators  # noqa: E402
from hooks.pages.generate import GeneratedSite, generate  # noqa: E402
from hooks.pages.sentences import Quote, SentenceNotFound, mark_sentences  # noqa: E402
from hooks.pages.site import (  # noqa: E402
    describe,
    edit_source,
    expand_systems_table,
    site_root,
)
from hooks.postprocess.csp import allow_added_scripts, theme_scripts  # noqa: E402
from hooks.postprocess.sanitize import clean  # noqa: E402
from hooks.postprocess.search_index import SearchIndexError  # noqa: E402
from rules_core.systems import forget_compiled_data  # noqa: E402

PYODIDE_BUNDLE = ROOT / "build" / "pyodide"
RULES_DATA = ROOT / "rules_core" / "data" / "systems.json"
log = logging.getLogger("mkdocs.hooks")

_systems: dict[str, System] = {}
_pages: dict[str, str] = {}
_quotes: dict[str, list[Quote]] = {}  # page path -> the sentences citations point at
_bundle = ""  # the Pyodide bundle's id: it is served under assets/pyodide/<id>/
_theme_scripts: tuple = ()  # the inline scripts the policy allows, read from the theme
_serving = False  # under `mkdocs serve`: a rules.yml edit recompiles what reads it


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def _refresh_rules(site: GeneratedSite) -> None:
    """Under the dev server: after a rules.yml (or rules core) edit, the compiled rules data,
    the build-time answers and the browser's wheel follow it, with no restart. The rules
    are the ones this build just compiled, not read and compiled a second time."""
    if write_if_changed(rules_data(site.compiled), RULES_DATA):
        forget_compiled_data()
        log.info("rules data recompiled from content/")
    if is_stale(PYODIDE_BUNDLE, ROOT):
        log.info("rebuilding the Pyodide bundle for the changed rules core (about 10 s)")
        bundle(PYODIDE_BUNDLE, project=ROOT)


def on_config(config):
    global _systems, _pages, _quotes, _theme_scripts
    # Before any content is read: the allow-list of inline scripts comes from the theme.
    _theme_scripts = theme_scripts(config["theme"].dirs)
    try:
        site = generate(ROOT, Path(config["docs_dir"]), config.get("nav") or [])
    except ContentError as error:
        raise PluginError(f"content error: {error}") from None
    _systems, _pages, _quotes = site.systems, site.pages, site.quotes
    config["nav"] = site.nav
    if _serving:
        _refresh_rules(site)
    return config


def on_files(files: Files, config) -> Files:
    for path, markdown in _pages.items():
        files.append(File.generated(config, path, content=markdown))
    # The calculators' Python runtime and the rules core wheel, served by the site itself.
    if not (PYODIDE_BUNDLE / "pyodide-lock.json").exists():
        raise PluginError(f"{PYODIDE_BUNDLE} is missing: run `make setup` to build it")
    global _bundle
    _bundle = bundle_id(PYODIDE_BUNDLE)
    for path in bundle_files(PYODIDE_BUNDLE):
        relative = path.relative_to(PYODIDE_BUNDLE).as_posix()
        files.append(
            File(
                relative,
                src_dir=str(PYODIDE_BUNDLE),
                dest_dir=config["site_dir"],
                use_directory_urls=False,
                dest_uri=f"assets/pyodide/{_bundle}/{relative}",
            )
        )
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    markdown = expand_systems_table(markdown, _systems)
    if "[[calculator:" not in markdown:
        return markdown
    # Links in a prerendered result are relative to the site root.
    return expand_calculators(markdown, site_root(page.url))


def on_page_content(html: str, page, config, files) -> str:
    # Every page built from content/ passes the allow-list, whatever its text held.
    if page.file.src_uri in _pages:
        html = clean(html)
    # Each cited sentence gets its anchor; MkDocs then checks every link to one.
    if page.file.src_uri in _quotes:
        try:
            html, ids = mark_sentences(html, _quotes[page.file.src_uri])
        except SentenceNotFound as error:
            raise PluginError(f"{page.file.src_uri}: a cited sentence is gone: {error}") from None
        page.present_anchor_ids = (page.present_anchor_ids or set()) | ids
    # Without a public address (SITE_URL) MkDocs would leave the sitemap empty, and Material's
    # instant loading reads it: list each page by its path, which
    # assets/javascripts/sitemap-paths.js resolves wherever the site is served.
    if page.abs_url is None:
        page.abs_url = f"/{page.url}"
    # Each page's own description, for search engines and link previews.
    if not page.meta.get("description"):
        description = describe(html)
        if description:
            page.meta["description"] = description
    return html


def on_page_context(context, page, config, nav):
    base = config["extra"].get("edit_base")
    source = edit_source(_systems, page.file.src_uri)
    if source is None and not page.file.generated_by:
        source = f"{config['docs_dir'].removeprefix(str(ROOT)).strip('/')}/{page.file.src_uri}"
    if base and source:
        page.edit_url = f"{base.rstrip('/')}/{source}"
    return context


def on_post_build(config) -> None:
    # The same steps `python -m hooks.package` runs on another generator's output.
    try:
        postprocess(
            Path(config["site_dir"]),
            bundle=_bundle,
            allowed=_theme_scripts,
            systems={slug: system.short_title for slug, system in _systems.items()},
            site_url=config.get("site_url"),
        )
    except (OfflineError, SearchIndexError) as error:
        raise PluginError(str(error)) from None


def on_serve(server, config, builder):
    """Under `mkdocs serve` only: allow the live-reload script the dev server injects.

    The server adds its script (whose text holds a per-request id, so no hash can be
    known at build time) to each page as it serves it, after the build wrote the page's
    policy. The wrapper puts the hash of exactly what the server added into that page's
    policy; the built site, which no server modifies, never allows it.
    """
    inject = getattr(server, "_inject_js_into_html", None)
    if inject is None:  # MkDocs changed how it injects the script: reload by hand.
        log.warning("live reload: this MkDocs injects its script differently; reload by hand")
        return server

    def inject_allowed(content: bytes, epoch: int) -> bytes:
        before = content.decode("utf-8")
        after = inject(content, epoch).decode("utf-8")
        # Marked for offline.mjs: the dev server's pages change on every edit, so no
        # service worker may keep them (a reload would show the stale copy).
        after = after.replace("<html ", "<html data-dev-server ", 1)
        return allow_added_scripts(before, after).encode("utf-8")

    server._inject_js_into_html = inject_allowed
    return server
