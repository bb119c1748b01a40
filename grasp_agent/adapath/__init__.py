"""AdaPath: Path-Bank of typed meta-paths learnt offline from training queries, and meta-path-guided search."""
