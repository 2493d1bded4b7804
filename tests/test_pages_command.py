"""`python -m hooks.pages.generate OUT`: the site's Markdown for any generator, without MkDocs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import built_once

pytestmark = pytest.mark.site  # runs the page generator in a subprocess

ROOT = Path(__file__).resolve().parent.parent
SLUGS = yaml.safe_load((ROOT / "content" / "systems.yml").read_text(encoding="utf-8"))["systems"]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The command's output, written once for the run, whichever workers run these tests."""
    return built_once(tmp_path_factory, "generated-pages", _generate) / "docs"


def _generate(folder: Path) -> None:
    folder.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "hooks.pages.generate", str(folder / "docs")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("slug", SLUGS)
def test_every_system_has_its_pages_and_its_nav(written: Path, slug: str) -> None:
    assert (written / slug / "index.md").is_file()
    nav = yaml.safe_load((written.parent / "docs-nav.yml").read_text(encoding="utf-8"))["nav"]
    listed = yaml.safe_dump(nav)
    assert f"{slug}/index.md" in listed


def test_calculators_are_expanded_and_no_placeholder_is_left(written: Path) -> None:
    pages = list(written.rglob("*.md"))
    assert not [page for page in pages if "[[calculator:" in page.read_text(encoding="utf-8")]
    calculator_pages = [p for p in pages if '<section class="calc"' in p.read_text("utf-8")]
    assert calculator_pages, "no calculator widget written"
    # Links in the prerendered answers lead to the site root from the page's own folder.
    attack = (written / "calculators" / "attack.md").read_text(encoding="utf-8")
    assert 'href="../../' in attack
