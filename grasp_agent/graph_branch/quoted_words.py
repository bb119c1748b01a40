"""Words a question quotes as a keyword of the asked nodes' names: 'diseases named "spastic"', 'What "Usher"
conditions ...', 'films with "Star" in the title'.

A quoted passage is a description or a keyword, never a name the linker should match (the span finder leaves
quoted text to the described-entity finder). What the described-entity finder does not take, a passage of at
most MAX_WORDS words that no mention covers, is a keyword: the plan asks it of the targets' names
(`name_contains`), and the targets whose name holds it rank first. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from grasp_agent.graph_branch.quotes import quoted_ranges

MAX_WORDS = 3  # a longer quoted passage is a description, not a keyword
MAX_KEYWORDS = 4  # what a plan's name_contains holds


def quoted_keywords(question: str, mentions: Sequence[str]) -> tuple[str, ...]:
    """The quoted passages (`quotes.quoted_ranges`, which the span finder never links) of 1 to MAX_WORDS words
    inside which no mention's text occurs, in question order."""
    lowered = question.lower()
    found = []
    for start, end in quoted_ranges(question):
        text = question[start + 1 : end].strip()
        if not text or len(text.split()) > MAX_WORDS or not any(ch.isalnum() for ch in text):
            continue
        covered = any((at := lowered.find(mention.lower(), start)) >= 0 and at < end for mention in mentions)
        if not covered:
            found.append(text)
    return tuple(dict.fromkeys(found))[:MAX_KEYWORDS]


__all__ = ["MAX_WORDS", "quoted_keywords"]
