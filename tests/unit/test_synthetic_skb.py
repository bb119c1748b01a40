"""Synthetic SKBs: deterministic files that load, counts near shape x scale, no self loops or duplicate edges,
an acyclic same-label relation; the shape measurement and the hashing stand-in embedder."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from grasp_agent.errors import ConfigError
from grasp_agent.evaluation.hashing_embedder import HashingEmbedder
from grasp_agent.evaluation.scale_bench import parse_scales, scale_tag
from grasp_agent.skb.generic import GenericSource
from grasp_agent.skb.synthetic import GeneratedSkb, generate_skb
from grasp_agent.skb.synthetic_shape import (
    SkbShape,
    coarsen,
    measure_shape,
    packaged_shape,
)

SCALE = 0.01
EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "generic_example"
FILES = ("schema.json", "nodes.jsonl", "edges.jsonl")


@pytest.fixture(scope="module")
def shape() -> SkbShape:
    return packaged_shape("hpo")


@pytest.fixture(scope="module")
def generated(shape: SkbShape, tmp_path_factory: pytest.TempPathFactory) -> GeneratedSkb:
    return generate_skb(shape, SCALE, 7, tmp_path_factory.mktemp("seed7"), progress=False)


def test_the_same_seed_gives_byte_identical_files_and_another_seed_differs(
    shape: SkbShape, generated: GeneratedSkb, tmp_path: Path
) -> None:
    again = generate_skb(shape, SCALE, 7, tmp_path / "again", progress=False)
    other = generate_skb(shape, SCALE, 8, tmp_path / "other", progress=False)
    for name in FILES:
        assert (again.directory / name).read_bytes() == (generated.directory / name).read_bytes(), name
    assert (other.directory / "nodes.jsonl").read_bytes() != (generated.directory / "nodes.jsonl").read_bytes()
    assert (other.directory / "edges.jsonl").read_bytes() != (generated.directory / "edges.jsonl").read_bytes()


def test_the_files_load_through_the_generic_source(generated: GeneratedSkb) -> None:
    source = generated.source()
    nodes = Counter(node.label for node in source.nodes())
    edges = Counter(f"(:{e.source_label})-[:{e.type}]->(:{e.target_label})" for e in source.edges())
    assert dict(nodes) == generated.nodes
    assert dict(edges) == {key: count for key, count in generated.edges.items() if count}
    assert source.schema().name == "hpo_synthetic"


def _mean_and_std(histogram: dict[int, int]) -> tuple[float, float]:
    values = np.array(list(histogram), dtype=float)
    weights = np.array(list(histogram.values()), dtype=float)
    mean = float(np.average(values, weights=weights))
    return mean, math.sqrt(float(np.average((values - mean) ** 2, weights=weights)))


def test_counts_follow_the_shape_times_the_scale(shape: SkbShape, generated: GeneratedSkb) -> None:
    for label in shape.labels:
        assert generated.nodes[label.label] == max(1, round(label.count * SCALE))
    for triple in shape.triples:
        sources = generated.nodes[triple.source]
        mean, std = _mean_and_std(triple.out_degree)
        # The sum of `sources` out-degree draws: 4 standard deviations, plus what tiny target pools cannot take.
        tolerance = 4 * std * math.sqrt(sources) + generated.unplaced_edges[triple.key] + 2
        assert abs(generated.edges[triple.key] - mean * sources) <= tolerance, triple.key
        assert generated.unplaced_edges[triple.key] <= 0.2 * mean * sources + 5, triple.key


def test_no_self_loops_no_duplicates_and_the_same_label_relation_is_acyclic(generated: GeneratedSkb) -> None:
    seen: set[tuple[object, str, object]] = set()
    parents: dict[object, list[object]] = {}
    for edge in generated.source().edges():
        key = (edge.source_id, edge.type, edge.target_id)
        assert edge.source_id != edge.target_id
        assert key not in seen
        seen.add(key)
        if edge.source_label == edge.target_label:
            parents.setdefault(edge.source_id, []).append(edge.target_id)
    assert parents, "the HPO shape has IS_A between phenotypes"
    assert not _has_cycle(parents)


def _has_cycle(parents: dict[object, list[object]]) -> bool:
    """Kahn's algorithm: a graph is acyclic exactly when repeatedly removing childless nodes removes them all."""
    children: Counter[object] = Counter(node for targets in parents.values() for node in targets)
    waiting = [node for node in parents if children[node] == 0]
    removed = 0
    while waiting:
        node = waiting.pop()
        removed += 1
        for parent in parents.get(node, []):
            children[parent] -= 1
            if children[parent] == 0:
                waiting.append(parent)
    nodes = set(parents) | {node for targets in parents.values() for node in targets}
    return removed != len(nodes)


