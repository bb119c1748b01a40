"""Synthetic SKBs with a measured SKB's shape (types, degree distributions, text lengths) at any scale.

`generate_skb(shape, scale, seed, out_dir)` writes schema.json, nodes.jsonl and edges.jsonl in the generic
format (docs/generic_skb_format.md), deterministically: the same shape, scale and seed give byte-identical
files. Node counts are the shape's times `scale`. Per (source label, type, target label) every source node
draws its out-degree from the measured out-degree histogram, and its targets with probability proportional to
a per-target weight drawn from the measured in-degree histogram, which keeps the heavy tail of hubs. No self
loops, no duplicate edges; a relation between nodes of one label (an ontology's IS_A) only points to lower
indices, so it stays acyclic. Text comes from a seeded vocabulary of pronounceable words with Zipf
frequencies, so BM25 sees natural-language-like term statistics; names draw uniformly (names are distinctive).

Memory: numpy arrays per label and per triple (about 16M edges at 30x HPO fit in a few hundred MB); the only
Python objects per edge are the lines being written.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from grasp_agent.errors import ConfigError
from grasp_agent.skb.generic import GenericSource
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.synthetic_shape import (
    FieldShape,
    LabelShape,
    SkbShape,
    TripleShape,
)

VOCABULARY_SIZE = 30_000
ZIPF_EXPONENT = 1.0  # Zipf-Mandelbrot p(rank) ~ 1 / (rank + q)^s, the usual fit of English word frequencies
ZIPF_OFFSET = 2.7
NODE_CHUNK = 50_000  # nodes whose text is drawn at once
EDGE_CHUNK = 200_000  # edge lines written per join
MAX_DRAW_ROUNDS = 16  # redraws of targets that duplicated an edge; what is still missing is reported
WEIGHTED_ROUNDS = 8  # of which these draw by in-degree weight (then uniformly among eligible targets)
_ONSETS = (
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "ch",
    "cl",
    "dr",
    "fl",
    "gr",
    "pl",
    "pr",
    "sh",
    "st",
    "th",
    "tr",
)
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "io", "ou")
_CODAS = ("", "", "", "n", "r", "l", "m", "x", "nd", "rt")
# Independent random streams per part, so one label's draws never shift another's.
_VOCABULARY_STREAM, _NODE_STREAM, _EDGE_STREAM = 0, 1, 2


@dataclass(frozen=True)
class GeneratedSkb:
    directory: Path
    scale: float
    seed: int
    nodes: dict[str, int]  # label -> count
    edges: dict[str, int]  # "(:A)-[:T]->(:B)" -> count written
    unplaced_edges: dict[str, int]  # drawn degrees that no distinct target was left for (tiny scales, hubs)
    seconds: float

    @property
    def schema_path(self) -> Path:
        return self.directory / "schema.json"

    @property
    def nodes_path(self) -> Path:
        return self.directory / "nodes.jsonl"

    @property
    def edges_path(self) -> Path:
        return self.directory / "edges.jsonl"

    @property
    def node_total(self) -> int:
        return sum(self.nodes.values())

    @property
    def edge_total(self) -> int:
        return sum(self.edges.values())

    def source(self) -> GenericSource:
        return GenericSource(self.schema_path, self.nodes_path, self.edges_path)


def random_stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def scaled_count(count: int, scale: float) -> int:
    return max(1, round(count * scale))


def node_id(label: str, index: int) -> str:
    return f"{label}:{index}"


def synthetic_schema(schema: SkbSchema) -> SkbSchema:
    name = f"{schema.name[:54]}_synthetic"
    return schema.model_copy(
        update={
            "name": name,
            "description": f"Synthetic SKB with the shape of "
            f"'{schema.name}' (random words, measured degrees). {schema.description}",
        }
    )


# ---- sampling ---------------------------------------------------------------------------------------------


def sample_histogram(rng: np.random.Generator, histogram: Mapping[int, int], size: int) -> np.ndarray:
    """`size` values drawn with the histogram's frequencies (int64); zeros from an empty histogram."""
    if not histogram or size == 0:
        return np.zeros(size, dtype=np.int64)
    values = np.fromiter(histogram.keys(), dtype=np.int64, count=len(histogram))
    cumulative = np.cumsum(np.fromiter(histogram.values(), dtype=np.int64, count=len(histogram)))
    return values[np.searchsorted(cumulative, rng.integers(0, cumulative[-1], size), side="right")]


