"""A custom SKB from three files: a schema (SkbSchema JSON), a nodes file and an edges file (JSONL or CSV).

Format, with a complete example: docs/generic_skb_format.md. Every problem is a `SourceFormatError` naming
file, line and the bad value; nothing is skipped silently. The nodes file is read into an id -> label map
(edges need their endpoint labels); the edges file is streamed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from functools import cached_property
from pathlib import Path

from grasp_agent.errors import SourceFormatError
from grasp_agent.identifiers import IDENTIFIER_PATTERN, is_identifier
from grasp_agent.ranking import NodeId
from grasp_agent.skb.schema import LOAD_GENERATION_PROPERTY, SkbSchema
from grasp_agent.skb.source import EdgeRecord, NodeRecord, PropertyValue, SkbSource

FORMATS = (".jsonl", ".csv")
NODE_COLUMNS = ("id", "type", "name")
EDGE_COLUMNS = ("source", "type", "target")
LIST_SEPARATOR = "|"  # CSV cells holding several strings
_HASH_CHUNK = 1 << 20
# One property value of a few pages is a text field; a 10 MB value is a mistake that took the loader to 1.85 GB
# RSS (documents are cut at the model's tokens anyway). Neo4j integers are 64-bit.
MAX_VALUE_CHARS = 100_000
INT64 = range(-(2**63), 2**63)

Row = dict[str, object]


def _format(path: Path) -> str:
    if path.suffix.lower() not in FORMATS:
        raise SourceFormatError(path, None, f"unsupported extension {path.suffix!r}; allowed: {list(FORMATS)}")
    if not path.is_file():
        raise SourceFormatError(path, None, "file not found")
    return path.suffix.lower()


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a value a property can hold")


def _check_value(path: Path, line: int, key: str, value: object) -> None:
    """What Neo4j (and the Bolt encoder) cannot store, refused with the line instead of a driver traceback."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise SourceFormatError(
                path,
                line,
                f"{key!r} holds a lone surrogate {value[error.start]!r} at "
                f"character {error.start}; text must be valid Unicode",
            ) from error
        if len(value) > MAX_VALUE_CHARS:
            raise SourceFormatError(
                path,
                line,
                f"{key!r} is {len(value):,} characters; a value may hold at most "
                f"{MAX_VALUE_CHARS:,} (split long text into fields or shorten it)",
            )
    elif isinstance(value, bool):
        return
    elif isinstance(value, int) and value not in INT64:
        raise SourceFormatError(
            path, line, f"{key!r} is {value}, outside the 64-bit integers Neo4j stores; write it as a string"
        )
    elif isinstance(value, float) and not math.isfinite(value):
        raise SourceFormatError(path, line, f"{key!r} is {value}; allowed: finite numbers")
    elif isinstance(value, list):
        for item in value:
            _check_value(path, line, key, item)


def _checked(path: Path, line: int, row: Row) -> Row:
    for key, value in row.items():
        _check_value(path, line, "a property name", key)
        _check_value(path, line, key, value)
    return row


def _jsonl_rows(path: Path) -> Iterator[tuple[int, Row]]:
    with path.open(encoding="utf-8-sig") as stream:
        for line, text in enumerate(stream, start=1):
            if not text.strip():
                continue  # blank lines (a trailing newline, spacing) carry nothing
            try:
                row = json.loads(text, parse_constant=_no_constant)
            except RecursionError as error:  # a value nested past Python's recursion limit (~1,000 levels)
                raise SourceFormatError(path, line, f"JSON nested too deeply: {text.strip()[:40]!r}...") from error
            except ValueError as error:
                if not isinstance(error, json.JSONDecodeError):  # NaN / Infinity
                    raise SourceFormatError(path, line, f"{error}: {text.strip()[:80]!r}") from error
                raise SourceFormatError(
                    path, line, f"malformed JSON ({error.msg} at column {error.colno}): {text.strip()[:80]!r}"
                ) from error
            if not isinstance(row, dict):
                raise SourceFormatError(
                    path, line, f"expected a JSON object, got {type(row).__name__}: {text.strip()[:80]!r}"
                )
            try:
                checked = _checked(path, line, row)
            except RecursionError as error:
                raise SourceFormatError(path, line, f"JSON nested too deeply: {text.strip()[:40]!r}...") from error
            yield line, checked


