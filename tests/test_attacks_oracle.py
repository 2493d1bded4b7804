"""Attack odds and expected damage against icepool: each text's rules modelled independently.

The models below are written from the rule texts (content/<system>/pages), not from the
core's data or code: the natural roll is an icepool die, the natural-roll rules a map from
the natural roll to an outcome, each condition the effect its text gives it, and damage an
icepool die under the text's critical-hit, halving and resistance rules. Hypothesis draws
the set-ups: any situations (repeats included, which count once), attack types, damage and
resistance.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.errors import NotDefined, RulesError
from rules_core.mechanics.attacks import AttackSetup, attack
from rules_core.mechanics.situations import situations as data_situations
from rules_core.systems import get_system

HIT, CRIT, MISS, FAIL = "hit", "crit", "miss", "crit_fail"


class NeedsAttackType(Exception):
    """The model says: this set-up depends on the attack type, and none was given."""


def odds(die: icepool.Die) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    def p(outcome: str) -> Fraction:
        return Fraction(die.probability(outcome)) if outcome in die else Fraction(0)

    return p(HIT) + p(CRIT), p(CRIT), p(MISS) + p(FAIL), p(FAIL)


def core_odds(result) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    return result.hit, result.crit, result.miss, result.crit_fail or Fraction(0)


def mean(die: icepool.Die, transform: Callable[[int], int]) -> Fraction:
    total = sum(Fraction(quantity) * transform(outcome) for outcome, quantity in die.items())
    return total / die.denominator()


def halve(value: int, times: int = 1) -> int:
    return value // 2**times  # every text that halves rounds down (or is labelled so)


# A damage roll: "NdS+C" and its icepool die.
damage_rolls = st.tuples(st.integers(1, 2), st.sampled_from([4, 6, 8]), st.integers(0, 4))


def roll_text(roll: tuple[int, int, int]) -> str:
    count, sides, constant = roll
    return f"{count}d{sides}+{constant}"


def roll_die(roll: tuple[int, int, int], dice_factor: int = 1) -> icepool.Die:
    count, sides, constant = roll
    return (count * dice_factor) @ icepool.d(sides) + constant


def maximum(roll: tuple[int, int, int]) -> int:
    count, sides, constant = roll
    return count * sides + constant


def expected_damage(naturals: icepool.Die, outcome_of, damage_of) -> Fraction:
    """Sum over natural rolls of P(natural) x mean damage of that natural's outcome."""
    total = Fraction(0)
    for natural, quantity in naturals.items():
        total += Fraction(quantity, naturals.denominator()) * damage_of(
            natural, outcome_of(natural)
        )
    return total


def picks(names: list[str]) -> st.SearchStrategy[tuple[str, ...]]:
    """Any situations, a name possibly twice: a repeated situation counts once."""
    return st.lists(st.sampled_from(names), max_size=6).map(tuple)


bonuses = st.integers(-15, 25)
defenses = st.integers(-5, 40)


# ------------------------------------------------------------------------------------ Orcus
# Conditions (conditions.md), actions (actions.md), combat.md, movement.md, glossary.md.

