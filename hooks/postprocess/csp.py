"""Content-Security-Policy for every page, as a `<meta>` at the top of `<head>`.

The site is static, so the policy travels in the page itself. It allows only the site's
own files, plus the inline scripts the theme writes, each by the SHA-256 hash of its
text (Material's templates write a few small ones: local-storage helpers, the palette
and the tab restore). Which scripts those are is known before any content is read:
`theme_scripts` reads them from the theme's own template files, where only a template
expression (the page's base URL) may vary. A page gets the hashes of the scripts it holds
that are one of those, and of no other: a script that reaches any part of a page from
content (its body, its title, the nav, the search) is blocked, even had it got past the
sanitizer (hooks/postprocess/sanitize.py).
JSON data blocks such as Material's `__config` are never executed, so they need no
hash. Nothing is allowed to run from another host, from `eval`, from an inline event
handler or from a `javascript:` URL.

Pyodide runs in a module worker, whose own policy comes from the worker script's
response, not from this meta. `'wasm-unsafe-eval'` (WebAssembly compilation, not
JavaScript `eval`) is listed so that the policy stays correct if a server ever sends it
as a header for the worker as well. `worker-src 'self'` admits the calculators' worker,
Material's search worker and a service worker at the site root.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from html import escape
from html.parser import HTMLParser
from pathlib import Path

# The body of each script element, as the HTML tokenizer delimits it: a script's text
# ends at the first "</script" followed by whitespace, "/" or ">".
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script[\s/>]", re.IGNORECASE | re.DOTALL)
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_EXISTING = re.compile(
    r"\s*<meta\b[^>]*http-equiv\s*=\s*[\"']?content-security-policy[\"']?[^>]*>", re.IGNORECASE
)
# Types whose script is executed as classic JavaScript or as a module (HTML, "prepare the
# script element"); any other type is a data block the browser never runs.
_JAVASCRIPT_TYPES = {
    "",
    "module",
    "application/ecmascript",
    "application/javascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
}

# Every directive but script-src, whose hashes depend on the page.
DIRECTIVES: dict[str, str] = {
    "default-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "worker-src": "'self'",
    "manifest-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'none'",
}


class _StartTag(HTMLParser):
    """The attributes of one start tag, parsed the way HTML parses them."""

    def __init__(self, tag: str) -> None:
        super().__init__(convert_charrefs=True)
        self.attributes: dict[str, str | None] = {}
        self.feed(tag)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.attributes:
            self.attributes = dict(attrs)


def script_hash(text: str) -> str:
    """The CSP source for an inline script: its text's SHA-256, as the browser computes it."""
    # The browser hashes the text after the parser's newline normalisation.
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = hashlib.sha256(normalised.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def inline_scripts(html: str) -> list[str]:
    """The text of each inline script the browser would execute, in page order."""
    scripts = []
    for match in _SCRIPT.finditer(html):
        attributes = _StartTag(f"<script{match.group(1)}>").attributes
        if "src" in attributes:
            continue
        kind = (attributes.get("type") or "").strip().lower()
        if kind not in _JAVASCRIPT_TYPES:
            continue  # a data block (application/json): never executed
        scripts.append(match.group(2))
    return scripts


# What a template expression in a theme script may become: a relative or absolute path,
# such as the base URL "../..". No quote, bracket or operator: it cannot end the string.
_EXPRESSION = r"[A-Za-z0-9._~/%:-]*"
_TEMPLATE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
_TEMPLATE_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.DOTALL)
# The theme's partials whose inline scripts the site's pages carry (Material's base.html
# includes them); its redirect template, whose script takes a page's own value, is not.
THEME_PARTIALS = "partials/javascripts/*.html"


def literal_scripts(texts: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    """Patterns that allow exactly these script texts."""
    return tuple(re.compile(re.escape(text)) for text in texts)


def theme_scripts(template_dirs: Iterable[Path | str]) -> tuple[re.Pattern[str], ...]:
    """The inline scripts the theme's templates write, as patterns where each template
    expression may be only a path: the allow-list, read before any content is."""
    patterns = []
    for folder in template_dirs:
        for template in sorted(Path(folder).glob(THEME_PARTIALS)):
            for body in _TEMPLATE_SCRIPT.findall(template.read_text(encoding="utf-8")):
                parts = _TEMPLATE_EXPRESSION.split(body)
                patterns.append(re.compile(_EXPRESSION.join(re.escape(part) for part in parts)))
    return tuple(patterns)


def site_scripts(html: str, allowed: Sequence[re.Pattern[str]]) -> list[str]:
    """The page's inline scripts that are on the allow-list."""
    return [text for text in inline_scripts(html) if any(p.fullmatch(text) for p in allowed)]


def content_security_policy(html: str, allowed: Sequence[re.Pattern[str]] = ()) -> str:
    """The policy for one page: the fixed directives and the hashes of the page's inline
    scripts that are on the allow-list (`theme_scripts`), and of no other."""
    hashes = list(dict.fromkeys(script_hash(text) for text in site_scripts(html, allowed)))
    script_src = " ".join(["'self'", *hashes, "'wasm-unsafe-eval'"])
    directives = {"default-src": DIRECTIVES["default-src"], "script-src": script_src}
    directives.update(DIRECTIVES)
    return "; ".join(f"{name} {value}" for name, value in directives.items())


def add_content_security_policy(html: str, allowed: Sequence[re.Pattern[str]] = ()) -> str:
    """Put the page's policy first in its `<head>`, before anything it governs.

    Only the inline scripts `allowed` admits get a hash. A page without a `<head>` is
    returned unchanged. An older policy meta is replaced, so running this twice gives the
    same page.
    """
    # An older policy can only sit in the head: searching the whole page would cost more
    # than everything else here together.
    head_end = html.find("</head>")
    if head_end >= 0:
        html = _EXISTING.sub("", html[:head_end]) + html[head_end:]
    head = _HEAD.search(html)
    if head is None:
        return html
    # The policy holds single quotes but no double quote: only & < > " need escaping.
    policy = content_security_policy(html, allowed)
    policy = escape(policy, quote=False).replace('"', "&quot;")
    meta = f'\n    <meta http-equiv="Content-Security-Policy" content="{policy}">'
    return html[: head.end()] + meta + html[head.end() :]


def allow_added_scripts(before: str, after: str) -> str:
    """`after` is the page `before` with inline scripts added after the build (the dev
    server's live reload): put exactly those in the page's policy, and nothing else.

    Used by `mkdocs serve` only; the built site never allows them.
    """
    added = Counter(inline_scripts(after)) - Counter(inline_scripts(before))
    if not added:
        return after
    head_end = after.find("</head>")
    meta = _EXISTING.search(after, 0, head_end if head_end >= 0 else len(after))
    if meta is None:
        return after
    hashes = " ".join(dict.fromkeys(script_hash(text) for text in added))
    allowed = meta.group(0).replace("script-src 'self'", f"script-src 'self' {hashes}", 1)
    return after[: meta.start()] + allowed + after[meta.end() :]
