from __future__ import annotations

import pytest

from regrapht_core.datatypes import EdgeExample
from regrapht_core.errors import GraphError
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.retrieval import bm25_scores, rank_examples, tokenize
from regrapht_core.graph.taxonomy import SEQUENTIAL

MATMUL = "void matmul(const float* A, const float* B, float* C, int n) { C[i*n+j] += A[i*n+k]; }"
SAXPY = "void saxpy(int n, float a, const float* x, float* y) { y[i] = a * x[i] + y[i]; }"
HISTO = "void histogram(const int* data, int* bins, int n) { bins[data[i]]++; }"


def example(task: str, before: str) -> EdgeExample:
    return EdgeExample(task, "think", "detail", before, f"// {task} cuda", None, None)


def graph_with(*examples: EdgeExample) -> ReGraph:
    graph = ReGraph()
    for e in examples:
        graph.add_example(SEQUENTIAL, "parallelization", e)
    return graph


def test_tokens_are_identifiers_numbers_and_launch_brackets() -> None:
    assert tokenize("k<<<grid, 256>>>(x_0, 1.5f); // __syncthreads") == [
        "k", "<<<", "grid", "256", ">>>", "x_0", "1.5", "f", "__syncthreads",
    ]  # fmt: skip


def test_bm25_prefers_documents_sharing_rare_query_terms() -> None:
    docs = [tokenize(MATMUL), tokenize(SAXPY), tokenize(HISTO)]
    scores = bm25_scores(tokenize("void saxpy(float a, float* x, float* y)"), docs)
    assert scores.index(max(scores)) == 1
    assert all(score >= 0 for score in scores)
    assert bm25_scores(["x"], []) == []
    assert bm25_scores(["absent"], docs) == [0.0, 0.0, 0.0]


def test_examples_are_ranked_by_similarity_of_their_before_code() -> None:
    graph = graph_with(example("matmul", MATMUL), example("saxpy", SAXPY), example("h", HISTO))
    query = "void histogram_u8(const unsigned char* data, int* bins, int n) { bins[data[i]]++; }"
    ranked = rank_examples(graph, SEQUENTIAL, "parallelization", query)
    assert [e.task for e in ranked] == ["h", "matmul", "saxpy"]
    assert rank_examples(graph, SEQUENTIAL, "parallelization", query, limit=1) == ranked[:1]


def test_ties_are_broken_canonically_whatever_the_merge_order() -> None:
    a, b, c = example("b", SAXPY), example("a", SAXPY), example("c", SAXPY)
    first = rank_examples(graph_with(a, b, c), SEQUENTIAL, "parallelization", "unrelated")
    second = rank_examples(graph_with(c, a, b), SEQUENTIAL, "parallelization", "unrelated")
    assert [e.task for e in first] == [e.task for e in second] == ["a", "b", "c"]


def test_missing_edge_is_a_graph_error() -> None:
    with pytest.raises(GraphError, match="no transition"):
        rank_examples(ReGraph(), SEQUENTIAL, "atomics", SAXPY)
