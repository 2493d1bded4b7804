"""The contributor's loop: save a file under `make serve`, and how soon the changed page is
served with the edit, and how many builds (and browser reloads) one save costs.

Three kinds of edit, three saves each, in a temporary copy of the project served on a free
port by the project's own `make serve` command (tests/dev_server.py):

- a rules page: a note added to the first page of the first system;
- a rules.yml change: that system's attack.critical.from, so the attack calculator page
  (its answer for the default inputs, computed at build) shows another chance to crit;
- a table: an erratum note on a table of that system, on the page that places it (a table
  no rules.yml reads, when there is one: one that is read changes the calculators too).

(Each is an edit the build accepts: what content/ prints stands in its source text.)

Each save is timed from the write to the first response of the page holding the edit
(polled every 20 ms, as a reloading browser asks), after the server has been quiet for
3 s; then the builds and reloads it caused are counted once the server is quiet again.
Targets: save -> served under 2 s (median of 3) for each kind, and one build and one reload
per save.

With `--against COMMIT` the same is measured first on that commit (its files from
`git archive`, served by its own Makefile's command), and the ratios are printed, both
measured in this run: e.g. `--against 0c2227f`, the tree before the dirty rebuilds.
Figures taken on a busy machine compare designs; report them with the load printed.

.venv/bin/python benchmarks/bench_serve.py [--against COMMIT]
"""

from __future__ import annotations

import argparse
import io
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from dev_server import (  # noqa: E402
    BUILT,
    RELOADED,
    DevServer,
    get,
    noted_table,
    project_copy,
    with_erratum,
    with_note,
)

SAVES = 3
TARGET_SECONDS = 2.0
POLL = 0.02
LIMIT = 300.0  # a save not served within this is reported as not served


@dataclass
class Edit:
    """One kind of edit: what to write for save i, the page that shows it, and how to tell
    the page shows it (from the page as served before the save)."""

    name: str
    file: Path
    url: str
    write: Callable[[int], None]
    shows: Callable[[int, str, str], bool]  # (save, page before, page now) -> it is served


def _first_system(project: Path) -> tuple[str, Path]:
    text = (project / "content" / "systems.yml").read_text(encoding="utf-8")
    slug = re.search(r"(?m)^\s*-\s*([a-z0-9-]+)\s*$", text).group(1)
    return slug, project / "content" / slug


def edits(project: Path) -> list[Edit]:
    slug, folder = _first_system(project)
    system = (folder / "system.yml").read_text(encoding="utf-8")
    name = re.search(r"(?m)^pages:\n\s*-\s*([a-z0-9-]+)", system).group(1)
    page = folder / "pages" / f"{name}.md"
    page_text = page.read_text(encoding="utf-8")

    def add_note(i: int) -> None:
        page.write_text(with_note(page_text, f"A note added by bench_serve, save {i}."), "utf-8")

    rules = folder / "rules.yml"
    rules_text = rules.read_text(encoding="utf-8")
    critical = re.search(r"(?m)^(  critical:\n(?:    .*\n)*?    from: )(\d+)$", rules_text)

    def crit_from(i: int) -> None:
        value = int(critical[2]) - (1 if i % 2 == 0 else 0)
        rules.write_text(
            rules_text[: critical.start(2)] + str(value) + rules_text[critical.end(2) :], "utf-8"
        )

    def crit_changed(i: int, before: str, now: str) -> bool:
        shown = re.compile(r"Crit [0-9.]+%")
        return shown.search(now) is not None and shown.findall(before) != shown.findall(now)

    # A table only pages show (neither a check nor errata): one the rules.yml names changes the
    # calculators too, as a rules.yml edit does.
    read = set(re.findall(r"(?m)^\s*table: ([a-z0-9-]+)$", rules_text))
    noted = noted_table(folder / "tables", read)
    table_text = noted.read_text(encoding="utf-8")
    placed = next(
        p.stem
        for p in (folder / "pages").glob("*.md")
        if f"[[table:{noted.stem}]]" in p.read_text("utf-8")
    )

    def erratum(i: int) -> None:
        noted.write_text(with_erratum(table_text, f"Noted by bench save {i}."), "utf-8")

    return [
        Edit(
            "a rules page",
            page,
            f"{slug}/{name}/",
            add_note,
            lambda i, before, now: f"A note added by bench_serve, save {i}." in now,
        ),
        Edit("a rules.yml change", rules, "calculators/attack/", crit_from, crit_changed),
        Edit(
            "a table",
            noted,
            f"{slug}/{placed}/",
            erratum,
            lambda i, before, now: f"Noted by bench save {i}." in now,
        ),
    ]


@dataclass
class Measured:
    seconds: list[float]
    builds: list[int]
    reloads: list[int]


def measure(project: Path, log: Path) -> dict[str, Measured]:
    results = {}
    with DevServer(project, log) as server:
        for edit in edits(project):
            measured = Measured([], [], [])
            original = edit.file.read_text(encoding="utf-8")
            for i in range(SAVES):
                server.settle()
                status, before = get(server.origin + edit.url)
                assert status == 200, (status, before[:500])
                builds, reloads = server.count(BUILT), server.count(RELOADED)
                start = time.monotonic()
                edit.write(i)
                while True:
                    status, now = get(server.origin + edit.url)
                    elapsed = time.monotonic() - start
                    if status == 200 and edit.shows(i, before, now):
                        break
                    if elapsed > LIMIT:
                        elapsed = float("inf")
                        break
                    time.sleep(POLL)
                server.settle()
                measured.seconds.append(elapsed)
                measured.builds.append(server.count(BUILT) - builds)
                measured.reloads.append(server.count(RELOADED) - reloads)
            edit.file.write_text(original, encoding="utf-8")
            results[edit.name] = measured
    return results


def checkout(commit: str, target: Path) -> Path:
    """The files of a commit of this repository (git archive: no worktree is added)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def report(label: str, results: dict[str, Measured]) -> dict[str, float]:
    print(f"\n{label}")
    medians = {}
    for name, measured in results.items():
        median = statistics.median(measured.seconds)
        medians[name] = median
        seconds = ", ".join(f"{value:.2f}" for value in measured.seconds)
        verdict = "ok" if median < TARGET_SECONDS else "over"
        once = max(measured.builds) == 1 == min(measured.builds) and max(measured.reloads) == 1
        print(
            f"  {name:20} save -> served median {median:5.2f} s ({seconds}) [{verdict}, "
            f"target {TARGET_SECONDS} s]; builds per save {measured.builds}, reloads per save "
            f"{measured.reloads} [{'once' if once else 'NOT once'}]"
        )
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="a commit to measure first, for the ratios")
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as scratch:
        tmp = Path(scratch)
        before = None
        if args.against:
            source = checkout(args.against, tmp / "before-source")
            project = project_copy(source, tmp / "before")
            before = report(f"before ({args.against})", measure(project, tmp / "before.log"))
        project = project_copy(ROOT, tmp / "now")
        now = report("now (this tree)", measure(project, tmp / "now.log"))
    if before:
        print("\nratio now / before (save -> served, median):")
        for name in now:
            print(f"  {name:20} {now[name] / before[name]:.2f}x")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
