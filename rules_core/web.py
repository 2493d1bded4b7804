"""The calculator pages' API: form inputs in, escaped HTML and field errors out.

The browser's worker and the build-time prerender call the same `handle`, so a page
shows the same result before and after Python loads. A calculation goes through the
command line's own parser and handlers, so the pages and the CLI cannot disagree.
Every value that came from a user is escaped: no input ever becomes markup.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any

from rules_core.attacks import hit_chance_by_defense
from rules_core.cli import UsageError, attack_setup, build_parser, die_sides, one_line
from rules_core.dice import DiceError
from rules_core.dice import parse as parse_dice
from rules_core.systems import NotDefined, RulesError, get_system, system_slugs

MAX_INPUT_LENGTH = 200
# Whole numbers are ASCII only: str.isdigit() also accepts "²", which int() refuses.
_WHOLE = re.compile(r"-?[0-9]{1,20}")
# The site root relative to a page ("", "../../", "/"): a path, never a scheme or a host.
_BASE = re.compile(r"(?:/(?!/))?(?:[A-Za-z0-9._~-]+/)*")


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str  # system | int | dice | die | choice | check | situations
    default: str = ""
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    optional: bool = False
    hint: str = ""
    systems: tuple[str, ...] = ()  # shown only for these systems (all when empty)


@dataclass(frozen=True)
class Calculator:
    name: str
    title: str
    fields: tuple[Field, ...]
    argv: Callable[[dict[str, str]], list[str]]
    render: Callable[[dict[str, Any], dict[str, str], str], str]
    primary: str  # the field an error belongs to when the error names none


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


def _render_modifier(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
    figures = _rows([("Score", str(payload["score"])), ("Modifier", f"{payload['modifier']:+d}")])
    return figures + _sources(payload, base)


def _render_pointbuy(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
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


def _render_abilityroll(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
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


def _render_level(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
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


def _render_attack(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
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
        payload["curve"],
        caption="Chance to hit by defense",
        label="Defense",
        highlight=payload["defense"],
    )
    return _rows(rows) + chart + _sources(payload, base)


def _render_damage(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
    mean = Fraction(payload["mean"])
    rows = [
        ("Roll", escape(payload["expression"])),
        ("Range", f"{payload['min']} to {payload['max']}"),
        ("Mean", f'{float(mean):.2f} <span class="calc-exact">{escape(str(mean))}</span>'),
    ]
    if payload["at_least_hp"] is not None:
        rows.append(
            (f"Chance of at least {escape(values['hp'])} damage", _percent(payload["at_least_hp"]))
        )
    chart = bar_chart(
        _distribution_points(payload),
        caption=f"Chance of each damage total of {payload['expression']}",
        label="Damage",
    )
    return _rows(rows) + chart + _sources(payload, base)


def _render_encounter(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
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


def _render_roll(payload: dict[str, Any], values: dict[str, str], base: str) -> str:
    rolled = (
        f'<p class="calc-rolled">Rolled <strong>{payload["total"]}</strong> '
        f'<span class="calc-exact">{escape(json.dumps(payload["dice"]))}</span></p>'
        if payload.get("total") is not None
        else '<p class="calc-rolled">Press “Roll” to roll.</p>'
    )
    distribution = parse_dice(payload["expression"]).distribution()
    odds = {
        "expression": payload["expression"],
        "min": distribution.min,
        "max": distribution.max,
        "mean": str(distribution.mean()),
        "distribution": {str(v): str(p) for v, p in distribution.items()},
        "at_least_hp": None,
    }
    return rolled + _render_damage(odds, values, base)


# ---------------------------------------------------------------------- calculators


def _system_field(default: str) -> Field:
    return Field(
        "system", "System", "system", default=default, choices=tuple((s, s) for s in system_slugs())
    )


def _optional(option: str, value: str) -> list[str]:
    return [option, value] if value else []


def _attack_argv(v: dict[str, str]) -> list[str]:
    argv = ["attack", "--system", v["system"], "--bonus", v["bonus"], "--defense", v["defense"]]
    argv += {
        "advantage": ["--advantage"],
        "disadvantage": ["--disadvantage"],
        "both": ["--both"],
    }.get(v["mode"], [])
    if v["escalation"] not in ("", "0"):
        argv += ["--escalation", v["escalation"]]
    for name in filter(None, v["situations"].split(",")):
        argv += ["--situation", name]
    argv += ["--attacks", v["attacks"] or "1"]
    for option, name in (
        ("--damage", "damage"),
        ("--miss-damage", "miss_damage"),
        ("--weapon", "weapon"),
        ("--level", "level"),
        ("--resist", "resist"),
    ):
        argv += _optional(option, v[name])
    return argv


def _damage_argv(v: dict[str, str]) -> list[str]:
    argv = ["damage", "--system", v["system"], v["expression"]]
    if v["crit"] == "on":
        argv.append("--crit")
    for option, name in (
        ("--weapon", "weapon"),
        ("--level", "level"),
        ("--extra-crit", "extra_crit"),
        ("--resist", "resistance"),
        ("--vulnerable", "vulnerability"),
        ("--hp", "hp"),
    ):
        argv += _optional(option, v[name])
    if v["resistant"] == "on":
        argv.append("--resist")
    if v["vulnerable"] == "on":
        argv.append("--vulnerable")
    return argv


def _encounter_argv(v: dict[str, str]) -> list[str]:
    argv = ["encounter", "--system", v["system"], "--party", v["party"], "--level", v["level"]]
    for row in range(1, ENCOUNTER_ROWS + 1):
        count = v[f"m{row}_count"]
        if count not in ("", "0"):
            argv += ["--monster", f"{v[f'm{row}_level']}:{v[f'm{row}_rank']}:{count}"]
    return argv


def _roll_argv(v: dict[str, str]) -> list[str]:
    if v["rolled"] != "on":  # odds only: a page never shows a roll nobody asked for
        return ["roll", v["expression"], "--odds-only"]
    return ["roll", v["expression"], *_optional("--seed", v["seed"])]


ENCOUNTER_ROWS = 4
RANKS = (("mook", "Mook"), ("standard", "Standard"), ("elite", "Elite"), ("boss", "Boss"))
ABILITIES = (
    ("str", "STR", "16"),
    ("con", "CON", "14"),
    ("dex", "DEX", "13"),
    ("int", "INT", "12"),
    ("wis", "WIS", "11"),
    ("cha", "CHA", "10"),
)


CALCULATORS: dict[str, Calculator] = {}


def _register(calculator: Calculator) -> None:
    CALCULATORS[calculator.name] = calculator


_register(
    Calculator(
        "modifier",
        "Ability modifier",
        (_system_field("orcus"), Field("score", "Ability score", "int", "15", 1, 30)),
        lambda v: ["modifier", "--system", v["system"], "--score", v["score"]],
        _render_modifier,
        "score",
    )
)
_register(
    Calculator(
        "pointbuy",
        "Point buy",
        (
            _system_field("orcus"),
            *(Field(key, label, "int", default, 1, 30) for key, label, default in ABILITIES),
        ),
        lambda v: [
            "pointbuy",
            "--system",
            v["system"],
            "--scores",
            ",".join(v[key] for key, _, _ in ABILITIES),
        ],
        _render_pointbuy,
        "str",
    )
)
_register(
    Calculator(
        "abilityroll",
        "Rolled ability scores",
        (_system_field("orcus"),),
        lambda v: ["abilityroll", "--system", v["system"]],
        _render_abilityroll,
        "system",
    )
)
_register(
    Calculator(
        "level",
        "XP and level",
        (_system_field("orcus"), Field("xp", "Experience points", "int", "12000", 0, 10**9)),
        lambda v: ["level", "--system", v["system"], "--xp", v["xp"]],
        _render_level,
        "xp",
    )
)
_register(
    Calculator(
        "attack",
        "Attack odds",
        (
            _system_field("orcus"),
            Field("bonus", "Attack bonus", "int", "6", -100, 100),
            Field(
                "defense",
                "Defense",
                "int",
                "16",
                -100,
                200,
                hint="AC, Fortitude, Reflex, Will, PD, MD",
            ),
            Field(
                "mode",
                "Roll",
                "choice",
                "normal",
                choices=(
                    ("normal", "Normal"),
                    ("advantage", "Advantage"),
                    ("disadvantage", "Disadvantage"),
                    ("both", "Advantage and disadvantage"),
                ),
                systems=("into-the-unknown",),
            ),
            Field("escalation", "Escalation die", "int", "0", 0, 6, systems=("3d6-combat",)),
            Field("situations", "Situations", "situations", ""),
            Field("attacks", "Number of attacks", "int", "1", 1, 100),
            Field("damage", "Damage on a hit", "dice", "1d8+4", optional=True),
            Field("miss_damage", "Damage on a miss", "dice", "", optional=True),
            Field("weapon", "Weapon die (for dW)", "die", "", optional=True),
            Field("level", "Level (for X x Level)", "int", "", 1, 100, optional=True),
            Field(
                "resist",
                "Target's Resist X+",
                "int",
                "",
                3,
                18,
                optional=True,
                systems=("3d6-combat",),
            ),
        ),
        _attack_argv,
        _render_attack,
        "bonus",
    )
)
_register(
    Calculator(
        "damage",
        "Damage",
        (
            _system_field("orcus"),
            Field("expression", "Damage roll", "dice", "2d6+3"),
            Field("crit", "Critical hit", "check", ""),
            Field("weapon", "Weapon die (for dW)", "die", "", optional=True),
            Field("level", "Level (for X x Level)", "int", "", 1, 100, optional=True),
            Field(
                "extra_crit", "Extra critical dice", "dice", "", optional=True, systems=("orcus",)
            ),
            Field(
                "resistance", "Resistance", "int", "", 1, 1000, optional=True, systems=("orcus",)
            ),
            Field(
                "vulnerability",
                "Vulnerability",
                "int",
                "",
                1,
                1000,
                optional=True,
                systems=("orcus",),
            ),
            Field("resistant", "Resistant", "check", "", systems=("into-the-unknown",)),
            Field("vulnerable", "Vulnerable", "check", "", systems=("into-the-unknown",)),
            Field("hp", "Hit points to reach", "int", "", 1, 100000, optional=True),
        ),
        _damage_argv,
        _render_damage,
        "expression",
    )
)
_register(
    Calculator(
        "encounter",
        "Encounter budget",
        (
            _system_field("orcus"),
            Field("party", "Characters", "int", "4", 1, 100),
            Field("level", "Party level", "int", "1", 1, 30),
            *(
                field
                for row in range(1, ENCOUNTER_ROWS + 1)
                for field in (
                    Field(f"m{row}_level", f"Monster {row} level", "int", "1", 1, 30),
                    Field(
                        f"m{row}_rank", f"Monster {row} rank", "choice", "standard", choices=RANKS
                    ),
                    Field(
                        f"m{row}_count",
                        f"Monster {row} count",
                        "int",
                        "4" if row == 1 else "0",
                        0,
                        1000,
                    ),
                )
            ),
        ),
        _encounter_argv,
        _render_encounter,
        "party",
    )
)
_register(
    Calculator(
        "roll",
        "Dice roller",
        (
            Field("expression", "Dice", "dice", "4d6kh3"),
            Field("seed", "Seed (optional)", "int", "", 0, 2**53, optional=True),
            Field("rolled", "Roll", "check", ""),
        ),
        _roll_argv,
        _render_roll,
        "expression",
    )
)


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


def _validate(
    calculator: Calculator, inputs: dict[str, Any]
) -> tuple[dict[str, str], dict[str, str]]:
    values: dict[str, str] = {}
    errors: dict[str, str] = {}
    for field in calculator.fields:
        raw = inputs.get(field.name, field.default)
        value = str(raw if raw is not None else "").strip()[: MAX_INPUT_LENGTH + 1]
        values[field.name] = value
        if len(value) > MAX_INPUT_LENGTH:
            errors[field.name] = f"At most {MAX_INPUT_LENGTH} characters."
            continue
        if value == "" and (field.optional or field.kind in ("check", "situations")):
            continue
        if field.kind in ("system", "choice"):
            if value not in {choice for choice, _ in field.choices}:
                errors[field.name] = "Choose one of the listed options."
        elif field.kind == "int":
            if not _WHOLE.fullmatch(value):
                errors[field.name] = "Enter a whole number."
            elif not field.minimum <= int(value) <= field.maximum:
                errors[field.name] = f"Enter a number from {field.minimum} to {field.maximum}."
        elif field.kind == "die":
            if die_sides(value) is None:
                errors[field.name] = "A die looks like d8."
        elif field.kind == "check":
            if value not in ("on", "off"):
                errors[field.name] = "Tick or untick."
        elif field.kind == "situations" and not all(
            part.replace("-", "").isalnum() for part in value.split(",")
        ):
            errors[field.name] = "Unknown situation."
    return values, errors


def _check_dice(calculator: Calculator, values: dict[str, str], errors: dict[str, str]) -> None:
    """Parse each dice field as the rules core will, so a bad roll is reported at its field."""
    weapon, level = values.get("weapon", ""), values.get("level", "")
    weapon_die = die_sides(weapon) if weapon and "weapon" not in errors else None
    level_value = int(level) if level and "level" not in errors else None
    for field in calculator.fields:
        if field.kind == "dice" and values[field.name] and field.name not in errors:
            try:
                parse_dice(values[field.name], weapon_die=weapon_die, level=level_value)
            except DiceError as error:
                errors[field.name] = one_line(error)


def _attack_curve(args: argparse.Namespace) -> list[tuple[int, str]]:
    """Chance to hit for the defenses around the chosen one (odds only, no damage)."""
    setup = replace(attack_setup(args), damage=None, miss_damage=None)
    defenses = range(setup.defense - 10, setup.defense + 11)
    return [
        (defense, str(chance))
        for defense, chance in hit_chance_by_defense(get_system(args.system), setup, defenses)
    ]


# Building the parser costs more than most calculations: build it once.
_parser = cache(build_parser)


def handle(name: str, inputs: dict[str, Any], base: str = "") -> dict[str, Any]:
    """Compute one calculator. Never raises for bad input: errors come back as data."""
    calculator = CALCULATORS.get(name)
    if not _BASE.fullmatch(base):
        base = ""  # only the page's own relative root: no "javascript:" or other host
    if calculator is None:
        return {"ok": False, "html": "", "errors": {}, "message": f"Unknown calculator {name!r}."}
    values, errors = _validate(calculator, inputs)
    _check_dice(calculator, values, errors)
    if errors:
        return {"ok": False, "html": "", "errors": errors, "message": ""}
    try:
        args = _parser().parse_args(calculator.argv(values))
        payload, _ = args.handler(args)
        if name == "attack":
            payload["curve"] = _attack_curve(args)
        html = calculator.render(payload, values, base)
    except NotDefined as error:
        links = "".join(
            f'<li><a href="{escape(base + c.url)}">{escape(str(c))}</a></li>'
            for c in error.citations
        )
        more = f"<p>What the text does say:</p><ul>{links}</ul>" if links else ""
        html = f'<div class="calc-undefined"><p>{escape(str(error))}</p>{more}</div>'
        return {"ok": True, "html": html, "errors": {}, "message": one_line(error)}
    except (UsageError, RulesError, DiceError) as error:
        return {
            "ok": False,
            "html": "",
            "errors": {calculator.primary: one_line(error)},
            "message": "",
        }
    payload.pop("curve", None)
    return {
        "ok": True,
        "html": html,
        "errors": {},
        "message": "",
        "data": payload,
    }


def handle_json(request: str) -> str:
    """The worker's entry point: one JSON request in, one JSON response out."""
    try:
        data = json.loads(request)
        response = handle(
            str(data["calculator"]), dict(data.get("inputs", {})), str(data.get("base", ""))
        )
        response.pop("data", None)  # the page shows the markup; the payload is for Python callers
    except (ValueError, KeyError, TypeError):
        response = {"ok": False, "html": "", "errors": {}, "message": "The request was malformed."}
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