ORCUS_ATTACK = {  # untyped penalties and bonuses to the attack roll; they stack
    "charge": 1,  # "You get a +1 bonus on the attack roll."
    "help-attack": 2,  # "You grant a +2 bonus to your ally's next attack roll"
    "long-range": -2,  # "-2 penalty when your target is beyond normal range"
    "dash": -5,  # Dash: "suffer a -5 penalty to attacks"
    "attacker-squeezing": -5,  # "you grant combat advantage and suffer a -5 penalty"
    "attacker-prone": -2,  # Prone: "-2 to attack rolls"
    "attacker-restrained": -2,  # Restrained: "-2 penalty to attack rolls"
    "attacker-marked": -2,  # Marked: "-2 penalty to attack rolls on attacks that do not..."
    "attacker-clumsy": -4,  # "a -4 penalty to attack rolls and defences"
}
ORCUS_DEFENSE = {
    "target-clumsy": -4,
    "target-unconscious": -5,  # "You suffer a -5 penalty to all defenses."
    "target-helped-defense": 2,  # Help Defense: "+2 bonus to your ally's defenses"
    "target-total-defense": 2,  # "+2 to all defenses until the start of your next turn"
    "target-rallied": 2,  # Rally: "You also get +2 to all defenses"
}
ORCUS_GRANTS_CA = {  # "Attack rolls against you have combat advantage" and the like
    "target-flanked",
    "target-dashed",
    "target-squeezing",
    "target-restrained",
    "target-blinded",
    "target-dazed",
    "target-helpless",
    "target-petrified",
    "target-stunned",
    "target-surprised",
}
ORCUS_COVER = {"half-cover": -2, "three-quarters-cover": -5}
ORCUS_CONCEALMENT = {"concealment": -2, "total-concealment": -5}
ORCUS_OTHER = [
    "combat-advantage",
    "adjacent",
    "target-prone",
    "target-controlled",
    "target-dying",
    "target-invisible",
    "target-incorporeal",
    "attacker-weakened",
    "coup-de-grace",
]
ORCUS_NAMES = sorted(
    [
        *ORCUS_ATTACK,
        *ORCUS_DEFENSE,
        *ORCUS_GRANTS_CA,
        *ORCUS_COVER,
        *ORCUS_CONCEALMENT,
        *ORCUS_OTHER,
    ]
)
ORCUS_TYPES = [None, "melee", "ranged", "near", "far"]
# "you may make a single basic melee attack or shove" (Charge); "Some ranged attacks ... have
# two ranges ... a -2 penalty when your target is beyond normal range".
ORCUS_TIED = {"charge": "melee", "long-range": "ranged"}


class WrongAttackType(Exception):
    pass


def orcus_model(chosen: tuple[str, ...], attack_type: str | None):
    tied = {ORCUS_TIED[name] for name in chosen if name in ORCUS_TIED}
    if len(tied) > 1 or (tied and attack_type is not None and attack_type not in tied):
        raise WrongAttackType
    if tied:
        attack_type = tied.pop()
    state = set(chosen)
    if "coup-de-grace" in state:  # "against a helpless adjacent opponent"
        state |= {"target-helpless", "adjacent"}
    if "target-controlled" in state:  # "You are dazed."
        state.add("target-dazed")
    if "target-dying" in state:  # "You are unconscious."
        state.add("target-unconscious")
    if "target-unconscious" in state:  # "you also fall prone"
        state.add("target-prone")
    if "target-invisible" in state:  # "An invisible target also has total concealment."
        state.add("total-concealment")
    if attack_type is None and state & {"target-prone", "concealment", "total-concealment"}:
        raise NeedsAttackType
    advantage = (
        "combat-advantage" in state
        or bool(state & ORCUS_GRANTS_CA)
        or ("target-prone" in state and attack_type == "melee")
    )
    modifier = 2 * advantage + sum(ORCUS_ATTACK.get(name, 0) for name in state)
    # "only the most protective degree of cover applies"; concealment likewise, and
    # "Concealment penalties do not apply to Near or Far attacks."
    modifier += min((ORCUS_COVER[name] for name in state if name in ORCUS_COVER), default=0)
    if attack_type in ("melee", "ranged"):
        modifier += min(
            (ORCUS_CONCEALMENT[name] for name in state if name in ORCUS_CONCEALMENT), default=0
        )
    defense = sum(ORCUS_DEFENSE.get(name, 0) for name in state)
    if "target-prone" in state and attack_type == "ranged" and "adjacent" not in state:
        defense += 2  # "+2 to AC, ... against ranged attacks (unless attacker is adjacent)"
    halvings = ("attacker-weakened" in state) + ("target-incorporeal" in state)
    resistance = 20 if "target-petrified" in state else None  # "Resistance to all 20"
    return modifier, defense, "coup-de-grace" in state, halvings, resistance


