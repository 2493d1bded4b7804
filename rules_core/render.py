"""Each calculator's answer as HTML: a one-line headline first, then figures, chart, sources.

A renderer takes the payload the command line prints with --json, the request it
answers and the site root; every value that came from a user is escaped.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from html import escape
from typing import Any

from rules_core.attacks import hit_chance_by_defense
from rules_core.charts import bar_chart
from rules_core.dice import parse as parse_dice
from rules_core.requests import AttackRequest
from rules_core.systems import get_system

Payload = dict[str, Any]


# ---------------------------------------------------------------------- formatting


def percent(value: str | None) -> str:
    return "—" if value is None else f"{float(Fraction(value)) * 100:.2f}%"


def _exact(value: str | None) -> str:
    return "—" if value is None else escape(value)


def _chance(value: str | None) -> str:
    """A probability as a percentage, with the exact fraction beside it."""
    return f'{percent(value)} <span class="calc-exact">{_exact(value)}</span>'


def _mean(value: str) -> str:
    mean = Fraction(value)
    return f'{float(mean):.2f} <span class="calc-exact">{escape(str(mean))}</span>'


def _signed(value: int) -> str:
    """+2 / −2, with the minus sign a reader expects."""
    return f"{value:+d}".replace("-", "−")


def headline(*parts: str) -> str:
    """The main answer in one short line; parts are markup already escaped."""
    return f'<div class="calc-headline">{" · ".join(parts)}</div>'


def _rows(rows: list[tuple[str, str]]) -> str:
    body = "".join(f'<tr><th scope="row">{k}</th><td>{v}</td></tr>' for k, v in rows)
    return f'<table class="calc-figures"><tbody>{body}</tbody></table>'


def sources(payload: Payload, base: str) -> str:
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


def _distribution_points(payload: Payload) -> list[tuple[int, str]]:
    return [(int(value), p) for value, p in payload["distribution"].items()]


# ---------------------------------------------------------------------- calculators


def modifier(payload: Payload, request: Any, base: str) -> str:
    figures = _rows([("Score", str(payload["score"])), ("Modifier", _signed(payload["modifier"]))])
    return (
        headline(f"Modifier {_signed(payload['modifier'])}", f"score {payload['score']}")
        + figures
        + sources(payload, base)
    )


def pointbuy(payload: Payload, request: Any, base: str) -> str:
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
    top = headline(
        f"Cost {payload['cost']} of {payload['budget']}", f"{payload['remaining']} left", verdict
    )
    return top + figures + listed + sources(payload, base)


def _odds(payload: Payload, *, label: str, caption: str) -> tuple[str, str]:
    """The headline parts and the chart of a roll's distribution."""
    chart = bar_chart(_distribution_points(payload), caption=caption, label=label)
    mean = float(Fraction(payload["mean"]))
    return f"Mean {mean:.2f} ({payload['min']}–{payload['max']})", chart


def abilityroll(payload: Payload, request: Any, base: str) -> str:
    figures = _rows(
        [
            ("Roll", escape(payload["expression"])),
            ("Range", f"{payload['min']} to {payload['max']}"),
            ("Mean", _mean(payload["mean"])),
        ]
    )
    top, chart = _odds(
        payload,
        label="Score",
        caption=f"Chance of each score rolled with {payload['expression']}",
    )
    return headline(top, escape(payload["expression"])) + figures + chart + sources(payload, base)


def level(payload: Payload, request: Any, base: str) -> str:
    following = (
        f"{payload['xp_for_next_level']:,} XP ({payload['xp_needed']:,} to go)"
        if payload["xp_for_next_level"] is not None
        else "top level"
    )
    grants = "; ".join(f"{escape(value)}" for value in payload["grants"].values()) or "—"
    tier = escape(payload["tier"].title())
    figures = _rows(
        [
            ("Level", str(payload["level"])),
            ("Level bonus", _signed(payload["level_bonus"])),
            ("Tier", tier),
            ("Next level at", following),
            ("Gained at this level", grants),
        ]
    )
    top = headline(
        f"Level {payload['level']}", f"bonus {_signed(payload['level_bonus'])}", f"{tier} tier"
    )
    return top + figures + sources(payload, base)


def attack_curve(request: AttackRequest) -> list[tuple[int, str]]:
    """Chance to hit for the defenses around the chosen one (odds only, no damage)."""
    setup = replace(request.setup(), damage=None, miss_damage=None)
    defenses = range(setup.defense - 10, setup.defense + 11)
    return [
        (defense, str(chance))
        for defense, chance in hit_chance_by_defense(get_system(request.system), setup, defenses)
    ]


def _breakdown(parts: list[list[Any]]) -> str:
    """'Attack bonus +7, Combat advantage +2, Prone −2 = +7'."""
    listed = ", ".join(f"{escape(str(label))} {_signed(int(value))}" for label, value in parts)
    return f"{listed} = {_signed(sum(int(value) for _, value in parts))}"


