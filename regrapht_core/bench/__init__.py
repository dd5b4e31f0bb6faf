"""The benchmark runner: a task suite times search methods, results as JSON with provenance."""
