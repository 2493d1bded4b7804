"""Comparison pages: one rule of every system side by side, quoted from the content.

`content/compare.yml` maps each concept to passages (a section and a quote) per system.
Every quote must stand, word for word, in the section it cites; every answer a page
shows is computed by the rules core for each system with the same inputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from hooks.content.loader import System, resolve_target, target_hint
from hooks.content.quotes import normalise, quote_problem, sentence_id
from hooks.content.yaml_lines import (
    ContentError,
    LineDict,
    LineList,
    did_you_mean,
    line_of,
    load_yaml,
    one_of,
)
from hooks.pages.calculators import COPY_LINK
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import calculator_markdown_address
from rules_core.web import handle


@dataclass(frozen=True)
class Passage:
    system: str
    page: str
    anchor: str | None
    quote: str


@dataclass(frozen=True)
class Concept:
    slug: str
    title: str
    summary: str
    calculator: str | None
    inputs: dict[str, str]
    passages: dict[str, list[Passage]]  # system slug -> passages (empty: the text is silent)


def load_compare(path: Path, systems: dict[str, System]) -> list[Concept]:
    data = load_yaml(path)
    if not isinstance(data, LineDict) or set(data) != {"concepts"}:
        raise ContentError(
            path,
            line_of(data),
            "compare.yml holds one key, 'concepts': put every concept in the list under it",
        )
    concepts: list[Concept] = []
    seen: set[str] = set()
    for raw in data["concepts"]:
        if not isinstance(raw, LineDict):
            raise ContentError(
                path,
                line_of(raw),
                "each concept is a mapping: '- slug: ...' followed by title, summary, systems",
            )
        allowed = ("slug", "title", "summary", "calculator", "systems")
        for key in raw:
            if key not in allowed:
                raise ContentError(
                    path,
                    raw.line_of(key),
                    f"unknown key '{key}' in a concept" + one_of(key, "allowed", allowed),
                )
        for key in ("slug", "title", "summary", "systems"):
            if key not in raw:
                raise ContentError(
                    path, raw.line, f"a concept is missing the key '{key}': add a '{key}:' line"
                )
        slug = str(raw["slug"])
        if slug in seen or not re.fullmatch(r"[a-z0-9-]+", slug):
            raise ContentError(
                path,
                raw.line_of("slug"),
                f"'{slug}' is not a new kebab-case slug: use lower-case letters, digits and "
                "hyphens, and a slug no other concept has",
            )
        seen.add(slug)
        calculator, inputs = _calculator(raw, path)
        listed = raw["systems"]
        if not isinstance(listed, LineDict) or set(listed) != set(systems):
            given = set(listed) if isinstance(listed, LineDict) else set()
            missing = [slug_of for slug_of in systems if slug_of not in given]
            extra = sorted(str(slug_of) for slug_of in given - set(systems))
            problems = [f"missing: {', '.join(missing)}"] if missing else []
            if extra:
                problems.append(f"not a system: {', '.join(extra)}")
            detail = "; ".join(problems)
            raise ContentError(
                path,
                raw.line_of("systems"),
                f"list every system: {', '.join(systems)} ({detail}); "
                "give [] for a system whose text is silent",
            )
        passages = {
            slug_of: _passages(path, systems[slug_of], listed[slug_of]) for slug_of in systems
        }
        concepts.append(
            Concept(slug, str(raw["title"]), str(raw["summary"]), calculator, inputs, passages)
        )
    return concepts


# The calculators a concept may ask (registry names): the page knows how to show their
# answers, the attack's as a form of the reader's own numbers, the damage's as its range.
COMPARED = ("attack", "damage")


def _calculator(raw: LineDict, path: Path) -> tuple[str | None, dict[str, str]]:
    if "calculator" not in raw:
        return None, {}
    spec = raw["calculator"]
    if not isinstance(spec, LineDict) or spec.get("name") not in COMPARED:
        named = " or ".join(f"'{name}'" for name in COMPARED)
        name = spec.get("name") if isinstance(spec, LineDict) else None
        raise ContentError(
            path,
            spec.line_of("name") if isinstance(spec, LineDict) else raw.line_of("calculator"),
            f"calculator.name must be {named}" + did_you_mean(name, COMPARED),
        )
    inputs = {str(key): str(value) for key, value in (spec.get("inputs") or {}).items()}
    fields = [field.name for field in CALCULATORS[spec["name"]].fields if field.name != "system"]
    for key in inputs:
        if key not in fields:
            raise ContentError(
                path,
                spec.line,
                f"the {spec['name']} calculator has no input '{key}' (inputs: {', '.join(fields)};"
                " the page sets 'system' itself)" + did_you_mean(key, fields),
            )
    return str(spec["name"]), inputs


def _passages(path: Path, system: System, raw: object) -> list[Passage]:
    if not isinstance(raw, LineList):
        raise ContentError(
            path,
            line_of(raw),
            f"{system.slug}: a list of passages ('- see: page#anchor' with 'quote: ...'), "
            "or [] where the text is silent",
        )
    passages = []
    for item, line in zip(raw, raw.item_lines, strict=True):
        if not isinstance(item, LineDict) or set(item) != {"see", "quote"}:
            raise ContentError(
                path,
                line,
                "a passage has exactly 'see' and 'quote' (no other keys, neither left out)",
            )
        target = resolve_target(system, str(item["see"]))
        if target is None:
            raise ContentError(
                path,
                line,
                f"'{item['see']}' is no section of {system.slug}"
                + target_hint(system, str(item["see"])),
            )
        page, anchor = target
        quote = normalise(str(item["quote"]))
        problem = quote_problem(system, page, anchor, quote)
        if problem:
            raise ContentError(
                path,
                item.line_of("quote"),
                f"the quote is not in {system.slug}/{item['see']}: {problem}",
            )
        passages.append(Passage(system.slug, page, anchor, quote))
    return passages


# ------------------------------------------------------------------------- rendering


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _escape_markdown(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


# The attack a Compare page asks when its concept names no number of its own.
_ATTACK_NUMBERS = {"bonus": "6", "defense": "16", "damage": ""}
# The attack calculator's fields the reader types here, in the page's words (one label
# names every defense, where the calculator's form has a hint for it) with their example;
# each box is its field's kind, so it is laid out as the calculator lays it out
# (calculators.css: numbers two to a row on a phone, the dice across the row).
_ATTACK_FORM = {
    "bonus": ("Attack bonus", "e.g. +7"),
    "defense": ("Defense or AC", "e.g. 18"),
    "damage": ("Damage roll (optional)", "e.g. 2d8+4"),
}


def _result(concept: Concept, system: System) -> Mapping[str, Any]:
    """The concept's question put to the system's calculator."""
    # Odds only: no default damage roll, whose rules would only add noise here.
    defaults = {"damage": ""} if concept.calculator == "attack" else {}
    inputs = {**defaults, **concept.inputs, "system": system.slug}
    result = handle(str(concept.calculator), inputs, "../../")
    if not result["ok"]:
        raise ContentError(
            "content/compare.yml",
            None,
            f"{concept.slug}: the {concept.calculator} calculator refuses the inputs for "
            f"{system.slug}: {result['errors']}; fix the concept's calculator.inputs",
        )
    return result


def _answer(concept: Concept, system: System, result: Mapping[str, Any]) -> list[str]:
    """Under a system's quotes: the calculator's answer (the attack's stands in the form's
    table of answers instead), its interpretations, and a link to the calculator."""
    inputs = {"system": system.slug, **concept.inputs}
    link = calculator_markdown_address(str(concept.calculator), inputs, "../")
    data = result.get("data")
    lines = ["---", ""]
    if concept.calculator == "damage":
        if data is None:  # the system's text has no such rule, and the answer says so
            lines += [_escape_markdown(result["message"]), ""]
        else:
            lines += [f"- Range: {data['min']} to {data['max']}", f"- Mean: {data['mean']}", ""]
    # As the calculator shows them; on an attack, the reader's numbers replace them live
    # (compare-widget.mjs finds them by their system).
    for note in (data or {}).get("interpretations", []):
        lines += [
            f"**Interpretation:** {_escape_markdown(note)}",
            f'{{: .calc-interpretation data-system="{system.slug}" }}',
            "",
        ]
    return [*lines, f"[Open in the calculator]({link})", ""]


def _short_answer(result: Mapping[str, Any]) -> str:
    """The attack calculator's short answer (its summary, which every answer has: one from
    a system that lacks the rule says so), as the live page shows it."""
    return escape(result["summary"])


def _sizer(systems: dict[str, System]) -> str:
    """Every system's name in the first row, unseen and unread (compare.css): the names'
    column is as wide as its longest word from the first row on. Sized by the rows as they
    came, it widened as a longer name arrived on a slow network, and the answers moved."""
    names = " ".join(escape(system.short_title) for system in systems.values())
    return f'<span class="compare-sizer" aria-hidden="true">{names}</span>'


def _live_form(
    concept: Concept, systems: dict[str, System], results: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """The reader's own attack, answered for every system as they type: one table under
    the form, so a phone shows every system's answer beside the numbers."""
    values = {**_ATTACK_NUMBERS, **concept.inputs}
    fields = {field.name: field for field in CALCULATORS["attack"].fields}
    parts = []
    for name, (label, hint) in _ATTACK_FORM.items():
        ident = f"compare-{name}"
        parts.append(
            f'<div class="calc-field calc-field--{fields[name].kind}"><label class="calc-label" '
            f'for="{ident}">{label}</label><input type="text" id="{ident}" name="{name}" '
            f'autocomplete="off" spellcheck="false" inputmode="text" placeholder="{hint}" '
            f'value="{escape(values[name])}" aria-describedby="{ident}-error">'
            f'<span class="calc-error" id="{ident}-error"></span></div>'
        )
    for name, value in concept.inputs.items():
        if name not in _ATTACK_FORM:
            parts.append(f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">')
    # Each answer cell is refilled live (compare-widget.mjs) with the same short answer.
    rows = "".join(
        f'<tr><th scope="row">{escape(system.short_title)}{_sizer(systems) if row == 0 else ""}'
        f'</th><td class="compare-answer" data-system="{escape(slug)}">'
        f"{_short_answer(results[slug])}</td></tr>"
        for row, (slug, system) in enumerate(systems.items())
    )
    return [
        '<section class="calc" data-compare="attack" aria-labelledby="compare-title">'
        f'<h2 id="compare-title">Your numbers</h2>{COPY_LINK}'
        f'<form class="calc-form" novalidate>{"".join(parts)}</form>'
        f'<table class="compare-answers"><tbody>{rows}</tbody></table>'
        '<p class="calc-status" role="status"><span class="calc-status-text"></span></p>'
        "</section>",
        "",
    ]


def render_concept(concept: Concept, systems: dict[str, System]) -> str:
    # The four columns need the width: no side navigation or table of contents here.
    front = ["---", "tags:", '  - "Compare"', "hide:", "  - navigation", "  - toc", "---"]
    lines = [*front, "", f"# {escape(concept.title)}", ""]
    questioned = systems if concept.calculator else {}
    results = {slug: _result(concept, system) for slug, system in questioned.items()}
    if concept.calculator == "attack":
        # The reader's own numbers first, so a phone shows the form and every answer on
        # one screen; what sets the systems apart comes after, above their quotes.
        lines += [f"*{_question(concept)}*", "", *_live_form(concept, systems, results)]
        lines += [concept.summary, ""]
    else:
        lines += [concept.summary, ""]
        if concept.calculator:
            lines += [f"*{_question(concept)}*", ""]
    lines += ['<div class="compare" markdown>', ""]
    for slug, system in systems.items():
        body = [f"**{escape(system.title)}**", "{: .compare-system }", ""]
        passages = concept.passages[slug]
        if not passages:
            body += ["*This text has no rule on this.*", ""]
        for passage in passages:
            page = system.pages[passage.page]
            heading = next(
                (h.text for h in page.headings if h.anchor == passage.anchor), page.title
            )
            # The link goes to the sentence itself (hooks/pages/sentences.py marks it).
            body += [
                f"> {_escape_markdown(passage.quote)}",
                "",
                f"— [{escape(page.title)} › {escape(heading)}]"
                f"(../{slug}/{passage.page}.md#{sentence_id(passage.quote)})",
                "",
            ]
        if concept.calculator:
            body += _answer(concept, system, results[slug])
        lines += [f'=== "{escape(system.short_title)}"', ""]
        lines += [f"    {line}" if line else "" for line in body]
    lines += ["</div>", ""]
    return "\n".join(lines)


def _question(concept: Concept) -> str:
    values = concept.inputs
    if concept.calculator == "attack":
        numbers = {**_ATTACK_NUMBERS, **values}
        bonus, defense = _typed(numbers, "bonus", signed=True), _typed(numbers, "defense")
        text = f"The same attack in each system: {bonus} against defense {defense}"
        if values.get("mode") in ("advantage", "disadvantage"):
            text += f", with {values['mode']}"
        return text + "."
    return f"The same damage roll in each system: {values.get('expression', '')}" + (
        ", a critical hit." if values.get("crit") == "on" else "."
    )


def _typed(numbers: dict[str, str], name: str, signed: bool = False) -> str:
    """A number of the question, which the reader's own replaces as they type it into the
    form's field of that name (compare-widget.mjs): the words never state numbers the answers
    under them no longer answer. A signed number (a bonus) gets its "+" when typed without."""
    value = numbers[name]
    shown = f"+{value}" if signed and value[:1].isdigit() else value
    sign = " data-signed" if signed else ""
    return f'<span data-compare-number="{escape(name)}"{sign}>{escape(shown)}</span>'


def render_index(concepts: list[Concept], also: list[tuple[str, str, str]]) -> str:
    lines = [
        "# Compare",
        "",
        "The same rule in every system, side by side: each system's own words, quoted "
        "from its text and linked to the section, and where a calculator applies, the same "
        "question answered for each.",
        "",
    ]
    lines += [
        f"- [{escape(concept.title)}]({concept.slug}.md): {concept.summary}" for concept in concepts
    ]
    lines += [
        f"- [{title}]({path.removeprefix('compare/')}): {summary}" for title, path, summary in also
    ]
    return "\n".join(lines) + "\n"


SOURCE = "content/compare.yml"  # every concept's summary and quotes: what an edit changes


def compare_source(site_path: str, concepts: list[Concept]) -> str | None:
    """The content file behind a page of the Compare section: the index and each concept's
    page are made from compare.yml (the other pages of the section, from elsewhere)."""
    made_here = {"compare/index.md", *(f"compare/{concept.slug}.md" for concept in concepts)}
    return SOURCE if site_path in made_here else None


def render_compare(
    concepts: list[Concept],
    systems: dict[str, System],
    also: Sequence[tuple[str, str, str]] = (),
) -> tuple[dict[str, str], dict[str, list[str | dict[str, str]]]]:
    """Every comparison page, keyed by its path in the site, and the Compare nav section;
    `also` lists other pages of the section, as (title, path, summary)."""
    pages = {"compare/index.md": render_index(concepts, list(also))}
    section: list[str | dict[str, str]] = ["compare/index.md"]
    for concept in concepts:
        pages[f"compare/{concept.slug}.md"] = render_concept(concept, systems)
        # Navigation titles are printed as HTML by the theme: content is text.
        section.append({escape(concept.title): f"compare/{concept.slug}.md"})
    section += [{title: path} for title, path, _ in also]
    return pages, {"Compare": section}
