"""The dev server's change detection (hooks.pages.rebuild) and the page it shows while the
content has an error (hooks.pages.problem): plain functions, no server."""

from __future__ import annotations

from pathlib import Path

from hooks.content.yaml_lines import ContentError
from hooks.pages.calculators import WIDGET
from hooks.pages.problem import build_problem, content_problem, problem_page
from hooks.pages.rebuild import Made, fingerprint, page_made_of, plan
from hooks.pages.sentences import Quote

PAGES = {"a/one.md": "# One", "a/two.md": "# Two", "index.md": "# Home"}


def made(shared: str = "nav", **changed: str) -> Made:
    pages = {**PAGES, **{path.replace("__", "/") + ".md": text for path, text in changed.items()}}
    return Made(fingerprint(shared), {path: page_made_of(text) for path, text in pages.items()})


def test_a_first_build_renders_every_page() -> None:
    first = plan(None, made())
    assert first.everything and first.pages == set(PAGES)


def test_a_page_whose_making_changed_is_rendered_alone() -> None:
    again = plan(made(), made(a__two="# Two\n\nA sentence."))
    assert not again.everything
    assert again.pages == {"a/two.md"}
    assert "1 of 3 pages changed: a/two.md" in again.why


def test_nothing_changed_renders_nothing() -> None:
    assert plan(made(), made()).pages == frozenset()


def test_what_every_page_shows_changing_renders_them_all() -> None:
    again = plan(made("nav"), made("nav with another title"))
    assert again.everything and again.pages == set(PAGES)


def test_a_page_added_or_removed_renders_them_all() -> None:
    assert plan(made(), made(a__three="# Three")).everything
    fewer = Made(made().shared, {path: made().pages[path] for path in ("a/one.md", "index.md")})
    assert plan(made(), fewer).everything


def test_a_page_is_made_of_its_markdown_its_marked_sentences_and_its_bundle() -> None:
    text = "# Attack\n\nProse."
    assert page_made_of(text) == page_made_of(text)
    assert page_made_of(text) != page_made_of(text + " More.")
    quote = Quote("cover", "A target with cover is harder to hit.")
    assert page_made_of(text, [quote]) != page_made_of(text)
    # Only a page holding a calculator names the Python bundle: a new bundle leaves the
    # others as they were.
    assert page_made_of(text, bundle="aaa") == page_made_of(text, bundle="bbb")
    widget = f'{text}\n\n{WIDGET} data-calculator="attack">'
    assert page_made_of(widget, bundle="aaa") != page_made_of(widget, bundle="bbb")


def test_the_problem_page_names_the_file_line_and_message_with_the_lines_around(
    tmp_path: Path,
) -> None:
    rules = tmp_path / "content" / "orcus" / "rules.yml"
    rules.parent.mkdir(parents=True)
    lines = [f"line {number}: <script>alert({number})</script>" for number in range(1, 21)]
    rules.write_text("\n".join(lines), encoding="utf-8")
    error = ContentError(
        rules, 10, "'x' names '<b>y</b>', which is no situation: did you mean 'z'?"
    )
    problem = content_problem(error, tmp_path)
    assert problem.where == "content/orcus/rules.yml:10"
    assert [number for number, _ in problem.excerpt] == list(range(7, 14))
    page = problem_page(problem)
    assert "<code>content/orcus/rules.yml:10</code>" in page
    assert "did you mean &#x27;z&#x27;?" in page
    # Content is untrusted: nothing of it becomes markup.
    assert "<script>alert" not in page and "<b>y</b>" not in page
    assert '<span class="line here"><b>  10</b> line 10: &lt;script&gt;' in page
    assert page.count('class="line') == 7
    assert "<script" not in page  # the dev server adds its own reload script


def test_the_problem_page_of_a_file_without_a_line_or_of_another_failure(tmp_path: Path) -> None:
    problem = content_problem(
        ContentError(tmp_path / "content" / "systems.yml", None, "m"), tmp_path
    )
    assert problem.where == "content/systems.yml" and problem.excerpt == ()
    failed = build_problem(RuntimeError("Aborted with 1 warnings"), ["Doc file 'x.md' links to y"])
    assert failed.title == "Build error" and failed.file is None
    page = problem_page(failed)
    assert "Doc file &#x27;x.md&#x27; links to y\nAborted with 1 warnings" in page
