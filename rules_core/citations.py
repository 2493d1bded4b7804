"""What an answer rests on: the sentences of a rule text (citations), and the labelled
readings it took where the text is unclear (interpretations)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Citation:
    """The sentence of a rule text an answer rests on, and where it is on the site."""

    page: str
    section: str
    url: str  # to the quoted sentence, relative to the site root: "orcus/combat/#said-..."
    quote: str  # the sentence the answer rests on, word for word

    @classmethod
    def of(cls, entry: Mapping[str, str]) -> Citation:
        """A `cite` entry of the compiled rules data."""
        return cls(entry["page"], entry["section"], entry["url"], entry["quote"])

    def to_json(self) -> dict[str, str]:
        return {"page": self.page, "section": self.section, "url": self.url, "quote": self.quote}

    def __str__(self) -> str:
        return f"{self.page} › {self.section}" if self.section != self.page else self.page


class Cited(Protocol):
    """A typed rule (rules_core.rules) with its sentences and its labelled reading."""

    @property
    def cite(self) -> Sequence[Citation]: ...

    @property
    def interpretation(self) -> str | None: ...


@dataclass
class Sources:
    """What a result relied on: cited sections and labelled interpretations."""

    citations: list[Citation] = field(default_factory=list)
    interpretations: list[str] = field(default_factory=list)

    def cite(self, citations: Iterable[Citation] | None) -> None:
        """Cite each of a typed rule's citations, once."""
        for citation in citations or []:
            if citation not in self.citations:
                self.citations.append(citation)

    def interpret(self, text: str | None) -> None:
        if text and text not in self.interpretations:
            self.interpretations.append(text)

    def rest_on(self, entry: Cited) -> None:
        """A typed rule the answer applied: its sections cited, its interpretation said."""
        self.cite(entry.cite)
        self.interpret(entry.interpretation)

    def include(self, other: Sources) -> None:
        """What another result relied on (a damage roll inside an attack), once each."""
        for citation in other.citations:
            if citation not in self.citations:
                self.citations.append(citation)
        for note in other.interpretations:
            self.interpret(note)

    def without(self, notes: Iterable[str]) -> Sources:
        """The same, but for those interpretations (said elsewhere in the answer)."""
        left_out = set(notes)
        kept = [note for note in self.interpretations if note not in left_out]
        return Sources(list(self.citations), kept)

    def to_json(self) -> dict[str, Any]:
        return {
            "citations": [citation.to_json() for citation in self.citations],
            "interpretations": list(self.interpretations),
        }
