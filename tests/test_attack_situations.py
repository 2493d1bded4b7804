"""Situations as data: every system's list works, cites and quotes its text, and counts once.

The first tests run over whatever the compiled data holds (no system or situation named),
so a situation added to a rules.yml is checked with no change here. The rest pin the
cases issue reports named, with numbers worked out by hand from the texts.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from fractions import Fraction

import pytest

from rules_core.cli import main
from rules_core.errors import NotDefined, RulesError
from rules_core.mechanics.attacks import AttackSetup, attack, hit_chance_by_defense
from rules_core.mechanics.situations import attack_types, situations
from rules_core.rules.attack import Effect
from rules_core.systems import System, get_system, system_slugs
from rules_core.web import handle

SYSTEMS = [get_system(slug) for slug in system_slugs()]
EVERY_SITUATION = [
    (system, name) for system in SYSTEMS for name in situations(system) if "attack" in system.rules
]


def split(result) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The breakdown's roll terms and defense terms."""
    at = next(i for i, (label, _) in enumerate(result.breakdown) if label == "Defense")
    return list(result.breakdown[:at]), list(result.breakdown[at:])


def kinds(system: System) -> list[str | None]:
    """Each of the system's attack types, or none if it has none."""
    return list(attack_types(system)) or [None]


@pytest.mark.parametrize(("system", "name"), EVERY_SITUATION, ids=lambda v: getattr(v, "slug", v))
def test_each_situation_alone_answers_cites_and_adds_up(system: System, name: str) -> None:
    entry = situations(system)[name]
    tied = entry.attack_type  # a charge is a melee attack: only that type applies
    for kind in [tied] if tied is not None else kinds(system):
        setup = AttackSetup(4, 15, situations=(name,), damage="2d6+2", attack_type=kind)
        try:
            result = attack(system, setup)
        except NotDefined as error:
            # A text that counts advantage without giving its dice (the 3d6 rules) refuses
            # the roll, saying how many this attack has.
            assert re.search(r"this attack has \d+ (Advantage|Disadvantage)", str(error))
            continue
        cited = {citation.url for citation in result.sources.citations}
        assert {c.url for c in entry.cite} <= cited
        if entry.interpretation:
            assert entry.interpretation in result.sources.interpretations
        roll, defense = split(result)
        assert sum(value for _, value in roll) == result.attack_modifier
        assert sum(value for _, value in defense) == result.defense
        assert roll[0] == ("Attack bonus", 4) and defense[0] == ("Defense", 15)
        assert 0 <= result.crit <= result.hit <= 1 and result.hit + result.miss == 1
        # Named twice, a situation counts once.
        twice = attack(system, replace(setup, situations=(name, name)))
        assert (twice.hit, twice.crit, twice.expected_damage, twice.breakdown) == (
            result.hit,
            result.crit,
            result.expected_damage,
            result.breakdown,
        )


def references(effect: Effect) -> list[str]:
    return [*effect.confers, *effect.prevents, *effect.if_, *effect.unless]


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.slug)
def test_situation_data_uses_the_vocabulary_and_names_what_exists(system: System) -> None:
    table = situations(system)
    for name, entry in table.items():
        assert entry.label and entry.cite, name
        assert entry.side in (None, "attacker", "target"), name
        for effect in entry.effects:
            assert set(references(effect)) <= set(table), name
            assert set(effect.attack_types or ()) <= set(attack_types(system)), name


# That every reading of the attack rules quotes the text's words is checked by `make data`
# (hooks/content/readings.py, tests/test_readings.py).


# ---------------------------------------------------------------- the named cases

ORCUS = get_system("orcus")
ITU = get_system("into-the-unknown")
DICE3 = get_system("3d6-combat")
CORE4E = get_system("4e-core")


def test_orcus_degrees_of_cover_and_concealment_take_the_most_protective() -> None:
    # "a creature that gives half cover and a tree trunk that gives three-quarters cover,
    # the target has three-quarters cover": -5, not -7 and not a refusal, in either order.
    for chosen in (("half-cover", "three-quarters-cover"), ("three-quarters-cover", "half-cover")):
        result = attack(ORCUS, AttackSetup(7, 15, situations=chosen))
        assert result.breakdown == (
            ("Attack bonus", 7),
            ("Three-quarters cover", -5),
            ("Defense", 15),
        )
        assert any("only the most protective" in note for note in result.sources.interpretations)
    doubled = attack(ORCUS, AttackSetup(7, 15, situations=("half-cover", "half-cover")))
    assert doubled.attack_modifier == 5
    # "Concealment penalties do not apply to Near or Far attacks."
    setup = AttackSetup(7, 15, situations=("concealment", "total-concealment"))
    assert attack(ORCUS, replace(setup, attack_type="ranged")).attack_modifier == 2
    assert attack(ORCUS, replace(setup, attack_type="far")).attack_modifier == 7
    with pytest.raises(RulesError, match="depends on the attack type"):
        attack(ORCUS, setup)


