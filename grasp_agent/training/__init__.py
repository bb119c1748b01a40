"""Fitting what GRASP learns from a question set: field weights (train split), fusion tables (valid split)."""
