"""The stages of `grasp train all`, in the order they run (apart from the stages themselves, so the CLI can name
them without importing what they need)."""

from __future__ import annotations

STAGES = ("field weights", "answer types", "asked type", "fusion", "extraction demos", "path bank")
