"""Where a question quotes: one reading of its quotation marks for every part that needs it.

The span finder never links a name inside quotes, the planner reads a quoted word as a keyword of the targets'
names, and the described-entity finder takes a quoted passage whole as one description. They used to pair marks
two ways (a regex that needed a non-empty passage, so `"" or "x"` paired ` or `; and consecutive marks); now
consecutive marks of any kind pair, an opening mark with the next one, so a stray mark at the end opens nothing.
Pure.
"""

from __future__ import annotations

QUOTE_MARKS = ('"', "\u201c", "\u201d", "\u00ab", "\u00bb")


def quoted_ranges(question: str) -> list[tuple[int, int]]:
    """(opening mark, closing mark) positions of each quoted passage: the passage is question[open + 1 : close]."""
    marks = [i for i, ch in enumerate(question) if ch in QUOTE_MARKS]
    return [(marks[i], marks[i + 1]) for i in range(0, len(marks) - 1, 2)]


def quoted_spans(question: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted passage, its quotation marks included."""
    return [(start, end + 1) for start, end in quoted_ranges(question)]


__all__ = ["QUOTE_MARKS", "quoted_ranges", "quoted_spans"]
