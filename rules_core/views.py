"""The compiled rules data as the rules core reads it: each section a read-only view that
refuses a key its schema does not have, and a typed reading of a section made once."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

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
