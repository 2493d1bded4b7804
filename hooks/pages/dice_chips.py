"""Live dice in the rule text: each dice expression becomes a chip with its minimum,
average and maximum (computed now, by the rules core) as a tooltip and as data for the
tap preview (previews.mjs), which works without Python loaded in the browser.

The chip links to the calculator that fits its sentence (`calculator_for`): the damage
calculator for damage, the attack calculator for an attack roll, the checks calculator
for a d20 in a check or save sentence (only where the registry has it), the dice roller
for a d20 said nowhere in particular. A chip with no calculator is a button, not a link.
The link fills in what that calculator's fields take: the system, the dice, the weapon die.

The recogniser looks only at prose text tokens (the page rewriter hands them over), and
accepts a candidate only if the rules core parses it. A die multiplied by a number
("2d8 x 10", "10 x 1d6") means something the parser's "x" does not, so it is left alone.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection
from dataclasses import dataclass
from fractions import Fraction

from hooks.pages.linker import Rewrite
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import calculator_markdown_address
from rules_core.dice import DiceError, Expression, parse

# A die: 3d4, d20, d%, 3dW, 4d6kh3. An expression: dice and numbers joined by + or -.
_DIE = r"(?:\d+)?d(?:\d+|%|W)(?:k[hl]?\d+)?"
_CANDIDATE = re.compile(rf"(?<![\w.%/])({_DIE}(?:\s*[+\-−]\s*(?:{_DIE}|\d+(?![\w.])))*)(?![\w%])")
_MULTIPLIED_AFTER = re.compile(r"\s*[x×*]\s*\d")
_MULTIPLIED_BEFORE = re.compile(r"\d\s*[x×*]\s*$")
WEAPON_DIE = 8  # the die a chip assumes for dW, said in its tooltip
# Each calculator a chip may open (by its registry name) and what the preview's link says:
# the page's own words, shorter than the calculator's title ("attack", not "attack odds").
CALCULATOR_LABELS = {
    "damage": "Open in the damage calculator",
    "attack": "Open in the attack calculator",
    "check": "Open in the checks and saves calculator",
    "roll": "Roll it in the dice roller",
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


def calculator_for(
    chip: Chip, sentence: str, offered: Collection[str] = CALCULATORS.keys()
) -> str | None:
    """The calculator (of those `offered`, the registry's) that answers what the sentence
    asks of the chip's dice."""
    if chip.is_d20:
        if _CHECK_WORDS.search(sentence):
            # Never the damage calculator for a check: no link without a checks calculator.
            return "check" if "check" in offered else None
        if _ATTACK_WORDS.search(sentence) and not _DAMAGE_WORDS.search(sentence):
            return "attack"
        return "roll" if "roll" in offered else None
    if _ATTACK_WORDS.search(sentence) and not _DAMAGE_WORDS.search(sentence):
        return "attack"
    return "damage"


def chip_inputs(chip: Chip, calculator: str, system: str) -> dict[str, str]:
    """What the chip fills in, for the fields the calculator has: the page's system (the
    roller has none) and, where it takes the dice (the attack's are its own), the dice as
    printed with the weapon die the chip's figures assume for dW."""
    fields = {field.name for field in CALCULATORS[calculator].fields}
    inputs = {"system": system} if "system" in fields else {}
    if "expression" in fields:
        inputs["expression"] = chip.text
        if chip.weapon and "weapon" in fields:
            inputs["weapon"] = f"d{WEAPON_DIE}"
    return inputs


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
    root: str,
    sentence: str = "",
    offered: Collection[str] = CALCULATORS.keys(),
) -> str:
    """The Markdown of one chip: a link into the calculator that fits the sentence (`root`
    leads from the page to the docs root), titled with its figures; raw HTML for a button
    when no calculator fits."""
    calculator = calculator_for(chip, sentence, offered)
    data = chip_data(chip)
    if calculator is None:
        attributes = " ".join(f'{name}="{html.escape(value)}"' for name, value in data.items())
        return (
            f'<button type="button" class="dice-chip" title="{html.escape(chip.summary)}" '
            f"{attributes}>{html.escape(chip.text)}</button>"
        )
    href = calculator_markdown_address(calculator, chip_inputs(chip, calculator, system), root)
    data["data-calculator"] = CALCULATOR_LABELS[calculator]
    # attr_list values: quoted, and none of these can hold a quote.
    attributes = " ".join(f'{name}="{value}"' for name, value in data.items())
    return f'[{chip.text}]({href} "{chip.summary}"){{ .dice-chip {attributes} }}'


def dice_rewriter(system: str, root: str) -> Rewrite:
    """A prose rewrite (see hooks.pages.linker.rewrite_prose) turning dice into chips;
    `root` leads from the page to the docs root."""

    def rewrite(text: str, section: str | None) -> list[tuple[int, int, str]]:
        return [
            (
                chip.start,
                chip.end,
                chip_link(chip, system, root, sentence_around(text, chip.start, chip.end)),
            )
            for chip in find_dice(text)
        ]

    return rewrite
