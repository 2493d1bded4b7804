"""CONTRIBUTING.md's "Add a whole new system", followed end to end in a clone of HEAD.

A small throwaway system (one page, an attack with advantage, a damage rule) is added by
content alone: a folder under content/, its line in content/systems.yml and its entry in
each Compare concept. The clone is built with `mkdocs build --strict`, and the new system
must have its pages, its navigation tab, its row on the home page, its Compare column and
calculators that answer for it, while git sees no change outside content/. The unit
tier, which CI runs on content, is run with the system added in tests/test_contributing.py
(with the other recipes, in one copy of the project: one run of the tier for all of them).
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
from cited import sentence_at
from conftest import built_once
from tiny_system import (
    DEFINITION,
    QUOTE,
    SLUG,
    TITLE,
    add_tiny_system,
)

from hooks.content.quotes import sentence_id
from hooks.pages.site import citations

pytestmark = pytest.mark.site  # each test here builds the site or a copy of the project

ROOT = Path(__file__).resolve().parent.parent


def _run(command: list[str], cwd: Path, **options) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "SITE_URL"}
    env["NO_MKDOCS_2_WARNING"] = "1"
    return subprocess.run(command, cwd=cwd, env=env, check=True, timeout=600, **options)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The clone with the new system, built: made once for the run, whichever workers run
    this file's tests. They only read it."""
    return built_once(tmp_path_factory, "new-system", _new_system_built) / "repository"


def _new_system_built(folder: Path) -> None:
    clone = folder / "repository"
    _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], ROOT)
    add_tiny_system(clone)
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
    # Only content/ changed; git ignores the build's outputs. (node_modules is this test's
    # link to the installed packages: a link is not the ignored folder /node_modules/.)
    changed = _run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        project,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    outside = [line for line in changed if not line[3:].startswith(("content/", "node_modules"))]
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