def test_combat_advantage_is_a_state_however_many_reasons() -> None:
    chosen = ("combat-advantage", "target-blinded", "target-flanked", "combat-advantage")
    result = attack(ORCUS, AttackSetup(5, 15, situations=chosen))
    assert result.breakdown == (("Attack bonus", 5), ("Combat advantage", 2), ("Defense", 15))
    assert result.hit == Fraction(13, 20)
    four = attack(CORE4E, AttackSetup(5, 15, situations=("target-stunned", "target-flanked")))
    assert four.attack_modifier == 7
    # 4e: "You must be able to see a target to gain combat advantage against it."
    unseen = attack(CORE4E, AttackSetup(5, 15, situations=("target-flanked", "target-not-seen")))
    assert unseen.attack_modifier == 5
    assert any("does not apply" in note for note in unseen.sources.interpretations)


def test_3d6_crit_range_needs_weak_and_vulnerable() -> None:
    # 16+ is 10 of 216 rolls, 15+ is 20; far out of reach, only crits hit.
    weak_twice = attack(DICE3, AttackSetup(0, 40, situations=("weak", "weak")))
    assert weak_twice.crit == Fraction(10, 216)
    assert attack(DICE3, AttackSetup(0, 40, situations=("vulnerable",))).crit == Fraction(10, 216)
    both = attack(DICE3, AttackSetup(0, 40, situations=("vulnerable", "weak", "weak")))
    assert both.crit == Fraction(20, 216)


def test_3d6_advantage_counts_refuse_the_roll_unless_it_cannot_matter() -> None:
    with pytest.raises(NotDefined, match=r"1 Advantage and 2 Disadvantage"):
        attack(
            DICE3,
            AttackSetup(
                0, 12, situations=("attacker-dazed", "attacker-weakened", "target-softened")
            ),
        )
    # A Coup de Grace crits whatever the roll, so the Helpless target's Advantage changes nothing.
    coup = attack(DICE3, AttackSetup(0, 40, situations=("coup-de-grace",), damage="2d6"))
    assert (coup.hit, coup.crit, coup.crit_fail, coup.expected_damage) == (1, 1, 0, 14)
    assert any("change nothing" in note for note in coup.sources.interpretations)
    # With Resist 12+ the natural roll halves some crits: now the roll matters.
    with pytest.raises(NotDefined):
        attack(DICE3, AttackSetup(0, 40, situations=("coup-de-grace",), damage="2d6", resist=12))


def test_a_hit_is_a_critical_hit_and_damage_halving() -> None:
    # Orcus coup de grace: every hit crits (maximum, 12); 11+ hits with +5 +2 CA vs 18.
    coup = attack(ORCUS, AttackSetup(5, 18, situations=("coup-de-grace",), damage="1d8+4"))
    assert coup.hit == coup.crit == Fraction(10, 20) and coup.expected_damage == 6
    # Weakened and incorporeal: each halves (rounded down), so 12 becomes 3.
    quarter = attack(
        ORCUS,
        AttackSetup(50, 0, situations=("attacker-weakened", "target-incorporeal"), damage="12"),
    )
    assert quarter.expected_damage == Fraction(19, 20) * 3
    # Into the Unknown: paralysed, within 5 feet: every hit is a critical hit.
    near = attack(ITU, AttackSetup(0, 11, situations=("target-paralyzed", "within-5-feet")))
    far = attack(ITU, AttackSetup(0, 11, situations=("target-paralyzed",)))
    assert near.crit == near.hit == far.hit and far.crit == 1 - Fraction(19, 20) ** 2


