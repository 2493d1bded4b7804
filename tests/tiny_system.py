"""The small throwaway system with which the tests follow CONTRIBUTING.md's "Add a whole
new system" (one page, an attack with advantage, a damage rule): its content, and the
recipe's steps that add it to a project (tests/test_new_system.py builds a clone with it;
tests/test_contributing.py adds it with the other recipes before the unit tier is run)."""

from __future__ import annotations

from pathlib import Path

import yaml

SLUG = "tiny-skirmish"
TITLE = "Tiny Skirmish Rules"

SYSTEM_YML = f"""\
title: "{TITLE}"
short_title: "Tiny Skirmish"
dice: d20
summary: >
  A one-page skirmish game: roll a d20 with advantage or disadvantage against a defense.
source:
  file: source.txt
  document: "{TITLE}"
  license: "none stated"
pages:
  - combat
"""

COMBAT_MD = """\
# Combat

## Attack Rolls

Roll a d20 and add your attack bonus. If the total equals or beats the defense, the attack hits.

## Advantage

With advantage, roll two d20 and keep the higher. With disadvantage, keep the lower. \
Advantage and disadvantage together cancel.

## Critical Hits

A natural 20 is a critical hit, and a critical hit rolls the damage dice twice.

## Damage

Roll the damage dice and add your modifier. Damage is never below 0.
"""

RULES_YML = """\
attack:
  roll: 1d20
  cite:
    - see: combat#attack-rolls
      quote: "If the total equals or beats the defense, the attack hits."
  critical:
    from: 20
    requires_hit: false
    cite:
      - see: combat#critical-hits
        quote: "A natural 20 is a critical hit, and a critical hit rolls the damage dice twice."
  advantage:
    advantage: 2d20kh1
    disadvantage: 2d20kl1
    both: 'They cancel ("Advantage and disadvantage together cancel.").'
    cite:
      - see: combat#advantage
        quote: "With advantage, roll two d20 and keep the higher."

damage:
  cite:
    - see: combat#damage
      quote: "Roll the damage dice and add your modifier."
  critical:
    kind: double-dice
    cite:
      - see: combat#critical-hits
        quote: "A natural 20 is a critical hit, and a critical hit rolls the damage dice twice."
  floor:
    value: 0
    cite:
      - see: combat#damage
        quote: "Damage is never below 0."
"""

QUOTE = "A natural 20 is a critical hit, and a critical hit rolls the damage dice twice."

DEFINITION = "A natural 20: the damage dice are rolled twice."
GLOSSARY_YML = f"""\
- term: Critical hit
  kind: rule
  plural: Critical hits
  aliases: []
  definition: "{DEFINITION}"
  see: combat#critical-hits
"""


def add_tiny_system(project: Path) -> None:
    """The recipe's steps, on content/ only: the system's folder, its line in
    content/systems.yml and its entry in each Compare concept."""
    content = project / "content"
    folder = content / SLUG
    (folder / "pages").mkdir(parents=True)
    (folder / "system.yml").write_text(SYSTEM_YML, encoding="utf-8")
    (folder / "source.txt").write_text(COMBAT_MD.replace("#", ""), encoding="utf-8")
    (folder / "pages" / "combat.md").write_text(COMBAT_MD, encoding="utf-8")
    (folder / "rules.yml").write_text(RULES_YML, encoding="utf-8")
    (folder / "glossary.yml").write_text(GLOSSARY_YML, encoding="utf-8")
    systems = content / "systems.yml"
    systems.write_text(systems.read_text(encoding="utf-8") + f"  - {SLUG}\n", encoding="utf-8")
    compare_path = content / "compare.yml"
    compare = yaml.safe_load(compare_path.read_text(encoding="utf-8"))
    for concept in compare["concepts"]:
        quoted = concept["slug"] == "critical-hits"
        concept["systems"][SLUG] = (
            [{"see": "combat#critical-hits", "quote": QUOTE}] if quoted else []
        )
    compare_path.write_text(
        yaml.safe_dump(compare, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8"
    )
