"""The calculators, in the order the site and the command line list them.

A calculator is one module here (its request fields, run and renderer) and one name
below; its page is a docs/calculators/ page holding `[[calculator:NAME]]`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Any

from rules_core.calculators.base import Answer, Calculator

__all__ = ["CALCULATORS", "Answer", "Calculator"]

# Each is the module of that name here, whose CALCULATOR serves it.
NAMES = (
    "modifier",
    "pointbuy",
    "abilityroll",
    "level",
    "attack",
    "damage",
    "encounter",
    "fight",
    "roll",
    "check",
    "dying",
)


class _Registry(Mapping[str, Calculator[Any, Any]]):
    """The calculators by name, each module imported when it is first asked for: the
    browser's worker answers its page's calculator before it has imported the others
    (Python's start is what a reader waits for on a calculator page)."""

    def __getitem__(self, name: str) -> Calculator[Any, Any]:
        if name not in NAMES:
            raise KeyError(name)
        calculator: Calculator[Any, Any] = import_module(f"{__name__}.{name}").CALCULATOR
        return calculator

    def __contains__(self, name: object) -> bool:
        return name in NAMES

    def __iter__(self) -> Iterator[str]:
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


CALCULATORS: Mapping[str, Calculator[Any, Any]] = _Registry()