def test_resistance_and_vulnerability_in_expected_damage() -> None:
    # Orcus: resistance 3 on a flat 10 (crit also 10): 7 per hit; vulnerability 2: 9.
    base = AttackSetup(50, 0, damage="10")
    assert attack(ORCUS, replace(base, resistance=3)).expected_damage == Fraction(19, 20) * 7
    assert attack(ORCUS, replace(base, resistance=3, vulnerability=5)).expected_damage == (
        Fraction(19, 20) * 12
    )
    # Petrified: "Resistance to all 20"; the larger of two resistances is used.
    petrified = replace(base, damage="25", situations=("target-petrified",), resistance=3)
    assert attack(ORCUS, petrified).expected_damage == Fraction(19, 20) * 5
    # Into the Unknown: 25 halved is 12; vulnerable too: 24.
    itu = AttackSetup(50, 0, damage="25", resistance=0)
    assert attack(ITU, itu).expected_damage == Fraction(19, 20) * 12
    assert attack(ITU, replace(itu, vulnerability=0)).expected_damage == Fraction(19, 20) * 24
    with pytest.raises(NotDefined, match="resistance"):
        attack(CORE4E, AttackSetup(5, 15, resistance=5))
    with pytest.raises(RulesError, match="natural roll"):
        attack(DICE3, AttackSetup(5, 15, damage="10", resistance=12))


def test_attack_types_only_where_the_text_has_them() -> None:
    # No 3d6 situation depends on the attack type: the data defines none.
    with pytest.raises(NotDefined, match="attack types"):
        attack(DICE3, AttackSetup(5, 15, attack_type="melee"))
    with pytest.raises(RulesError, match="not an attack type Orcus defines"):
        attack(ORCUS, AttackSetup(5, 15, attack_type="thrown"))
    prone = AttackSetup(5, 15, situations=("target-prone",))
    assert attack(ORCUS, replace(prone, attack_type="melee")).attack_modifier == 7
    ranged = attack(ORCUS, replace(prone, attack_type="ranged"))
    assert ranged.breakdown[-1] == ("Defense: Target prone", 2)
    adjacent = replace(prone, attack_type="ranged", situations=("target-prone", "adjacent"))
    assert attack(ORCUS, adjacent).defense == 15


def test_repeated_names_count_once_through_the_cli_and_the_web(capsys) -> None:
    argv = ["attack", "--system", "orcus", "--bonus", "5", "--defense", "15", "--json"]
    assert main([*argv, "--situation", "half-cover", "--situation", "half-cover"]) == 0
    assert '"attack_modifier": 3' in capsys.readouterr().out
    inputs = {
        "system": "orcus",
        "bonus": "5",
        "defense": "15",
        "situations": "combat-advantage,combat-advantage",
    }
    response = handle("attack", inputs, "")
    assert response["ok"], response
    assert response["data"]["attack_modifier"] == 7


def test_a_situation_added_as_data_alone_works() -> None:
    rules = copy.deepcopy(ORCUS.rules)
    rules["attack"]["situations"]["target-hexed"] = {
        "label": "Target hexed",
        "side": "target",
        "defense": -1,
        "confers": ["combat-advantage"],
        "when": [{"attack_types": ["melee"], "crit_from": -1}],
        "cite": [],
    }
    hexed = replace(ORCUS, rules=rules)
    result = attack(hexed, AttackSetup(5, 15, situations=("target-hexed",), attack_type="melee"))
    assert result.attack_modifier == 7 and result.defense == 14
    assert result.crit == Fraction(2, 20)


@pytest.mark.parametrize(
    ("system", "setup"),
    [
        (ORCUS, AttackSetup(4, 0, situations=("target-prone", "half-cover"), attack_type="ranged")),
        (ITU, AttackSetup(2, 0, situations=("target-unconscious", "within-5-feet"))),
        (DICE3, AttackSetup(3, 0, escalation=2, situations=("coup-de-grace", "weak"))),
        (CORE4E, AttackSetup(1, 0, situations=("target-second-wind", "target-ran"))),
    ],
    ids=lambda value: getattr(value, "slug", ""),
)
def test_hit_chance_by_defense_matches_single_attacks_with_situations(system, setup) -> None:
    for defense, chance in hit_chance_by_defense(system, setup, range(-5, 35)):
        assert chance == attack(system, replace(setup, defense=defense)).hit


