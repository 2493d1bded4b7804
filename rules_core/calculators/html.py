"""The pieces every calculator's HTML is made of: a one-line headline, figures, sources.

A renderer takes its calculator's typed result, the request it answers and the site
root, and reads the result's attributes; every value that came from a user is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from html import escape, unescape

from rules_core.calculators.shared import Odds
from rules_core.charts import bar_chart
from rules_core.citations import Citation, Sources
from rules_core.numbers import signed as signed  # re-exported: renderers write html.signed


def percent(value: Fraction | None) -> str:
    return "—" if value is None else f"{float(value) * 100:.2f}%"


def exact(value: Fraction | None) -> str:
    return "—" if value is None else escape(str(value))


def chance(value: Fraction | None) -> str:
    """A probability as a percentage, with the exact fraction beside it."""
    return f'{percent(value)} <span class="calc-exact">{exact(value)}</span>'


def mean(value: Fraction) -> str:
    return f'{float(value):.2f} <span class="calc-exact">{escape(str(value))}</span>'


def rounds(value: Fraction | None) -> str:
    """An expected number of rolls, or "never" where the text gives no way to succeed."""
    return "never" if value is None else mean(value)


# The headline's parts and the dots between them, each an element: a page may wrap the line
# between parts but never cut one (the docked answer on a phone, calculators.css), and hides
# them all (no text is left outside them) where they do not answer the inputs on screen.
_PART = '<span class="calc-part">{}</span>'
_BETWEEN = '<span class="calc-sep"> · </span>'
_TAG = re.compile(r"<[^>]*>")


def headline(*parts: str) -> str:
    """The main answer in one short line of parts ("Hit 55.00%", "Crit 5.00%"); parts are
    text already escaped."""
    return _BETWEEN.join(_PART.format(part) for part in parts)


@dataclass(frozen=True)
class Rendered:
    """A calculator's answer as a page shows it: the headline (one short line of escaped
    text), its why (plain lines: what changed the roll, shown under the headline where the
    docked answer shows it), both given as the summary to the Compare pages and to screen
    readers, and the rest."""

    headline: str
    body: str
    why: tuple[str, ...] = ()

    @property
    def markup(self) -> str:
        why = "".join(f'<span class="calc-why">{escape(line)}</span>' for line in self.why)
        return f'<div class="calc-headline">{self.headline}{why}</div>{self.body}'

    @property
    def summary(self) -> str:
        """The headline and its why as plain text, a line each (set as text, never parsed)."""
        return "\n".join([unescape(_TAG.sub("", self.headline)), *self.why])


def rows(pairs: list[tuple[str, str]]) -> str:
    body = "".join(f'<tr><th scope="row">{k}</th><td>{v}</td></tr>' for k, v in pairs)
    return f'<table class="calc-figures"><tbody>{body}</tbody></table>'


def breakdown(parts: Sequence[tuple[str, int]], *, signed_total: bool = True) -> str:
    """'Attack bonus +7, Combat advantage +2, Prone −2 = +7'; a defense's total unsigned:
    'Defense 18, Target prone +2 = 20'. The first term of a defense is its value."""
    listed = ", ".join(
        f"{escape(label)} {signed(value) if signed_total or index else value}"
        for index, (label, value) in enumerate(parts)
    )
    total = sum(value for _, value in parts)
    return f"{listed} = {signed(total) if signed_total else total}"


def citation_item(citation: Citation, base: str) -> str:
    """A citation in a list: the section, linked to the sentence, and the sentence itself."""
    return (
        f'<li><a href="{escape(base + citation.url)}">{escape(str(citation))}</a> '
        f'<q class="calc-quote">{escape(citation.quote)}</q></li>'
    )


def cited(sources: Sources, base: str) -> str:
    """The sections an answer applied, linked to their sentences, and its interpretations."""
    parts = []
    if sources.citations:
        links = "".join(citation_item(citation, base) for citation in sources.citations)
        parts.append(
            f'<div class="calc-sources"><strong>Rules applied</strong><ul>{links}</ul></div>'
        )
    for note in sources.interpretations:
        parts.append(
            f'<p class="calc-interpretation"><strong>Interpretation:</strong> {escape(note)}</p>'
        )
    return "".join(parts)


def odds(chances: Odds, *, label: str, caption: str) -> tuple[str, str]:
    """The headline part and the chart of a roll's distribution."""
    chart = bar_chart(chances.points(), caption=caption, label=label)
    return f"Mean {float(chances.mean):.2f} ({chances.minimum}–{chances.maximum})", chart


def distribution(
    expression: str,
    chances: Odds,
    *,
    description: str = "",
    hp: int | None = None,
    at_least_hp: Fraction | None = None,
    what: str = "damage total",
) -> tuple[list[str], str]:
    """A roll's range, mean and chart (and the chance to reach `hp`): headline parts, body.
    `description` says the roll in words where a rule changed it (a critical hit's)."""
    pairs = [
        ("Roll", escape(description or expression)),
        ("Range", f"{chances.minimum} to {chances.maximum}"),
        ("Mean", mean(chances.mean)),
    ]
    top, chart = odds(
        chances, label=what.split()[0].title(), caption=f"Chance of each {what} of {expression}"
    )
    parts = [top]
    if at_least_hp is not None:
        pairs.append((f"Chance of at least {hp} damage", percent(at_least_hp)))
        parts.append(f"{percent(at_least_hp)} to deal {hp}+")
    return parts, rows(pairs) + chart
