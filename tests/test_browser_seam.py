"""The seam between the page's JavaScript and the rules core is written from the Python.

hooks/package/browser_seam.py writes types/rules-core-web.d.ts (what the worker sends and
gets back, from rules_core.web's TypedDicts) and docs/assets/javascripts/rules-core-limits.mjs
(the limits both sides share). Both are committed: these tests write them again into a
temporary folder and fail where a committed one differs, so a change to the Python that the
JavaScript has not been checked against (`tsc`, `make lint`) cannot pass unnoticed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Literal

import pytest

from hooks.package import browser_seam
from rules_core import fields
from rules_core.calculators import fight

ROOT = Path(__file__).resolve().parent.parent
JAVASCRIPTS = ROOT / "docs" / "assets" / "javascripts"


def test_the_committed_seam_is_what_the_python_declares_now(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hooks.package.browser_seam", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    written = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    assert written == sorted([browser_seam.DECLARATIONS, browser_seam.LIMITS]), result.stdout
    for relative in written:
        committed = (ROOT / relative).read_text(encoding="utf-8")
        assert committed == (tmp_path / relative).read_text(encoding="utf-8"), (
            f"{relative} is stale: run `make seam` (python -m hooks.package.browser_seam) "
            "and commit it"
        )


def test_a_seam_already_written_is_left_as_it_is(tmp_path: Path) -> None:
    assert sorted(browser_seam.write(tmp_path)) == sorted(
        [tmp_path / browser_seam.DECLARATIONS, tmp_path / browser_seam.LIMITS]
    )
    assert browser_seam.write(tmp_path) == []
    (tmp_path / browser_seam.LIMITS).write_text("export const NAME_LENGTH = 41;\n", "utf-8")
    assert browser_seam.write(tmp_path) == [tmp_path / browser_seam.LIMITS]


def test_the_limits_module_holds_the_python_values() -> None:
    module = (ROOT / browser_seam.LIMITS).read_text(encoding="utf-8")
    constants = dict(re.findall(r"^export const (\w+) = (\d+);$", module, re.MULTILINE))
    assert constants == {
        "FIGHT_MAX_ROWS": str(fight.FightRequest.MAX_ROWS),
        "FIGHT_FORM_ROWS": str(fight.FightRequest.FORM_ROWS),
        "NAME_LENGTH": str(fight.NAME_LENGTH),
        "VALUE_LENGTH": str(fields.MAX_INPUT_LENGTH),
    }


def test_no_page_script_copies_a_limit_it_can_import() -> None:
    """The limits are imported where they are used, never written out again."""
    values = {limit.name: limit.value for limit in browser_seam.limits()}
    imported = set()
    for script in JAVASCRIPTS.glob("*.*js"):
        if script.name == browser_seam.LIMITS.name:
            continue
        text = script.read_text(encoding="utf-8")
        for names in re.findall(r'import \{([^}]*)\} from "\./rules-core-limits\.mjs";', text):
            imported |= {name.strip() for name in names.split(",")}
        copied = re.findall(r"const \w+ = (\d+);", text)
        assert not set(copied) & {str(value) for value in values.values()}, script.name
    assert imported == set(values), "every limit is read from rules-core-limits.mjs"


def test_the_declarations_say_each_key_and_which_is_optional() -> None:
    declared = browser_seam.declarations()
    assert "export interface Request {\n" in declared
    assert "  inputs?: Record<string, string>;\n" in declared
    assert "  ok: true;\n" in declared and "  ok: false;\n" in declared
    assert "  incomplete?: true;\n" in declared
    assert "export type Answer = Answered | Refused;\n" in declared
    assert "  step(): boolean;\n" in declared and "  stop(): void;\n" in declared
    assert "data" not in re.findall(r"^  (\w+)\??:", declared, re.MULTILINE)


def test_a_type_typescript_cannot_say_is_refused_not_declared_any() -> None:
    assert browser_seam.typescript(Literal[1] | None, frozenset()) == "1 | null"
    with pytest.raises(browser_seam.SeamError, match="bytes"):
        browser_seam.typescript(Literal[1] | bytes, frozenset())
