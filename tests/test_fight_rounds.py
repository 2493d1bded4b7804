"""The fight follows every rule of its text that changes a fight from round to round, or
names it: the escalation die is added round by round as the text says (checked against
the enumeration of every attack), and each rule the fight does not follow is said, with
its sentence, in every answer; the build refuses a per-round rule neither followed nor named.

The systems are those of content/systems.yml (the compiled data's order); which of them
has an escalation die, a death save or a rule not followed is read from their data.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_fight import enumerate_fight, escalation_in_round

from hooks.content.loader import load_content
from hooks.content.rules_schema import (
    PER_ROUND,
    TEXT_RULES,
    check_per_round,
    check_text_rules,
    text_rule_sentence,
)
from hooks.content.yaml_lines import ContentError, load_yaml
from rules_core.calculators.fight import RULE
from rules_core.cli import main
from rules_core.mechanics.fight import FOLLOWED, Combatant, fight
from rules_core.systems import System, get_system, system_slugs
from rules_core.web import handle

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = [get_system(slug) for slug in system_slugs()]
FIGHTING = [system for system in SYSTEMS if RULE.met(system)]
ESCALATING = [system for system in FIGHTING if escalation_in_round(system, "party", 50, False)]


def _at(rules: Any, path: str) -> Any:
    for key in path.split("."):
        rules = rules.get(key) if hasattr(rules, "get") else None
    return rules


def _answer(system: System, **inputs: str) -> dict[str, Any]:
    """The fight page's answer to its form as built, in that system."""
    page = handle("fight", {"system": system.slug, **inputs}, "../../")
    assert page["ok"] and "data" in page, page
    return page


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.slug)
def test_every_rule_that_changes_a_fight_round_by_round_is_followed_or_named(
    system: System,
) -> None:
    """Walks the system's rules data: each rule of PER_ROUND it has is followed by the fight
    (the key FOLLOWED says it reads is given) or named by a not_followed entry."""
    named = {covered for entry in system.not_followed for covered in entry.covers}
    for rule in PER_ROUND:
        if _at(system.rules, rule) is None:
            continue
        reads = FOLLOWED.get(rule)
        followed = reads is not None and _at(system.rules, reads) is not None
        assert followed or rule in named, f"{system.slug}: {rule} neither followed nor named"
    for covered in named - set(TEXT_RULES):  # those of its text: see the walk below
        assert _at(system.rules, covered) is not None, f"{system.slug} covers {covered}"


@pytest.mark.parametrize("system", FIGHTING, ids=lambda system: system.slug)
def test_every_answer_says_each_rule_it_does_not_follow_with_its_sentence(
    system: System,
) -> None:
    entries = system.not_followed
    page = _answer(system)
    data = page["data"]
    assert [entry["label"] for entry in data["not_followed"]] == [e.label for e in entries]
    for entry, said in zip(entries, data["not_followed"], strict=True):
        assert said["citations"] and said["citations"] == [c.to_json() for c in entry.cite]
        assert f"Not followed: {entry.label}. {entry.note}" in data["interpretations"]
        # On the page: under "Not followed here", with its sentences linked.
        assert f"<strong>{entry.label}</strong>" in page["html"]
        for citation in entry.cite:
            assert f'href="../../{citation.url}"' in page["html"]
    # Said once on the page: not again as a plain interpretation.
    assert page["html"].count("Not followed: ") == 0
    if entries:
        assert "Not followed here" in page["html"]


def test_a_text_with_per_round_rules_names_some_as_not_followed() -> None:
    """A guard on the walk above: the texts have death saves and the like, so names exist."""
    assert any(system.not_followed for system in FIGHTING)


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.slug)
def test_the_build_refuses_a_per_round_rule_neither_followed_nor_named(
    system: System, tmp_path: Path
) -> None:
    """With its `covers` (and the escalation die's by_round) taken away, a rules.yml that
    has a per-round rule is refused at that rule's line, saying what to add."""
    path = ROOT / "content" / system.slug / "rules.yml"
    rules = load_yaml(path)
    check_per_round(rules, path)  # as it is, accepted
    present = [rule for rule in PER_ROUND if _at(rules, rule) is not None]
    for entry in _at(rules, "fight.not_followed") or []:
        entry.pop("covers", None)
    if _at(rules, "attack.escalation") is not None:
        rules["attack"]["escalation"].pop("by_round", None)
    if not present:
        check_per_round(rules, path)
        return
    with pytest.raises(ContentError) as refused:
        check_per_round(rules, path)
    message = str(refused.value)
    first = present[0]
    assert f"'{first}' changes a fight from round to round" in message
    assert f"covers: [{first}]" in message
    assert f"{path}:{_at(rules, first).line}:" in message


