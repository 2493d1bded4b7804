"""Checks and saves: the chance that a natural roll plus a bonus meets a target.

Each system's `checks:` and `saves:` sections of rules.yml say which dice the roll uses,
its fixed target or named difficulties, whether advantage, the escalation die or a
"save ends" repeat applies, and how contests and group checks go. Nothing here names a
system: what a text does not define is refused with the text's own `not_defined` note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from math import ceil, comb
from typing import Any

from rules_core.citations import Sources
from rules_core.dice import Distribution, parse
from rules_core.dice.median import median_versus
from rules_core.errors import NotDefined, RulesError
from rules_core.rules.checks import Checks, Difficulty, RolledSection, Saves
from rules_core.rules.common import Advantage
from rules_core.systems import System

MAX_MODIFIER = 1000
MAX_ROUNDS = 100
MAX_GROUP = 12

# The rules.yml section of each kind of roll, and what a refusal calls it.
KINDS = {"check": ("checks", "checks"), "save": ("saves", "saving throws")}


@cache
def natural_distribution(roll: str) -> Distribution:
    """The natural roll ('1d20', '2d20kh1', '3d6'): a handful, reused."""
    return parse(roll).distribution()


def section(system: System, kind: str) -> Checks | Saves:
    if kind not in KINDS:
        raise RulesError(f"Unknown kind of roll {kind!r} (known: {', '.join(KINDS)}).")
    return system.roll_section(KINDS[kind][0])


def advantage_dice(system: System, section: RolledSection) -> Advantage | None:
    """A section's advantage dice, or None; a name points at another section's dice."""
    advantage = section.advantage
    if isinstance(advantage, str):
        advantage = system.roll_section(advantage).advantage
    return None if isinstance(advantage, str) else advantage


def natural_roll(
    system: System, entry: RolledSection, advantage: int, disadvantage: int, sources: Sources
) -> str:
    """The dice a roll uses once advantage and disadvantage (counts) are applied."""
    if advantage < 0 or disadvantage < 0:
        raise RulesError("Advantage and disadvantage are counts of 0 or more.")
    if not (advantage or disadvantage):
        return entry.roll
    rule = advantage_dice(system, entry)
    if rule is None:
        raise system.not_defined("advantage", "advantage and disadvantage dice for this roll")
    sources.cite(rule.cite)
    sources.interpret(entry.advantage_interpretation)
    if advantage and disadvantage:
        sources.interpret(rule.both)
        return entry.roll
    return rule.advantage if advantage else rule.disadvantage


def success_chance(roll: str, modifier: int, target: int) -> Fraction:
    """P(natural + modifier >= target): no natural-roll rule applies to checks and saves."""
    return natural_distribution(roll).at_least(target - modifier)


def named_difficulties(system: System, kind: str) -> tuple[Difficulty, ...]:
    """The difficulties the text names for a check or a save: the section's own rows, or a
    table's rows (none where it has no such roll, or names none)."""
    if system.rules.get(KINDS[kind][0]) is None:
        return ()
    rule = section(system, kind).difficulties
    return rule.named() if rule else ()


@dataclass(frozen=True)
class CheckSetup:
    """One check or save as asked: the bonus, the target, and what changes the roll."""

    kind: str = "check"  # "check" or "save"
    bonus: int = 0
    target: int | None = None  # None: the section's fixed target, or the named difficulty
    difficulty: str | None = None  # a label from the section's difficulties
    level: int | None = None  # for difficulties given by level
    advantage: int = 0  # how many circumstances grant advantage
    disadvantage: int = 0
    escalation: int = 0
    rounds: int = 1  # saves in a row


@dataclass(frozen=True)
class CheckResult:
    """The odds of a check or save, once and over several rounds."""

    label: str  # what the text calls the roll
    roll: str  # natural roll after advantage, e.g. "2d20kh1"
    modifier: int  # bonus + escalation
    target: int
    success: Fraction
    failure: Fraction
    rounds: int
    at_least_one: Fraction  # P(a success within `rounds` rolls)
    expected_rounds: Fraction | None  # rolls until the first success; None if never
    breakdown: tuple[tuple[str, int], ...]
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "roll": self.roll,
            "modifier": self.modifier,
            "target": self.target,
            "success": str(self.success),
            "failure": str(self.failure),
            "rounds": self.rounds,
            "at_least_one": str(self.at_least_one),
            "expected_rounds": _text(self.expected_rounds),
            "breakdown": [list(part) for part in self.breakdown],
            **self.sources.to_json(),
        }


