"""What a node type's properties hold, decided from the loaded SKB's own values, so any SKB gets it without a
word in its schema:

- *quantities* a question can rank by ("the most populous city", "the cheapest lens"): a value is a quantity
  when it is a number or text written as one ("66,987,244"); a leading zero or plus marks a code ("01001",
  "+33"), as in the Java side's `grasp.plan.Quantities`, which reads the same values when a plan ranks by them;
- *keys* a question can name a node by instead of its name ("SSD", "US-GA", "EUR", "KEN", "Kenyan", "+254"):
  short values, words or codes rather than numbers, that (almost) every node holds its own of; the name
  dictionary matches them like synonyms.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import Driver

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.skb.schema import SkbSchema

_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SEPARATORS = re.compile(r"[,_\s\u00a0\u2009\u202f]")
SAMPLE = 200  # nodes looked at per type (deterministic: the lowest ids)
QUANTITY_SHARE = 0.9  # of a property's sampled values that must be quantities
MIN_DISTINCT = 2  # a property holding one value everywhere orders nothing
KEY_DISTINCT = 0.95  # of a key's sampled values that differ (case-insensitively)
KEY_COVERAGE = 0.5  # of the sampled nodes that hold a value
KEY_MAX_WORDS = 3
KEY_MAX_CHARS = 24
KEY_SHORT = 0.95  # of a key's sampled values that are short: a few long ones are outliers, not descriptions


def quantity(value: Any) -> float | None:
    """The value as a finite float, or None when it is not a quantity."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
        return number if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    compact = _SEPARATORS.sub("", value.strip())
    if not _NUMBER.fullmatch(compact):
        return None
    number = float(compact)
    return number if math.isfinite(number) else None


def quantity_property(values: Sequence[Any]) -> bool:
    """Whether at least 90% of the present values are quantities and they take at least two values."""
    present = [value for value in values if value is not None and value != ""]
    numbers = [number for number in map(quantity, present) if number is not None]
    return bool(present) and len(numbers) >= QUANTITY_SHARE * len(present) and len(set(numbers)) >= MIN_DISTINCT


_CODE = re.compile(r"(\+[0-9]|0[0-9])[0-9 \-]*")


def is_code(value: Any) -> bool:
    """Digits a leading plus or zero marks as a code, not a number ("+254", "+1-268", "01001"; as
    `grasp.plan.Quantities` reads them)."""
    return isinstance(value, str) and _CODE.fullmatch(value.strip()) is not None


def key_property(values: Sequence[Any]) -> bool:
    """Whether a property holds short codes or labels that each node has its own of: held by at least half
    the sampled nodes, 95% of the values strings of at most 3 words and 24 characters, 90% with a letter or
    written as a code (not a number), and 95% distinct."""
    present = [value for value in values if value is not None and value != ""]
    if not present or len(present) < KEY_COVERAGE * len(values) or quantity_property(present):
        return False
    if not all(isinstance(value, str) for value in present):
        return False  # lists are synonyms, declared in the schema
    short = sum(len(value) <= KEY_MAX_CHARS and len(value.split()) <= KEY_MAX_WORDS for value in present)
    worded = sum(any(ch.isalpha() for ch in value) or is_code(value) for value in present)
    distinct = len({value.lower() for value in present})
    return (
        short >= KEY_SHORT * len(present)
        and worded >= QUANTITY_SHARE * len(present)
        and distinct >= KEY_DISTINCT * len(present)
    )


@dataclass(frozen=True)
class PropertyKinds:
    """Per node type, its text fields that hold quantities and those that hold keys (schema field order)."""

    quantities: dict[str, tuple[str, ...]]
    keys: dict[str, tuple[str, ...]]


def read_property_kinds(driver: Driver, database: str, schema: SkbSchema) -> PropertyKinds:
    """Quantities and keys of every node type, from a sample of its nodes (synonym fields are names already,
    so they are never keys); types without any are left out."""
    quantities: dict[str, tuple[str, ...]] = {}
    keys: dict[str, tuple[str, ...]] = {}
    template = load_statements("skb.cypher")["property_sample"]
    with driver.session(database=database) as session:
        for node_type in schema.node_types:
            fields = [name for name in node_type.text_fields if name != node_type.name_field]
            if not fields:
                continue
            rows = session.run(fill_identifiers(template, label=node_type.label), sample=SAMPLE, fields=fields).values()
            columns = dict(zip(fields, zip(*(row[0] for row in rows), strict=True), strict=True)) if rows else {}
            numbers = tuple(name for name, column in columns.items() if quantity_property(column))
            codes = tuple(
                name
                for name, column in columns.items()
                if name not in node_type.synonym_fields and name not in numbers and key_property(column)
            )
            if numbers:
                quantities[node_type.label] = numbers
            if codes:
                keys[node_type.label] = codes
    return PropertyKinds(quantities, keys)


__all__ = ["PropertyKinds", "is_code", "key_property", "quantity", "quantity_property", "read_property_kinds"]
