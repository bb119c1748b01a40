"""Fields whose values are identifiers or numbers (codes, coordinates, counts, years, URLs) are searched
lexically only: an embedding of "48.85, 2.35" or "0000-0002-1825-0097" says nothing a question's meaning can
match, and embedding them costs minutes on a large SKB. Decided from the loaded SKB's own values. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"[^\W\d_]{3,}")  # three letters in a row, any script: a word, not a code
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
SAMPLE = 2000  # values looked at per field, in corpus order (deterministic)
IDENTIFIER_SHARE = 0.9


def identifier_value(text: str) -> bool:
    """A URL, or a value with no run of three letters ("US-CA", "+33", "1999", "12.5, -3.25")."""
    text = text.strip()
    return bool(_URL.match(text)) or _WORD.search(text) is None


def identifier_field(values: Sequence[str]) -> bool:
    """Whether at least 90% of a field's non-empty values (the first SAMPLE of them) are identifiers."""
    present = [value for value in values if value and value.strip()][:SAMPLE]
    return bool(present) and sum(map(identifier_value, present)) >= IDENTIFIER_SHARE * len(present)


__all__ = ["identifier_field", "identifier_value"]
