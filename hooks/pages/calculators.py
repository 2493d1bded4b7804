"""Calculator widgets: the form, rendered from the core's field specs, and a result
computed at build time by the same `rules_core.web.handle` the browser runs.

A page asks for a calculator with a paragraph holding only `[[calculator:NAME]]`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from rules_core.calculators import CALCULATORS, Calculator
from rules_core.calculators.address import PAGES
from rules_core.fields import Field, situation_choices, tiles
from rules_core.mechanics.situations import depends_on
from rules_core.rules.attack import Situation
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle

PLACEHOLDER = re.compile(r"^\[\[calculator:([a-z]+)\]\]$", re.M)
_CHARSET = re.compile(r"<meta charset=[^>]*>")
# A widget's calculator, as a page names it (a Compare page's answers are the attack's).
_WIDGET = re.compile(r'<section class="calc"[^>]*?\sdata-(?:calculator|compare)="([a-z]+)"')
DOCS = Path(__file__).resolve().parents[2] / "docs"
# How a calculator's widget starts, in a page's Markdown and HTML alike (a calculator page's,
# a Compare page's): a page holding one names the Python bundle.
WIDGET = '<section class="calc"'
_markdown = MarkdownIt("commonmark")
# A page's title with no class of its own (one from attr_list is left as it is).
_TITLE = re.compile(r"(<h1)(?=[\s>])(?![^>]*\sclass=)")


@cache
def page_title(name: str, docs: Path = DOCS) -> str:
    """The heading of the page that holds calculator `name`: what a link to that page says
    (the page may hold several calculators, "Ability scores")."""
    path = docs / "calculators" / f"{PAGES[name]}.md"
    text = path.read_text(encoding="utf-8")
    return next(
        (line[2:].strip() for line in text.splitlines() if line.startswith("# ")), path.stem
    )


def default_system(calculator: Calculator[Any, Any]) -> str:
    """The system the form shows before anyone chooses one."""
    system = next((f for f in calculator.fields if f.kind == "system"), None)
    return system.default if system is not None else system_slugs()[0]


def _attributes(calculator: Calculator[Any, Any], field: Field) -> str:
    """The field's class and the systems it applies to, from their rules data.

    A field that does not apply to the default system is hidden in the built page
    already, so nothing moves when the script starts.
    """
    systems = calculator.field_systems(field)
    if systems is None:
        return f'class="calc-field calc-field--{field.kind}"'
    hidden = "" if default_system(calculator) in systems else " hidden"
    listed = escape(" ".join(systems))
    return f'class="calc-field calc-field--{field.kind}" data-systems="{listed}"{hidden}'


def _control(calculator: str, field: Field) -> str:
    ident = f"{calculator}-{field.name}"
    shown_system = default_system(CALCULATORS[calculator])
    # A choice only some systems name is offered for those: hidden for the others, as a
    # field is (the script shows each system its own as the system changes).
    choice_systems = dict(field.choice_systems)
    described = f'aria-describedby="{ident}-error{" " + ident + "-hint" if field.hint else ""}"'
    common = f'id="{ident}" name="{field.name}" {described}'
    if field.kind in ("system", "choice"):
        options = []
        for value, label in field.choices:
            # A system's short title names it in the form's notes ("Orcus has no ...").
            short = ""
            if field.kind == "system":
                label = get_system(value).title
                short = f' data-short="{escape(get_system(value).short_title)}"'
            selected = " selected" if value == field.initial else ""
            systems = ""
            if value in choice_systems:
                listed = choice_systems[value]
                hidden = "" if shown_system in listed else " hidden"
                systems = f' data-systems="{escape(" ".join(listed))}"{hidden}'
            options.append(
                f'<option value="{escape(value)}"{short}{systems}{selected}>'
                f"{escape(label)}</option>"
            )
        return f"<select {common}>{''.join(options)}</select>"
    if field.kind == "check":
        checked = " checked" if field.initial == "on" else ""
        return f'<input type="checkbox" {common}{checked}>'
    if field.kind == "situations":
        hidden = f'<input type="hidden" {common} value="">'
        return hidden + _situation_boxes(calculator, ident, field)
    if field.kind == "int":
        bounds = ""
        if field.minimum is not None:
            bounds = f' min="{field.minimum}" max="{field.maximum}"'
        # A phone's digit pad has no minus or plus sign: only counts get it.
        digits = ' inputmode="numeric"' if (field.minimum or 0) >= 0 else ""
        return (
            f'<input type="text"{digits} autocomplete="off" {common}{bounds} '
            f'value="{escape(field.initial)}">'
        )
    # A text field's maximum is its length (a name): the box stops there too.
    length = f' maxlength="{field.maximum}"' if field.kind == "text" and field.maximum else ""
    return (
        f'<input type="text" autocomplete="off" spellcheck="false" {common}{length} '
        f'value="{escape(field.initial)}">'
    )


# Whose situation it is (`side` in rules.yml): each side is a disclosure of its own, so a
# system with dozens of situations keeps the form short; the attack's own are always shown.
SIDES = {"attacker": "The attacker", "target": "The target"}


def _asks(system: str, source: tuple[str, ...], name: str) -> tuple[str, str]:
    """A tile's question: the data-asks attribute naming the situations its effect depends
    on (situation-questions.mjs puts their tiles beside it once it is ticked) and the hint
    shown on it, ticked, naming them; nothing for a tile that depends on none."""
    named_tiles = tiles(get_system(system), source)
    tile = named_tiles[name]
    # A death-save option depends on nothing: only a situation has branches.
    asked = depends_on(tile) if isinstance(tile, Situation) else []
    if not asked:
        return "", ""
    labels = [named_tiles[other].label for other in asked if other in named_tiles]
    named = "; ".join(labels) if len(labels) <= 2 else f"{len(labels)} situations, set beside it"
    hint = f'<span class="calc-asks">Depends on: {escape(named)}</span>'
    return f' data-asks="{escape(" ".join(asked))}"', hint


def _situation_boxes(calculator: str, ident: str, field: Field) -> str:
    shown_system = default_system(CALCULATORS[calculator])
    by_side: dict[str, list[str]] = {side: [] for side in ("", *SIDES)}
    systems_of: dict[str, set[str]] = {side: set() for side in by_side}
    for system, choices in situation_choices(field.source).items():
        for value, label, side in choices:
            box_id = escape(f"{ident}-{system}-{value}")
            asks, hint = _asks(system, field.source, value)
            by_side[side].append(
                f'<label class="calc-check" for="{box_id}" data-systems="{escape(system)}"'
                f"{asks}{'' if system == shown_system else ' hidden'}>"
                f'<input type="checkbox" id="{box_id}" data-situation="{escape(value)}"> '
                f"{escape(label)}{hint}</label>"
            )
            systems_of[side].add(system)
    # Situations of the attack itself, unfolded; then each side's, folded under its name.
    parts = [f'<div class="calc-choices">{"".join(by_side[""])}</div>'] if by_side[""] else []
    for side, title in SIDES.items():
        if not by_side[side]:
            continue
        listed = [slug for slug in system_slugs() if slug in systems_of[side]]
        hidden = "" if shown_system in listed else " hidden"
        parts.append(
            f'<details class="calc-side" data-systems="{escape(" ".join(listed))}" '
            f'data-side="{side}"{hidden}>'
            f'<summary>{escape(title)}<span class="calc-side-ticked"></span></summary>'
            f'<div class="calc-choices">{"".join(by_side[side])}</div></details>'
        )
    return "".join(parts)


def _field_block(calculator: str, field: Field) -> str:
    """One field: its label, control, hint and the slot for its error message."""
    ident = f"{calculator}-{field.name}"
    hint = (
        f'<span class="calc-hint" id="{ident}-hint">{escape(field.hint)}</span>'
        if field.hint
        else ""
    )
    if field.kind == "situations":
        label = f'<span class="calc-label" id="{ident}-label">{escape(field.label)}</span>'
    elif field.kind == "check":
        label = ""
    else:
        label = f'<label class="calc-label" for="{ident}">{escape(field.label)}</label>'
    control = _control(calculator, field)
    if field.kind == "check":
        control = f'<label class="calc-check" for="{ident}">{control} {escape(field.label)}</label>'
    if field.name == "rolled":
        control = (
            '<button type="button" class="md-button md-button--primary calc-roll">Roll</button>'
        )
    # Read with its field (aria-describedby), not a live region of its own: what the
    # widget says as the reader types is said once, in its status line, once the typing
    # pauses (calculator-widget.mjs), never an alert at each key of a value half typed.
    error = f'<span class="calc-error" id="{ident}-error"></span>'
    return f"<div {_attributes(CALCULATORS[calculator], field)}>{label}{control}{hint}{error}</div>"


def _group_block(calculator: str, group: str, fields: list[Field]) -> str:
    """Fields of one group side by side in a fieldset named after it; shown for the
    systems any of them applies to."""
    spec = CALCULATORS[calculator]
    listed = [spec.field_systems(field) for field in fields]
    limited = [systems for systems in listed if systems is not None]
    attributes = 'class="calc-group"'
    if len(limited) == len(listed):  # every field applies to some systems only
        union = [s for s in system_slugs() if any(s in systems for systems in limited)]
        hidden = "" if default_system(spec) in union else " hidden"
        attributes += f' data-systems="{escape(" ".join(union))}"{hidden}'
    blocks = "".join(_field_block(calculator, field) for field in fields)
    return f"<fieldset {attributes}><legend>{escape(group)}</legend>{blocks}</fieldset>"


def render_form(name: str) -> str:
    parts: list[str] = []
    more: list[str] = []
    fields = list(CALCULATORS[name].fields)
    while fields:
        field = fields.pop(0)
        if field.group:
            members = [field]
            while fields and fields[0].group == field.group:
                members.append(fields.pop(0))
            block = _group_block(name, field.group, members)
        else:
            block = _field_block(name, field)
        (more if field.more else parts).append(block)
    if more:
        parts.append(
            f'<details class="calc-more"><summary>More options</summary>{"".join(more)}</details>'
        )
    return f'<form class="calc-form" novalidate>{"".join(parts)}</form>'


# Built into the widget, with the room it takes, rather than added by its code once that
# has arrived: on a slow network the form and the answer under it would move down. It is
# unseen until the code has bound it (calculators.css, calc:not([data-bound])). "Embed"
# gives the snippet that shows this calculator, with the inputs on screen, in another
# site's page (embed-snippet.mjs; the page it frames: hooks/pages/embed.py).
_COPY = '<button type="button" class="calc-copy">Copy link</button>'
_COPIED = '<span class="calc-copied" role="status"></span>'
COPY_LINK = f'<div class="calc-tools">{_COPY}{_COPIED}</div>'
CALCULATOR_TOOLS = (
    f'<div class="calc-tools">{_COPY}'
    '<button type="button" class="calc-embed" aria-expanded="false">Embed</button>'
    f"{_COPIED}</div>"
)

# What the status line says while Python loads, before its download has begun
# (calculator-status.mjs says the same once the widget's code runs).
LOADING = "Loading the calculators' Python…"

# What a calculator that keeps the party says above its form (party-fight.mjs) while nothing is
# kept on this device: built in for the same reason.
_PARTY_NOTES = {
    "fight": '<div class="calc-party"><p>Named party rows are kept on this device, for the '
    "attack and checks calculators.</p></div>",
}


def render_calculator(name: str, base: str, titled: bool = True, *, embedded: bool = False) -> str:
    """The whole widget as one block of HTML (no blank lines, so Markdown keeps it raw).

    Untitled, the widget is named by the page's own heading: no second heading with the
    same words takes a phone's screen. Its answer is announced through the status line
    (a short summary, not the whole result) whenever it changes. Embedded (the embed page,
    hooks/pages/embed.py), it has its heading and neither Copy link nor Embed (the page's
    own line opens the full page), nor a note of the party this device keeps: a frame on
    another site has storage of its own, with no party in it.
    """
    if name not in CALCULATORS:
        raise KeyError(f"no calculator named '{name}'")
    calculator = CALCULATORS[name]
    result = handle(name, {}, base)
    if not result["ok"]:
        raise ValueError(f"the default inputs of '{name}' do not compute: {result}")
    title = escape(calculator.title)
    # The Copy link button beside the widget's own heading; without one (the page's
    # heading names it), under the form.
    tools = "" if embedded else CALCULATOR_TOOLS
    if titled or embedded:
        opening = f'aria-labelledby="{name}-title"><h2 id="{name}-title">{title}</h2>{tools}'
        form = render_form(name)
    else:
        opening = f'aria-label="{title}">'
        form = render_form(name) + tools
    party = "" if embedded else _PARTY_NOTES.get(name, "")
    return (
        f'<section class="calc" data-calculator="{name}" {opening}'
        f"{party}{form}"
        # One line on a phone, as each line the widget's code says there while Python
        # loads (calculator-status.mjs): the answer under it never moves as the status changes.
        # Until that code has run, it says what the answer shows: the build's figures, or,
        # beside an address's other inputs, which hides them (calculator-boot.js), that
        # Python loads (calculators.css shows the one that is true).
        f'<p class="calc-status" role="status"><span class="calc-status-text">'
        f'<span class="calc-status-built">Computed when the site was built.</span>'
        f'<span class="calc-status-unasked">{escape(LOADING)}</span></span>'
        f'<span class="calc-announce"></span></p>'
        # How far Python's download (or a long answer) has got, for screen readers: the
        # answer's note says it on screen, ten times a second, which a live region would say
        # each time (calculator-client.mjs names and shows it, calculator-widget.mjs too).
        '<progress class="calc-progress" hidden></progress>'
        # Marked as the build's answer (calculators.css says so) until Python's replaces it.
        f'<div class="calc-result calc-result--built" id="{name}-result">{result["html"]}</div>'
        "</section>"
    )


class _FormDefaults(HTMLParser):
    """Each control's value as built in a page's widgets (`section.calc`), by name, as
    calculator-form.mjs's initialValue() reads it: a box "on" if ticked else "", a
    choice its selected option (else its first), any other input its value. A name two
    controls give different values is None: no address value is that name's default."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str | None] = {}
        self._depth = 0  # within a widget: the sections open since its own
        self._select: str | None = None
        self._chosen: str | None = None
        self._first: str | None = None

    def _set(self, name: str, value: str) -> None:
        self.values[name] = value if self.values.get(name, value) == value else None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        if tag == "section" and (self._depth or "calc" in found.get("class", "").split()):
            self._depth += 1
        if not self._depth:
            return
        if tag == "input" and "name" in found:
            ticked = "on" if "checked" in found else ""
            box = found.get("type") == "checkbox"
            self._set(found["name"], ticked if box else found.get("value", ""))
        elif tag == "select" and "name" in found:
            self._select, self._chosen, self._first = found["name"], None, None
        elif tag == "option" and self._select is not None:
            value = found.get("value", "")
            if self._first is None:
                self._first = value
            if "selected" in found and self._chosen is None:
                self._chosen = value

    def handle_endtag(self, tag: str) -> None:
        if tag == "section" and self._depth:
            self._depth -= 1
        elif tag == "select" and self._select is not None:
            chosen = self._chosen if self._chosen is not None else self._first
            self._set(self._select, chosen or "")
            self._select = None


