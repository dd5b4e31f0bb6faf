"""ReGraphT language server: the LSP surface over ``regrapht_core``."""
