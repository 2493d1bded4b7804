"""The `not_defined:` section of rules.yml: what a text does not define, said in its own
terms (a note, and where the text says so), by the name of the rule it lacks."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from rules_core.rules.common import Note


def unsaid_rules(section: Mapping[str, Any]) -> Mapping[str, Note]:
    """A `not_defined` section, typed: each note by the name of the rule it is about."""
    return MappingProxyType({str(name): Note.of(entry) for name, entry in section.items()})
