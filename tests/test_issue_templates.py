"""The place to ask before starting: GitHub's issue forms for a rules error, a new system and
a question, each valid by GitHub's schema (check-jsonschema's own copy: no network), no blank
issue, a link to CONTRIBUTING.md of this repository, and each form named in the guide."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
FORMS = ROOT / ".github" / "ISSUE_TEMPLATE"
CHECKER = Path(sys.executable).parent / "check-jsonschema"


def _valid(schema: str, *files: Path) -> None:
    result = subprocess.run(
        [str(CHECKER), "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _forms() -> list[Path]:
    return sorted(path for path in FORMS.glob("*.yml") if path.name != "config.yml")


def test_the_forms_and_their_config_are_valid_by_githubs_schemas() -> None:
    _valid("vendor.github-issue-forms", *_forms())
    _valid("vendor.github-issue-config", FORMS / "config.yml")


def test_there_is_a_form_for_a_rules_error_a_new_system_and_a_question() -> None:
    names = [yaml.safe_load(path.read_text(encoding="utf-8"))["name"] for path in _forms()]
    assert sorted(names) == ["A new system", "A question", "A rules error"]


def test_an_issue_starts_from_a_form_with_the_guide_at_hand() -> None:
    config = yaml.safe_load((FORMS / "config.yml").read_text(encoding="utf-8"))
    assert config["blank_issues_enabled"] is False
    # The repository the edit buttons open, and its guide on main.
    edit_base = re.search(r"(?m)^\s*edit_base:\s*(\S+)", (ROOT / "mkdocs.yml").read_text())[1]
    repository = edit_base.removesuffix("/edit/main")
    (link,) = config["contact_links"]
    assert link["url"] == f"{repository}/blob/main/CONTRIBUTING.md"


def test_the_guide_names_each_form() -> None:
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for path in _forms():
        assert f"`{path.relative_to(ROOT).as_posix()}`" in guide, path.name
