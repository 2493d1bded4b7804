"""The rules core against each text's rules: printed tables, natural-roll rules, edge cases."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from rules_core.dice import NOTATIONS, DiceError, parse
from rules_core.errors import NotDefined, RulesError
from rules_core.mechanics.abilities import modifier, point_buy, rolled_score
from rules_core.mechanics.attacks import AttackSetup, attack, hit_chance_by_defense
from rules_core.mechanics.damage import DamageSetup, damage
from rules_core.mechanics.encounters import Monster, encounter, xp_table
from rules_core.mechanics.progression import level_for_xp, level_rows
from rules_core.numbers import parse_printed_int
from rules_core.systems import System, get_system, system_slugs

ORCUS = get_system("orcus")
DICE3 = get_system("3d6-combat")
ITU = get_system("into-the-unknown")
CORE4E = get_system("4e-core")


# ---------------------------------------------------------------- printed tables


def test_orcus_modifier_table_matches_the_texts_formula() -> None:
    # The core reads the printed table; the text's formula must give the same numbers.
    for score in range(1, 31):
        assert modifier(ORCUS, score).modifier == (score - 10) // 2


def test_orcus_cumulative_xp_is_the_running_sum_of_the_steps() -> None:
    table = ORCUS.rules["levels"]["table"]["rows"]
    totals = [row.total for row in level_rows(ORCUS)]
    steps = [row["XP to Reach Next Level"] for row in table]
    running = 0
    for level, (total, step) in enumerate(zip(totals, steps, strict=True), start=1):
        assert total == running, f"level {level}"
        if step != "N/A":
            running += parse_printed_int(step)
    assert totals[-1] == 826_500


def test_3d6_averages_table_reproduced_with_the_misprint_reported() -> None:
    table = DICE3.rules  # the averages table is not a rule; read it from the compiled page data
    del table
    from hooks.content.loader import load_content  # the table lives in content/, like every table
    from hooks.pages.tables import check_table

    systems = load_content(__import__("pathlib").Path(__file__).resolve().parent.parent / "content")
    averages = systems["3d6-combat"].tables["damage-averages"]
    mismatches = check_table(averages)
    assert [(m.row, m.column, m.printed, m.computed) for m in mismatches] == [
        ("36", "d10", "190", "198")
    ]
    for row in averages.rows:
        for column, cell in zip(averages.columns[1:], row[1:], strict=True):
            mean = parse(f"{row[0]}{column}").distribution().mean()
            assert (mean == int(cell)) == ((row[0], column) != ("36", "d10"))


def test_orcus_monster_xp_follows_its_stated_rules() -> None:
    # The reference says: standard XP is a tenth of the XP to the next level; mook x1/4
    # rounded half up, elite x2, boss x5.
    table = xp_table(ORCUS)
    steps = {
        parse_printed_int(row["Level"]): row["XP to Reach Next Level"]
        for row in ORCUS.rules["levels"]["table"]["rows"]
    }
    for level, xp in table.items():
        if level < 30:
            assert xp["standard"] * 10 == parse_printed_int(steps[level])
        assert xp["mook"] == (xp["standard"] * 2 + 4) // 8  # quarter, halves rounded up
        assert xp["elite"] == 2 * xp["standard"]
        assert xp["boss"] == 5 * xp["standard"]


# ---------------------------------------------------------------- abilities


def test_modifier_by_formula_and_bounds() -> None:
    assert modifier(ITU, 1).modifier == -5
    assert modifier(ITU, 15).modifier == 2
    assert modifier(ITU, 30).modifier == 10
    with pytest.raises(RulesError, match="run from 1 to 30"):
        modifier(ITU, 31)
    with pytest.raises(RulesError, match="run from 1 to 30"):
        modifier(ORCUS, 0)


@pytest.mark.parametrize("system", [DICE3, CORE4E])
def test_modifier_not_defined(system) -> None:
    with pytest.raises(NotDefined, match="does not define ability modifiers"):
        modifier(system, 12)


def test_point_buy() -> None:
    standard = point_buy(ORCUS, [16, 14, 13, 12, 11, 10])
    assert (standard.cost, standard.remaining, standard.valid) == (11 + 7 + 5 + 4 + 3 + 2, 0, True)
    two_low = point_buy(ORCUS, [18, 16, 9, 8, 10, 10])
    assert not two_low.valid
    assert any("At most 1 score may be below 10" in p for p in two_low.problems)
    over = point_buy(ORCUS, [18, 18, 10, 10, 10, 10])
    assert over.cost == 44 and over.remaining == -12
    assert any("budget is 32" in p for p in over.problems)
    off = point_buy(ORCUS, [19, 7, 10, 10, 10])
    assert any("19 cannot be bought" in p for p in off.problems)
    assert any("Give 6 scores, not 5" in p for p in off.problems)
    with pytest.raises(NotDefined, match="point-buy"):
        point_buy(ITU, [10] * 6)


def test_rolled_scores_are_4d6_drop_lowest() -> None:
    distribution, text, _ = rolled_score(ORCUS)
    assert text == "4d6kh3"
    assert distribution.mean() == Fraction(15869, 1296)
    assert distribution.probability(18) == Fraction(21, 1296)
    assert distribution.probability(3) == Fraction(1, 1296)


# ---------------------------------------------------------------- progression


@pytest.mark.parametrize(
    ("xp", "level", "tier", "following"),
    [
        (0, 1, "Adventurer", 1000),
        (999, 1, "Adventurer", 1000),
        (1000, 2, "Adventurer", 2250),
        (25_500, 11, "Prestige", 31_500),
        (170_500, 21, "Epic", 202_500),
        (10**9, 30, "Epic", None),
    ],
)
def test_level_for_xp(xp: int, level: int, tier: str, following: int | None) -> None:
    result = level_for_xp(ORCUS, xp)
    assert (result.level, result.tier, result.xp_for_next_level) == (level, tier, following)
    assert result.level_bonus == level // 2
    if following is not None:
        assert result.xp_needed == following - xp


def test_level_grants_and_tier_erratum() -> None:
    result = level_for_xp(ORCUS, 25_500)
    assert result.grants == {
        "ability_scores": "Increase all by +1",
        "features": "Select a prestige class",
    }
    assert any("Level 11:-20" in note for note in result.sources.interpretations)
    with pytest.raises(RulesError, match="negative"):
        level_for_xp(ORCUS, -1)
    with pytest.raises(NotDefined, match="Gold for XP"):
        level_for_xp(ITU, 100)


# ---------------------------------------------------------------- attacks


def test_orcus_natural_20_hits_but_crits_only_if_it_would_have_hit() -> None:
    out_of_reach = attack(ORCUS, AttackSetup(bonus=0, defense=30))
    assert (out_of_reach.hit, out_of_reach.crit) == (Fraction(1, 20), 0)
    easy = attack(ORCUS, AttackSetup(bonus=10, defense=11))
    assert (easy.hit, easy.crit, easy.miss) == (Fraction(19, 20), Fraction(1, 20), Fraction(1, 20))
    assert easy.crit_fail is None


def test_orcus_situations_stack_by_group() -> None:
    base = attack(ORCUS, AttackSetup(bonus=5, defense=15))
    with_ca = attack(ORCUS, AttackSetup(bonus=5, defense=15, situations=("combat-advantage",)))
    assert with_ca.hit - base.hit == Fraction(2, 20)
    covered = attack(ORCUS, AttackSetup(bonus=5, defense=15, situations=("three-quarters-cover",)))
    assert covered.attack_modifier == 0
    # "Only the most protective degree of cover applies": three-quarters, not a refusal.
    both = attack(
        ORCUS, AttackSetup(bonus=5, defense=15, situations=("half-cover", "three-quarters-cover"))
    )
    assert both.attack_modifier == covered.attack_modifier
    with pytest.raises(RulesError, match="not a situation Orcus defines"):
        attack(ORCUS, AttackSetup(bonus=5, defense=15, situations=("flanking-bonus",)))


def test_itu_advantage_disadvantage_and_both() -> None:
    plain = attack(ITU, AttackSetup(bonus=0, defense=11))
    assert plain.hit == Fraction(1, 2)
    advantage = attack(ITU, AttackSetup(bonus=0, defense=11, advantage=True))
    assert advantage.hit == 1 - Fraction(10, 20) ** 2
    assert advantage.crit == 1 - Fraction(19, 20) ** 2
    disadvantage = attack(ITU, AttackSetup(bonus=0, defense=11, disadvantage=True))
    assert disadvantage.hit == Fraction(1, 4)
    both = attack(ITU, AttackSetup(bonus=0, defense=11, advantage=True, disadvantage=True))
    assert both.hit == plain.hit and both.roll == "1d20"
    assert any("cancel" in note for note in both.sources.interpretations)


def test_itu_cover_raises_ac_and_naturals_override() -> None:
    covered = attack(ITU, AttackSetup(bonus=0, defense=11, situations=("three-quarters-cover",)))
    assert covered.defense == 16 and covered.hit == Fraction(5, 20)
    hopeless = attack(ITU, AttackSetup(bonus=-50, defense=30))
    assert (hopeless.hit, hopeless.crit) == (Fraction(1, 20), Fraction(1, 20))
    certain = attack(ITU, AttackSetup(bonus=50, defense=1))
    assert certain.miss == Fraction(1, 20)


def test_3d6_crit_ranges_crit_fail_and_escalation() -> None:
    far = attack(DICE3, AttackSetup(bonus=0, defense=40))
    assert far.crit == Fraction(4, 216) and far.hit == far.crit
    assert far.crit_fail == Fraction(1, 216)
    assert any("Natural 17+" in note for note in far.sources.interpretations)
    weak = attack(DICE3, AttackSetup(bonus=0, defense=40, situations=("weak",)))
    assert weak.crit == Fraction(10, 216)
    both = attack(DICE3, AttackSetup(bonus=0, defense=40, situations=("weak", "vulnerable")))
    assert both.crit == Fraction(20, 216)
    sure = attack(DICE3, AttackSetup(bonus=50, defense=10))
    assert sure.miss == Fraction(1, 216) == sure.crit_fail
    escalated = attack(DICE3, AttackSetup(bonus=0, defense=14, escalation=3))
    assert escalated.hit == parse("3d6").distribution().at_least(11)
    with pytest.raises(RulesError, match="0 to 6"):
        attack(DICE3, AttackSetup(bonus=0, defense=14, escalation=7))
    with pytest.raises(NotDefined, match="never says what dice"):
        attack(DICE3, AttackSetup(bonus=0, defense=14, advantage=True))


def test_4e_has_no_natural_1_rule_and_20_crits() -> None:
    result = attack(CORE4E, AttackSetup(bonus=20, defense=10))
    assert result.miss == 0 and result.crit == Fraction(1, 20)
    low = attack(CORE4E, AttackSetup(bonus=0, defense=25))
    assert low.hit == low.crit == Fraction(1, 20)
    with pytest.raises(NotDefined, match="escalation"):
        attack(CORE4E, AttackSetup(bonus=0, defense=10, escalation=2))


def test_expected_damage_per_attack() -> None:
    result = attack(ORCUS, AttackSetup(bonus=5, defense=16, damage="1d8+4"))
    # 11-19 hit for 1d8+4 (mean 17/2); 20 crits for the maximum, 12.
    assert result.expected_damage == Fraction(9, 20) * Fraction(17, 2) + Fraction(1, 20) * 12
    with_miss = attack(ORCUS, AttackSetup(bonus=5, defense=16, damage="1d8+4", miss_damage="2"))
    assert with_miss.expected_damage == result.expected_damage + Fraction(10, 20) * 2


def test_at_least_one_hit_in_several_attacks() -> None:
    result = attack(ORCUS, AttackSetup(bonus=0, defense=11, attacks=3))
    assert result.at_least_one_hit == 1 - Fraction(1, 2) ** 3
    with pytest.raises(RulesError, match="from 1 to 100"):
        attack(ORCUS, AttackSetup(bonus=0, defense=11, attacks=0))


def test_3d6_resist_halves_damage_below_the_natural_threshold() -> None:
    # Defense 0: every roll hits but a natural 3 (crit fail, no damage). Naturals 4-11
    # (134 of 216) deal half of a flat 10; 12-16 (77 of 216) deal 10; 17+ (4) crit for 20.
    result = attack(DICE3, AttackSetup(bonus=0, defense=0, damage="10", resist=12))
    assert result.expected_damage == Fraction(134 * 5 + 77 * 10 + 4 * 20, 216)


# ---------------------------------------------------------------- damage


def test_critical_damage_per_system() -> None:
    assert damage(ORCUS, DamageSetup("2d6+3", crit=True)).distribution.items() is not None
    assert damage(ORCUS, DamageSetup("2d6+3", crit=True)).mean == 15
    assert damage(CORE4E, DamageSetup("2d6+3", crit=True)).mean == 15
    assert damage(ITU, DamageSetup("2d6+3", crit=True)).mean == 17  # 4d6+3
    assert damage(ITU, DamageSetup("2d6+3", crit=True)).maximum == 27
    assert damage(DICE3, DamageSetup("2d6+3", crit=True)).mean == 20  # (2d6+3) x 2
    extra = damage(ORCUS, DamageSetup("1d8+2", crit=True, extra_crit="1d6"))
    assert extra.mean == 10 + Fraction(7, 2) and extra.minimum == 11
    with pytest.raises(NotDefined):
        damage(CORE4E, DamageSetup("1d8", crit=True, extra_crit="1d6"))


def test_resistance_and_vulnerability_per_system() -> None:
    resisted = damage(ORCUS, DamageSetup("1d6", resistance=5))
    assert resisted.distribution.probability(0) == Fraction(5, 6)
    assert damage(ORCUS, DamageSetup("1d6", vulnerability=2)).mean == Fraction(11, 2)
    # The text's own example: 25 cold damage, reduced by 5, halved: 10.
    assert damage(ITU, DamageSetup("25-5", resistance=0)).mean == 10
    assert damage(ITU, DamageSetup("7", resistance=0, vulnerability=0)).mean == 6
    with pytest.raises(NotDefined):
        damage(CORE4E, DamageSetup("1d6", resistance=5))
    with pytest.raises(RulesError, match="natural roll"):
        damage(DICE3, DamageSetup("1d6", resistance=12))


def test_damage_floor_and_chance_to_reach_hp() -> None:
    low = damage(ORCUS, DamageSetup("1d4-3"))
    assert low.minimum == 0 and low.distribution.probability(0) == Fraction(3, 4)
    reach = damage(ORCUS, DamageSetup("2d6", hp=10))
    assert reach.at_least_hp == Fraction(6, 36)


def test_weapon_dice_and_level_dice() -> None:
    assert damage(ORCUS, DamageSetup("3dW+2", weapon_die=10)).mean == Fraction(37, 2)
    assert damage(DICE3, DamageSetup("d8 x Level + 3", level=4)).mean == 21


# ---------------------------------------------------------------- encounters


def test_encounter_budget() -> None:
    result = encounter(ORCUS, 4, 1, [Monster(1, "standard", 4)])
    assert (result.budget, result.total_xp, result.share) == (400, 400, 1)
    mixed = encounter(ORCUS, 5, 3, [Monster(3, "boss"), Monster(2, "mook", 4)])
    assert mixed.total_xp == 750 + 4 * 31
    assert mixed.xp_per_character == Fraction(874, 5)
    with pytest.raises(RulesError, match="at least one character"):
        encounter(ORCUS, 0, 1, [])
    with pytest.raises(RulesError, match="Unknown rank"):
        encounter(ORCUS, 4, 1, [Monster(1, "minion")])
    with pytest.raises(NotDefined):
        encounter(ITU, 4, 1, [])


@pytest.mark.parametrize(
    ("system", "setup"),
    [
        (ORCUS, AttackSetup(bonus=4, defense=0, situations=("half-cover",))),
        (ITU, AttackSetup(bonus=2, defense=0, advantage=True, situations=("half-cover",))),
        (DICE3, AttackSetup(bonus=3, defense=0, escalation=2, situations=("weak",))),
        (CORE4E, AttackSetup(bonus=1, defense=0)),
    ],
)
def test_hit_chance_by_defense_matches_single_attacks(system, setup) -> None:
    defenses = range(-5, 35)
    curve = hit_chance_by_defense(system, setup, defenses)
    assert [d for d, _ in curve] == list(defenses)
    for defense, chance in curve:
        assert chance == attack(system, replace(setup, defense=defense)).hit


# ---------------------------------------------------------------- notation per system

NOTATION_EXAMPLES = {"weapon-dice": "1dW+2", "per-level": "d8 x Level", "multiply-die": "10 x 1d6"}


def _systems() -> list[System]:
    return [get_system(slug) for slug in system_slugs()]


@pytest.mark.parametrize("notation", sorted(NOTATIONS))
def test_each_notation_only_where_the_systems_text_defines_it(notation: str) -> None:
    assert set(NOTATION_EXAMPLES) == set(NOTATIONS)
    text = NOTATION_EXAMPLES[notation]
    definers = [s for s in _systems() if notation in (s.rules["damage"].get("notation") or {})]
    for system in _systems():
        setup = DamageSetup(text, weapon_die=8, level=3)
        if system in definers:
            result = damage(system, setup)
            entry = system.rules["damage"]["notation"][notation]
            assert {c["url"] for c in entry.get("cite", [])} <= {
                c.url for c in result.sources.citations
            }
            if entry.get("interpretation"):
                assert entry["interpretation"] in result.sources.interpretations
            continue
        with pytest.raises(DiceError) as error:
            damage(system, setup)
        message = str(error.value)
        assert message.startswith(f"{system.title} does not define")
        for definer in definers:
            assert definer.title in message


def test_x_times_level_is_labelled_where_it_is_used() -> None:
    result = damage(DICE3, DamageSetup("d8 x Level + 3", level=4))
    assert result.mean == 21
    assert any("X x Level" in note for note in result.sources.interpretations)
    multiplied = damage(DICE3, DamageSetup("10 x 1d6", hp=50))
    assert multiplied.at_least_hp == Fraction(1, 3)  # one d6 of 5 or 6, not 10d6
    assert any("Multiply a Die" in note for note in multiplied.sources.interpretations)


# ---------------------------------------------------------------- labelled ambiguities


def _ambiguity(system: System, section: str) -> dict:
    (note,) = system.rules[section]["ambiguities"]
    return note


def test_prestige_path_level_is_labelled_where_it_matters() -> None:
    note = _ambiguity(ORCUS, "levels")
    rows = {row.level: row for row in level_rows(ORCUS)}
    # The ambiguity is real: the table selects a prestige class at 11, the glossary says 21.
    assert any("prestige" in str(value).lower() for value in rows[11].grants.values())
    prestige = level_for_xp(ORCUS, rows[11].total)
    assert note["interpretation"] in prestige.sources.interpretations
    glossary = [c for c in prestige.sources.citations if c.url.startswith("orcus/glossary/#")]
    assert glossary and "at level 21" in glossary[0].quote
    early = level_for_xp(ORCUS, rows[5].total)
    assert note["interpretation"] not in early.sources.interpretations


def test_four_mooks_against_one_standard_monster_is_labelled() -> None:
    note = _ambiguity(ORCUS, "encounter")
    table = xp_table(ORCUS)
    # The ambiguity is real: four of the table's mooks are not one standard monster.
    assert 4 * table[2]["mook"] != table[2]["standard"]
    with_mooks = encounter(ORCUS, 4, 2, [Monster(2, "mook", 4)])
    assert with_mooks.total_xp == 4 * table[2]["mook"]
    assert note["interpretation"] in with_mooks.sources.interpretations
    without = encounter(ORCUS, 4, 2, [Monster(2, "standard", 1)])
    assert note["interpretation"] not in without.sources.interpretations


# Each section as the system's property of that name.
CHARACTER_SECTIONS = ("ability_modifier", "point_buy", "ability_roll", "levels", "encounter")


@pytest.mark.parametrize("slug", system_slugs())
@pytest.mark.parametrize("name", CHARACTER_SECTIONS)
def test_a_character_section_is_typed_once_per_loaded_system(slug: str, name: str) -> None:
    system = get_system(slug)
    if system.rules.get(name) is None:
        with pytest.raises(NotDefined):
            getattr(system, name)
        return
    assert getattr(system, name) is getattr(get_system(slug), name)


@pytest.mark.parametrize("slug", system_slugs())
def test_a_refusal_says_and_cites_what_the_text_says_of_the_rule_it_lacks(slug: str) -> None:
    system = get_system(slug)
    for name, said in (system.rules.get("not_defined") or {}).items():
        assert system.unsaid(name) is get_system(slug).unsaid(name)  # typed once
        refusal = system.not_defined(name, "this rule")
        assert (
            str(refusal) == f"{system.title} does not define this rule in its text. {said['note']}"
        )
        assert [citation.to_json() for citation in refusal.citations] == [
            {key: cited[key] for key in ("page", "section", "url", "quote")}
            for cited in said.get("cite", [])
        ]
    plain = system.not_defined("no-such-rule", "this rule")
    assert (str(plain), plain.citations) == (
        f"{system.title} does not define this rule in its text.",
        [],
    )
