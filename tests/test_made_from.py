"""A target the Makefile makes through hooks/package/made_from.py is made again when the
bytes of its inputs change, not their dates: a branch switch that rewrites files as they
were does not make the Pyodide bundle and its snapshot again (a minute)."""

from __future__ import annotations

import os
import re
import sys
from itertools import takewhile
from pathlib import Path

from hooks.package.made_from import main, record_of
from hooks.package.pyodide_bundle import CORE_SOURCES, _core_sources, is_stale

ROOT = Path(__file__).resolve().parent.parent


def _make(target: Path, log: Path) -> list[str]:
    """A command that writes the target and counts its runs in `log`."""
    script = (
        "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text('made');"
        "log = pathlib.Path(sys.argv[2]); log.write_text(log.read_text() + 'run\\n')"
    )
    return [sys.executable, "-c", script, str(target), str(log)]


def test_a_target_is_made_again_only_when_its_inputs_bytes_change(tmp_path: Path) -> None:
    inputs = [tmp_path / "a.py", tmp_path / "b.json"]
    for path in inputs:
        path.write_text(f"{path.name}\n", encoding="utf-8")
    target, log = tmp_path / "out" / "bundle.snapshot", tmp_path / "runs.log"
    target.parent.mkdir()
    log.write_text("", encoding="utf-8")
    run = [str(target), *map(str, inputs), "--", *_make(target, log)]
    assert main(run) == 0 and log.read_text().count("run") == 1  # made
    assert record_of(target).is_file()
    # A checkout rewrites an input with the same bytes and a later date: kept, and touched
    # so that Make's dates agree.
    later = target.stat().st_mtime + 10
    inputs[0].write_text("a.py\n", encoding="utf-8")
    os.utime(inputs[0], (later, later))
    assert main(run) == 0 and log.read_text().count("run") == 1
    assert target.stat().st_mtime >= inputs[0].stat().st_mtime - 10
    # Its bytes change: made again.
    inputs[0].write_text("a.py, changed\n", encoding="utf-8")
    assert main(run) == 0 and log.read_text().count("run") == 2
    # An input gone (a module deleted on the other branch) is a change too.
    inputs[1].unlink()
    assert main(run) == 0 and log.read_text().count("run") == 3


def test_a_failed_command_records_nothing(tmp_path: Path) -> None:
    source, target = tmp_path / "a.py", tmp_path / "bundle.snapshot"
    source.write_text("a\n", encoding="utf-8")
    failing = [sys.executable, "-c", "raise SystemExit(3)"]
    assert main([str(target), str(source), "--", *failing]) == 3
    assert not record_of(target).exists()


def test_the_makefile_makes_the_bundle_through_it_from_every_prerequisite() -> None:
    """The bundle's rule hands its target and all its prerequisites ($@ $^) over, and the
    installed packages' marker holds the requirements' bytes (a dependency upgrade is a
    change of the bundle's inputs)."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("$(PYODIDE_BUNDLE)/"))
    while lines[start].endswith("\\"):  # the prerequisites go on
        start += 1
    recipe = [line.strip() for line in lines[start + 1 :] if line.startswith("\t")][:1]
    assert lines[start + 1].startswith("\t") and not lines[start + 2].startswith("\t")
    assert re.fullmatch(
        r"@\$\(PY\) -m hooks\.package\.made_from \$@ \$\^ -- "
        r"\$\(PY\) -m hooks\.package\.pyodide_bundle \$\(PYODIDE_BUNDLE\)",
        recipe[0],
    ), recipe
    installed = lines.index("$(VENV)/.installed: requirements.txt")
    steps = list(takewhile(lambda line: line.startswith("\t"), lines[installed + 1 :]))
    assert steps[-1].startswith("\tcp requirements.txt $@"), steps


def test_the_dev_server_refreshes_the_wheel_when_the_cores_bytes_change_not_dates(
    tmp_path: Path,
) -> None:
    """The dev server asks before each build whether the rules core changed since the
    bundle's wheel was made (pyodide_bundle.is_stale): by the bytes of its Python, its data
    and pyproject.toml. A refresh drops the snapshot, which the next `make serve` then made
    again for a minute, after a checkout that had only rewritten the files."""
    project, bundle = tmp_path / "project", tmp_path / "project" / "build" / "pyodide"
    (project / "rules_core" / "data").mkdir(parents=True)
    (project / "rules_core" / "core.py").write_text("ANSWER = 1\n", encoding="utf-8")
    (project / "rules_core" / "data" / "systems.json").write_text("{}\n", encoding="utf-8")
    (project / "pyproject.toml").write_text("[project]\n", encoding="utf-8")
    bundle.mkdir(parents=True)
    assert is_stale(bundle, project)  # never made
    (bundle / CORE_SOURCES).write_text(_core_sources(project) + "\n", encoding="utf-8")
    assert not is_stale(bundle, project)
    core = project / "rules_core" / "core.py"
    core.write_text("ANSWER = 1\n", encoding="utf-8")
    os.utime(core, (core.stat().st_mtime + 60,) * 2)
    assert not is_stale(bundle, project)
    (project / "rules_core" / "data" / "systems.json").write_text('{"a": 1}\n', "utf-8")
    assert is_stale(bundle, project)
