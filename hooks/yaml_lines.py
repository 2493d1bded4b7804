"""YAML loading that remembers where every value came from.

Validation errors must name the file and line a contributor has to fix, so the
loader builds plain dicts, lists and strings that carry their source line.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it (it is, in the pinned wheels): ~10x faster.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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


class LineDict(dict):
    """A mapping that knows its own line and the line of each key."""

    line: int
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list):
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


def load_yaml(path: Path) -> Any:
    """Parse one YAML file into line-aware values; syntax errors become ContentError."""
    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
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
    if node is None:
        raise ContentError(path, 1, "the file is empty: write its content, or delete the file")
    return _construct(node, path)


def line_of(value: Any, default: int | None = None) -> int | None:
    return getattr(value, "line", default)
