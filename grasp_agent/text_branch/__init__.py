"""The text branch: mFAR-style multi-field retrieval (fields, per-field BM25 and dense scorers, score
combination with uniform or learned query-conditioned field weights)."""
