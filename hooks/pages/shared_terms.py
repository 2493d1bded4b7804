"""Terms across systems: each term two or more systems' glossaries define, side by side.

Made from the glossaries alone, so a new system's terms join with no code. Each system's
Terms page links its shared terms here, and search finds each term's section ("Prone:
Orcus, Into the Unknown and 4e Core; 3d6 Combat does not define it").
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from html import escape

from hooks.content.loader import GlossaryEntry, System

PAGE = "compare/terms.md"
TITLE = "Terms across systems"
SUMMARY = "every term two or more systems define, each system's definition side by side."


@dataclass(frozen=True)
class SharedTerm:
    name: str  # as the first system (in systems.yml's order) writes it
    anchor: str  # "term-prone"
    entries: tuple[tuple[str, GlossaryEntry], ...]  # (slug, entry), in systems.yml's order


def _key(term: str) -> str:
    return " ".join(term.casefold().split())


def shared_terms(systems: dict[str, System]) -> list[SharedTerm]:
    """The terms of two or more systems' glossaries (compared without case), A to Z."""
    defined: dict[str, dict[str, GlossaryEntry]] = defaultdict(dict)
    for slug, system in systems.items():
        for entry in system.glossary:
            defined[_key(entry.term)].setdefault(slug, entry)
    shared, anchors = [], set()
    for key in sorted(defined):
        entries = defined[key]
        if len(entries) < 2:
            continue
        anchor = "term-" + (re.sub(r"[^a-z0-9]+", "-", key).strip("-") or "other")
        while anchor in anchors:
            anchor += "-"
        anchors.add(anchor)
        first = next(iter(entries.values()))
        shared.append(SharedTerm(first.term, anchor, tuple(entries.items())))
    return shared


def anchors_by_term(shared: list[SharedTerm]) -> dict[str, str]:
    """{a term as any system writes it, compared without case: its section's anchor}."""
    return {_key(term.name): term.anchor for term in shared}


def anchor_of(anchors: dict[str, str], term: str) -> str | None:
    return anchors.get(_key(term))


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def render_shared_terms(systems: dict[str, System], shared: list[SharedTerm]) -> str:
    lines = [
        f"# {TITLE}",
        "",
        "The terms that two or more systems define, each system's definition side by side "
        "and linked to the section of its text that defines it. Made from each system's "
        "glossary: the words are the glossary's, not a ruling on how the systems relate.",
        "",
    ]
    for term in shared:
        defining = [slug for slug, _ in term.entries]
        names = [escape(systems[slug].short_title) for slug in defining]
        others = [escape(s.short_title) for slug, s in systems.items() if slug not in defining]
        said = f"Defined by {_listed(names)}"
        if others:
            verb = "does" if len(others) == 1 else "do"
            said += f"; {_listed(others)} {verb} not define it"
        lines += [f"## {escape(term.name)} {{#{term.anchor}}}", "", said + ".", ""]
        for slug, entry in term.entries:
            anchor = f"#{entry.see_anchor}" if entry.see_anchor else ""
            kind = entry.kind.replace("-", " ")
            lines += [
                f"- **[{escape(systems[slug].short_title)}](../{slug}/{entry.see_page}.md"
                f"{anchor})** *{kind}*: {entry.definition}",
            ]
        lines.append("")
    return "\n".join(lines)
