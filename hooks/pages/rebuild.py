"""Which pages a rebuild renders again: the dev server's change detection, by what each page
is made of.

A site generator tells what changed by file dates, and every page made from content/ is
generated anew on each build (MkDocs counts all of them as changed, with --dirty too), so
any save would render the whole site. Here a page is rendered again when what it is made
of changed: its Markdown (a table or a rules.yml edit changes the Markdown of every page
that shows it), the cited sentences marked in it, the Python bundle its calculators name.
Everything is rendered again when what every page shows changed (the navigation and its
titles, the site's configuration and theme), on the first build, and when a page comes
or goes. What follows from all the pages (the search index, the offline list) is written
after every build by the caller.

Plain functions of strings: the MkDocs adapter feeds them and marks its files.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hooks.pages.calculators import WIDGET


def fingerprint(*parts: object) -> str:
    """A digest of the parts: text as it is, anything else as sorted JSON."""
    digest = hashlib.sha256()
    for part in parts:
        text = part if isinstance(part, str) else json.dumps(part, sort_keys=True, default=repr)
        digest.update(text.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:24]


def page_made_of(markdown: str, marked: Iterable[object] = (), bundle: str = "") -> str:
    """A page's fingerprint: its Markdown, the sentences marked in its HTML (citations link
    to them), and the Python bundle, which only a page holding a calculator names."""
    return fingerprint(markdown, sorted(map(repr, marked)), bundle if WIDGET in markdown else "")


@dataclass(frozen=True)
class Made:
    """What one build's pages were made of: what every page shows, and each page's own."""

    shared: str
    pages: Mapping[str, str]  # page path -> page_made_of(...)


@dataclass(frozen=True)
class Plan:
    """The pages a build renders (all of them when `everything`), and why, for the log."""

    pages: frozenset[str]
    everything: bool
    why: str


def plan(before: Made | None, now: Made) -> Plan:
    """What to render now, after a build that made `before` (None: none to build on)."""
    every = frozenset(now.pages)
    if before is None:
        return Plan(every, True, "every page: a first build")
    if before.shared != now.shared:
        return Plan(every, True, "every page: what they all show changed (navigation, settings)")
    if before.pages.keys() != now.pages.keys():
        return Plan(every, True, "every page: a page was added or removed")
    changed = frozenset(path for path, made in now.pages.items() if before.pages[path] != made)
    named = ", ".join(sorted(changed)[:3]) + (", ..." if len(changed) > 3 else "")
    return Plan(changed, False, f"{len(changed)} of {len(every)} pages changed: {named or '-'}")
