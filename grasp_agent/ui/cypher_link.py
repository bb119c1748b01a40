"""The compiled Cypher of a plan, made runnable by hand: a Neo4j Browser link that opens it in the editor, and
its parameters as `:param` lines (a Browser URL cannot carry parameters)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def browser_link(browser_url: str, query: str) -> str:
    """Neo4j Browser with `query` in its editor (`?cmd=edit&arg=`); it runs when the user presses run."""
    return f"{browser_url}?cmd=edit&arg={quote(query, safe='')}"


def cypher_literal(value: Any) -> str:
    """`value` written as a Cypher literal: strings double-quoted and escaped, maps with backticked odd keys.

    Raises:
        ValueError: for a value Cypher cannot write literally (NaN, infinity, or an unsupported type).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"parameter value {value!r} has no Cypher literal; allowed: finite numbers")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON string escapes are Cypher string escapes
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(str(k))}: {cypher_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cypher_literal(item) for item in value) + "]"
    raise ValueError(
        f"parameter value of type {type(value).__name__} has no Cypher literal; "
        "allowed: null, bool, int, float, str, list, map"
    )


def _key(name: str) -> str:
    return name if _PLAIN_KEY.match(name) else "`" + name.replace("`", "``") + "`"


def param_block(params: Mapping[str, Any]) -> str:
    """One `:param name => literal` line per parameter, to paste into Neo4j Browser before the query."""
    return "\n".join(f":param {_key(name)} => {cypher_literal(value)}" for name, value in params.items())
