"""Load and validate `content/`: systems, pages, tables and glossaries.

Everything here is plain Python (no MkDocs), so it can be unit-tested and reused by
the rules-data compiler. Any problem raises ContentError naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import lru_cache
from pathlib import Path
from typing import Any

from markdown.extensions.toc import slugify
from markdown_it import MarkdownIt
from markdown_it.token import Token

from hooks.content.markup_safety import check_markdown
from hooks.content.source_text import check_source
from hooks.content.tables import TABLE_PLACEHOLDER, Table, load_checked_yaml, load_table
from hooks.content.yaml_lines import (
    ContentError,
    LineList,
    check_keys,
    check_slug,
    did_you_mean,
    line_of,
    load_yaml,
    one_of,
    read_content_text,
    require_mapping,
    required_text,
    suggest,
    text_list,
)

GLOSSARY_KINDS = (
    "term",
    "condition",
    "action",
    "damage-type",
    "keyword",
    "skill",
    "ability",
    "rule",
)
HEADING_ID = re.compile(r"\s*\{\s*#([A-Za-z0-9_-]+)\s*\}\s*$")
GENERATED_PAGES = ("index", "terms", "source", "gm-screen")

_markdown = MarkdownIt("commonmark")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str
    line: int


# Read-only, and the same object while its text is the same (parse_page): compared by identity.
@dataclass(frozen=True, eq=False)
class Page:
    system: str
    name: str
    path: Path
    text: str
    title: str
    headings: list[Heading]
    tokens: list[Token]  # the page parsed once; every later pass reads these

    @property
    def anchors(self) -> set[str]:
        return {heading.anchor for heading in self.headings}


@dataclass(frozen=True)
class GlossaryEntry:
    term: str
    kind: str
    plural: str | None
    aliases: tuple[str, ...]
    definition: str
    see_page: str
    see_anchor: str | None
    line: int
    see_line: int = 0  # the line of its `see:`, where a target that points nowhere is fixed

    @property
    def see(self) -> str:
        """Where the text defines the term, as written: 'page#anchor' or 'page'."""
        return self.see_page + (f"#{self.see_anchor}" if self.see_anchor else "")

    @property
    def forms(self) -> tuple[str, ...]:
        forms = [self.term, *self.aliases]
        if self.plural:
            forms.append(self.plural)
        return tuple(forms)


@dataclass
class System:
    slug: str
    folder: Path
    title: str
    short_title: str
    dice: str
    summary: str
    source: dict[str, str]
    notes: list[str]
    pages: dict[str, Page]
    tables: dict[str, Table]
    glossary: list[GlossaryEntry]
    rules: dict[str, Any] | None = field(default=None)


# --------------------------------------------------------------------------- pages


def heading_anchor(inline_source: str) -> tuple[str, str]:
    """Return (visible text, anchor) for a heading's inline Markdown source."""
    explicit = HEADING_ID.search(inline_source)
    source = inline_source[: explicit.start()] if explicit else inline_source
    tokens = _markdown.parseInline(source)
    text = "".join(
        child.content
        for token in tokens
        for child in token.children or []
        if child.type in ("text", "code_inline")
    ).strip()
    anchor = explicit.group(1) if explicit else slugify(text, "-")
    return text, anchor


# Under the dev server, a build parses only the pages whose text changed since the last:
# a page is the same object while its text is the same (read-only once parsed).
@lru_cache(maxsize=1024)
def parse_page(system: str, name: str, path: Path, text: str) -> Page:
    check_markdown(text, path)
    tokens = _markdown.parse(text)
    headings: list[Heading] = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        level = int(token.tag[1])
        line = token.map[0] + 1 if token.map else 0
        heading_text, anchor = heading_anchor(tokens[index + 1].content)
        if not anchor:
            raise ContentError(path, line, "a heading needs text (or an explicit {#id})")
        headings.append(Heading(level, heading_text, anchor, line))
    if not headings or headings[0].level != 1:
        raise ContentError(path, 1, "a page must start with one '# Title' heading")
    previous = 1
    seen: dict[str, int] = {}
    for heading in headings[1:]:
        if heading.level == 1:
            raise ContentError(
                path,
                heading.line,
                "only one '# Title' heading per page: make this heading '##', "
                "or move its section to a page of its own",
            )
        if heading.level > previous + 1:
            raise ContentError(
                path,
                heading.line,
                f"heading level jumps from {previous} to {heading.level}: "
                f"use {'#' * (previous + 1)} here",
            )
        previous = heading.level
    for heading in headings:
        if heading.anchor in seen:
            raise ContentError(
                path,
                heading.line,
                f"anchor '{heading.anchor}' already used at line {seen[heading.anchor]}: "
                f"give this heading an explicit id, e.g. {{#{heading.anchor}-2}}",
            )
        seen[heading.anchor] = heading.line
    return Page(system, name, path, text, headings[0].text, headings, tokens)


