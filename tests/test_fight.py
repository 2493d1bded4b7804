"""Fight odds against an enumeration of every fight, attack by attack.

The enumeration walks the fight as a GM would run it: lists of hit points, each standing
combatant of the acting side making its attacks at the first standing target, hit points
at 0 or below dropping a combatant. It shares with the core only each attack's damage
distribution (the attack calculator's, tested against its own oracle); the core's chain
over positions, its turn kernels and its single denominator are what is checked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction

import fight_before
import pytest

from rules_core.calculators.fight import RULE
from rules_core.cli import main
from rules_core.errors import RulesError
from rules_core.mechanics.attacks import AttackSetup, attack
from rules_core.mechanics.fight import MAX_STATES, Combatant, FightResult, fight
from rules_core.mechanics.situations import situations
from rules_core.numbers import counted
from rules_core.systems import System, get_system, system_slugs
from rules_core.web import handle

SYSTEMS = [slug for slug in system_slugs() if RULE.met(get_system(slug))]

pytestmark = pytest.mark.unit


def escalation_in_round(system: System, side: str, r: int, opponents_escalate: bool) -> int:
    """The text's escalation die in round r (1-based), as the 3d6 rules say it: "At the start
    of the second round, the Escalation Die is put on the table. At the beginning of each
    subsequent round, it's increased by 1, to a maximum of 6. This number is added to all PC
    attacks (and sometimes NPCs)" (read from the rules data's numbers, not the core's)."""
    entry = (system.rules.get("attack") or {}).get("escalation")
    if not entry or not entry.get("by_round") or (side != "party" and not opponents_escalate):
        return 0
    on_table = entry["by_round"]["from_round"]
    return 0 if r < on_table else min(entry["max"], 1 + (r - on_table))


def enumerate_fight(
    system: System,
    party: Sequence[Combatant],
    opponents: Sequence[Combatant],
    party_first: bool,
    rounds: int,
    opponents_escalate: bool = False,
) -> tuple[list[Fraction], list[Fraction], dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction]]:
    sides = {
        "party": [c for c in party for _ in range(c.count)],
        "opponents": [c for c in opponents for _ in range(c.count)],
    }
    rounds_seen = [0]  # the round being walked, 1-based

    def damage(attacker: Combatant, target: Combatant) -> list[tuple[int, Fraction]]:
        escalation = escalation_in_round(system, attacker.side, rounds_seen[0], opponents_escalate)
        setup = AttackSetup(
            bonus=attacker.bonus,
            defense=target.defense,
            damage=attacker.damage,
            escalation=escalation,
        )
        dealt = attack(system, setup).damage_per_attack
        assert dealt is not None
        return [(value, p) for value, p in dealt.items() if p]

    # Every history, one attack at a time: (party hit points, opponents' hit points) -> chance.
    start = (tuple(c.hp for c in sides["party"]), tuple(c.hp for c in sides["opponents"]))
    states = {start: Fraction(1)}
    wins: dict[str, list[Fraction]] = {"party": [], "opponents": []}
    order = ["party", "opponents"] if party_first else ["opponents", "party"]
    finished: dict = {}
    for r in range(1, rounds + 1):
        rounds_seen[0] = r
        won = {"party": Fraction(0), "opponents": Fraction(0)}
        for side in order:
            other = "opponents" if side == "party" else "party"
            own, their = (0, 1) if side == "party" else (1, 0)
            for who, attacker in enumerate(sides[side]):
                for _ in range(attacker.attacks):
                    after: dict = {}
                    for state, chance in states.items():
                        if state[own][who] <= 0 or all(hp <= 0 for hp in state[their]):
                            after[state] = after.get(state, 0) + chance  # down, or nobody left
                            continue
                        target = next(i for i, hp in enumerate(state[their]) if hp > 0)
                        for value, p in damage(attacker, sides[other][target]):
                            hps = list(state[their])
                            hps[target] = max(0, hps[target] - value)
                            new = [None, None]
                            new[own], new[their] = state[own], tuple(hps)
                            key = (new[0], new[1])
                            after[key] = after.get(key, 0) + chance * p
                    states = after
            for state in [s for s in states if all(hp <= 0 for hp in s[their])]:
                won[side] += states[state]
                finished[state] = finished.get(state, 0) + states.pop(state)
        wins["party"].append(won["party"])
        wins["opponents"].append(won["opponents"])
    for state, chance in states.items():
        finished[state] = finished.get(state, 0) + chance
    return wins["party"], wins["opponents"], finished