@settings(max_examples=300, deadline=None)
@given(
    bonuses,
    defenses,
    picks(ORCUS_NAMES),
    st.sampled_from(ORCUS_TYPES),
    st.none() | damage_rolls,
    st.none() | st.integers(1, 12),
    st.none() | st.integers(1, 6),
)
def test_orcus(bonus, defense, chosen, attack_type, roll, resistance, vulnerability) -> None:
    setup = AttackSetup(
        bonus,
        defense,
        situations=chosen,
        attack_type=attack_type,
        damage=roll_text(roll) if roll else None,
        resistance=resistance,
        vulnerability=vulnerability,
    )
    try:
        modifier, armour, hit_is_crit, halvings, condition_resistance = orcus_model(
            chosen, attack_type
        )
    except NeedsAttackType:
        with pytest.raises(RulesError, match="attack type"):
            attack(get_system("orcus"), setup)
        return
    except WrongAttackType:
        with pytest.raises(RulesError, match=r"is a \w+ attack|cannot be all of these"):
            attack(get_system("orcus"), setup)
        return
    armour += defense

    # Natural 20 hits; it is a critical hit only if it would have hit anyway; 1 misses.
    # A coup de grace: "If you hit, you score a critical hit."
    def outcome(natural: int) -> str:
        reaches = natural + bonus + modifier >= armour
        if natural == 1:
            return MISS
        if natural == 20 and not reaches:
            return CRIT if hit_is_crit else HIT
        if natural == 20 or (reaches and hit_is_crit):
            return CRIT
        return HIT if reaches else MISS

    result = attack(get_system("orcus"), setup)
    assert core_odds(result) == odds(icepool.d20.map(outcome))
    if roll is None:
        assert result.expected_damage is None
        return
    resistances = [value for value in (resistance, condition_resistance) if value is not None]

    def after(total: int) -> int:
        # Halved (rounded down), then resistance (never below 0), then vulnerability.
        total = halve(total, halvings)
        if resistances:
            total = max(0, total - max(resistances))
        return total + (vulnerability or 0)

    def damage_of(natural: int, outcome: str) -> Fraction:
        if outcome == HIT:
            return mean(roll_die(roll), after)
        if outcome == CRIT:  # "you do maximum damage"
            return Fraction(after(maximum(roll)))
        return Fraction(0)

    assert result.expected_damage == expected_damage(icepool.d20, outcome, damage_of)


# --------------------------------------------------------------------------- Into the Unknown
# Conditions (conditions.md), combat.md; "Advantage/Disadvantage" (taking-action.md).

ITU_ADVANTAGE = {
    "help",  # "the first attack roll is made with advantage"
    "attacker-unseen",  # "advantage on attack rolls against a foe that can't see you"
    "attacker-invisible",  # "your attack rolls have advantage"
    "target-blinded",
    "target-restrained",
    "target-squeezing",
    "target-paralyzed",
    "target-petrified",
    "target-stunned",
    "target-unconscious",
}
ITU_DISADVANTAGE = {
    "target-unseen",  # "When you attack a target that you can't see, you have disadvantage"
    "long-range",
    "ranged-in-close-combat",
    "underwater-melee",
    "underwater-ranged",
    "attacker-blinded",
    "attacker-exhausted",  # level 3: "Disadvantage on attack rolls and saves"
    "attacker-frightened",
    "target-invisible",
    "attacker-poisoned",
    "attacker-prone",
    "attacker-restrained",
    "attacker-squeezing",
}
ITU_COVER = {"half-cover": 2, "three-quarters-cover": 5}
ITU_OTHER = ["within-5-feet", "target-prone", "target-underwater-fire", "target-dodging"]
# "Some ranged attacks ... have two ranges", "When you make a ranged attack", "A ranged
# weapon attack", "When making a melee weapon attack": each names the attack's type.
ITU_TIED = {
    "long-range": "ranged",
    "ranged-in-close-combat": "ranged",
    "underwater-ranged": "ranged",
    "underwater-melee": "melee",
}
# Dodge: disadvantage "if you can see the attacker"; "You lose this benefit if you are
# incapacitated or if your speed drops to 0".
ITU_DODGE_LOST = {
    "attacker-unseen",
    "target-blinded",
    "target-paralyzed",
    "target-petrified",
    "target-restrained",
    "target-stunned",
    "target-unconscious",
}
ITU_NAMES = sorted([*ITU_ADVANTAGE, *ITU_DISADVANTAGE, *ITU_COVER, *ITU_OTHER])