def _csv_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, Row]]:
    with path.open(encoding="utf-8-sig", newline="") as stream:
        reader = csv.reader(stream, strict=True)
        try:
            header = next(reader, None)
            if header is None or tuple(header[: len(required)]) != required:
                raise SourceFormatError(path, 1, f"header is {header}; it must start with {list(required)}")
            extra = header[len(required) :]
            bad = [name for name in extra if not is_identifier(name)] or sorted(
                {n for n in extra if extra.count(n) > 1}
            )
            if bad:
                raise SourceFormatError(
                    path,
                    1,
                    f"bad or repeated property columns {bad}; names must be unique and match {IDENTIFIER_PATTERN}",
                )
            line = reader.line_num + 1
            for cells in reader:
                if cells:  # blank lines read as empty rows
                    if len(cells) != len(header):
                        raise SourceFormatError(
                            path, line, f"{len(cells)} cells, header has {len(header)}: {cells[:6]}"
                        )
                    row: Row = {name: cell for name, cell in zip(header, cells, strict=True) if cell.strip()}
                    yield line, _checked(path, line, row)
                line = reader.line_num + 1
        except csv.Error as error:
            raise SourceFormatError(path, reader.line_num, f"malformed CSV: {error}") from error


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, Row]]:
    rows = _jsonl_rows(path) if _format(path) == ".jsonl" else _csv_rows(path, required)
    try:
        yield from rows
    except UnicodeDecodeError as error:
        raise SourceFormatError(path, None, f"not UTF-8 text: {error}") from error


def _node_id(path: Path, line: int, row: Row, key: str) -> NodeId:
    value = row.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise SourceFormatError(path, line, f"missing {key!r}; every row needs {key}")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise SourceFormatError(
            path, line, f"{key} {value!r} is a {type(value).__name__}; allowed: a string or an integer"
        )
    return value.strip() if isinstance(value, str) else value


def _required_text(path: Path, line: int, row: Row, key: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SourceFormatError(
            path, line, f"missing or non-string {key!r} (got {value!r}); allowed: a non-empty string"
        )
    return value.strip()


def _shown(value: object, limit: int = 80) -> str:
    """A value in an error message: its repr, cut (a value may be megabytes, or nested too deep to print)."""
    try:
        text = repr(value)
    except RecursionError:
        return "a value nested too deeply"
    return text if len(text) <= limit else text[:limit] + "..."


def _text_value(path: Path, line: int, key: str, value: object) -> PropertyValue | None:
    """A text field: one string stays a str, several become list[str] (same rule for JSONL and CSV)."""
    if isinstance(value, str) and path.suffix.lower() == ".csv":
        value = value.split(LIST_SEPARATOR)
    if value is None or isinstance(value, str):
        items = [value] if value is not None else []
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = value
    else:
        raise SourceFormatError(path, line, f"{key} is {_shown(value)}; allowed: a string or a list of strings")
    texts = [item.strip() for item in items if item.strip()]
    return None if not texts else texts[0] if len(texts) == 1 else texts


def _edge_value(path: Path, line: int, key: str, value: object) -> PropertyValue | None:
    if not is_identifier(key):
        raise SourceFormatError(path, line, f"edge property name {key!r} must match {IDENTIFIER_PATTERN}")
    if key == LOAD_GENERATION_PROPERTY:
        raise SourceFormatError(path, line, f"edge property name {key!r} is reserved: grasp stamps it on every edge")
    if value is None or value == [] or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str | int | float | bool):
        return value.strip() if isinstance(value, str) else value
    if (
        isinstance(value, list)
        and value
        and len({type(item) for item in value}) == 1
        and isinstance(value[0], str | int | float)
    ):
        return value  # a homogeneous list of str, int or float
    raise SourceFormatError(
        path,
        line,
        f"edge property {key} is {_shown(value)}; allowed: a string, number, boolean or a list of one of them",
    )