def test_attack_type_and_resistance_through_the_cli_and_the_web(capsys) -> None:
    argv = ["attack", "--system", "orcus", "--bonus", "5", "--defense", "15", "--json"]
    extra = ["--situation", "target-prone", "--attack-type", "ranged", "--damage", "12"]
    assert main([*argv, *extra, "--resistance", "3", "--vulnerability", "1"]) == 0
    cli = capsys.readouterr().out
    inputs = {
        "system": "orcus",
        "bonus": "5",
        "defense": "15",
        "situations": "target-prone",
        "attack_type": "ranged",
        "damage": "12",
        "resistance": "3",
        "vulnerability": "1",
    }
    web = handle("attack", inputs, "")["data"]
    # +2 defense against a ranged attack; 9 of 20 hit for 12 - 3 + 1 = 10.
    assert web["defense"] == 17 and web["expected_damage"] == "9/2"
    assert '"expected_damage": "9/2"' in cli
    assert ["Defense: Target prone", 2] in web["breakdown"]
    # Into the Unknown's resistance halves: a tick on the page, a bare option on the CLI.
    itu = {"system": "into-the-unknown", "bonus": "50", "defense": "0", "damage": "25"}
    halved = handle("attack", {**itu, "resistant": "on"}, "")["data"]
    assert halved["expected_damage"] == str(Fraction(19, 20) * 12)
    assert (
        main(
            [
                "attack",
                "--system",
                "into-the-unknown",
                "--bonus",
                "50",
                "--defense",
                "0",
                "--damage",
                "25",
                "--resistance",
                "--json",
            ]
        )
        == 0
    )
    assert f'"expected_damage": "{Fraction(19, 20) * 12}"' in capsys.readouterr().out
    refused = handle("attack", {**inputs, "system": "3d6-combat", "situations": ""}, "")
    assert "data" not in refused and "attack types" in refused["message"]


def test_a_situation_tied_to_an_attack_type_sets_it_and_refuses_another() -> None:
    """Charge is "a single basic melee attack", long range a ranged one (Orcus): the
    situation makes the attack that type, and another type is refused, not added up."""
    checked = 0
    for system in SYSTEMS:
        checked += _check_tied_situations(system)
    assert checked, "no system ties a situation to an attack type: nothing was checked"


def _check_tied_situations(system: System) -> int:
    tied = {
        name: entry.attack_type
        for name, entry in situations(system).items()
        if entry.attack_type is not None
    }
    for name, kind in tied.items():
        assert kind in attack_types(system), name
        alone = attack(system, AttackSetup(5, 15, situations=(name,)))
        typed = attack(system, AttackSetup(5, 15, situations=(name,), attack_type=kind))
        assert (alone.hit, alone.crit, alone.attack_modifier) == (
            typed.hit,
            typed.crit,
            typed.attack_modifier,
        )
        for other in attack_types(system):
            if other != kind:
                with pytest.raises(RulesError, match=f"is a {kind} attack, not a {other} one"):
                    attack(system, AttackSetup(5, 15, situations=(name,), attack_type=other))
        for second, second_kind in tied.items():
            if second_kind != kind:
                with pytest.raises(RulesError, match="One attack cannot be all of these"):
                    attack(system, AttackSetup(5, 15, situations=(name, second)))
    return len(tied)


def test_orcus_long_range_and_charge_follow_the_text() -> None:
    """By hand from the Orcus text: -2 beyond normal range on a ranged attack; +1 on a
    charge's melee attack; prone gives +2 defense against a ranged attack."""
    long_range = attack(ORCUS, AttackSetup(5, 15, situations=("long-range", "target-prone")))
    assert long_range.attack_modifier == 3 and long_range.defense == 17
    charge = attack(ORCUS, AttackSetup(5, 15, situations=("charge",)))
    assert charge.attack_modifier == 6 and charge.defense == 15


def test_an_attack_that_always_crits_shows_no_reading_of_the_natural_rolls() -> None:
    """A coup de grace crits whatever the roll: an answer that also said "a natural 3 is a
    miss" would contradict itself."""
    checked = 0
    for system in SYSTEMS:
        rules = system.attack
        if rules is None:
            continue
        natural = [
            rule.interpretation
            for rule in (rules.always_hit, rules.always_miss, rules.critical, rules.crit_fail)
            if rule and rule.interpretation
        ]
        for name, entry in rules.situations.items():
            if not any(effect.always_critical for effect in entry.effects):
                continue
            for kind in kinds(system):
                setup = AttackSetup(4, 15, situations=(name,), attack_type=kind)
                try:
                    result = attack(system, setup)
                except RulesError:
                    continue  # a situation that needs more than this (its own refusal)
                if result.crit != 1:
                    continue  # the effect was filtered out for this attack type
                assert not set(natural) & set(result.sources.interpretations), (name, kind)
                checked += bool(natural)
    assert checked, "no always-critical attack in a system with natural-roll readings"