@settings(max_examples=300, deadline=None)
@given(
    bonuses,
    defenses,
    st.sampled_from(["normal", "advantage", "disadvantage", "both"]),
    picks(ITU_NAMES),
    st.none() | damage_rolls,
    st.booleans(),
    st.booleans(),
)
def test_into_the_unknown(bonus, defense, mode, chosen, roll, resistant, vulnerable) -> None:
    state = set(chosen)
    setup = AttackSetup(
        bonus,
        defense,
        advantage=mode in ("advantage", "both"),
        disadvantage=mode in ("disadvantage", "both"),
        situations=chosen,
        damage=roll_text(roll) if roll else None,
        resistance=0 if resistant else None,  # this text's resistance takes no value
        vulnerability=0 if vulnerable else None,
    )
    if len({ITU_TIED[name] for name in state if name in ITU_TIED}) > 1:
        with pytest.raises(RulesError, match="One attack cannot be all of these"):
            attack(get_system("into-the-unknown"), setup)
        return
    if "target-unconscious" in state:  # "... and fall prone"
        state.add("target-prone")
    near = "within-5-feet" in state
    advantage = mode in ("advantage", "both") or bool(state & ITU_ADVANTAGE)
    disadvantage = mode in ("disadvantage", "both") or bool(state & ITU_DISADVANTAGE)
    disadvantage |= "target-dodging" in state and not state & ITU_DODGE_LOST
    if "target-prone" in state:  # "advantage if the attacker is within 5 feet ... Else, ..."
        advantage |= near
        disadvantage |= not near
    # One extra d20 however many sources; "both advantage and disadvantage, you have neither".
    natural = icepool.d20
    if advantage and not disadvantage:
        natural = icepool.highest(icepool.d20, icepool.d20)
    elif disadvantage and not advantage:
        natural = icepool.lowest(icepool.d20, icepool.d20)
    # "If behind multiple covers, only the most protective degree applies."
    armour = defense + max((ITU_COVER[name] for name in state if name in ITU_COVER), default=0)
    # "Any attack that hits you is a critical hit if the attacker is within 5 feet of you."
    hit_is_crit = near and bool(state & {"target-paralyzed", "target-unconscious"})

    def outcome(roll_: int) -> str:
        if roll_ == 1:
            return MISS
        if roll_ == 20:
            return CRIT
        if roll_ + bonus >= armour:
            return CRIT if hit_is_crit else HIT
        return MISS

    result = attack(get_system("into-the-unknown"), setup)
    assert core_odds(result) == odds(natural.map(outcome))
    if roll is None:
        return
    # Petrified: "resistance to all damage"; immersed: "resistance to fire damage".
    halved = resistant or bool(state & {"target-petrified", "target-underwater-fire"})

    def after(total: int) -> int:  # "Resistance and then vulnerability are applied after ..."
        total = halve(total) if halved else total
        return total * 2 if vulnerable else total

    def damage_of(_: int, outcome_: str) -> Fraction:
        if outcome_ == HIT:
            return mean(roll_die(roll), after)
        if outcome_ == CRIT:  # "Roll all of the attack's damage dice twice"
            return mean(roll_die(roll, dice_factor=2), after)
        return Fraction(0)

    assert result.expected_damage == expected_damage(natural, outcome, damage_of)


# ------------------------------------------------------------------------------------- 3d6
# Combat Rules (combat-rules.md), Conditions and Effects, Special Actions.

DICE3_ADVANTAGE = {
    "target-grabbed",  # "the enemy grabbing you gains 1 Advantage to hit you"
    "target-softened",  # "Attacks against you gain 1 Advantage."
    "target-stunned",  # "attacks against you gain 1 Advantage"
    "target-weakened",
    "fight-in-spirit-attacker",
    "dicey-move",
}
DICE3_DISADVANTAGE = {
    "attacker-dazed",  # "You gain 1 Disadvantage on attacks."
    "attacker-shaken",
    "attacker-stunned",
    "attacker-weakened",
    "fight-in-spirit-target",
}
DICE3_OTHER = ["weak", "vulnerable", "target-helpless", "coup-de-grace"]
DICE3_NAMES = sorted([*DICE3_ADVANTAGE, *DICE3_DISADVANTAGE, *DICE3_OTHER])
DICE3 = 3 @ icepool.d6


