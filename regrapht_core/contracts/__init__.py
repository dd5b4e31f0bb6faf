"""Ground-floor values every layer exchanges: the task, the evaluation of a candidate, and
what the search asks of proposers and returns. Nothing here imports another package of the
engine, so the search, the verifier, the rewriters and the model agree on these types
without knowing each other."""