def test_bad_scale_and_seed_are_refused(shape: SkbShape, tmp_path: Path) -> None:
    for scale in (0.0, -1.0, float("nan")):
        with pytest.raises(ConfigError, match="scale must be a positive number"):
            generate_skb(shape, scale, 0, tmp_path, progress=False)
    with pytest.raises(ConfigError, match="seed must be a non-negative integer"):
        generate_skb(shape, 1.0, -1, tmp_path, progress=False)
    with pytest.raises(ConfigError, match="positive numbers"):
        parse_scales("1,0")
    assert parse_scales("30, 1,10") == [1.0, 10.0, 30.0]
    assert scale_tag(0.02) == "0p02" and scale_tag(30.0) == "30"


def test_measure_shape_counts_the_generic_example() -> None:
    shape = measure_shape(GenericSource(EXAMPLE / "schema.json", EXAMPLE / "nodes.jsonl", EXAMPLE / "edges.jsonl"))
    assert {label.label: label.count for label in shape.labels} == {"Person": 2, "Film": 2, "Studio": 1}
    triples = {triple.key: triple for triple in shape.triples}
    directed = triples["(:Person)-[:DIRECTED]->(:Film)"]
    assert directed.edges == 2
    assert directed.out_degree == {0: 1, 2: 1}  # p1 directed both films, p2 none
    assert directed.in_degree == {1: 2}
    assert triples["(:Film)-[:PRODUCED_BY]->(:Studio)"].in_degree == {2: 1}
    person = shape.label("Person")
    assert person.name_words == {2: 2}
    aliases = {f.name: f for f in person.fields}["aliases"]
    assert aliases.present == 1 and aliases.items == {2: 1} and aliases.words == {1: 1, 2: 1}
    assert SkbShape.from_json(shape.to_json()) == shape


def test_the_packaged_shape_round_trips_and_stays_small(shape: SkbShape) -> None:
    assert SkbShape.from_json(shape.to_json()) == shape
    assert len(shape.to_json()) < 200_000
    assert coarsen({3: 1, 12345: 2}) == {3: 1, 12345: 2}  # few bins: nothing is rounded
    assert sum(coarsen({value: 1 for value in range(2000)}, max_bins=100).values()) == 2000
    assert len(coarsen({value: 1 for value in range(2000)}, max_bins=100)) <= 100


def test_hashing_embedder_is_deterministic_normalised_and_384_wide() -> None:
    embedder = HashingEmbedder()
    texts = ["Seizure of the left arm", "seizure, LEFT arm", "", "completely different words"]
    vectors = embedder.embed_texts(texts)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert np.array_equal(vectors, HashingEmbedder().embed_texts(texts))  # a fresh instance: no shared state
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[3])
    assert embedder.model_id == "hashing:384" and embedder.dimension == 384
    cut = embedder.with_max_tokens(2)
    assert cut.model_id == "hashing:384:max2"
    assert np.array_equal(cut.embed_texts(["one two three"]), embedder.embed_texts(["one two"]))
    assert len(embedder.embed_query("a b")) == 384
