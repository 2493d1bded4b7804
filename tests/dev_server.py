"""The dev server as `make serve` starts it, in a copy of a project, on a free port of
127.0.0.1: tests/test_live_reload.py drives it, and benchmarks/bench_serve.py times it (on
this tree and on an earlier commit's).

The command is read from the project's own Makefile (its `serve` recipe, the address
replaced), so what is tested and timed is what a contributor runs.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml
from conftest import BUILD_ENV

HERE = Path(__file__).resolve().parent.parent  # this repository: its node_modules and build/
STARTUP_SECONDS = 300  # a first full build (and maybe the Pyodide bundle) on a busy machine
BUILT = "Building documentation"
RELOADED = "Reloading browsers"
# How a build ends: done, or failed (said by hooks/mkdocs_hooks.py, or by MkDocs before it).
ENDED = ("Documentation built in", "the site did not build", "An error happened during the rebuild")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def project_copy(source: Path, target: Path) -> Path:
    """A project without its installed parts: node_modules is linked from this repository,
    build/ (the Pyodide bundle, which the dev server refreshes there) copied, and the
    rules data compiled (`make data`)."""
    shutil.copytree(
        source,
        target,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "site",
            "dist",
            "build",
            "test-artifacts",
            "__pycache__",
            "*_cache",
            "node_modules",
        ),
    )
    (target / "node_modules").symlink_to(HERE / "node_modules")
    shutil.copytree(HERE / "build", target / "build")
    subprocess.run(
        [sys.executable, "-m", "hooks.content.rules_data", "rules_core/data/systems.json"],
        cwd=target,
        check=True,
        timeout=300,
    )
    return target


# Edits a contributor makes that the build accepts (every sentence and table row of content/
# stands in its source text, hooks/content/source_text.py): a note on a page, an erratum
# note on a table.


def with_note(page: str, note: str) -> str:
    """A page's text with a note of ours at its end."""
    return f'{page.rstrip()}\n\n!!! note "Note"\n    {note}\n'


def noted_table(tables: Path, read: set[str] = frozenset()) -> Path:
    """The first table file of a folder with neither a check nor errata, one not `read`
    (by a rules.yml: its rows go into the calculators too) if there is one."""
    return next(
        path
        for path in sorted(tables.glob("*.yml"), key=lambda path: (path.stem in read, path.stem))
        if not re.search(r"(?m)^(check|errata):", path.read_text(encoding="utf-8"))
    )


def with_erratum(table: str, note: str) -> str:
    """A table's text with an erratum note on its first row's second cell."""
    data = yaml.safe_load(table)
    row, column = data["rows"][0][0], data["columns"][1]
    return (
        f"{table.rstrip()}\nerrata:\n  - row: {json.dumps(row)}\n"
        f"    column: {json.dumps(column)}\n    note: {json.dumps(note)}\n"
    )


def serve_command(project: Path, port: int) -> list[str]:
    """The `serve` recipe of the project's Makefile, run with this interpreter's MkDocs and
    the given port."""
    makefile = (project / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^serve:.*\n\t(.*)$", makefile, re.M)
    assert recipe, "the Makefile has no serve recipe"
    words = shlex.split(recipe.group(1))
    assert words[0].endswith("/mkdocs") and words[1] == "serve", words
    address = words.index("--dev-addr") + 1
    words[address] = f"127.0.0.1:{port}"
    return [sys.executable, "-m", "mkdocs", *words[1:]]


def get(url: str, timeout: float = 60) -> tuple[int, str]:
    """(status, body) of a GET, an error status included."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


class DevServer:
    """`make serve`'s server on a project folder, started and waited for; stopped (its whole
    process group) on exit. `log()` is what it printed."""

    def __init__(self, project: Path, log: Path, port: int | None = None) -> None:
        self.project, self.log_path = project, log
        self.port = port or free_port()
        self.origin = f"http://127.0.0.1:{self.port}/"
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> DevServer:
        env = {key: value for key, value in os.environ.items() if key != "SITE_URL"}
        # PYTHONFAULTHANDLER: a server stuck in a build prints where, when settle() gives up.
        env.update(BUILD_ENV, PYTHONFAULTHANDLER="1")
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                serve_command(self.project, self.port),
                cwd=self.project,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
        try:
            self._wait_until_up()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            assert self.process is not None and self.process.poll() is None, self.log()
            try:
                with urllib.request.urlopen(self.origin, timeout=5):
                    return
            except urllib.error.HTTPError:
                return  # it answers (with a content error, say)
            except OSError:
                pass
            assert time.monotonic() < deadline, "the dev server did not start in time"
            time.sleep(0.5)

    def __exit__(self, *exc: object) -> None:
        if self.process is None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=20)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def count(self, said: str) -> int:
        return self.log().count(said)

    def building(self) -> bool:
        """Whether a build has started and not ended (passed or failed)."""
        log = self.log()
        ended = sum(log.count(end) for end in ENDED)
        # The hooks of commits before 042a507 (timed by bench_serve --against) let MkDocs say
        # a build's end once per duration: a rebuild that ends is also followed by a reload
        # of the browsers, or by MkDocs' error. The first build ended before the server
        # answered (__enter__).
        rebuilt = log.count(RELOADED) + log.count(ENDED[2])
        return log.count(BUILT) > max(ended, 1 + rebuilt)

    def settle(self, quiet: float = 3.0, limit: float = 300.0) -> None:
        """Wait until no build runs and the server has printed nothing for `quiet` seconds:
        a build a save started, and any build that one started, are over."""
        deadline = time.monotonic() + limit
        size = -1
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            now = self.log_path.stat().st_size
            if now != size or self.building():
                size, quiet_since = now, time.monotonic()
            elif time.monotonic() - quiet_since >= quiet:
                return
            time.sleep(0.1)
        if self.building() and self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGABRT)  # the threads' stacks, into the log
            time.sleep(2)
        raise AssertionError(f"the dev server kept building:\n{self.log()[-6000:]}")
