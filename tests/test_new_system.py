"""CONTRIBUTING.md's "Add a whole new system", followed end to end in a clone of HEAD.

A small throwaway system (one page, an attack with advantage, a damage rule) is added by
content alone: a folder under content/, its line in content/systems.yml and its entry in
each Compare concept. The clone is built with `mkdocs build --strict`, and the new system
must have its pages, its navigation tab, its row on the home page, its Compare column and
calculators that answer for it, while git sees no change outside content/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from cited import sentence_at
from conftest import built_once
from test_contributing import unit_tier

from hooks.content.quotes import sentence_id
from hooks.pages.site import citations

pytestmark = pytest.mark.site  # each test here builds the site or a copy of the project

ROOT = Path(__file__).resolve().parent.parent
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


def _run(command: list[str], cwd: Path, **options) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "SITE_URL"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return subprocess.run(command, cwd=cwd, env=env, check=True, timeout=600, **options)


def _add_system(project: Path) -> None:
    """The recipe's steps, on content/ only."""
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


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The clone with the new system, built: made once for the run, whichever workers run
    this file's tests. They only read it."""
    return built_once(tmp_path_factory, "new-system", _new_system_built) / "repository"


def _new_system_built(folder: Path) -> None:
    clone = folder / "repository"
    _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], ROOT)
    _add_system(clone)
    changed = _run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        clone,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    assert changed and all(line[3:].startswith("content/") for line in changed), changed
    # What `make serve` does before building, with this checkout's installed parts.
    (clone / "node_modules").symlink_to(ROOT / "node_modules")
    shutil.copytree(ROOT / "build", clone / "build")
    _run(
        [sys.executable, "-m", "hooks.content.rules_data", "rules_core/data/systems.json"],
        clone,
    )
    _run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"], clone)


def test_its_pages_tab_home_row_and_compare_column_are_built(project: Path) -> None:
    site = project / "site"
    for page in ("", "combat/", "terms/", "source/", "gm-screen/"):
        assert (site / SLUG / page / "index.html").exists(), page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert re.search(r'class="md-tabs__link"[^>]*>\s*Tiny Skirmish\s*<', home) or re.search(
        rf'href="{SLUG}/"[^>]*class="md-tabs__link"', home
    ), "no navigation tab"
    assert f'<td><a href="{SLUG}/">{TITLE}</a></td>' in home
    combat = (site / SLUG / "combat" / "index.html").read_text(encoding="utf-8")
    assert f"<title>Combat · {TITLE} - " in combat
    assert 'href="../../calculators/attack/?system=tiny-skirmish"' in combat
    assert 'href="../../compare/critical-hits/"' in combat
    compare = (site / "compare" / "critical-hits" / "index.html").read_text(encoding="utf-8")
    assert TITLE in compare and QUOTE in compare
    attack = (site / "calculators" / "attack" / "index.html").read_text(encoding="utf-8")
    assert f'<option value="{SLUG}"' in attack
    # Only content/ changed; git ignores the build's outputs. (node_modules and .venv are
    # this test's links to the installed packages, the second made by the unit tier's run
    # in the clone: a link is not the ignored folder /node_modules/ or /.venv/.)
    changed = _run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        project,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    outside = [
        line for line in changed if not line[3:].startswith(("content/", "node_modules", ".venv"))
    ]
    assert outside == []


def test_its_glossary_joins_the_terms_across_systems(project: Path) -> None:
    """A term another system defines too gets the new system's definition beside the
    others' on the generated page, linked from its own Terms page."""
    site = project / "site"
    shared = (site / "compare" / "terms" / "index.html").read_text(encoding="utf-8")
    start = shared.index('<h2 id="term-critical-hit"')
    section = shared[start : shared.find("<h2", start + 1)]
    assert "Tiny Skirmish</a></strong>" in section and DEFINITION in section
    assert section.count("</strong> <em>") >= 2  # and at least one other system's
    terms = (site / SLUG / "terms" / "index.html").read_text(encoding="utf-8")
    assert 'href="../../compare/terms/#term-critical-hit"' in terms


