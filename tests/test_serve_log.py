"""What `make serve` prints for each build: MkDocs says each message of its build once per
process, so a build as long as an earlier one (to the hundredth of a second) ended with no
"Documentation built in" line, and a warning said before was not said again. Under the dev
server the site's hooks say each once per build. Run in a child process: the hooks' state
and MkDocs' logging setup are the command line's, not this test session's."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

SERVE = """
import json
import logging
from mkdocs.__main__ import _enable_warnings
import hooks.mkdocs_hooks as hooks

_enable_warnings()  # what `mkdocs` does when it starts: its filter on the build's log
said = []
handler = logging.Handler()
handler.emit = lambda record: said.append(record.getMessage())
build_log = logging.getLogger("mkdocs.commands.build")
build_log.addHandler(handler)
build_log.setLevel(logging.INFO)
hooks.on_startup(command=COMMAND, dirty=True)
for build in range(2):
    hooks._once_per_build.said.clear()  # as on_config does at the start of each build
    for message in ("a warning", "a warning", "Documentation built in 1.45 seconds"):
        build_log.warning(message)
print(json.dumps(said))
"""


def _said(command: str) -> list[str]:
    script = SERVE.replace("COMMAND", repr(command))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_under_the_dev_server_every_build_says_its_messages_and_its_end() -> None:
    once = ["a warning", "Documentation built in 1.45 seconds"]
    assert _said("serve") == once + once


def test_mkdocs_filter_is_kept_for_a_build() -> None:
    """The filter this works around is MkDocs': were it gone, the first test would pass
    for the wrong reason, and `mkdocs build` keeps it."""
    assert _said("build") == ["a warning", "Documentation built in 1.45 seconds"]


REQUESTS = """
import json
import logging
from mkdocs.__main__ import _enable_warnings
from mkdocs.livereload import log as request_log
from mkdocs.utils import CountHandler
import hooks.mkdocs_hooks as hooks

_enable_warnings()
hooks.on_startup(command="serve", dirty=True)
counted = CountHandler()
counted.setLevel(logging.WARNING)
logging.getLogger("mkdocs").addHandler(counted)  # as a strict build counts its warnings
said = []
shown = logging.Handler()
shown.emit = lambda record: said.append((record.levelname, record.getMessage()))
logging.getLogger("mkdocs").addHandler(shown)
for code in (500, 404):  # what MkDocs' request handler logs for an answer other than 200
    request_log.warning(f'"GET /orcus/combat/ HTTP/1.1" code {code}')
logging.getLogger("mkdocs.commands.build").warning("a warning of the build")
print(json.dumps({"counted": counted.get_counts(), "said": said}))
"""


def test_a_request_answered_while_a_build_runs_is_no_warning_of_that_build() -> None:
    """The dev server logs each request not answered 200 as a warning, which a strict build
    running meanwhile counted: a fix saved while a page showing the error was asked for
    failed its build. The error page's 500 is not said (its error was); a 404 is said as
    information; a warning of the build still counts."""
    done = subprocess.run(
        [sys.executable, "-c", REQUESTS], cwd=ROOT, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["counted"] == [["WARNING", 1]]
    levels = {message.split('" code ')[-1]: level for level, message in result["said"]}
    assert "500" not in levels and levels["404"] == "INFO", result["said"]
    assert ["WARNING", "a warning of the build"] in result["said"]
