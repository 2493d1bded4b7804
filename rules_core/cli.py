"""Command line: `python -m rules_core SUBCOMMAND ... [--json]`.

A thin layer over the library: parse arguments, call one function, print the result as
text or as one JSON object (probabilities and means as exact fraction strings). Bad
input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NoReturn

from rules_core.abilities import modifier, point_buy, rolled_score
from rules_core.attacks import AttackSetup, attack
from rules_core.damage import DamageSetup, damage
from rules_core.dice import MAX_SIDES, DiceError
from rules_core.dice import parse as parse_dice
from rules_core.dice import roll as roll_dice
from rules_core.encounters import Monster, encounter
from rules_core.progression import level_for_xp
from rules_core.systems import NotDefined, RulesError, Sources, get_system, system_slugs

MAX_SEED = 2**63
# ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
_WHOLE = re.compile(r"[0-9]{1,20}")
_DIE = re.compile(r"(?:1?d)?([0-9]{1,4})")


class UsageError(Exception):
    pass


def one_line(message: object) -> str:
    """A message as one line: line breaks and other control characters shown escaped
    (argparse quotes some arguments as typed, e.g. "unrecognized arguments: ...")."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        # Our own wording: argparse's changed between Python patch releases, and the
        # browser's Python must print exactly what the command line prints.
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r} (choose from {choices})"
            )


def _fraction(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:.2f}%"


def die_sides(text: str) -> int | None:
    """The sides of a weapon die written 'd8', '1d8' or '8'; None when it is not one."""
    die = _DIE.fullmatch(text.strip().lower())
    sides = int(die.group(1)) if die else 0
    return sides if 1 <= sides <= MAX_SIDES else None


def _die(text: str) -> int:
    sides = die_sides(text)
    if sides is None:
        raise UsageError(f"a weapon die looks like d8, not {text!r}")
    return sides


def _scores(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"scores are whole numbers separated by commas, not {text!r}") from None


def _monster(text: str) -> Monster:
    parts = text.split(":")
    if len(parts) not in (2, 3) or not _WHOLE.fullmatch(parts[0].strip()):
        raise UsageError(f"a monster is LEVEL:RANK[:COUNT], e.g. 3:standard:2, not {text!r}")
    count = parts[2].strip() if len(parts) == 3 else "1"
    if not _WHOLE.fullmatch(count):
        raise UsageError(f"a monster count is a whole number, not {count!r}")
    return Monster(int(parts[0]), parts[1].strip().lower(), int(count))


def _with_sources(payload: dict[str, Any], sources: Sources) -> dict[str, Any]:
    payload.update(sources.to_json())
    return payload


def _sources_text(sources: Sources) -> list[str]:
    lines = []
    if sources.citations:
        lines.append("Rules applied:")
        lines += [f"  - {citation} ({citation.url})" for citation in sources.citations]
    for note in sources.interpretations:
        lines.append(f"Interpretation: {note}")
    return lines


# ---------------------------------------------------------------------- subcommands