def table_placeholders(page: Page) -> list[tuple[str, int]]:
    """The `[[table:name]]` paragraphs of a page, with their lines."""
    found = []
    tokens = page.tokens
    for index, token in enumerate(tokens):
        if token.type == "paragraph_open":
            inline = tokens[index + 1]
            match = TABLE_PLACEHOLDER.match(inline.content.strip())
            if match:
                found.append((match.group(1), token.map[0] + 1 if token.map else 0))
    return found


def page_links(page: Page) -> list[tuple[str, int]]:
    """Every link target written in a page, with its line."""
    links = []
    for token in page.tokens:
        if token.type != "inline" or not token.children:
            continue
        line = token.map[0] + 1 if token.map else 0
        # A paragraph spans lines (an erratum's first line joins the '!!!' line in
        # CommonMark): each line break moves the link's line on.
        for child in token.children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "link_open":
                links.append((str(child.attrs.get("href", "")), line))
    return links


# --------------------------------------------------------------------------- glossary


def _split_target(target: str) -> tuple[str, str | None]:
    page, _, anchor = target.partition("#")
    return page.removesuffix(".md"), anchor or None


def load_glossary(path: Path) -> list[GlossaryEntry]:
    data = load_checked_yaml(path)
    if not isinstance(data, LineList):
        raise ContentError(
            path,
            line_of(data),
            "the glossary must be a list of entries, each starting with a '- term: ...' line",
        )
    entries = []
    forms_seen: dict[str, int] = {}
    for item in data:
        item = require_mapping(item, path, "a glossary entry")
        check_keys(
            item, path, ("term", "kind", "definition", "see"), ("plural", "aliases"), "an entry"
        )
        kind = item["kind"]
        if kind not in GLOSSARY_KINDS:
            raise ContentError(
                path,
                item.line_of("kind"),
                f"unknown kind {kind!r}" + one_of(kind, "known", GLOSSARY_KINDS),
            )
        plural = item.get("plural")
        if plural is not None and not isinstance(plural, str):
            raise ContentError(
                path,
                item.line_of("plural"),
                "'plural' must be text or null (write null where the term has no plural)",
            )
        page, anchor = _split_target(required_text(item, "see", path))
        entry = GlossaryEntry(
            term=required_text(item, "term", path),
            kind=str(kind),
            plural=str(plural).strip() if plural else None,
            aliases=tuple(text_list(item.get("aliases"), path, "aliases")),
            definition=required_text(item, "definition", path),
            see_page=page,
            see_anchor=anchor,
            line=item.line,
            see_line=item.line_of("see"),
        )
        for form in entry.forms:
            key = form.casefold()
            if key in forms_seen:
                raise ContentError(
                    path,
                    item.line,
                    f"glossary term '{form}' is defined twice (also at line {forms_seen[key]}): "
                    "keep it in one entry only",
                )
            forms_seen[key] = item.line
        entries.append(entry)
    return entries


# --------------------------------------------------------------------------- systems


