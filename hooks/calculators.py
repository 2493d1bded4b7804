"""Calculator widgets: the form, rendered from the core's field specs, and a result
computed at build time by the same `rules_core.web.handle` the browser runs.

A page asks for a calculator with a paragraph holding only `[[calculator:NAME]]`.
"""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt

from rules_core.systems import get_system, system_slugs
from rules_core.web import CALCULATORS, Calculator, Field, handle, situation_choices

PLACEHOLDER = re.compile(r"^\[\[calculator:([a-z]+)\]\]$")
_markdown = MarkdownIt("commonmark")


def default_system(calculator: Calculator) -> str:
    """The system the form shows before anyone chooses one."""
    system = next((f for f in calculator.fields if f.kind == "system"), None)
    return system.default if system is not None else system_slugs()[0]


def _attributes(calculator: Calculator, field: Field) -> str:
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
    described = f'aria-describedby="{ident}-error{" " + ident + "-hint" if field.hint else ""}"'
    common = f'id="{ident}" name="{field.name}" {described}'
    if field.kind in ("system", "choice"):
        options = []
        for value, label in field.choices:
            if field.kind == "system":
                label = get_system(value).title
            selected = " selected" if value == field.default else ""
            options.append(f'<option value="{escape(value)}"{selected}>{escape(label)}</option>')
        return f"<select {common}>{''.join(options)}</select>"
    if field.kind == "check":
        checked = " checked" if field.default == "on" else ""
        return f'<input type="checkbox" {common}{checked}>'
    if field.kind == "situations":
        boxes = []
        for system, choices in situation_choices(field.source).items():
            for value, label in choices:
                box_id = escape(f"{ident}-{system}-{value}")
                shown = system == default_system(CALCULATORS[calculator])
                boxes.append(
                    f'<label class="calc-check" for="{box_id}" data-systems="{escape(system)}"'
                    f"{'' if shown else ' hidden'}>"
                    f'<input type="checkbox" id="{box_id}" data-situation="{escape(value)}"> '
                    f"{escape(label)}</label>"
                )
        hidden = f'<input type="hidden" {common} value="">'
        return hidden + "".join(boxes)
    if field.kind == "int":
        bounds = ""
        if field.minimum is not None:
            bounds = f' min="{field.minimum}" max="{field.maximum}"'
        # A phone's digit pad has no minus or plus sign: only counts get it.
        digits = ' inputmode="numeric"' if (field.minimum or 0) >= 0 else ""
        return (
            f'<input type="text"{digits} autocomplete="off" {common}{bounds} '
            f'value="{escape(field.default)}">'
        )
    return (
        f'<input type="text" autocomplete="off" spellcheck="false" {common} '
        f'value="{escape(field.default)}">'
    )


def render_form(name: str) -> str:
    calculator = CALCULATORS[name]
    parts, more = [], []
    for field in calculator.fields:
        ident = f"{name}-{field.name}"
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
        control = _control(name, field)
        if field.kind == "check":
            control = (
                f'<label class="calc-check" for="{ident}">{control} {escape(field.label)}</label>'
            )
        if field.name == "rolled":
            control = (
                '<button type="button" class="md-button md-button--primary calc-roll">Roll</button>'
            )
        error = f'<span class="calc-error" id="{ident}-error" role="alert"></span>'
        block = f"<div {_attributes(calculator, field)}>{label}{control}{hint}{error}</div>"
        (more if field.more else parts).append(block)
    if more:
        parts.append(
            f'<details class="calc-more"><summary>More options</summary>{"".join(more)}</details>'
        )
    return f'<form class="calc-form" novalidate>{"".join(parts)}</form>'


def render_calculator(name: str, base: str) -> str:
    """The whole widget as one block of HTML (no blank lines, so Markdown keeps it raw)."""
    if name not in CALCULATORS:
        raise KeyError(f"no calculator named '{name}'")
    calculator = CALCULATORS[name]
    result = handle(name, {}, base)
    if not result["ok"]:
        raise ValueError(f"the default inputs of '{name}' do not compute: {result}")
    return (
        f'<section class="calc" data-calculator="{name}" aria-labelledby="{name}-title">'
        f'<h2 id="{name}-title">{escape(calculator.title)}</h2>'
        f"{render_form(name)}"
        f'<p class="calc-status" role="status"><span class="calc-status-text">'
        f"Results for the default inputs, computed when the site was built.</span></p>"
        f'<div class="calc-result" id="{name}-result" aria-live="polite">{result["html"]}</div>'
        "</section>"
    )


def add_worker_boot(html: str, base: str) -> str:
    """On a page with a calculator, start its worker from the head, before anything else,
    and link the calculators' styles there (no other page loads them)."""
    if '<section class="calc"' not in html:
        return html
    styles = ["calculators.css"] + (["compare.css"] if 'class="compare"' in html else [])
    links = "".join(
        f'<link rel="stylesheet" href="{base}assets/stylesheets/{name}">' for name in styles
    )
    tag = f'<script src="{base}assets/javascripts/calculator-boot.js"></script>'
    return html.replace("<head>", f"<head>{tag}", 1).replace("</head>", f"{links}</head>", 1)


def expand_calculators(markdown: str, base: str) -> str:
    """Replace each `[[calculator:NAME]]` paragraph of a page with its widget."""
    lines = markdown.split("\n")
    tokens = _markdown.parse(markdown)
    for index, token in enumerate(tokens):
        if token.type != "paragraph_open" or token.map is None:
            continue
        match = PLACEHOLDER.match(tokens[index + 1].content.strip())
        if match:
            lines[token.map[0]] = render_calculator(match.group(1), base)
    return "\n".join(lines)
