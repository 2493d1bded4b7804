"""The `fight:` section of rules.yml, typed: the rules of a text that change a fight from
round to round or by hit points and that the fight calculator does not follow, each said
with its sentence in every fight's answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rules_core.citations import Citation
from rules_core.rules.common import citations


@dataclass(frozen=True)
class NotFollowed:
    """A rule of the text the fight does not follow: its name, what the fight does instead,
    and the per-round rules of the data it stands for (`covers`: "dying", ...)."""

    SCHEMA: ClassVar[str] = "fight.not_followed.[]"

    label: str
    note: str
    covers: tuple[str, ...]
    cite: tuple[Citation, ...]

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> NotFollowed:
        return cls(
            str(entry["label"]),
            str(entry["note"]),
            tuple(str(path) for path in entry.get("covers") or ()),
            citations(entry),
        )

    @property
    def said(self) -> str:
        """The entry as one line of an answer."""
        return f"Not followed: {self.label}. {self.note}"


def not_followed(section: Mapping[str, Any]) -> tuple[NotFollowed, ...]:
    """A `fight` section, typed: the rules its text has that a fight does not follow."""
    return tuple(NotFollowed.of(entry) for entry in section["not_followed"])
