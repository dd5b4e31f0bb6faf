"""BM25 over code tokens: the one similarity the graph's retrieval and the search's prior use."""

from __future__ import annotations

from regrapht_core.similarity import BM25Index, bm25_scores, tokenize

MATMUL = "void matmul(const float* A, const float* B, float* C, int n) { C[i*n+j] += A[i*n+k]; }"
SAXPY = "void saxpy(int n, float a, const float* x, float* y) { y[i] = a * x[i] + y[i]; }"
HISTO = "void histogram(const int* data, int* bins, int n) { bins[data[i]]++; }"


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


def test_an_index_scores_every_query_as_a_fresh_scoring_would() -> None:
    docs = [tokenize(MATMUL), tokenize(SAXPY), tokenize(HISTO)]
    index = BM25Index(docs)
    for query in (SAXPY, HISTO, "float n"):
        assert index.scores(tokenize(query)) == bm25_scores(tokenize(query), docs)
