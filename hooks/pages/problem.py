"""The page the dev server answers with while the site cannot build: the error, where to
fix it, and the lines around it.

Under `make serve` a save that breaks the content must not leave the browser waiting for
a build that never comes, nor the old page as if nothing were wrong: every page answers
with this one once the build that found it is over (the dev server adds its reload script,
so the page comes back by itself once a save fixes the error). Content is untrusted: every
text here is escaped. Its answers are no warnings of a build (RequestLines): a page asked
for while a fix builds must not fail that build.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path

from hooks.content.yaml_lines import ContentError

AROUND = 3  # lines shown before and after the line to fix


@dataclass(frozen=True)
class Problem:
    """Why the site did not build: a title, the file and line to fix (when known), the
    message as the build prints it (it holds the fix), and the lines around it."""

    title: str
    message: str
    file: str | None = None  # relative to the project
    line: int | None = None
    excerpt: tuple[tuple[int, str], ...] = ()  # (line number, text)

    @property
    def where(self) -> str:
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path


def content_problem(error: ContentError, root: Path) -> Problem:
    """A content error, with the lines of its file around its line."""
    excerpt: tuple[tuple[int, str], ...] = ()
    if error.line:
        try:
            lines = Path(error.path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        first = max(1, error.line - AROUND)
        last = min(len(lines), error.line + AROUND)
        excerpt = tuple((number, lines[number - 1]) for number in range(first, last + 1))
    return Problem("Content error", error.message, _relative(error.path, root), error.line, excerpt)


def build_problem(error: BaseException, warnings: list[str]) -> Problem:
    """Any other failed build: its message, and the warnings that failed a strict build."""
    said = "\n".join([*warnings, str(error)]) if warnings else str(error)
    return Problem("Build error", said or type(error).__name__)


class RequestLines(logging.Filter):
    """The dev server's line for each request that is not answered 200, which MkDocs logs
    as a warning: a warning fails a strict build, and one logged while a build runs was
    counted against that build (a fix saved while a page was being asked for failed with
    "Aborted with 1 warnings in strict mode!", and every page then showed that). A request
    is no part of a build: a 404 is said as information, and the error page's own 500,
    whose error the terminal has said once, not at all."""

    ANSWERED = re.compile(r'" code (\d+)$')

    def filter(self, record: logging.LogRecord) -> bool:
        answered = self.ANSWERED.search(record.getMessage())
        if answered and record.levelno >= logging.WARNING:
            if answered[1] == "500":
                return False
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def problem_page(problem: Problem) -> str:
    """A page of its own (no theme, no script: the dev server adds its reload script)."""
    where = ""
    if problem.file:
        where = f'<p class="where"><code>{escape(problem.where)}</code></p>'
    excerpt = ""
    if problem.excerpt:
        rows = "".join(
            f'<span class="line{" here" if number == problem.line else ""}">'
            f"<b>{number:>4}</b> {escape(text)}\n</span>"
            for number, text in problem.excerpt
        )
        excerpt = f"<pre>{rows}</pre>"
    fix = (
        f"Fix <code>{escape(problem.file)}</code> and save it"
        if problem.file
        else "Fix it and save"
    )
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(problem.title)}: {escape(problem.where or "the site did not build")}</title>
<style>
body {{ font: 1rem/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 50rem; padding: 1rem; }}
h1 {{ color: #b00020; font-size: 1.5rem; }}
.message {{ font-size: 1.1rem; white-space: pre-wrap; overflow-wrap: anywhere; }}
pre {{ background: #f5f5f5; overflow-x: auto; padding: 0.5rem 0; }}
.line {{ display: block; padding: 0 0.5rem; }}
.here {{ background: #fde7e9; }}
b {{ color: #666; font-weight: normal; }}
</style>
</head>
<body>
<main>
<h1>{escape(problem.title)}</h1>
{where}
<p class="message">{escape(problem.message)}</p>
{excerpt}
<p>{fix}: this page comes back by itself once the site builds again.
<code>make build</code> stops at the same error.</p>
</main>
</body>
</html>
"""
