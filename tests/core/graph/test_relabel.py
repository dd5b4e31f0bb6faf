from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from regrapht_core.errors import UnknownTechniqueError
from regrapht_core.graph.relabel import FUZZY_THRESHOLD, normalize, relabel
from regrapht_core.graph.taxonomy import TECHNIQUES


def test_normalize_drops_case_punctuation_and_filler_words() -> None:
    assert normalize("Use  Shared-Memory to tile!") == "shared memory tile"
    assert normalize("__shfl_down_sync") == "shfl down sync"
    assert normalize("Apply the optimization") == ""


@pytest.mark.parametrize(
    ("method", "node"),
    [
        ("shared memory", "shared_memory_tiling"),
        ("smem tiling", "shared_memory_tiling"),
        ("tiling with shared memory", "shared_memory_tiling"),
        ("use shared memory to tile", "shared_memory_tiling"),
        ("Use SMEM tiling.", "shared_memory_tiling"),
        ("Parallelize the outer loop with CUDA threads", "parallelization"),
        ("map iterations to threads", "parallelization"),
        ("__restrict__", "read_only_cache"),
        ("cuBLAS", "library_call"),
        ("use float4 loads", "vectorized_access"),
        ("Occupancy optimization", "launch_configuration"),
    ],
)
def test_exact_synonyms_after_normalisation(method: str, node: str) -> None:
    assert relabel(method) == node


@pytest.mark.parametrize(
    ("method", "node"),
    [
        ("shared mem tiling", "shared_memory_tiling"),
        ("memory coalesing", "memory_coalescing"),
        ("unrolled loops", "loop_unrolling"),
        ("warp level reductions", "warp_shuffle_reduction"),
        ("fused kernels", "kernel_fusion"),
    ],
)
def test_fuzzy_matches_inflections_and_typos(method: str, node: str) -> None:
    assert relabel(method) == node


def test_look_alike_of_another_technique_is_not_merged() -> None:
    with pytest.raises(UnknownTechniqueError) as caught:
        relabel("loop fission")
    assert caught.value.suggestion == "kernel_fusion"
    assert FUZZY_THRESHOLD > 87.0


def test_unknown_name_raises_with_the_closest_suggestion_and_the_fix() -> None:
    with pytest.raises(UnknownTechniqueError) as caught:
        relabel("cooperative groups")
    assert caught.value.method == "cooperative groups"
    assert caught.value.suggestion is not None
    assert "--allow-new" in str(caught.value)
    assert repr(caught.value.suggestion) in str(caught.value)


def test_allow_new_makes_a_deterministic_slug_node() -> None:
    assert relabel("Cooperative Groups!", allow_new=True) == "cooperative_groups"
    assert relabel("use cooperative-groups", allow_new=True) == "cooperative_groups"
    assert relabel("smem tiling", allow_new=True) == "shared_memory_tiling"


@pytest.mark.parametrize("method", ["", "  ", "?!", "use the"])
def test_names_without_words_are_rejected_even_when_new_nodes_are_allowed(method: str) -> None:
    with pytest.raises(UnknownTechniqueError) as caught:
        relabel(method, allow_new=True)
    assert caught.value.suggestion is None


def test_the_initial_node_cannot_be_created_by_a_method_name() -> None:
    with pytest.raises(UnknownTechniqueError):
        relabel("Sequential", allow_new=True)


def test_answers_do_not_depend_on_the_cache() -> None:
    first = relabel("shared mem tiling")
    relabel.cache_clear()
    assert relabel("shared mem tiling") == first


synonyms = st.sampled_from([(s, t.id) for t in TECHNIQUES for s in t.synonyms])


@given(synonyms, st.sampled_from(["use ", "Apply the ", "using ", ""]), st.booleans())
def test_case_and_filler_words_never_change_the_node(
    pair: tuple[str, str], prefix: str, upper: bool
) -> None:
    synonym, node = pair
    text = prefix + synonym
    assert relabel(text.upper() if upper else text) == node