def test_an_entry_covers_only_what_its_file_has() -> None:
    """An entry that covers a per-round rule its file lacks is refused: in a file that has
    every one, that rule is first taken out of it."""
    for system in SYSTEMS:
        path = ROOT / "content" / system.slug / "rules.yml"
        rules = load_yaml(path)
        if _at(rules, "fight.not_followed"):
            break
    else:
        pytest.fail("no rules.yml names a rule the fight does not follow")
    absent = next((rule for rule in PER_ROUND if _at(rules, rule) is None), None)
    if absent is None:
        absent = PER_ROUND[-1]
        parent, _, key = absent.rpartition(".")
        (_at(rules, parent) if parent else rules).pop(key)
    _at(rules, "fight.not_followed")[0]["covers"] = [absent]
    with pytest.raises(ContentError, match=f"covers '{absent}', which this file"):
        check_per_round(rules, path)


# ------------------------------------------------- the rules a text states in its prose

# Each system's content as the build reads it, with its pages: the texts the build looks
# for rules stated in prose (initiative, miss effects) in.
TEXTS = load_content(ROOT / "content")
# (system, rule) for every rule of TEXT_RULES that a fighting system's text states.
STATED = [
    (system, rule)
    for system in FIGHTING
    for rule in TEXT_RULES
    if text_rule_sentence(TEXTS[system.slug], rule) is not None
]


def test_the_texts_state_rules_the_fight_does_not_follow() -> None:
    """A guard on the walks below: the texts do interleave combatants by initiative, and
    some give an attack an effect on a miss."""
    assert {rule for _, rule in STATED} == set(TEXT_RULES)


@pytest.mark.parametrize(
    ("system", "rule"), STATED, ids=[f"{system.slug}-{rule}" for system, rule in STATED]
)
def test_every_answer_names_each_rule_its_text_states_with_a_sentence_stating_it(
    system: System, rule: str
) -> None:
    """The fight's answer, on the page and on the command line, names the rule (its entry's
    label and note under "Not followed"), quoting a sentence of the text with its words."""
    entries = [entry for entry in system.not_followed if rule in entry.covers]
    assert entries, f"{system.slug}: its text states {rule}, which no entry names"
    page = _answer(system)
    said = {entry["label"]: entry for entry in page["data"]["not_followed"]}
    for entry in entries:
        assert entry.label in said
        assert any(TEXT_RULES[rule].search(c["quote"]) for c in said[entry.label]["citations"])
        assert f"<strong>{entry.label}</strong>" in page["html"]
    # The command line's answer says it too, with the sentence.
    argv = ["fight", "--system", system.slug, "--combatant", "party:5:1d8:15:10",
            "--combatant", "opponents:4:1d6:14:11"]  # fmt: skip
    out = _cli(argv)
    for entry in entries:
        assert f"  - {entry.label}: {entry.note}" in out
        assert any(f"“{cited.quote}”" in out for cited in entry.cite)


def _cli(argv: list[str]) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


@pytest.mark.parametrize(
    ("system", "rule"), STATED, ids=[f"{system.slug}-{rule}" for system, rule in STATED]
)
def test_the_build_refuses_a_rule_its_text_states_that_the_fight_neither_follows_nor_names(
    system: System, rule: str
) -> None:
    """With the entries covering it taken out, the system's rules.yml is refused at its
    fight.not_followed line, quoting the text's sentence and saying what to add."""
    path = ROOT / "content" / system.slug / "rules.yml"
    rules = load_yaml(path)
    check_text_rules(TEXTS[system.slug], rules, path)  # as it is, accepted
    listed = _at(rules, "fight.not_followed")
    listed[:] = [entry for entry in listed if rule not in (entry.get("covers") or ())]
    with pytest.raises(ContentError) as refused:
        check_text_rules(TEXTS[system.slug], rules, path)
    message = str(refused.value)
    page, sentence = text_rule_sentence(TEXTS[system.slug], rule) or ("", "")
    assert f"{path}:{listed.line}:" in message
    assert f"covers: [{rule}]" in message
    assert f'{page}.md: "{sentence}"' in message


def test_an_entry_covers_only_a_rule_its_text_states() -> None:
    """A text without the rule's words (here, its pages taken away) refuses an entry that
    covers it, at the entry's `covers` line."""
    system, rule = STATED[0]
    path = ROOT / "content" / system.slug / "rules.yml"
    rules = load_yaml(path)
    wordless = copy.copy(TEXTS[system.slug])
    wordless.pages = {}
    with pytest.raises(ContentError, match=f"covers '{rule}', which this system's text does not"):
        check_text_rules(wordless, rules, path)


