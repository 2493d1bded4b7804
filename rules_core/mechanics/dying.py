"""The dying chain: the exact odds of death saves, turn by turn and overall.

A dying character's state is the number of successes and failures marked so far. Each
turn's save moves it by the system's `dying:` rules in rules.yml: a plain success or
failure, special results on some rolls (two failures, back on their feet, ...) and the
counts that end it. That is an absorbing Markov chain; the odds after n turns come from
stepping it, the overall odds from solving it exactly (states only move forward, so a
state's absorption odds follow from its successors', with "no change" self-loops divided
out). Fractions throughout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, TypeIs

from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.mechanics.checks import (
    MAX_MODIFIER,
    bonus_reading,
    natural_distribution,
    natural_roll,
)
from rules_core.rules.dying import Dying
from rules_core.systems import System

MAX_TURNS = 100
RESULTS = ("dead", "stable", "up")  # how dying ends
NEVER = ("dying", "Never ends: every save leaves the state as it was")

State = tuple[int, int]  # (successes, failures) marked
Ending = tuple[str, str]  # (one of RESULTS, the text's label)
# An event is either a mark, (successes added, failures added), or an ending.
Event = tuple[int, int] | Ending
# Where dying goes from a state: the chance of each ending, and the expected saves until
# one (None where it may never end).
Solution = tuple[dict[Ending, Fraction], Fraction | None]


@dataclass(frozen=True)
class DyingSetup:
    """A dying character's saves as asked: their bonus, what is already marked, the turns."""

    bonus: int = 0
    advantage: int = 0
    disadvantage: int = 0
    successes: int = 0  # already marked
    failures: int = 0  # already marked
    options: tuple[str, ...] = ()  # names from the system's dying.options
    turns: int = 3


@dataclass(frozen=True)
class Odds:
    """How dying stands: the chances of each way it can end, and of still dying."""

    dead: Fraction
    stable: Fraction
    up: Fraction
    dying: Fraction  # still dying (after n turns), or dying for ever (overall)

    def to_json(self) -> dict[str, str]:
        return {name: str(getattr(self, name)) for name in ("dead", "stable", "up", "dying")}


@dataclass(frozen=True)
class DyingResult:
    """Dying by the system's rules: one save's outcomes, then turn by turn and overall."""

    label: str
    roll: str
    target: int
    modifier: int
    one_save: tuple[tuple[str, Fraction], ...]  # what one save does, by the text's labels
    by_turn: tuple[Odds, ...]  # after turn 1, 2, ..., `turns`
    overall: Odds
    endings: tuple[tuple[str, str, Fraction], ...]  # (result, label, overall chance)
    expected_saves: Fraction | None  # until dying ends; None if it may never end
    breakdown: tuple[tuple[str, int], ...]
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "roll": self.roll,
            "target": self.target,
            "modifier": self.modifier,
            "one_save": [[label, str(p)] for label, p in self.one_save],
            "by_turn": [odds.to_json() for odds in self.by_turn],
            "overall": self.overall.to_json(),
            "endings": [[kind, label, str(p)] for kind, label, p in self.endings],
            "expected_saves": None if self.expected_saves is None else str(self.expected_saves),
            "breakdown": [list(part) for part in self.breakdown],
            **self.sources.to_json(),
        }


def _event(rule: Dying, target: int, natural: int, total: int, options: Iterable[str]) -> Event:
    """What one roll does under the text's rules, the first special result that applies first."""
    for special in rule.special:
        if not special.matches(natural, total):
            continue
        without = special.without
        if without and without.option in options:
            total = without.as_total  # "treat this result as a 19"
            continue
        if special.result is not None:
            return (special.result, special.label)
        return (special.successes or 0, special.failures or 0)
    return (1, 0) if total >= target else (0, 1)


def _event_label(
    rule: Dying, event: Event, natural: int, total: int, options: tuple[str, ...]
) -> str:
    for special in rule.special:
        if special.matches(natural, total) and not (
            special.without and special.without.option in options
        ):
            return special.label
    return "Success" if event == (1, 0) else "Failure"


