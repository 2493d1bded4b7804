"""The `not_defined:` section of rules.yml: what a text does not define, said in its own
terms (a note, and where the text says so), by the name of the rule it lacks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from rules_core.rules.common import citations
from rules_core.systems import Citation, System, read_once


@dataclass(frozen=True)
class Unsaid:
    """What the text says of a rule it does not define."""

    SCHEMA: ClassVar[str] = "not_defined.*"

    note: str
    cite: tuple[Citation, ...]

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Unsaid:
        return cls(str(entry["note"]), citations(entry))


def unsaid_rules(section: Mapping[str, Any]) -> Mapping[str, Unsaid]:
    """A `not_defined` section, typed: each note by the name of the rule it is about."""
    return MappingProxyType({str(name): Unsaid.of(entry) for name, entry in section.items()})


def unsaid(system: System, name: str) -> Unsaid | None:
    """What the system's text says of a rule it does not define, or None (read once)."""
    section = system.rules.get("not_defined")
    return None if section is None else read_once(section, unsaid_rules).get(name)
