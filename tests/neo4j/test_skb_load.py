"""Loading SKBs into the live server: round trips, counts, vector search, idempotency, resumption, bad input."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import GraspError, SchemaError, SourceFormatError
from grasp_agent.skb.generic import GenericSource
from grasp_agent.skb.hpo import HpoSource
from grasp_agent.skb.loader import LoadOptions, load_skb
from grasp_agent.skb.schema import SkbSchema
from grasp_agent.skb.source import EdgeRecord, NodeRecord, SkbSource
from grasp_agent.skb.stark import StarkSource
from tests.conftest import reset_database

pytestmark = pytest.mark.neo4j
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GENERIC = FIXTURES / "generic_example"
QUIET = LoadOptions(progress=False, batch_size=3)  # tiny batches: several commits even on the tiny fixtures


def _db_counts(driver: Driver) -> tuple[Counter[str], Counter[tuple[str, str, str]]]:
    nodes, _, _ = driver.execute_query("MATCH (n) WHERE NOT n:GraspMeta RETURN labels(n)[0] AS label, count(*) AS c")
    edges, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN labels(a)[0] AS s, type(r) AS t, labels(b)[0] AS e, count(*) AS c"
    )
    return (Counter({r["label"]: r["c"] for r in nodes}), Counter({(r["s"], r["t"], r["e"]): r["c"] for r in edges}))


def _source_counts(source: SkbSource) -> tuple[Counter[str], Counter[tuple[str, str, str]]]:
    return (
        Counter(record.label for record in source.nodes()),
        Counter((e.source_label, e.type, e.target_label) for e in source.edges()),
    )


@pytest.fixture
def empty_db(driver: Driver) -> Iterator[Driver]:
    reset_database(driver)
    yield driver


def test_generic_example_round_trips(empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder) -> None:
    source = GenericSource(GENERIC / "schema.json", GENERIC / "nodes.jsonl", GENERIC / "edges.jsonl")
    summary = load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    assert not summary.already_loaded
    assert _db_counts(empty_db) == _source_counts(source)
    records, _, _ = empty_db.execute_query(
        "MATCH (p:Person {id: 'p1'})-[:DIRECTED]->(f:Film {id: 'f1'}) "
        "RETURN p.aliases AS aliases, f.genres AS genres, f.doc AS doc, size(f.doc_embedding) AS dims"
    )
    row = records[0]
    assert row["aliases"] == ["Miyazaki Hayao", "宮崎駿"]
    assert row["genres"] == ["animation", "fantasy"]
    assert row["doc"].startswith("Film: Spirited Away\nplot: A girl wanders")
    assert "DIRECTED <- Person: Hayao Miyazaki" in row["doc"]
    assert row["dims"] == embedder.dimension
    role, _, _ = empty_db.execute_query(
        "MATCH (:Person {id: 'p2'})-[r:ACTED_IN]->(:Film {id: 'f1'}) RETURN r.role AS role"
    )
    assert role[0]["role"] == "Chihiro"


def test_reloading_the_same_source_is_a_no_op(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    source = GenericSource(GENERIC / "schema.json", GENERIC / "nodes.jsonl", GENERIC / "edges.jsonl")
    load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    before = _db_counts(empty_db)
    again = load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    assert again.already_loaded
    assert _db_counts(empty_db) == before
    # --force walks every stage again; MERGE and the doc hashes keep it from writing anything twice
    forced = load_skb(
        empty_db, test_settings.neo4j_database, source, embedder, LoadOptions(progress=False, batch_size=3, force=True)
    )
    assert not forced.already_loaded and forced.embedded_texts == 0
    assert _db_counts(empty_db) == before


class _CrashingSource(SkbSource):
    """The real source, but the stream breaks after `crash_after` edges, like a killed process would."""

    def __init__(self, inner: SkbSource, crash_after: int) -> None:
        self.inner, self.crash_after = inner, crash_after

    def schema(self) -> SkbSchema:
        return self.inner.schema()

    def nodes(self) -> Iterator[NodeRecord]:
        return self.inner.nodes()

    def edges(self) -> Iterator[EdgeRecord]:
        for number, edge in enumerate(self.inner.edges()):
            if number == self.crash_after:
                raise OSError("simulated crash while reading edges")
            yield edge

    def fingerprint(self) -> str:
        return self.inner.fingerprint()


def test_interrupted_load_resumes_after_the_last_committed_batch(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    source = GenericSource(GENERIC / "schema.json", GENERIC / "nodes.jsonl", GENERIC / "edges.jsonl")
    with pytest.raises(OSError, match="simulated crash"):
        load_skb(empty_db, test_settings.neo4j_database, _CrashingSource(source, crash_after=4), embedder, QUIET)
    nodes, edges = _db_counts(empty_db)
    assert sum(nodes.values()) == 5 and sum(edges.values()) == 3  # one committed edge batch of 3
    state, _, _ = empty_db.execute_query("MATCH (m:GraspMeta {key: 'load:films'}) RETURN m.value AS v")
    assert '"edges_done":3' in state[0]["v"]
    resumed = load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    assert not resumed.already_loaded
    assert _db_counts(empty_db) == _source_counts(source)


def test_a_second_skb_in_the_same_database_is_refused(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    generic = GenericSource(GENERIC / "schema.json", GENERIC / "nodes.jsonl", GENERIC / "edges.jsonl")
    load_skb(empty_db, test_settings.neo4j_database, generic, embedder, QUIET)
    stark = StarkSource(FIXTURES / "stark" / "prime", "prime")
    with pytest.raises(GraspError, match="already holds the SKB 'films'"):
        load_skb(empty_db, test_settings.neo4j_database, stark, embedder, QUIET)


def test_stark_prime_fixture_round_trips_with_integer_ids(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    source = StarkSource(FIXTURES / "stark" / "prime", "prime")
    load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    assert _db_counts(empty_db) == _source_counts(source)
    expected = {record.id: record for record in source.nodes()}
    records, _, _ = empty_db.execute_query(
        "MATCH (n) WHERE NOT n:GraspMeta RETURN n.id AS id, n.name AS name, labels(n)[0] AS label ORDER BY id"
    )
    assert [r["id"] for r in records] == sorted(expected)
    assert all(isinstance(r["id"], int) for r in records)
    assert all(r["name"] == expected[r["id"]].name and r["label"] == expected[r["id"]].label for r in records)
    for record in expected.values():
        for field, value in record.properties.items():
            stored, _, _ = empty_db.execute_query(
                "MATCH (n {id: $id}) RETURN n[$field] AS v", id=record.id, field=field
            )
            assert stored[0]["v"] == value


def test_unknown_node_type_is_refused_and_nothing_half_written(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    nodes = tmp_path / "nodes.jsonl"
    nodes.write_text((GENERIC / "nodes.jsonl").read_text() + '{"id": "x", "type": "Robot", "name": "R2"}\n')
    with pytest.raises(SourceFormatError, match=r"nodes.jsonl:6: .*Robot"):
        source = GenericSource(GENERIC / "schema.json", nodes, GENERIC / "edges.jsonl")
        load_skb(empty_db, test_settings.neo4j_database, source, embedder, LoadOptions(progress=False))
    nodes_count, _ = _db_counts(empty_db)
    assert sum(nodes_count.values()) == 0  # the one batch that held the bad line never committed


def test_node_type_outside_the_schema_is_a_schema_error(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    generic = GenericSource(GENERIC / "schema.json", GENERIC / "nodes.jsonl", GENERIC / "edges.jsonl")

    class Mislabelled(_CrashingSource):
        def nodes(self) -> Iterator[NodeRecord]:
            yield NodeRecord("Spaceship", "s1", "Falcon")

    with pytest.raises(SchemaError, match="unknown node type 'Spaceship'"):
        load_skb(empty_db, test_settings.neo4j_database, Mislabelled(generic, 10**9), embedder, QUIET)


def _generic(tmp_path: Path, nodes: str, edges: str | None = None) -> GenericSource:
    (tmp_path / "nodes.jsonl").write_text(nodes, encoding="utf-8")
    (tmp_path / "edges.jsonl").write_text(
        edges if edges is not None else (GENERIC / "edges.jsonl").read_text(), encoding="utf-8"
    )
    return GenericSource(GENERIC / "schema.json", tmp_path / "nodes.jsonl", tmp_path / "edges.jsonl")


def test_a_load_that_fails_before_writing_leaves_no_trace(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    bad = _generic(tmp_path, (GENERIC / "nodes.jsonl").read_text() + '{"id": "x", "type": "Robot", "name": "R"}\n')
    with pytest.raises(SourceFormatError, match=r"nodes.jsonl:6"):
        load_skb(empty_db, test_settings.neo4j_database, bad, embedder, LoadOptions(progress=False))
    meta, _, _ = empty_db.execute_query("MATCH (m:GraspMeta) RETURN m.key AS key")
    assert [row["key"] for row in meta] == []  # no SKB is claimed, so another one loads
    constraints, _, _ = empty_db.execute_query(
        "SHOW CONSTRAINTS YIELD name WHERE name STARTS WITH 'grasp_' AND name <> 'grasp_meta_key' RETURN name"
    )
    assert constraints == []
    stark = StarkSource(FIXTURES / "stark" / "prime", "prime")
    assert not load_skb(empty_db, test_settings.neo4j_database, stark, embedder, QUIET).already_loaded


def test_a_reload_of_fixed_files_converges_to_them(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    nodes, edges = (GENERIC / "nodes.jsonl").read_text(), (GENERIC / "edges.jsonl").read_text()
    # first load: a typo'd id, a field and an edge that the fixed files no longer have
    typo_nodes = nodes.replace('"f1"', '"f1x"').replace(
        '"bio": "Japanese actress."', '"bio": "Japanese actress.", "aliases": "Rumi"'
    )
    typo_edges = edges.replace('"f1"', '"f1x"') + '{"source": "p2", "type": "ACTED_IN", "target": "f2"}\n'
    (tmp_path / "typo").mkdir()
    load_skb(
        empty_db, test_settings.neo4j_database, _generic(tmp_path / "typo", typo_nodes, typo_edges), embedder, QUIET
    )
    (tmp_path / "fixed").mkdir()
    fixed = _generic(tmp_path / "fixed", nodes, edges)
    summary = load_skb(empty_db, test_settings.neo4j_database, fixed, embedder, QUIET)
    assert summary.stale_nodes_removed == {"Film": 1}
    assert summary.stale_edges_removed == {"(:Person)-[:ACTED_IN]->(:Film)": 1}
    assert _db_counts(empty_db) == _source_counts(fixed)
    ids, _, _ = empty_db.execute_query("MATCH (n) WHERE NOT n:GraspMeta RETURN n.id AS id ORDER BY id")
    assert [row["id"] for row in ids] == sorted(str(record.id) for record in fixed.nodes())
    aliases, _, _ = empty_db.execute_query("MATCH (p:Person {id: 'p2'}) RETURN p.aliases AS aliases, p.doc AS doc")
    assert aliases[0]["aliases"] is None and "Rumi\n" not in aliases[0]["doc"]
    found, _, _ = empty_db.execute_query(
        "CALL db.index.vector.queryNodes('grasp_film_name', 5, $v) YIELD node RETURN collect(node.id) AS ids",
        v=list(embedder.embed_query("Spirited Away")),
    )
    assert "f1x" not in found[0]["ids"] and "f1" in found[0]["ids"]


def test_nodes_grasp_did_not_write_are_refused_before_loading(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    empty_db.execute_query("CREATE (:Film {name: 'foreign'}), (:Film {name: 'also foreign'})")
    source = GenericSource(GENERIC / "schema.json", GENERIC / "nodes.jsonl", GENERIC / "edges.jsonl")
    with pytest.raises(GraspError, match=r"nodes without an `id` in the schema's labels \{'Film': 2\}"):
        load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    nodes, _ = _db_counts(empty_db)
    assert nodes == Counter({"Film": 2})  # nothing written, nothing of theirs touched


def test_skb_drop_removes_the_loaded_skb_and_a_new_one_loads(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder
) -> None:
    import subprocess

    from tests.conftest import TEST_INSTANCE_ENV, cli_env
    from tests.neo4j.test_stack import GRASP

    source = GenericSource(GENERIC / "schema.json", GENERIC / "nodes.jsonl", GENERIC / "edges.jsonl")
    load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    env = cli_env(TEST_INSTANCE_ENV)
    refused = subprocess.run([GRASP, "skb", "drop"], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert refused.returncode == 2 and "without --yes" in refused.stdout
    assert sum(_db_counts(empty_db)[0].values()) == 5
    dropped = subprocess.run([GRASP, "skb", "drop", "--yes"], env=env, capture_output=True, text=True)
    assert dropped.returncode == 0, dropped.stderr
    assert "dropped 'films': 5 nodes" in " ".join(dropped.stdout.split())
    left, _, _ = empty_db.execute_query("MATCH (n) RETURN count(n) AS n")
    assert left[0]["n"] == 0
    indexes, _, _ = empty_db.execute_query("SHOW INDEXES YIELD name WHERE name STARTS WITH 'grasp_film' RETURN name")
    assert indexes == []
    stark = StarkSource(FIXTURES / "stark" / "prime", "prime")
    assert not load_skb(empty_db, test_settings.neo4j_database, stark, embedder, QUIET).already_loaded


# --- HPO: a real slice, loaded once for the tests below ---------------------------------------------------


def test_hpo_slice_counts_match_the_source(hpo_slice: HpoSource, driver: Driver) -> None:
    assert _db_counts(driver) == _source_counts(hpo_slice)


def test_hpo_ids_are_the_public_source_ids(hpo_slice: HpoSource, driver: Driver) -> None:
    records, _, _ = driver.execute_query(
        "MATCH (d:Disease {id: 'OMIM:619340'})-[:HAS_PHENOTYPE]->(p:Phenotype {id: 'HP:0011097'}) "
        "MATCH (g:Gene)-[:ASSOCIATED_WITH]->(d) RETURN d.name AS disease, p.name AS phenotype, collect(g.id) AS genes"
    )
    assert records[0]["disease"] == "Developmental and epileptic encephalopathy 96"
    assert records[0]["phenotype"] == "Epileptic spasm"
    assert "NCBIGene:4905" in records[0]["genes"]  # NSF


@pytest.mark.parametrize(
    "name,hpo_id",
    [("Epileptic spasm", "HP:0011097"), ("Infantile spasms", "HP:0012469"), ("Motor seizure", "HP:0020219")],
)
def test_vector_search_for_a_phenotype_name_returns_it_first(
    hpo_slice: HpoSource, driver: Driver, embedder: GraspEmbedder, name: str, hpo_id: str
) -> None:
    vector = embedder.with_max_tokens(64).embed_query(name)
    records, _, _ = driver.execute_query(
        "CALL db.index.vector.queryNodes('grasp_phenotype_name', 3, $v) YIELD node RETURN node.id AS id", v=vector
    )
    assert records[0]["id"] == hpo_id


def test_every_node_has_both_embeddings_and_a_bounded_document(
    hpo_slice: HpoSource, driver: Driver, embedder: GraspEmbedder
) -> None:
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE NOT n:GraspMeta RETURN n.doc AS doc, size(n.name_embedding) AS a, size(n.doc_embedding) AS b"
    )
    assert {(r["a"], r["b"]) for r in records} == {(embedder.dimension, embedder.dimension)}
    # cut where the model cuts (MiniLM's own max_seq_length), so the stored document is what was embedded
    assert embedder.max_tokens == 256 and max(embedder.count_tokens(r["doc"]) for r in records) <= 256
    states, _, _ = driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, state WHERE name STARTS WITH 'grasp_' "
        "RETURN collect(name) AS names, collect(DISTINCT state) AS states"
    )
    assert sorted(states[0]["names"]) == sorted(
        f"grasp_{label}_{kind}" for label in ("phenotype", "disease", "gene") for kind in ("name", "doc")
    )
    assert states[0]["states"] == ["ONLINE"]


def test_cli_skb_info_shows_the_loaded_kb_and_exports_its_schema(hpo_slice: HpoSource) -> None:
    import json
    import subprocess

    from tests.conftest import TEST_INSTANCE_ENV, cli_env
    from tests.neo4j.test_stack import GRASP

    shown = subprocess.run([GRASP, "skb", "info"], env=cli_env(TEST_INSTANCE_ENV), capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert "load: complete; embedder: local:all-MiniLM-L6-v2:max256" in shown.stdout
    assert "(:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)" in shown.stdout
    assert "grasp_phenotype_name" in shown.stdout and "ONLINE 100%" in shown.stdout
    exported = subprocess.run(
        [GRASP, "skb", "info", "--json"], env=cli_env(TEST_INSTANCE_ENV), capture_output=True, text=True
    )
    assert SkbSchema.model_validate(json.loads(exported.stdout)) == hpo_slice.schema()


def test_exported_vector_packs_answer_a_reload_without_embedding(
    hpo_slice: HpoSource, driver: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    """Export the slice's stored vectors, then embed its names and documents through an empty cache that has
    only those packs: nothing reaches the model, and the vectors are the stored ones (int8 round trip)."""
    import subprocess

    import numpy as np

    from grasp_agent.embed.cache import CachedEmbedder
    from grasp_agent.embed.vector_pack import PackShelf
    from tests.conftest import TEST_INSTANCE_ENV, cli_env
    from tests.neo4j.test_stack import GRASP

    assert isinstance(embedder, CachedEmbedder)
    env = {**TEST_INSTANCE_ENV, "GRASP_EMBEDDING_CACHE_PATH": str(embedder.path)}
    done = subprocess.run(
        [GRASP, "skb", "export-vectors", "--out", str(tmp_path / "packs")],
        env=cli_env(env),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "text fields:" in done.stdout and "hpo-local_all-MiniLM-L6-v2_max64.npz" in done.stdout

    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE n.doc IS NOT NULL RETURN n.name AS name, n.doc AS doc, "
        "n.name_embedding AS name_vector, n.doc_embedding AS doc_vector"
    )
    with CachedEmbedder(embedder.inner, tmp_path / "empty.sqlite", packs=PackShelf(tmp_path / "packs")) as cached:
        names, docs = cached.with_max_tokens(64), cached.with_max_tokens(256)
        name_vectors = names.embed_texts([r["name"] for r in records])
        doc_vectors = docs.embed_texts([r["doc"] for r in records])
        assert names.misses == docs.misses == 0
        assert docs.pack_hits == len({r["doc"] for r in records})
    stored_docs = np.asarray([r["doc_vector"] for r in records], dtype=np.float32)
    stored_names = np.asarray([r["name_vector"] for r in records], dtype=np.float32)
    assert (doc_vectors * stored_docs).sum(axis=1).min() >= 0.9999
    assert (name_vectors * stored_names).sum(axis=1).min() >= 0.9999


HOSTILE_NAME = "Hayao\x1b]52;c;cm0gLXJmIH4K\x07 Miyazaki\u202e\x9b2J"  # OSC 52 clipboard write, bidi override, C1 CSI
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


def test_control_characters_in_names_and_text_fields_are_stripped_at_load(
    empty_db: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    import json

    rows = [json.loads(line) for line in (GENERIC / "nodes.jsonl").read_text().splitlines() if line.strip()]
    rows[0].update(name=HOSTILE_NAME, bio="animator \x1b[8mhidden\x1b[0m", aliases=["\x1b[2Jx", "y"])
    source = _generic(tmp_path, "".join(json.dumps(row) + "\n" for row in rows))  # ASCII: the controls as \u escapes
    load_skb(empty_db, test_settings.neo4j_database, source, embedder, QUIET)
    found, _, _ = empty_db.execute_query(
        "MATCH (p:Person {id: 'p1'}) RETURN p.name AS name, p.bio AS bio, p.aliases AS aliases, p.doc AS doc"
    )
    row = found[0]
    assert row["name"] == "Hayao]52;c;cm0gLXJmIH4K Miyazaki2J"
    assert row["bio"] == "animator [8mhidden[0m" and row["aliases"] == ["[2Jx", "y"]
    assert not [c for c in RAW_CONTROLS if c in row["doc"]]


def test_grasp_load_jsonl_of_deeply_nested_json_is_one_error_line(empty_db: Driver, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from grasp_agent.cli.main import app
    from tests.conftest import TEST_INSTANCE_ENV

    deep = "[" * 100_000 + "]" * 100_000
    source = _generic(tmp_path, '{"id": "p1", "type": "Person", "name": "A", "bio": ' + deep + "}\n")
    env = {**TEST_INSTANCE_ENV, "GRASP_EMBEDDING_CACHE_PATH": str(tmp_path / "cache.sqlite"), "COLUMNS": "200"}
    arguments = [
        "--nodes",
        str(source.nodes_path),
        "--edges",
        str(source.edges_path),
        "--schema",
        str(GENERIC / "schema.json"),
    ]
    done = CliRunner().invoke(app, ["load", "jsonl", *arguments], env=env)
    assert done.exit_code == 1, done.output
    last = done.stderr.splitlines()[-1]  # after the progress bar
    assert last.startswith("error: ") and "nodes.jsonl:1: JSON nested too deeply" in last
    assert isinstance(done.exception, SystemExit) and "Traceback" not in done.output
    meta, _, _ = empty_db.execute_query("MATCH (m:GraspMeta) RETURN m.key AS key")
    assert [row["key"] for row in meta] == []  # nothing claimed: the next load starts clean
