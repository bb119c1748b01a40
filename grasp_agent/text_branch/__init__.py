"""The text branch: mFAR-style multi-field retrieval (fields, per-field BM25, score combination; dense fields
and learned query-conditioned weights come later)."""
