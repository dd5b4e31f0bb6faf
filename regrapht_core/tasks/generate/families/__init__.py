"""The task families, one module per group of related code shapes."""