FIGHTS = [
    # (party, opponents, party first, rounds)
    ([Combatant("party", 1, 3, "1d4", 1, 12, 3)], [Combatant("opponents", 1, 2, "1d4", 1, 11, 4)],
     True, 3),
    ([Combatant("party", 1, 5, "1d6", 2, 14, 5)],
     [Combatant("opponents", 2, 1, "1d4+1", 1, 10, 3)], False, 3),
    (
        [Combatant("party", 1, 4, "1d4", 1, 13, 4), Combatant("party", 1, 0, "1d3", 1, 9, 2)],
        [Combatant("opponents", 1, 6, "1d6", 1, 12, 5)],
        True,
        2,
    ),
]  # fmt: skip


@pytest.mark.parametrize("slug", SYSTEMS)
@pytest.mark.parametrize("case", range(len(FIGHTS)))
def test_small_fights_match_the_enumeration_of_every_attack(slug: str, case: int) -> None:
    system = get_system(slug)
    party, opponents, party_first, rounds = FIGHTS[case]
    result = fight(system, party, opponents, party_first=party_first, rounds=rounds)
    party_wins, opponents_win, finished = enumerate_fight(
        system, party, opponents, party_first, rounds
    )
    assert list(result.party_wins_in) == party_wins
    assert list(result.opponents_win_in) == opponents_win
    assert result.party_wins + result.opponents_win + result.undecided == 1
    assert result.undecided == sum(
        (p for (ours, theirs), p in finished.items()
         if any(hp > 0 for hp in ours) and any(hp > 0 for hp in theirs)),
        Fraction(0),
    )  # fmt: skip
    for index, chance in enumerate(result.party_drops):
        assert chance == sum(
            (p for (ours, _), p in finished.items() if ours[index] <= 0), Fraction(0)
        ), index
    for index, chance in enumerate(result.opponent_drops):
        assert chance == sum(
            (p for (_, theirs), p in finished.items() if theirs[index] <= 0), Fraction(0)
        ), index
        assert result.opponent_down_by[index][-1] == chance
    for index, chance in enumerate(result.party_drops):
        assert result.party_down_by[index][-1] == chance
    # Down by each round: what the same fight followed for only that many rounds ends with.
    for r in range(1, rounds):
        shorter = fight(system, party, opponents, party_first=party_first, rounds=r)
        assert [by[r - 1] for by in result.party_down_by] == list(shorter.party_drops)
        assert [by[r - 1] for by in result.opponent_down_by] == list(shorter.opponent_drops)


@pytest.mark.parametrize("slug", SYSTEMS)
@pytest.mark.parametrize("party_first", [True, False])
def test_who_acts_first_strikes_first(slug: str, party_first: bool) -> None:
    """One blow drops either side: the first round is the first side's hit, or its miss
    and then the other side's hit."""
    system = get_system(slug)
    blow = attack(system, AttackSetup(bonus=100, defense=0, damage="5"))
    assert blow.damage_per_attack is not None
    drops = blow.damage_per_attack.at_least(5)
    party = [Combatant("party", 1, 100, "5", 1, 0, 5)]
    opponents = [Combatant("opponents", 1, 100, "5", 1, 0, 5)]
    result = fight(system, party, opponents, party_first=party_first, rounds=1)
    first, second = (
        (result.party_wins_in[0], result.opponents_win_in[0])
        if party_first
        else (result.opponents_win_in[0], result.party_wins_in[0])
    )
    assert (first, second) == (drops, (1 - drops) * drops)


def _a_situation(system: System) -> tuple[str, ...]:
    """The first of the system's situations an attack can take on its own, if any."""
    for name in situations(system):
        try:
            attack(system, AttackSetup(bonus=5, defense=14, damage="1d6", situations=(name,)))
        except RulesError:
            continue
        return (name,)
    return ()


# What the chain before it does not say: the escalation die's line of the why, its reading
# and the rules not followed (each tested on its own).
_SAID_ONLY_NOW = ("party_why", "opponents_why", "not_followed", "sources")


def _as_compared(result: FightResult) -> dict[str, object]:
    """Every figure and label of a fight's result (its sources compared on their own)."""
    return {
        name: getattr(result, name)
        for name in FightResult.__dataclass_fields__
        if name not in _SAID_ONLY_NOW
    }


