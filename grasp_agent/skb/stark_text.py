"""Node names and text fields of the STaRK SKBs: the attributes STaRK's get_doc_info renders, per type."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from grasp_agent.skb.source import PropertyValue

Dataset = Literal["prime", "mag", "amazon"]


_MAX_ENTRIES = 25  # amazon reviews / Q&A kept per product, as stark_qa's max_entries
_MAX_ENTRY_CHARS = 2_000  # one review or answer; the document renderer cuts fields further
_MAX_GENERIF_WORDS = 50_000  # stark_qa cuts a gene's joined GeneRIF text here
_MAG_PAPER_FIELDS = ("abstract", "publication_date", "venue")
_MAG_COUNT_FIELDS = ("paper_count", "citation_count")
_MAG_VENUE_KEYS = (
    "OriginalVenue",
    "JournalDisplayName",
    "ConferenceSeriesDisplayName",
    "ConferenceInstancesDisplayName",
)
_AMAZON_PRODUCT_FIELDS = ("brand", "dimensions", "weight", "description", "features", "categories", "reviews", "qa")
_RESERVED = frozenset({"id", "name"})  # the loader writes these itself (cypher/skb.cypher merge_nodes)


def _plain(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    return value.tolist() if isinstance(value, np.ndarray) else value


def _missing(value: object, dataset: Dataset) -> bool:
    value = _plain(value)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return True
    if isinstance(value, str) and value.strip().lower() in ("", "nan"):
        return True
    # MAG's processing fills every absent value with -1.
    return dataset == "mag" and not isinstance(value, bool) and value in (-1, "-1")


def _one_string(value: object) -> str | None:
    rendered = _render(value)
    return ", ".join(rendered) if isinstance(rendered, list) else rendered


def _render(value: object) -> str | list[str] | None:
    """Text of a node_info value: str stays, numbers print, dicts become 'k: v; ...', lists a list of strings."""
    value = _plain(value)
    if _missing(value, "prime"):
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, Mapping):
        items = [f"{key}: {text}" for key, item in value.items() if (text := _one_string(item))]
        return "; ".join(items) or None
    if isinstance(value, set | frozenset):
        value = sorted(value, key=str)  # set order varies between runs; records must not
    if isinstance(value, list | tuple):
        texts = [text for item in value if (text := _one_string(item))]
        return texts or None
    return str(value)


def _prime_key(key: str) -> str:
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key)  # displayName -> display_name
    identifier = re.sub(r"[^A-Za-z0-9]+", "_", snake).strip("_").lower()
    if not identifier[:1].isalpha():
        identifier = f"f_{identifier}"
    return (f"detail_{identifier}" if identifier in _RESERVED | {"source"} else identifier)[:64]


def _gene_value(key: str, value: object) -> object:
    """stark_qa's special cases for gene/protein details (mygene.info records)."""
    if key == "interpro":
        entries = [value] if isinstance(value, Mapping) else value
        return (
            [entry.get("desc") for entry in entries if isinstance(entry, Mapping)]
            if isinstance(entries, list)
            else entries
        )
    if key == "generif" and isinstance(value, list):
        words = "; ".join(str(entry.get("text", "")) for entry in value if isinstance(entry, Mapping)).split(" ")
        return " ".join(words[:_MAX_GENERIF_WORDS])
    if key == "genomic_pos" and isinstance(value, list) and value:
        return value[0]
    return value


def _prime_text(stark_type: str, info: Mapping[Any, Any]) -> dict[str, PropertyValue]:
    properties: dict[str, PropertyValue] = {}
    if (source := _render(info.get("source"))) is not None:
        properties["source"] = source
    details = info.get("details")
    for key, value in details.items() if isinstance(details, Mapping) else ():
        key = str(key)
        if key.startswith("_") or "_id" in key:  # stark_qa leaves private and id fields out of the text
            continue
        text = _render(_gene_value(key, _plain(value)) if stark_type == "gene/protein" else value)
        if text is not None:
            properties.setdefault(_prime_key(key), text)  # keys that sanitise alike: the first wins
    return properties


