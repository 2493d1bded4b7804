"""Checks, saves, contests and group checks against icepool and brute-force enumeration.

The oracles are written from the rule texts (see the seeds' README), not from the
core's data: each text's roll as an icepool die or a list of equally likely naturals,
and success as the text states it (total meets or beats the target; no natural-roll
rule on checks or saves in any of the four texts).
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from functools import cache
from pathlib import Path

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.errors import NotDefined, RulesError
from rules_core.mechanics.checks import (
    CheckSetup,
    Side,
    check,
    contest,
    extended_challenge,
    group_check,
    group_contest,
    named_difficulties,
)
from rules_core.rules.checks import Saves
from rules_core.systems import get_system, system_slugs

ROOT = Path(__file__).resolve().parent.parent

ORCUS, CORE4E, ITU, DICE3 = (
    get_system(slug) for slug in ("orcus", "4e-core", "into-the-unknown", "3d6-combat")
)
SYSTEMS = [get_system(slug) for slug in system_slugs()]  # every system of content/systems.yml


def d20_with(advantage: int, disadvantage: int) -> icepool.Die:
    """Into the Unknown: one extra d20 however many sources; both cancel."""
    if (advantage and disadvantage) or not (advantage or disadvantage):
        return icepool.d20
    pool = icepool.d20.pool(2)
    return pool.highest(1).sum() if advantage else pool.lowest(1).sum()


def chance(die: icepool.Die, target: int) -> Fraction:
    return Fraction(die.probability(">=", target))


bonuses = st.integers(-15, 25)
targets = st.integers(-5, 40)


@settings(max_examples=100, deadline=None)
@given(bonuses, st.integers(1, 100))
def test_orcus_and_4e_saves_need_10_with_no_natural_rule(bonus: int, rounds: int) -> None:
    p = chance(icepool.d20 + bonus, 10)
    for system in (ORCUS, CORE4E):
        result = check(system, CheckSetup(kind="save", bonus=bonus, rounds=rounds))
        assert (result.target, result.success, result.failure) == (10, p, 1 - p)
        assert result.at_least_one == 1 - (1 - p) ** rounds


def test_a_natural_1_saves_and_a_natural_20_fails_when_the_total_says_so() -> None:
    # The "Rolling 1 or 20" rules are for attacks: +9 saves on a 1, -11 fails on a 20.
    assert check(ORCUS, CheckSetup(kind="save", bonus=9)).success == 1
    assert check(ORCUS, CheckSetup(kind="save", bonus=-11)).success == 0
    assert check(ITU, CheckSetup(kind="save", bonus=-5, target=16)).success == 0


@settings(max_examples=150, deadline=None)
@given(bonuses, targets, st.integers(0, 3), st.integers(0, 3), st.sampled_from(["check", "save"]))
def test_into_the_unknown_checks_and_saves_with_advantage(
    bonus: int, target: int, advantage: int, disadvantage: int, kind: str
) -> None:
    result = check(
        ITU, CheckSetup(kind, bonus, target, advantage=advantage, disadvantage=disadvantage)
    )
    assert result.success == chance(d20_with(advantage, disadvantage) + bonus, target)
    if advantage and disadvantage:
        assert any("cancel" in note for note in result.sources.interpretations)


@settings(max_examples=100, deadline=None)
@given(bonuses, targets, st.integers(0, 6), st.integers(1, 20))
def test_3d6_saves_roll_3d6_and_a_rally_adds_the_escalation_die(
    bonus: int, target: int, escalation: int, rounds: int
) -> None:
    result = check(DICE3, CheckSetup("save", bonus, target, escalation=escalation, rounds=rounds))
    p = chance(3 @ icepool.d6 + bonus + escalation, target)
    assert result.success == p
    assert result.at_least_one == 1 - (1 - p) ** rounds
    assert ("Escalation die", escalation) in result.breakdown or not escalation
    # The dice of a save are not stated: the reading is labelled with the text's words.
    assert any("13+ Save" in note for note in result.sources.interpretations)


def test_3d6_advantage_counts_are_refused_as_not_defined() -> None:
    for kind, target in (("save", 11), ("check", 11)):
        with pytest.raises(NotDefined, match="never says what dice"):
            check(DICE3, CheckSetup(kind, 0, target, disadvantage=1))


def test_escalation_only_where_the_text_adds_it() -> None:
    with pytest.raises(RulesError, match="0 to 6"):
        check(DICE3, CheckSetup("save", 0, 13, escalation=7))
    for system, kind in ((DICE3, "check"), (ORCUS, "save"), (ITU, "save")):
        with pytest.raises(NotDefined):
            check(system, CheckSetup(kind, 0, None if system is ORCUS else 10, escalation=1))


def test_expected_rounds_until_save_ends_is_the_mean_of_a_geometric_count() -> None:
    result = check(ORCUS, CheckSetup(kind="save", bonus=-3, rounds=3))
    p = Fraction(8, 20)  # 13..20 on the d20
    # Sum P(not ended after k saves) for k >= 0, far enough that the rest is negligible.
    partial = sum((1 - p) ** k for k in range(400))
    assert result.expected_rounds is not None
    assert 0 <= result.expected_rounds - partial < Fraction(1, 10**60)
    # At least one success in three saves, by listing all 20^3 sequences.
    sequences = list(itertools.product(range(1, 21), repeat=3))
    saved = sum(any(n - 3 >= 10 for n in sequence) for sequence in sequences)
    assert result.at_least_one == Fraction(saved, len(sequences))
    assert check(ORCUS, CheckSetup(kind="save", bonus=-11)).expected_rounds is None


def test_a_fixed_save_target_cannot_be_changed() -> None:
    with pytest.raises(RulesError, match="10 or higher"):
        check(CORE4E, CheckSetup(kind="save", target=12))
    with pytest.raises(RulesError, match="Give the target"):
        check(ITU, CheckSetup(kind="save"))


@pytest.mark.parametrize("level", [1, 2, 3])
def test_4e_skill_dcs_by_level(level: int) -> None:
    # "In general at 1st-3rd level, easy tasks have a DC of 15, moderate tasks have a DC of
    # 20, and difficult tasks have a DC of 25 or higher."
    for name, dc in (("Easy", 15), ("moderate", 20), ("Difficult", 25)):
        result = check(CORE4E, CheckSetup("check", 4, difficulty=name, level=level))
        assert result.target == dc
        assert result.success == chance(icepool.d20 + 4, dc)
    difficult = check(CORE4E, CheckSetup("check", 4, difficulty="Difficult", level=level))
    assert any("25 or higher" in note for note in difficult.sources.interpretations)


def test_4e_skill_dcs_beyond_level_3_are_not_defined() -> None:
    with pytest.raises(NotDefined, match="levels 1-3"):
        check(CORE4E, CheckSetup("check", 4, difficulty="Easy", level=4))
    with pytest.raises(RulesError, match="Give the level"):
        check(CORE4E, CheckSetup("check", 4, difficulty="Easy"))


def test_into_the_unknown_named_dcs_come_from_its_table() -> None:
    rows = (ROOT / "content/into-the-unknown/tables/typical-dc.yml").read_text()
    for name, dc in re.findall(r'\["(\w+)", "(\d+)"\]', rows):
        assert check(ITU, CheckSetup("check", 0, difficulty=name)).target == int(dc)
    with pytest.raises(RulesError, match="not a difficulty"):
        check(ITU, CheckSetup("check", 0, difficulty="Impossible"))


def test_orcus_has_no_named_difficulties() -> None:
    with pytest.raises(NotDefined, match="no table of difficulty"):
        check(ORCUS, CheckSetup("check", 0, difficulty="Easy"))


@settings(max_examples=60, deadline=None)
@given(bonuses, bonuses, st.integers(0, 1), st.integers(0, 1), st.integers(0, 1))
def test_contests_by_enumerating_both_rolls(
    a: int, b: int, a_adv: int, a_dis: int, b_adv: int
) -> None:
    first = d20_with(a_adv, a_dis) + a
    second = d20_with(b_adv, 0) + b
    win = tie = lose = Fraction(0)
    for x, px in first.items():
        for y, py in second.items():
            weight = Fraction(px, first.denominator()) * Fraction(py, second.denominator())
            if x > y:
                win += weight
            elif x == y:
                tie += weight
            else:
                lose += weight
    result = contest(ITU, Side(a, a_adv, a_dis), Side(b, b_adv))
    assert (result.win, result.tie, result.lose) == (win, tie, lose)
    assert "remains the same" in result.tie_rule


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 12), min_size=1, max_size=3), st.integers(2, 25))
def test_group_checks_by_enumerating_every_roll(members: list[int], target: int) -> None:
    # "If at least half the group succeeds, the whole group succeeds."
    rolls = list(itertools.product(range(1, 21), repeat=len(members)))
    passed = sum(
        2 * sum(n + bonus >= target for n, bonus in zip(roll, members, strict=True)) >= len(members)
        for roll in rolls
    )
    result = group_check(ITU, members, target)
    assert result.success == Fraction(passed, len(rolls))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-5, 12), min_size=1, max_size=3), bonuses)
def test_group_contests_compare_the_median_total_by_enumerating_every_roll(
    members: list[int], versus: int
) -> None:
    # "For Contests involving group checks, the median result of everyone's totals is used
    # to compare against." Two members: the mean of both totals (labelled as a reading).
    win = tie = lose = 0
    for roll in itertools.product(range(1, 21), repeat=len(members)):
        totals = sorted(n + bonus for n, bonus in zip(roll, members, strict=True))
        middle = len(totals) // 2
        median = (
            Fraction(totals[middle])
            if len(totals) % 2
            else Fraction(totals[middle - 1] + totals[middle], 2)
        )
        for other in range(1, 21):
            win += median > other + versus
            tie += median == other + versus
            lose += median < other + versus
    rolls = 20 ** (len(members) + 1)
    result = group_contest(ITU, members, Side(versus))
    assert (result.win, result.tie, result.lose) == (
        Fraction(win, rolls),
        Fraction(tie, rolls),
        Fraction(lose, rolls),
    )
    even = any("mean of the two middle totals" in note for note in result.sources.interpretations)
    assert even == (len(members) % 2 == 0)


@pytest.mark.parametrize("slug", system_slugs())
def test_group_contests_only_where_the_text_says_how_a_group_compares(slug: str) -> None:
    system = get_system(slug)
    checks = system.rules.get("checks", {})
    group = checks.get("group") if "group" in checks else None
    if "contest" in checks and group is not None and "contest" in group:
        assert group_contest(system, [1, 0, -1], Side(2)).win > 0
    else:
        with pytest.raises(NotDefined):
            group_contest(system, [1, 0, -1], Side(2))


def test_group_check_with_advantage_counts_one_extra_die() -> None:
    die = d20_with(1, 0)
    p = chance(die + 2, 15)
    # Two members need one success between them.
    assert group_check(ITU, [2, 2], 15, advantage=2).success == 1 - (1 - p) ** 2


@pytest.mark.parametrize("slug", system_slugs())
def test_contests_and_group_checks_are_refused_where_a_text_has_none(slug: str) -> None:
    system = get_system(slug)
    checks = system.rules.get("checks", {})
    for key, call in (
        ("contest", lambda: contest(system, Side(), Side())),
        ("group", lambda: group_check(system, [0], 10)),
    ):
        if key in checks:
            call()
            continue
        with pytest.raises(NotDefined) as refused:
            call()
        # Where the text says what it has instead, the refusal says it too; a `not_defined`
        # entry is the system's choice (a new system may have none).
        said = ((system.rules.get("not_defined") or {}).get(key) or {}).get("note")
        assert (said or "does not define") in str(refused.value)


# That every reading of the rules of checks, saves and dying quotes the text's words is
# checked by `make data` (hooks/content/readings.py, tests/test_readings.py).


@settings(max_examples=40, deadline=None)
@given(bonuses, targets, st.integers(1, 6))
def test_orcus_extended_challenge_by_walking_every_run_of_checks(
    bonus: int, target: int, needed: int
) -> None:
    # "how many successes are required ...; typically, these must be achieved before
    # three failures": walk every run of checks until one side is reached, the d20's
    # faces counted once for each step.
    passing = sum(1 for n in range(1, 21) if n + bonus >= target)

    @cache
    def walk(successes: int, failures: int) -> Fraction:
        if successes == needed:
            return Fraction(1)
        if failures == 3:
            return Fraction(0)
        return (
            passing * walk(successes + 1, failures) + (20 - passing) * walk(successes, failures + 1)
        ) / 20

    result = extended_challenge(ORCUS, CheckSetup("check", bonus, target), needed)
    assert result.success == walk(0, 0)
    assert any("three failures" in note for note in result.sources.interpretations)


def test_extended_challenges_only_where_a_text_has_them() -> None:
    with pytest.raises(NotDefined, match="leaves their rules to the DM"):
        extended_challenge(CORE4E, CheckSetup("check", 0, 15), 3)


def test_a_group_check_takes_a_named_difficulty_as_its_target() -> None:
    """Both rules are in the text: a group check against "hard" is one against its DC."""
    checked = 0
    for system in SYSTEMS:
        rows = named_difficulties(system, "check")
        if not rows or system.checks.group is None:
            continue  # the text names no difficulties, or has no group checks
        for row in rows:
            if row.levels is not None:
                continue
            named = group_check(system, (2, 0, -1), None, difficulty=row.label)
            plain = group_check(system, (2, 0, -1), row.value)
            assert (named.target, named.success) == (row.value, plain.success), row.label
            checked += 1
        with pytest.raises(RulesError, match="either a target or a named difficulty"):
            group_check(system, (2, 0), 10, difficulty=rows[0].label)
    assert checked, "no system has both group checks and named difficulties"


def test_a_named_difficulty_on_the_wrong_roll_says_which_roll_has_them() -> None:
    checked = 0
    for system in SYSTEMS:
        for kind, other, other_name in (("save", "check", "checks"), ("check", "save", "saving")):
            has_roll = system.rules.get("saves" if kind == "save" else "checks") is not None
            elsewhere = named_difficulties(system, other)
            if not has_roll or named_difficulties(system, kind) or not elsewhere:
                continue
            if kind == "save" and system.saves.target is not None:
                continue  # a save whose target the text fixes says so first
            label = elsewhere[0].label
            with pytest.raises(NotDefined, match=f"names difficulties for {other_name}"):
                check(system, CheckSetup(kind, 0, None, difficulty=label))
            checked += 1
    assert checked, "no system names difficulties for one roll and not the other"


def test_a_bonus_the_text_does_not_give_is_labelled() -> None:
    """A 4e save is "Roll a d20. If you roll lower than 10": a bonus the reader adds is
    shown with what the text says of bonuses to that roll, never silently."""
    checked = 0
    for system in SYSTEMS:
        for kind, name in (("save", "saves"), ("check", "checks")):
            if system.rules.get(name) is None:
                continue
            section = system.roll_section(name)
            if section.bonus is None:
                continue
            note = section.bonus.note
            fixed = isinstance(section, Saves) and section.target is not None
            target = None if fixed else 10
            given = check(system, CheckSetup(kind, 2, target)).sources.interpretations
            assert any(note in said for said in given), (system.slug, kind)
            plain = check(system, CheckSetup(kind, 0, target)).sources.interpretations
            assert not any(note in said for said in plain), (system.slug, kind)
            checked += 1
    assert checked, "no system says anything of the bonus to a check or a save"


def test_a_rally_save_over_several_rounds_says_the_escalation_die_is_held() -> None:
    checked = 0
    for system in SYSTEMS:
        saves = system.rules.get("saves") or {}
        if not saves.get("escalation"):
            continue
        target = None if saves.get("target") is not None else 11
        held = check(system, CheckSetup("save", 0, target, escalation=2, rounds=3))
        assert any(
            "counted at 2 for each of the 3 saves" in s for s in held.sources.interpretations
        )
        once = check(system, CheckSetup("save", 0, target, escalation=2, rounds=1))
        assert not any("for each of the" in said for said in once.sources.interpretations)
        checked += 1
    assert checked, "no system adds the escalation die to a save"


def test_advantage_on_a_group_check_says_it_is_given_to_every_member() -> None:
    checked = 0
    for system in SYSTEMS:
        entry = system.rules.get("checks") or {}
        if not entry.get("group") or not entry.get("advantage"):
            continue  # no group checks, or no advantage on checks
        said = group_check(system, (2, 0), 12, advantage=1).sources.interpretations
        assert any("every member's roll" in note for note in said), system.slug
        plain = group_check(system, (2, 0), 12).sources.interpretations
        assert not any("every member's roll" in note for note in plain), system.slug
        checked += 1
    assert checked, "no system has advantage on group checks"