def _said_before_is_said_now(now: FightResult, before: FightResult) -> None:
    """What the chain before it cited and said, the chain says too, and its why's lines."""
    assert all(cited in now.sources.citations for cited in before.sources.citations)
    assert all(note in now.sources.interpretations for note in before.sources.interpretations)
    for side in ("party_why", "opponents_why"):
        assert all(line in getattr(now, side) for line in getattr(before, side))


def _side(side: str, *rows: tuple[int, int, str, int, int, int]) -> list[Combatant]:
    """Rows of (count, bonus, damage, attacks, defense, hit points)."""
    return [Combatant(side, *row) for row in rows]


# Fights the chain before packing answered, of every shape its turns take: (party,
# opponents, party first, rounds, with a situation on each side).
CHAIN_FIGHTS = {
    "one against one": (_side("party", (1, 5, "1d8+3", 1, 15, 12)),
                        _side("opponents", (1, 4, "1d6+2", 1, 13, 9)), True, 6, False),
    "counts, opponents first": (_side("party", (3, 6, "1d8+3", 1, 16, 10)),
                                _side("opponents", (4, 4, "1d6+2", 1, 14, 7)), False, 5, False),
    "rows of each side": (
        _side("party", (1, 7, "1d10+4", 1, 17, 14), (2, 3, "1d4", 1, 12, 6)),
        _side("opponents", (2, 5, "2d6", 1, 15, 8), (1, 8, "1d12+2", 1, 18, 16)), True, 5, False,
    ),
    "several attacks each": (_side("party", (2, 4, "1d6+1", 3, 15, 11)),
                             _side("opponents", (3, 2, "1d4+1", 2, 13, 6)), False, 4, False),
    "situations on both sides": (_side("party", (2, 5, "1d8", 1, 15, 12)),
                                 _side("opponents", (3, 4, "1d6", 1, 14, 8)), True, 6, True),
    "misses only": (_side("party", (2, -100, "1d8", 1, 15, 10)),
                    _side("opponents", (2, -100, "1d6", 2, 14, 6)), True, 3, False),
    "no damage": (_side("party", (1, 5, "0", 1, 15, 5)),
                  _side("opponents", (2, 5, "0", 1, 14, 4)), False, 2, False),
    "one hit drops anyone": (_side("party", (3, 100, "50", 1, 0, 4)),
                             _side("opponents", (4, 100, "60", 1, 0, 3)), True, 4, False),
    "a big damage roll": (_side("party", (1, 3, "4d10+5", 2, 12, 40)),
                          _side("opponents", (5, 6, "1d4", 1, 16, 5)), False, 8, True),
    "long blocks, many rounds": (_side("party", (2, 6, "1d8+3", 1, 16, 35)),
                                 _side("opponents", (2, 5, "1d8+2", 1, 14, 30)), True, 15, False),
    # Damage tables of many dice and critical hits, against blocks longer and shorter than
    # their reach: their counts are applied as a few terms over running sums.
    "many dice and critical hits": (
        _side("party", (2, 9, "4d10+8", 1, 16, 45), (1, 4, "3d6", 2, 13, 8)),
        _side("opponents", (2, 8, "2d8+4", 1, 15, 30), (2, 6, "1d12+5", 1, 14, 4)),
        True, 4, True,
    ),
    "dice beyond every block": (
        _side("party", (3, 12, "6d6+3", 1, 14, 9)),
        _side("opponents", (2, 10, "2d10+2d4", 2, 18, 26)), False, 5, False,
    ),
}  # fmt: skip


@pytest.mark.parametrize("slug", SYSTEMS)
@pytest.mark.parametrize("name", CHAIN_FIGHTS)
def test_the_packed_chain_equals_the_chain_before_it(slug: str, name: str) -> None:
    """Fraction for fraction, every figure of the answer, against the chain it replaced."""
    system = get_system(slug)
    party, opponents, party_first, rounds, situated = CHAIN_FIGHTS[name]
    situation = _a_situation(system) if situated else ()
    asked = dict(
        party_situations=situation,
        opponent_situations=situation,
        party_first=party_first,
        rounds=rounds,
    )
    now = fight(system, party, opponents, **asked)  # type: ignore[arg-type]
    before = fight_before.fight(system, party, opponents, **asked)  # type: ignore[arg-type]
    assert _as_compared(now) == _as_compared(before)
    _said_before_is_said_now(now, before)
    assert now.party_wins + now.opponents_win + now.undecided == 1


