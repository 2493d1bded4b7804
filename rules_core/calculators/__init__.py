"""The calculators, in the order the site and the command line list them.

A calculator is one module here (its request fields, run and renderer) and one line
below; its page is a docs/calculators/ page holding `[[calculator:NAME]]`.
"""

from __future__ import annotations

from rules_core.calculators import (
    abilityroll,
    attack,
    check,
    damage,
    dying,
    encounter,
    fight,
    level,
    modifier,
    pointbuy,
    roll,
)
from rules_core.calculators.base import Answer, Calculator

__all__ = ["CALCULATORS", "Answer", "Calculator"]

CALCULATORS: dict[str, Calculator] = {
    module.CALCULATOR.name: module.CALCULATOR
    for module in (
        modifier,
        pointbuy,
        abilityroll,
        level,
        attack,
        damage,
        encounter,
        fight,
        roll,
        check,
        dying,
    )
}