@dataclass(frozen=True)
class Vocabulary:
    words: np.ndarray  # object array of str, most frequent (shortest) first
    cumulative: np.ndarray  # Zipf cumulative weights, float64

    def zipf(self, rng: np.random.Generator, size: int) -> list[str]:
        drawn = np.searchsorted(self.cumulative, rng.random(size) * self.cumulative[-1], side="right")
        return list(self.words[drawn])

    def uniform(self, rng: np.random.Generator, size: int) -> list[str]:
        return list(self.words[rng.integers(0, len(self.words), size)])


def make_vocabulary(seed: int, size: int = VOCABULARY_SIZE) -> Vocabulary:
    """`size` distinct pronounceable words (1-4 syllables); shorter words get the frequent ranks, as in English."""
    rng = random_stream(seed, _VOCABULARY_STREAM)
    seen: dict[str, None] = {}
    while len(seen) < size:
        syllables = rng.integers(1, 5, size)
        parts = np.stack(
            [
                rng.integers(0, len(_ONSETS), (size, 4)),
                rng.integers(0, len(_VOWELS), (size, 4)),
                rng.integers(0, len(_CODAS), (size, 4)),
            ],
            axis=-1,
        ).tolist()
        for count, word_parts in zip(syllables.tolist(), parts, strict=True):
            word = "".join(_ONSETS[o] + _VOWELS[v] + _CODAS[c] for o, v, c in word_parts[:count])
            seen.setdefault(word, None)
    words = sorted(list(seen)[:size], key=len)  # stable: draw order within one length
    ranks = np.arange(size, dtype=np.float64)
    return Vocabulary(np.array(words, dtype=object), np.cumsum(1.0 / (ranks + ZIPF_OFFSET) ** ZIPF_EXPONENT))


# ---- nodes ------------------------------------------------------------------------------------------------


def _split(words: list[str], lengths: list[int]) -> list[str]:
    texts, start = [], 0
    for length in lengths:
        texts.append(" ".join(words[start : start + length]))
        start += length
    return texts


def _field_values(
    rng: np.random.Generator, vocabulary: Vocabulary, shape: FieldShape, count: int, size: int
) -> list[str | list[str] | None]:
    """One value per node: None (absent), a string, or a list of strings for multi-item fields."""
    present = (rng.random(size) < shape.present / max(count, 1)).tolist()
    holders = sum(present)
    items = np.maximum(sample_histogram(rng, shape.items, holders), 1).tolist()
    total_items = sum(items)
    if shape.categories:
        keys = list(shape.categories)
        texts = [keys[i] for i in sample_histogram(rng, dict(enumerate(shape.categories.values())), total_items)]
    else:
        lengths = np.maximum(sample_histogram(rng, shape.words, total_items), 1).tolist()
        texts = _split(vocabulary.zipf(rng, sum(lengths)), lengths)
    values: list[str | list[str] | None] = []
    item_iter, text_start = iter(items), 0
    for holds in present:
        if not holds:
            values.append(None)
            continue
        n_items = next(item_iter)
        chunk = texts[text_start : text_start + n_items]
        text_start += n_items
        values.append(chunk[0] if n_items == 1 else chunk)
    return values


def _node_lines(
    rng: np.random.Generator, vocabulary: Vocabulary, shape: LabelShape, first: int, size: int
) -> list[str]:
    lengths = np.maximum(sample_histogram(rng, shape.name_words, size), 1).tolist()
    names = _split(vocabulary.uniform(rng, sum(lengths)), lengths)
    columns = {f.name: _field_values(rng, vocabulary, f, shape.count, size) for f in shape.fields}
    lines = []
    for offset, name in enumerate(names):
        row: dict[str, object] = {
            "id": node_id(shape.label, first + offset),
            "type": shape.label,
            "name": name.capitalize(),
        }
        row.update({field: values[offset] for field, values in columns.items() if values[offset] is not None})
        lines.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    return lines


# ---- edges ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawnEdges:
    sources: np.ndarray  # int64 source indices, sorted by (source, target)
    targets: np.ndarray
    unplaced: int


