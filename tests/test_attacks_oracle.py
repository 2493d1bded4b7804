"""Attack odds against icepool: random set-ups, each text's rules modelled independently.

The models below are written from the rule texts (see the seeds' README), not from the
core's data: a d20 or 3d6 natural roll as an icepool die, and the natural-roll rules as
a map from the natural roll to an outcome. Hypothesis draws the set-ups.
"""

from __future__ import annotations

from fractions import Fraction

import icepool
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.attacks import AttackSetup, attack
from rules_core.systems import get_system

HIT, CRIT, MISS, FAIL = "hit", "crit", "miss", "crit_fail"

# Situations per system: attack modifier, defense modifier, crit-range shift, group.
ORCUS_SITUATIONS = {
    "combat-advantage": (2, 0, None),
    "half-cover": (-2, 0, "cover"),
    "three-quarters-cover": (-5, 0, "cover"),
    "concealment": (-2, 0, "concealment"),
    "total-concealment": (-5, 0, "concealment"),
    "long-range": (-2, 0, None),
    "charge": (1, 0, None),
    "dash": (-5, 0, None),
}
ITU_SITUATIONS = {"half-cover": (0, 2, "cover"), "three-quarters-cover": (0, 5, "cover")}
CORE4E_SITUATIONS = {"combat-advantage": (2, 0, None), "charge": (1, 0, None)}


def situations(table: dict) -> st.SearchStrategy[tuple[str, ...]]:
    """Any set of situations with at most one per group (cover does not stack)."""

    def one_per_group(names: list[str]) -> bool:
        groups = [table[name][2] for name in names if table[name][2]]
        return len(groups) == len(set(groups))

    return st.lists(st.sampled_from(sorted(table)), unique=True).filter(one_per_group).map(tuple)


def odds(die: icepool.Die) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    def p(outcome: str) -> Fraction:
        return Fraction(die.probability(outcome)) if outcome in die else Fraction(0)

    return p(HIT) + p(CRIT), p(CRIT), p(MISS) + p(FAIL), p(FAIL)


def core(slug: str, setup: AttackSetup) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    result = attack(get_system(slug), setup)
    return result.hit, result.crit, result.miss, result.crit_fail or Fraction(0)


bonuses = st.integers(-15, 25)
defenses = st.integers(-5, 40)


@settings(max_examples=150, deadline=None)
@given(bonuses, defenses, situations(ORCUS_SITUATIONS))
def test_orcus(bonus: int, defense: int, chosen: tuple[str, ...]) -> None:
    # Natural 20 hits; it is a critical hit only if it would have hit anyway; 1 misses.
    modifier = bonus + sum(ORCUS_SITUATIONS[name][0] for name in chosen)

    def outcome(natural: int) -> str:
        reaches = natural + modifier >= defense
        if natural == 1:
            return MISS
        if natural == 20:
            return CRIT if reaches else HIT
        return HIT if reaches else MISS

    expected = odds(icepool.d20.map(outcome))
    assert core("orcus", AttackSetup(bonus, defense, situations=chosen)) == expected


@settings(max_examples=150, deadline=None)
@given(
    bonuses,
    defenses,
    st.sampled_from(["normal", "advantage", "disadvantage", "both"]),
    situations(ITU_SITUATIONS),
)
def test_into_the_unknown(bonus: int, defense: int, mode: str, chosen: tuple[str, ...]) -> None:
    # One extra d20 at most; both cancel. Natural 20 always hits and crits; 1 misses.
    # Cover raises the target's AC.
    armour = defense + sum(ITU_SITUATIONS[name][1] for name in chosen)
    natural = {
        "normal": icepool.d20,
        "both": icepool.d20,
        "advantage": icepool.highest(icepool.d20, icepool.d20),
        "disadvantage": icepool.lowest(icepool.d20, icepool.d20),
    }[mode]

    def outcome(roll: int) -> str:
        if roll == 1:
            return MISS
        if roll == 20:
            return CRIT
        return HIT if roll + bonus >= armour else MISS

    setup = AttackSetup(
        bonus,
        defense,
        advantage=mode in ("advantage", "both"),
        disadvantage=mode in ("disadvantage", "both"),
        situations=chosen,
    )
    assert core("into-the-unknown", setup) == odds(natural.map(outcome))


@settings(max_examples=150, deadline=None)
@given(bonuses, defenses, st.integers(0, 6), st.booleans(), st.booleans())
def test_3d6_combat(
    bonus: int, defense: int, escalation: int, weak: bool, vulnerable: bool
) -> None:
    # 3d6 + bonus + escalation against the defense. Natural 17+ crits (16+ weak or
    # vulnerable, 15+ both), read as a hit whatever the total; a natural 3 is a crit fail.
    crit_from = 17 - weak - vulnerable

    def outcome(natural: int) -> str:
        if natural == 3:
            return FAIL
        if natural >= crit_from:
            return CRIT
        return HIT if natural + bonus + escalation >= defense else MISS

    chosen = tuple(name for name, on in (("weak", weak), ("vulnerable", vulnerable)) if on)
    setup = AttackSetup(bonus, defense, escalation=escalation, situations=chosen)
    assert core("3d6-combat", setup) == odds((3 @ icepool.d6).map(outcome))


@settings(max_examples=100, deadline=None)
@given(bonuses, defenses, situations(CORE4E_SITUATIONS))
def test_4e_core(bonus: int, defense: int, chosen: tuple[str, ...]) -> None:
    # A roll of 20 is a critical hit; the text has no natural-1 rule.
    modifier = bonus + sum(CORE4E_SITUATIONS[name][0] for name in chosen)

    def outcome(natural: int) -> str:
        if natural == 20:
            return CRIT
        return HIT if natural + modifier >= defense else MISS

    expected = odds(icepool.d20.map(outcome))
    assert core("4e-core", AttackSetup(bonus, defense, situations=chosen)) == expected
