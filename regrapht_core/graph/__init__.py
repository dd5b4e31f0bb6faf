"""The ReGraph: CUDA optimization techniques as nodes, transitions with verified examples.

Import from the submodules (``graph.model``, ``graph.snapshot``, ``graph.taxonomy``, ...):
this package imports nothing itself, so a light module such as the taxonomy does not pull
networkx into every process that only needs technique names (the language server's start).
"""
