"""Live dice in the rule text: each dice expression becomes a link to the damage
calculator, prefilled, with its minimum, average and maximum (computed now, by the rules
core) as a tooltip that works without Python loaded in the browser.

The recogniser looks only at prose text tokens (the page rewriter hands them over), and
accepts a candidate only if the rules core parses it. A die multiplied by a number
("2d8 x 10", "10 x 1d6") means something the parser's "x" does not, so it is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from urllib.parse import urlencode

from rules_core.dice import DiceError, Expression, parse

# A die: 3d4, d20, d%, 3dW, 4d6kh3. An expression: dice and numbers joined by + or -.
_DIE = r"(?:\d+)?d(?:\d+|%|W)(?:k[hl]?\d+)?"
_CANDIDATE = re.compile(rf"(?<![\w.%/])({_DIE}(?:\s*[+\-−]\s*(?:{_DIE}|\d+(?![\w.])))*)(?![\w%])")
_MULTIPLIED_AFTER = re.compile(r"\s*[x×*]\s*\d")
_MULTIPLIED_BEFORE = re.compile(r"\d\s*[x×*]\s*$")
WEAPON_DIE = 8  # the die a chip assumes for dW, said in its tooltip


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


def chip_link(chip: Chip, system: str, calculators: str) -> str:
    """The Markdown of one chip: a link into the damage calculator, titled with its figures."""
    inputs = {"system": system, "expression": chip.text}
    if chip.weapon:
        inputs["weapon"] = f"d{WEAPON_DIE}"
    href = f"{calculators}damage.md?{urlencode(inputs)}"
    return f'[{chip.text}]({href} "{chip.summary}"){{ .dice-chip }}'


def dice_rewriter(system: str, calculators: str):
    """A prose rewrite (see hooks.linker.rewrite_prose) turning dice into chips."""

    def rewrite(text: str, section: str | None) -> list[tuple[int, int, str]]:
        return [
            (chip.start, chip.end, chip_link(chip, system, calculators)) for chip in find_dice(text)
        ]

    return rewrite
