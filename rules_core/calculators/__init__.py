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
    level,
    modifier,
    pointbuy,
    roll,
)
from rules_core.calculators.base import Answer, Calculator
from rules_core.requests import Request

__all__ = ["CALCULATORS", "Answer", "Calculator", "answer"]

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
        roll,
        check,
        dying,
    )
}


def answer(request: Request) -> Answer:
    """The answer to a request, by the calculator that declared it."""
    return CALCULATORS[request.NAME].run(request)
