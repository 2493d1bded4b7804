"""Read a cited sentence back from a built page, independently of the build's own code
(hooks/pages/sentences.py)."""

from __future__ import annotations

import html
import re
from pathlib import Path

# A block's edge separates words; an inline element (a glossary link, emphasis) does not.
_BLOCK_TAG = re.compile(
    r"</?(?:p|li|ul|ol|dl|dd|dt|div|blockquote|br|table|thead|tbody|tr|td|th|h[1-6])\b[^>]*>"
)
_TAG = re.compile(r"<[^>]*>")


def sentence_at(site: Path, url: str) -> str:
    """The text a link to a sentence ("orcus/combat/#said-...") lands on: what stands
    between the page's two markers, tags dropped and whitespace collapsed."""
    path, _, identifier = url.partition("#")
    page = (site / path / "index.html").read_text(encoding="utf-8")
    opener = f'<span class="said" id="{identifier}"></span>'
    closer = f'<span class="said-end" id="{identifier}-end"></span>'
    assert page.count(opener) == 1, f"{url}: {page.count(opener)} start markers"
    assert page.count(closer) == 1, f"{url}: {page.count(closer)} end markers"
    start = page.index(opener) + len(opener)
    end = page.index(closer)
    assert start <= end, f"{url}: the end marker comes before the start"
    text = html.unescape(_TAG.sub("", _BLOCK_TAG.sub(" ", page[start:end])))
    return " ".join(text.split())
