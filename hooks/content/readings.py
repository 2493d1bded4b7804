"""A labelled reading of a rules.yml quotes the words of the text it reads.

An answer shows an `interpretation` where the text is ambiguous: the reader sees which
words were read and how. Where a reading is of the text's words (the rules of attacks,
checks, saves and dying), it quotes them in double quotes ("your rolls have
disadvantage"), and each quoted phrase stands in the system's pages (read as a citation
is: emphasis and link targets dropped, spacing and case not counted, typographic quotes
as straight ones). `make data` refuses one that quotes nothing, or words the pages do not
say, at its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from hooks.content.loader import Page, System
from hooks.content.quotes import normalise
from hooks.content.source_text import plain
from hooks.content.yaml_lines import ContentError, LineList, line_of

# The sections whose readings are of the text's words, and which of their keys (at any
# depth) hold a reading: "interpretation" means every key ending so (advantage_interpretation).
READINGS = {
    "attack": ("interpretation", "both", "unstated"),
    "checks": ("interpretation",),
    "saves": ("interpretation",),
    "dying": ("interpretation",),
}
_QUOTED = re.compile(r'"([^"]+)"')
_TYPOGRAPHIC = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})


def _plain(text: str) -> str:
    return normalise(text.translate(_TYPOGRAPHIC)).casefold()


@lru_cache(maxsize=1024)
def _page_text(page: Page) -> str:
    """A page's words as the reader sees them, notes included (read once while the page is
    the same: under the dev server, a build reads again only the pages a save changed)."""
    return _plain(" ".join(plain(token) for token in page.tokens if token.type == "inline"))


def _readings(value: Any, keys: tuple[str, ...], line: int) -> Iterator[tuple[str, int]]:
    """Each reading under `value` and its line."""
    if isinstance(value, dict):
        for key, item in value.items():
            here = value.line_of(key) if hasattr(value, "line_of") else line
            named = str(key)
            if named == "unstated" and named in keys and isinstance(item, list):
                lines = item.item_lines if isinstance(item, LineList) else [here] * len(item)
                yield from ((str(text), at) for text, at in zip(item, lines, strict=True))
            elif isinstance(item, str) and (
                named in keys or ("interpretation" in keys and named.endswith("interpretation"))
            ):
                yield item, line_of(item, here) or here
            else:
                yield from _readings(item, keys, here)
    elif isinstance(value, list):
        lines = value.item_lines if isinstance(value, LineList) else [line] * len(value)
        for item, at in zip(value, lines, strict=True):
            yield from _readings(item, keys, at)


def check_readings(system: System, rules: Any, path: Path) -> None:
    """Refuse, at its line, a reading that quotes nothing of the text, or words its pages
    do not say."""
    tables = (" ".join(" ".join(row) for row in table.rows) for table in system.tables.values())
    pages = " ".join([*(_page_text(page) for page in system.pages.values()), *map(_plain, tables)])
    for section, keys in READINGS.items():
        for text, line in _readings((rules or {}).get(section), keys, line_of(rules, 1) or 1):
            quoted = _QUOTED.findall(text.translate(_TYPOGRAPHIC))
            if not quoted:
                raise ContentError(
                    path,
                    line,
                    f"this reading of {section} quotes nothing of the text: quote the words "
                    'it reads, in double quotes ("your rolls have disadvantage"), as they '
                    f"stand on {system.slug}'s pages (CONTRIBUTING.md, \"Add an attack "
                    'situation")',
                )
            for phrase in quoted:
                if _plain(phrase) not in pages:
                    raise ContentError(
                        path,
                        line,
                        f'this reading quotes "{phrase}", which {system.slug}\'s pages do not '
                        "say: copy the words from the page (emphasis and link targets "
                        "dropped), or write words of ours without double quotes",
                    )
