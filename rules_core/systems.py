"""The systems' rules data, compiled from content/ at build time, and the shared result types."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable


class RulesError(ValueError):
    """Input the rules cannot answer; the message is one sentence for the user. `field`
    names the input it is about, where one is (shown next to it on a page)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotDefined(RulesError):
    """The selected system's text has no rule for this calculator.

    `citations` point at what the text does say on the matter, where it says anything.
    """

    def __init__(self, message: str, citations: list[Citation] | None = None) -> None:
        super().__init__(message)
        self.citations = citations or []


@dataclass(frozen=True)
class Citation:
    """The sentence of a rule text an answer rests on, and where it is on the site."""

    page: str
    section: str
    url: str  # to the quoted sentence, relative to the site root: "orcus/combat/#said-..."
    quote: str  # the sentence the answer rests on, word for word

    @classmethod
    def of(cls, entry: Mapping[str, str]) -> Citation:
        """A `cite` entry of the compiled rules data."""
        return cls(entry["page"], entry["section"], entry["url"], entry["quote"])

    def to_json(self) -> dict[str, str]:
        return {"page": self.page, "section": self.section, "url": self.url, "quote": self.quote}

    def __str__(self) -> str:
        return f"{self.page} › {self.section}" if self.section != self.page else self.page


class Cited(Protocol):
    """A typed rule (rules_core.rules) with its sentences and its labelled reading."""

    @property
    def cite(self) -> Sequence[Citation]: ...

    @property
    def interpretation(self) -> str | None: ...


@dataclass
class Sources:
    """What a result relied on: cited sections and labelled interpretations."""

    citations: list[Citation] = field(default_factory=list)
    interpretations: list[str] = field(default_factory=list)

    def cite(self, citations: Iterable[Citation] | None) -> None:
        """Cite each of a typed rule's citations, once."""
        for citation in citations or []:
            if citation not in self.citations:
                self.citations.append(citation)

    def interpret(self, text: str | None) -> None:
        if text and text not in self.interpretations:
            self.interpretations.append(text)

    def rest_on(self, entry: Cited) -> None:
        """A typed rule the answer applied: its sections cited, its interpretation said."""
        self.cite(entry.cite)
        self.interpret(entry.interpretation)

    def include(self, other: Sources) -> None:
        """What another result relied on (a damage roll inside an attack), once each."""
        for citation in other.citations:
            if citation not in self.citations:
                self.citations.append(citation)
        for note in other.interpretations:
            self.interpret(note)

    def without(self, notes: Iterable[str]) -> Sources:
        """The same, but for those interpretations (said elsewhere in the answer)."""
        left_out = set(notes)
        kept = [note for note in self.interpretations if note not in left_out]
        return Sources(list(self.citations), kept)

    def to_json(self) -> dict[str, Any]:
        return {
            "citations": [citation.to_json() for citation in self.citations],
            "interpretations": list(self.interpretations),
        }


_ABSENT = object()


class RulesView(Mapping[str, Any]):
    """A section of a system's compiled rules, read by the keys of the rules.yml schema
    (`keys`, compiled beside the data): asking for a key the schema does not have is a
    KeyError naming it, never a silent default, so a misspelt key in the core fails in the
    tests instead of reading as "not given". Read-only. A section's own sections are
    viewed when first read, so a first answer pays only for the parts it reads."""

    __slots__ = ("_data", "_keys", "_read", "_readings", "_where")

    def __init__(self, data: Mapping[str, Any], keys: Any, where: str = "rules") -> None:
        self._readings: dict[Callable[..., Any], Any] = {}
        self._keys = keys if isinstance(keys, dict) else None
        self._where = where
        self._data = data
        self._read: dict[str, Any] = {}  # key -> its value as viewed, once read

    def _shape(self, key: str) -> Any:
        if self._keys is None:
            return None
        return self._keys.get(key, self._keys.get("*"))

    def allows(self, key: str) -> bool:
        """Whether the schema has the key here."""
        return self._keys is None or key in self._keys or "*" in self._keys

    def _refuse(self, key: str) -> KeyError:
        return KeyError(f"{self._where}.{key} is no key of the rules.yml schema")

    def _view_of(self, key: str) -> Any:
        value = self._data.get(key, _ABSENT)
        if value is not _ABSENT:
            value = self._read[key] = _view(value, self._shape(key), f"{self._where}.{key}")
        return value

    def __getitem__(self, key: str) -> Any:
        value = self._read.get(key, _ABSENT)
        if value is _ABSENT:
            value = self._view_of(key)
        if value is _ABSENT:
            raise self._refuse(key) if not self.allows(key) else KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        # A key the data holds was checked against the schema when it was compiled: only
        # a key it lacks needs the schema's word (the hot path is one dict lookup).
        value = self._read.get(key, _ABSENT)
        if value is _ABSENT:
            value = self._view_of(key)
        if value is not _ABSENT:
            return value
        keys = self._keys
        if keys is not None and key not in keys and "*" not in keys:
            raise self._refuse(key)
        return default

    def __contains__(self, key: object) -> bool:
        if key in self._data:
            return True
        if not self.allows(str(key)):
            raise self._refuse(str(key))
        return False

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"RulesView({self._where}: {list(self._data)})"

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        """A copy to change (tests add a situation by data): plain dicts and lists."""
        return {key: _plain(value) for key, value in self._data.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, RulesView):
        return value.__deepcopy__({})
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _view(value: Any, keys: Any, where: str) -> Any:
    if isinstance(value, Mapping) and isinstance(keys, dict):
        return RulesView(value, keys, where)
    if isinstance(value, list) and isinstance(keys, dict) and "[]" in keys:
        return [_view(item, keys["[]"], f"{where}[]") for item in value]
    return value