def attack(payload: Payload, request: Any, base: str) -> str:
    modifier_text = _signed(payload["attack_modifier"])
    rows = [("Roll", f"{escape(payload['roll'])} {modifier_text} vs {payload['defense']}")]
    if payload.get("breakdown"):
        rows.append(("Bonus", _breakdown(payload["breakdown"])))
    rows += [
        ("Hit", _chance(payload["hit"])),
        ("Critical hit", _chance(payload["crit"])),
        ("Miss", _chance(payload["miss"])),
    ]
    top = [
        f"Hit {percent(payload['hit'])}",
        f"Crit {percent(payload['crit'])}",
        f"Miss {percent(payload['miss'])}",
    ]
    if payload["crit_fail"] is not None:
        rows.append(("Crit fail", _chance(payload["crit_fail"])))
    if payload["attacks"] > 1:
        rows.append(
            (f"At least one hit in {payload['attacks']}", percent(payload["at_least_one_hit"]))
        )
    if payload["expected_damage"] is not None:
        rows.append(("Expected damage per attack", _mean(payload["expected_damage"])))
        top.append(f"Damage {float(Fraction(payload['expected_damage'])):.2f} per attack")
    chart = bar_chart(
        attack_curve(request),
        caption="Chance to hit by defense",
        label="Defense",
        highlight=payload["defense"],
    )
    return headline(*top) + _rows(rows) + chart + sources(payload, base)


def _damage_body(
    payload: Payload, hp: int | None, *, what: str = "damage total"
) -> tuple[list[str], str]:
    rows = [
        ("Roll", escape(payload.get("description") or payload["expression"])),
        ("Range", f"{payload['min']} to {payload['max']}"),
        ("Mean", _mean(payload["mean"])),
    ]
    top, chart = _odds(
        payload,
        label=what.split()[0].title(),
        caption=f"Chance of each {what} of {payload['expression']}",
    )
    parts = [top]
    if payload.get("at_least_hp") is not None:
        rows.append((f"Chance of at least {hp} damage", percent(payload["at_least_hp"])))
        parts.append(f"{percent(payload['at_least_hp'])} to deal {hp}+")
    return parts, _rows(rows) + chart


def damage(payload: Payload, request: Any, base: str) -> str:
    parts, body = _damage_body(payload, request.hp)
    return headline(*parts) + body + sources(payload, base)


def encounter(payload: Payload, request: Any, base: str) -> str:
    share = percent(payload["share"])
    rows = [
        (
            f"Budget ({payload['party']} characters of level {payload['level']})",
            f"{payload['budget']:,} XP",
        ),
        ("Monsters", f"{payload['total_xp']:,} XP"),
        ("Share of the budget", share),
        ("XP per character", f"{float(Fraction(payload['xp_per_character'])):,.2f}"),
    ]
    lines = "".join(
        f"<li>{m['count']} × level {m['level']} {escape(m['rank'])}: {m['xp']:,} XP</li>"
        for m in payload["monsters"]
    )
    listed = f'<ul class="calc-monsters">{lines}</ul>' if lines else ""
    top = headline(f"Budget {share}", f"{payload['total_xp']:,} of {payload['budget']:,} XP")
    return top + _rows(rows) + listed + sources(payload, base)


def _dice_rolled(expression: str, dice: list[list[int]]) -> str:
    """Each group's dice; where a group keeps some, the dropped ones are marked as such."""
    terms = parse_dice(expression).terms
    groups = []
    for term, rolled in zip(terms, dice, strict=True):
        if not rolled:
            continue
        kept = rolled if term.keep is None else rolled[: term.keep]
        dropped = [] if term.keep is None else rolled[term.keep :]
        text = f'{escape(term.text)}: <span class="calc-kept">{", ".join(map(str, kept))}</span>'
        if dropped:
            struck = ", ".join(f"<s>{value}</s>" for value in dropped)
            text += f'; <span class="calc-dropped">dropped {struck}</span>'
        groups.append(f"<li>{text}</li>")
    return f'<ul class="calc-dice">{"".join(groups)}</ul>'


def roll(payload: Payload, request: Any, base: str) -> str:
    distribution = parse_dice(payload["expression"], weapon_die=request.weapon).distribution()
    odds = {
        "expression": payload["expression"],
        "min": distribution.min,
        "max": distribution.max,
        "mean": str(distribution.mean()),
        "distribution": {str(v): str(p) for v, p in distribution.items()},
    }
    parts, body = _damage_body(odds, None, what="total")
    if payload.get("total") is None:
        rolled = '<p class="calc-rolled">Press “Roll” to roll.</p>'
    else:
        parts.insert(0, f"Rolled {payload['total']}")
        rolled = (
            f'<p class="calc-rolled">Rolled <strong>{payload["total"]}</strong></p>'
            + _dice_rolled(payload["expression"], payload["dice"])
        )
    return headline(*parts) + rolled + body
