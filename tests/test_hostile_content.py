"""Hostile content builds inert: payloads that get past the source checks (parser
differentials such as `<!-->` and `--!>`, entities decoded into titles) in every kind of
content string, titles included, come out of the build as text or not at all.

One copy of the repository gets every payload at once, in the first system of
content/systems.yml and the first Compare concept; the built site must hold no script,
handler, meta refresh, frame or off-site resource that the site did not write, and in
Chromium no payload runs and no page leaves the site.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html import escape, unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from conftest import SITE, built_once, serve
from playwright.sync_api import Browser

from hooks.postprocess.sanitize import clean

ROOT = Path(__file__).resolve().parent.parent
MARK = "pwned"
# Each would run code, redirect or load from another host if it reached a page as markup.
BODY_PAYLOADS = [
    f"<!--><script>window.{MARK}=1</script>-->",
    f'<!--><img src="https://example.org/x.png" onerror="window.{MARK}=2">-->',
    '<!--><meta http-equiv="refresh" content="0;url=https://example.org/">-->',
    f"<![CDATA[><script>window.{MARK}=3</script>]]>",
]
TITLE_PAYLOAD = f"Combat &lt;script&gt;window.{MARK}=4&lt;/script&gt;"
YAML_PAYLOAD = f"<!--><script>window.{MARK}=5</script><!-- -->"


def first_system() -> str:
    return yaml.safe_load((ROOT / "content" / "systems.yml").read_text("utf-8"))["systems"][0]


def poison(content: Path) -> dict[str, str]:
    """Put every payload into the copy; return {what: the site path of a page showing it}."""
    slug = first_system()
    system_yml = content / slug / "system.yml"
    data = system_yml.read_text("utf-8")
    data = re.sub(r"(?m)^title: .*$", f"title: {json.dumps(YAML_PAYLOAD)}", data)
    data = re.sub(r"(?m)^short_title: .*$", f"short_title: {json.dumps(YAML_PAYLOAD)}", data)
    data = re.sub(
        r"(?ms)^summary: .*?(?=^\w)", f"summary: {json.dumps(YAML_PAYLOAD)}\n", data, count=1
    )
    system_yml.write_text(data, "utf-8")
    # A glossary definition (shown on the Terms page and in tooltips) and a table's title.
    glossary = content / slug / "glossary.yml"
    if glossary.exists():
        text = glossary.read_text("utf-8")
        text = re.sub(
            r"(?m)^(\s*)definition: .*$",
            lambda match: f"{match.group(1)}definition: {json.dumps(YAML_PAYLOAD)}",
            text,
            count=1,
        )
        glossary.write_text(text, "utf-8")
    for table in sorted((content / slug / "tables").glob("*.yml"))[:1]:
        text = table.read_text("utf-8")
        text = re.sub(r"(?m)^title: .*$", f"title: {json.dumps(YAML_PAYLOAD)}", text, count=1)
        table.write_text(text, "utf-8")
    page_name = yaml.safe_load(data)["pages"][0]
    page = content / slug / "pages" / f"{page_name}.md"
    lines = page.read_text("utf-8").split("\n")
    heading = next(index for index, line in enumerate(lines) if line.startswith("# "))
    lines[heading] = f"# {TITLE_PAYLOAD}"
    lines += ["", *BODY_PAYLOADS, ""]
    page.write_text("\n".join(lines), "utf-8")
    # The source text a pull request can change too: it prints the title and the caption,
    # so the check of what the content prints against it lets them through.
    source = content / slug / str(yaml.safe_load(data)["source"]["file"])
    printed = [escape(unescape(TITLE_PAYLOAD)), escape(YAML_PAYLOAD)]
    source.write_text(source.read_text("utf-8") + "\n" + "\n\n".join(printed) + "\n", "utf-8")
    compare = content / "compare.yml"
    concepts = compare.read_text("utf-8")
    concept_slug = yaml.safe_load(concepts)["concepts"][0]["slug"]
    concepts = re.sub(
        r"(?m)^(\s*)title: .*$",
        lambda match: f"{match.group(1)}title: {json.dumps(YAML_PAYLOAD)}",
        concepts,
        count=1,
    )
    compare.write_text(concepts, "utf-8")
    return {
        "page": f"{slug}/{page_name}/",
        "landing": f"{slug}/",
        "terms": f"{slug}/terms/",
        "gm-screen": f"{slug}/gm-screen/",
        "compare": f"compare/{concept_slug}/",
    }


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The poisoned copy's site and its poisoned pages: built once for the run, whichever
    workers run this file's tests. They only read it."""
    folder = built_once(tmp_path_factory, "hostile", _hostile_built)
    return folder / "clone" / "built", json.loads((folder / "pages.json").read_text("utf-8"))


