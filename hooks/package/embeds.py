"""Write each calculator's embed page (hooks/pages/embed.py) into the built site.

Run after the generator has written the calculator pages, before the search index and the
service worker are (hooks/package/built_site.py): an embed page takes the stylesheets and
the palette of its calculator's page as built, so it looks as the site does, and the
service worker stores it (the `embed` group of hooks/package/offline.py) for a frame seen
once to answer offline. Its policy is the site's, with no inline script at all: the page
has none. Framing is not the policy's to allow (a `frame-ancestors` in a meta tag is
ignored): a host that sends `frame-ancestors 'none'` leaves `embed/` out (README,
"Embedding").
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from hooks.pages.embed import embed_path, render_embed
from hooks.postprocess.csp import add_content_security_policy
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import PAGES

_STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]+)"')
_BODY = re.compile(r"<body\b([^>]*)>")
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
_TITLE = re.compile(r"<title>([^<]*?)</title>")


class EmbedError(RuntimeError):
    """A calculator's page, which its embed page is made from, is not in the built site."""


def write_embeds(site_dir: Path, bundle: str, site_name: str | None = None) -> list[str]:
    """Write embed/<calculator>/index.html for every calculator of the registry; returns
    their paths from the site root. `site_name` defaults to what the home page's window
    title says."""
    site_dir = Path(site_dir)
    home = (site_dir / "index.html").read_text(encoding="utf-8")
    name_of_site = site_name or _home_title(home)
    written = []
    for name in CALCULATORS:
        page = site_dir / "calculators" / PAGES[name] / "index.html"
        if not page.is_file():
            raise EmbedError(f"{page} is missing: the embed page of '{name}' is made from it")
        html = page.read_text(encoding="utf-8")
        head = html[: html.find("</head>")]
        body = _BODY.search(html)
        embed = render_embed(
            name,
            bundle=bundle,
            site_name=name_of_site,
            # Each page of a calculator carries them (the theme's, the site's, calculators.css).
            stylesheets=_STYLESHEET.findall(head),
            palette=dict(_ATTRIBUTE.findall(body.group(1))) if body else {},
        )
        path = embed_path(name)
        target = site_dir / path / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(add_content_security_policy(embed), encoding="utf-8")
        written.append(path)
    return written


def _home_title(home: str) -> str:
    title = _TITLE.search(home)
    if title is None:
        raise EmbedError("the home page has no <title> to name the site by")
    return unescape(title.group(1)).strip()  # text: render_embed escapes it