def _text(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def _target(system: System, entry: Checks | Saves, setup: CheckSetup, sources: Sources) -> int:
    fixed = entry.target if isinstance(entry, Saves) else None  # a check has no fixed target
    if fixed is not None:
        if setup.target is not None and setup.target != fixed:
            raise RulesError(
                f"A {entry.label.lower()} in {system.short_title} always needs {fixed} "
                "or higher: change the bonus instead."
            )
        if setup.difficulty is not None:
            raise RulesError(f"A {entry.label.lower()} has a fixed target of {fixed}.")
        return fixed
    if setup.difficulty is not None:
        if setup.target is not None:
            raise RulesError("Give either a target or a named difficulty, not both.")
        return _named_difficulty(system, entry, setup, sources)
    if setup.target is None:
        raise RulesError("Give the target (the DC) to meet.")
    if abs(setup.target) > MAX_MODIFIER:
        raise RulesError(f"The target must be within ±{MAX_MODIFIER}.")
    return setup.target


def _named_difficulty(
    system: System, entry: Checks | Saves, setup: CheckSetup, sources: Sources
) -> int:
    rule = entry.difficulties
    rows = rule.named() if rule else ()
    if rule is None or not rows:
        other = "save" if setup.kind == "check" else "check"
        elsewhere = section(system, other) if system.rules.get(KINDS[other][0]) else None
        if elsewhere and elsewhere.difficulties:  # the text names them, only not for this roll
            raise NotDefined(
                f"{system.title} names difficulties for {KINDS[other][1]}, not for "
                f"{KINDS[setup.kind][1]}: give the target instead.",
                list(elsewhere.difficulties.cite),
            )
        raise system.not_defined("difficulties", "named difficulties")
    named = [row for row in rows if row.label.casefold() == str(setup.difficulty).casefold()]
    if not named:
        known = ", ".join(dict.fromkeys(row.label for row in rows))
        raise RulesError(
            f"{setup.difficulty!r} is not a difficulty {system.short_title} names (known: {known})."
        )
    sources.cite(rule.cite)
    by_level = [(row, row.levels) for row in named if row.levels is not None]
    if by_level:
        spans = ", ".join(f"{low}-{high}" for _, (low, high) in by_level)
        if setup.level is None:
            raise RulesError(f"Give the level: the text gives this difficulty for levels {spans}.")
        fitting = [row for row, (low, high) in by_level if low <= setup.level <= high]
        if not fitting:
            raise NotDefined(
                f"{system.title} gives the {named[0].label} difficulty for levels {spans} "
                f"only, not for level {setup.level}.",
                list(rule.cite),
            )
        named = fitting
    sources.interpret(named[0].interpretation)
    return named[0].value


def _escalation(system: System, entry: Checks | Saves, escalation: int, sources: Sources) -> None:
    if not escalation:
        return
    rule = entry.escalation if isinstance(entry, Saves) else None  # checks have none
    if rule is None:
        raise system.not_defined("escalation", f"an escalation bonus to a {entry.label.lower()}")
    if not 0 <= escalation <= rule.max:
        raise RulesError(f"The escalation die runs from 0 to {rule.max}.")
    sources.rest_on(rule)


def _cite_section(entry: Checks | Saves, sources: Sources) -> None:
    sources.cite(entry.cite)
    sources.cite(entry.bonus.cite if entry.bonus else None)
    sources.interpret(entry.interpretation)
    for note in entry.unstated:
        sources.interpret(note)


def bonus_reading(entry: RolledSection, bonus: int, sources: Sources) -> None:
    """A bonus the reader gave, labelled with what the text says of bonuses to this roll
    (a 4e save: "the bonus is 0 unless a power gives one")."""
    note = entry.bonus.note if entry.bonus else None
    if bonus and note:
        sources.interpret(f"The bonus of {bonus:+d} is added as given. {note}")


def rally_reading(escalation: int, rounds: int, sources: Sources) -> None:
    if escalation and rounds > 1:
        sources.interpret(
            f"The escalation die is counted at {escalation} for each of the {rounds} saves: "
            "it may rise between rounds, which this does not count."
        )


def check(system: System, setup: CheckSetup) -> CheckResult:
    entry = section(system, setup.kind)
    sources = Sources()
    _cite_section(entry, sources)
    if abs(setup.bonus) > MAX_MODIFIER:
        raise RulesError(f"The bonus must be within ±{MAX_MODIFIER}.")
    if not 1 <= setup.rounds <= MAX_ROUNDS:
        raise RulesError(f"The number of rounds must be from 1 to {MAX_ROUNDS}.")
    target = _target(system, entry, setup, sources)
    _escalation(system, entry, setup.escalation, sources)
    roll = natural_roll(system, entry, setup.advantage, setup.disadvantage, sources)
    repeat = entry.repeat if isinstance(entry, Saves) else None  # how a save repeats
    if setup.rounds > 1 and repeat:
        sources.cite(repeat.cite)
    bonus_reading(entry, setup.bonus, sources)
    rally_reading(setup.escalation, setup.rounds, sources)
    modifier = setup.bonus + setup.escalation
    success = success_chance(roll, modifier, target)
    breakdown = [("Bonus", setup.bonus)]
    if setup.escalation:
        breakdown.append(("Escalation die", setup.escalation))
    return CheckResult(
        label=entry.label,
        roll=roll,
        modifier=modifier,
        target=target,
        success=success,
        failure=1 - success,
        rounds=setup.rounds,
        at_least_one=1 - (1 - success) ** setup.rounds,
        # One roll a round until the first success: a geometric count, mean 1/p.
        expected_rounds=1 / success if success else None,
        breakdown=tuple(breakdown),
        sources=sources,
    )


@dataclass(frozen=True)
class Side:
    """One side of a contest: its bonus, advantage and disadvantage."""

    bonus: int = 0
    advantage: int = 0
    disadvantage: int = 0


@dataclass(frozen=True)
class ContestResult:
    """The odds of a contest between two sides, and what the text does with a tie."""

    label: str
    rolls: tuple[str, str]
    win: Fraction  # the first side's total is higher
    tie: Fraction
    lose: Fraction
    tie_rule: str
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "rolls": list(self.rolls),
            "win": str(self.win),
            "tie": str(self.tie),
            "lose": str(self.lose),
            "tie_rule": self.tie_rule,
            **self.sources.to_json(),
        }


