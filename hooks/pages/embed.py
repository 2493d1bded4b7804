"""The embed page of each calculator: the calculator alone, for another site's page to frame.

`embed/<calculator>/` holds the calculator's widget as its page on the site has it (the
same form, the same answer computed at build time by rules_core.web), bound by the same
page modules, and one line that names the site and opens the full page; no header, menu,
search or footer. A GM pastes the snippet the site's "Embed" button gives (an <iframe>
of this page with the inputs on screen, in the address format of a shared link, and the
optional embed-host.js that lets the frame take its content's height).

The page is written after the site generator (hooks/package/embeds.py), with the
stylesheets and palette of the calculator's own page, so it looks as the site does. It
sits two folders below the root, as a calculator page does, so the build-time answer's
links (relative to the root) hold as they are. Every link of the page opens outside the
frame (`<base target="_blank">`): a citation or the full page never opens inside it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape

from hooks.pages.calculators import WIDGET, form_defaults, render_calculator
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import calculator_address

FOLDER = "embed"
BASE = "../../"  # from embed/<calculator>/ to the site root
# What embed-page.mjs runs to start Python as the embed comes into view, fetched with the
# page's styles (some 10 KB as a host compresses them), not a round trip or two after its
# first paint: on a phone's network, a second sooner to Python's first byte.
STARTS_PYTHON = (
    "embed-page.mjs",
    "calculator-client.mjs",
    "shared-python.mjs",
    "embed-protocol.mjs",
    # What says so when the rest did not arrive (embed-boot.js imports it then).
    "calculator-unbound.mjs",
)


def embed_path(name: str) -> str:
    """Where calculator `name`'s embed page is served, from the site root."""
    if name not in CALCULATORS:
        raise KeyError(f"no calculator named '{name}'")
    return f"{FOLDER}/{name}/"


def render_embed(
    name: str,
    *,
    bundle: str,
    site_name: str,
    stylesheets: Sequence[str],
    palette: Mapping[str, str],
) -> str:
    """The embed page of calculator `name`, whole. `stylesheets` are the hrefs of its site
    page's stylesheets (relative to a page two folders deep, as this one is), `palette`
    the theme's attributes of that page's body (its direction, data-md-color-primary, ...): here
    on the root, where embed-boot.js sets the scheme (light or dark) before the first paint,
    and the theme's rules for a scheme and a colour together find both."""
    calculator = CALCULATORS[name]
    widget = render_calculator(name, BASE, embedded=True)
    widget = widget.replace(WIDGET, f'{WIDGET} data-bundle="{escape(bundle)}"', 1)
    # What embed-boot.js reads before the first paint: the inputs the built answer answers.
    defaults = escape(json.dumps(form_defaults(widget), separators=(",", ":")))
    # The theme's rules for the text's direction ([dir=ltr]) and its colours read these.
    colours = "".join(
        f' {escape(key)}="{escape(value)}"'
        for key, value in palette.items()
        if key == "dir" or (key.startswith("data-md-color-") and key != "data-md-color-scheme")
    )
    full_page = calculator_address(name, {}, BASE)
    title = escape(calculator.title)
    links = "".join(f'<link rel="stylesheet" href="{escape(href)}">' for href in stylesheets)
    preloads = "".join(
        f'<link rel="modulepreload" href="{BASE}assets/javascripts/{module}">'
        for module in STARTS_PYTHON
    )
    return (
        "<!doctype html>\n"
        f'<html lang="en" class="embed" data-md-color-scheme="default"{colours}>\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width,initial-scale=1">\n'
        f"<title>{title} - {escape(site_name)}</title>\n"
        # The full page is the one to find: this one is for frames.
        '<meta name="robots" content="noindex">\n'
        f'<link rel="canonical" href="{escape(full_page)}">\n'
        '<base target="_blank">\n'
        f'<script src="{BASE}assets/javascripts/embed-boot.js" '
        f'data-defaults="{defaults}"></script>\n'
        f"{preloads}\n"
        f'<link rel="icon" href="{BASE}assets/images/favicon.png">\n'
        f'{links}<link rel="stylesheet" href="{BASE}assets/stylesheets/embed.css">\n'
        "</head>\n"
        f'<body>\n<main class="embed-main md-typeset">\n{widget}\n'
        f'<p class="embed-site"><a class="embed-full" href="{escape(full_page)}">'
        f"{title} in full on {escape(site_name)}</a></p>\n"
        "</main>\n</body>\n</html>\n"
    )
