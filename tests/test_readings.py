"""A labelled reading of the rules of attacks, checks, saves and dying quotes the words of
the text it reads (hooks/content/readings.py): `make data` refuses one that quotes
nothing, or words the system's pages do not say, at its line. Every system of
content/systems.yml is taken as it is, then with each section's first reading broken."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hooks.content.loader import load_system
from hooks.content.readings import READINGS, _readings, check_readings
from hooks.content.yaml_lines import ContentError, load_yaml

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
SYSTEMS = [str(slug) for slug in yaml.safe_load((CONTENT / "systems.yml").read_text())["systems"]]


def _first_readings(path: Path) -> list[tuple[str, str, int]]:
    """(section, reading, its line) for the first reading of each section of a rules.yml."""
    rules = load_yaml(path)
    found = []
    for section, keys in READINGS.items():
        first = next(_readings(rules.get(section), keys, 1), None)
        if first is not None:
            found.append((section, *first))
    return found


@pytest.mark.parametrize("slug", SYSTEMS)
def test_each_systems_readings_quote_its_pages(slug: str) -> None:
    system = load_system(CONTENT / slug)
    if system.rules is not None:
        check_readings(system, system.rules, system.folder / "rules.yml")


@pytest.mark.parametrize("slug", SYSTEMS)
def test_a_reading_quoting_words_the_pages_do_not_say_is_refused_at_its_line(
    tmp_path: Path, slug: str
) -> None:
    path = CONTENT / slug / "rules.yml"
    if not path.exists() or not _first_readings(path):
        pytest.skip(f"{slug} has no reading of attacks, checks, saves or dying")
    for section, reading, line in _first_readings(path):
        copy = tmp_path / section
        shutil.copytree(CONTENT, copy)
        rules = copy / slug / "rules.yml"
        lines = rules.read_text(encoding="utf-8").split("\n")
        phrase = re.search(r'"([^"]+)"', reading)[1].split()[0]
        at = next(
            number
            for number in range(line - 1, len(lines))
            if re.search(rf'"{re.escape(phrase)}', lines[number])
        )
        lines[at] = re.sub(rf'"{re.escape(phrase)}', '"Zorbulant', lines[at], count=1)
        rules.write_text("\n".join(lines), encoding="utf-8")
        system = load_system(copy / slug)
        with pytest.raises(ContentError) as caught:
            check_readings(system, system.rules, rules)
        assert caught.value.line == line, (section, caught.value)
        assert "Zorbulant" in caught.value.message and "pages do not say" in caught.value.message


def test_a_reading_quoting_nothing_stops_make_data_at_its_line(tmp_path: Path) -> None:
    """The situation recipe's `interpretation`, written without the text's words, is
    refused by the quick check CONTRIBUTING gives (the first system with situations)."""
    copy = tmp_path / "project"
    for name in ("content", "hooks", "rules_core"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    slug = next(
        slug
        for slug in SYSTEMS
        if "\n  situations:\n" in _text(copy / "content" / slug / "rules.yml")
    )
    rules = copy / "content" / slug / "rules.yml"
    text = _text(rules)
    entry = next(iter(load_yaml(rules)["attack"]["situations"].values()))
    cite = entry["cite"][0]
    added = (
        "    read-without-quotes:\n"
        "      label: Read without quotes\n"
        "      attack: 1\n"
        "      cite:\n"
        f"        - see: {cite['see']}\n"
        f'          quote: "{cite["quote"]}"\n'
        "      interpretation: The text is read as giving +1 here.\n"
    )
    rules.write_text(text.replace("\n  situations:\n", f"\n  situations:\n{added}", 1), "utf-8")
    line = text[: text.index("\n  situations:\n")].count("\n") + 2 + added.count("\n")
    result = subprocess.run(
        [sys.executable, "-m", "hooks.content.rules_data", str(tmp_path / "systems.json")],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1
    assert f"{rules}:{line}: this reading of attack quotes nothing of the text" in result.stderr


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""
