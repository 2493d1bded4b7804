"""What every calculator is: a typed request, a run that answers it, a renderer for the page.

A calculator module declares its request class (its fields, once), its result class (a
frozen dataclass of typed values with one `to_json`, the JSON the command line prints
with --json), `run` (request in, `Answer` out: the result and the command line's text)
and `render` (result in, escaped HTML out, reading the result's attributes), and ends with
one `CALCULATOR = Calculator(...)`. The registry in `rules_core.calculators` lists them in
order; nothing else names a calculator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from rules_core.calculators.html import Rendered
from rules_core.citations import Sources
from rules_core.fields import Field
from rules_core.requests import Request
from rules_core.steps import Steps, at_once
from rules_core.systems import System, get_system, system_slugs


class Result(Protocol):
    """A calculator's answer as typed values: what its renderer reads. Its JSON (one
    `to_json`) is what the command line prints and a page's Python callers get; a result
    that rests on rules ends it with its sources' citations and interpretations."""

    @property
    def sources(self) -> Sources: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Answer[R: Result]:
    """A calculator's answer: the result the page renders, and the same answer as lines of text."""

    result: R
    text: list[str]

    @property
    def payload(self) -> dict[str, Any]:
        """The answer's JSON."""
        return self.result.to_json()


def fraction_text(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.2f}%"


def chance_line(label: str, value: Fraction) -> str:
    return f"  {label:<12} {value} ({percent(value)})"


def sourced_lines(text: list[str], sources: Sources) -> list[str]:
    """The answer's lines, then the sections it applied and its labelled interpretations."""
    lines = list(text)
    if sources.citations:
        lines.append("Rules applied:")
        for citation in sources.citations:
            lines += [f"  - {citation} ({citation.url})", f"    “{citation.quote}”"]
    lines += [f"Interpretation: {note}" for note in sources.interpretations]
    return lines


def answer[R: Result](result: R, text: list[str]) -> Answer[R]:
    """The result, and its text followed by what it rests on."""
    return Answer(result, sourced_lines(text, result.sources))


@dataclass(frozen=True)
class Calculator[Q: Request, R: Result]:
    """One calculator: its request (fields and validation), its run and its renderer."""

    request: type[Q]
    run: Callable[[Q], Answer[R]]
    render: Callable[[R, Q, str], Rendered]
    about: str = ""  # its module's docstring: the first paragraph is the command's help
    # A calculator that can take long also declares its run in steps (rules_core.steps),
    # which the page can watch and stop; `run` is then those steps run through.
    steps: Callable[[Q], Steps[Answer[R]]] | None = None

    def work(self, request: Q) -> Steps[Answer[R]]:
        """The answer as work in steps: none, for a calculator that answers at once."""
        return self.steps(request) if self.steps else at_once(self.run(request))

    @property
    def summary(self) -> str:
        return " ".join(self.about.split("\n\n")[0].split())

    @property
    def name(self) -> str:
        return self.request.NAME

    @property
    def title(self) -> str:
        return self.request.TITLE

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.request.form_fields()

    @property
    def primary(self) -> str:
        return self.request.PRIMARY

    def applies(self, field: Field, system: System) -> bool:
        """Whether the field is shown for the system: its rule, and the calculator's."""
        if field.kind == "system":
            return True
        rule = self.request.RULE
        return (rule is None or rule.met(system)) and (
            field.requires is None or field.requires.met(system)
        )

    def field_systems(self, field: Field) -> tuple[str, ...] | None:
        """The systems a field applies to; None when it applies to every one."""
        if self.request.RULE is None and field.requires is None:
            return None
        slugs = tuple(s for s in system_slugs() if self.applies(field, get_system(s)))
        return None if slugs == system_slugs() else slugs
