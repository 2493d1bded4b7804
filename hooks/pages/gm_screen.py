"""A printable GM screen per system: what a referee looks up at the table, on one page.

Made from the system's data alone: the rolls, difficulties, attack situations with their
effects and dying rule of its compiled rules.yml, the conditions and actions of its
glossary, and every one of its tables (drawn by the rules pages' own table renderer).
A part the data lacks is left out, heading and all, so a new system gets its screen with
no code. Every entry links the section of the rules page it comes from; a row of links at
the top leads to each part, and each table is titled by a heading of its own.

Content is text: each string is escaped for both HTML and Markdown before it is written,
so nothing a content file holds becomes markup here (the sanitizer stays the guarantee).
The page is printed from docs/assets/stylesheets/gm-screen.css: three panels a sheet,
landscape, on A4 or Letter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from html import escape
from typing import Any

from hooks.content.loader import Heading, Page, System, table_placeholders
from hooks.pages.tables import check_table, render_table
from rules_core.citations import Citation
from rules_core.mechanics.situations import ROLL_MODES, describe_effects
from rules_core.rules.attack import Attack, Effect, Naturals, Situation
from rules_core.rules.checks import Checks, Difficulties, Saves
from rules_core.rules.dying import Dying
from rules_core.rules.not_defined import unsaid_rules

PAGE = "gm-screen"  # each system's screen: <slug>/gm-screen.md
TITLE = "GM screen"
# Every system's screen, from the menu's top level and the home page: gm-screens.md.
INDEX_PAGE = "gm-screens"
INDEX_TITLE = "GM screens"

# Python-Markdown's backslash escapes, with `|` (a table cell) and `{` (attr_list).
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|])")


def text(value: Any) -> str:
    """A content string as inert Markdown: whitespace collapsed, HTML then Markdown escaped."""
    plain = " ".join(str(value).split())
    return _MARKDOWN_SPECIAL.sub(r"\\\1", escape(plain, quote=False))


def _cite_link(citation: Citation | Mapping[str, str]) -> tuple[str, str]:
    """A citation (a typed section's, or a compiled {page, section, url: "slug/page/#said-..."})
    as a label and a link to its sentence from the screen, which sits among the system's
    rules pages."""
    if not isinstance(citation, Citation):
        citation = Citation(citation["page"], citation["section"], citation["url"], "")
    page_path, _, anchor = citation.url.partition("#")
    page_name = page_path.strip("/").split("/")[-1]
    target = f"{page_name}.md" + (f"#{anchor}" if anchor else "")
    label = citation.page
    if citation.section != citation.page:
        label += f" \u203a {citation.section}"
    return text(label), target


def _cited(citations: Iterable[Citation | Mapping[str, str]] | None) -> str:
    # A section cited for two sentences is named once, linked to the first.
    links: dict[str, str] = {}
    for cited in citations or ():
        # A typed rule's Citation, or a `cite` entry read as data (a glossary term's).
        label, target = _cite_link(cited.to_json() if isinstance(cited, Citation) else cited)
        links.setdefault(label, target)
    joined = " · ".join(f"[{label}]({target})" for label, target in links.items())
    return f' <span class="gm-cite">{joined}</span>' if links else ""


def _entry(label: str, body: str, citations: Iterable[Citation | Mapping[str, str]] | None) -> str:
    """One list item: the label in bold, what it says, where the text says it. `label` and
    `body` are already escaped."""
    said = f": {body}" if body else ""
    return f"- **{label}**{said}{_cited(citations)}"


def _section(title: str, anchor: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    return [
        '<section class="gm-part" markdown="1">',
        "",
        f"## {title} {{#{anchor}}}",
        "",
        *lines,
        "",
        "</section>",
        "",
    ]


# --------------------------------------------------------------------------- the rolls


def _naturals(label: str, rule: Naturals | None) -> list[str]:
    if rule is None:
        return []
    numbers = ", ".join(str(number) for number in rule.naturals)
    return [_entry(label, f"natural {text(numbers)}", rule.cite)]


def _attack_rolls(attack: Attack) -> list[str]:
    lines = [_entry("Attack roll", text(attack.roll), attack.cite)]
    lines += _naturals("Always hits", attack.always_hit)
    lines += _naturals("Always misses", attack.always_miss)
    critical = attack.critical
    said = f"natural {critical.from_}" + ("" if critical.from_ >= _top(attack) else "+")
    if critical.requires_hit:
        said += ", if it would hit anyway"
    lines.append(_entry("Critical hit", text(said), critical.cite))
    lines += _naturals("Critical miss", attack.crit_fail)
    if attack.escalation:
        escalation = attack.escalation
        lines.append(_entry("Escalation die", text(f"up to +{escalation.max}"), escalation.cite))
    if attack.advantage:
        advantage = attack.advantage
        said = f"advantage {advantage.advantage}, disadvantage {advantage.disadvantage}. "
        lines.append(_entry("Advantage", text(said + advantage.both), advantage.cite))
    return lines


def _rolls(rules: Mapping[str, Any], attack: Attack | None) -> list[str]:
    lines = _attack_rolls(attack) if attack else []
    for roll in _roll_sections(rules):
        said = roll.roll
        target = roll.target if isinstance(roll, Saves) else None
        if target is not None:
            said += f", {target} or more succeeds"
        lines.append(_entry(text(roll.label), text(said), roll.cite))
        repeat = roll.repeat if isinstance(roll, Saves) else None
        if repeat:
            lines.append(_entry(text(repeat.label), "a save at the end of each turn", repeat.cite))
    return lines


def _top(attack: Attack) -> int:
    """The highest natural of the attack roll's die ("1d20" -> 20, "3d6" -> 18)."""
    match = re.fullmatch(r"(\d+)d(\d+)", attack.roll.strip())
    return int(match[1]) * int(match[2]) if match else 0


# --------------------------------------------------------------------------- difficulties


def _difficulty_rows(difficulties: Difficulties) -> list[tuple[str, str]]:
    rows = []
    for row in difficulties.named():
        label = row.label
        if row.levels:
            low, high = row.levels
            label += f" (levels {low}\u2013{high})"
        rows.append((label, str(row.value)))
    return rows


def _roll_sections(rules: Mapping[str, Any]) -> list[Checks | Saves]:
    """The checks and saves sections the system has, typed."""
    sections: list[Checks | Saves] = []
    if rules.get("checks"):
        sections.append(Checks.of(rules["checks"]))
    if rules.get("saves"):
        sections.append(Saves.of(rules["saves"]))
    return sections


def _difficulties(rules: Mapping[str, Any]) -> list[str]:
    lines = []
    for roll in _roll_sections(rules):
        difficulties = roll.difficulties
        if not difficulties:
            continue
        rows = _difficulty_rows(difficulties)
        listed = "; ".join(f"{text(label)} **{text(value)}**" for label, value in rows)
        lines.append(_entry(text(roll.label), listed, difficulties.cite))
    missing = unsaid_rules(rules.get("not_defined") or {}).get("difficulties")
    if not lines and missing:
        lines.append(_entry("Difficulties", text(missing.note), missing.cite))
    return lines


# --------------------------------------------------------------------------- situations


def _names(names: Iterable[str], situations: Mapping[str, Situation]) -> str:
    """Situation keys as their labels; attack types and other names as written."""
    return ", ".join(situations[name].label if name in situations else name for name in names)


def _effects(effect: Effect, situations: Mapping[str, Situation], critical_from: int) -> list[str]:
    """What a situation (or one of its `when` cases) does, in words: the roll mode, then
    the words the answers' why uses (rules_core.mechanics.situations.describe_effects)."""
    said = [
        kind if count == 1 else f"{count} {kind}"
        for kind in ROLL_MODES
        if (count := getattr(effect, kind))
    ]
    said += describe_effects(effect, lambda name: _names([name], situations), critical_from)
    filters = []
    if effect.attack_types:
        filters.append(f"{_names(effect.attack_types, situations)} attacks only")
    if effect.if_:
        filters.append(f"only with {_names(effect.if_, situations)}")
    if effect.unless:
        filters.append(f"not with {_names(effect.unless, situations)}")
    if said and filters:
        said[-1] += f" ({'; '.join(filters)})"
    return said


def _situations(attack: Attack | None) -> list[str]:
    if attack is None:
        return []
    lines = []
    for situation in attack.situations.values():
        said = [
            words
            for effect in situation.effects
            for words in _effects(effect, attack.situations, attack.critical.from_)
        ]
        if said and situation.attack_type:
            said[-1] += f" ({situation.attack_type} attack)"
        if not said:
            continue  # a fact other situations test (e.g. adjacent), with no effect itself
        lines.append(_entry(text(situation.label), text("; ".join(said)), situation.cite))
    return lines


# --------------------------------------------------------------------------- glossary kinds


def _glossary(system: System, kind: str) -> list[str]:
    lines = []
    for entry in sorted(
        (entry for entry in system.glossary if entry.kind == kind),
        key=lambda entry: entry.term.casefold(),
    ):
        page = system.pages[entry.see_page]
        section = next(
            (heading.text for heading in page.headings if heading.anchor == entry.see_anchor),
            page.title,
        )
        citation = {
            "page": page.title,
            "section": section,
            "url": f"{system.slug}/{entry.see_page}/"
            + (f"#{entry.see_anchor}" if entry.see_anchor else ""),
        }
        lines.append(_entry(text(entry.term), text(entry.definition), [citation]))
    return lines


# --------------------------------------------------------------------------- dying


def _dying(rules: Mapping[str, Any]) -> list[str]:
    if not rules.get("dying"):
        return []
    dying = Dying.of(rules["dying"])
    lines = [
        _entry(
            text(dying.label),
            text(f"{dying.roll}, {dying.target} or more succeeds"),
            dying.cite,
        )
    ]
    failures = dying.failures
    lines.append(_entry("Failures", text(f"{failures.count}: dead"), failures.cite))
    successes = dying.successes
    if successes:
        said = f"{successes.count}: {successes.result} ({successes.label})"
        lines.append(_entry("Successes", text(said), successes.cite))
    for special in dying.special:
        if special.naturals:
            when = f"natural {', '.join(str(number) for number in special.naturals)}"
        elif special.natural_from is not None:
            when = f"natural {special.natural_from}+"
        elif special.total_from is not None:
            when = f"total {special.total_from}+"
        else:
            when = "special"
        lines.append(_entry(text(when.capitalize()), text(special.label), special.cite))
    first = dying.first_save
    options = dying.options
    if first:
        option = options.get(first.option)
        dice = "disadvantage" if first.disadvantage else "advantage"
        said = f"{option.label if option else first.option}: the first save has {dice}"
        lines.append(_entry("First save", text(said), first.cite))
    for name, option in options.items():
        if first and name == first.option:
            continue
        lines.append(_entry(text(option.label), text(option.note or ""), option.cite))
    return lines


# --------------------------------------------------------------------------- tables


def _section_of(page: Page, line: int) -> Heading | None:
    """The heading a line of the page sits under (None before the first)."""
    above = [heading for heading in page.headings if heading.line <= line]
    return above[-1] if above else None


def _tables(system: System) -> list[str]:
    """Every table of the system, as its rules page draws it, with the page it is on.

    Each is titled by a heading of its own: its title, or for a table printed without one
    the heading of the section it sits under on its page (which names it there)."""
    lines = []
    for page in system.pages.values():
        for name, line in table_placeholders(page):
            table = system.tables[name]
            heading = _section_of(page, line)
            section = heading.text if heading else page.title
            citation = {
                "page": page.title,
                "section": table.title or section,
                "url": f"{system.slug}/{page.name}/#table-{name}",
            }
            label, target = _cite_link(citation)
            lines += [
                '<div class="gm-table" markdown="1">',
                "",
                f"### {text(table.title or section)} {{#gm-table-{name}}}",
                "",
                # The heading above is the title: the rules page's own would repeat it.
                render_table(replace(table, title=""), check_table(table)),
                f'<p class="gm-cite" markdown="1">[{label}]({target})</p>',
                "",
                "</div>",
                "",
            ]
    return lines


def _jump_list(parts: list[tuple[str, str]]) -> list[str]:
    """Links to the screen's parts, at its top: on a phone the screen is one long column
    and Material's table of contents is out of reach in the drawer. Material's back-to-top
    button (navigation.top), shown as the reader scrolls back up, brings them here again.
    A div in the navigation role: the content allow-list (hooks/postprocess/sanitize.py)
    has no <nav>. Left out of search (Pagefind's index, Material's): its words are the
    parts' headings, already indexed where they stand."""
    links = "".join(f'<li><a href="#{anchor}">{escape(title)}</a></li>' for title, anchor in parts)
    return [
        '<div class="gm-jump" role="navigation" aria-label="Parts of this screen" '
        f'data-pagefind-ignore="" data-search-exclude=""><ul>{links}</ul></div>',
        "",
    ]


# --------------------------------------------------------------------------- the page


def render_gm_screen(
    system: System, compiled: dict[str, Any], front_matter: str, system_line: str
) -> str:
    """The system's GM screen as Markdown; `compiled` is its compile_system() result,
    `front_matter` and `system_line` those of its other pages (hooks/pages/site.py)."""
    rules = compiled.get("rules") or {}
    attack = Attack.of(rules["attack"]) if rules.get("attack") else None
    parts = [
        ("Rolls", "gm-rolls", _rolls(rules, attack)),
        ("Difficulties", "gm-difficulties", _difficulties(rules)),
        ("Attack situations", "gm-situations", _situations(attack)),
        ("Conditions", "gm-conditions", _glossary(system, "condition")),
        ("Death and dying", "gm-dying", _dying(rules)),
        ("Actions", "gm-actions", _glossary(system, "action")),
        ("Tables", "gm-tables", _tables(system)),
    ]
    shown = [(title, anchor) for title, anchor, entries in parts if entries]
    lines = [
        front_matter.rstrip("\n").removesuffix("---") + "hide:\n  - navigation\n  - toc\n---",
        "",
        f"# {TITLE}",
        "",
        system_line,
        "",
        "What a referee looks up during play, from this text's rules, each entry linked to "
        "the section it comes from. Print it landscape, on A4 or Letter: three panels a sheet.",
        '{: .gm-intro data-search-exclude="" }',
        "",
        *_jump_list(shown),
        '<div class="gm-screen" markdown="1">',
        "",
    ]
    for title, anchor, entries in parts:
        lines += _section(title, anchor, entries)
    lines += ["</div>", ""]
    return "\n".join(lines)


def render_gm_screens(titles: Mapping[str, str]) -> str:
    """The page of every system's screen (`titles`: slug -> the system's title), in the
    order of content/systems.yml: one tap from the menu's top level to a system's screen."""
    lines = [
        f"# {INDEX_TITLE}",
        "",
        "What a referee looks up during play, one page per system: its rolls, difficulties, "
        "attack situations, conditions, actions, dying rule and tables, each entry linked to "
        "the section of the rules it comes from. Print one landscape, on A4 or Letter: "
        "three panels a sheet.",
        "",
    ]
    lines += [f"- [{text(title)}]({slug}/{PAGE}.md)" for slug, title in titles.items()]
    return "\n".join([*lines, ""])