def load_system(folder: Path) -> System:
    path = folder / "system.yml"
    if not path.exists():
        raise ContentError(
            path, None, "every system folder needs a system.yml (see content/README.md)"
        )
    data = require_mapping(load_checked_yaml(path), path, "system.yml")
    check_keys(
        data,
        path,
        ("title", "short_title", "dice", "summary", "source", "pages"),
        ("notes",),
        "system.yml",
    )
    source = require_mapping(data["source"], path, "'source'")
    check_keys(
        source, path, ("file", "document", "license"), ("license_page", "original_file"), "'source'"
    )
    slug = folder.name
    page_names = text_list(data["pages"], path, "pages")
    pages: dict[str, Page] = {}
    for name, line in zip(page_names, data["pages"].item_lines, strict=True):
        check_slug(name, path, line, "the page")
        if name in GENERATED_PAGES:
            raise ContentError(path, line, f"'{name}' is a generated page; choose another name")
        if name in pages:
            raise ContentError(path, line, f"page '{name}' is listed twice: remove this line")
        page_path = folder / "pages" / f"{name}.md"
        if not page_path.exists():
            existing = [other.stem for other in (folder / "pages").glob("*.md")]
            raise ContentError(
                path,
                line,
                f"page '{name}' is listed but {page_path} does not exist: create it, or fix "
                "the name" + did_you_mean(name, existing),
            )
        pages[name] = parse_page(slug, name, page_path, read_content_text(page_path))
    for page_path in sorted((folder / "pages").glob("*.md")):
        check_slug(page_path.stem, page_path, None, "the page file")
        if page_path.stem not in pages:
            raise ContentError(
                page_path,
                None,
                f"this page is not listed under 'pages' in system.yml: add '- {page_path.stem}' "
                "there, at its place in the reading order",
            )
    tables = {}
    for table_path in sorted((folder / "tables").glob("*.yml")):
        check_slug(table_path.stem, table_path, None, "the table file")
        tables[table_path.stem] = load_table(slug, table_path)
    glossary_path = folder / "glossary.yml"
    glossary = load_glossary(glossary_path) if glossary_path.exists() else []
    rules_path = folder / "rules.yml"
    system = System(
        slug=slug,
        folder=folder,
        title=required_text(data, "title", path),
        short_title=required_text(data, "short_title", path),
        dice=required_text(data, "dice", path),
        summary=required_text(data, "summary", path),
        source={str(key): str(value) for key, value in source.items()},
        notes=text_list(data.get("notes"), path, "notes"),
        pages=pages,
        tables=tables,
        glossary=glossary,
        rules=load_checked_yaml(rules_path) if rules_path.exists() else None,
    )
    license_page = system.source.get("license_page")
    if license_page and license_page not in pages:
        raise ContentError(
            path,
            source.line_of("license_page"),
            f"no page named '{license_page}'" + one_of(license_page, "pages", pages),
        )
    _validate_references(system, glossary_path)
    check_source(system, source.line_of("file"))
    return system


def resolve_target(system: System, target: str) -> tuple[str, str | None] | None:
    """Resolve 'page#anchor' within a system; None when it points nowhere."""
    page, anchor = _split_target(target)
    if page not in system.pages:
        return None
    if anchor is not None and anchor not in system.pages[page].anchors:
        return None
    return page, anchor


ANCHOR_RULE = (
    "an anchor is its heading's text in lower case, spaces as hyphens and punctuation "
    "dropped, or the heading's explicit {#id}"
)


def nearest_targets(system: System, target: str) -> list[str]:
    """For a 'page#anchor' that points nowhere, the likeliest meant targets (at most three)."""
    page, anchor = _split_target(target)
    if anchor is None:
        return get_close_matches(page, list(system.pages), n=2)
    # The same heading on another page first, then headings with a similar anchor.
    found = [f"{name}#{anchor}" for name, other in system.pages.items() if anchor in other.anchors]
    if page in system.pages:
        anchors = sorted(system.pages[page].anchors)
        found += [f"{page}#{close}" for close in get_close_matches(anchor, anchors, n=2)]
    else:
        everywhere = [f"{name}#{a}" for name, other in system.pages.items() for a in other.anchors]
        found += get_close_matches(f"{page}#{anchor}", sorted(everywhere), n=2)
    return list(dict.fromkeys(found))[:3]


def target_hint(system: System, target: str, *, link_from: str | None = None) -> str:
    """How to fix a target that points nowhere: the nearest targets, or the anchor rule.

    With `link_from` (the page a Markdown link is written on), the suggestions are
    written as link targets: '#anchor' on the same page, 'page.md#anchor' elsewhere.
    """
    nearest = nearest_targets(system, target)
    if link_from is not None:
        nearest = [_as_link(near, link_from) for near in nearest]
    return suggest(nearest) or f": {ANCHOR_RULE}"


