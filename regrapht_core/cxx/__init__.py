"""The one C/C++/CUDA analysis package: the only importer of tree-sitter in the engine.

Everything that reads source code (task extraction, the rewriters, the static gate, the
editor's eligibility and merge) goes through here, so a construct is understood one way
everywhere: one parser per language, one notion of a function's (qualified) name, one
parameter model, one counted-loop and affine-index analysis, one way to splice text.
"""
