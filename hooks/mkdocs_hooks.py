"""MkDocs hooks: load the content, add the generated pages, point "edit" at content/.

Thin on purpose: the work happens in plain functions of `hooks.pages.generate` (the
pages, also `python -m hooks.pages.generate`) and `hooks.package.built_site` (all
after the HTML is written, also `python -m hooks.package`), which the tests call
without MkDocs.

Under `make serve` (`mkdocs serve --dirty`) a save renders only the pages it changed:
`hooks.pages.rebuild` tells them from what each page is made of, and this adapter marks
MkDocs' files so (MkDocs by itself counts every generated page as changed, and warns that
a dirty build may show stale navigation: everything is rendered when the navigation
changes). A rules.yml save is one build and one reload: the build writes the rules data
and the browser's wheel, which are not watched. A content error does not stop the server:
every page answers with it (`hooks.pages.problem`) until a save fixes it.
"""

from __future__ import annotations

import logging
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from wsgiref.types import StartResponse, WSGIEnvironment

from jinja2 import BytecodeCache, Environment
from jinja2.bccache import Bucket
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import CountHandler, DuplicateFilter, clean_directory, get_markdown_title
from mkdocs.utils.meta import get_data
from mkdocs.utils.templates import TemplateContext
from watchdog.events import (
    EVENT_TYPE_CREATED,
    EVENT_TYPE_DELETED,
    EVENT_TYPE_MODIFIED,
    EVENT_TYPE_MOVED,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

# MkDocs imports this file by path; the package next to it needs the repository root.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hooks.content.loader import System  # noqa: E402
from hooks.content.rules_data import rules_data, write_if_changed  # noqa: E402
from hooks.content.yaml_lines import ContentError  # noqa: E402
from hooks.package.built_site import postprocess  # noqa: E402
from hooks.package.offline import OfflineError  # noqa: E402
from hooks.package.pyodide_bundle import (  # noqa: E402
    bundle_files,
    bundle_id,
    is_stale,
    refresh_wheel,
)
from hooks.pages.calculators import expand_calculators  # noqa: E402
from hooks.pages.generate import generate  # noqa: E402
from hooks.pages.problem import (  # noqa: E402
    Problem,
    RequestLines,
    build_problem,
    content_problem,
    problem_page,
)
from hooks.pages.rebuild import Made, Plan, fingerprint, page_made_of, plan  # noqa: E402
from hooks.pages.sentences import Quote, SentenceNotFound, mark_sentences  # noqa: E402
from hooks.pages.site import (  # noqa: E402
    SYSTEMS_TABLE,
    NavItem,
    describe,
    expand_systems_table,
    site_root,
)
from hooks.postprocess.csp import allow_added_scripts, theme_scripts  # noqa: E402
from hooks.postprocess.sanitize import clean  # noqa: E402
from hooks.postprocess.search_index import SearchIndexError  # noqa: E402
from rules_core.systems import forget_compiled_data  # noqa: E402

PYODIDE_BUNDLE = ROOT / "build" / "pyodide"
RULES_DATA = ROOT / "rules_core" / "data" / "systems.json"
# What a build writes inside a watched folder: a change there is no edit to rebuild for.
BUILT_HERE = (RULES_DATA.parent,)
log = logging.getLogger("mkdocs.hooks")

_systems: dict[str, System] = {}
_pages: dict[str, str] = {}
_quotes: dict[str, list[Quote]] = {}  # page path -> the sentences citations point at
_sources: dict[str, str] = {}  # page path -> the content file its edit button opens
_bundle = ""  # the Pyodide bundle's id: it is served under assets/pyodide/<id>/
# The inline scripts the policy allows, read from the theme.
_theme_scripts: tuple[re.Pattern[str], ...] = ()
_serving = False  # under `mkdocs serve`: a rules.yml edit recompiles what reads it
_dirty = False  # `mkdocs serve --dirty`: MkDocs renders only the pages marked changed
_problem: Problem | None = None  # under the dev server: why the site did not build
_warnings: list[str] = []  # this build's warnings, which fail it (strict)
_nav: list[NavItem] = []  # this build's navigation, with every title
_made: Made | None = None  # what the pages on the dev server were made of
_now: Made | None = None  # ... and what this build's are made of
_plan: Plan | None = None  # the pages this build renders
_files: Files | None = None
# (Markdown, address, systems) -> the page expanded, in this build and in the one before
_expanded: dict[tuple[str, str, str], str] = {}
_expanded_before: dict[tuple[str, str, str], str] = {}


@dataclass(frozen=True)
class _Kept:
    """What MkDocs learns of a page by rendering it, kept for the builds that do not render
    it: its title in the navigation, its metadata, and its anchors and links (checked)."""

    title: str | None
    meta: dict[str, Any]
    anchors: frozenset[str]
    links: dict[str, dict[str, str]]  # linked page -> {anchor: the link as written}


_kept: dict[str, _Kept] = {}


class _DirtyWarning(logging.Filter):
    """MkDocs warns that a dirty build may show stale navigation and links; here the
    navigation changing renders every page, and a warning fails a strict build."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("A 'dirty' build is being performed")


class _Warnings(logging.Handler):
    """Keeps this build's warnings: the dev server shows them when they fail the build."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        _warnings.append(record.getMessage())


class _OncePerBuild(logging.Filter):
    """Each message of MkDocs' build once per build. MkDocs' own filter says each once per
    process: under the dev server, a build as long as an earlier one to the hundredth of a
    second ended without its "Documentation built in" line, and a warning an earlier build
    gave was not said (nor shown on the page) when a later build gave it again."""

    def __init__(self) -> None:
        super().__init__()
        self.said: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        new = message not in self.said
        self.said.add(message)
        return new


_once_per_build = _OncePerBuild()


def on_startup(command: Literal["build", "gh-deploy", "serve"], dirty: bool) -> None:
    global _serving, _dirty
    _serving = command == "serve"
    _dirty = _serving and dirty
    build_log = logging.getLogger("mkdocs.commands.build")
    if _dirty:
        build_log.addFilter(_DirtyWarning())
    if _serving:
        logging.getLogger("mkdocs").addHandler(_Warnings())
        logging.getLogger("mkdocs.livereload").addFilter(RequestLines())
        for once in [f for f in build_log.filters if isinstance(f, DuplicateFilter)]:
            build_log.removeFilter(once)
            build_log.addFilter(_once_per_build)


def _say_error(message: str) -> None:
    """An error in the terminal as MkDocs prints its own, without failing the build: the
    dev server shows it on every page instead."""
    record = log.makeRecord(log.name, logging.ERROR, __file__, 0, message, (), None)
    for handler in logging.getLogger("mkdocs").handlers:
        if not isinstance(handler, CountHandler | _Warnings):
            handler.handle(record)


def _publish_rules(compiled: dict[str, Any]) -> None:
    """Under the dev server: after a rules.yml (or rules core) edit, the compiled rules data,
    the build-time answers and the browser's wheel follow it, with no restart, before any
    page shows an answer. The rules are the ones this build just compiled, not read and
    compiled a second time. Neither file is watched, so writing them starts no build."""
    if write_if_changed(rules_data(compiled), RULES_DATA):
        forget_compiled_data()
        _expanded.clear()  # the answers computed at build change with the rules
        _expanded_before.clear()
        log.info("rules data recompiled from content/")
    if is_stale(PYODIDE_BUNDLE, ROOT):
        refresh_wheel(PYODIDE_BUNDLE, project=ROOT)
        log.info("the rules core's wheel for the browser rebuilt")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _systems, _pages, _quotes, _sources, _theme_scripts, _problem, _nav
    global _expanded, _expanded_before
    # Before any content is read: the allow-list of inline scripts comes from the theme.
    _theme_scripts = theme_scripts(config.theme.dirs)
    _expanded_before, _expanded = _expanded, {}
    _problem = None
    _once_per_build.said.clear()  # a new build: its messages are new
    try:
        site = generate(
            ROOT,
            Path(config.docs_dir),
            config.nav or [],
            _publish_rules if _serving else None,
        )
    except ContentError as error:
        if not _serving:
            raise PluginError(f"content error: {error}") from None
        # The dev server keeps serving: every page answers with the error, and nothing is
        # built until a save fixes it (the pages of the last good build stay as they were).
        _problem = content_problem(error, ROOT)
        _say_error(f"content error: {error}")
        _systems, _pages, _quotes, _sources = {}, {}, {}, {}
        config["nav"] = []
        return config
    _systems, _pages, _quotes, _sources = site.systems, site.pages, site.quotes, site.sources
    config["nav"] = _nav = site.nav
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    global _bundle, _now, _plan, _files
    if _problem is not None:  # the dev server shows the content error on every page
        return Files([file for file in files if not file.is_documentation_page()])
    for path, markdown in _pages.items():
        files.append(File.generated(config, path, content=markdown))
    # The calculators' Python runtime and the rules core wheel, served by the site itself.
    if not (PYODIDE_BUNDLE / "pyodide-lock.json").exists():
        raise PluginError(f"{PYODIDE_BUNDLE} is missing: run `make setup` to build it")
    _bundle = bundle_id(PYODIDE_BUNDLE)
    for bundled in bundle_files(PYODIDE_BUNDLE):
        relative = bundled.relative_to(PYODIDE_BUNDLE).as_posix()
        files.append(
            File(
                relative,
                src_dir=str(PYODIDE_BUNDLE),
                dest_dir=config.site_dir,
                use_directory_urls=False,
                dest_uri=f"assets/pyodide/{_bundle}/{relative}",
            )
        )
    if _serving:
        _now = _made_of(files, config)
        _plan = plan(_made if _dirty else None, _now)
        log.info(f"rendering {_plan.why}")
        if _dirty and _plan.everything:
            clean_directory(config.site_dir)
        for file in files.documentation_pages():
            _mark(file, file.src_uri in _plan.pages)
    _files = files
    return files


def _address(file: File) -> str:
    """A page's address as its Page gives it, and hooks.package.built_site.pages: the home
    page's is "" (its File's is "./")."""
    return "" if file.url in (".", "./") else file.url


def _mark(file: File, changed: bool) -> None:
    """Tell MkDocs whether to render a page in a dirty build (its own test is file dates)."""
    file.is_modified = (lambda: True) if changed else (lambda: False)  # type: ignore[method-assign]


def _expand(markdown: str, url: str) -> str:
    """A page as MkDocs renders it: the home page's table of systems, and each calculator
    with its answer for the default inputs. Under the dev server an expansion is kept while
    the rules and the systems' titles are the same, for the builds that use it."""
    if SYSTEMS_TABLE not in markdown and "[[calculator:" not in markdown:
        return markdown
    systems = fingerprint([(slug, s.title, s.dice) for slug, s in _systems.items()])
    key = (markdown, url, systems)
    expanded = _expanded.get(key) or _expanded_before.get(key)
    if expanded is None:
        expanded = expand_systems_table(markdown, _systems)
        if "[[calculator:" in expanded:
            # Links in a prerendered result are relative to the site root.
            expanded = expand_calculators(expanded, site_root(url))
    if _serving:
        _expanded[key] = expanded
    return expanded


def _made_of(files: Files, config: MkDocsConfig) -> Made:
    """What every page of this build is made of (hooks.pages.rebuild)."""
    pages = {}
    titles = {}
    for file in files.documentation_pages():
        path = file.src_uri
        meta: dict[str, Any]
        if path in _pages:
            markdown, meta = _pages[path], {}
        else:
            # Its source as MkDocs reads it: from its file, or from memory for a page a
            # plugin generated (which has no file).
            markdown, meta = get_data(file.content_string)
            # A hand-written page's title in the navigation is its heading, unless mkdocs.yml
            # names it.
            titles[path] = meta.get("title") or get_markdown_title(markdown)
        made = f"{fingerprint(meta)}\n{_expand(markdown, _address(file))}"
        pages[path] = page_made_of(made, _quotes.get(path, ()), _bundle)
    custom = config.theme.custom_dir
    theme: list[tuple[str, int]] = []
    if custom:
        theme = sorted(
            (path.relative_to(custom).as_posix(), path.stat().st_mtime_ns)
            for path in Path(custom).rglob("*")
            if path.is_file()
        )
    settings = Path(config.config_file_path).read_text(encoding="utf-8")
    shown = fingerprint(_nav, titles, theme, settings, [p.pattern for p in _theme_scripts])
    return Made(shown, pages)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    return _expand(markdown, page.url)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
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


def on_page_context(
    context: TemplateContext, page: Page, config: MkDocsConfig, nav: Navigation
) -> TemplateContext:
    base = config.extra.get("edit_base")
    source = _sources.get(page.file.src_uri)
    if source is None and not page.file.generated_by:
        source = f"{config.docs_dir.removeprefix(str(ROOT)).strip('/')}/{page.file.src_uri}"
    if base and source:
        page.edit_url = f"{base.rstrip('/')}/{source}"
    return context


class _CompiledTemplates(BytecodeCache):
    """The theme's templates compiled once for the dev server's life, not on every build
    (MkDocs makes a new template environment each time); a changed template (its source's
    checksum) is compiled again."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


_templates = _CompiledTemplates()


def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    """Under the dev server, the theme's templates compiled once. The pages this build does
    not render keep what they had when last rendered: the navigation shows their titles,
    and links to their anchors are checked."""
    if _serving:
        env.bytecode_cache = _templates
    if _serving and _plan is not None and not _plan.everything:
        for file in files.documentation_pages():
            kept = _kept.get(file.src_uri)
            if file.page is None or file.src_uri in _plan.pages or kept is None:
                continue
            file.page.title = kept.title
            file.page.meta = dict(kept.meta)
            file.page.present_anchor_ids = set(kept.anchors)
            file.page.links_to_anchors = {
                linked: dict(links)
                for uri, links in kept.links.items()
                if (linked := files.get_file_from_path(uri)) is not None
            }
    return env


def on_post_build(config: MkDocsConfig) -> None:
    global _made
    if _problem is not None or _files is None:  # nothing was built (on_files sets _files)
        return
    site_dir = Path(config.site_dir)
    only = None
    if _serving and _dirty and _plan is not None and not _plan.everything:
        only = {
            _address(file)
            for path in _plan.pages
            if (file := _files.get_file_from_path(path)) is not None
        }
        # A rules core edit gave the bundle a new folder: the site serves one bundle.
        for folder in (site_dir / "assets" / "pyodide").iterdir():
            if folder.name != _bundle:
                shutil.rmtree(folder)
    # The same steps `python -m hooks.package` runs on another generator's output.
    try:
        postprocess(
            site_dir,
            bundle=_bundle,
            allowed=_theme_scripts,
            systems={slug: system.short_title for slug, system in _systems.items()},
            site_url=config.site_url,
            only=only,
        )
    except (OfflineError, SearchIndexError) as error:
        raise PluginError(str(error)) from None
    if _serving and _plan is not None:  # on_files plans every build of the dev server
        for file in _files.documentation_pages():
            page = file.page
            if page is not None and file.src_uri in _plan.pages:
                _kept[file.src_uri] = _Kept(
                    page.title,
                    dict(page.meta),
                    frozenset(page.present_anchor_ids or ()),
                    {
                        linked.src_uri: dict(links)
                        for linked, links in (page.links_to_anchors or {}).items()
                    },
                )
        _made = _now


def on_build_error(error: Exception) -> None:
    """A build that failed may have written some pages: the next one renders them all."""
    global _made
    _made = None


def _is_page(path: str) -> bool:
    return path.endswith(("/", ".html"))


class _Sources(FileSystemEventHandler):
    """A watched folder whose changes start a build, but for what a build writes there."""

    CHANGES = (EVENT_TYPE_CREATED, EVENT_TYPE_MODIFIED, EVENT_TYPE_DELETED, EVENT_TYPE_MOVED)

    def __init__(self, server: LiveReloadServer, ignored: tuple[Path, ...]) -> None:
        self.server, self.ignored = server, ignored

    def _built(self, path: str | bytes) -> bool:
        changed = Path(path if isinstance(path, str) else path.decode())
        return "__pycache__" in changed.parts or any(
            changed.is_relative_to(folder) for folder in self.ignored
        )

    def on_any_event(self, event: FileSystemEvent) -> None:
        # A build reads every source: opening one is no change.
        if event.is_directory or event.event_type not in self.CHANGES:
            return
        paths = [event.src_path, getattr(event, "dest_path", "") or event.src_path]
        if all(self._built(path) for path in paths):
            return
        with self.server._rebuild_cond:  # what MkDocs' own watcher does on a change
            self.server._want_rebuild = True
            self.server._rebuild_cond.notify_all()


_observers: list[BaseObserver] = []


def _watch_sources(server: LiveReloadServer, config: MkDocsConfig) -> None:
    """The sources, watched through the system's file notifications, where MkDocs polls
    every half second: a save is seen at once. What a build writes among them (the rules
    data; __pycache__) is no edit: watched as MkDocs watches, a rules.yml save would build,
    and reload, twice."""
    folders = [config.docs_dir, *(item for item in config.watch if Path(item).is_dir())]
    server.unwatch(config.docs_dir)
    config.watch = [item for item in config.watch if item not in folders]
    observer = Observer()
    for folder in folders:
        ignored = tuple(built for built in BUILT_HERE if built.is_relative_to(folder))
        observer.schedule(_Sources(server, ignored), folder, recursive=True)
    observer.start()
    _observers.append(observer)
    shown = ", ".join(Path(folder).relative_to(ROOT).as_posix() for folder in folders)
    log.info(f"watching {shown} for saves")


def on_shutdown() -> None:
    for observer in _observers:
        observer.stop()


def on_serve(
    server: LiveReloadServer, config: MkDocsConfig, builder: Callable[..., None]
) -> LiveReloadServer:
    """Under `mkdocs serve` only: allow the live-reload script the dev server injects,
    answer every page with the error while the site does not build, and watch the
    sources without what a build writes among them.

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

    # MkDocs has no setting for what it injects: its method is replaced on this one server.
    server._inject_js_into_html = inject_allowed  # type: ignore[method-assign]

    # A failed build leaves MkDocs' server holding every request until a build passes:
    # the build counts as done, and every page answers at once with the problem.
    build = server.builder

    def build_or_show_problem() -> None:
        global _problem
        _warnings.clear()  # the warnings a failed build shows are those of this build
        try:
            build()
        except Exception as error:
            _problem = build_problem(error, list(_warnings))
            _say_error(f"the site did not build: {error}")

    server.builder = build_or_show_problem
    # The application answering the server's requests: MkDocs' serve_request, set when
    # it made the server.
    serve = server.get_app() or server.serve_request

    def serve_or_show_problem(
        environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        if not _is_page(environ.get("PATH_INFO", "")):
            return serve(environ, start_response)
        # A page asked for while a build runs waits for it, as MkDocs' own pages do: the
        # problem of the build before may be the one this build fixes.
        with server._epoch_cond:
            server._epoch_cond.wait_for(lambda: server._visible_epoch == server._wanted_epoch)
        if _problem is None:
            return serve(environ, start_response)
        page = inject_allowed(problem_page(_problem).encode("utf-8"), server._visible_epoch)
        start_response(
            "500 Internal Server Error",
            [
                ("Content-Type", "text/html; charset=utf-8"),
                ("Content-Length", str(len(page))),
                ("Cache-Control", "no-store"),
            ],
        )
        return [page]

    server.set_app(serve_or_show_problem)

    _watch_sources(server, config)
    return server
