"""`rules.yml` is checked against hooks/content/rules_schema.py at `make data`: each wrong value
stops the compile with its file, line and fix, before the rules core reads it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from hooks.content.loader import load_content, load_system
from hooks.content.rules_data import compile_all, compile_system, main
from hooks.content.rules_schema import RULES
from hooks.content.specs import Integer, Section
from hooks.content.yaml_lines import ContentError
from tests.test_hooks_content import make_system

ROOT = Path(__file__).resolve().parent.parent

# Valid rules for the small system of test_hooks_content: one table 'modifiers' with
# columns Score and Modifier, one page 'combat' with headings cover and attacks.
RULES_YML = """\
ability_modifier:
  table: modifiers
  score_column: Score
  modifier_column: Modifier
  scores: [10, 13]
  cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]

point_buy:
  budget: 32
  count: 6
  table: modifiers
  score_column: Score
  cost_column: Modifier
  below: {score: 10, at_most: 1}
  cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]

attack:
  roll: 1d20
  cite: [{see: combat#attacks, quote: "Roll and compare."}]
  critical:
    from: 20
    requires_hit: true
    cite: [{see: combat#attacks, quote: "Roll and compare."}]
  situations:
    cover:
      label: Cover
      defense: 2
      group: cover
      cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]

damage:
  cite: [{see: combat#attacks, quote: "Roll and compare."}]
  critical: {kind: maximise, cite: [{see: combat#attacks, quote: "Roll and compare."}]}
  floor: {value: 0}

encounter:
  table: modifiers
  level_column: Score
  ranks: {standard: Modifier}
  budget_rank: standard
  cite: [{see: combat#attacks, quote: "Roll and compare."}]

not_defined:
  levels: {note: "No XP table."}
"""


def compile_rules(tmp_path: Path, rules: str) -> dict:
    folder = make_system(tmp_path, **{"rules.yml": rules})
    return compile_system(load_system(folder))


def rules_error(tmp_path: Path, rules: str) -> ContentError:
    with pytest.raises(ContentError) as caught:
        compile_rules(tmp_path, rules)
    return caught.value


def test_the_valid_rules_compile(tmp_path: Path) -> None:
    compiled = compile_rules(tmp_path, RULES_YML)
    assert compiled["rules"]["point_buy"]["budget"] == 32
    assert compiled["rules"]["encounter"]["table"]["columns"] == ["Score", "Modifier"]
    # Each citation links to its sentence and keeps its section for the pages.
    (cited,) = compiled["rules"]["attack"]["cite"]
    assert cited["quote"] == "Roll and compare."
    assert cited["section_url"] == "test/combat/#attacks"
    assert cited["url"].startswith("test/combat/#said-roll-and-compare-")


def test_a_table_row_can_be_quoted_cell_by_cell(tmp_path: Path) -> None:
    quoted = 'quote: "Roll and compare."}]\n  critical'
    row = RULES_YML.replace(quoted, 'quote: "12-13 +1"}]\n  critical')
    assert row != RULES_YML
    assert compile_rules(tmp_path, row)["rules"]["attack"]["cite"][0]["quote"] == "12-13 +1"


# (text in RULES_YML, its replacement, words the message must hold)
GROUP = "group: cover\n"
COVER_CITE = 'cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]'
ATTACKS_CITE = 'cite: [{see: combat#attacks, quote: "Roll and compare."}]'
BROKEN = [
    ("budget: 32", 'budget: "abc"', ["'point_buy.budget' must be a whole number", "'abc'"]),
    ("budget: 32", "budget: 3.5", ["whole number"]),
    ("budget: 32", "budget: -4", ["'point_buy.budget' must be 0 or more"]),
    ("count: 6", "count: 0", ["'point_buy.count' must be 1 or more"]),
    ("count: 6", "count: true", ["whole number"]),
    ("scores: [10, 13]", "scores: [13, 10]", ["low <= high"]),
    ("scores: [10, 13]", 'scores: "10-13"', ["[low, high]"]),
    ("below: {score: 10, at_most: 1}", "below: 10", ["'point_buy.below' must be a mapping"]),
    ("at_most: 1}", "at_most: one}", ["'point_buy.below.at_most'"]),
    ("requires_hit: true", 'requires_hit: "yes"', ["true or false"]),
    ("roll: 1d20", "roll: 1q20", ["'attack.roll' is not a dice expression"]),
    ("roll: 1d20", "roll: 20", ["'attack.roll' must be non-empty text"]),
    ("from: 20", "from: twenty", ["'attack.critical.from' must be a whole number"]),
    ("defense: 2\n", "defense: two\n", ["situations.cover.defense"]),
    ("label: Cover\n", 'label: ""\n', ["situations.cover.label' must be non-empty text"]),
    ("{kind: maximise,", "{kind: maximize,", ["did you mean 'maximise'"]),
    ("floor: {value: 0}", "floor: {value: zero}", ["'damage.floor.value'"]),
    ("budget_rank: standard", "budget_rank: elite", ["no key of 'ranks'"]),
    ("  critical:\n    from", "  critcal:\n    from", ["unknown key 'critcal'", "'critical'"]),
    ("point_buy:", "pointbuy:", ["unknown key 'pointbuy' in rules.yml", "'point_buy'"]),
    ("not_defined:", "spells:", ["unknown key 'spells'", "hooks/content/rules_schema.py"]),
    ("  count: 6\n", "", ["'point_buy' is missing the key 'count'"]),
    (f"  {COVER_CITE}\n\npoint", "\npoint", ["missing the key 'cite'"]),
    (f"[10, 13]\n  {COVER_CITE}", f"[10, 13]\n  {COVER_CITE.replace('#cover', '#cuver')}",
     ["'ability_modifier.cite' cites 'combat#cuver'", "did you mean 'combat#cover'"]),
    (f"1d20\n  {ATTACKS_CITE}", f"1d20\n  {ATTACKS_CITE.replace('combat#', 'fight#')}",
     ["cites 'fight#attacks'", "combat#attacks"]),
    (f"1d20\n  {ATTACKS_CITE}", "1d20\n  cite: combat#attacks", ["must be a list of sections"]),
    (f"1d20\n  {ATTACKS_CITE}", "1d20\n  cite: [combat#attacks]",
     ["a citation has exactly 'see'", "'quote'"]),
    (f"1d20\n  {ATTACKS_CITE}", f"1d20\n  {ATTACKS_CITE.replace('compare.', 'compare twice.')}",
     ["'attack.cite' quotes a sentence that is not in combat#attacks",
      "matches up to 'Roll and compare', then the section does not go on with 'twice.'"]),
    (f"[10, 13]\n  {COVER_CITE}", f"[10, 13]\n  {COVER_CITE.replace('with', 'behind')}",
     ["not in combat#cover", "the section does not go on with 'behind'"]),
    # A heading is not the text's sentence.
    (f"1d20\n  {ATTACKS_CITE}", f"1d20\n  {ATTACKS_CITE.replace('Roll', 'Attacks Roll')}",
     ["not in combat#attacks", "not even its first word"]),
    ("table: modifiers\n  score_column: Score\n  cost",
     "table: modifers\n  score_column: Score\n  cost",
     ["'point_buy.table' names no table", "did you mean 'modifiers'"]),
    ("cost_column: Modifier", "cost_column: Modifer",
     ["'point_buy.cost_column' names no column of table 'modifiers'", "'Modifier'"]),
    ("ranks: {standard: Modifier}", "ranks: {standard: Elite}", ["encounter.ranks.standard"]),
    ("  modifier_column: Modifier\n", "", ["gives table, score_column but not modifier_column"]),
    ("levels: {note:", "levels: {nota:", ["unknown key 'nota'", "'note'"]),
    (GROUP, GROUP + "      side: attacking\n", ["situations.cover.side", "'attacker'"]),
    (GROUP, GROUP + "      damage_multiplier: 0.5\n", ['fraction as text, such as "1/2"']),
    (GROUP, GROUP + "      advantage: -1\n", ["situations.cover.advantage' must be 0"]),
    (GROUP, GROUP + "      when: [{atack: 1}]\n", ["unknown key 'atack'", "'attack'"]),
    ("defense: 2\n", "defence: 2\n", ["unknown key 'defence'", "'defense'"]),
    (GROUP, GROUP + "      attack_type: melee\n", ["no attack type", "attack_type"]),
    (GROUP, GROUP + "      confers: prone\n", ["cover.confers' must be a list"]),
    # A situation names other situations, and attack types, of the same rules.yml.
    (GROUP, GROUP + "      confers: [cuver]\n",
     ["'attack.situations.cover.confers[0]' names 'cuver', which is no situation of "
      "attack.situations (situations: cover): did you mean 'cover'?"]),
    (GROUP, GROUP + "      prevents: [cover, prone]\n",
     ["'attack.situations.cover.prevents[1]' names 'prone', which is no situation"]),
    (GROUP, GROUP + "      when: [{if: [cover]}, {unless: [covers]}]\n",
     ["'attack.situations.cover.when[1].unless[0]' names 'covers'", "did you mean 'cover'"]),
    (GROUP, GROUP + "      when: [{if: [cuver], defense: 1}]\n", ["when[0].if[0]' names 'cuver'"]),
    (GROUP, GROUP + "      attack_types: [melee]\n",
     ["'attack.situations.cover.attack_types[0]' names 'melee', which is no attack type"]),
    ("budget_rank: standard\n", f"budget_rank: standard\n  ambiguities: [{{when: {{rank: elite}}, "
     f"{ATTACKS_CITE}}}]\n",
     ["'encounter.ambiguities[0].when.rank' names 'elite', which is no rank of encounter.ranks "
      "(ranks: standard)"]),
    ("budget_rank: standard\n", f"budget_rank: standard\n  ambiguities: [{{when: {{rnak: x}}, "
     f"{ATTACKS_CITE}}}]\n",
     ["unknown key 'rnak' in 'encounter.ambiguities[0].when' (allowed: rank)",
      "did you mean 'rank'?"]),
    # An attack type is cited, by the sentences on all of them or each by its own.
    ("  situations:\n", "  attack_types: {names: [melee]}\n  situations:\n",
     ["'attack.attack_types' needs one at least of cite, each"]),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "words"), BROKEN, ids=[case[1] for case in BROKEN])
def test_a_wrong_value_stops_the_compile_at_its_line(
    tmp_path: Path, old: str, new: str, words: list[str]
) -> None:
    assert RULES_YML.count(old) == 1, old
    broken = RULES_YML.replace(old, new)
    start = RULES_YML.index(old)
    error = rules_error(tmp_path, broken)
    assert error.path.endswith("rules.yml")
    for word in words:
        assert word in error.message, error.message
    if "missing the key" in error.message or " gives " in error.message:
        # Reported at the line of the section that lacks the key.
        before = RULES_YML[:start].split("\n")
        expected = max(i + 1 for i, line in enumerate(before) if re.match(r"^\S", line))
    else:
        # Reported at the line where the broken text first differs from the valid one.
        same = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            min(len(old), len(new)),
        )
        differs = start + same
        expected = broken[:differs].count("\n") + 1
    assert error.line == expected, str(error)


def test_every_section_of_the_schema_is_optional_and_named() -> None:
    # A system defines the calculators its text has: no top-level section is required.
    assert all(name.endswith("?") for name in RULES.fields)


def test_a_section_is_added_in_one_line(tmp_path: Path) -> None:
    rules = RULES_YML + "\nlucky:\n  rerolls: 1\n"
    error = rules_error(tmp_path, rules)
    assert "unknown key 'lucky'" in error.message
    RULES.add("lucky?", Section({"rerolls": Integer(minimum=0)}))
    try:
        assert compile_rules(tmp_path, rules)["rules"]["lucky"] == {"rerolls": 1}
        error = rules_error(tmp_path, rules.replace("rerolls: 1", "rerolls: -1"))
        assert "'lucky.rerolls' must be 0 or more" in error.message
    finally:
        del RULES.fields["lucky?"]


def test_the_real_rules_pass_the_schema() -> None:
    compile_all(ROOT / "content")


def test_a_quoted_number_in_any_real_rules_file_stops_make_data(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """`budget: "abc"` and its kind: in each system's rules.yml, its first whole number
    turned into text fails `make data` with the file and line, not later in a calculator."""
    copy = tmp_path / "content"
    shutil.copytree(ROOT / "content", copy)
    systems = load_content(copy)
    number = re.compile(r"^(\s+\w+:\s*)(-?\d+)\s*$")
    for system in systems.values():
        path = system.folder / "rules.yml"
        if not path.exists():
            continue
        original = path.read_text(encoding="utf-8")
        lines = original.split("\n")
        index = next(i for i, line in enumerate(lines) if number.match(line))
        lines[index] = number.sub(r'\1"abc"', lines[index])
        path.write_text("\n".join(lines), encoding="utf-8")
        monkeypatch.setattr("hooks.content.rules_data.ROOT", tmp_path)
        assert main([str(tmp_path / "systems.json")]) == 1
        message = capsys.readouterr().err.strip()
        assert message.startswith(f"content error: {path}:{index + 1}: "), message
        assert "must be a whole number, not 'abc'" in message
        assert "\n" not in message
        path.write_text(original, encoding="utf-8")


SAVES_AND_DYING = """\
saves:
  label: Saving throw
  roll: 1d20
  advantage: {advantage}
  cite: [{{see: combat#cover, quote: "A target with cover is harder to hit."}}]

dying:
  label: Death save
  roll: 1d20
  target: 10
  failures:
    count: {failures}
    cite: [{{see: combat#cover, quote: "A target with cover is harder to hit."}}]
  cite: [{{see: combat#cover, quote: "A target with cover is harder to hit."}}]
"""


@pytest.mark.parametrize(
    ("advantage", "failures", "line", "words"),
    [
        ("spells", 3, 4, ["'saves.advantage' names 'spells'", "checks, saves"]),
        ("saves", 0, 12, ["'dying.failures.count' must be 1 or more, not 0"]),
    ],
)
def test_saves_and_death_saves_are_checked_too(
    tmp_path: Path, advantage: str, failures: int, line: int, words: list[str]
) -> None:
    added = SAVES_AND_DYING.format(advantage=advantage, failures=failures)
    error = rules_error(tmp_path, RULES_YML + "\n" + added)
    assert error.line == RULES_YML.count("\n") + 1 + line, str(error)
    for word in words:
        assert word in error.message, error.message


DYING_OPTIONS = """\
dying:
  label: Death save
  roll: 1d20
  target: 10
  failures:
    count: 3
    cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]
  special:
    - label: A natural 20
      naturals: [20]
      result: up
      without: {option: no-recoveries, as_total: 19}
      cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]
  first_save:
    option: dropped-by-crit
    disadvantage: 1
    cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]
  options:
    dropped-by-crit:
      label: Dropped by a crit
      cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]
    no-recoveries:
      label: No recoveries left
      cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]
  cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]
fight:
  not_followed:
    - label: Death saves
      covers: [dying]
      note: A combatant at 0 hit points is down for the rest of the fight.
      cite: [{see: combat#cover, quote: "A target with cover is harder to hit."}]
"""


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        ("option: dropped-by-crit", "option: dropped-by-crt", 15,
         ["'dying.first_save.option' names 'dropped-by-crt', which is no option of dying.options",
          "did you mean 'dropped-by-crit'?"]),
        ("option: no-recoveries", "option: no-recovery", 12,
         ["'dying.special[0].without.option' names 'no-recovery'", "'no-recoveries'"]),
    ],
)  # fmt: skip
def test_a_death_save_rule_names_an_option_of_the_death_saves(
    tmp_path: Path, old: str, new: str, line: int, words: list[str]
) -> None:
    assert compile_rules(tmp_path, RULES_YML + "\n" + DYING_OPTIONS)["rules"]["dying"]["options"]
    error = rules_error(tmp_path, RULES_YML + "\n" + DYING_OPTIONS.replace(old, new))
    assert error.line == RULES_YML.count("\n") + 1 + line, str(error)
    for word in words:
        assert word in error.message, error.message


def test_the_readme_lists_every_key_of_the_schema() -> None:
    from hooks.content.rules_schema import README, documented

    text = README.read_text(encoding="utf-8")
    assert text == documented(text), "run `.venv/bin/python -m hooks.content.rules_schema`"
    for section in (name.removesuffix("?") for name in RULES.fields):
        assert f"| `{section}` |" in text