def draw_edges(rng: np.random.Generator, shape: TripleShape, n_sources: int, n_targets: int) -> DrawnEdges:
    """Distinct (source, target) index pairs: out-degrees from the histogram, targets by in-degree weight.

    Same-label relations only point to lower indices (acyclic, no self loops), with the heaviest weights at the
    lowest indices, like an ontology whose general terms are both old and the most linked to.
    """
    acyclic = shape.source == shape.target
    wanted = sample_histogram(rng, shape.out_degree, n_sources)
    weights = sample_histogram(rng, shape.in_degree, n_targets).astype(np.float64)
    if acyclic:
        weights = np.sort(weights)[::-1]
    cumulative = np.cumsum(weights)
    positive = np.cumsum(weights > 0)
    index = np.arange(n_sources, dtype=np.int64)
    if acyclic:  # node i may point to 0..i-1 only
        reach = np.concatenate(([0.0], cumulative))[np.minimum(index, n_targets)]
        capacity = np.concatenate(([0], positive))[np.minimum(index, n_targets)]
    else:
        reach = np.full(n_sources, cumulative[-1] if n_targets else 0.0)
        capacity = np.full(n_sources, positive[-1] if n_targets else 0)
    goal = np.minimum(wanted, capacity)
    keys = np.empty(0, dtype=np.int64)
    missing = goal
    for round_ in range(MAX_DRAW_ROUNDS):
        if round_ == WEIGHTED_ROUNDS:
            # A source wanting most of a small target pool (tiny scales) rarely draws the light targets; the
            # last rounds ignore the weights among the eligible targets so that such degrees are still met.
            cumulative, reach = _flat(weights, index, n_targets, acyclic)
        sources = np.repeat(index, missing)
        if not len(sources):
            break
        targets = np.searchsorted(cumulative, rng.random(len(sources)) * reach[sources], side="right")
        keys = np.unique(np.concatenate((keys, sources * n_targets + targets)))  # sorted, distinct
        missing = goal - np.bincount(keys // max(n_targets, 1), minlength=n_sources)
    placed = len(keys)
    return DrawnEdges(keys // max(n_targets, 1), keys % max(n_targets, 1), int(wanted.sum()) - placed)


def _flat(weights: np.ndarray, index: np.ndarray, n_targets: int, acyclic: bool) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative weights and per-source reach with every eligible (positive-weight) target equally likely."""
    flat = np.cumsum(weights > 0).astype(np.float64)
    if acyclic:
        return flat, np.concatenate(([0.0], flat))[np.minimum(index, n_targets)]
    return flat, np.full(len(index), flat[-1] if n_targets else 0.0)


def _edge_lines(shape: TripleShape, drawn: DrawnEdges) -> Iterator[str]:
    # Ids are labels and digits only, so the JSON needs no escaping.
    head = '{"source":"' + shape.source + ":"
    middle = '","type":"' + shape.type + '","target":"' + shape.target + ":"
    for start in range(0, len(drawn.sources), EDGE_CHUNK):
        pairs = zip(
            drawn.sources[start : start + EDGE_CHUNK].tolist(),
            drawn.targets[start : start + EDGE_CHUNK].tolist(),
            strict=True,
        )
        yield "".join(f'{head}{source}{middle}{target}"}}\n' for source, target in pairs)


# ---- the generator ----------------------------------------------------------------------------------------


def generate_skb(shape: SkbShape, scale: float, seed: int, out_dir: Path, *, progress: bool = True) -> GeneratedSkb:
    """Writes `out_dir`/{schema.json, nodes.jsonl, edges.jsonl}; the files are a function of (shape, scale, seed)."""
    if not scale > 0 or not np.isfinite(scale):
        raise ConfigError(f"scale must be a positive number (1 = the measured size); got {scale}")
    if seed < 0:
        raise ConfigError(f"seed must be a non-negative integer; got {seed}")
    started = time.monotonic()
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "schema.json").write_text(synthetic_schema(shape.schema).to_json() + "\n", encoding="utf-8")
    counts = {label.label: scaled_count(label.count, scale) for label in shape.labels}
    vocabulary = make_vocabulary(seed)
    with (
        (out_dir / "nodes.jsonl").open("w", encoding="utf-8") as sink,
        tqdm(total=sum(counts.values()), desc="synthetic nodes", unit="node", disable=not progress) as bar,
    ):
        for number, label in enumerate(shape.labels):
            rng = random_stream(seed, _NODE_STREAM, number)
            for first in range(0, counts[label.label], NODE_CHUNK):
                size = min(NODE_CHUNK, counts[label.label] - first)
                sink.writelines(_node_lines(rng, vocabulary, label, first, size))
                bar.update(size)
    edges, unplaced = {}, {}
    expected = sum(round(triple.edges * scale) for triple in shape.triples)
    with (
        (out_dir / "edges.jsonl").open("w", encoding="utf-8") as sink,
        tqdm(total=expected, desc="synthetic edges", unit="edge", disable=not progress) as bar,
    ):
        for number, triple in enumerate(shape.triples):
            drawn = draw_edges(
                random_stream(seed, _EDGE_STREAM, number), triple, counts[triple.source], counts[triple.target]
            )
            for lines in _edge_lines(triple, drawn):
                sink.write(lines)
            edges[triple.key], unplaced[triple.key] = len(drawn.sources), drawn.unplaced
            bar.update(len(drawn.sources))
    return GeneratedSkb(out_dir, scale, seed, counts, edges, unplaced, time.monotonic() - started)