TABLE = (
    [Combatant("party", 5, 6, "1d8+3", 1, 16, 24)],
    [Combatant("opponents", 6, 5, "1d8+2", 1, 14, 15)],
)


def test_a_tables_fight_over_ten_rounds_is_answered_as_the_chain_before_it_answers_it() -> None:
    """Five characters against six orcs, 10 rounds: refused before, answered now; the
    chain before it (its limits aside) gives the same odds, slowly."""
    system = get_system(SYSTEMS[0])
    result = fight(system, *TABLE, rounds=10)
    before = fight_before.fight(system, *TABLE, rounds=10)
    assert result.party_wins == before.party_wins
    assert result.opponent_down_by == before.opponent_down_by
    assert result.party_down_by == before.party_down_by


def test_a_mid_level_fight_is_answered_over_ten_rounds_in_every_system() -> None:
    """Five characters of 60 hit points against six foes of 40, over 10 rounds: answered
    whatever the system's damage table (a die's faces, or with critical hits doubled or
    added on top), as its counts are a few terms over running sums."""
    party = [Combatant("party", 5, 6, "1d8+3", 1, 16, 60)]
    opponents = [Combatant("opponents", 6, 5, "1d8+2", 1, 14, 40)]
    for slug in SYSTEMS:
        result = fight(get_system(slug), party, opponents, rounds=10)
        assert result.rounds == 10
        assert result.party_wins + result.opponents_win + result.undecided == 1
        assert result.party_wins > 0 and result.undecided > 0, slug


def _landed(counts: Sequence[int], hits: Sequence[int]) -> list[int]:
    """Hits on a block (hits[i]: the target at damage i) spread by the damage counts, by
    definition: where each ends within the block, then all that drops the target."""
    length = len(hits)
    ends = [0] * (length + 1)
    for i, hit in enumerate(hits):
        for damage, count in enumerate(counts):
            ends[min(i + damage, length)] += hit * count
    return ends


def _attack_counts() -> dict[str, tuple[int, ...]]:
    """Each system's damage counts for attacks of a few dice, critical hits included."""
    found = {}
    for slug in SYSTEMS:
        for damage in ("1d8+3", "2d6", "4d10+8", "1d12+2d4"):
            setup = AttackSetup(bonus=7, defense=15, damage=damage)
            dealt = attack(get_system(slug), setup).damage_per_attack
            assert dealt is not None
            found[f"{slug} {damage}"] = (0,) * dealt.offset + dealt.counts
    return found


ATTACK_COUNTS = _attack_counts()
# Counts no dice make: spikes, a gap, a long plateau, a decreasing ramp.
ODD_COUNTS = {"spikes": (5, 0, 0, 7, 0, 1, 9), "ramp": (0, 9, 8, 7, 6, 5, 4, 3, 2, 1), "one": (3,)}


@pytest.mark.parametrize("name", [*ATTACK_COUNTS, *ODD_COUNTS])
def test_damage_lands_as_the_counts_say_in_blocks_long_and_short(name: str) -> None:
    """The few terms over running sums give each landing and drop the counts give."""
    from rules_core.mechanics.fight_chain import _Damage

    counts = ATTACK_COUNTS.get(name) or ODD_COUNTS[name]
    damage = _Damage.of(counts, 3)
    scaled = [3 * count for count in counts]
    for length in (1, 4, max(1, len(counts) - 1), len(counts) + 5, 3 * len(counts)):
        for hits in (
            [1] * length,
            [0] * (length - 1) + [2],
            [(i * 7919 + 13) % 101 if i % 3 else 0 for i in range(length)],
            [10**40 + i for i in range(length)],  # as long as the packed counts
        ):
            step = [0] * (length + 1)
            damage.land(list(hits), step, 0)
            assert step == _landed(scaled, hits), (name, length)


def test_dice_tables_are_applied_in_fewer_operations_than_one_a_count() -> None:
    """The mid-level fight's attacks in every system: what made two systems' fights too
    long (a term per nonzero count, 15 to 17 with critical hits) is a few terms now."""
    from rules_core.mechanics.fight_chain import _Damage

    for name, counts in ATTACK_COUNTS.items():
        if "1d8+3" in name:
            hits = sum(1 for count in counts[1:] if count)  # beyond the miss
            form = _Damage.of(counts, 1)
            summed = sum(len(added) + len(taken) for _, added, taken in form.groups)
            assert len(form.passes) + summed + len(form.groups) < hits, name


