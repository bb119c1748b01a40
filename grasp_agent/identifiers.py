"""The one rule for names that become Cypher identifiers (labels, relation types, property and SKB names).

Cypher cannot take identifiers as parameters, so they are checked against this alphabet before they are
backtick-quoted. `fullmatch`, not `match` with `$`: Python's `$` also matches before a trailing newline.
The Java plugin checks the same way (grasp.cypher.CypherIdentifier; it also admits a leading `_`,
which Python never produces).
"""

from __future__ import annotations

import re

IDENTIFIER_PATTERN = r"[A-Za-z][A-Za-z0-9_]{0,63}"
ANCHORED_IDENTIFIER_PATTERN = f"^{IDENTIFIER_PATTERN}$"  # for pydantic (Rust regex: `$` is the end of the text)
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)


def is_identifier(name: object) -> bool:
    return isinstance(name, str) and _IDENTIFIER.fullmatch(name) is not None
