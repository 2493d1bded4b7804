"""A long fight is worked in steps: it yields how far it has got after each attack, and the
page's entry point (rules_core.web.Work) can be stopped between steps when the question
changes. Working in steps only observes: the answer is the same as run through at once.

Systems come from content/systems.yml (as compiled): each whose fight calculator applies.
"""

from __future__ import annotations

import json

import pytest

from rules_core.calculators import CALCULATORS
from rules_core.calculators.fight import RULE
from rules_core.mechanics.fight import Combatant, fight, fight_steps
from rules_core.steps import Step
from rules_core.systems import get_system, system_slugs
from rules_core.web import Work, handle_json

SYSTEMS = [slug for slug in system_slugs() if RULE.met(get_system(slug))]

pytestmark = pytest.mark.unit

PARTY = [Combatant("party", 3, 5, "1d8+2", 1, 14, 12)]
OPPONENTS = [Combatant("opponents", 4, 3, "1d6+1", 1, 13, 7)]
ATTACKS_A_ROUND = sum(c.count * c.attacks for c in (*PARTY, *OPPONENTS))  # a step each


def _steps_and_answer(slug: str, rounds: int) -> tuple[list[Step], object]:
    steps = fight_steps(get_system(slug), PARTY, OPPONENTS, rounds=rounds)
    seen: list[Step] = []
    while True:
        try:
            seen.append(next(steps))
        except StopIteration as end:
            return seen, end.value


@pytest.mark.parametrize("slug", SYSTEMS)
@pytest.mark.parametrize("rounds", [1, 7])
def test_a_step_after_each_attack_saying_the_rounds_done(slug: str, rounds: int) -> None:
    seen, answer = _steps_and_answer(slug, rounds)
    assert answer == fight(get_system(slug), PARTY, OPPONENTS, rounds=rounds)
    assert all(step.total == rounds for step in seen)
    done = [step.done for step in seen]
    assert done == sorted(done) and done[0] == 0 and done[-1] <= rounds - 1
    # A side's turn is skipped once every fight is decided, never more attacks than that.
    assert len(done) <= ATTACKS_A_ROUND * rounds
    assert done.count(0) == ATTACKS_A_ROUND


def _request(slug: str, rounds: int) -> str:
    inputs = {
        "system": slug, "rounds": str(rounds),
        "c1_side": "party", "c1_count": "3", "c1_bonus": "5", "c1_damage": "1d8+2",
        "c1_defense": "14", "c1_hp": "12",
        "c2_side": "opponents", "c2_count": "4", "c2_bonus": "3", "c2_damage": "1d6+1",
        "c2_defense": "13", "c2_hp": "7",
    }  # fmt: skip
    return json.dumps({"calculator": "fight", "inputs": inputs, "base": ""})


def _worked(request: str) -> tuple[list[tuple[int, int]], str]:
    work = Work(request)
    told = []
    while not work.step():
        told.append((work.done, work.total))
    return told, work.response


@pytest.mark.parametrize("slug", SYSTEMS)
def test_the_pages_work_tells_the_rounds_and_gives_the_same_answer(slug: str) -> None:
    told, response = _worked(_request(slug, 6))
    assert json.loads(response)["ok"], response
    assert response == handle_json(_request(slug, 6))
    assert sorted({done for done, _ in told}) == list(range(6))
    assert {total for _, total in told} == {6}


@pytest.mark.parametrize("slug", SYSTEMS)
def test_stopped_work_computes_no_more_and_leaves_the_next_answer_alone(slug: str) -> None:
    work = Work(_request(slug, 6))
    for _ in range(3):
        assert not work.step()
    work.stop()
    with pytest.raises(StopIteration):  # closed: nothing more is computed
        next(work._steps)
    assert work.response == ""
    assert _worked(_request(slug, 6))[1] == handle_json(_request(slug, 6))


def test_a_calculator_without_steps_answers_in_the_first_step() -> None:
    quick = [name for name, calculator in CALCULATORS.items() if calculator.steps is None]
    assert quick, "every calculator works in steps: nothing here to check"
    request = json.dumps({"calculator": quick[0], "inputs": {}, "base": ""})
    work = Work(request)
    assert work.step()
    assert work.response == handle_json(request)
    assert json.loads(work.response)["ok"]


@pytest.mark.parametrize("request_text", ["{not json", json.dumps({"inputs": {}})])
def test_a_malformed_request_is_refused_in_the_first_step(request_text: str) -> None:
    work = Work(request_text)
    assert work.step()
    assert not json.loads(work.response)["ok"]


def test_a_refused_fight_is_refused_in_the_first_step() -> None:
    slug = SYSTEMS[0]
    request = json.loads(_request(slug, 6))
    request["inputs"]["rounds"] = "50"
    request["inputs"]["c1_hp"] = "300"
    request["inputs"]["c2_hp"] = "300"
    work = Work(json.dumps(request))
    assert work.step()
    assert not json.loads(work.response)["ok"]
