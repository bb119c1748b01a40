"""The STaRK SKBs (prime, mag, amazon) read from their processed files, with no torch and no stark_qa.

On-disk format: /work/shared/STARK_FORMAT.md. Node ids stay STaRK's integers so QA `answer_ids` evaluate
directly. Labels are UpperCamelCase STaRK type names (`gene/protein` -> GeneProtein), relation types are
UPPER_SNAKE_CASE (`off-label use` -> OFF_LABEL_USE; MAG's `author___writes___paper` -> WRITES). Edges keep
their stored direction and type; parallel edges of different types stay separate (STaRK's own
`to_undirected(reduce='mean')` would merge them). Node text fields are the attributes STaRK's `get_doc_info`
renders per type (see `_prime_text`, `_mag_text`, `_amazon_text`), flattened to str / list[str] (MAG counts: int);
missing values ('', NaN; MAG's -1) are dropped.

Corrected or skipped on purpose (`skipped()`): an edge whose type name declares endpoint types (MAG's
`a___rel___b`, ids copied from OGB) but whose endpoints have other types is relabelled when exactly one
declared relation joins its endpoint types, and skipped otherwise. Relation types left with no edge are not in the schema.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from grasp_agent.errors import SourceFormatError
from grasp_agent.identifiers import IDENTIFIER_PATTERN, is_identifier
from grasp_agent.skb.schema import NodeType, RelationPair, RelationType, SkbSchema
from grasp_agent.skb.source import EdgeRecord, NodeRecord, SkbSource
from grasp_agent.skb.stark_text import node_name_and_text, text_field_order
from grasp_agent.skb.torch_pickle import TensorSpec, load_pickle_file, load_torch_file, peek_torch_file

Dataset = Literal["prime", "mag", "amazon"]
# Bumped whenever the record mapping changes, so fingerprints change and a reload happens.
MAPPING_VERSION = "1"
_EDGE_CHUNK = 65_536  # edges converted to Python per numpy slice while streaming
_TENSORS = ("node_types.pt", "edge_index.pt", "edge_types.pt")
_TYPE_DICTS = ("node_type_dict.pkl", "edge_type_dict.pkl")
# stark_qa's MagSKB hard-codes these instead of shipping dict files.
_MAG_NODE_TYPES: Mapping[int, str] = MappingProxyType({0: "author", 1: "institution", 2: "field_of_study", 3: "paper"})
_MAG_EDGE_TYPES: Mapping[int, str] = MappingProxyType(
    {
        0: "author___affiliated_with___institution",
        1: "paper___cites___paper",
        2: "paper___has_topic___field_of_study",
        3: "author___writes___paper",
    }
)
_CANDIDATES: Mapping[str, frozenset[str] | None] = MappingProxyType(
    {"prime": None, "mag": frozenset({"paper"}), "amazon": frozenset({"product"})}
)  # None: every node type
_DESCRIPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "prime": (
            "STaRK-Prime: the PrimeKG precision-medicine knowledge graph of diseases, genes/proteins, drugs, "
            "pathways, phenotypes, anatomy, exposures, biological processes, molecular functions and cellular "
            "components. Every node is an answer candidate."
        ),
        "mag": (
            "STaRK-MAG: a Microsoft Academic Graph subset of papers with their authors, the authors' institutions "
            "and the papers' fields of study, linked by authorship, citation, topic and affiliation. "
            "Answers are papers."
        ),
        "amazon": (
            "STaRK-Amazon: Amazon Sports & Outdoors products with their brands, categories and colors, linked to "
            "each other by also-bought and also-viewed. Answers are products."
        ),
    }
)


def stark_label(type_name: str) -> str:
    """`gene/protein` -> GeneProtein, `field_of_study` -> FieldOfStudy."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", type_name) if part)


def stark_relation(type_name: str) -> str:
    """`off-label use` -> OFF_LABEL_USE; `author___writes___paper` -> WRITES (the middle part names the relation)."""
    parts = type_name.split("___")
    middle = parts[1] if len(parts) == 3 else type_name
    return "_".join(part.upper() for part in re.split(r"[^A-Za-z0-9]+", middle) if part)


def _declared_ends(type_name: str, node_names: Mapping[int, str]) -> tuple[int, int] | None:
    """The (source, target) node type ids an `a___rel___b` relation name declares, if it declares any."""
    parts = type_name.split("___")
    ids = {name: type_id for type_id, name in node_names.items()}
    if len(parts) == 3 and parts[0] in ids and parts[2] in ids:
        return ids[parts[0]], ids[parts[2]]
    return None


