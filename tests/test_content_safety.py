"""Content cannot carry code: each construct that could run in the reader's browser, in
each kind of content file, stops the load (and so `make data` and the build) at its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hooks.content.loader import load_content
from hooks.content.yaml_lines import ContentError
from tests.test_hooks_content import COMBAT_MD, GLOSSARY_YML, SOURCE_TXT, TABLE_YML, make_system

# (payload, a word the message must hold to say what is wrong)
PAYLOADS = [
    ("<script>alert(1)</script>", "<script>"),
    ("text <ScRiPt >alert(1)</script>", "<script>"),
    ('<img src="x.png" onerror="alert(1)">', "onerror="),
    ("<b ONMOUSEOVER=alert(1)>x</b>", "onmouseover="),
    ("[x](javascript:alert(1))", "javascript:"),
    ("[x](JaVaScRiPt&#58;alert(1))", "javascript:"),
    ("<javascript:alert(1)>", "javascript:"),
    ("![map](https://example.org/map.png)", "another host"),
    ('<img src="//example.org/map.png" alt="map">', "another host"),
    ("[x](java\tscript:alert(1))", "javascript:"),
    ("![x](data:image/svg+xml;base64,PHN2Zz4=)", "data:"),
    ('<a href="vbscript:msgbox(1)">x</a>', "vbscript:"),
    ('<a href=" &#106;ava&#x09;script:alert(1)">x</a>', "javascript:"),
    ('<img src="data:text/html,x">', "data:"),
    ('<iframe src="combat.html"></iframe>', "<iframe>"),
    ('<object data="x.swf"></object>', "<object>"),
    ('<embed src="x.swf">', "<embed>"),
    ("<style>body{display:none}</style>", "<style>"),
    ('<b style="position:fixed;inset:0">x</b>', "style="),
    ("Cover {: onclick=alert(1) }", "onclick="),
]

SYSTEMS_YML = "systems:\n  - test\n"


def compare_yml(quote: str) -> str:
    return (
        "concepts:\n"
        "  - slug: cover\n"
        "    title: Cover\n"
        "    summary: Cover.\n"
        "    systems:\n"
        "      test:\n"
        "        - see: combat#cover\n"
        f"          quote: {json.dumps(quote)}\n"
    )


def glossary_with(text: str) -> str:
    return GLOSSARY_YML + (
        f"- term: Attack\n  kind: term\n  definition: {json.dumps(text)}\n  see: combat#attacks\n"
    )


# kind -> (file relative to content/, its text holding the payload, the payload's line)
def placements(payload: str) -> dict[str, tuple[str, str, int]]:
    quoted = json.dumps(payload)
    table_lines = TABLE_YML.count("\n")
    return {
        "page": ("test/pages/combat.md", f"{COMBAT_MD}\n{payload}\n", COMBAT_MD.count("\n") + 2),
        "glossary": ("test/glossary.yml", glossary_with(payload), GLOSSARY_YML.count("\n") + 3),
        "table cell": (
            "test/tables/modifiers.yml",
            f'{TABLE_YML}  - ["14-15", {quoted}]\n',
            table_lines + 1,
        ),
        "table title": (
            "test/tables/modifiers.yml",
            TABLE_YML.replace('"Table - Modifiers"', quoted),
            1,
        ),
        "table note": (
            "test/tables/modifiers.yml",
            f'{TABLE_YML}errata:\n  - row: "12-13"\n    column: Modifier\n    note: {quoted}\n',
            table_lines + 4,
        ),
        "compare quote": ("compare.yml", compare_yml(payload), 8),
    }


def content_tree(root: Path, relative: str, text: str) -> Path:
    make_system(root)
    (root / "systems.yml").write_text(SYSTEMS_YML, encoding="utf-8")
    (root / "compare.yml").write_text(compare_yml("A target with cover"), encoding="utf-8")
    (root / relative).write_text(text, encoding="utf-8")
    return root


def test_the_small_tree_loads_without_a_payload(tmp_path: Path) -> None:
    root = content_tree(tmp_path, "test/pages/combat.md", COMBAT_MD)
    assert list(load_content(root)) == ["test"]


@pytest.mark.parametrize("kind", list(placements("x")))
@pytest.mark.parametrize(("payload", "named"), PAYLOADS)
def test_markup_that_could_run_code_stops_the_load_at_its_line(
    tmp_path: Path, kind: str, payload: str, named: str
) -> None:
    relative, text, line = placements(payload)[kind]
    root = content_tree(tmp_path, relative, text)
    with pytest.raises(ContentError) as caught:
        load_content(root)
    error = caught.value
    assert Path(error.path) == root / relative
    assert error.line == line, str(error)
    assert named in error.message.lower()
    assert ": " in error.message  # the problem, then how to fix it


@pytest.mark.parametrize(
    ("harmless", "printed"),
    [
        ('<span class="table-check">Checked</span>', "Checked"),
        (
            "[Cover](combat.md#cover) and [a site](https://example.org/javascript:)",
            "Cover and a site",
        ),
        ('<abbr title="javascript: a language">JS</abbr>', "JS"),
        (
            "`<script>alert(1)</script>` written as code",
            "&lt;script&gt;alert(1)&lt;/script&gt; written as code",
        ),
        (
            "A {Cumulative XP} template and an {#id} heading attribute",
            "A {Cumulative XP} template and an {#id} heading attribute",
        ),
        ("data: a word, then javascript: another", "data: a word, then javascript: another"),
    ],
)
def test_harmless_markup_loads(tmp_path: Path, harmless: str, printed: str) -> None:
    """(The source text prints the words the markup shows: the build checks them.)"""
    root = content_tree(tmp_path, "test/pages/combat.md", f"{COMBAT_MD}\n{harmless}\n")
    (root / "test" / "test.txt").write_text(f"{SOURCE_TXT}\n{printed}\n", encoding="utf-8")
    load_content(root)


def test_a_payload_on_a_later_line_of_a_multiline_html_block_names_that_line(
    tmp_path: Path,
) -> None:
    page = f'{COMBAT_MD}\n<div markdown>\nSafe text\n\n<img src="x" onload="alert(1)">\n</div>\n'
    root = content_tree(tmp_path, "test/pages/combat.md", page)
    with pytest.raises(ContentError) as caught:
        load_content(root)
    assert caught.value.line == COMBAT_MD.count("\n") + 5


@pytest.mark.parametrize("marker", ['!!! note "Note"', '??? note "Details"', '=== "Tab"'])
def test_a_payload_in_an_indented_block_that_python_markdown_renders_is_refused(
    tmp_path: Path, marker: str
) -> None:
    page = f"{COMBAT_MD}\n{marker}\n\n    Text.\n\n    <script>alert(1)</script>\n"
    root = content_tree(tmp_path, "test/pages/combat.md", page)
    with pytest.raises(ContentError) as caught:
        load_content(root)
    assert caught.value.line == COMBAT_MD.count("\n") + 6
    assert "<script>" in caught.value.message


def test_a_broken_link_in_an_erratum_is_reported_at_its_own_line(tmp_path: Path) -> None:
    page = (
        COMBAT_MD + '\n!!! erratum "Erratum"\n    The text prints it so.\n    See [x](#nowhere).\n'
    )
    root = content_tree(tmp_path, "test/pages/combat.md", page)
    with pytest.raises(ContentError) as caught:
        load_content(root)
    assert caught.value.line == COMBAT_MD.count("\n") + 4
    assert "#nowhere" in caught.value.message
