"""Evaluation data: questions with known answers over an SKB (models, JSONL I/O, generators)."""
