"""The guides name what the code has: lists a guide repeats are checked against their source."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from rules_core.calculators import CALCULATORS
from rules_core.systems import system_slugs
from rules_core.web import handle

ROOT = Path(__file__).resolve().parent.parent


def test_contributing_lists_every_calculator_a_table_can_open() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listed = re.search(
        r"`name` is a calculator of the registry, `rules_core\.calculators`\s*\(([^)]*)\)", text
    )
    assert listed, "CONTRIBUTING.md should list the calculators a table can open"
    assert re.findall(r"`([a-z]+)`", listed.group(1)) == list(CALCULATORS)


def test_the_makefile_command_contributing_names_is_the_one_it_runs() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    recipes = [
        line
        for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
        if line.startswith("\t")
    ]
    for command in ("npm ci", "npm install"):
        if f"`{command}`" in text:
            assert any(command in line for line in recipes), command


def test_mkdocs_comments_name_functions_that_exist() -> None:
    """A comment in mkdocs.yml that points at a hook function: the function is there."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pointers = re.findall(r"\((hooks/[\w/]+\.py) (\w+)\)", config)
    assert pointers
    for path, function in pointers:
        assert re.search(rf"^def {function}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), (
            path,
            function,
        )


def test_the_readme_names_every_key_of_every_calculators_json() -> None:
    """Each key a calculator's answer carries, for the default inputs of each system that
    defines it, is named in the README's list of the JSON keys."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"Keys of the JSON output:(.*?)(?:\n\n|\Z)", text, re.S)
    assert listed, "the README should list the keys of the JSON output"
    documented = set(re.findall(r"`([a-z_]+)`", listed.group(1)))
    for name in CALCULATORS:
        answered = [handle(name, {"system": system}) for system in system_slugs()]
        keys = {key for answer in answered if "data" in answer for key in answer["data"]}
        assert keys, f"{name} answered no system's defaults"
        assert keys <= documented, (name, sorted(keys - documented))


def test_the_readme_states_the_codes_license_and_each_texts_own() -> None:
    """The code's license is in LICENSE (the one pyproject.toml declares); the README says
    it, and that each text keeps the license it states (its system.yml, which its Source page
    shows: tests/test_site_build.py), naming each license the texts state."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = " ".join(text.split("\n## License\n", 1)[1].split("\n## ", 1)[0].split())
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "MIT License: `LICENSE`" in section
    assert "each is under the license it states, named by `source.license`" in section
    for slug in system_slugs():
        system = yaml.safe_load((ROOT / "content" / slug / "system.yml").read_text("utf-8"))
        assert system["source"]["license"] in section, slug


def test_the_readme_says_what_the_first_make_serve_needs() -> None:
    """The Node.js and Python the README asks for are those CI sets up, and it points a
    contributor to CONTRIBUTING.md."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text("utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
    set_up = {
        tool: {
            str(step["with"][f"{tool}-version"])
            for step in steps
            if f"setup-{tool}@" in str(step.get("uses"))
        }
        for tool in ("node", "python")
    }
    assert set_up["node"] and set_up["python"]
    for version in set_up["node"]:
        assert f"Node.js {version} or newer with npm" in text
    for version in set_up["python"]:
        assert f"needs Python {version}" in text
    assert "a network" in text and "`CONTRIBUTING.md`" in text