def form_defaults(html: str) -> dict[str, str | None]:
    """The values of the controls of a page's widgets as built (see _FormDefaults)."""
    parser = _FormDefaults()
    parser.feed(html)
    parser.close()
    return parser.values


def add_page_assets(html: str, base: str, bundle: str) -> str:
    """On a page with a calculator, start its worker from the head, before all but the
    character set, and link the calculators' styles there; on a comparison page or a GM
    screen, link its styles. No other page loads them. Each widget names the build's
    Pyodide bundle (served under assets/pyodide/<bundle>/): instant navigation brings the
    page's body, not its head."""
    styles = []
    tag = ""
    if WIDGET in html:
        styles.append("calculators.css")
        # The boot script tells an address of the page's own inputs (its defaults), whose
        # built answer stays readable, from one of other inputs, before the first paint,
        # and names the page's calculators, whose modules Python imports once started.
        defaults = escape(json.dumps(form_defaults(html), separators=(",", ":")))
        names = escape(json.dumps(_WIDGET.findall(html), separators=(",", ":")))
        tag = (
            f'<script src="{base}assets/javascripts/calculator-boot.js" '
            f'data-bundle="{bundle}" data-defaults="{defaults}" data-calculators="{names}">'
            "</script>"
        )
        html = html.replace(WIDGET, f'{WIDGET} data-bundle="{bundle}"')
        # Its title is marked for less air under it (calculators.css), known as the title
        # is read: a rule asking whether a calculator follows would hold only once the
        # page has arrived that far, and on a slow network the page would jump up.
        html = _TITLE.sub(r'\1 class="calc-page-title"', html, count=1)
    if 'class="compare"' in html:  # with its own numbers or not: its columns, its tabs
        styles.append("compare.css")
    if 'class="gm-screen"' in html:  # its three printed panels
        styles.append("gm-screen.css")
    if not styles:
        return html
    links = "".join(
        f'<link rel="stylesheet" href="{base}assets/stylesheets/{name}">' for name in styles
    )
    # First in the head, but after the character set, which must be within its first 1024
    # bytes (the boot script's defaults are long).
    charset = _CHARSET.search(html)
    if charset:
        html = html[: charset.end()] + tag + html[charset.end() :]
    else:
        html = html.replace("<head>", f"<head>{tag}", 1)
    return html.replace("</head>", f"{links}</head>", 1)


def expand_calculators(markdown: str, base: str) -> str:
    """Replace each `[[calculator:NAME]]` paragraph of a page with its widget."""
    lines = markdown.split("\n")
    tokens = _markdown.parse(markdown)
    page_title = next(
        (tokens[i + 1].content.strip() for i, t in enumerate(tokens) if t.tag == "h1"), None
    )
    for index, token in enumerate(tokens):
        if token.type != "paragraph_open" or token.map is None:
            continue
        match = PLACEHOLDER.match(tokens[index + 1].content.strip())
        if match:
            name = match.group(1)
            titled = name not in CALCULATORS or CALCULATORS[name].title != page_title
            lines[token.map[0]] = render_calculator(name, base, titled)
    return "\n".join(lines)
