"""Command line: `python -m rules_core SUBCOMMAND ... [--json]`.

The options only collect strings into the same mapping a calculator page sends; the
request is built and checked by `rules_core.requests`, as for the pages, and answered
by `rules_core.answers`. The result prints as text or as one JSON object (probabilities
and means as exact fraction strings). Bad input prints one line on stderr and exits
with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from rules_core.calculators import CALCULATORS, answer
from rules_core.calculators.encounter import MAX_MONSTER_ROWS
from rules_core.calculators.pointbuy import ABILITIES
from rules_core.dice import DiceError
from rules_core.requests import InputErrors, Request, one_line
from rules_core.systems import NotDefined, RulesError


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        # Our own wording for a subcommand: argparse's changed between Python patch
        # releases, and the browser's Python must print exactly what this one prints.
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r} (choose from {choices})"
            )


# ---------------------------------------------------------------------- options -> inputs


def _common(args: argparse.Namespace) -> dict[str, str]:
    return {"system": args.system}


def _modifier(args: argparse.Namespace) -> dict[str, str]:
    return {**_common(args), "score": args.score}


def _pointbuy(args: argparse.Namespace) -> dict[str, str]:
    scores = args.scores.split(",")
    if len(scores) != len(ABILITIES):
        raise UsageError(
            f"--scores: give {len(ABILITIES)} scores separated by commas, e.g. 16,14,13,12,10,8"
        )
    scores_by_ability = zip(ABILITIES, scores, strict=True)
    return {**_common(args), **{key: score for (key, _, _), score in scores_by_ability}}


def _abilityroll(args: argparse.Namespace) -> dict[str, str]:
    return _common(args)


def _level(args: argparse.Namespace) -> dict[str, str]:
    return {**_common(args), "xp": args.xp}


def _attack(args: argparse.Namespace) -> dict[str, str]:
    return {
        **_common(args),
        "bonus": args.bonus,
        "defense": args.defense,
        "mode": args.mode,
        "escalation": args.escalation,
        "situations": ",".join(args.situation or ()),
        "attacks": args.attacks,
        "damage": args.damage,
        "miss_damage": args.miss_damage,
        "weapon": args.weapon,
        "level": args.level,
        "extra_crit": args.extra_crit,
        "resist": args.resist,
        "attack_type": args.attack_type,
        **_resistance_inputs(args.resistance, args.vulnerability),
    }


_FLAG = "on"  # --resist / --vulnerable given without an amount


def _resistance_inputs(resistance: str | None, vulnerability: str | None) -> dict[str, str]:
    """One option, two fields: an amount where the text subtracts or adds one, a flag
    where it halves or doubles; the request refuses whichever the system lacks."""
    inputs = {}
    for option, amount, flag in (
        (resistance, "resistance", "resistant"),
        (vulnerability, "vulnerability", "vulnerable"),
    ):
        if option == _FLAG:
            inputs[flag] = "on"
        elif option is not None:
            inputs[amount] = option
    return inputs


def _damage(args: argparse.Namespace) -> dict[str, str]:
    inputs = {
        **_common(args),
        "expression": args.expression,
        "crit": "on" if args.crit else "",
        "weapon": args.weapon,
        "level": args.level,
        "extra_crit": args.extra_crit,
        "hp": args.hp,
    }
    return {**inputs, **_resistance_inputs(args.resist, args.vulnerable)}


def _encounter(args: argparse.Namespace) -> dict[str, str]:
    inputs = {**_common(args), "party": args.party, "level": args.level}
    if len(args.monster or ()) > MAX_MONSTER_ROWS:
        raise UsageError(f"--monster: at most {MAX_MONSTER_ROWS} groups of monsters")
    for row, text in enumerate(args.monster or (), start=1):
        parts = text.split(":")
        if len(parts) not in (2, 3):
            raise UsageError("--monster: a monster is LEVEL:RANK[:COUNT], e.g. 3:standard:2")
        inputs[f"m{row}_level"] = parts[0]
        inputs[f"m{row}_rank"] = parts[1].strip()
        inputs[f"m{row}_count"] = parts[2] if len(parts) == 3 else "1"
    return inputs


def _roll(args: argparse.Namespace) -> dict[str, str]:
    return {
        "expression": args.expression,
        "seed": args.seed,
        "rolled": "off" if args.odds_only else "on",
        "weapon": args.weapon,
    }


def _check(args: argparse.Namespace) -> dict[str, str]:
    return {
        **_common(args),
        "roll": "save" if args.save else "check",
        "bonus": args.bonus,
        "target": args.target,
        "mode": args.mode,
        "escalation": args.escalation,
        "rounds": args.rounds,
        "versus": args.versus,
        "group": args.group,
        "successes": args.successes,
        "difficulty": args.difficulty,
        "level": args.level,
    }


def _dying(args: argparse.Namespace) -> dict[str, str]:
    return {
        **_common(args),
        "bonus": args.bonus,
        "mode": args.mode,
        "failures": args.failures,
        "successes": args.successes,
        "situations": ",".join(args.option or ()),
        "turns": args.turns,
    }


# ---------------------------------------------------------------------- parser


def _roll_mode(sub: argparse.ArgumentParser) -> None:
    """--advantage, --disadvantage or --both (each text says what they do, if anything)."""
    mode = sub.add_mutually_exclusive_group()
    for name, help_text in (
        ("advantage", None),
        ("disadvantage", None),
        ("both", "advantage and disadvantage at once"),
    ):
        mode.add_argument(
            f"--{name}", dest="mode", action="store_const", const=name, help=help_text
        )
    sub.set_defaults(mode="normal")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rules_core", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, inputs, help_text: str, *, system: bool = True):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if system:
            # Checked by the request, as on the pages: argparse's wording changes between
            # Python releases, and the browser's Python must print what this one prints.
            sub.add_argument("--system", required=True, metavar="SYSTEM")
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        sub.set_defaults(inputs=inputs)
        return sub

    sub = command("modifier", _modifier, "Ability score to modifier.")
    sub.add_argument("--score", required=True)

    sub = command("pointbuy", _pointbuy, "Check a point-buy set of six scores.")
    sub.add_argument("--scores", required=True, help="six scores, e.g. 16,14,13,12,10,8")

    sub = command("abilityroll", _abilityroll, "Odds of one rolled ability score.")

    sub = command("level", _level, "Level, level bonus and tier for an XP total.")
    sub.add_argument("--xp", required=True)

    sub = command("attack", _attack, "Chance to hit, critical hit and miss.")
    sub.add_argument("--bonus", required=True, help="attack bonus")
    sub.add_argument("--defense", required=True, help="target's defense (AC, ...)")
    _roll_mode(sub)
    sub.add_argument("--escalation", default="0", help="escalation die (0-6)")
    sub.add_argument("--situation", action="append", metavar="NAME", help="situational modifier")
    sub.add_argument("--attacks", default="1", help="number of attacks")
    sub.add_argument("--damage", metavar="EXPR", help="damage on a hit, e.g. 1d8+4")
    sub.add_argument("--miss-damage", metavar="EXPR", help="damage of a miss effect")
    sub.add_argument("--weapon", metavar="dX", help="weapon die for dW")
    sub.add_argument("--level", help="level, for 'X x Level' damage")
    sub.add_argument("--extra-crit", metavar="EXPR", help="extra dice rolled on a critical hit")
    sub.add_argument("--resist", metavar="X", help="the 3d6 rules' Resist X+")
    sub.add_argument("--attack-type", metavar="TYPE", help="e.g. melee, ranged, near, far")
    sub.add_argument(
        "--resistance", nargs="?", const=_FLAG, metavar="N", help="the target's resistance"
    )
    sub.add_argument(
        "--vulnerability", nargs="?", const=_FLAG, metavar="N", help="the target's vulnerability"
    )

    sub = command("damage", _damage, "Damage distribution, critical damage, chance to reach HP.")
    sub.add_argument("expression", metavar="EXPR")
    sub.add_argument("--crit", action="store_true", help="critical hit")
    sub.add_argument("--weapon", metavar="dX", help="weapon die for dW")
    sub.add_argument("--level", help="level, for 'X x Level' damage")
    sub.add_argument("--extra-crit", metavar="EXPR", help="extra dice rolled on a critical hit")
    sub.add_argument("--resist", nargs="?", const=_FLAG, metavar="N", help="resistance")
    sub.add_argument("--vulnerable", nargs="?", const=_FLAG, metavar="N")
    sub.add_argument("--hp", help="chance that damage reaches this many hit points")

    sub = command("encounter", _encounter, "Encounter XP budget and the XP of monsters.")
    sub.add_argument("--party", required=True, help="number of characters")
    sub.add_argument("--level", required=True, help="the party's level")
    sub.add_argument("--monster", action="append", metavar="LEVEL:RANK[:COUNT]")

    sub = command("check", _check, "Chance that a check or save meets its target.")
    sub.add_argument("--save", action="store_true", help="a saving throw (default: a check)")
    sub.add_argument("--bonus", default="0", help="everything added to the roll")
    sub.add_argument("--target", help="the DC (blank for a save whose target the text fixes)")
    _roll_mode(sub)
    sub.add_argument("--escalation", default="0", help="escalation die on a Rally save (0-6)")
    sub.add_argument("--rounds", default="1", help="saves in a row")
    sub.add_argument("--versus", metavar="BONUS", help="a contest: the opponent's bonus")
    sub.add_argument("--group", metavar="B,B,...", help="a group check: the others' bonuses")
    sub.add_argument("--successes", metavar="N", help="an extended challenge: successes needed")
    sub.add_argument("--difficulty", metavar="NAME", help="a difficulty the text names")
    sub.add_argument("--level", help="level, for difficulties given by level")

    sub = command("dying", _dying, "Death saves: chance of dying, stabilising or getting up.")
    sub.add_argument("--bonus", default="0", help="bonus to death saves")
    _roll_mode(sub)
    sub.add_argument("--failures", default="0", help="failures already marked")
    sub.add_argument("--successes", default="0", help="successes already marked")
    sub.add_argument("--option", action="append", metavar="NAME", help="a death-save option")
    sub.add_argument("--turns", default="3", help="turns to show")

    sub = command("roll", _roll, "Roll a dice expression.", system=False)
    sub.add_argument("expression", metavar="EXPR")
    sub.add_argument("--seed")
    sub.add_argument("--odds-only", action="store_true", help=argparse.SUPPRESS)
    sub.add_argument("--weapon", metavar="dX", help="weapon die for dW")
    return parser


def _field_errors(request: type[Request], inputs: dict[str, Any], errors: dict[str, str]) -> str:
    """Each refused field as the option that gave it: '--score: Enter a whole number ...'."""
    options = {field.name: field.option for field in request.fields_for(inputs)}
    return "; ".join(f"{options.get(name) or name}: {message}" for name, message in errors.items())


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        payload, text = _run(CALCULATORS[args.command].request, args.inputs(args))
    except NotDefined as error:
        where = "; ".join(f"{citation} ({citation.url})" for citation in error.citations)
        print(f"error: {one_line(error)}" + (f" See: {where}" if where else ""), file=sys.stderr)
        return 2
    except (UsageError, RulesError, DiceError, RuntimeError) as error:
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    except (LookupError, TypeError, AttributeError, ValueError) as error:
        # Only the compiled rules data can get here: every input error is one of the above.
        print(
            "error: the compiled rules data is malformed "
            f"({type(error).__name__}: {one_line(error)}); run `make data` and check "
            "content/<system>/rules.yml",
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        print("\n".join(text))
    return 0


def _run(request: type[Request], given: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    inputs = {key: value for key, value in given.items() if value is not None}
    try:
        built = request.from_inputs(inputs)
    except InputErrors as error:
        raise UsageError(_field_errors(request, inputs, error.errors)) from None
    result = answer(built)
    return result.payload, result.text