def test_its_gm_screen_comes_from_its_content(project: Path) -> None:
    """The screen shows what the new system's data has, cited, and no part it lacks."""
    screen = (project / "site" / SLUG / "gm-screen" / "index.html").read_text(encoding="utf-8")
    assert 'id="gm-rolls"' in screen
    # Its critical hit rule, linked to the sentence that states it.
    assert f'href="../combat/#{sentence_id(QUOTE)}"' in screen
    for absent in ("gm-situations", "gm-conditions", "gm-actions", "gm-dying", "gm-tables"):
        assert f'id="{absent}"' not in screen, absent
    landing = (project / "site" / SLUG / "index.html").read_text(encoding="utf-8")
    assert 'href="gm-screen/"' in landing


def _handle(project: Path, name: str, inputs: dict[str, str]) -> dict:
    """rules_core.web.handle of the clone, on the clone's compiled data."""
    script = (
        "import json, sys; from rules_core.web import handle; "
        "print(json.dumps(handle(sys.argv[1], json.loads(sys.argv[2]))))"
    )
    result = _run(
        [sys.executable, "-c", script, name, json.dumps(inputs)],
        project,
        capture_output=True,
        text=True,
    )
    return json.loads(result.stdout)


def test_its_calculators_apply_its_rules(project: Path) -> None:
    common = {"system": SLUG, "bonus": "5", "defense": "15"}
    normal = _handle(project, "attack", {**common, "mode": "normal"})
    assert normal["ok"], normal
    # d20 + 5 against 15 hits on 10 or more; a natural 20 always crits.
    assert Fraction(normal["data"]["hit"]) == Fraction(11, 20)
    assert Fraction(normal["data"]["crit"]) == Fraction(1, 20)
    advantage = _handle(project, "attack", {**common, "mode": "advantage"})
    assert advantage["ok"], advantage
    assert Fraction(advantage["data"]["hit"]) == 1 - Fraction(9, 20) ** 2
    damage = _handle(project, "damage", {"system": SLUG, "expression": "1d6+1", "crit": "on"})
    assert damage["ok"], damage
    # A critical hit rolls the dice twice: 2d6+1.
    assert Fraction(damage["data"]["mean"]) == Fraction(8)


def _offered(page: str, field_id: str) -> bool:
    """Whether the form offers a field to the new system (no data-systems: to every system)."""
    match = re.search(
        rf'<div class="calc-field[^"]*"( data-systems="([^"]*)")?[^>]*>\s*<label[^>]*'
        rf'for="{field_id}"',
        page,
    )
    assert match is not None, f"no field {field_id}"
    return match.group(1) is None or SLUG in match.group(2).split()


def test_its_calculator_forms_offer_the_fields_its_data_implies(project: Path) -> None:
    site = project / "site" / "calculators"
    attack = (site / "attack" / "index.html").read_text(encoding="utf-8")
    damage = (site / "damage" / "index.html").read_text(encoding="utf-8")
    # rules.yml defines advantage, and neither an escalation die nor resistance.
    assert not _offered(attack, "attack-escalation")
    assert not _offered(damage, "damage-resistance")
    assert _offered(damage, "damage-crit")
    assert _offered(attack, "attack-mode")


def test_its_citations_land_on_their_sentences(project: Path) -> None:
    data = json.loads((project / "rules_core" / "data" / "systems.json").read_text("utf-8"))
    cited = list(citations(data["systems"][SLUG]["rules"]))
    assert len(cited) >= 5
    for citation in cited:
        assert "#said-" in citation["url"], citation
        assert sentence_at(project / "site", citation["url"]) == citation["quote"]


def test_the_tests_ci_runs_on_content_pass_with_it(project: Path) -> None:
    """The recipe walked to the end of CI's fast tier as far as content goes: every `unit`
    test, which takes the systems from content/systems.yml, passes in the clone with the
    new system (the browser tier and the Node tests are not run here)."""
    unit_tier(project)
