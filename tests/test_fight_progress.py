"""A long fight says how far it has got: the chain tells a callback after each round, and
the page's entry point (rules_core.web.handle_json) hands the worker's callback to it.
Telling only observes: the answer is the same with and without a listener.

Systems come from content/systems.yml (as compiled): each whose fight calculator applies.
"""

from __future__ import annotations

import json

import pytest

from rules_core.calculators.fight import RULE
from rules_core.mechanics.fight import Combatant, fight
from rules_core.progress import reporter
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle_json

SYSTEMS = [slug for slug in system_slugs() if RULE.met(get_system(slug))]

pytestmark = pytest.mark.unit

PARTY = [Combatant("party", 3, 5, "1d8+2", 1, 14, 12)]
OPPONENTS = [Combatant("opponents", 4, 3, "1d6+1", 1, 13, 7)]


@pytest.mark.parametrize("slug", SYSTEMS)
@pytest.mark.parametrize("rounds", [1, 7])
def test_the_callback_hears_each_round_once_and_changes_nothing(slug: str, rounds: int) -> None:
    system = get_system(slug)
    heard: list[tuple[int, int]] = []
    told = fight(system, PARTY, OPPONENTS, rounds=rounds, progress=lambda *at: heard.append(at))
    assert heard == [(done, rounds) for done in range(1, rounds + 1)]
    assert told == fight(system, PARTY, OPPONENTS, rounds=rounds)


def _request(slug: str, rounds: int) -> str:
    inputs = {
        "system": slug, "rounds": str(rounds),
        "c1_side": "party", "c1_count": "3", "c1_bonus": "5", "c1_damage": "1d8+2",
        "c1_defense": "14", "c1_hp": "12",
        "c2_side": "opponents", "c2_count": "4", "c2_bonus": "3", "c2_damage": "1d6+1",
        "c2_defense": "13", "c2_hp": "7",
    }  # fmt: skip
    return json.dumps({"calculator": "fight", "inputs": inputs, "base": ""})


@pytest.mark.parametrize("slug", SYSTEMS)
def test_the_pages_entry_point_tells_the_worker_each_round(slug: str) -> None:
    heard: list[tuple[int, int]] = []
    answered = handle_json(_request(slug, 6), lambda done, total: heard.append((done, total)))
    assert json.loads(answered)["ok"], answered
    assert heard == [(done, 6) for done in range(1, 7)]
    assert answered == handle_json(_request(slug, 6))
    # Told for that call only: the command line and the next request hear nothing.
    assert reporter.get() is None


def test_a_refused_request_still_lets_go_of_the_callback() -> None:
    heard: list[tuple[int, int]] = []
    answered = handle_json("{not json", lambda done, total: heard.append((done, total)))
    assert not json.loads(answered)["ok"]
    assert heard == [] and reporter.get() is None
