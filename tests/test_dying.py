"""Death-save odds against exhaustive enumeration of every sequence of rolls.

Each text's death-save rules are modelled here from the text itself (see the seeds'
README), not from the core's data: a function from one natural roll and total to what
happens, and a walk over every equally likely roll, turn after turn, until the
character dies, stabilises or gets up (or the turns run out).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.errors import NotDefined, RulesError
from rules_core.mechanics.dying import DyingSetup, dying
from rules_core.systems import get_system, system_slugs

ORCUS, CORE4E, ITU, DICE3 = (
    get_system(slug) for slug in ("orcus", "4e-core", "into-the-unknown", "3d6-combat")
)

D20 = [(n, Fraction(1, 20)) for n in range(1, 21)]
D20_ADVANTAGE = [(n, Fraction(2 * n - 1, 400)) for n in range(1, 21)]
THREE_D6 = [
    (total, Fraction(ways, 216))
    for total, ways in sorted(
        {
            s: sum(1 for roll in itertools.product(range(1, 7), repeat=3) if sum(roll) == s)
            for s in range(3, 19)
        }.items()
    )
]

# What one save does: ("mark", successes, failures) or ("end", "dead" | "stable" | "up").
Outcome = tuple


def orcus_rule(bonus: int, recoveries: bool) -> Callable[[int], Outcome]:
    # "Roll a d20. If the roll is 10 or higher, you succeed" ... "roll 20 or higher, you can
    # spend a recovery ... become conscious ... If you have no recoveries to spend, treat
    # this result as a 19." (20 or higher read as the total.)
    def outcome(natural: int) -> Outcome:
        total = natural + bonus
        if total >= 20 and recoveries:
            return ("end", "up")
        return ("mark", 1, 0) if total >= 10 else ("mark", 0, 1)

    return outcome


def itu_rule(bonus: int) -> Callable[[int], Outcome]:
    # "roll a 1 on the d20, it counts as two failures. If you roll a 20 ... regain 1 hit point."
    def outcome(natural: int) -> Outcome:
        if natural == 1:
            return ("mark", 0, 2)
        if natural == 20:
            return ("end", "up")
        return ("mark", 1, 0) if natural + bonus >= 10 else ("mark", 0, 1)

    return outcome


def core4e_rule(bonus: int) -> Callable[[int], Outcome]:
    # "If you succeed (roll a 10 or higher), there is no change in your condition."
    return lambda natural: ("mark", 0, 0) if natural + bonus >= 10 else ("mark", 0, 1)


def dice3_rule(bonus: int) -> Callable[[int], Outcome]:
    # "usually a 13+ Save"; Success: heals and can act. "Crit: As Success": a Natural 17+
    # read as a crit, as for attacks, and so a success whatever the total.
    def outcome(natural: int) -> Outcome:
        if natural + bonus >= 13 or natural >= 17:
            return ("end", "up")
        return ("mark", 0, 1)

    return outcome


def walk(
    rolls: list[tuple[int, Fraction]],
    outcome: Callable[[int], Outcome],
    turns: int,
    kill: int,
    stabilise: int | None,
    successes: int = 0,
    failures: int = 0,
) -> dict[str, Fraction]:
    """Every sequence of `turns` rolls, stopping where dying ends.

    Rolls with the same outcome are walked once with their summed chance, which keeps
    the tree small enough to walk to the end.
    """
    odds = dict.fromkeys(("dead", "stable", "up", "dying"), Fraction(0))
    merged: dict[Outcome, Fraction] = {}
    for natural, p in rolls:
        merged[outcome(natural)] = merged.get(outcome(natural), Fraction(0)) + p

    def go(turn: int, s: int, f: int, weight: Fraction) -> None:
        if turn == turns:
            odds["dying"] += weight
            return
        for result, p in merged.items():
            if result[0] == "end":
                odds[result[1]] += weight * p
                continue
            s2, f2 = s + result[1], f + result[2]
            if f2 >= kill:
                odds["dead"] += weight * p
            elif stabilise is not None and s2 >= stabilise:
                odds["stable"] += weight * p
            else:
                go(turn + 1, s2, f2, weight * p)

    go(0, successes, failures, Fraction(1))
    return odds


def core_odds(system, setup: DyingSetup, turn: int | None = None) -> dict[str, Fraction]:
    result = dying(system, setup)
    odds = result.overall if turn is None else result.by_turn[turn - 1]
    return {"dead": odds.dead, "stable": odds.stable, "up": odds.up, "dying": odds.dying}


bonuses = st.integers(-12, 12)


@settings(max_examples=25, deadline=None)
@given(bonuses, st.booleans(), st.integers(0, 2), st.integers(0, 2))
def test_orcus_turn_by_turn_and_overall(
    bonus: int, recoveries: bool, successes: int, failures: int
) -> None:
    options = () if recoveries else ("no-recoveries",)
    setup = DyingSetup(bonus, successes=successes, failures=failures, options=options, turns=3)
    rule = orcus_rule(bonus, recoveries)
    for turn in (1, 2, 3):
        assert core_odds(ORCUS, setup, turn) == walk(D20, rule, turn, 3, 3, successes, failures)
    # Three of a kind ends it within five saves: the walk to six turns is the whole tree.
    assert core_odds(ORCUS, setup) == walk(D20, rule, 6, 3, 3, successes, failures)


@settings(max_examples=25, deadline=None)
@given(bonuses, st.booleans(), st.integers(0, 2))
def test_into_the_unknown_with_and_without_advantage(
    bonus: int, advantage: bool, failures: int
) -> None:
    rolls = D20_ADVANTAGE if advantage else D20
    setup = DyingSetup(bonus, advantage=int(advantage), failures=failures, turns=3)
    rule = itu_rule(bonus)
    for turn in (1, 2, 3):
        assert core_odds(ITU, setup, turn) == walk(rolls, rule, turn, 3, 3, 0, failures)
    assert core_odds(ITU, setup) == walk(rolls, rule, 6, 3, 3, 0, failures)


def test_into_the_unknown_plain_odds_are_the_familiar_ones() -> None:
    odds = core_odds(ITU, DyingSetup())
    assert odds == walk(D20, itu_rule(0), 6, 3, 3)
    assert round(float(odds["dead"]), 4) == 0.4049  # widely published for this rule set


@settings(max_examples=20, deadline=None)
@given(bonuses, st.integers(0, 3))
def test_3d6_four_failures_in_an_encounter(bonus: int, failures: int) -> None:
    setup = DyingSetup(bonus, failures=failures, turns=4)
    rule = dice3_rule(bonus)
    for turn in (1, 2, 3, 4):
        assert core_odds(DICE3, setup, turn) == walk(THREE_D6, rule, turn, 4, None, 0, failures)
    assert core_odds(DICE3, setup) == walk(THREE_D6, rule, 5, 4, None, 0, failures)


def test_3d6_crit_share_is_labelled() -> None:
    result = dying(DICE3, DyingSetup())
    crit = [p for kind, label, p in result.endings if "immediately" in label.lower()]
    # A natural 17 or 18 on the first save, before any failure ends it.
    first = Fraction(4, 216)
    assert crit and crit[0] > first
    assert any("Natural 17+" in note for note in result.sources.interpretations)


def test_3d6_dropped_by_a_crit_needs_disadvantage_dice_the_text_does_not_give() -> None:
    with pytest.raises(NotDefined, match="never says what dice"):
        dying(DICE3, DyingSetup(options=("dropped-by-crit",)))


@settings(max_examples=20, deadline=None)
@given(st.integers(-9, 8), st.integers(0, 2))
def test_4e_saves_never_end_dying_so_death_is_certain(bonus: int, failures: int) -> None:
    setup = DyingSetup(bonus, failures=failures, turns=4)
    rule = core4e_rule(bonus)
    for turn in (1, 2, 3, 4):
        assert core_odds(CORE4E, setup, turn) == walk(D20, rule, turn, 3, None, 0, failures)
    result = dying(CORE4E, setup)
    fail = Fraction(max(0, min(20, 9 - bonus)), 20)  # naturals 1..9-bonus fail
    assert result.overall.dead == 1
    # Waiting for the remaining failures: a negative binomial count, mean (needed) / p.
    assert result.expected_saves == (3 - failures) / fail


def test_4e_with_no_chance_to_fail_is_dying_for_ever() -> None:
    result = dying(CORE4E, DyingSetup(bonus=9))
    assert result.overall.dying == 1
    assert result.expected_saves is None


@pytest.mark.parametrize("slug", system_slugs())
def test_options_and_advantage_only_where_the_text_has_them(slug: str) -> None:
    system = get_system(slug)
    rule = system.rules.get("dying")
    if rule is None:
        with pytest.raises(NotDefined):
            dying(system, DyingSetup())
        return
    with pytest.raises(RulesError, match="not a death-save option"):
        dying(system, DyingSetup(options=("no-such-option",)))
    has_dice = rule.get("advantage") is not None
    if has_dice:
        assert dying(system, DyingSetup(advantage=1)).roll != dying(system, DyingSetup()).roll
    else:
        with pytest.raises(NotDefined):
            dying(system, DyingSetup(advantage=1))


def test_marked_counts_and_turns_are_checked() -> None:
    with pytest.raises(RulesError, match="0 to 2"):
        dying(ORCUS, DyingSetup(failures=3))
    with pytest.raises(RulesError, match="does not count successes"):
        dying(CORE4E, DyingSetup(successes=1))
    with pytest.raises(RulesError, match="1 to 100"):
        dying(ITU, DyingSetup(turns=0))


def test_a_death_save_bonus_the_text_does_not_give_is_labelled() -> None:
    checked = 0
    for slug in system_slugs():
        system = get_system(slug)
        note = ((system.rules.get("dying") or {}).get("bonus") or {}).get("note")
        if not note:
            continue  # this text's dying rules say nothing of a bonus
        given = dying(system, DyingSetup(bonus=1)).sources.interpretations
        assert any(note in said for said in given), slug
        plain = dying(system, DyingSetup()).sources.interpretations
        assert not any(note in said for said in plain), slug
        checked += 1
    assert checked, "no system's dying rules say anything of a bonus"


@pytest.mark.parametrize("slug", system_slugs())
def test_the_typed_death_saves_are_read_once_per_loaded_system(slug: str) -> None:
    system = get_system(slug)
    if system.rules.get("dying") is None:
        with pytest.raises(NotDefined):
            _ = system.dying
        return
    assert system.dying is get_system(slug).dying