def test_two_damage_multipliers_together_are_labelled() -> None:
    """Orcus weakened attacker against an incorporeal target: half of half, said so."""
    checked = 0
    for system in SYSTEMS:
        halving = [
            name
            for name, entry in situations(system).items()
            if entry.damage_multiplier and not entry.when and not entry.if_
        ]
        if len(halving) < 2:
            continue  # a system with fewer than two multipliers has nothing to combine
        first, second = halving[:2]
        kind = kinds(system)[-1]
        pair = AttackSetup(5, 15, situations=(first, second), damage="2d6", attack_type=kind)
        said = attack(system, pair).sources.interpretations
        assert any("multiplied once for each of" in note for note in said), system.slug
        one = attack(system, replace(pair, situations=(first,))).sources.interpretations
        assert not any("multiplied once for each of" in note for note in one), system.slug
        checked += 1
    assert checked, "no system has two situations that multiply damage: nothing was checked"


def test_4e_charge_is_a_melee_basic_attack() -> None:
    """4e: "At the end of your move, you make a melee basic attack with a +1 bonus to your
    attack roll": the charge makes the attack melee, and a ranged one is refused."""
    charge = attack(CORE4E, AttackSetup(5, 15, situations=("charge",)))
    assert charge.attack_modifier == 6
    melee = attack(CORE4E, AttackSetup(5, 15, situations=("charge",), attack_type="melee"))
    assert melee.attack_modifier == 6
    with pytest.raises(RulesError, match="is a melee attack, not a ranged one"):
        attack(CORE4E, AttackSetup(5, 15, situations=("charge",), attack_type="ranged"))
    # With the combat advantage of a flank: +1 and +2.
    flank = attack(CORE4E, AttackSetup(5, 15, situations=("charge", "target-flanked")))
    assert flank.attack_modifier == 8


# A precondition of the text the situation's effects cannot express: the answer says what
# the calculator assumes, in the text's words.
ASSUMED = [
    (ORCUS, "help-attack", "your ally's next attack roll", "each of them"),
    (ITU, "help", "the first attack roll is made with advantage", "each of them"),
    (ITU, "underwater-ranged", "automatically misses", "within the weapon's normal range"),
    (ITU, "target-dodging", "can't be seen without the aid of magic", "cannot see the attacker"),
    (DICE3, "coup-de-grace", "the attack only targets that enemy", "engaged"),
    (CORE4E, "target-flanked", "you and an ally must be adjacent", "the attacker"),
]


@pytest.mark.parametrize(
    ("system", "name", "quote", "assumed"), ASSUMED, ids=[f"{s.slug}-{n}" for s, n, *_ in ASSUMED]
)
def test_an_unexpressed_precondition_is_said_in_the_answer(
    system: System, name: str, quote: str, assumed: str
) -> None:
    result = attack(system, AttackSetup(4, 15, situations=(name,)))
    said = [note for note in result.sources.interpretations if quote in note]
    assert said and assumed in said[0], result.sources.interpretations


def test_itu_ranged_and_melee_situations_follow_the_text() -> None:
    """Into the Unknown: beyond normal range, in close combat and underwater, the text names
    the attack ("ranged attacks", "a melee weapon attack"); a dodging target loses its
    benefit when it cannot see the attacker, is incapacitated or its speed is 0."""
    long_range = attack(ITU, AttackSetup(5, 15, situations=("long-range",)))
    assert long_range.roll == "2d20kl1"
    with pytest.raises(RulesError, match="is a ranged attack, not a melee one"):
        attack(ITU, AttackSetup(5, 15, situations=("long-range",), attack_type="melee"))
    with pytest.raises(RulesError, match="One attack cannot be all of these"):
        attack(ITU, AttackSetup(5, 15, situations=("underwater-melee", "ranged-in-close-combat")))
    assert attack(ITU, AttackSetup(5, 15, situations=("target-dodging",))).roll == "2d20kl1"
    for other in ("attacker-unseen", "target-stunned", "target-restrained"):
        both = attack(ITU, AttackSetup(5, 15, situations=("target-dodging", other)))
        assert both.roll == "2d20kh1", other