def test_a_fight_too_big_to_follow_exactly_is_refused_not_sampled() -> None:
    system = get_system(SYSTEMS[0])
    party = [Combatant("party", 10, 5, "1d8", 1, 15, 200)]
    opponents = [Combatant("opponents", 10, 5, "1d8", 1, 15, 200)]
    assert MAX_STATES < 2001 * 2001
    with pytest.raises(RulesError, match="Too big to follow exactly") as refused:
        fight(system, party, opponents)
    assert refused.value.field is None  # fewer rounds would not do


def test_a_fight_too_long_says_how_many_rounds_can_be_answered_next_to_the_rounds() -> None:
    system = get_system(SYSTEMS[0])
    party = [Combatant("party", 10, 5, "1d8+2", 2, 15, 30)]
    opponents = [Combatant("opponents", 10, 5, "1d8+2", 2, 15, 30)]
    with pytest.raises(RulesError, match=r"^20 rounds is too long") as refused:
        fight(system, party, opponents, rounds=20)
    assert refused.value.field == "rounds"
    said = int(str(refused.value).rpartition(": ")[2].split()[0])
    assert 1 <= said < 20
    result = fight(system, party, opponents, rounds=said)  # the question it suggests
    assert result.rounds == said
    with pytest.raises(RulesError, match=f": {said} can be answered"):
        fight(system, party, opponents, rounds=said + 1)
    # On the page, the refusal stands next to the rounds.
    inputs = {
        "system": SYSTEMS[0], "rounds": "20",
        "c1_side": "party", "c1_count": "10", "c1_bonus": "5", "c1_damage": "1d8+2",
        "c1_attacks": "2", "c1_defense": "15", "c1_hp": "30",
        "c2_side": "opponents", "c2_count": "10", "c2_bonus": "5", "c2_damage": "1d8+2",
        "c2_attacks": "2", "c2_defense": "15", "c2_hp": "30",
        "c3_count": "0", "c4_count": "0", "c5_count": "0",
    }  # fmt: skip
    page = handle("fight", inputs, "../")
    assert not page["ok"]
    assert list(page["errors"]) == ["rounds"]
    assert f"{said} can be answered" in page["errors"]["rounds"]


@pytest.mark.parametrize("slug", SYSTEMS)
def test_page_and_command_line_give_the_same_exact_answer(slug: str, capsys) -> None:
    inputs = {
        "system": slug,
        "c1_side": "party", "c1_count": "2", "c1_bonus": "5", "c1_damage": "1d6+1",
        "c1_defense": "14", "c1_hp": "9",
        "c2_side": "opponents", "c2_count": "3", "c2_bonus": "3", "c2_damage": "1d4",
        "c2_defense": "12", "c2_hp": "5",
        "c3_count": "0", "c4_count": "0", "rounds": "4",
    }  # fmt: skip
    page = handle("fight", inputs, "../")
    assert page["ok"], page
    status = main(
        ["fight", "--system", slug, "--rounds", "4", "--json",
         "--combatant", "party:5:1d6+1:14:9:2", "--combatant", "opponents:3:1d4:12:5:3"]
    )  # fmt: skip
    assert status == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["party_wins"] == page["data"]["party_wins"]
    total = sum(Fraction(printed[key]) for key in ("party_wins", "opponents_win", "undecided"))
    assert total == 1
    # The model is said with the answer.
    assert any("one at a time" in note for note in printed["interpretations"])


def test_each_side_needs_a_combatant_and_a_row_its_stats(capsys) -> None:
    status = main(["fight", "--system", SYSTEMS[0], "--combatant", "party:5:1d6:14:9"])
    assert status == 2
    assert capsys.readouterr().err == (
        "error: Add an opponent: set a row's side to Opponents. The party so far: 1 counted.\n"
    )
    status = main(["fight", "--system", SYSTEMS[0], "--combatant", "party:5:1d6:14:9",
                   "--combatant", "opponents:5:1d6:14:0"])  # fmt: skip
    assert status == 2
    assert "--combatant" in capsys.readouterr().err