def _mag_text(stark_type: str, info: Mapping[Any, Any]) -> dict[str, PropertyValue]:
    if stark_type != "paper":
        counts = {"paper_count": _plain(info.get("PaperCount")), "citation_count": _plain(info.get("CitationCount"))}
        return {
            key: int(value)
            for key, value in counts.items()
            if isinstance(value, int | float) and not _missing(value, "mag")
        }
    venue = next((info[key] for key in _MAG_VENUE_KEYS if not _missing(info.get(key), "mag")), None)
    values = {"abstract": info.get("abstract"), "publication_date": info.get("Date"), "venue": venue}
    return {key: text for key, value in values.items() if not _missing(value, "mag") and (text := _one_string(value))}


def _vote(review: Mapping[Any, Any]) -> int:
    text = str(_plain(review.get("vote"))).replace(",", "")
    return int(text) if text.isdigit() else 0


def _amazon_text(stark_type: str, info: Mapping[Any, Any]) -> dict[str, PropertyValue]:
    if stark_type != "product":
        return {}
    details = info.get("details")
    dimensions = details.get("product_dimensions") if isinstance(details, Mapping) else None
    parts = str(dimensions).split(" ; ") if isinstance(dimensions, str) else []
    description = _render(info.get("description"))
    features = _render(info.get("feature"))
    reviews = [r for r in (info.get("review") or []) if isinstance(r, Mapping)]
    reviews.sort(key=_vote, reverse=True)  # stable: equal votes keep stored order
    values: dict[str, object] = {
        "brand": info.get("brand"),
        "dimensions": parts[0] if len(parts) == 2 else None,
        "weight": parts[1] if len(parts) == 2 else None,
        "description": " ".join(description).strip() if isinstance(description, list) else description,
        "features": [f for f in features if "asin" not in f.lower()] if isinstance(features, list) else features,
        "categories": info.get("category"),
        "reviews": [_entry(": ", r.get("summary"), r.get("reviewText")) for r in reviews[:_MAX_ENTRIES]],
        "qa": [
            _entry(" ", _labelled("Q: ", q.get("question")), _labelled("A: ", q.get("answer")))
            for q in (info.get("qa") or [])[:_MAX_ENTRIES]
            if isinstance(q, Mapping)
        ],
    }
    return {key: text for key, value in values.items() if (text := _render(value)) is not None}


def _labelled(label: str, value: object) -> str | None:
    text = _one_string(value)
    return f"{label}{text}" if text else None


def _entry(separator: str, *parts: object) -> str:
    """One review or Q&A as a line of its present parts, bounded."""
    return separator.join(text for part in parts if (text := _one_string(part)))[:_MAX_ENTRY_CHARS]


_TEXT = MappingProxyType({"prime": _prime_text, "mag": _mag_text, "amazon": _amazon_text})


def node_name_and_text(
    dataset: Dataset, stark_type: str, info: Mapping[Any, Any]
) -> tuple[str, dict[str, PropertyValue]]:
    """A node's display name and text properties from its node_info entry."""
    if dataset == "prime":
        key = "name"
    elif dataset == "mag":
        key = "title" if stark_type == "paper" else "DisplayName"
    else:
        key = "title" if stark_type == "product" else f"{stark_type}_name"
    name = info.get(key)
    return ("" if _missing(name, dataset) else str(_plain(name)).strip()), _TEXT[dataset](stark_type, info)


def text_field_order(
    dataset: Dataset, node_names: Mapping[int, str], node_types: np.ndarray[Any, Any], node_info: Mapping[Any, Any]
) -> dict[int, tuple[str, ...]]:
    """Text fields per type id: fixed for mag/amazon; for prime the detail keys in first-seen node order."""
    if dataset == "mag":
        return {
            type_id: _MAG_PAPER_FIELDS if name == "paper" else _MAG_COUNT_FIELDS for type_id, name in node_names.items()
        }
    if dataset == "amazon":
        return {type_id: _AMAZON_PRODUCT_FIELDS if name == "product" else () for type_id, name in node_names.items()}
    seen: dict[int, dict[str, None]] = {type_id: {} for type_id in node_names}
    for node_id, type_id in enumerate(node_types.tolist()):
        info = node_info.get(node_id)
        if isinstance(info, Mapping):
            seen[type_id].update(dict.fromkeys(_prime_text(node_names[type_id], info)))
    return {type_id: tuple(keys) for type_id, keys in seen.items()}
