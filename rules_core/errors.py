"""What the rules core refuses: input its rules cannot answer, and a rule a system's text
does not define (with the sentences it does say on the matter)."""

from __future__ import annotations

from rules_core.citations import Citation


class RulesError(ValueError):
    """Input the rules cannot answer; the message is one sentence for the user. `field`
    names the input it is about, where one is (shown next to it on a page)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotDefined(RulesError):
    """The selected system's text has no rule for this calculator.

    `citations` point at what the text does say on the matter, where it says anything.
    """

    def __init__(self, message: str, citations: list[Citation] | None = None) -> None:
        super().__init__(message)
        self.citations = citations or []