def test_the_encounter_budget_links_its_party_and_monsters_to_the_fight() -> None:
    from html import unescape
    from re import search
    from urllib.parse import parse_qsl, urlsplit

    linked = 0
    for slug in system_slugs():
        budget = handle("encounter", {"system": slug}, "../../")
        if not (budget["ok"] and "data" in budget):
            continue  # this system's text has no encounter budget
        link = search(r'href="([^"]*calculators/fight/[^"]*)"', budget["html"])
        assert link, slug
        inputs = dict(parse_qsl(urlsplit(unescape(link.group(1))).query, keep_blank_values=True))
        monsters = budget["data"]["monsters"]
        assert inputs["c1_count"] == str(budget["data"]["party"])
        assert [inputs[f"c{row}_count"] for row in range(2, len(monsters) + 2)] == [
            str(monster["count"]) for monster in monsters
        ]
        # The party's figures and the monsters' are the GM's to give, never the form's
        # examples: the fight asks for them, beside their fields.
        assert all(inputs[f"c1_{name}"] == "" for name in ("bonus", "damage", "defense", "hp"))
        fight_form = handle("fight", inputs, "")
        assert not fight_form["ok"] and fight_form["incomplete"]
        assert fight_form["message"].startswith("Add a party member: to count Combatant 1")
        assert {"c1_bonus", "c1_hp", "c2_bonus", "c2_hp"} <= set(fight_form["notes"])
        # The form's rows the encounter does not use are not counted.
        assert all(inputs[f"c{row}_count"] == "0" for row in range(len(monsters) + 2, 6))
        linked += 1
    assert linked


def test_the_page_shows_the_figures_its_result_carries() -> None:
    """The figures the page shows are read from the chain's answer once, in the result;
    the renderer draws what it is given."""
    from dataclasses import replace

    from rules_core.calculators import CALCULATORS

    calculator = CALCULATORS["fight"]
    filled = {field.name: field.initial for field in calculator.fields} | {"system": SYSTEMS[0]}
    request = calculator.request.from_inputs(filled)
    result = calculator.run(request).result
    odds = result.odds
    assert result.ends_in_round == tuple(
        p + o for p, o in zip(odds.party_wins_in, odds.opponents_win_in, strict=True)
    )
    for by, half in zip(odds.opponent_down_by, result.opponents_down_in_half_by, strict=True):
        assert half is None or (by[half - 1] >= Fraction(1, 2) > max(by[: half - 1], default=0))
    assert result.expected_rounds == odds.expected_rounds
    # Another figure in the result, another page.
    rounds = len(result.ends_in_round)
    carried = replace(
        result,
        ends_in_round=(Fraction(1),) + (Fraction(0),) * (rounds - 1),
        opponents_down_in_half_by=(rounds,) * len(odds.opponent_labels),
    )
    page = calculator.render(carried, request, "").body
    assert page.count(f"down by round {rounds} in half the fights") == len(odds.opponent_labels)
    first_round = "<tr><td>1</td><td>1</td><td>100.00%</td></tr>"  # the chart's table
    assert first_round in page
    assert first_round not in calculator.render(result, request, "").body


def _typical(slug: str) -> dict[str, str]:
    """Two complete rows, and the form's other rows not counted."""
    return {
        "system": slug, "rounds": "3",
        "c1_side": "party", "c1_count": "2", "c1_bonus": "5", "c1_damage": "1d6+1",
        "c1_defense": "14", "c1_hp": "9",
        "c2_side": "opponents", "c2_count": "2", "c2_bonus": "3", "c2_damage": "1d4",
        "c2_defense": "12", "c2_hp": "5",
        "c3_count": "0", "c4_count": "0", "c5_count": "0",
    }  # fmt: skip


def test_a_half_typed_row_is_left_out_and_the_complete_rows_answered(capsys) -> None:
    complete = _typical(SYSTEMS[0])
    half = {**complete, "c3_count": "2", "c3_side": "party", "c3_bonus": "4", "c3_damage": "",
            "c3_defense": "13", "c3_hp": ""}  # fmt: skip
    page, whole = handle("fight", half, "../"), handle("fight", complete, "../")
    assert page["ok"], page
    # The fight answered is that of the complete rows: the half-typed one takes no part.
    for key in ("party_wins", "opponents_win", "undecided", "party", "opponents"):
        assert page["data"][key] == whole["data"][key]
    assert page["data"]["left_out"] == [
        {"row": 3, "missing": ["damage", "hp"],
         "said": "Combatant 3 is not counted yet: enter its damage and hit points."}
    ]  # fmt: skip
    assert whole["data"]["left_out"] == [] and "notes" not in whole
    # Said under the headline, and beside each missing field, not as a refusal.
    assert "Combatant 3 is not counted yet: enter its damage and hit points." in page["summary"]
    assert set(page["notes"]) == {"c3_damage", "c3_hp"} and not page["errors"]
    assert all("Needed to count Combatant 3" in note for note in page["notes"].values())
    # The command line says it too: an empty part of --combatant leaves its row out.
    status = main(["fight", "--system", SYSTEMS[0], "--rounds", "3",
                   "--combatant", "party:5:1d6+1:14:9:2", "--combatant", "opponents:3:1d4:12:5:2",
                   "--combatant", "opponents::1d4:12:5:2"])  # fmt: skip
    assert status == 0
    assert "Combatant 3 is not counted yet: enter its attack bonus." in capsys.readouterr().out


