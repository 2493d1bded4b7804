"""The calculator pages' API: form inputs in, escaped HTML and field errors out.

The browser's worker and the build-time prerender call the same `handle`; it builds
the same typed request as the command line (`rules_core.requests`), gets the same
answer (`rules_core.answers`) and renders it, so a page and the CLI cannot disagree.
Every value that came from a user is escaped: no input ever becomes markup.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from html import escape
from typing import Any

from rules_core.answers import answer
from rules_core.attacks import hit_chance_by_defense
from rules_core.dice import DiceError
from rules_core.dice import parse as parse_dice
from rules_core.fields import MAX_INPUT_LENGTH, Field
from rules_core.requests import (
    AbilityRollRequest,
    AttackRequest,
    DamageRequest,
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


# ---------------------------------------------------------------------- formatting


def _percent(value: str | None) -> str:
    if value is None:
        return "—"
    fraction = Fraction(value)
    return f"{float(fraction) * 100:.2f}%"


def _exact(value: str | None) -> str:
    return "—" if value is None else escape(value)


def _sources(payload: dict[str, Any], base: str) -> str:
    parts = []
    if payload.get("citations"):
        links = "".join(
            f'<li><a href="{escape(base + c["url"])}">{escape(c["page"])} › '
            f"{escape(c['section'])}</a></li>"
            for c in payload["citations"]
        )
        parts.append(
            f'<div class="calc-sources"><strong>Rules applied</strong><ul>{links}</ul></div>'
        )
    for note in payload.get("interpretations", []):
        parts.append(
            f'<p class="calc-interpretation"><strong>Interpretation:</strong> {escape(note)}</p>'
        )
    return "".join(parts)


def _rows(rows: list[tuple[str, str]]) -> str:
    body = "".join(f'<tr><th scope="row">{k}</th><td>{v}</td></tr>' for k, v in rows)
    return f'<table class="calc-figures"><tbody>{body}</tbody></table>'


def bar_chart(
    points: list[tuple[int, str]], *, caption: str, label: str, highlight: int | None = None
) -> str:
    """An SVG bar chart of value -> probability (exact fraction strings), with a table."""
    width, height, pad = 600, 180, 24
    heights = [_ratio(probability) for _, probability in points]
    top = max(heights, default=1.0) or 1.0
    step = (width - 2 * pad) / max(len(points), 1)
    bars = []
    for index, (value, _) in enumerate(points):
        bar_height = heights[index] / top * (height - 2 * pad)
        x = pad + index * step
        mark = " calc-bar--on" if value == highlight else ""
        bars.append(
            f'<rect class="calc-bar{mark}" x="{x:.2f}" y="{height - pad - bar_height:.2f}" '
            f'width="{max(step - 1, 0.5):.2f}" height="{bar_height:.2f}"></rect>'
        )
    first, last = (points[0][0], points[-1][0]) if points else (0, 0)
    axis = (
        f'<text x="{pad}" y="{height - 6}" class="calc-axis">{first}</text>'
        f'<text x="{width - pad}" y="{height - 6}" class="calc-axis" '
        f'text-anchor="end">{last}</text>'
    )
    rows = "".join(
        f"<tr><td>{value}</td><td>{_short_fraction(p)}</td><td>{_short_percent(ratio)}</td></tr>"
        for (value, p), ratio in zip(points, heights, strict=True)
    )
    return (
        f'<figure class="calc-chart"><svg viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(caption)}" preserveAspectRatio="none">{"".join(bars)}{axis}</svg>'
        f"<figcaption>{escape(caption)}</figcaption>"
        f"<details><summary>Table of the chart</summary><table><thead><tr><th>{escape(label)}"
        f"</th><th>Probability</th><th>%</th></tr></thead><tbody>{rows}</tbody></table></details>"
        "</figure>"
    )


def _ratio(fraction: str) -> float:
    """'3/8' -> 0.375, without building a Fraction (200d6 has 150-digit ones)."""
    numerator, _, denominator = fraction.partition("/")
    return int(numerator) / int(denominator or 1)


def _short_fraction(text: str) -> str:
    """The exact fraction, unless it runs to hundreds of digits."""
    return escape(text) if len(text) <= 40 else "—"


def _short_percent(ratio: float) -> str:
    percent = ratio * 100
    if percent and percent < 0.01:
        return "&lt;0.01%"
    return f"{percent:.2f}%"


def _distribution_points(payload: dict[str, Any]) -> list[tuple[int, str]]:
    return [(int(value), p) for value, p in payload["distribution"].items()]


# ---------------------------------------------------------------------- renderers


def _render_modifier(payload: dict[str, Any], request: Any, base: str) -> str:
    figures = _rows([("Score", str(payload["score"])), ("Modifier", f"{payload['modifier']:+d}")])
    return figures + _sources(payload, base)


def _render_pointbuy(payload: dict[str, Any], request: Any, base: str) -> str:
    verdict = "Valid" if payload["valid"] else "Not valid"
    figures = _rows(
        [
            ("Cost", f"{payload['cost']} of {payload['budget']} points"),
            ("Remaining", str(payload["remaining"])),
            ("Set", verdict),
        ]
    )
    problems = "".join(f"<li>{escape(problem)}</li>" for problem in payload["problems"])
    listed = f'<ul class="calc-problems">{problems}</ul>' if problems else ""
    return figures + listed + _sources(payload, base)


def _render_abilityroll(payload: dict[str, Any], request: Any, base: str) -> str:
    figures = _rows(
        [
            ("Roll", escape(payload["expression"])),
            ("Range", f"{payload['min']} to {payload['max']}"),
            ("Mean", f"{_exact(payload['mean'])} (about {float(Fraction(payload['mean'])):.2f})"),
        ]
    )
    chart = bar_chart(
        _distribution_points(payload),
        caption=f"Chance of each score rolled with {payload['expression']}",
        label="Score",
    )
    return figures + chart + _sources(payload, base)


def _render_level(payload: dict[str, Any], request: Any, base: str) -> str:
    following = (
        f"{payload['xp_for_next_level']:,} XP ({payload['xp_needed']:,} to go)"
        if payload["xp_for_next_level"] is not None
        else "top level"
    )
    grants = "; ".join(f"{escape(value)}" for value in payload["grants"].values()) or "—"
    figures = _rows(
        [
            ("Level", str(payload["level"])),
            ("Level bonus", f"{payload['level_bonus']:+d}"),
            ("Tier", escape(payload["tier"].title())),
            ("Next level at", following),
            ("Gained at this level", grants),
        ]
    )
    return figures + _sources(payload, base)


def _chance(value: str | None) -> str:
    """A probability as a percentage, with the exact fraction beside it."""
    return f'{_percent(value)} <span class="calc-exact">{_exact(value)}</span>'


def _render_attack(payload: dict[str, Any], request: Any, base: str) -> str:
    modifier = f"{payload['attack_modifier']:+d}"
    rows = [
        ("Roll", f"{escape(payload['roll'])} {modifier} vs {payload['defense']}"),
        ("Hit", _chance(payload["hit"])),
        ("Critical hit", _chance(payload["crit"])),
        ("Miss", _chance(payload["miss"])),
    ]
    if payload["crit_fail"] is not None:
        rows.append(("Crit fail", _chance(payload["crit_fail"])))
    if payload["attacks"] > 1:
        rows.append(
            (f"At least one hit in {payload['attacks']}", _percent(payload["at_least_one_hit"]))
        )
    if payload["expected_damage"] is not None:
        mean = Fraction(payload["expected_damage"])
        rows.append(
            (
                "Expected damage per attack",
                f'{float(mean):.2f} <span class="calc-exact">{escape(str(mean))}</span>',
            )
        )
    chart = bar_chart(
        _attack_curve(request),
        caption="Chance to hit by defense",
        label="Defense",
        highlight=payload["defense"],
    )
    return _rows(rows) + chart + _sources(payload, base)


def _render_damage(payload: dict[str, Any], request: Any, base: str) -> str:
    mean = Fraction(payload["mean"])
    rows = [
        ("Roll", escape(payload["expression"])),
        ("Range", f"{payload['min']} to {payload['max']}"),
        ("Mean", f'{float(mean):.2f} <span class="calc-exact">{escape(str(mean))}</span>'),
    ]
    if payload["at_least_hp"] is not None:
        rows.append((f"Chance of at least {request.hp} damage", _percent(payload["at_least_hp"])))
    chart = bar_chart(
        _distribution_points(payload),
        caption=f"Chance of each damage total of {payload['expression']}",
        label="Damage",
    )
    return _rows(rows) + chart + _sources(payload, base)


def _render_encounter(payload: dict[str, Any], request: Any, base: str) -> str:
    rows = [
        (
            f"Budget ({payload['party']} characters of level {payload['level']})",
            f"{payload['budget']:,} XP",
        ),
        ("Monsters", f"{payload['total_xp']:,} XP"),
        ("Share of the budget", _percent(payload["share"])),
        ("XP per character", f"{float(Fraction(payload['xp_per_character'])):,.2f}"),
    ]
    lines = "".join(
        f"<li>{m['count']} × level {m['level']} {escape(m['rank'])}: {m['xp']:,} XP</li>"
        for m in payload["monsters"]
    )
    listed = f'<ul class="calc-monsters">{lines}</ul>' if lines else ""
    return _rows(rows) + listed + _sources(payload, base)


def _render_roll(payload: dict[str, Any], request: Any, base: str) -> str:
    rolled = (
        f'<p class="calc-rolled">Rolled <strong>{payload["total"]}</strong> '
        f'<span class="calc-exact">{escape(json.dumps(payload["dice"]))}</span></p>'
        if payload.get("total") is not None
        else '<p class="calc-rolled">Press “Roll” to roll.</p>'
    )
    distribution = parse_dice(payload["expression"], weapon_die=request.weapon).distribution()
    odds = {
        "expression": payload["expression"],
        "min": distribution.min,
        "max": distribution.max,
        "mean": str(distribution.mean()),
        "distribution": {str(v): str(p) for v, p in distribution.items()},
        "at_least_hp": None,
    }
    return rolled + _render_damage(odds, request, base)


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
        Calculator(ModifierRequest, _render_modifier),
        Calculator(PointBuyRequest, _render_pointbuy),
        Calculator(AbilityRollRequest, _render_abilityroll),
        Calculator(LevelRequest, _render_level),
        Calculator(AttackRequest, _render_attack),
        Calculator(DamageRequest, _render_damage),
        Calculator(EncounterRequest, _render_encounter),
        Calculator(RollRequest, _render_roll),
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
}


# ---------------------------------------------------------------------- handling


def _attack_curve(request: AttackRequest) -> list[tuple[int, str]]:
    """Chance to hit for the defenses around the chosen one (odds only, no damage)."""
    setup = replace(request.setup(), damage=None, miss_damage=None)
    defenses = range(setup.defense - 10, setup.defense + 11)
    return [
        (defense, str(chance))
        for defense, chance in hit_chance_by_defense(get_system(request.system), setup, defenses)
    ]


def _undefined(error: NotDefined, base: str) -> dict[str, Any]:
    links = "".join(
        f'<li><a href="{escape(base + c.url)}">{escape(str(c))}</a></li>' for c in error.citations
    )
    more = f"<p>What the text does say:</p><ul>{links}</ul>" if links else ""
    html = f'<div class="calc-undefined"><p>{escape(str(error))}</p>{more}</div>'
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


def situation_choices() -> dict[str, list[tuple[str, str]]]:
    """Each system's situational modifiers, for the attack form."""
    result = {}
    for slug in system_slugs():
        attack = get_system(slug).rules.get("attack", {})
        result[slug] = [
            (name, entry["label"]) for name, entry in attack.get("situations", {}).items()
        ]
    return result
