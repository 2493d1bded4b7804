"""Refuse content that would become code on a page.

Content comes from pull requests by strangers, and Markdown passes raw HTML through, so
a page, a glossary definition, a table cell or a compare quote could carry a script.
This module reads Markdown the way a parser does (markdown-it-py's tokens: raw HTML
blocks and spans, links, images) and reads each HTML fragment with the standard
library's HTML tokenizer, which decodes entities and folds case as a browser does; a
regular expression over the raw text would miss `<ScRiPt>` or `jav&#x61;script:`.
Any finding raises ContentError with the file, the line and how to fix it.

The site's Content-Security-Policy (hooks/postprocess/csp.py) is the second wall: it allows only
the inline scripts the site itself writes.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Iterator
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

from hooks.content.yaml_lines import ContentError, LineDict, LineList, LineStr


class _EveryLink(MarkdownIt):
    """markdown-it drops links to javascript:/data: URLs instead of tokenizing them (its own
    XSS guard), but Python-Markdown, which renders the site, keeps them: this parser lets
    every link through so that this module sees, and refuses, each one."""

    def validateLink(self, url: str) -> bool:
        return True


_markdown = _EveryLink("commonmark")

# Elements that run code, embed another document, or change how the page loads.
FORBIDDEN_ELEMENTS = {
    "script": "runs code",
    "style": "restyles the whole site",
    "iframe": "embeds another document",
    "frame": "embeds another document",
    "frameset": "embeds another document",
    "object": "embeds a plugin or document",
    "embed": "embeds a plugin or document",
    "applet": "embeds a plugin",
    "base": "changes where every link of the page points",
    "meta": "can redirect the page",
    "link": "loads a resource into the page",
    "form": "can send the reader's input elsewhere",
    "svg": "can carry scripts and handlers of its own",
    "math": "can carry links and handlers of its own",
    "template": "hides markup from this check",
}
# Attributes whose value is a URL the browser follows or loads.
URL_ATTRIBUTES = {
    "href",
    "src",
    "action",
    "formaction",
    "background",
    "cite",
    "data",
    "poster",
    "xlink:href",
    "longdesc",
    "usemap",
    "codebase",
    "ping",
    "lowsrc",
    "dynsrc",
}
FORBIDDEN_SCHEMES = ("javascript:", "vbscript:", "data:", "livescript:")
# Browsers drop ASCII whitespace and control characters anywhere in a URL's scheme.
_IGNORED_IN_SCHEME = re.compile(r"[\x00-\x20\x7f]+")
# Python-Markdown's attr_list ({: key=value } or { #id .class key=value }) sets any
# attribute on the element before it: check those attributes as HTML ones.
_ATTR_LIST = re.compile(r"\{:?[ ]*([^}\n ][^}\n]*)[ ]*\}")

HOW_TO_SHOW_AS_TEXT = "to show it as text, put it in backticks (`...`)"
# The site loads nothing from another host (the policy would block it: a broken image).
OFF_SITE_IMAGE = (
    "an image from another host: the site serves everything itself; add the image under "
    "docs/assets/images/ and link to it there, or link to the address instead of showing it"
)


def same_site(url: str) -> bool:
    """A relative address: a resource from the site itself, never from another host (the
    page sanitizer, hooks/postprocess/sanitize.py, drops any other image by this test)."""
    parts = urlsplit(url.strip())
    return not parts.scheme and not parts.netloc and not url.strip().startswith("//")


def dangerous_url(url: str) -> str | None:
    """The forbidden scheme a URL uses ("javascript:"), or None when it is safe."""
    compact = _IGNORED_IN_SCHEME.sub("", unquote(html.unescape(url))).lower()
    return next((scheme for scheme in FORBIDDEN_SCHEMES if compact.startswith(scheme)), None)


def _url_problem(url: str, what: str) -> str | None:
    scheme = dangerous_url(url)
    if scheme is None:
        return None
    return (
        f"a {scheme} URL in {what} can run code or load content the reader cannot see: link to a "
        "page of the site (page.md#anchor) or an https:// address instead"
    )


def attribute_problem(name: str, value: str | None) -> str | None:
    """Why an HTML attribute is refused, or None when it is harmless."""
    name = name.lower()
    if name.startswith("on"):
        return (
            f"the event-handler attribute {name}= runs code: remove it (content is text; the "
            "site's behaviour lives in docs/assets/javascripts)"
        )
    if name == "style":
        # The policy blocks inline styles anyway (style-src 'self'), so the attribute
        # would silently do nothing here, and a relaxed policy would let content restyle
        # or overlay the site's own controls.
        return (
            "the style= attribute is not allowed: the site's styles live in "
            "docs/assets/stylesheets; use a class from there, or none"
        )
    if name == "srcdoc":
        return "srcdoc= embeds a document that can run code: remove it"
    if name == "srcset" and value:
        for candidate in value.split(","):
            problem = _url_problem(candidate.strip(), "srcset=")
            if problem:
                return problem
    if name in URL_ATTRIBUTES and value:
        return _url_problem(value, f"{name}=")
    return None


class _FragmentChecker(HTMLParser):
    """Collects (line within the fragment, message) for each forbidden tag or attribute."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[tuple[int, str]] = []
        self.texts: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        if tag in FORBIDDEN_ELEMENTS:
            self.problems.append(
                (
                    line,
                    f"<{tag}> is not allowed in content: it {FORBIDDEN_ELEMENTS[tag]}; remove "
                    f"the element ({HOW_TO_SHOW_AS_TEXT})",
                )
            )
        for name, value in attrs:
            problem = attribute_problem(name, value)
            if problem:
                self.problems.append((line, f"<{tag}>: {problem}"))
        source = dict(attrs).get("src")
        if tag == "img" and source and not dangerous_url(source) and not same_site(source):
            self.problems.append((line, OFF_SITE_IMAGE))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        # With md_in_html, Markdown inside an HTML block is rendered too.
        self.texts.append((self.getpos()[0], data))