def _link_hint(system: System, target: str, link_from: str) -> str:
    """How to fix a link of a page that points nowhere; a generated page is no target."""
    page, anchor = _split_target(target)
    if page == "terms":
        named = (anchor or "").removeprefix("term-")
        meant = [
            _as_link(
                entry.see_page + (f"#{entry.see_anchor}" if entry.see_anchor else ""), link_from
            )
            for entry in system.glossary
            if named and named in (slugify(form, "-") for form in entry.forms)
        ]
        return (
            ": the Terms page is made from glossary.yml, and the text links to a term only "
            "through it: the build links a term's first mention in each section to where "
            'the text defines it (CONTRIBUTING.md, "Add a glossary term"); link to that '
            "section instead" + (suggest(meant) or ", or add the term to glossary.yml")
        )
    if page in GENERATED_PAGES:
        return (
            f": '{page}' is a page the build makes, not one of the text's: link to a page of "
            "the text" + one_of(page, "pages", system.pages)
        )
    return target_hint(system, target, link_from=link_from)


def _as_link(target: str, link_from: str) -> str:
    page, _, anchor = target.partition("#")
    if not anchor:
        return f"{page}.md"
    return f"#{anchor}" if page == link_from else f"{page}.md#{anchor}"


def _validate_references(system: System, glossary_path: Path) -> None:
    placed: dict[str, tuple[Path, int]] = {}
    for page in system.pages.values():
        for name, line in table_placeholders(page):
            if name not in system.tables:
                raise ContentError(
                    page.path,
                    line,
                    f"no table 'tables/{name}.yml' for [[table:{name}]]: create it, or fix the "
                    "name" + did_you_mean(name, system.tables),
                )
            if name in placed:
                where, first = placed[name]
                raise ContentError(
                    page.path,
                    line,
                    f"table '{name}' is already placed at {where}:{first}: a table is placed "
                    f"once; link to it here instead ([...]({where.stem}.md#table-{name}))",
                )
            placed[name] = (page.path, line)
        for href, line in page_links(page):
            if "://" in href or href.startswith(("mailto:", "/")):
                continue
            target = href if href.split("#")[0] else f"{page.name}{href}"
            if resolve_target(system, target) is None:
                raise ContentError(
                    page.path,
                    line,
                    f"link to a missing page or anchor: '{href}'"
                    + _link_hint(system, target, page.name),
                )
    for table in system.tables.values():
        if table.name not in placed:
            raise ContentError(
                table.path,
                1,
                f"table '{table.name}' is placed on no page: add [[table:{table.name}]]",
            )
    for entry in system.glossary:
        see = entry.see
        if resolve_target(system, see) is None:
            raise ContentError(
                glossary_path,
                entry.see_line or entry.line,
                f"'see: {see}' points to no page or heading" + target_hint(system, see),
            )


def load_content(root: Path) -> dict[str, System]:
    """Every system listed in `systems.yml`, validated, in that order."""
    path = root / "systems.yml"
    data = require_mapping(load_yaml(path), path, "systems.yml")
    check_keys(data, path, ("systems",), (), "systems.yml")
    slugs = text_list(data["systems"], path, "systems")
    if not slugs:
        raise ContentError(path, data.line_of("systems"), "list at least one system")
    folders = {folder.name for folder in root.iterdir() if folder.is_dir()}
    for folder in sorted(folders - set(slugs)):
        raise ContentError(
            path,
            data.line,
            f"the folder '{folder}' is not listed under 'systems': add '- {folder}' there, "
            "or move the folder out of content/",
        )
    systems = {}
    for slug, line in zip(slugs, data["systems"].item_lines, strict=True):
        check_slug(slug, path, line, "the system")
        if slug not in folders:
            raise ContentError(
                path,
                line,
                f"no folder content/{slug}/ for the system '{slug}': create it, or fix the "
                "slug" + did_you_mean(slug, folders),
            )
        systems[slug] = load_system(root / slug)
    # The comparison pages render their quotes (hooks/pages/compare.py); refuse markup there
    # before anything renders.
    compare_path = root / "compare.yml"
    if compare_path.exists():
        load_checked_yaml(compare_path)
    return systems
