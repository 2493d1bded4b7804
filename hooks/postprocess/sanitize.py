"""The allow-list every page built from `content/` passes before it reaches a reader.

Content is Markdown written by strangers, rendered by Python-Markdown, which passes raw
HTML through. Instead of looking for what could do harm (a deny-list, which a parser
differential such as `<!-->`, `--!>`, CDATA or RCDATA slips past), the rendered HTML is
parsed again and rebuilt by a maintained sanitizer (nh3, the Ammonia bindings, an HTML5
parser) keeping only the elements, attributes and URL schemes listed here. Whatever a
text holds, what comes out is this markup and nothing else: no script, no handler, no
style, no meta, no frame, no resource from another host.

The allow-list is what the site's Markdown, its extensions and its hooks produce for a
rules page: text structure, tables, admonitions, tabs (pymdownx.tabbed's radio inputs),
the Compare pages' reader's-numbers form (a form that cannot submit: the policy says
form-action 'none', and it runs only the site's scripts), and the data- attributes the
site's scripts read. `hooks/content/markup_safety.py` gives contributors FILE:LINE messages for
the same rules before anything is built; this module is the guarantee.
"""

from __future__ import annotations

import nh3

from hooks.content.markup_safety import same_site

TAGS = {
    # text
    "a", "abbr", "b", "blockquote", "br", "cite", "code", "dd", "del", "details", "dfn",
    "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
    "small", "span", "strong", "sub", "summary", "sup", "u", "ul", "var",
    # tables
    "caption", "col", "colgroup", "table", "tbody", "td", "tfoot", "th", "thead", "tr",
    # tabs and the Compare pages' numbers
    "form", "input", "label", "section",
}  # fmt: skip
COMMON_ATTRIBUTES = {"class", "id", "title", "role", "lang", "dir", "hidden"}
ATTRIBUTES = {
    "*": COMMON_ATTRIBUTES
    | {"aria-label", "aria-labelledby", "aria-describedby", "aria-hidden", "aria-live"},
    "a": {"href", "rel"},
    "abbr": set(),
    "img": {"src", "alt", "width", "height", "loading"},
    "ol": {"start", "reversed", "type"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "col": {"span"},
    "details": {"open"},
    "form": {"novalidate"},
    "input": {
        "type", "name", "value", "checked", "autocomplete", "inputmode", "placeholder",
        "spellcheck",
    },
    "label": {"for"},
}  # fmt: skip
URL_SCHEMES = {"http", "https", "mailto"}
# The only kinds of input the site writes: a form of text fields and the tabs' radios.
INPUT_TYPES = {"text", "hidden", "radio", "checkbox"}


def _filter(tag: str, attribute: str, value: str) -> str | None:
    if attribute == "src" and not same_site(value):
        return None  # an image from another host: the policy would block it anyway
    if tag == "input" and attribute == "type" and value.lower() not in INPUT_TYPES:
        return None
    return value


def clean(html: str) -> str:
    """The rendered HTML of a content page, rebuilt with only the allowed markup."""
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        attribute_filter=_filter,
        url_schemes=URL_SCHEMES,
        generic_attribute_prefixes={"data-"},
        link_rel=None,
        strip_comments=True,
    )