def html_problems(fragment: str) -> list[tuple[int, str]]:
    """(line within the fragment, counting from 1, message) for each forbidden construct."""
    checker = _FragmentChecker()
    checker.feed(fragment)
    checker.close()
    problems = list(checker.problems)
    for line, text in checker.texts:
        if "](" in text or "]:" in text or "{" in text:
            problems += [(line + inner - 1, message) for inner, message in markdown_problems(text)]
    return problems


def _attr_list_problems(text: str) -> Iterator[str]:
    for match in _ATTR_LIST.finditer(text):
        for _, message in html_problems(f"<span {match.group(1)}>"):
            yield message.replace("<span>: ", "an attribute list { ... }: ")


# A link destination as Python-Markdown reads it, which accepts some that CommonMark
# leaves as text (a tab or space inside the URL): a net under the tokens above.
_LINK_DESTINATION = re.compile(r"\]\(\s*<?([^)>]*)|^\s*\[[^\]]+\]:\s*<?(\S+)")


def _link_problems(text: str) -> Iterator[str]:
    for match in _LINK_DESTINATION.finditer(text):
        problem = _url_problem(match.group(1) or match.group(2) or "", "a link")
        if problem:
            yield problem


def _inline_problems(inline: Token, first_line: int) -> Iterator[tuple[int, str]]:
    """Problems in one inline token's children, each at its own line."""
    line = first_line
    for child in inline.children or []:
        if child.type in ("softbreak", "hardbreak"):
            line += 1
        elif child.type == "link_open":
            problem = _url_problem(str(child.attrs.get("href", "")), "a link")
            if problem:
                yield line, problem
        elif child.type == "image":
            source = str(child.attrs.get("src", ""))
            problem = _url_problem(source, "an image")
            if problem:
                yield line, problem
            elif not same_site(source):
                yield line, OFF_SITE_IMAGE
        elif child.type == "html_inline":
            yield from (
                (line + inner - 1, message) for inner, message in html_problems(child.content)
            )


def markdown_problems(text: str) -> list[tuple[int, str]]:
    """(line within text, counting from 1, message) for each construct that could run code."""
    problems: list[tuple[int, str]] = []
    for token in _markdown.parse(text):
        start = token.map[0] + 1 if token.map else 1
        if token.type == "code_block":
            # CommonMark reads an indented block as code, but Python-Markdown renders the
            # indented body of an admonition (!!!), details (???) or tab (===) as Markdown.
            inner = markdown_problems(textwrap.dedent(token.content))
            problems += [(start + line - 1, message) for line, message in inner]
        elif token.type == "html_block":
            problems += [
                (start + inner - 1, message) for inner, message in html_problems(token.content)
            ]
        elif token.type == "inline":
            problems += _inline_problems(token, start)
            # Attribute lists are read from the source, which the tokens split at
            # entities and emphasis marks.
            for offset, source_line in enumerate(token.content.split("\n")):
                problems += [
                    (start + offset, message)
                    for message in [*_attr_list_problems(source_line), *_link_problems(source_line)]
                ]
    return problems


@lru_cache(maxsize=1 << 16)
def _problems_of(text: str) -> tuple[tuple[int, str], ...]:
    """markdown_problems, once per text: the dev server checks all the content on each
    save, and a save changes a few texts of thousands."""
    return tuple(markdown_problems(text))


def check_markdown(text: str, path: Path | str, first_line: int = 1) -> None:
    """Raise ContentError at the first construct in `text` that could run code.

    `first_line` is the file line where `text` starts (a YAML value's line).
    """
    problems = _problems_of(str(text))
    if problems:
        line, message = min(problems, key=lambda problem: problem[0])
        raise ContentError(path, first_line + line - 1, message)


def check_yaml_texts(value: Any, path: Path | str) -> None:
    """Check every text of a loaded YAML file (line-aware values) as Markdown."""
    if isinstance(value, LineDict | dict):
        for item in value.values():
            check_yaml_texts(item, path)
    elif isinstance(value, LineList | list):
        for item in value:
            check_yaml_texts(item, path)
    elif isinstance(value, str):
        check_markdown(str(value), path, value.line if isinstance(value, LineStr) else 1)
