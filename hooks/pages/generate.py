"""The site's generated pages as plain Markdown, with no site generator involved.

`generate(root, docs)` reads content/ and returns the systems, every page built from it
({path: Markdown}) and the navigation. The MkDocs adapter serves these as generated
files; `python -m hooks.pages.generate OUT` writes them under OUT (the hand-written pages of docs/
copied beside them, calculators expanded), so another generator can build the same site.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hooks.content.loader import System, load_content
from hooks.content.rules_data import compile_system
from hooks.content.yaml_lines import ContentError
from hooks.pages import shared_terms
from hooks.pages.calculators import expand_calculators, page_title
from hooks.pages.compare import compare_source, load_compare, render_compare
from hooks.pages.gm_screen import INDEX_PAGE as GM_SCREENS_PAGE
from hooks.pages.gm_screen import INDEX_TITLE as GM_SCREENS_TITLE
from hooks.pages.gm_screen import PAGE as GM_SCREEN_PAGE
from hooks.pages.gm_screen import render_gm_screen, render_gm_screens
from hooks.pages.sentences import Quote, quoted_sentences
from hooks.pages.site import (
    NavItem,
    calculator_pages_reading_rules,
    edit_source,
    expand_systems_table,
    front_matter,
    navigation,
    render_site,
    section_links,
    site_root,
    system_line,
)
from rules_core.calculators import CALCULATORS

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class GeneratedSite:
    systems: dict[str, System]
    compiled: dict[str, Any]  # each system's rules data, as compile_system() gives it
    pages: dict[str, str]  # docs-relative path -> Markdown
    nav: list[NavItem]
    quotes: dict[str, list[Quote]]  # docs-relative path -> the sentences cited on that page
    # docs-relative path -> the content file a contributor edits to change it (its edit button)
    sources: dict[str, str]


def generate(
    root: Path,
    docs: Path,
    home_nav: Sequence[NavItem] | None = None,
    publish_rules: Callable[[dict[str, Any]], None] | None = None,
) -> GeneratedSite:
    """Every page built from root/content, and the navigation around docs' own pages.

    Some pages show answers of the rules core (Compare), which reads the compiled rules
    data; `publish_rules` is given the rules compiled here before any such page is made
    (the dev server writes them where the core reads them: `make data` does it before
    any other build)."""
    systems = load_content(root / "content")
    concepts = load_compare(root / "content" / "compare.yml", systems)
    compiled = {slug: compile_system(system) for slug, system in systems.items()}
    if publish_rules is not None:
        publish_rules(compiled)
    titles = {name: page_title(name, docs) for name in CALCULATORS}
    links = section_links(compiled, titles, concepts)
    pages = render_site(systems, links)
    for slug, system in systems.items():
        pages[f"{slug}/{GM_SCREEN_PAGE}.md"] = render_gm_screen(
            system, compiled[slug], front_matter(system), system_line(system)
        )
    pages[f"{GM_SCREENS_PAGE}.md"] = render_gm_screens(
        {slug: system.title for slug, system in systems.items()}
    )
    compare_pages, compare_nav = render_compare(
        concepts, systems, also=[(shared_terms.TITLE, shared_terms.PAGE, shared_terms.SUMMARY)]
    )
    pages.update(compare_pages)
    # The GM screens at the menu's top level, beside the calculators: a referee's tools.
    gm_nav = {GM_SCREENS_TITLE: f"{GM_SCREENS_PAGE}.md"}
    nav = navigation(systems, [*(home_nav or []), gm_nav, compare_nav])
    sources = {
        path: source
        for path in [*pages, *sorted(calculator_pages_reading_rules())]
        if (source := edit_source(systems, path) or compare_source(path, concepts))
    }
    quotes = quoted_sentences(compiled, concepts)
    return GeneratedSite(systems, compiled, pages, nav, quotes, sources)


def page_url(path: str) -> str:
    """The address a page is served at under directory URLs: orcus/combat.md -> orcus/combat/."""
    stem = path.removesuffix(".md")
    return stem.removesuffix("index") if stem.split("/")[-1] == "index" else stem + "/"


def write(out: Path, root: Path = ROOT) -> GeneratedSite:
    docs = root / "docs"
    site = generate(root, docs)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(docs, out)
    for path, markdown in site.pages.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(markdown, encoding="utf-8")
    for page in out.rglob("*.md"):
        relative = page.relative_to(out).as_posix()
        text = expand_systems_table(page.read_text(encoding="utf-8"), site.systems)
        if "[[calculator:" in text:
            text = expand_calculators(text, site_root(page_url(relative)))
        page.write_text(text, encoding="utf-8")
    (out.parent / f"{out.name}-nav.yml").write_text(
        yaml.safe_dump({"nav": site.nav}, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    return site


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m hooks.pages.generate OUT", file=sys.stderr)
        return 2
    try:
        site = write(Path(argv[0]))
    except ContentError as error:
        print(f"content error: {error}", file=sys.stderr)
        return 1
    print(f"{len(site.pages)} generated pages and docs/ written to {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