@dataclass(frozen=True)
class _Save:
    """One save's events, as exact chances."""

    events: tuple[tuple[Event, Fraction], ...]
    labelled: tuple[tuple[str, Fraction], ...]


def _save(rule: Dying, roll: str, target: int, modifier: int, options: tuple[str, ...]) -> _Save:
    distribution = natural_distribution(roll)
    events: dict[Event, Fraction] = {}
    labelled: dict[str, Fraction] = {}
    for natural, chance in distribution.items():
        total = natural + modifier
        event = _event(rule, target, natural, total, options)
        events[event] = events.get(event, Fraction(0)) + chance
        label = _event_label(rule, event, natural, total, options)
        labelled[label] = labelled.get(label, Fraction(0)) + chance
    return _Save(tuple(events.items()), tuple(labelled.items()))


@dataclass(frozen=True)
class _Chain:
    """How a system counts death saves: the failures that kill, the successes that end dying."""

    failures: int  # failures that kill
    successes: int | None  # successes that end dying, None: a success changes nothing
    success_ending: Ending | None
    failure_ending: Ending

    def move(self, state: State, event: Event) -> State | Ending:
        if isinstance(event[0], str):
            return event
        successes, failures = state[0] + int(event[0]), state[1] + int(event[1])
        if failures >= self.failures:
            return self.failure_ending
        if self.successes is None:
            return (0, failures)
        if successes >= self.successes:
            assert self.success_ending is not None
            return self.success_ending
        return (successes, failures)


def _is_ending(value: State | Ending) -> TypeIs[Ending]:
    return isinstance(value[0], str)


def _step(
    chain: _Chain, states: dict[State, Fraction], save: _Save, ended: dict[Ending, Fraction]
) -> dict[State, Fraction]:
    after: dict[State, Fraction] = {}
    for state, chance in states.items():
        for event, p in save.events:
            moved = chain.move(state, event)
            if _is_ending(moved):
                ended[moved] = ended.get(moved, Fraction(0)) + chance * p
            else:
                after[moved] = after.get(moved, Fraction(0)) + chance * p
    return after


def _after_one_save(
    moves: Iterable[tuple[State | Ending, Fraction]], solve: Callable[[State], Solution]
) -> Solution:
    """The chance of each ending and the expected saves (this one counted), over where one
    save moves (each with its chance); `solve` answers the same for a state still dying."""
    odds: dict[Ending, Fraction] = {}
    expected: Fraction | None = Fraction(1)
    for moved, p in moves:
        after: dict[Ending, Fraction]
        saves: Fraction | None
        if _is_ending(moved):
            after, saves = {moved: Fraction(1)}, Fraction(0)
        else:
            after, saves = solve(moved)
        for ending, q in after.items():
            odds[ending] = odds.get(ending, Fraction(0)) + p * q
        expected = None if expected is None or saves is None else expected + p * saves
    return odds, expected


def _absorption(chain: _Chain, save: _Save) -> Callable[[State], Solution]:
    """Per state: the chance of each ending, and the expected saves until one (or None)."""

    @cache
    def solve(state: State) -> Solution:
        staying = Fraction(0)
        moves: list[tuple[State | Ending, Fraction]] = []
        for event, p in save.events:
            moved = chain.move(state, event)
            if moved == state:
                staying += p
            else:
                moves.append((moved, p))
        if staying == 1:
            return {NEVER: Fraction(1)}, None
        odds, expected = _after_one_save(moves, solve)
        # Saves that change nothing repeat until one does: divide by the chance of moving.
        leave = 1 - staying
        return {ending: q / leave for ending, q in odds.items()}, (
            None if expected is None else expected / leave
        )

    return solve


def _odds(ended: dict[Ending, Fraction], dying: Fraction) -> Odds:
    def total(result: str) -> Fraction:
        return sum((p for (kind, _), p in ended.items() if kind == result), Fraction(0))

    return Odds(total("dead"), total("stable"), total("up"), dying)


