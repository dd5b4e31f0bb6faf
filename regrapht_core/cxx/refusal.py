"""The one way an analysis says "not provable": an exception carrying the reason.

Analyses of loops, indices and dependences stop at the first construct they cannot prove
safe. The reason travels up as a :class:`Refusal` to whoever asked (a rewriter turns it
into an :class:`~regrapht_core.rewrite.protocol.Applicability`), so every refusal the user
sees names the construct that blocked it.
"""

from __future__ import annotations

__all__ = ["Refusal"]


class Refusal(Exception):
    """Raised inside an analysis to stop at the first reason the rewrite would be unsafe.

    Rewriters turn it into an ``Applicability`` or an empty candidate list; it never leaves
    the rewriting layer.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
