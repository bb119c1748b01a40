"""Which properties hold quantities a question can rank by ("the most populous city", "the cheapest lens"):
decided from the loaded SKB's own values, so any SKB gets it without a word in its schema. A value is a quantity
when it is a number or text written as one ("66,987,244"); a leading zero or plus marks a code ("01001", "+33"),
as in the Java side's `grasp.plan.Quantities`, which reads the same values when a plan ranks by them."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from neo4j import Driver

from grasp_agent.cypher_queries import fill_identifiers, load_statements
from grasp_agent.skb.schema import SkbSchema

_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SEPARATORS = re.compile(r"[,_\s\u00a0\u2009\u202f]")
SAMPLE = 200  # nodes looked at per type (deterministic: the lowest ids)
QUANTITY_SHARE = 0.9  # of a property's sampled values that must be quantities
MIN_DISTINCT = 2  # a property holding one value everywhere orders nothing


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


def read_quantity_properties(driver: Driver, database: str, schema: SkbSchema) -> dict[str, tuple[str, ...]]:
    """Per node type, its text fields that hold quantities (in the schema's field order); types without any
    are left out."""
    found: dict[str, tuple[str, ...]] = {}
    template = load_statements("skb.cypher")["property_sample"]
    with driver.session(database=database) as session:
        for node_type in schema.node_types:
            fields = [name for name in node_type.text_fields if name != node_type.name_field]
            if not fields:
                continue
            rows = session.run(fill_identifiers(template, label=node_type.label), sample=SAMPLE, fields=fields).values()
            columns = list(zip(*(row[0] for row in rows), strict=True)) if rows else []
            kept = tuple(name for name, column in zip(fields, columns, strict=True) if quantity_property(column))
            if kept:
                found[node_type.label] = kept
    return found


__all__ = ["quantity", "quantity_property", "read_quantity_properties"]