@settings(max_examples=300, deadline=None)
@given(
    bonuses,
    defenses,
    st.integers(0, 6),
    picks(DICE3_NAMES),
    st.sampled_from(["normal", "advantage", "disadvantage"]),
    st.none() | damage_rolls,
    st.none() | st.integers(4, 18),
)
def test_3d6_combat(bonus, defense, escalation, chosen, mode, roll, resist) -> None:
    state = set(chosen)
    if "coup-de-grace" in state:  # "attack an engaged, helpless enemy"
        state.add("target-helpless")
    if "target-helpless" in state:  # "You're Stunned"
        state.add("target-stunned")
    # "Conditions with different names stack": counted once per name.
    advantages = len(state & DICE3_ADVANTAGE) + (mode == "advantage")
    disadvantages = len(state & DICE3_DISADVANTAGE) + (mode == "disadvantage")
    # Weak: "crit on a 16+. If they're also Vulnerable, those attacks crit on a 15+."
    crit_from = 17 - ("weak" in state) - ("vulnerable" in state)
    # Shaken: "count the escalation die as 0".
    escalation_counted = 0 if "attacker-shaken" in state else escalation

    def outcome(natural: int) -> str:
        if "coup-de-grace" in state:  # "that attack crits"
            return CRIT
        if natural == 3:
            return FAIL
        if natural >= crit_from:
            return CRIT
        return HIT if natural + bonus + escalation_counted >= defense else MISS

    def halved(natural: int) -> bool:  # "If an attack's Natural roll result is less than X"
        return resist is not None and natural < resist

    setup = AttackSetup(
        bonus,
        defense,
        advantage=mode == "advantage",
        disadvantage=mode == "disadvantage",
        escalation=escalation,
        situations=chosen,
        damage=roll_text(roll) if roll else None,
        resist=resist,
    )
    system = get_system("3d6-combat")
    # Does the natural roll change the answer (the outcome, or the damage through Resist)?
    answers = {(outcome(n), roll is not None and halved(n)) for n in DICE3.outcomes()}
    if (advantages or disadvantages) and len(answers) > 1:
        # The text counts Advantage and Disadvantage but never gives their dice.
        with pytest.raises(NotDefined, match="advantage and disadvantage dice"):
            attack(system, setup)
        return
    result = attack(system, setup)
    assert core_odds(result) == odds(DICE3.map(outcome))
    if roll is None:
        return

    def damage_of(natural: int, outcome_: str) -> Fraction:
        times = 1 if halved(natural) else 0
        if outcome_ == HIT:
            return mean(roll_die(roll), lambda total: halve(total, times))
        if outcome_ == CRIT:  # "Crit, which typically deals double damage"
            return mean(roll_die(roll), lambda total: halve(2 * total, times))
        return Fraction(0)  # a miss (no miss damage here) or a crit fail: "no miss effects"

    assert result.expected_damage == expected_damage(DICE3, outcome, damage_of)


# ------------------------------------------------------------------------------------- 4e
# attacks-and-damage.md, movement.md.

CORE4E_GRANTS_CA = {"target-flanked", "target-stunned", "target-ran"}
CORE4E_NAMES = sorted(
    [*CORE4E_GRANTS_CA, "combat-advantage", "charge", "target-second-wind", "target-not-seen"]
)


@settings(max_examples=200, deadline=None)
@given(bonuses, defenses, picks(CORE4E_NAMES), st.none() | damage_rolls)
def test_4e_core(bonus, defense, chosen, roll) -> None:
    state = set(chosen)
    # "You must be able to see a target to gain combat advantage against it."
    advantage = bool(state & (CORE4E_GRANTS_CA | {"combat-advantage"}))
    advantage &= "target-not-seen" not in state
    modifier = 2 * advantage + ("charge" in state)  # "+1 bonus to your attack roll"
    armour = defense + 2 * ("target-second-wind" in state)  # "+2 bonus to all defenses"

    # A roll of 20 is a critical hit; the text has no natural-1 rule.
    def outcome(natural: int) -> str:
        if natural == 20:
            return CRIT
        return HIT if natural + bonus + modifier >= armour else MISS

    setup = AttackSetup(bonus, defense, situations=chosen, damage=roll_text(roll) if roll else None)
    result = attack(get_system("4e-core"), setup)
    assert core_odds(result) == odds(icepool.d20.map(outcome))
    if roll is None:
        return

    def damage_of(_: int, outcome_: str) -> Fraction:
        if outcome_ == HIT:
            return mean(roll_die(roll), lambda total: total)
        if outcome_ == CRIT:  # "you deal the maximum amount of damage possible"
            return Fraction(maximum(roll))
        return Fraction(0)

    assert result.expected_damage == expected_damage(icepool.d20, outcome, damage_of)


# ------------------------------------------------------------------ the models cover the data


@pytest.mark.parametrize(
    ("slug", "names"),
    [
        ("orcus", ORCUS_NAMES),
        ("into-the-unknown", ITU_NAMES),
        ("3d6-combat", DICE3_NAMES),
        ("4e-core", CORE4E_NAMES),
    ],
)
def test_every_modelled_condition_is_in_the_data(slug: str, names: list[str]) -> None:
    assert set(names) <= set(data_situations(get_system(slug)))
