"""Where a line may break in a page's text, beyond where browsers break it themselves.

A slash between two words ("Advantage/Disadvantage", "HUNTING/FORAGING") is no place a
browser breaks a line: on a narrow screen (320 CSS px, or text at 200 % on a phone, which
zooms a 375 px screen to 188 CSS px) the pair is too long for its line, and the theme's
`overflow-wrap: break-word` then breaks the second word in two ("Disadv/antage"). An
optional break (<wbr>) after each such slash in the article's text lets the line break
there instead. Code and preformatted text are left as they are.
"""

from __future__ import annotations

import re

_ARTICLE = re.compile(r"(<article\b.*?</article>)", re.S)
_TAG_OR_TEXT = re.compile(r"(<[^>]*>)|([^<]+)")
_LITERAL = {"code", "pre", "script", "style", "kbd", "samp"}
_TAG_NAME = re.compile(r"</?([a-zA-Z0-9]+)")
_SLASH_BETWEEN_WORDS = re.compile(r"(?<=[^\W\d_])/(?=[^\W\d_])")


def _break_text(article: str) -> str:
    parts = []
    literal = 0  # inside code or preformatted text
    for match in _TAG_OR_TEXT.finditer(article):
        tag, text = match.groups()
        if tag is not None:
            name = _TAG_NAME.match(tag)
            if name and name.group(1).lower() in _LITERAL and not tag.endswith("/>"):
                literal += -1 if tag.startswith("</") else 1
            parts.append(tag)
        else:
            parts.append(text if literal else _SLASH_BETWEEN_WORDS.sub("/<wbr>", text))
    return "".join(parts)


def break_after_slashes(html: str) -> str:
    """The page with an optional line break after each slash between two words of its
    article's text."""
    return _ARTICLE.sub(lambda match: _break_text(match.group(1)), html, count=1)
