from __future__ import annotations

from regrapht_core.graph.model import NODE_ID
from regrapht_core.graph.relabel import relabel
from regrapht_core.graph.taxonomy import (
    SEQUENTIAL,
    TECHNIQUES,
    display_name,
    technique,
)


def test_about_twenty_five_techniques_with_unique_snake_case_ids_and_names() -> None:
    ids = [t.id for t in TECHNIQUES]
    assert 24 <= len(ids) <= 30
    assert len(set(ids)) == len(ids)
    assert len({t.name for t in TECHNIQUES}) == len(ids)
    assert all(NODE_ID.fullmatch(i) for i in ids)
    assert SEQUENTIAL not in ids


def test_every_technique_has_a_one_line_description_and_synonyms() -> None:
    for t in TECHNIQUES:
        assert t.description.endswith("."), t.id
        assert "\n" not in t.description
        assert len(t.synonyms) >= 5, t.id


def test_every_synonym_name_and_id_relabels_to_its_own_technique() -> None:
    for t in TECHNIQUES:
        for name in (t.id, t.name, *t.synonyms):
            assert relabel(name) == t.id, name


def test_the_issue_starting_list_is_covered() -> None:
    wanted = {
        "parallelization",
        "grid_stride_loop",
        "memory_coalescing",
        "shared_memory_tiling",
        "register_blocking",
        "loop_unrolling",
        "vectorized_access",
        "read_only_cache",
        "warp_shuffle_reduction",
        "atomics",
        "privatization",
        "warp_divergence_elimination",
        "bank_conflict_avoidance",
        "launch_configuration",
        "kernel_fusion",
        "transfer_minimization",
        "async_streams",
        "pinned_memory",
        "fast_math",
        "constant_memory",
        "library_call",
        "tensor_cores",
        "double_buffering",
        "algorithmic_change",
    }
    assert wanted <= {t.id for t in TECHNIQUES}


def test_lookup_and_display_names() -> None:
    tiling = technique("shared_memory_tiling")
    assert tiling is not None
    assert tiling.name == "Shared-memory tiling"
    assert technique(SEQUENTIAL) is None
    assert technique("cooperative_groups") is None
    assert display_name(SEQUENTIAL) == "Sequential code"
    assert display_name("loop_unrolling") == "Loop unrolling"
    assert display_name("cooperative_groups") == "cooperative groups"
