"""The GitHub workflow: valid by the workflow schema, the tests of `make test` in two jobs
(its tiers), the built site as an artifact of every pull request, installs cached and pinned
in the project's own files, Pages published from main only, and never a browser downloaded
by Playwright."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from _pytest.mark.expression import Expression

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
CI_RUN = ROOT / ".ci" / "run"
MAKEFILE = ROOT / "Makefile"
TIERS = ("unit", "site", "browser")  # tests/conftest.py puts each test in one of them
PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+@v\d+$")  # owner/name@vN


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the bare key `on` as the boolean true.
    return workflow.get("on", workflow.get(True))


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps", [])


def _commands(step: dict[str, Any]) -> list[str]:
    """The lines of a step's `run`, comments dropped and spaces collapsed."""
    lines = (line.split("#", 1)[0] for line in str(step.get("run", "")).splitlines())
    return [" ".join(line.split()) for line in lines if line.strip()]


def _uses(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [step for step in _steps(job) if str(step.get("uses", "")).startswith(f"{action}@")]


def test_the_workflow_schema_accepts_it() -> None:
    checker = Path(sys.executable).parent / "check-jsonschema"
    result = subprocess.run(
        [str(checker), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_it_runs_on_pull_requests_and_pushes_to_main(workflow) -> None:
    triggers = _triggers(workflow)
    assert "pull_request" in triggers
    assert triggers["push"]["branches"] == ["main"]


def _recipe(target: str) -> tuple[list[str], list[str]]:
    """A Makefile target's prerequisites and the lines of its recipe (spaces collapsed)."""
    lines = MAKEFILE.read_text(encoding="utf-8").splitlines()
    (start,) = [i for i, line in enumerate(lines) if line.startswith(f"{target}:")]
    prerequisites = lines[start].split(":", 1)[1].split()
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(" ".join(line.split()))
    return prerequisites, recipe


def _pytest_tiers(recipe: list[str]) -> set[str]:
    """The tiers a recipe's pytest runs: each tier tried against its `-m` expression."""
    (command,) = [line for line in recipe if "-m pytest" in line]
    words = shlex.split(command)
    options = words[words.index("pytest") + 1 :]
    if "-m" not in options:
        return set(TIERS)
    expression = Expression.compile(options[options.index("-m") + 1])
    return {tier for tier in TIERS if expression.evaluate(lambda name, tier=tier: name == tier)}


def test_make_test_is_its_two_tiers_and_ci_run_runs_it() -> None:
    ci_run = [" ".join(line.split()) for line in CI_RUN.read_text(encoding="utf-8").splitlines()]
    assert "make test" in ci_run  # what .ci/run runs, after installing Chromium if needed
    everything, fast, browser = (_recipe(name) for name in ("test", "test-fast", "test-browser"))
    assert _pytest_tiers(everything[1]) == set(TIERS)
    assert "lint" in everything[0] and "lint" in fast[0]
    for recipe in (everything[1], fast[1]):
        assert [line for line in recipe if re.fullmatch(r"node --test .*tests/node/", line)]
    # Every test is in exactly one tier (tests/conftest.py), so these two are `make test`.
    fast_tiers, browser_tiers = _pytest_tiers(fast[1]), _pytest_tiers(browser[1])
    assert fast_tiers | browser_tiers == set(TIERS)
    assert not fast_tiers & browser_tiers
    assert browser_tiers == {"browser"}
    # Each runs pytest on several workers at once (pytest-xdist), as README.md says.
    for _, recipe in (everything, fast, browser):
        (command,) = [shlex.split(line) for line in recipe if "-m pytest" in line]
        assert "-n" in command and "pytest-xdist" in _requirements(), command


def _requirements() -> set[str]:
    """The names of the packages requirements.txt pins, lowercase, `_` written `-`."""
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    pinned = (line.split("==")[0] for line in text.splitlines() if "==" in line)
    return {name.strip().lower().replace("_", "-") for name in pinned}


def test_each_tier_has_a_job_on_every_change(workflow) -> None:
    for target in ("make test-fast", "make test-browser"):
        running = [
            (name, job)
            for name, job in workflow["jobs"].items()
            for step in _steps(job)
            if target in _commands(step)
        ]
        assert len(running) == 1, f"exactly one job runs `{target}`"
        name, job = running[0]
        assert job["runs-on"] == "ubuntu-latest"
        assert "if" not in job, f"the {name} job must run on every pull request and push"
        assert _uses(job, "actions/checkout")
        (python,) = _uses(job, "actions/setup-python")
        assert str(python["with"]["python-version"]) == "3.13"
        (node,) = _uses(job, "actions/setup-node")
        assert str(node["with"]["node-version"]) == "20"
        installs = [
            command
            for step in _steps(job)
            for command in _commands(step)
            if "apt-get install" in command and "chromium" in command.split()
        ]
        if target == "make test-browser":
            assert installs, "Chromium comes from the distribution's packages, installed by apt"


def test_pages_are_built_and_published_from_main_only(workflow) -> None:
    deploying = [
        job for job in workflow["jobs"].values() if _uses(job, "actions/upload-pages-artifact")
    ]
    assert len(deploying) == 1
    (job,) = deploying
    condition = " ".join(str(job.get("if", "")).split())
    assert "github.event_name == 'push'" in condition
    assert "github.ref == 'refs/heads/main'" in condition
    assert any("make build" in _commands(step) for step in _steps(job))
    (upload,) = _uses(job, "actions/upload-pages-artifact")
    assert upload["with"]["path"] == "site"
    (configure,) = _uses(job, "actions/configure-pages")
    # The build takes the public address from the Pages configuration, through SITE_URL.
    (build,) = [step for step in _steps(job) if "make build" in _commands(step)]
    assert build["env"]["SITE_URL"] == f"${{{{ steps.{configure['id']}.outputs.base_url }}}}/"
    assert _uses(job, "actions/deploy-pages")
    assert job["permissions"]["pages"] == "write"
    assert job["permissions"]["id-token"] == "write"
    assert job["environment"]["name"] == "github-pages"
    needs = job.get("needs", [])
    needs = [needs] if isinstance(needs, str) else needs
    others = {name for name, other in workflow["jobs"].items() if other is not job}
    assert others <= set(needs), "publish only what passed the tests"


def test_no_step_downloads_a_browser_with_playwright(workflow) -> None:
    for name, job in workflow["jobs"].items():
        for step in _steps(job):
            for command in _commands(step):
                assert not re.search(r"\bplaywright\b.*\binstall\b", command, re.I), (name, command)


def test_actions_are_pinned_by_major_version(workflow) -> None:
    for job in workflow["jobs"].values():
        for step in _steps(job):
            if "uses" in step:
                assert PINNED.match(step["uses"]), step["uses"]


def test_nothing_outside_the_repository_is_needed() -> None:
    """A clone is enough: no step, guide or test reaches beside the repository."""
    for path in (WORKFLOW, ROOT / "README.md", ROOT / "CONTRIBUTING.md", CI_RUN):
        text = path.read_text(encoding="utf-8")
        assert "../shared" not in text and "SEEDS_" not in text, path
    outside = re.compile(r"ROOT\.parent\b|\.\./shared|parent / \"shared\"")
    for path in (ROOT / "tests").glob("*.py"):
        if path.name != Path(__file__).name:
            assert not outside.search(path.read_text(encoding="utf-8")), path


def test_every_pull_request_gets_the_built_site_to_download(workflow) -> None:
    building = [
        (name, job)
        for name, job in workflow["jobs"].items()
        if any("make build" in _commands(step) for step in _steps(job)) and "if" not in job
    ]
    assert len(building) == 1, "one job builds the site on every pull request"
    name, job = building[0]
    (upload,) = _uses(job, "actions/upload-artifact")
    assert upload["with"]["name"] == "site"
    assert upload["with"]["path"].rstrip("/") == "site"
    assert upload["with"]["if-no-files-found"] == "error"
    # CONTRIBUTING.md tells a contributor where to find it.
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert f"- `{name}`: `make build`, and the built site as the artifact `site`" in guide


def test_installs_are_cached_keyed_on_the_pinned_files(workflow) -> None:
    for name, job in workflow["jobs"].items():
        for python in _uses(job, "actions/setup-python"):
            assert python["with"]["cache"] == "pip", name
            assert python["with"]["cache-dependency-path"] == "requirements.txt", name
        for node in _uses(job, "actions/setup-node"):
            assert node["with"]["cache"] == "npm", name
            assert node["with"]["cache-dependency-path"] == "package-lock.json", name


INSTALLERS = re.compile(r"\b(pip3?|npm|npx|yarn|curl|wget|gem|cargo|go)\b|apt-get install")


def test_every_install_is_the_makefiles_from_pinned_files(workflow) -> None:
    """A clean clone is all CI needs: the workflow installs nothing itself but Debian's
    Chromium, and the Makefile installs from pinned files only."""
    for name, job in workflow["jobs"].items():
        for step in _steps(job):
            for command in _commands(step):
                if INSTALLERS.search(command):
                    assert "apt-get install" in command and "chromium" in command.split(), (
                        name,
                        command,
                    )
    requirements = [
        line.split("#", 1)[0].strip()
        for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    ]
    assert all(
        re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][^\s;]*", line) for line in requirements if line
    )
    makefile = MAKEFILE.read_text(encoding="utf-8").splitlines()
    recipes = [line.strip() for line in makefile if line.startswith("\t")]
    installs = [
        line for line in recipes if re.search(r"\bpip install\b|\bnpm (install|ci)\b", line)
    ]
    assert installs
    for line in installs:
        assert (
            "--requirement requirements.txt" in line
            or re.search(r"pip==[0-9.]+$", line)
            or line.startswith("npm install")
        ), line
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["lockfileVersion"] >= 2 and lock["packages"]
