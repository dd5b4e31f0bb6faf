"""What a running job shows: how far it is and how good its best result is."""

from __future__ import annotations

from regrapht_server.outcomes import progress_message

from regrapht_core.contracts.proposal import SearchProgress


def test_progress_says_how_far_and_how_good() -> None:
    update = SearchProgress(3, 200, "shared_memory_tiling", 2.5)
    assert progress_message(update, gpu=True) == (
        "3/200 candidates, best 2.50x, Shared-memory tiling"
    )
    early = SearchProgress(1, 200, "parallelization", None)
    assert progress_message(early, gpu=True) == "1/200 candidates, best -, Parallelization"
    assert progress_message(early, gpu=False) == (
        "1/200 candidates, not timed (no GPU), Parallelization"
    )