def read_once[T](section: Mapping[str, Any], reading: Callable[[Mapping[str, Any]], T]) -> T:
    """reading(section), computed once per section of the loaded rules: a hot path (an
    attack per defense on a chart) reads its typed view instead of walking the data."""
    if not isinstance(section, RulesView):
        return reading(section)
    try:
        # The cache holds each reading's own value under that reading, a pairing of key and
        # value types that a dict's type cannot state: the cast says what was stored.
        return cast(T, section._readings[reading])
    except KeyError:
        value = section._readings[reading] = reading(section)
        return value


@dataclass(frozen=True)
class System:
    """One game system: its names, its dice and its rules as data."""

    slug: str
    title: str
    short_title: str
    dice: str
    rules: Mapping[str, Any]

    def rule(self, name: str, calculator: str) -> Mapping[str, Any]:
        """The rules for one calculator, or NotDefined naming what the text does say."""
        value: Mapping[str, Any] | None = self.rules.get(name)  # a section is a mapping
        if value is None:
            raise self.not_defined(name, calculator)
        return value

    def not_defined(self, name: str, what: str) -> NotDefined:
        # Imported here: the typed sections (rules_core.rules) are built on this module.
        from rules_core.rules.not_defined import unsaid

        said = unsaid(self, name)
        message = f"{self.title} does not define {what} in its text."
        if said is None:
            return NotDefined(message)
        return NotDefined(f"{message} {said.note}", list(said.cite))


DATA = Path(__file__).with_name("data") / "systems.json"


@runtime_checkable
class _DataLoader(Protocol):
    """A module loader that reads a file beside its modules (a folder's or a zip's)."""

    def get_data(self, path: str) -> bytes: ...


def _module_loader() -> _DataLoader:
    loader = __spec__.loader
    # Both loaders this package is imported by (from a folder, and in the browser from its
    # wheel as a zip archive) read data; a loader that cannot is no way to run the core.
    if not isinstance(loader, _DataLoader):
        raise RuntimeError(f"rules_core is imported by {loader!r}, which cannot read its data.")
    return loader


@cache
def _load() -> dict[str, Any]:
    """The compiled systems, by slug, in the order of content/systems.yml."""
    try:
        # Through the module's loader, which reads it from a folder or, in the browser,
        # from the wheel itself (imported as a zip archive, never unpacked).
        data = json.loads(_module_loader().get_data(str(DATA)).decode("utf-8"))
    except OSError:
        raise RuntimeError(
            "rules_core/data/systems.json is missing: run `make data` to compile content/"
        ) from None
    schema = data.get("schema")
    systems = {}
    for slug in data["order"]:
        entry = data["systems"][slug]
        # One view per system, kept: reading a rule read before is one dict lookup.
        rules = RulesView(entry["rules"], schema) if schema else entry["rules"]
        systems[slug] = {**entry, "rules": rules, "schema": schema}
    return systems


def forget_compiled_data() -> None:
    """Read systems.json afresh: every cached value of the rules core (the systems, the
    forms' choices) was computed from it. For a long-running process whose data was
    recompiled (the dev server after a rules.yml edit)."""
    for name, module in list(sys.modules.items()):
        if name != "rules_core" and not name.startswith("rules_core."):
            continue
        for value in list(vars(module).values()):
            owners = vars(value).values() if isinstance(value, type) else (value,)
            for owner in owners:
                function = getattr(owner, "__func__", owner)  # a cached classmethod's function
                if hasattr(function, "cache_clear"):
                    function.cache_clear()


def get_system(slug: str) -> System:
    systems = _load()
    if slug not in systems:
        known = ", ".join(systems)
        raise RulesError(f"Unknown system {slug!r} (known: {known}).")
    entry = systems[slug]
    rules = entry["rules"]
    if entry.get("schema") and isinstance(rules, Mapping) and not isinstance(rules, RulesView):
        rules = RulesView(rules, entry["schema"])  # data given by hand (the tests change some)
    return System(entry["slug"], entry["title"], entry["short_title"], entry["dice"], rules)


def system_slugs() -> tuple[str, ...]:
    """The systems' slugs, in the order of content/systems.yml (the compiled data's order)."""
    return tuple(_load())