def contest(system: System, first: Side, second: Side) -> ContestResult:
    """Two checks compared: the higher total wins; a tie goes as the text says."""
    entry = system.checks
    rule = entry.contest
    if rule is None:
        raise system.not_defined("contest", "contests (opposed checks)")
    sources = Sources()
    _cite_section(entry, sources)
    sources.cite(rule.cite)
    for side in (first, second):
        if abs(side.bonus) > MAX_MODIFIER:
            raise RulesError(f"Each bonus must be within ±{MAX_MODIFIER}.")
    rolls = tuple(
        natural_roll(system, entry, side.advantage, side.disadvantage, sources)
        for side in (first, second)
    )
    a = natural_distribution(rolls[0]) + first.bonus
    b = natural_distribution(rolls[1]) + second.bonus
    difference = a - b
    win = difference.at_least(1)
    lose = difference.at_most(-1)
    return ContestResult(
        label=entry.label,
        rolls=(rolls[0], rolls[1]),
        win=win,
        tie=1 - win - lose,
        lose=lose,
        tie_rule=rule.tie,
        sources=sources,
    )


def _members_roll(
    system: System, entry: Checks, advantage: int, disadvantage: int, sources: Sources
) -> str:
    """Each member's roll in a group check, advantage given to all (a labelled reading)."""
    roll = natural_roll(system, entry, advantage, disadvantage, sources)
    if advantage or disadvantage:
        sources.interpret(
            "Advantage and disadvantage are given to every member's roll here: the text's "
            "group check does not say who has them."
        )
    return roll


def group_contest(
    system: System,
    bonuses: Sequence[int],
    opponent: Side,
    advantage: int = 0,
    disadvantage: int = 0,
) -> ContestResult:
    """A group against one opponent: the median of the members' totals against the
    opponent's total, where the text says so (`checks.group.contest`)."""
    entry = system.checks
    rule, group = entry.contest, entry.group
    if rule is None:
        raise system.not_defined("contest", "contests (opposed checks)")
    if group is None:
        raise system.not_defined("group", "group checks")
    together = group.contest
    if together is None:
        raise system.not_defined("group_contest", "how a group check is compared in a contest")
    if not 1 <= len(bonuses) <= MAX_GROUP:
        raise RulesError(f"A group check needs 1 to {MAX_GROUP} members' bonuses.")
    if any(abs(bonus) > MAX_MODIFIER for bonus in (*bonuses, opponent.bonus)):
        raise RulesError(f"Each bonus must be within ±{MAX_MODIFIER}.")
    sources = Sources()
    _cite_section(entry, sources)
    for cited in (rule, group, together):
        sources.cite(cited.cite)
    sources.interpret(together.interpretation)
    if len(bonuses) % 2 == 0:
        sources.interpret(
            f"With {len(bonuses)} members the median is the mean of the two middle totals "
            "(which may end in a half): the text does not say."
        )
    roll = _members_roll(system, entry, advantage, disadvantage, sources)
    against = natural_roll(system, entry, opponent.advantage, opponent.disadvantage, sources)
    members = [natural_distribution(roll) + bonus for bonus in bonuses]
    win, tie, lose = median_versus(members, natural_distribution(against) + opponent.bonus)
    return ContestResult(
        label=entry.label,
        rolls=(roll, against),
        win=win,
        tie=tie,
        lose=lose,
        tie_rule=rule.tie,
        sources=sources,
    )


