"""One build at a time: the same sources give the same bytes, and a page never runs the
rules core of another build.

The Pyodide bundle is served under assets/pyodide/<id>/, the id a hash of its files, and
each calculator names it: a deploy that changes the rules core changes the id, so neither
the HTTP cache nor a service worker can hand a page the old wheel. A deploy that changes
only prose changes no Python file, so no reader downloads Python again for it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import BUILD_ENV, SITE, build_site, built_once

from hooks.content.rules_data import compile_all
from hooks.package import pyodide_bundle
from hooks.package.made_from import record_of
from hooks.package.pyodide_bundle import (
    COMPRESSED_SUFFIX,
    MANIFEST,
    SNAPSHOT,
    bundle,
    bundle_id,
    refresh_wheel,
)

ROOT = Path(__file__).resolve().parent.parent


def first_system() -> str:
    return yaml.safe_load((ROOT / "content" / "systems.yml").read_text("utf-8"))["systems"][0]


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def build(site_dir: Path, cwd: Path = ROOT) -> dict[str, bytes]:
    return files_of(build_site(site_dir, cwd))


@SITE
def test_two_builds_of_the_same_tree_are_byte_identical(site: Path, tmp_path: Path) -> None:
    """The run's site, and a build of the same tree made now (both dated BUILD_ENV's date)."""
    first, second = files_of(site), build(tmp_path / "second")
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []


@pytest.fixture(scope="module")
def this_trees_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole Pyodide bundle of this tree's rules core, read only: build/pyodide where
    Make finds it made from this tree (`make test` has just set it up), else one made once
    for the run (a minute's work)."""
    made = ROOT / "build" / "pyodide"
    target = (made / SNAPSHOT).relative_to(ROOT).as_posix()
    if subprocess.run(["make", "--question", target], cwd=ROOT, capture_output=True).returncode:
        return built_once(tmp_path_factory, "bundle-of-this-tree", bundle)
    return made


def files_of_bundle(folder: Path) -> dict[str, bytes]:
    """The bundle's own files: not the record of what Make made it from, kept beside it."""
    files = files_of(folder)
    files.pop(record_of(folder / SNAPSHOT).name, None)
    return files


@SITE
def test_two_bundles_of_the_same_sources_are_byte_identical(
    tmp_path: Path, this_trees_bundle: Path
) -> None:
    first = files_of_bundle(this_trees_bundle)
    second = files_of_bundle(Path(bundle(tmp_path / "second")[0]).parent)
    assert first.keys() == second.keys()
    assert [name for name in first if first[name] != second[name]] == []
    assert bundle_id(this_trees_bundle) == bundle_id(tmp_path / "second")


@SITE
def test_a_changed_page_changes_no_python_file(tmp_path: Path) -> None:
    """The rules data inside the wheel is all the content the bundle holds: a note added
    to a page leaves it, and so every file of the bundle, as it was."""
    content = Path(shutil.copytree(ROOT / "content", tmp_path / "content"))
    page = next((content / first_system() / "pages").glob("*.md"))
    text = page.read_text("utf-8")
    paragraph = next(line for line in text.splitlines() if len(line) > 80 and line[0].isalpha())
    note = '\n\n!!! note "Note"\n    A note the test adds.'
    page.write_text(text.replace(paragraph, paragraph + note, 1), "utf-8")
    assert compile_all(content) == compile_all(ROOT / "content")


@SITE
def test_the_pages_name_the_bundle_the_site_serves(site: Path) -> None:
    served = [path.name for path in (site / "assets" / "pyodide").iterdir()]
    assert served == [bundle_id(ROOT / "build" / "pyodide")]
    page = (site / "calculators" / "attack" / "index.html").read_text("utf-8")
    named = set(re.findall(r'data-bundle="([0-9a-f]+)"', page))
    assert named == set(served)
    worker = (site / "assets" / "javascripts" / "calculator-worker.mjs").read_text("utf-8")
    assert "../pyodide/${bundle}/" in worker


@SITE
@pytest.mark.parametrize("edited", ["rules data", "rules core"])
def test_the_dev_servers_quick_wheel_is_the_bundles_own(
    tmp_path: Path,
    edited: str,
    monkeypatch: pytest.MonkeyPatch,
    this_trees_bundle: Path,
    request: pytest.FixtureRequest,
) -> None:
    """`make serve` rebuilds only the rules core's wheel after a rules.yml or rules core edit
    (refresh_wheel): the bundle it leaves is the one a whole new bundle of the edited sources
    is, byte for byte, in a new folder, but for Python's snapshot, which it drops (the
    snapshot holds the rules core it was made with). A rules data edit alone compiles
    nothing. Either edit gives the whole bundle a new id, so a deploy of it is served in a
    new folder.

    The bundle before the edit is this tree's: a copy of the project bundles to the same
    bytes wherever it lies (the bundle holds no path of the project). The rules core edit
    is the marked clone's, whose whole bundle the update test below deploys: one bundle of
    it serves both (a minute's work each)."""
    shutil.copytree(this_trees_bundle, tmp_path / "before")
    shutil.copytree(tmp_path / "before", tmp_path / "refreshed")
    if edited == "rules data":
        project = tmp_path / "project"
        shutil.copytree(ROOT / "rules_core", project / "rules_core")
        shutil.copy(ROOT / "pyproject.toml", project)
        shutil.copy(ROOT / "README.md", project)
        shutil.copy(ROOT / "LICENSE", project)  # the wheel carries it (its dist-info)
        data = project / "rules_core" / "data" / "systems.json"
        data.write_text(data.read_text("utf-8").replace('"critical"', '"critical" ', 1), "utf-8")
        monkeypatch.setattr(pyodide_bundle, "compile_bundle", _not_compiled)
        refresh_wheel(tmp_path / "refreshed", project=project)
        monkeypatch.undo()
        bundle(tmp_path / "whole", project=project)
        whole_bundle = tmp_path / "whole"
    else:
        project = request.getfixturevalue("marked_clone")
        refresh_wheel(tmp_path / "refreshed", project=project)
        whole_bundle = project / "build" / "pyodide"
    refreshed, whole = files_of_bundle(tmp_path / "refreshed"), files_of_bundle(whole_bundle)
    manifest = json.loads(whole.pop(MANIFEST))
    del manifest["snapshot"]
    assert json.loads(refreshed.pop(MANIFEST)) == manifest
    for name in (SNAPSHOT, f"{SNAPSHOT}{COMPRESSED_SUFFIX}"):
        assert whole.pop(name)
    assert refreshed.keys() == whole.keys()
    assert [name for name in whole if refreshed[name] != whole[name]] == []
    assert bundle_id(tmp_path / "refreshed") != bundle_id(tmp_path / "before")
    assert bundle_id(whole_bundle) != bundle_id(tmp_path / "before")


