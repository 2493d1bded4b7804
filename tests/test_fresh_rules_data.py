"""A test session reads the rules data compiled from content/ as it is (tests/
fresh_rules_data.py): after a rules.yml edit, with no `make data` in between, a test answers
from the edited rules; a rules.yml the build refuses stops the session with its line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dev_server import project_copy

pytestmark = pytest.mark.site  # runs pytest in a copy of the project

ROOT = Path(__file__).resolve().parent.parent
CRITICAL = r"(?m)^(  critical:\n(?:    .*\n)*?    from: )(\d+)$"  # attack.critical.from
READS = """\
from rules_core.systems import get_system


def test_the_edited_rule() -> None:
    assert get_system({slug!r}).rules["attack"]["critical"]["from"] == {value}
"""


def _session(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_reads.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_session_after_a_rules_edit_reads_the_edited_rules(tmp_path: Path) -> None:
    project = project_copy(ROOT, tmp_path / "project")  # its data compiled, as `make data`
    slug = next(
        str(slug)
        for slug in yaml.safe_load((project / "content" / "systems.yml").read_text())["systems"]
        if re.search(CRITICAL, _text(project / "content" / str(slug) / "rules.yml"))
    )
    rules = project / "content" / slug / "rules.yml"
    text = rules.read_text(encoding="utf-8")
    value = int(re.search(CRITICAL, text)[2]) - 1
    rules.write_text(re.sub(CRITICAL, rf"\g<1>{value}", text, count=1), encoding="utf-8")
    (project / "tests" / "test_reads.py").write_text(READS.format(slug=slug, value=value))
    done = _session(project)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # A rules.yml the build refuses: the session stops at its line, running no test.
    line = text[: re.search(CRITICAL, text).start(2)].count("\n") + 1
    rules.write_text(re.sub(CRITICAL, r"\g<1>zero", text, count=1), encoding="utf-8")
    done = _session(project)
    assert done.returncode != 0 and "passed" not in done.stdout
    assert f"content error: {rules}:{line}: " in done.stderr, done.stderr[-3000:]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""
