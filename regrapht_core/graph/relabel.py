"""Map a free-form method name onto a taxonomy node, deterministically.

Relabelling decides which examples end up on the same edge, so it must give the same answer
for the same name on every machine and in every merge order. It is therefore stateless: a
name is compared with the taxonomy only, never with nodes added earlier by ``allow_new``
(that would make the graph depend on the order trajectories are merged in). Two new names
that mean the same thing are reconciled by adding a synonym to the taxonomy.

Steps: normalise (lower case, punctuation to spaces, filler words dropped); exact match
against the normalised ids, display names and synonyms; otherwise the best
``token_sort_ratio`` match if it scores at least ``FUZZY_THRESHOLD``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from rapidfuzz import fuzz, process

from regrapht_core.errors import UnknownTechniqueError
from regrapht_core.graph.taxonomy import SEQUENTIAL, TECHNIQUES

__all__ = ["FUZZY_THRESHOLD", "normalize", "relabel"]

_log = logging.getLogger(__name__)

FUZZY_THRESHOLD = 88.0
"""Lowest ``token_sort_ratio`` (0-100) accepted as the same technique.

88 accepts inflections and typos ("shared mem tiling" 92, "unrolled loops" 92, "memory
coalesing" 97) and rejects look-alikes of a different technique ("loop fission" scores 87
against "loop fusion"): a wrong merge silently pollutes an edge, while an unknown name fails
loudly and is fixed by adding one synonym.
"""

_STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "apply",
        "applied",
        "applying",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "the",
        "to",
        "use",
        "used",
        "using",
        "via",
        "with",
        "optimization",
        "optimisation",
        "optimize",
        "optimise",
        "technique",
    }
)
_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalize(text: str) -> str:
    """Lower-case words of ``text`` without punctuation or filler words, space-separated."""
    words = _NON_WORD.split(text.lower())
    return " ".join(w for w in words if w and w not in _STOP_WORDS)


def _build_index() -> Mapping[str, str]:
    index: dict[str, str] = {}
    for tech in TECHNIQUES:
        for name in (tech.id.replace("_", " "), tech.name, *tech.synonyms):
            key = normalize(name)
            owner = index.setdefault(key, tech.id)
            if owner != tech.id:
                raise AssertionError(f"taxonomy synonym {name!r} names {owner} and {tech.id}")
    return MappingProxyType(index)


_INDEX = _build_index()
_KEYS = tuple(sorted(_INDEX))


def _closest(key: str) -> tuple[str, float]:
    """Best-scoring technique; ties go to the alphabetically first synonym, so runs agree."""
    scored = process.extract(key, _KEYS, scorer=fuzz.token_sort_ratio, limit=None)
    synonym, score, _ = min(scored, key=lambda hit: (-hit[1], hit[0]))
    return _INDEX[synonym], score


@lru_cache(maxsize=4096)
def relabel(method: str, *, allow_new: bool = False) -> str:
    """The node id for ``method``.

    Unknown names raise ``UnknownTechniqueError`` naming the closest technique, unless
    ``allow_new``: then the normalised name as a snake_case slug is the node.
    """
    key = normalize(method)
    if not key:
        raise UnknownTechniqueError(method)
    exact = _INDEX.get(key)
    if exact is not None:
        return exact
    node, score = _closest(key)
    if score >= FUZZY_THRESHOLD:
        _log.debug("relabel %r -> %s (fuzzy %.1f)", method, node, score)
        return node
    slug = key.replace(" ", "_")
    if not allow_new or slug == SEQUENTIAL:
        raise UnknownTechniqueError(method, node)
    _log.info("relabel %r -> new technique %s (closest %s, %.1f)", method, slug, node, score)
    return slug
