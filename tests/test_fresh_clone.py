"""A clone of the repository passes its own build and word-coverage tests with nothing
beside it: the source texts and everything else the tests read are in the repository.

The clone is of the committed HEAD. To save minutes it borrows this checkout's installed
parts, which `make setup` would recreate from pinned files: the Python environment, the
npm packages and the Pyodide bundle in build/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.site  # each test here builds the site or a copy of the project

ROOT = Path(__file__).resolve().parent.parent


def _clone(parent: Path) -> Path:
    clone = parent / "repository"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
        check=True,
        timeout=120,
    )
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(["git", "checkout", "--quiet", head], cwd=clone, check=True)
    return clone


def test_a_clone_passes_the_build_and_coverage_tests(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["repository"]
    (clone / "node_modules").symlink_to(ROOT / "node_modules")
    shutil.copytree(ROOT / "build", clone / "build")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "SITE_URL"))
    }
    env["NO_MKDOCS_2_WARNING"] = "1"
    # `make data`, with this checkout's interpreter.
    subprocess.run(
        [sys.executable, "-m", "hooks.content.rules_data", "rules_core/data/systems.json"],
        cwd=clone,
        check=True,
        env=env,
        timeout=120,
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-v",
            "-p",
            "no:cacheprovider",
            "tests/test_site_build.py",
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    # The word-coverage test ran for every system, from the clone's own source texts.
    systems = yaml.safe_load((clone / "content" / "systems.yml").read_text(encoding="utf-8"))
    covered = [
        line
        for line in result.stdout.splitlines()
        if "test_source_words_appear_on_the_systems_pages[" in line and "PASSED" in line
    ]
    assert len(covered) == len(systems["systems"]), result.stdout[-4000:]
    assert not any(tmp_path.glob("shared")), "nothing may appear beside the clone"
