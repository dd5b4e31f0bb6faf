"""The optimization job: a task, the ReGraph, proposers and the verifier, run by MCGS."""