def _not_compiled(out_dir: Path) -> None:
    raise AssertionError("a rules data edit compiled the wheel")


MARKER = "from the second build"


@pytest.fixture(scope="module")
def marked_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository whose rules core marks every answer, with its whole bundle
    in build/pyodide: made once for the run, read only."""
    return built_once(tmp_path_factory, "marked-clone", _make_marked_clone)


def _make_marked_clone(clone: Path) -> None:
    shutil.copytree(
        ROOT,
        clone,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "node_modules", "site", "dist", "build", "test-*"
        ),
    )
    (clone / "node_modules").symlink_to(ROOT / "node_modules")
    (clone / "build").mkdir()
    shutil.copy(ROOT / "build" / "sw-template.js", clone / "build" / "sw-template.js")
    render = clone / "rules_core" / "calculators" / "html.py"
    headline = """return f'<div class="calc-headline">{self.headline}{why}</div>{self.body}'"""
    text = render.read_text("utf-8")
    assert headline in text, "the headline moved: mark the answers elsewhere"
    marked = headline.replace("{self.headline}", f"{{self.headline}} {MARKER}")
    render.write_text(text.replace(headline, marked))
    bundle(clone / "build" / "pyodide", project=clone)


def test_an_update_that_changes_the_rules_core_answers_from_it_online_and_offline(
    browser, site: Path, tmp_path: Path, marked_clone: Path
) -> None:
    from conftest import launch_options, serve, wait_live
    from playwright.sync_api import expect

    served = Path(shutil.copytree(site, tmp_path / "served"))
    second = build_site(tmp_path / "second", marked_clone)
    assert bundle_id(marked_clone / "build" / "pyodide") != bundle_id(ROOT / "build" / "pyodide")
    httpd = serve(served)
    origin = f"http://127.0.0.1:{httpd.server_address[1]}/"
    headline = '.calc[data-calculator="attack"] .calc-headline'
    try:
        # A profile with a disk cache, as a reader's browser has (see test_offline.py).
        context = browser.browser_type.launch_persistent_context(
            tmp_path / "profile",
            **launch_options(browser.browser_type),
            viewport={"width": 375, "height": 812},
        )
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(origin + "calculators/attack/")
        wait_live(page, "attack")
        expect(page.locator("#offline-status")).to_contain_text(
            "Calculators available offline", timeout=120_000
        )
        expect(page.locator(headline)).not_to_contain_text(MARKER)
        # Deploy the second build in place of the first.
        shutil.rmtree(served)
        shutil.copytree(second, served)
        page.reload()
        prompt = page.get_by_role("status").filter(has_text="A new version is available")
        expect(prompt).to_be_visible(timeout=60_000)
        prompt.get_by_role("button", name="Reload").click()
        page.wait_for_load_state("load")
        wait_live(page, "attack")
        expect(page.locator(headline)).to_contain_text(MARKER, timeout=60_000)
        # Offline, once its Python is stored, the new page still answers from the new core.
        expect(page.locator("#offline-status")).to_contain_text(
            "Calculators available offline", timeout=120_000
        )
        context.set_offline(True)
        page.reload()
        wait_live(page, "attack")
        expect(page.locator(headline)).to_contain_text(MARKER)
        page.fill("#attack-bonus", "9")
        wait_live(page, "attack")
        expect(page.locator(headline)).to_contain_text(MARKER)
        context.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


@SITE
def test_the_finishing_command_on_raw_output_gives_the_built_site(
    site: Path, tmp_path: Path
) -> None:
    """Another generator's build is its raw HTML, then `python -m hooks.package`: run on
    MkDocs' output without the post-build hook, the command must give the very site the
    hook gives (policies, page assets, search indexes, service worker)."""
    env = {**os.environ, **BUILD_ENV}
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "hooks/mkdocs_hooks.py" in config
    raw = tmp_path / "raw"
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", "-"]
    subprocess.run(
        [*command, "--site-dir", str(raw)],
        input=config.replace("hooks/mkdocs_hooks.py", "tests/raw_site_hooks.py"),
        text=True,
        cwd=ROOT,
        check=True,
        env=env,
    )
    assert not (raw / "sw.js").exists()  # the post-build steps did not run
    subprocess.run([sys.executable, "-m", "hooks.package", str(raw)], cwd=ROOT, check=True, env=env)
    built, finished = files_of(site), files_of(raw)  # the run's site: the hook's build
    assert finished.keys() == built.keys()
    assert [name for name in built if built[name] != finished[name]] == []


@SITE
def test_the_finishing_command_refuses_a_folder_without_a_site(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hooks.package", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == f"error: {tmp_path} holds no built site (no index.html)"
