"""Live dice in the rule text: each dice expression becomes a chip with its minimum,
average and maximum (computed now, by the rules core) as a tooltip and as data for the
tap preview (previews.mjs), which works without Python loaded in the browser.

The chip links to the calculator that fits its sentence (`calculator_for`): the damage
calculator for damage, the attack calculator for an attack roll, the checks calculator
for a d20 in a check or save sentence (only once that page exists), the dice roller for
a d20 said nowhere in particular. A chip with no calculator is a button, not a link.

The recogniser looks only at prose text tokens (the page rewriter hands them over), and
accepts a candidate only if the rules core parses it. A die multiplied by a number
("2d8 x 10", "10 x 1d6") means something the parser's "x" does not, so it is left alone.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import PurePosixPath
from urllib.parse import urlencode

from hooks.pages.calculators import calculator_pages
from rules_core.dice import DiceError, Expression, parse

# A die: 3d4, d20, d%, 3dW, 4d6kh3. An expression: dice and numbers joined by + or -.
_DIE = r"(?:\d+)?d(?:\d+|%|W)(?:k[hl]?\d+)?"
_CANDIDATE = re.compile(rf"(?<![\w.%/])({_DIE}(?:\s*[+\-−]\s*(?:{_DIE}|\d+(?![\w.])))*)(?![\w%])")
_MULTIPLIED_AFTER = re.compile(r"\s*[x×*]\s*\d")
_MULTIPLIED_BEFORE = re.compile(r"\d\s*[x×*]\s*$")
WEAPON_DIE = 8  # the die a chip assumes for dW, said in its tooltip
# Each calculator a chip may open: its page and what the preview's link says.
CALCULATOR_LABELS = {
    "damage": "Open in the damage calculator",
    "attack": "Open in the attack calculator",
    "checks": "Open in the checks and saves calculator",
    "dice": "Roll it in the dice roller",
}
_CHECK_WORDS = re.compile(r"\b(?:checks?|saves?|saving throws?|skills?|tests?)\b", re.IGNORECASE)
_ATTACK_WORDS = re.compile(r"\battack(?:s|\s+rolls?)?\b", re.IGNORECASE)
_DAMAGE_WORDS = re.compile(r"\b(?:damage|hit points?|heal(?:s|ed|ing)?)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;:](?=\s|$)")


@dataclass(frozen=True)
class Chip:
    start: int
    end: int
    text: str  # as printed
    expression: Expression
    weapon: bool

    @property
    def summary(self) -> str:
        distribution = self.expression.distribution()
        mean = distribution.mean()
        shown = f"{float(mean):g}" if mean.denominator != 1 else str(mean.numerator)
        text = f"{self.text}: {distribution.min} to {distribution.max}, average {shown}"
        if self.weapon:
            text += f" (with a d{WEAPON_DIE} weapon)"
        return text

    @property
    def mean(self) -> Fraction:
        return self.expression.distribution().mean()

    @property
    def mean_text(self) -> str:
        mean = self.mean
        return f"{float(mean):g}" if mean.denominator != 1 else str(mean.numerator)

    @property
    def is_d20(self) -> bool:
        """One d20 (plus numbers): the roll of a check, a save or an attack."""
        dice = self.expression.dice_terms()
        return len(dice) == 1 and dice[0].count == 1 and dice[0].sides == 20


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of `text` that holds text[start:end]."""
    before = [match.end() for match in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return text[before[-1] if before else 0 : after.start() if after else len(text)]


@cache  # read once per build: each chip asks
def calculator_page_names() -> frozenset[str]:
    """The calculator pages this build has, by name ("checks" for calculators/checks.md)."""
    return frozenset(PurePosixPath(path).stem for _, path in calculator_pages().values())


def calculator_for(chip: Chip, sentence: str, pages: frozenset[str]) -> str | None:
    """The calculator page that answers what the sentence asks of the chip's dice."""
    if chip.is_d20:
        if _CHECK_WORDS.search(sentence):
            # Never the damage calculator for a check: no link until the checks page exists.
            return "checks" if "checks" in pages else None
        if _ATTACK_WORDS.search(sentence) and not _DAMAGE_WORDS.search(sentence):
            return "attack"
        return "dice" if "dice" in pages else None
    if _ATTACK_WORDS.search(sentence) and not _DAMAGE_WORDS.search(sentence):
        return "attack"
    return "damage"


def find_dice(text: str) -> list[Chip]:
    """Every dice expression in a piece of prose that the rules core can evaluate."""
    chips = []
    for match in _CANDIDATE.finditer(text):
        printed = match.group(1).strip()
        if _MULTIPLIED_AFTER.match(text, match.end()) or _MULTIPLIED_BEFORE.search(
            text, 0, match.start()
        ):
            continue
        weapon = "dw" in printed.lower()
        try:
            expression = parse(printed, weapon_die=WEAPON_DIE if weapon else None)
        except DiceError:
            continue
        chips.append(
            Chip(match.start(1), match.start(1) + len(printed), printed, expression, weapon)
        )
    return chips


def chip_data(chip: Chip) -> dict[str, str]:
    """What the tap preview shows: the rules core's figures and the dice to roll."""
    distribution = chip.expression.distribution()
    return {
        "data-min": str(distribution.min),
        "data-mean": chip.mean_text,
        "data-max": str(distribution.max),
        "data-roll": chip.expression.text,  # canonical, weapon dice resolved
    }


def chip_link(
    chip: Chip,
    system: str,
    calculators: str,
    sentence: str = "",
    pages: frozenset[str] | None = None,
) -> str:
    """The Markdown of one chip: a link into the calculator that fits the sentence,
    titled with its figures; raw HTML for a button when no calculator fits."""
    pages = calculator_page_names() if pages is None else pages
    calculator = calculator_for(chip, sentence, pages)
    data = chip_data(chip)
    if calculator is None:
        attributes = " ".join(f'{name}="{html.escape(value)}"' for name, value in data.items())
        return (
            f'<button type="button" class="dice-chip" title="{html.escape(chip.summary)}" '
            f"{attributes}>{html.escape(chip.text)}</button>"
        )
    inputs = {} if calculator == "dice" else {"system": system}  # the roller has no system
    if calculator in ("damage", "dice"):
        inputs["expression"] = chip.text
        if chip.weapon and calculator == "damage":
            inputs["weapon"] = f"d{WEAPON_DIE}"
    href = f"{calculators}{calculator}.md?{urlencode(inputs)}"
    data["data-calculator"] = CALCULATOR_LABELS[calculator]
    # attr_list values: quoted, and none of these can hold a quote.
    attributes = " ".join(f'{name}="{value}"' for name, value in data.items())
    return f'[{chip.text}]({href} "{chip.summary}"){{ .dice-chip {attributes} }}'


def dice_rewriter(system: str, calculators: str):
    """A prose rewrite (see hooks.pages.linker.rewrite_prose) turning dice into chips."""

    def rewrite(text: str, section: str | None) -> list[tuple[int, int, str]]:
        return [
            (
                chip.start,
                chip.end,
                chip_link(chip, system, calculators, sentence_around(text, chip.start, chip.end)),
            )
            for chip in find_dice(text)
        ]

    return rewrite