def test_a_side_missing_says_what_would_give_it_one() -> None:
    """Not a value refused: a fight not yet complete. What would give the side one, where
    the answer is (`message`, `incomplete`), and beside each value the left-out rows lack,
    what it counts (`notes`): no field is marked as wrong."""
    complete = _typical(SYSTEMS[0])
    # The opponents' only row half typed: what it lacks, the first to fill first.
    page = handle("fight", {**complete, "c2_hp": "", "c2_damage": ""}, "../")
    assert not page["ok"] and page["incomplete"] and page["errors"] == {}
    assert page["message"] == (
        "Add an opponent: to count Combatant 2, enter its damage and hit points. "
        "The party so far: 2 counted."
    )
    assert page["notes"] == {
        "c2_damage": "Needed to count Combatant 2.", "c2_hp": "Needed to count Combatant 2."
    }  # fmt: skip
    # The opponents' row typed in but not counted: its count is what counts it.
    page = handle("fight", {**complete, "c2_count": "0"}, "../")
    assert page["message"].startswith("Add an opponent: to count Combatant 2, set its count.")
    assert page["notes"] == {"c2_count": "Needed to count Combatant 2."}
    # A row of no side yet is one that could give the missing side.
    page = handle("fight", {**complete, "c2_side": "", "c3_count": "1"}, "../")
    assert "to count Combatant 2, choose its side" in page["message"]


def test_a_side_missing_names_no_row_of_the_other_side_nor_an_empty_one() -> None:
    """The GM making the opponents' row a party member: nothing is an opponent now, and the
    fight says what to do of no row in particular (the next empty row may be the next
    party member), with who is counted so far."""
    complete = _typical(SYSTEMS[0])
    page = handle("fight", {**complete, "c2_side": "party", "c1_name": "Mira"}, "../")
    assert page["message"] == (
        "Add an opponent: set a row's side to Opponents. The party so far: Mira ×2 and 2 more."
    )
    assert page["incomplete"] and page["errors"] == {} and "notes" not in page
    page = handle("fight", {**complete, "c1_side": "opponents"}, "../")
    assert page["message"] == (
        "Add a party member: set a row's side to Party. The opponents so far: 4 counted."
    )


def test_the_command_line_never_drops_a_row_without_a_word(capsys) -> None:
    """An empty COUNT reads as the README says, one; a COUNT of 0 leaves the row out, said."""
    row = ["--combatant", "opponents:4:1d6+2:14:11"]
    status = main(["fight", "--json", "--system", SYSTEMS[0], "--combatant",
                   "party:5:1d8:15:10::2:Mira", *row])  # fmt: skip
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert [one["name"] for one in data["party"]] == ["Mira"] and data["left_out"] == []
    status = main(["fight", "--system", SYSTEMS[0], "--combatant", "party:5:1d8:15:10::2:Mira",
                   "--combatant", "party:5:1d8:15:10:0:1:Bram", *row])  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out
    assert "Bram (row 2) is not counted yet: set its count." in out
    # The only party row not counted: refused, saying which row and how.
    status = main(["fight", "--system", SYSTEMS[0], "--combatant", "party:5:1d8:15:10:0::Mira",
                   *row])  # fmt: skip
    assert status == 2
    assert "Add a party member: to count Mira (row 1), set its count." in capsys.readouterr().err
    # Every row the command line is given is counted or named: none is left unsaid.
    for count in ("", "0", "1", "3"):
        mira = f"party:5:1d8:15:10:{count}::Mira"
        main(["fight", "--json", "--system", SYSTEMS[0], "--combatant", mira,
              "--combatant", "party:3:1d6:14:8", *row])  # fmt: skip
        data = json.loads(capsys.readouterr().out)
        named = {one["name"] for one in data["party"]} | {
            entry["said"].split(" (row")[0] for entry in data["left_out"]
        }
        assert any(name.startswith("Mira") for name in named), count


