"""Reading content files safely, and YAML loading that remembers where every value came from.

Validation errors must name the file and line a contributor has to fix, so the
loader builds plain dicts, lists and strings that carry their source line.

Content comes from strangers' pull requests, so a file is read within limits before
anything is built from it: a size cap, UTF-8 only, and YAML without the features content
never needs and that make a small file expensive (anchors and aliases, whose expansion
can exhaust memory from under 1 kB; merge keys; explicit tags; deep nesting). The limits
are checked on the parser's event stream, before any value is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it (it is, in the pinned wheels): ~10x faster.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Far above the largest content file (a glossary of about 50 kB): a page or a YAML file
# this size is a mistake, and the build stays quick up to it.
MAX_FILE_BYTES = 1_000_000
# Content nests a few levels deep (rules.yml, the deepest, about 8).
MAX_YAML_DEPTH = 32
# A page, table, system or concept name: it becomes a URL and a file path.
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SLUG_RULE = "lower-case letters a-z, digits and single hyphens between them, e.g. 'combat-rules'"


class ContentError(Exception):
    """Malformed content: the message names the file and line to fix."""

    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


def did_you_mean(word: object, choices: Iterable[object]) -> str:
    """A ": did you mean 'x'?" clause naming the closest choices, or "" when none is close."""
    return suggest(get_close_matches(str(word), [str(choice) for choice in choices], n=2))


def one_of(word: object, label: str, choices: Iterable[object]) -> str:
    """ " (label: a, b, c)" listing the choices, with a did-you-mean clause when one of
    them is close to word."""
    names = [str(choice) for choice in choices]
    return f" ({label}: {', '.join(names) or 'none'})" + did_you_mean(word, names)


def suggest(options: list[str]) -> str:
    """ ": did you mean 'a' or 'b'?" for the given options, or "" when there are none."""
    if not options:
        return ""
    return ": did you mean " + " or ".join(f"'{option}'" for option in options) + "?"


class LineDict(dict[str | int, Any]):
    """A mapping that knows its own line and the line of each key."""

    line: int
    key_lines: dict[str, int]

    def line_of(self, key: str | int) -> int:
        return self.key_lines.get(str(key), self.line)


class LineList(list[Any]):
    line: int
    item_lines: list[int]


class LineStr(str):
    line: int


def _construct(node: yaml.Node, path: Path) -> Any:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result = LineDict()
        result.line = line
        result.key_lines = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise ContentError(
                    path,
                    key_node.start_mark.line + 1,
                    "merge keys (<<) are not used in content: write each key out",
                )
            key = _construct(key_node, path)
            if not isinstance(key, str | int):
                raise ContentError(
                    path,
                    key_node.start_mark.line + 1,
                    "keys must be plain text: write a word such as 'title' before the colon",
                )
            if key in result:
                raise ContentError(
                    path,
                    key_node.start_mark.line + 1,
                    f"duplicate key '{key}' (first at line {result.key_lines[str(key)]}): "
                    "keep one of the two",
                )
            result[key] = _construct(value_node, path)
            result.key_lines[str(key)] = key_node.start_mark.line + 1
        return result
    if isinstance(node, yaml.SequenceNode):
        items = LineList(_construct(item, path) for item in node.value)
        items.line = line
        items.item_lines = [item.start_mark.line + 1 for item in node.value]
        return items
    value = yaml.constructor.SafeConstructor().construct_object(node, deep=True)
    if isinstance(value, str):
        text = LineStr(value)
        text.line = line
        return text
    return value


def read_content_text(path: Path) -> str:
    """A content file's text: at most MAX_FILE_BYTES of UTF-8, else ContentError."""
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ContentError(path, None, f"cannot read the file: {error.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise ContentError(
            path,
            None,
            f"the file is {size:,} bytes, over the limit of {MAX_FILE_BYTES:,}: split it "
            "(a chapter per page, a table per file)",
        )
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise ContentError(
            path,
            line,
            f"byte 0x{data[error.start]:02x} at column {column} is not UTF-8: save the file "
            "as UTF-8 (the text's characters, not another encoding)",
        ) from None


def check_slug(name: str, path: Path, line: int | None, what: str) -> None:
    """Refuse a name that is not a slug: it becomes a URL and a file path."""
    if not SLUG.match(name):
        raise ContentError(path, line, f"{what} '{name}' is not a valid name: use {SLUG_RULE}")


def _check_events(text: str, path: Path) -> None:
    """Refuse anchors, aliases, explicit tags and deep nesting, from the event stream: an
    alias bomb is refused before anything is expanded."""
    depth = 0
    for event in yaml.parse(text, Loader=SAFE_LOADER):
        line = event.start_mark.line + 1 if event.start_mark else None
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise ContentError(
                path,
                line,
                "anchors (&name) and aliases (*name) are not used in content: write the value "
                "out where it is needed",
            )
        tag = getattr(event, "tag", None)
        implicit = getattr(event, "implicit", True)
        if tag and not (implicit is True or (isinstance(implicit, tuple) and any(implicit))):
            raise ContentError(
                path, line, f"the tag {tag} is not used in content: remove it (write plain values)"
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise ContentError(
                    path,
                    line,
                    f"nested more than {MAX_YAML_DEPTH} levels deep: content never needs this; "
                    "check the indentation",
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load_yaml(path: Path) -> Any:
    """Parse one YAML file into line-aware values; any problem becomes ContentError."""
    text = read_content_text(path)
    try:
        _check_events(text, path)
        node = yaml.compose(text, Loader=SAFE_LOADER)
        if node is None:
            raise ContentError(path, 1, "the file is empty: write its content, or delete the file")
        return _construct(node, path)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        raise ContentError(
            path,
            line,
            f"invalid YAML: {error.problem or error}: check the indentation of this line and "
            "the one before, and put text that holds ': ' or ' #', or starts with [ { * & ! "
            "or a quote, in double quotes",
        ) from None
    except yaml.YAMLError as error:
        raise ContentError(path, None, f"invalid YAML: {error}") from None


def line_of(value: Any, default: int | None = None) -> int | None:
    return getattr(value, "line", default)


# ------------------------------------------------------------------ reading checked values


def require_mapping(value: Any, path: Path, what: str) -> LineDict:
    if not isinstance(value, LineDict):
        raise ContentError(
            path, line_of(value), f"{what} must be a mapping of keys to values ('key: value' lines)"
        )
    return value


def check_keys(
    mapping: LineDict, path: Path, required: tuple[str, ...], optional: tuple[str, ...], what: str
) -> None:
    allowed = required + optional
    for key in mapping:
        if key not in allowed:
            raise ContentError(
                path,
                mapping.line_of(str(key)),
                f"unknown key '{key}' in {what}" + one_of(key, "allowed", allowed),
            )
    for key in required:
        if key not in mapping:
            raise ContentError(
                path, mapping.line, f"{what} is missing the key '{key}': add a '{key}:' line"
            )


def required_text(mapping: LineDict, key: str, path: Path, *, allow_empty: bool = False) -> str:
    value = mapping[key]
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise ContentError(
            path,
            mapping.line_of(key),
            f"'{key}' must be non-empty text: put it in double quotes if YAML reads it as "
            "something else (a number, yes/no, null, a list)",
        )
    return str(value).strip()


def text_list(value: Any, path: Path, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ContentError(
            path,
            line_of(value),
            f"'{key}' must be a list of text items: one '- item' line each, or [a, b]",
        )
    return [str(item) for item in value]
