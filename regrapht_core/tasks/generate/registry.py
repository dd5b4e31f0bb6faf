"""Every family of the task generator, in a fixed order (the corpus's order)."""

from __future__ import annotations

from regrapht_core.tasks.generate.base import Family
from regrapht_core.tasks.generate.families import maps, reductions, stencils, structured

__all__ = ["FAMILIES"]

FAMILIES: tuple[Family, ...] = (
    *maps.FAMILIES,
    *reductions.FAMILIES,
    *stencils.FAMILIES,
    *structured.FAMILIES,
)