def run_modifier(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    system = get_system(args.system)
    result = modifier(system, args.score)
    payload = {"system": system.slug, "score": result.score, "modifier": result.modifier}
    text = [f"{system.title}: a score of {result.score} gives a modifier of {result.modifier:+d}."]
    return _with_sources(payload, result.sources), text + _sources_text(result.sources)


def run_pointbuy(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    system = get_system(args.system)
    result = point_buy(system, _scores(args.scores))
    payload = {
        "system": system.slug,
        "scores": list(result.scores),
        "cost": result.cost,
        "budget": result.budget,
        "remaining": result.remaining,
        "valid": result.valid,
        "problems": result.problems,
    }
    verdict = "valid" if result.valid else "not valid"
    text = [
        f"{system.title}: scores {', '.join(map(str, result.scores))} cost {result.cost} "
        f"of {result.budget} points ({result.remaining} left): {verdict}.",
        *(f"  - {problem}" for problem in result.problems),
    ]
    return _with_sources(payload, result.sources), text + _sources_text(result.sources)


def run_level(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    system = get_system(args.system)
    result = level_for_xp(system, args.xp)
    payload = {
        "system": system.slug,
        "xp": result.xp,
        "level": result.level,
        "level_bonus": result.level_bonus,
        "tier": result.tier.lower(),
        "xp_for_next_level": result.xp_for_next_level,
        "xp_needed": result.xp_needed,
        "grants": result.grants,
    }
    following = (
        f"level {result.level + 1} at {result.xp_for_next_level:,} XP ({result.xp_needed:,} to go)"
        if result.xp_for_next_level is not None
        else "the top level"
    )
    text = [
        f"{system.title}: {result.xp:,} XP is level {result.level} ({result.tier} tier), "
        f"level bonus {result.level_bonus:+d}; next: {following}.",
        *(f"  {name}: {value}" for name, value in result.grants.items()),
    ]
    return _with_sources(payload, result.sources), text + _sources_text(result.sources)


def attack_setup(args: argparse.Namespace) -> AttackSetup:
    return AttackSetup(
        bonus=args.bonus,
        defense=args.defense,
        advantage=args.advantage,
        disadvantage=args.disadvantage,
        escalation=args.escalation,
        situations=tuple(args.situation or ()),
        attacks=args.attacks,
        damage=args.damage,
        miss_damage=args.miss_damage,
        weapon_die=_die(args.weapon) if args.weapon else None,
        level=args.level,
        extra_crit=args.extra_crit,
        resist=args.resist,
    )


def run_attack(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    system = get_system(args.system)
    setup = attack_setup(args)
    result = attack(system, setup)
    payload = {
        "system": system.slug,
        "roll": result.roll,
        "attack_modifier": result.attack_modifier,
        "defense": result.defense,
        "hit": _fraction(result.hit),
        "crit": _fraction(result.crit),
        "miss": _fraction(result.miss),
        "crit_fail": _fraction(result.crit_fail),
        "attacks": setup.attacks,
        "at_least_one_hit": _fraction(result.at_least_one_hit),
        "expected_damage": _fraction(result.expected_damage),
    }
    text = [
        f"{system.title}: {result.roll} {result.attack_modifier:+d} against defense "
        f"{result.defense}",
        f"  hit        {result.hit} ({_percent(result.hit)})",
        f"  critical   {result.crit} ({_percent(result.crit)})",
        f"  miss       {result.miss} ({_percent(result.miss)})",
    ]
    if result.crit_fail is not None:
        text.append(f"  crit fail  {result.crit_fail} ({_percent(result.crit_fail)})")
    if setup.attacks > 1:
        text.append(
            f"  at least one hit in {setup.attacks} attacks: {result.at_least_one_hit} "
            f"({_percent(result.at_least_one_hit)})"
        )
    if result.expected_damage is not None:
        text.append(
            f"  expected damage per attack: {result.expected_damage} "
            f"(about {float(result.expected_damage):.2f})"
        )
    return _with_sources(payload, result.sources), text + _sources_text(result.sources)


def run_damage(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    system = get_system(args.system)
    setup = DamageSetup(
        expression=args.expression,
        crit=args.crit,
        weapon_die=_die(args.weapon) if args.weapon else None,
        level=args.level,
        extra_crit=args.extra_crit,
        resistance=args.resist,
        vulnerability=args.vulnerable,
        hp=args.hp,
    )
    result = damage(system, setup)
    payload = {
        "system": system.slug,
        "expression": result.expression,
        "min": result.minimum,
        "max": result.maximum,
        "mean": _fraction(result.mean),
        "distribution": {
            str(value): str(probability) for value, probability in result.distribution.items()
        },
        "at_least_hp": _fraction(result.at_least_hp),
    }
    text = [
        f"{system.title}: {result.expression}"
        + (" (critical hit)" if setup.crit else "")
        + f": min {result.minimum}, max {result.maximum}, mean {result.mean} "
        f"(about {float(result.mean):.2f})"
    ]
    if result.at_least_hp is not None:
        text.append(
            f"  P(damage >= {setup.hp}) = {result.at_least_hp} ({_percent(result.at_least_hp)})"
        )
    return _with_sources(payload, result.sources), text + _sources_text(result.sources)


def run_encounter(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    system = get_system(args.system)
    monsters = [_monster(text) for text in args.monster or ()]
    result = encounter(system, args.party, args.level, monsters)
    payload = {
        "system": system.slug,
        "party": result.party,
        "level": result.level,
        "budget": result.budget,
        "total_xp": result.total_xp,
        "share": _fraction(result.share),
        "xp_per_character": _fraction(result.xp_per_character),
        "monsters": [
            {"level": monster.level, "rank": monster.rank, "count": monster.count, "xp": xp}
            for monster, xp in result.lines
        ],
    }
    text = [
        f"{system.title}: budget for {result.party} characters of level {result.level}: "
        f"{result.budget:,} XP",
        *(
            f"  {monster.count} x level {monster.level} {monster.rank}: {xp:,} XP"
            for monster, xp in result.lines
        ),
        f"  total {result.total_xp:,} XP = {_percent(result.share)} of the budget, "
        f"{result.xp_per_character} XP per character",
    ]
    return _with_sources(payload, result.sources), text + _sources_text(result.sources)


def run_abilityroll(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    system = get_system(args.system)
    distribution, text, sources = rolled_score(system)
    payload = {
        "system": system.slug,
        "expression": text,
        "min": distribution.min,
        "max": distribution.max,
        "mean": str(distribution.mean()),
        "distribution": {str(value): str(p) for value, p in distribution.items()},
    }
    lines = [
        f"{system.title}: each score is rolled as {text}: {distribution.min} to "
        f"{distribution.max}, mean {distribution.mean()} (about {float(distribution.mean()):.2f})"
    ]
    return _with_sources(payload, sources), lines + _sources_text(sources)


def run_roll(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    if args.seed is not None and not 0 <= args.seed < MAX_SEED:
        raise UsageError(f"a seed is a whole number from 0 to {MAX_SEED - 1}")
    expression = parse_dice(args.expression, weapon_die=_die(args.weapon) if args.weapon else None)
    if args.odds_only:
        payload = {"expression": expression.text, "total": None, "dice": None, "seed": args.seed}
        return payload, [expression.text]
    total, dice = roll_dice(expression, random.Random(args.seed))
    payload = {"expression": expression.text, "total": total, "dice": dice, "seed": args.seed}
    return payload, [f"{expression.text}: {total}  (dice: {dice})"]


# ---------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rules_core", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, handler, help_text: str, *, system: bool = True):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if system:
            sub.add_argument("--system", required=True, choices=system_slugs())
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        sub.set_defaults(handler=handler)
        return sub

    sub = command("modifier", run_modifier, "Ability score to modifier.")
    sub.add_argument("--score", type=int, required=True)

    sub = command("pointbuy", run_pointbuy, "Check a point-buy set of six scores.")
    sub.add_argument("--scores", required=True, help="six scores, e.g. 16,14,13,12,10,8")

    sub = command("abilityroll", run_abilityroll, "Odds of one rolled ability score.")

    sub = command("level", run_level, "Level, level bonus and tier for an XP total.")
    sub.add_argument("--xp", type=int, required=True)

    sub = command("attack", run_attack, "Chance to hit, critical hit and miss.")
    sub.add_argument("--bonus", type=int, required=True, help="attack bonus")
    sub.add_argument("--defense", type=int, required=True, help="target's defense (AC, ...)")
    edge = sub.add_mutually_exclusive_group()
    edge.add_argument("--advantage", action="store_true")
    edge.add_argument("--disadvantage", action="store_true")
    sub.add_argument("--both", action="store_true", help="advantage and disadvantage at once")
    sub.add_argument("--escalation", type=int, default=0, help="escalation die (0-6)")
    sub.add_argument("--situation", action="append", metavar="NAME", help="situational modifier")
    sub.add_argument("--attacks", type=int, default=1, help="number of attacks")
    sub.add_argument("--damage", metavar="EXPR", help="damage on a hit, e.g. 1d8+4")
    sub.add_argument("--miss-damage", metavar="EXPR", help="damage of a miss effect")
    sub.add_argument("--weapon", metavar="dX", help="weapon die for dW")
    sub.add_argument("--level", type=int, help="level, for 'X x Level' damage")
    sub.add_argument("--extra-crit", metavar="EXPR", help="extra dice rolled on a critical hit")
    sub.add_argument("--resist", type=int, metavar="X", help="the 3d6 rules' Resist X+")

    sub = command("damage", run_damage, "Damage distribution, critical damage, chance to reach HP.")
    sub.add_argument("expression", metavar="EXPR")
    sub.add_argument("--crit", action="store_true", help="critical hit")
    sub.add_argument("--weapon", metavar="dX", help="weapon die for dW")
    sub.add_argument("--level", type=int, help="level, for 'X x Level' damage")
    sub.add_argument("--extra-crit", metavar="EXPR", help="extra dice rolled on a critical hit")
    sub.add_argument("--resist", type=int, nargs="?", const=0, metavar="N", help="resistance")
    sub.add_argument("--vulnerable", type=int, nargs="?", const=0, metavar="N")
    sub.add_argument("--hp", type=int, help="chance that damage reaches this many hit points")

    sub = command("encounter", run_encounter, "Encounter XP budget and the XP of monsters.")
    sub.add_argument("--party", type=int, required=True, help="number of characters")
    sub.add_argument("--level", type=int, required=True, help="the party's level")
    sub.add_argument("--monster", action="append", metavar="LEVEL:RANK[:COUNT]")

    sub = command("roll", run_roll, "Roll a dice expression.", system=False)
    sub.add_argument("expression", metavar="EXPR")
    sub.add_argument("--seed", type=int)
    sub.add_argument("--odds-only", action="store_true", help=argparse.SUPPRESS)
    sub.add_argument("--weapon", metavar="dX", help="weapon die for dW")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
    except RuntimeError as error:  # the compiled rules data is missing
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
        if getattr(args, "both", False):
            args.advantage = args.disadvantage = True
        payload, text = args.handler(args)
    except NotDefined as error:
        where = "; ".join(f"{citation} ({citation.url})" for citation in error.citations)
        print(f"error: {one_line(error)}" + (f" See: {where}" if where else ""), file=sys.stderr)
        return 2
    except (UsageError, RulesError, DiceError) as error:
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        print("\n".join(text))
    return 0
