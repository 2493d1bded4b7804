"""The tests read the rules data as the rules core does, compiled (rules_core/data/
systems.json): a session starts by compiling it again from content/, as `make data` does,
so a test never answers from a rules.yml as it was before an edit. A content error stops
the session with its file and line, as it would stop `make data`.

A plugin of tests/conftest.py; with pytest-xdist, the controller compiles before any
worker starts, and the workers read what it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from hooks.content.rules_data import compile_all, write_if_changed
from hooks.content.yaml_lines import ContentError

ROOT = Path(__file__).resolve().parent.parent
RULES_DATA = ROOT / "rules_core" / "data" / "systems.json"
_said = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: its controller did it
        return
    try:
        changed = write_if_changed(compile_all(ROOT / "content"), RULES_DATA)
    except ContentError as error:
        raise pytest.UsageError(
            f"content error: {error}\nThe tests read the rules data compiled from content/ "
            "(make data): fix the content first."
        ) from None
    config.stash[_said] = (
        f"rules data: compiled again from content/, which changed since {RULES_DATA.name} "
        "was written"
        if changed
        else "rules data: as compiled from content/"
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    return config.stash.get(_said, None)