@dataclass(frozen=True)
class _Graph:
    node_info: Mapping[Any, Any]
    node_types: np.ndarray[Any, Any]  # [N] type id per node id
    edge_index: np.ndarray[Any, Any]  # [2, E] row 0 source, row 1 target
    edge_types: np.ndarray[Any, Any]  # [E]
    node_names: Mapping[int, str]  # type id -> STaRK type name
    edge_names: Mapping[int, str]
    keep: np.ndarray[Any, Any]  # [E] bool: endpoints match the declared types
    skipped: Mapping[str, int]


class StarkSource(SkbSource):
    """One STaRK SKB; `path` is the dataset root or the folder holding node_info.pkl and the tensors."""

    def __init__(self, path: Path, dataset: Dataset) -> None:
        if dataset not in _DESCRIPTIONS:
            raise SourceFormatError(path, None, f"unknown STaRK dataset {dataset!r}; allowed: {sorted(_DESCRIPTIONS)}")
        self.dataset = dataset
        self.folder = _find_folder(path, dataset)
        names = ("node_info.pkl", *_TENSORS, *(() if dataset == "mag" else _TYPE_DICTS))
        self.files = tuple(self.folder / name for name in names)
        for file in self.files:
            if not file.is_file():
                raise SourceFormatError(file, None, f"missing; STaRK {dataset} needs {list(names)} in {self.folder}")

    def _file(self, name: str) -> Path:
        return self.folder / name

    @cached_property
    def _graph(self) -> _Graph:
        return _load_graph(self.folder, self.dataset)

    @cached_property
    def _schema(self) -> SkbSchema:
        return _build_schema(self._graph, self.dataset)

    def schema(self) -> SkbSchema:
        return self._schema

    def nodes(self) -> Iterator[NodeRecord]:
        graph = self._graph
        labels = {type_id: stark_label(name) for type_id, name in graph.node_names.items()}
        for node_id, type_id in enumerate(graph.node_types.tolist()):
            info = graph.node_info.get(node_id)
            if not isinstance(info, Mapping):
                raise SourceFormatError(
                    self._file("node_info.pkl"), None, f"node {node_id} has no info dict (got {type(info).__name__})"
                )
            name, properties = node_name_and_text(self.dataset, graph.node_names[type_id], info)
            yield NodeRecord(labels[type_id], node_id, name, properties)

    def edges(self) -> Iterator[EdgeRecord]:
        graph = self._graph
        labels = {type_id: stark_label(name) for type_id, name in graph.node_names.items()}
        relations = {type_id: stark_relation(name) for type_id, name in graph.edge_names.items()}
        for start in range(0, graph.edge_types.shape[0], _EDGE_CHUNK):
            stop = start + _EDGE_CHUNK
            sources, targets = graph.edge_index[0, start:stop], graph.edge_index[1, start:stop]
            rows = zip(
                sources.tolist(),
                targets.tolist(),
                graph.edge_types[start:stop].tolist(),
                graph.node_types[sources].tolist(),
                graph.node_types[targets].tolist(),
                graph.keep[start:stop].tolist(),
                strict=True,
            )
            for source, target, type_id, source_type, target_type, keep in rows:
                if keep:
                    yield EdgeRecord(labels[source_type], source, relations[type_id], labels[target_type], target)

    def fingerprint(self) -> str:
        """sha256 over mapping version, dataset and each file's name, size and mtime: cheap for multi-GB files.

        A copy or touch changes it, which costs only a reload; content edits always change it.
        """
        digest = hashlib.sha256(f"stark:{MAPPING_VERSION}:{self.dataset}".encode())
        for file in self.files:
            stat = file.stat()
            digest.update(f"|{file.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
        return digest.hexdigest()

    def size_hint(self) -> tuple[int | None, int | None]:
        """Stored node and edge counts from the tensor headers (storages are not read)."""
        nodes, edges = peek_torch_file(self._file("node_types.pt")), peek_torch_file(self._file("edge_types.pt"))
        if isinstance(nodes, TensorSpec) and isinstance(edges, TensorSpec) and nodes.shape and edges.shape:
            return nodes.shape[0], edges.shape[0]
        return None, None

    def skipped(self) -> dict[str, int]:
        return dict(self._graph.skipped)


def _find_folder(path: Path, dataset: Dataset) -> Path:
    candidates = [path, path / "processed"]
    if dataset == "amazon":
        candidates.append(path / "processed" / "cache" / "brand-category-color")
    for folder in candidates:
        if (folder / "node_info.pkl").is_file():
            return folder
    raise SourceFormatError(
        path,
        None,
        f"no node_info.pkl in {[str(c) for c in candidates]}; pass the STaRK {dataset} root or its processed folder",
    )


def _int_tensor(path: Path, ndim: int) -> np.ndarray[Any, Any]:
    array = load_torch_file(path)
    if not isinstance(array, np.ndarray) or array.ndim != ndim:
        shape = getattr(array, "shape", type(array).__name__)
        raise SourceFormatError(path, None, f"expected a {ndim}-d integer tensor, got {shape}")
    if array.dtype.kind == "f" and np.all(np.mod(array, 1) == 0):
        array = array.astype(np.int64)  # an older amazon step stored float type ids; integral values are safe
    if array.dtype.kind not in "iu":
        raise SourceFormatError(path, None, f"expected an integer tensor, got dtype {array.dtype}")
    return array.astype(np.int64, copy=False)


def _type_dict(path: Path) -> dict[int, str]:
    raw = load_pickle_file(path)
    if not isinstance(raw, Mapping) or not raw:
        raise SourceFormatError(path, None, f"expected a non-empty dict[int, str], got {type(raw).__name__}")
    try:
        return {int(key): str(value) for key, value in raw.items()}
    except (TypeError, ValueError) as error:
        raise SourceFormatError(path, None, f"type ids must be integers; got keys {sorted(map(str, raw))}") from error


def _check_names(path: Path, names: Mapping[int, str], convert: Callable[[str], str]) -> None:
    if any(type_id < 0 for type_id in names):
        raise SourceFormatError(path, None, f"type ids must be >= 0; got {sorted(names)}")
    converted = {type_id: convert(name) for type_id, name in names.items()}
    for type_id, identifier in converted.items():
        if not is_identifier(identifier):
            raise SourceFormatError(
                path,
                None,
                f"type {type_id} {names[type_id]!r} maps to {identifier!r}, "
                f"not an identifier matching {IDENTIFIER_PATTERN}",
            )
    if len(set(converted.values())) != len(converted):
        raise SourceFormatError(path, None, f"type names collide after conversion: {converted}")


def _check_ids(path: Path, values: np.ndarray[Any, Any], allowed: range | Mapping[int, str], what: str) -> None:
    valid = (
        np.isin(values, np.fromiter(allowed, dtype=np.int64))
        if isinstance(allowed, Mapping)
        else (values >= allowed.start) & (values < allowed.stop)
    )
    bad = np.flatnonzero(~valid.reshape(-1))
    if bad.size:
        position = int(bad[0])
        known = sorted(allowed) if isinstance(allowed, Mapping) else f"{allowed.start}..{allowed.stop - 1}"
        raise SourceFormatError(
            path, None, f"{what} at flat position {position} is {int(values.reshape(-1)[position])}; allowed: {known}"
        )


def _load_graph(folder: Path, dataset: Dataset) -> _Graph:
    node_types = _int_tensor(folder / "node_types.pt", 1)
    edge_index = _int_tensor(folder / "edge_index.pt", 2)
    edge_types = _int_tensor(folder / "edge_types.pt", 1)
    if dataset == "mag":
        node_names, edge_names = dict(_MAG_NODE_TYPES), dict(_MAG_EDGE_TYPES)
    else:
        node_names, edge_names = _type_dict(folder / "node_type_dict.pkl"), _type_dict(folder / "edge_type_dict.pkl")
    _check_names(folder / "node_type_dict.pkl", node_names, stark_label)
    _check_names(folder / "edge_type_dict.pkl", edge_names, stark_relation)
    if edge_index.shape[0] != 2 or edge_index.shape[1] != edge_types.shape[0]:
        raise SourceFormatError(
            folder / "edge_index.pt",
            None,
            f"shape {edge_index.shape}; edge_types.pt has {edge_types.shape[0]} edges, "
            f"so [2, {edge_types.shape[0]}] is required",
        )
    _check_ids(folder / "node_types.pt", node_types, node_names, "node type id")
    _check_ids(folder / "edge_types.pt", edge_types, edge_names, "edge type id")
    _check_ids(folder / "edge_index.pt", edge_index, range(node_types.shape[0]), "node id")
    node_info = load_pickle_file(folder / "node_info.pkl")
    if not isinstance(node_info, Mapping) or len(node_info) != node_types.shape[0]:
        size = len(node_info) if isinstance(node_info, Mapping) else type(node_info).__name__
        raise SourceFormatError(
            folder / "node_info.pkl",
            None,
            f"expected a dict with one entry per node ({node_types.shape[0]}), got {size}",
        )
    edge_types, relabelled = _relabel_by_ends(node_types, edge_index, edge_types, node_names, edge_names)
    keep, skipped = _validate_ends(node_types, edge_index, edge_types, node_names, edge_names)
    return _Graph(
        node_info, node_types, edge_index, edge_types, node_names, edge_names, keep, {**relabelled, **skipped}
    )


def _relabel_by_ends(
    node_types: np.ndarray[Any, Any],
    edge_index: np.ndarray[Any, Any],
    edge_types: np.ndarray[Any, Any],
    node_names: Mapping[int, str],
    edge_names: Mapping[int, str],
) -> tuple[np.ndarray[Any, Any], dict[str, int]]:
    """Fixes type ids that contradict their endpoints when exactly one declared type fits those endpoints.

    MAG's type ids come from OGB, whose numbering may differ from STaRK's name table; since each MAG
    endpoint pair belongs to one relation only, the endpoints decide. Counted under 'relabelled', not dropped.
    """
    by_ends: dict[tuple[int, int], list[int]] = {}
    for type_id, name in edge_names.items():
        ends = _declared_ends(name, node_names)
        if ends is not None:
            by_ends.setdefault(ends, []).append(type_id)
    if not by_ends:
        return edge_types, {}
    fixed = edge_types.copy()
    counts: Counter[str] = Counter()
    source_types, target_types = node_types[edge_index[0]], node_types[edge_index[1]]
    for (source, target), type_ids in by_ends.items():
        if len(type_ids) != 1:
            continue
        wrong = (source_types == source) & (target_types == target) & (edge_types != type_ids[0])
        for old_id in np.unique(edge_types[wrong]).tolist():
            if _declared_ends(edge_names[old_id], node_names) is None:
                continue  # a type without declared ends may legitimately join these types
            count = int(((edge_types == old_id) & wrong).sum())
            counts[f"relabelled {_renaming(edge_names, old_id, type_ids[0])} (type id contradicted the endpoints)"] += (
                count
            )
            fixed[(edge_types == old_id) & wrong] = type_ids[0]
    return fixed, dict(counts)


def _renaming(edge_names: Mapping[int, str], old_id: int, new_id: int) -> str:
    return f"{stark_relation(edge_names[old_id])} -> {stark_relation(edge_names[new_id])}"


def _validate_ends(
    node_types: np.ndarray[Any, Any],
    edge_index: np.ndarray[Any, Any],
    edge_types: np.ndarray[Any, Any],
    node_names: Mapping[int, str],
    edge_names: Mapping[int, str],
) -> tuple[np.ndarray[Any, Any], dict[str, int]]:
    """Mask of edges whose endpoint types match what their type name declares, and skip counts by reason."""
    keep = np.ones(edge_types.shape[0], dtype=bool)
    skipped: Counter[str] = Counter()
    source_types, target_types = node_types[edge_index[0]], node_types[edge_index[1]]
    for type_id, name in edge_names.items():
        ends = _declared_ends(name, node_names)
        if ends is None:
            continue
        bad = (edge_types == type_id) & ((source_types != ends[0]) | (target_types != ends[1]))
        keep &= ~bad
        pairs, counts = np.unique(np.stack([source_types[bad], target_types[bad]]), axis=1, return_counts=True)
        for (source, target), count in zip(pairs.T.tolist(), counts.tolist(), strict=True):
            expected = f"{stark_label(node_names[ends[0]])}->{stark_label(node_names[ends[1]])}"
            found = f"{stark_label(node_names[source])}->{stark_label(node_names[target])}"
            skipped[
                f"{stark_relation(name)} edge (type id {type_id}) between {found}, not the declared {expected}"
            ] += count
    return keep, dict(skipped)


def _build_schema(graph: _Graph, dataset: Dataset) -> SkbSchema:
    candidates = _CANDIDATES[dataset]
    fields = text_field_order(dataset, graph.node_names, graph.node_types, graph.node_info)
    node_types = tuple(
        NodeType(
            label=stark_label(name),
            text_fields=fields[type_id],
            description=f"STaRK {dataset} node type '{name}'"
            + (" (answer candidate)" if candidates is None or name in candidates else ""),
        )
        for type_id, name in sorted(graph.node_names.items())
    )
    width = max(graph.node_names) + 1
    kept = graph.edge_index[:, graph.keep]
    codes = (graph.edge_types[graph.keep] * width + graph.node_types[kept[0]]) * width + graph.node_types[kept[1]]
    pairs: dict[int, list[RelationPair]] = {}
    for code in np.unique(codes).tolist():
        type_id, rest = divmod(code, width * width)
        source, target = divmod(rest, width)
        pairs.setdefault(type_id, []).append(
            RelationPair(source=stark_label(graph.node_names[source]), target=stark_label(graph.node_names[target]))
        )
    relations = tuple(
        RelationType(
            type=stark_relation(name),
            pairs=tuple(pairs[type_id]),
            description=name.replace("___", " ").replace("_", " "),
        )
        for type_id, name in sorted(graph.edge_names.items())
        if type_id in pairs
    )
    return SkbSchema(
        name=f"stark_{dataset}", description=_DESCRIPTIONS[dataset], node_types=node_types, relation_types=relations
    )
