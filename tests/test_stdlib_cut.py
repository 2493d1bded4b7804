"""The Python the site serves: the standard library cut to what the calculators import, and
the build that refuses a cut lacking a module the rules core imports (naming it, and the
line that imports it), and the defaults a calculator page's boot script compares an
address with, before the first paint."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from hooks.package.pyodide_bundle import (
    TRACE_FILE,
    BundleError,
    bundle,
    check_cut,
    core_imports,
    core_modules,
)
from hooks.pages.calculators import form_defaults, render_calculator
from rules_core.calculators import CALCULATORS

ROOT = Path(__file__).resolve().parent.parent
WHOLE = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"
ZIP = "/lib/python313.zip"


def whole_members() -> set[str]:
    with zipfile.ZipFile(WHOLE) as archive:
        return set(archive.namelist())


def file_of(module: str, members: set[str]) -> str | None:
    path = module.replace(".", "/")
    return next((f for f in (f"{path}.py", f"{path}/__init__.py") if f in members), None)


def loaded_from_files() -> tuple[list[tuple[str, str]], dict]:
    """The rules core's imports, and the trace the build cut the standard library by:
    each module Python loaded running every calculator, and from where."""
    traced = json.loads((ROOT / "build" / "pyodide" / TRACE_FILE).read_text(encoding="utf-8"))
    return core_imports(ROOT), traced


def files(traced: dict) -> set[str]:
    return {
        origin.removeprefix(f"{ZIP}/")
        for origin in traced["modules"].values()
        if origin.startswith(ZIP)
    }


def test_the_rules_core_s_imports_are_read_where_they_are() -> None:
    imports = core_imports(ROOT)
    assert imports, "the rules core imports nothing from the standard library?"
    for module, where in imports:
        assert not module.startswith("rules_core"), module
        path, line = where.rsplit(":", 1)
        source = (ROOT / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        assert module.split(".")[0] in source, (module, where, source)
    # The command line is not the site's: its imports (argparse) are not the cut's concern.
    assert not [where for _, where in imports if where.startswith("rules_core/cli.py")]
    assert "rules_core.cli" not in core_modules(ROOT)


def test_a_cut_that_lacks_a_module_the_core_imports_is_refused_naming_it() -> None:
    imports, traced = loaded_from_files()
    kept = files(traced)
    check_cut(imports, traced, kept, whole_members())  # the cut as traced passes
    module, where = next((m, w) for m, w in imports if traced["modules"].get(m, "").startswith(ZIP))
    missing = traced["modules"][module].removeprefix(f"{ZIP}/")
    with pytest.raises(BundleError) as refused:
        check_cut(imports, traced, kept - {missing}, whole_members())
    assert f"{where} imports {module}, which the cut of the standard library lacks" in str(
        refused.value
    )


def test_an_import_no_calculator_reached_is_refused_with_its_fix(tmp_path: Path) -> None:
    """An import inside a function that no run of the calculators reached: its module was
    never loaded, so it is not in the cut, and the build says what to do."""
    imports, traced = loaded_from_files()
    kept = files(traced)
    module, where = next((m, w) for m, w in imports if traced["modules"].get(m, "").startswith(ZIP))
    unreached = {**traced, "modules": {m: o for m, o in traced["modules"].items() if m != module}}
    with pytest.raises(BundleError, match="Import it at the top of its module") as refused:
        check_cut(
            imports, unreached, kept - {traced["modules"][module][len(ZIP) + 1 :]}, whole_members()
        )
    assert f"{where} imports {module}" in str(refused.value)


def test_imports_inside_functions_count_and_type_checking_ones_do_not(tmp_path: Path) -> None:
    package = tmp_path / "rules_core"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "cli.py").write_text("import argparse\n", encoding="utf-8")
    (package / "late.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import decimal\n\n\n"
        "def late():\n    from statistics import mean\n\n    return mean\n",
        encoding="utf-8",
    )
    assert core_imports(tmp_path) == [
        ("typing", "rules_core/late.py:1"),
        ("typing.TYPE_CHECKING", "rules_core/late.py:1"),
        ("statistics", "rules_core/late.py:8"),
        ("statistics.mean", "rules_core/late.py:8"),
    ]


@pytest.mark.site
def test_the_build_refuses_a_rules_core_whose_import_the_cut_lacks(tmp_path: Path) -> None:
    """The whole bundle step, on a copy of the project whose core imports, in a function
    no calculator calls, a module of the standard library that the cut leaves out."""
    _, traced = loaded_from_files()
    left_out = sorted(
        name.removesuffix(".py")
        for name in whole_members()
        if name.endswith(".py")
        and "/" not in name
        and not name.startswith("_")
        and name.removesuffix(".py") not in traced["modules"]
    )[0]
    project = tmp_path / "project"
    shutil.copytree(ROOT / "rules_core", project / "rules_core")
    shutil.copy(ROOT / "pyproject.toml", project)
    shutil.copy(ROOT / "README.md", project)
    shutil.copy(ROOT / "LICENSE", project)  # the wheel carries it (its dist-info)
    module = project / "rules_core" / "numbers.py"
    lines = module.read_text(encoding="utf-8").splitlines()
    lines += [
        "",
        "",
        "def _never_called():",
        f"    import {left_out}",
        "",
        f"    return {left_out}",
    ]
    module.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(BundleError) as refused:
        bundle(tmp_path / "bundle", project=project)
    line = len(lines) - 2
    assert f"rules_core/numbers.py:{line} imports {left_out}, which the cut" in str(refused.value)
    assert not (tmp_path / "bundle").exists()  # nothing half built is left


@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_the_defaults_the_boot_script_reads_are_the_inputs_the_build_answers(name: str) -> None:
    """An address whose every value is one of these is answered by the build-time result
    (rules_core.web.handle fills every field with its initial value)."""
    html = render_calculator(name, "../../")
    defaults = form_defaults(html)
    assert defaults
    for field in CALCULATORS[name].fields:
        if field.name in defaults:
            assert defaults[field.name] == field.initial, field.name
        else:  # not a control of the form (the dice roller's Roll is a button)
            assert f'name="{field.name}"' not in html, field.name
    assert json.loads(json.dumps(defaults)) == defaults