def test_the_headline_says_who_is_likely_to_win_and_when_half_the_fights_are_over() -> None:
    inputs = {**_typical(SYSTEMS[0]), "rounds": "6"}
    strong, weak = "c1_hp", "c2_hp"
    for leader, hp in (("Party wins", {strong: "20"}), ("Opponents win", {weak: "40"})):
        page = handle("fight", {**inputs, **hp}, "../")
        assert page["ok"], page
        data = page["data"]
        party, opponents = Fraction(data["party_wins"]), Fraction(data["opponents_win"])
        assert (party > opponents) == (leader == "Party wins")
        headline = page["summary"].splitlines()[0]
        assert headline.startswith(leader)
        # The other outcomes stay in view.
        assert "undecided" in headline and ("loses" in headline or "party wins" in headline)
        # Half over by round N: the first round by whose end the decided fights reach half.
        decided, half = Fraction(0), None
        for ends in data["ends_in_round"]:
            decided += Fraction(ends["party_wins"]) + Fraction(ends["opponents_win"])
            if decided >= Fraction(1, 2):
                half = ends["round"]
                break
        assert data["half_decided_by"] == half
        said = f"half over by round {half}" if half else "over half still going"
        assert said in headline
        # Each side's expected standing: every combatant, less its chance to be down by then.
        for r, standing in enumerate(data["standing_by_round"]):
            for side in ("party", "opponents"):
                down = sum(Fraction(c["down_by_round"][r]) for c in data[side])
                assert Fraction(standing[side]) == len(data[side]) - down
        # The chart of them, a bar per side and round after the start, and its table.
        assert page["html"].count('class="calc-bar calc-bar--s1"') == 1 + 6 + 1  # with the key
        last = data["standing_by_round"][-1]
        row = f"<td>6</td><td>{float(Fraction(last['party'])):.2f}</td>"
        assert row in page["html"]


def test_the_fight_no_one_wins_in_time_says_so_in_its_headline() -> None:
    # Both sides miss but on a natural 20: one round decides almost none.
    inputs = {**_typical(SYSTEMS[0]), "rounds": "1", "c1_defense": "60", "c2_defense": "60",
              "c1_hp": "40", "c2_hp": "40"}  # fmt: skip
    page = handle("fight", inputs, "../")
    assert page["ok"], page
    assert page["data"]["half_decided_by"] is None
    assert "over half still going after 1 round" in page["summary"].splitlines()[0]
    assert "after 1 rounds" not in page["summary"]


@pytest.mark.parametrize("rounds", [1, 2])
def test_every_count_of_rounds_agrees_in_number_on_the_page_and_the_command_line(
    rounds: int, capsys
) -> None:
    """A count of rounds agrees with it, "within 1 round", "after 2 rounds", never "1
    rounds": in the answer, its rows, the model said with it and the command line's text."""
    inputs = {**_typical(SYSTEMS[0]), "rounds": str(rounds), "c1_defense": "60",
              "c2_defense": "60", "c1_hp": "40", "c2_hp": "40"}  # fmt: skip
    page = handle("fight", inputs, "../")
    assert page["ok"], page
    assert page["data"]["half_decided_by"] is None
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", str(rounds),
         "--combatant", "party:5:1d6+1:60:40:2", "--combatant", "opponents:3:1d4:60:40:2"]
    )  # fmt: skip
    assert status == 0
    text = capsys.readouterr().out
    said = f"{rounds} round" if rounds == 1 else f"{rounds} rounds"
    for shown in (page["html"], page["summary"], text):
        assert "1 rounds" not in shown
        assert f"within {said}" in shown or f"after {said}" in shown
    for phrase in (f"Party wins within {said}", f"Still fighting after {said}",
                   f"not within {said}", f"followed for {said};"):  # fmt: skip
        assert phrase in page["html"], phrase
    for phrase in (f"party wins within {said} ", f"still fighting after {said} ",
                   f"still going after {said} "):  # fmt: skip
        assert phrase in text, phrase


def test_a_count_agrees_with_its_noun() -> None:
    assert [counted(n, "round") for n in (0, 1, 2, 10)] == [
        "0 rounds", "1 round", "2 rounds", "10 rounds",
    ]  # fmt: skip
