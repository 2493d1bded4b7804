"""Search indexes that stay small as content grows: one per system.

Material's search worker builds its lunr index in the browser before it answers, so the
first result waits for the whole index: 0.4 MB of text with four systems, 4 MB with forty.
After the build this splits Material's `search/search_index.json` into

- `search/scope-<slug>.json` for the pages of one system: that system's full text, the
  pages outside any system (home, calculators, Compare) in full, and every other
  system's page titles (their sections and text left out);
- `search/search_index.json` for the pages outside any system: those in full and every
  system's page titles.

So a search finds the full text of the system being read and every other system's pages
by title, with an index that grows with the number of systems only by their page titles
(lunr's build time grows with the number of entries as well as with their words: with
every system's section titles, a forty-system index had six times the entries).
`assets/javascripts/site-scope.js` makes Material fetch the page's own index.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

INDEX = Path("search") / "search_index.json"


def scope_file(slug: str) -> Path:
    return Path("search") / f"scope-{slug}.json"


def _system_of(location: str, slugs: set[str]) -> str | None:
    first = location.split("/", 1)[0].split("#", 1)[0]
    return first if first in slugs else None


def _title_only(doc: dict[str, Any]) -> dict[str, Any] | None:
    """A page's entry with its title and tags only; None for a section's entry."""
    return None if "#" in doc["location"] else {**doc, "text": ""}


def split_index(index: dict[str, Any], slugs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{"": the index for pages outside any system, slug: the index for its pages}."""
    systems = set(slugs)
    shared, titles = [], []
    own: dict[str, list[dict[str, Any]]] = {slug: [] for slug in systems}
    for doc in index["docs"]:
        system = _system_of(doc["location"], systems)
        if system is None:
            shared.append(doc)
        else:
            own[system].append(doc)
            title = _title_only(doc)
            if title is not None:
                titles.append((system, title))
    scopes = {"": {**index, "docs": shared + [doc for _, doc in titles]}}
    for slug in systems:
        others = [doc for system, doc in titles if system != slug]
        scopes[slug] = {**index, "docs": shared + own[slug] + others}
    return scopes


def write_scopes(site_dir: Path, slugs: Iterable[str]) -> None:
    path = site_dir / INDEX
    index = json.loads(path.read_text(encoding="utf-8"))
    for slug, scoped in split_index(index, slugs).items():
        target = site_dir / (scope_file(slug) if slug else INDEX)
        target.write_text(json.dumps(scoped, separators=(",", ":")), encoding="utf-8")
