"""The shape of an SKB: what a synthetic generator needs to imitate it, measured from any `SkbSource`.

Per node type: the node count, the name length in words, and per text field how often it is present, how many
items it holds (list fields) and how many words each item has. Per (source label, relation type, target label):
the edge count and the empirical out-degree over all source-label nodes and in-degree over all target-label
nodes, zeros included (a node without edges is part of the shape). Distributions are value -> frequency
histograms, so the JSON stays small however large the source is.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grasp_agent.errors import DataFileError
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.source import PropertyValue, SkbSource

SHAPE_FORMAT = 1
MAX_BINS = 512  # distinct values one histogram keeps; rarer large values are rounded together (see coarsen)
MAX_CATEGORIES = 20  # a field with at most this many distinct values is kept as its value frequencies

Histogram = dict[int, int]  # value (a length, a degree) -> how many nodes or items have it


@dataclass(frozen=True)
class FieldShape:
    name: str
    present: int  # nodes of the label holding the field
    items: Histogram  # items per present field (1 for a plain string)
    words: Histogram  # words per item
    categories: dict[str, int] | None = None  # value -> count, for fields with few distinct values (e.g. a source)


@dataclass(frozen=True)
class LabelShape:
    label: str
    count: int
    name_words: Histogram
    fields: tuple[FieldShape, ...] = ()


@dataclass(frozen=True)
class TripleShape:
    source: str
    type: str
    target: str
    edges: int
    out_degree: Histogram  # over every source-label node, zeros included
    in_degree: Histogram  # over every target-label node, zeros included

    @property
    def key(self) -> str:
        return f"(:{self.source})-[:{self.type}]->(:{self.target})"


@dataclass(frozen=True)
class SkbShape:
    schema: SkbSchema
    labels: tuple[LabelShape, ...]
    triples: tuple[TripleShape, ...]
    measured_from: str = ""  # where the shape came from, for the record

    def label(self, name: str) -> LabelShape:
        for shape in self.labels:
            if shape.label == name:
                return shape
        raise KeyError(f"no shape for label {name!r}; known: {[s.label for s in self.labels]}")

    def to_json(self) -> str:
        payload = {
            "format": SHAPE_FORMAT,
            "measured_from": self.measured_from,
            "schema": self.schema.model_dump(mode="json"),
            "labels": [_label_json(shape) for shape in self.labels],
            "triples": [_triple_json(shape) for shape in self.triples],
        }
        return json.dumps(payload, indent=1, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, text: str, source: str = "<shape>") -> SkbShape:
        try:
            payload = json.loads(text)
            if payload.get("format") != SHAPE_FORMAT:
                raise ValueError(f"format {payload.get('format')!r}; this version reads format {SHAPE_FORMAT}")
            return cls(
                schema=SkbSchema.model_validate(payload["schema"]),
                labels=tuple(_label_from(item) for item in payload["labels"]),
                triples=tuple(_triple_from(item) for item in payload["triples"]),
                measured_from=str(payload.get("measured_from", "")),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as error:  # ValidationError is a ValueError
            raise DataFileError(source, None, f"not an SKB shape file: {error}") from error

    @classmethod
    def from_file(cls, path: Path) -> SkbShape:
        if not path.is_file():
            raise DataFileError(path, None, "shape file not found")
        return cls.from_json(path.read_text(encoding="utf-8"), str(path))


PACKAGED_SHAPES = Path(__file__).resolve().parent / "shapes"


def packaged_shape(name: str) -> SkbShape:
    """A shape shipped with the package (`hpo`), so generation does not depend on the installed data."""
    path = PACKAGED_SHAPES / f"{name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in PACKAGED_SHAPES.glob("*.json"))
        raise DataFileError(path, None, f"no packaged shape {name!r}; packaged: {known}")
    return SkbShape.from_file(path)


# ---- measuring --------------------------------------------------------------------------------------------


@dataclass
class _FieldTally:
    present: int = 0
    items: Counter[int] = field(default_factory=Counter)
    words: Counter[int] = field(default_factory=Counter)
    values: Counter[str] = field(default_factory=Counter)  # dropped once it has too many distinct values
    categorical: bool = True

    def add(self, value: PropertyValue) -> None:
        texts = [str(item) for item in value] if isinstance(value, list) else [str(value)]
        self.present += 1
        self.items[len(texts)] += 1
        for text in texts:
            self.words[len(text.split())] += 1
            if self.categorical:
                self.values[text] += 1
                if len(self.values) > MAX_CATEGORIES:
                    self.categorical, self.values = False, Counter()


def measure_shape(source: SkbSource, measured_from: str = "") -> SkbShape:
    """One pass over the nodes and one over the edges; memory is one dict entry per node id."""
    schema = source.schema()
    counts: Counter[str] = Counter()
    names: dict[str, Counter[int]] = {t.label: Counter() for t in schema.node_types}
    tallies = {t.label: {f: _FieldTally() for f in t.text_fields} for t in schema.node_types}
    labels: dict[str | int, str] = {}
    for node in source.nodes():
        counts[node.label] += 1
        labels[node.id] = node.label
        names[node.label][len(node.name.split())] += 1
        for name, value in node.properties.items():
            if name in tallies[node.label]:
                tallies[node.label][name].add(value)
    out_degree: dict[tuple[str, str, str], Counter[str | int]] = {}
    in_degree: dict[tuple[str, str, str], Counter[str | int]] = {}
    for edge in source.edges():
        key = (edge.source_label, edge.type, edge.target_label)
        out_degree.setdefault(key, Counter())[edge.source_id] += 1
        in_degree.setdefault(key, Counter())[edge.target_id] += 1
    label_shapes = tuple(
        LabelShape(
            t.label,
            counts[t.label],
            coarsen(names[t.label]),
            tuple(_field_shape(name, tally) for name, tally in tallies[t.label].items()),
        )
        for t in schema.node_types
    )
    triples = []
    for relation in schema.relation_types:
        for pair in relation.pairs:
            key = (pair.source, relation.type, pair.target)
            outs, ins = out_degree.get(key, Counter()), in_degree.get(key, Counter())
            triples.append(
                TripleShape(
                    pair.source,
                    relation.type,
                    pair.target,
                    sum(outs.values()),
                    _degree_histogram(outs, counts[pair.source]),
                    _degree_histogram(ins, counts[pair.target]),
                )
            )
    return SkbShape(schema, label_shapes, tuple(triples), measured_from or schema.name)


def _field_shape(name: str, tally: _FieldTally) -> FieldShape:
    categories = dict(sorted(tally.values.items())) if tally.categorical and tally.values else None
    return FieldShape(name, tally.present, coarsen(tally.items), coarsen(tally.words), categories)


def _degree_histogram(degrees: Counter[str | int], nodes: int) -> Histogram:
    histogram: Counter[int] = Counter(degrees.values())
    zeros = nodes - len(degrees)
    if zeros > 0:
        histogram[0] += zeros
    return coarsen(histogram)


def coarsen(histogram: Mapping[int, int], max_bins: int = MAX_BINS) -> Histogram:
    """At most `max_bins` distinct values: large values are rounded to fewer significant digits until they fit
    (the tail keeps its mass and magnitude; small values stay exact). Sorted by value."""
    merged = Counter(histogram)
    digits = 3
    while len(merged) > max_bins and digits >= 1:
        rounded: Counter[int] = Counter()
        for value, count in merged.items():
            rounded[_round_significant(value, digits)] += count
        merged, digits = rounded, digits - 1
    return dict(sorted(merged.items()))


def _round_significant(value: int, digits: int) -> int:
    if value < 10**digits:
        return value
    scale = 10 ** (len(str(value)) - digits)
    return int(max(1, round(value / scale)) * scale)


# ---- JSON helpers (histogram keys are strings in JSON) -----------------------------------------------------


def _histogram_json(histogram: Histogram) -> dict[str, int]:
    return {str(value): count for value, count in sorted(histogram.items())}


def _histogram_from(payload: Mapping[str, Any]) -> Histogram:
    return {int(value): int(count) for value, count in payload.items()}


def _label_json(shape: LabelShape) -> dict[str, Any]:
    return {
        "label": shape.label,
        "count": shape.count,
        "name_words": _histogram_json(shape.name_words),
        "fields": [
            {
                "name": f.name,
                "present": f.present,
                "items": _histogram_json(f.items),
                "words": _histogram_json(f.words),
                "categories": f.categories,
            }
            for f in shape.fields
        ],
    }


def _label_from(payload: Mapping[str, Any]) -> LabelShape:
    fields = tuple(
        FieldShape(
            str(f["name"]),
            int(f["present"]),
            _histogram_from(f["items"]),
            _histogram_from(f["words"]),
            {str(k): int(v) for k, v in f["categories"].items()} if f.get("categories") else None,
        )
        for f in payload["fields"]
    )
    return LabelShape(str(payload["label"]), int(payload["count"]), _histogram_from(payload["name_words"]), fields)


def _triple_json(shape: TripleShape) -> dict[str, Any]:
    return {
        "source": shape.source,
        "type": shape.type,
        "target": shape.target,
        "edges": shape.edges,
        "out_degree": _histogram_json(shape.out_degree),
        "in_degree": _histogram_json(shape.in_degree),
    }


def _triple_from(payload: Mapping[str, Any]) -> TripleShape:
    return TripleShape(
        str(payload["source"]),
        str(payload["type"]),
        str(payload["target"]),
        int(payload["edges"]),
        _histogram_from(payload["out_degree"]),
        _histogram_from(payload["in_degree"]),
    )
