"""The calculator pages' API: form inputs in, escaped HTML and field errors out.

The browser's worker and the build-time prerender call the same `handle`; it builds
the same typed request as the command line (`rules_core.requests`), gets the same
answer (`rules_core.answers`) and renders it (`rules_core.render`), so a page and the
CLI cannot disagree. Every value that came from a user is escaped: no input ever
becomes markup.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

from rules_core import render
from rules_core.answers import answer
from rules_core.dice import DiceError
from rules_core.fields import MAX_INPUT_LENGTH, Field
from rules_core.requests import (
    AbilityRollRequest,
    AttackRequest,
    CheckRequest,
    DamageRequest,
    DyingRequest,
    EncounterRequest,
    InputErrors,
    LevelRequest,
    ModifierRequest,
    PointBuyRequest,
    Request,
    RollRequest,
)
from rules_core.systems import NotDefined, RulesError, System, get_system, system_slugs

__all__ = ["CALCULATORS", "CALCULATOR_PAGES", "MAX_INPUT_LENGTH", "Field", "handle", "handle_json"]

# The site root relative to a page ("", "../../", "/"): a path, never a scheme or a host.
_BASE = re.compile(r"(?:/(?!/))?(?:[A-Za-z0-9._~-]+/)*")


# ---------------------------------------------------------------------- calculators


@dataclass(frozen=True)
class Calculator:
    """A calculator page's widget: its request (fields and validation) and its renderer."""

    request: type[Request]
    render: Callable[[dict[str, Any], Request, str], str]

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


CALCULATORS: dict[str, Calculator] = {
    calculator.name: calculator
    for calculator in (
        Calculator(ModifierRequest, render.modifier),
        Calculator(PointBuyRequest, render.pointbuy),
        Calculator(AbilityRollRequest, render.abilityroll),
        Calculator(LevelRequest, render.level),
        Calculator(AttackRequest, render.attack),
        Calculator(DamageRequest, render.damage),
        Calculator(EncounterRequest, render.encounter),
        Calculator(RollRequest, render.roll),
        Calculator(CheckRequest, render.check),
        Calculator(DyingRequest, render.dying),
    )
}


# The page (docs/calculators/<page>.md) on which each calculator sits.
CALCULATOR_PAGES = {
    "modifier": "abilities",
    "pointbuy": "abilities",
    "abilityroll": "abilities",
    "level": "level",
    "attack": "attack",
    "damage": "damage",
    "encounter": "encounter",
    "roll": "dice",
    "check": "checks",
    "dying": "dying",
}


# ---------------------------------------------------------------------- handling


def _undefined(error: NotDefined, base: str) -> dict[str, Any]:
    links = "".join(
        f'<li><a href="{escape(base + c.url)}">{escape(str(c))}</a></li>' for c in error.citations
    )
    more = f"<p>What the text does say:</p><ul>{links}</ul>" if links else ""
    html = render.headline("Not in this system's text") + (
        f'<div class="calc-undefined"><p>{escape(str(error))}</p>{more}</div>'
    )
    return {"ok": True, "html": html, "errors": {}, "message": one_line(error)}


def _refused(errors: dict[str, str]) -> dict[str, Any]:
    return {"ok": False, "html": "", "errors": errors, "message": ""}


def handle(name: str, inputs: Mapping[str, Any], base: str = "") -> dict[str, Any]:
    """Compute one calculator. Never raises for bad input: errors come back as data.

    A field missing from `inputs` takes the form's default (the prerender sends none).
    """
    calculator = CALCULATORS.get(name)
    if not _BASE.fullmatch(base):
        base = ""  # only the page's own relative root: no "javascript:" or other host
    if calculator is None:
        return {"ok": False, "html": "", "errors": {}, "message": f"Unknown calculator {name!r}."}
    filled = {field.name: field.default for field in calculator.fields}
    filled.update({key: value for key, value in inputs.items() if isinstance(key, str)})
    try:
        request = calculator.request.from_inputs(filled)
        result = answer(request)
        html = calculator.render(result.payload, request, base)
    except InputErrors as error:
        return _refused(error.errors)
    except NotDefined as error:
        return _undefined(error, base)
    except (RulesError, DiceError) as error:
        return _refused({calculator.primary: one_line(error)})
    return {"ok": True, "html": html, "errors": {}, "message": "", "data": result.payload}


def one_line(message: object) -> str:
    """A message as one line: control characters shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


_MALFORMED = {"ok": False, "html": "", "errors": {}, "message": "The request was malformed."}


def handle_json(request: str) -> str:
    """The worker's entry point: one JSON request in, one JSON response out. Never raises."""
    try:
        data = json.loads(request)
        inputs = data.get("inputs", {})
        if not isinstance(inputs, dict):
            raise TypeError("inputs")
        response = handle(str(data["calculator"]), inputs, str(data.get("base", "")))
        response.pop("data", None)  # the page shows the markup; the payload is for Python callers
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        response = dict(_MALFORMED)
    except Exception as error:  # the worker must always get an answer
        response = {**_MALFORMED, "message": f"Internal error: {one_line(error)}"}
    return json.dumps(response)


def situation_choices(
    source: tuple[str, ...] = ("attack", "situations"),
) -> dict[str, list[tuple[str, str, str]]]:
    """Each system's named situations at `source` in its rules (a mapping of name -> entry
    with a label): the attack's situational modifiers, the death saves' options. Each as
    (name, label, side): whose situation it is, "attacker", "target" or "" (the attack's)."""
    result = {}
    for slug in system_slugs():
        table: Any = get_system(slug).rules
        for key in source:
            table = table.get(key) if isinstance(table, dict) else None
        result[slug] = [
            (name, entry["label"], entry.get("side", "")) for name, entry in (table or {}).items()
        ]
    return result