def _hostile_built(folder: Path) -> None:
    clone = folder / "clone"
    shutil.copytree(
        ROOT,
        clone,
        ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", "site", "dist", "test-*"),
    )
    (clone / "node_modules").symlink_to(ROOT / "node_modules")  # the search indexer
    pages = poison(clone / "content")
    subprocess.run(
        [sys.executable, "-m", "hooks.content.rules_data", "rules_core/data/systems.json"],
        cwd=clone,
        check=True,
    )
    site = clone / "built"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", site],
        cwd=clone,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    (folder / "pages.json").write_text(json.dumps(pages), "utf-8")


class Markup(HTMLParser):
    """What a page holds that could act: script texts, handlers, refreshes, resources."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.findings: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.in_script = tag == "script"
        if any(name.startswith("on") for name in attributes):
            self.findings.append(f"<{tag}> with a handler")
        if tag == "meta" and (attributes.get("http-equiv") or "").lower() == "refresh":
            self.findings.append("meta refresh")
        if tag in ("iframe", "object", "embed"):
            self.findings.append(f"<{tag}>")
        # A base that moves every relative address; the embed pages' own, which only opens
        # their links outside the frame (target), moves none.
        if tag == "base" and "href" in attributes:
            self.findings.append("<base href>")
        for name in ("src", "srcset", "poster", "data"):
            value = attributes.get(name) or ""
            if re.match(r"\s*(https?:)?//", value):
                self.findings.append(f"<{tag} {name}={value}>")

    def handle_data(self, data):
        if self.in_script and MARK in data:
            self.findings.append(f"script {data!r}")

    def handle_endtag(self, tag):
        self.in_script = False


@SITE
def test_every_payload_builds_inert(hostile_site) -> None:
    site, pages = hostile_site
    for path in sorted(site.rglob("*.html")):
        markup = Markup()
        markup.feed(path.read_text("utf-8"))
        assert markup.findings == [], path.relative_to(site)
    # The payloads are still there, as text the reader can see and report.
    page = (site / pages["page"] / "index.html").read_text("utf-8")
    assert "Combat &lt;script&gt;" in page


def test_no_payload_runs_in_chromium(hostile_site, browser: Browser) -> None:
    site, pages = hostile_site
    httpd = serve(site)
    origin = f"http://127.0.0.1:{httpd.server_address[1]}/"
    context = browser.new_context()
    try:
        page = context.new_page()
        left: list[str] = []
        page.on("request", lambda r: r.url.startswith(origin) or left.append(r.url))
        for path in pages.values():
            page.goto(origin + path)
            page.wait_for_timeout(500)
            assert page.evaluate(f"window.{MARK}") is None, path
            assert page.url.startswith(origin + path), path
        assert left == []
    finally:
        context.close()
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(
    "html",
    [
        "<p>x</p><!--><script>alert(1)</script>-->",
        "<p>x</p><!-- a --!><script>alert(1)</script>",
        "<title><script>alert(1)</script></title>",
        '<textarea></textarea><img src=x onerror="alert(1)">',
        '<a href="javascript:alert(1)">x</a><a href="java&#x09;script:alert(1)">y</a>',
        '<svg><script>alert(1)</script></svg><math><mi xlink:href="javascript:1">x</mi></math>',
        '<meta http-equiv="refresh" content="0;url=https://example.org"><base href="//x">',
        '<form action="https://example.org"><input type="image" src="https://x/y"></form>',
        '<p style="position:fixed">x</p><img src="https://example.org/x.png">',
    ],
)
def test_the_sanitizer_leaves_nothing_that_acts(html: str) -> None:
    cleaned = clean(html)
    markup = Markup()
    markup.feed(cleaned)
    assert "<script" not in cleaned and "javascript:" not in cleaned
    assert "style=" not in cleaned and "action=" not in cleaned and "<base" not in cleaned
    assert markup.findings == []
    assert clean(cleaned) == cleaned
