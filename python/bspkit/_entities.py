"""Entities: the (key, value) pairs of a map's entity lump, in file order."""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Sequence, Tuple


class Entity:
    """An entity: iterable as (key, value) pairs in file order, repeated keys kept (Source I/O
    outputs); ``e["classname"]`` is the last value of a key (the one the engines use)."""

    __slots__ = ("pairs", "_last")

    def __init__(self, pairs: Sequence[Tuple[str, str]] = ()):
        self.pairs: List[Tuple[str, str]] = [(str(k), str(v)) for k, v in pairs]
        self._last: Optional[Dict[str, str]] = None

    @classmethod
    def _from_json(cls, pairs: List[List[str]]) -> "Entity":
        e = cls.__new__(cls)
        e.pairs = list(map(tuple, pairs))  # type: ignore[arg-type]
        e._last = None
        return e

    def _map(self) -> Dict[str, str]:
        if self._last is None:
            self._last = dict(self.pairs)
        return self._last

    def __iter__(self) -> Iterator[Tuple[str, str]]:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, key: str) -> str:
        return self._map()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._map()

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        return self._map().get(key, default)

    def get_all(self, key: str) -> List[str]:
        """Every value of key, in file order."""
        return [v for k, v in self.pairs if k == key]

    def keys(self) -> List[str]:
        return list(self._map())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entity) and other.pairs == self.pairs

    def __repr__(self) -> str:
        return "<Entity %s>" % (self.get("classname") or "?")