def _chain(rule: Dying, sources: Sources) -> _Chain:
    failures = rule.failures
    sources.rest_on(failures)
    successes = rule.successes
    if successes:
        sources.rest_on(successes)
    return _Chain(
        failures=failures.count,
        successes=successes.count if successes else None,
        success_ending=(successes.result, successes.label) if successes else None,
        failure_ending=("dead", f"{failures.count} failures"),
    )


def _check(system: System, rule: Dying, setup: DyingSetup, sources: Sources) -> None:
    if abs(setup.bonus) > MAX_MODIFIER:
        raise RulesError(f"The bonus must be within ±{MAX_MODIFIER}.")
    if not 1 <= setup.turns <= MAX_TURNS:
        raise RulesError(f"The number of turns must be from 1 to {MAX_TURNS}.")
    failures = rule.failures.count
    if not 0 <= setup.failures < failures:
        raise RulesError(f"Failures already marked must be from 0 to {failures - 1}.")
    successes = rule.successes
    if successes is None and setup.successes:
        raise RulesError(f"{system.short_title} does not count successes on death saves.")
    if successes and not 0 <= setup.successes < successes.count:
        raise RulesError(f"Successes already marked must be from 0 to {successes.count - 1}.")
    known = rule.options
    for name in dict.fromkeys(setup.options):
        if name not in known:
            raise RulesError(
                f"{name!r} is not a death-save option {system.short_title} defines "
                f"(known: {', '.join(known) or 'none'})."
            )
        sources.cite(known[name].cite)
        sources.interpret(known[name].note)


def dying(system: System, setup: DyingSetup) -> DyingResult:
    rule = system.dying
    sources = Sources()
    sources.cite(rule.cite)
    sources.cite(rule.bonus.cite if rule.bonus else None)
    sources.interpret(rule.interpretation)
    _check(system, rule, setup, sources)
    bonus_reading(rule, setup.bonus, sources)
    options = tuple(dict.fromkeys(setup.options))
    for special in rule.special:
        sources.rest_on(special)
    if rule.timing:
        sources.rest_on(rule.timing)
    for note in rule.unstated:
        sources.interpret(note)
    chain = _chain(rule, sources)
    target = rule.target
    roll = natural_roll(system, rule, setup.advantage, setup.disadvantage, sources)
    save = _save(rule, roll, target, setup.bonus, options)
    first = save
    first_rule = rule.first_save
    if first_rule and first_rule.option in options:
        sources.cite(first_rule.cite)
        first_roll = natural_roll(
            system,
            rule,
            setup.advantage + first_rule.advantage,
            setup.disadvantage + first_rule.disadvantage,
            sources,
        )
        first = _save(rule, first_roll, target, setup.bonus, options)

    start: State = (setup.successes if chain.successes else 0, setup.failures)
    ended: dict[Ending, Fraction] = {}
    states = {start: Fraction(1)}
    by_turn = []
    for turn in range(setup.turns):
        states = _step(chain, states, first if turn == 0 else save, ended)
        by_turn.append(_odds(ended, sum(states.values(), Fraction(0))))

    # Overall: the first save by hand (it may differ), then every later state solved.
    solve = _absorption(chain, save)
    moves = [(chain.move(start, event), p) for event, p in first.events]
    overall, expected = _after_one_save(moves, solve)
    never = overall.pop(NEVER, Fraction(0))
    endings = tuple(
        (kind, label, p)
        for result in RESULTS
        for (kind, label), p in sorted(overall.items())
        if kind == result
    )
    return DyingResult(
        label=rule.label,
        roll=roll,
        target=target,
        modifier=setup.bonus,
        one_save=save.labelled,
        by_turn=tuple(by_turn),
        overall=_odds(overall, never),
        endings=endings,
        expected_saves=expected,
        breakdown=(("Bonus", setup.bonus),),
        sources=sources,
    )


# --------------------------------------------------------------------------- the calculator