@dataclass(frozen=True)
class GroupResult:
    """The odds of a group check: each member's, and the group's."""

    label: str
    roll: str
    target: int
    members: tuple[Fraction, ...]  # each member's chance
    needed: int  # successes the group needs
    success: Fraction
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "roll": self.roll,
            "target": self.target,
            "members": [str(p) for p in self.members],
            "needed": self.needed,
            "success": str(self.success),
            **self.sources.to_json(),
        }


def group_check(
    system: System,
    bonuses: Sequence[int],
    target: int | None,
    advantage: int = 0,
    disadvantage: int = 0,
    *,
    difficulty: str | None = None,
    level: int | None = None,
) -> GroupResult:
    """Everyone rolls; the group succeeds if enough of them do (the text's share). The
    target is a DC, or one of the difficulties the text names for checks."""
    entry = system.checks
    rule = entry.group
    if rule is None:
        raise system.not_defined("group", "group checks")
    if not 1 <= len(bonuses) <= MAX_GROUP:
        raise RulesError(f"A group check needs 1 to {MAX_GROUP} members' bonuses.")
    sources = Sources()
    if difficulty is not None:
        if target is not None:
            raise RulesError("Give either a target or a named difficulty, not both.")
        named = CheckSetup(kind="check", difficulty=difficulty, level=level)
        target = _named_difficulty(system, entry, named, sources)
    if target is None:
        raise RulesError("Give the target (the DC) of the group check, or a named difficulty.")
    if any(abs(bonus) > MAX_MODIFIER for bonus in bonuses) or abs(target) > MAX_MODIFIER:
        raise RulesError(f"Bonuses and the target must be within ±{MAX_MODIFIER}.")
    _cite_section(entry, sources)
    sources.cite(rule.cite)
    roll = _members_roll(system, entry, advantage, disadvantage, sources)
    members = tuple(success_chance(roll, bonus, target) for bonus in bonuses)
    needed = ceil(rule.at_least * len(members))
    # successes[k] = P(exactly k members succeed), built one member at a time.
    successes = [Fraction(1)]
    for p in members:
        successes = [
            (successes[k] if k < len(successes) else 0) * (1 - p)
            + (successes[k - 1] * p if k else 0)
            for k in range(len(successes) + 1)
        ]
    return GroupResult(
        label=entry.label,
        roll=roll,
        target=target,
        members=members,
        needed=needed,
        success=sum(successes[needed:], Fraction(0)),
        sources=sources,
    )


@dataclass(frozen=True)
class ExtendedResult:
    """The odds of an extended challenge: its successes before its failures."""

    label: str
    check: CheckResult
    successes: int  # needed
    failures: int  # that end the challenge
    success: Fraction  # the successes come before the failures
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            **self.check.to_json(),
            "label": self.label,
            "successes": self.successes,
            "failures": self.failures,
            "challenge": str(self.success),
            **self.sources.to_json(),
        }


def extended_challenge(system: System, setup: CheckSetup, successes: int) -> ExtendedResult:
    """Checks until `successes` successes or the text's number of failures, whichever first."""
    rule = system.checks.extended
    if rule is None:
        raise system.not_defined("extended", "extended challenges")
    if not 1 <= successes <= MAX_ROUNDS:
        raise RulesError(f"The successes needed must be from 1 to {MAX_ROUNDS}.")
    one = check(system, replace(setup, kind="check", rounds=1))
    sources = one.sources
    sources.rest_on(rule)
    failures = rule.failures
    p = one.success
    # The last check is the n-th success, after f < failures failures in any order.
    chance = sum(
        (comb(successes - 1 + f, f) * p**successes * (1 - p) ** f for f in range(failures)),
        Fraction(0),
    )
    return ExtendedResult(rule.label, one, successes, failures, chance, sources)
