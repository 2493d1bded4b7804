"""The systems' rules data, compiled from content/ at build time, and the shared result types."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any


class RulesError(ValueError):
    """Input the rules cannot answer; the message is one sentence for the user."""


class NotDefined(RulesError):
    """The selected system's text has no rule for this calculator.

    `citations` point at what the text does say on the matter, where it says anything.
    """

    def __init__(self, message: str, citations: list[Citation] | None = None) -> None:
        super().__init__(message)
        self.citations = citations or []


@dataclass(frozen=True)
class Citation:
    page: str
    section: str
    url: str  # relative to the site root, e.g. "orcus/combat/#cover"

    def to_json(self) -> dict[str, str]:
        return {"page": self.page, "section": self.section, "url": self.url}

    def __str__(self) -> str:
        return f"{self.page} › {self.section}" if self.section != self.page else self.page


@dataclass
class Sources:
    """What a result relied on: cited sections and labelled interpretations."""

    citations: list[Citation] = field(default_factory=list)
    interpretations: list[str] = field(default_factory=list)

    def cite(self, entries: list[dict[str, str]] | None) -> None:
        for entry in entries or []:
            citation = Citation(entry["page"], entry["section"], entry["url"])
            if citation not in self.citations:
                self.citations.append(citation)

    def interpret(self, text: str | None) -> None:
        if text and text not in self.interpretations:
            self.interpretations.append(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "citations": [citation.to_json() for citation in self.citations],
            "interpretations": list(self.interpretations),
        }


@dataclass(frozen=True)
class System:
    slug: str
    title: str
    short_title: str
    dice: str
    rules: dict[str, Any]

    def rule(self, name: str, calculator: str) -> dict[str, Any]:
        """The rules for one calculator, or NotDefined naming what the text does say."""
        value = self.rules.get(name)
        if value is None:
            raise self.not_defined(name, calculator)
        return value

    def not_defined(self, name: str, what: str) -> NotDefined:
        said = self.rules.get("not_defined", {}).get(name, {})
        message = f"{self.title} does not define {what} in its text."
        if said.get("note"):
            message += f" {said['note']}"
        citations = [Citation(c["page"], c["section"], c["url"]) for c in said.get("cite", [])]
        return NotDefined(message, citations)


DATA = Path(__file__).with_name("data") / "systems.json"


@cache
def _load() -> dict[str, Any]:
    """The compiled systems, by slug, in the order of content/systems.yml."""
    try:
        data = json.loads(DATA.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RuntimeError(
            "rules_core/data/systems.json is missing: run `make data` to compile content/"
        ) from None
    return {slug: data["systems"][slug] for slug in data["order"]}


def forget_compiled_data() -> None:
    """Read systems.json afresh: every cached value of the rules core (the systems, the
    forms' choices) was computed from it. For a long-running process whose data was
    recompiled (the dev server after a rules.yml edit)."""
    for name, module in list(sys.modules.items()):
        if name != "rules_core" and not name.startswith("rules_core."):
            continue
        for value in list(vars(module).values()):
            owners = vars(value).values() if isinstance(value, type) else (value,)
            for owner in owners:
                function = getattr(owner, "__func__", owner)  # a cached classmethod's function
                if hasattr(function, "cache_clear"):
                    function.cache_clear()


def get_system(slug: str) -> System:
    systems = _load()
    if slug not in systems:
        known = ", ".join(systems)
        raise RulesError(f"Unknown system {slug!r} (known: {known}).")
    entry = systems[slug]
    return System(
        entry["slug"], entry["title"], entry["short_title"], entry["dice"], entry["rules"]
    )


def system_slugs() -> tuple[str, ...]:
    """The systems' slugs, in the order of content/systems.yml (the compiled data's order)."""
    return tuple(_load())
