"""Text from a knowledge base or a question, made safe to show: no control characters, no bidi overrides.

A node name may hold terminal escape sequences (OSC 52 writes the clipboard, ESC[8m hides the text after it),
C1 controls (U+009B is a one-character CSI to many terminals), or the bidi overrides and isolates that make a
line read differently from what it holds. Loaders strip them from text fields, and the CLI strips them from
what it prints, so a hostile SKB or question cannot act on the user's terminal. Pure.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls; the bidi embeddings, overrides and isolates
# (U+202A-U+202E, U+2066-U+2069, the "Trojan Source" set). Ordinary bidi marks (U+200E, U+200F) stay:
# right-to-left names need them and they cannot reorder what follows.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# The same set in a JSON document: json.dumps escapes C0 itself, but not DEL, C1 or bidi characters.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` without control characters (tab and newline kept) and bidi overrides."""
    return _UNSAFE.sub("", text)


def safe_json(document: str) -> str:
    """A JSON text whose strings show no DEL, C1 or bidi control raw: each is written as its \\u escape, so the
    document still parses to the same values."""
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", document)


__all__ = ["printable", "safe_json"]