class GenericSource(SkbSource):
    """Nodes and edges from JSONL or CSV files, validated against the schema file as they stream."""

    def __init__(self, schema_path: Path, nodes_path: Path, edges_path: Path) -> None:
        _format(nodes_path)
        _format(edges_path)
        self.schema_path, self.nodes_path, self.edges_path = schema_path, nodes_path, edges_path
        self._schema = SkbSchema.from_file(schema_path)
        self._text_fields = {node_type.label: node_type.text_fields for node_type in self._schema.node_types}
        self._pairs = {
            rel.type: {(pair.source, pair.target) for pair in rel.pairs} for rel in self._schema.relation_types
        }

    def schema(self) -> SkbSchema:
        return self._schema

    def _parse_nodes(self) -> Iterator[NodeRecord]:
        path = self.nodes_path
        seen: dict[NodeId, int] = {}  # id -> line, to name both lines of a duplicate
        for line, row in _rows(path, NODE_COLUMNS):
            node_id = _node_id(path, line, row, "id")
            label = _required_text(path, line, row, "type")
            name = _required_text(path, line, row, "name")
            if label not in self._text_fields:
                raise SourceFormatError(
                    path, line, f"node type {label!r} is not in the schema; known: {sorted(self._text_fields)}"
                )
            if node_id in seen:
                raise SourceFormatError(
                    path,
                    line,
                    f"duplicate node id {node_id!r}, first at line {seen[node_id]}; "
                    "ids must be unique across all node types",
                )
            seen[node_id] = line
            allowed = self._text_fields[label]
            properties: dict[str, PropertyValue] = {}
            for key, value in row.items():
                if key in NODE_COLUMNS:
                    continue
                if key not in allowed:
                    raise SourceFormatError(
                        path, line, f"property {key!r} is not a text field of {label}; allowed: {list(allowed)}"
                    )
                if (text := _text_value(path, line, key, value)) is not None:
                    properties[key] = text
            yield NodeRecord(label, node_id, name, properties)

    @cached_property
    def _labels(self) -> Mapping[NodeId, str]:
        return {record.id: record.label for record in self._parse_nodes()}

    def nodes(self) -> Iterator[NodeRecord]:
        return self._parse_nodes()

    def edges(self) -> Iterator[EdgeRecord]:
        path, labels = self.edges_path, self._labels
        for line, row in _rows(path, EDGE_COLUMNS):
            ends = [_node_id(path, line, row, key) for key in ("source", "target")]
            rel = _required_text(path, line, row, "type")
            for key, node_id in zip(("source", "target"), ends, strict=True):
                if node_id not in labels:
                    raise SourceFormatError(
                        path,
                        line,
                        f"{key} {node_id!r} is not a node id in {self.nodes_path.name} "
                        "(ids keep their JSON type; CSV ids are strings)",
                    )
            if rel not in self._pairs:
                raise SourceFormatError(
                    path, line, f"relation type {rel!r} is not in the schema; known: {sorted(self._pairs)}"
                )
            pair = (labels[ends[0]], labels[ends[1]])
            if pair not in self._pairs[rel]:
                hint = (
                    "; the schema declares the reverse, so swap source and target"
                    if pair[::-1] in self._pairs[rel]
                    else ""
                )
                raise SourceFormatError(
                    path,
                    line,
                    f"{pair[0]} -[{rel}]-> {pair[1]} is not declared; {rel} connects {sorted(self._pairs[rel])}{hint}",
                )
            properties = {
                key: text
                for key, value in row.items()
                if key not in EDGE_COLUMNS and (text := _edge_value(path, line, key, value)) is not None
            }
            yield EdgeRecord(pair[0], ends[0], rel, pair[1], ends[1], properties)

    def fingerprint(self) -> str:
        """sha256 of the three files' contents: custom SKBs are small enough, and edits that keep size/mtime count."""
        digest = hashlib.sha256(b"generic:1")
        for path in (self.schema_path, self.nodes_path, self.edges_path):
            digest.update(f"|{path.name}|".encode())
            with path.open("rb") as stream:
                while chunk := stream.read(_HASH_CHUNK):
                    digest.update(chunk)
        return digest.hexdigest()

    def size_hint(self) -> tuple[int | None, int | None]:
        """Line counts (less the CSV header); blank lines make them slight over-estimates."""
        return _count_lines(self.nodes_path), _count_lines(self.edges_path)

    def skipped(self) -> dict[str, int]:
        return {}  # bad rows are errors, never skipped


def _count_lines(path: Path) -> int:
    lines, last = 0, b"\n"
    with path.open("rb") as stream:
        while chunk := stream.read(_HASH_CHUNK):
            lines, last = lines + chunk.count(b"\n"), chunk[-1:]
    lines += last != b"\n"
    return max(lines - (path.suffix.lower() == ".csv"), 0)