def test_an_entry_naming_a_text_rule_quotes_a_sentence_stating_it() -> None:
    """An entry that covers a rule of the text but quotes no sentence with its words is
    refused at its `cite`, offering the text's sentence."""
    system, rule = STATED[0]
    path = ROOT / "content" / system.slug / "rules.yml"
    rules = load_yaml(path)
    entry = next(e for e in _at(rules, "fight.not_followed") if rule in (e.get("covers") or ()))
    other = next(e for e in _at(rules, "fight.not_followed") if rule not in (e.get("covers") or ()))
    entry["cite"] = other["cite"]
    assert not any(TEXT_RULES[rule].search(str(c["quote"])) for c in entry["cite"])
    with pytest.raises(ContentError, match=f"the entry covering '{rule}' quotes no sentence"):
        check_text_rules(TEXTS[system.slug], rules, path)


# ------------------------------------------------------------------- the escalation die


def test_some_system_grows_an_escalation_die_round_by_round() -> None:
    assert ESCALATING, "no system's text has an escalation die that grows by round"


@pytest.mark.parametrize("system", ESCALATING, ids=lambda system: system.slug)
@pytest.mark.parametrize("opponents_escalate", [False, True])
def test_the_escalation_die_is_added_round_by_round_as_the_text_says(
    system: System, opponents_escalate: bool
) -> None:
    """One against one over enough rounds for the die to reach its top, against the
    enumeration of every attack, which adds the die the text's way."""
    party = [Combatant("party", 1, 1, "1d4", 1, 13, 9)]
    opponents = [Combatant("opponents", 1, 1, "1d4", 1, 13, 10)]
    rounds = 1
    while escalation_in_round(system, "party", rounds, False) < escalation_in_round(
        system, "party", 50, False
    ):
        rounds += 1
    rounds += 1  # one round at the top
    result = fight(system, party, opponents, rounds=rounds, opponents_escalate=opponents_escalate)
    party_wins, opponents_win, _ = enumerate_fight(
        system, party, opponents, True, rounds, opponents_escalate
    )
    assert list(result.party_wins_in) == party_wins
    assert list(result.opponents_win_in) == opponents_win
    # Said round by round in the why of each side that adds it, the top value last.
    top = escalation_in_round(system, "party", rounds, False)
    assert any("Escalation die: +0 in round 1" in line for line in result.party_why)
    assert any(f"one more a round to +{top} in round" in line for line in result.party_why)
    assert any("Escalation die" in line for line in result.opponents_why) == opponents_escalate


@pytest.mark.parametrize("system", ESCALATING, ids=lambda system: system.slug)
def test_without_the_die_the_party_would_fare_worse(system: System) -> None:
    """The die changes the answer: the same fight with the text's by_round taken out of the
    data (the die then never grows) gives the party lower odds."""
    party = [Combatant("party", 5, 5, "1d8+2", 1, 16, 12)]
    opponents = [Combatant("opponents", 5, 5, "1d8+2", 1, 16, 12)]
    rules = copy.deepcopy(system.rules)
    del rules["attack"]["escalation"]["by_round"]
    without = replace(system, rules=rules)
    grown = fight(system, party, opponents, rounds=4)
    flat = fight(without, party, opponents, rounds=4)
    assert grown.party_wins > flat.party_wins
    assert not any("Escalation die" in line for line in flat.party_why)


@pytest.mark.parametrize("system", ESCALATING, ids=lambda system: system.slug)
def test_the_answer_cites_when_the_die_is_put_on_the_table(system: System) -> None:
    page = _answer(system, rounds="4")
    by_round = system.rules["attack"]["escalation"]["by_round"]
    quotes = {citation["quote"] for citation in page["data"]["citations"]}
    assert {cited["quote"] for cited in by_round["cite"]} <= quotes
    assert by_round["interpretation"] in page["data"]["interpretations"]
    assert any("Escalation die: +0 in round 1" in line for line in page["data"]["party_why"])


def test_opponents_add_the_die_only_where_the_text_has_one(capsys) -> None:
    for system in FIGHTING:
        rows = ["--combatant", "party:5:1d8:15:10", "--combatant", "opponents:4:1d6:14:11"]
        argv = ["fight", "--system", system.slug, "--opponents-escalate", "--json", *rows]
        status = main(argv)
        out, err = capsys.readouterr()
        if system in ESCALATING:
            assert status == 0, err
            assert any("Escalation die" in line for line in json.loads(out)["opponents_why"])
        else:
            assert status == 2 and "does not define" in err, err
