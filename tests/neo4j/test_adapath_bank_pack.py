"""Path-Bank packs on the real HPO slice: a small bank exported, cleared and imported comes back node for node
(vector index included) and votes exactly as before; a pack of other data is refused; the CLI does the same."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from grasp_agent.adapath.bank_build import BankConfig
from grasp_agent.config import Settings
from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.embed.cache import CachedEmbedder
from tests.neo4j.test_adapath_bank import slice_queries

pytestmark = pytest.mark.neo4j

CLEAR = "MATCH (n) WHERE n:AdaPathBank OR n:AdaPathQuery OR n:AdaPathMetaPath DETACH DELETE n"


def stored_bank(driver: Driver) -> dict[str, Any]:
    """Every bank node and link with all its properties (embeddings included), in a comparable form."""
    bank, _, _ = driver.execute_query("MATCH (b:AdaPathBank) RETURN properties(b) AS b")
    queries, _, _ = driver.execute_query(
        "MATCH (q:AdaPathQuery) OPTIONAL MATCH (q)-[u:ADAPATH_USES]->(m:AdaPathMetaPath) "
        "WITH q, u, m ORDER BY m.signature "
        "RETURN q.id AS id, properties(q) AS q, collect([m.signature, properties(u)]) AS uses ORDER BY id"
    )
    metas, _, _ = driver.execute_query("MATCH (m:AdaPathMetaPath) RETURN properties(m) AS m ORDER BY m.signature")
    return {
        "bank": [row["b"] for row in bank],
        "queries": [(row["q"], row["uses"]) for row in queries],
        "meta_paths": [row["m"] for row in metas],
    }


def votes(driver: Driver, database: str, vector: list[float]) -> list[tuple[str, float, int, int, float]]:
    from grasp_agent.adapath.bank_retrieval import retrieve_meta_paths

    ranked = retrieve_meta_paths(driver, database, vector, queries=10, limit=10)
    return [(r.meta_path.signature, r.vote, r.voters, r.support, r.first_vote) for r in ranked]


def test_an_exported_bank_imports_as_built_and_votes_the_same(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_pack import BankPack, BankPackError
    from grasp_agent.adapath.bank_store import BankStore
    from grasp_agent.adapath.bank_transfer import export_bank, import_bank, read_loaded_skb

    database = test_settings.neo4j_database
    loaded = read_loaded_skb(driver, database, embedder.model_id)
    queries = slice_queries(12)
    held_back, bank_queries = queries[0], queries[1:]
    config = BankConfig(corridor_size=60, paths_per_answer=2, max_answers=2)
    build_bank(
        driver, database, hpo_slice.schema(), loaded.identity.fingerprint, embedder, bank_queries, config,
        rebuild=True, progress=False,
    )  # fmt: skip
    driver.execute_query("CALL db.awaitIndexes(120)")
    vector = embedder.embed_query(held_back.text)
    before, built = votes(driver, database, vector), stored_bank(driver)
    assert before and len(built["queries"]) == len(bank_queries)

    pack = export_bank(driver, database, loaded, source="slice test")
    assert pack.manifest.identity == loaded.identity and pack.manifest.content is not None
    # In the order the build wrote them, which the import replays for the vector index (bank_pack.py).
    assert [q.id for q in pack.queries] == [q.id for q in bank_queries]
    path = tmp_path / "bank.npz"
    pack.save(path)
    skipped = import_bank(driver, database, BankPack.load(path), loaded)
    assert not skipped.imported and "already holds a Path-Bank of 'hpo' with 11 queries" in skipped.reason

    driver.execute_query(CLEAR)
    driver.execute_query("DROP INDEX adapath_query_embedding IF EXISTS")  # the import must make it again
    outcome = import_bank(driver, database, BankPack.load(path), loaded)
    assert outcome.imported and outcome.queries == len(bank_queries)
    assert (outcome.meta_paths, outcome.uses) == (pack.manifest.meta_paths, pack.manifest.uses)
    assert stored_bank(driver) == built  # same nodes, properties, links, embeddings, support
    state, _, _ = driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, state WHERE name = 'adapath_query_embedding' RETURN state"
    )
    assert [row["state"] for row in state] == ["ONLINE"]  # the import waited for it
    assert votes(driver, database, vector) == before
    assert BankStore(driver, database).identity() == loaded.identity

    # Other data under another fingerprint is refused, even with force; the bank stays as it was.
    other = replace(pack.manifest, fingerprint="another-load", content="0" * 64)
    with pytest.raises(BankPackError, match="other data"):
        import_bank(driver, database, replace(pack, manifest=other), loaded, force=True)
    assert stored_bank(driver) == built
    # The same data loaded from files with other timestamps (a fresh install) is taken, under this load.
    reinstalled = replace(pack, manifest=replace(pack.manifest, fingerprint="fresh-install"))
    assert import_bank(driver, database, reinstalled, loaded, force=True).imported
    assert stored_bank(driver) == built
    driver.execute_query(CLEAR)


def test_cli_exports_and_imports_a_bank(
    hpo_slice: Any, driver: Driver, test_settings: Settings, embedder: GraspEmbedder, tmp_path: Path
) -> None:
    from grasp_agent.adapath.bank import build_bank
    from grasp_agent.adapath.bank_transfer import read_loaded_skb
    from tests.conftest import TEST_INSTANCE_ENV, cli_env
    from tests.neo4j.test_stack import GRASP

    database = test_settings.neo4j_database
    loaded = read_loaded_skb(driver, database, embedder.model_id)
    config = BankConfig(corridor_size=40, paths_per_answer=2, max_answers=2)
    build_bank(
        driver, database, hpo_slice.schema(), loaded.identity.fingerprint, embedder, slice_queries(4), config,
        rebuild=True, progress=False,
    )  # fmt: skip
    built = stored_bank(driver)
    assert isinstance(embedder, CachedEmbedder)
    env = cli_env({**TEST_INSTANCE_ENV, "GRASP_EMBEDDING_CACHE_PATH": str(embedder.path)})
    path = tmp_path / "bank.npz"

    def grasp(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([GRASP, "adapath", *args], env=env, capture_output=True, text=True)

    exported = grasp("export-bank", "--out", str(path))
    assert exported.returncode == 0, exported.stderr
    assert "exported the Path-Bank of 'hpo' (4 queries" in exported.stdout and path.is_file()
    kept = grasp("import-bank", str(path))
    assert kept.returncode == 0 and "not imported: the database already holds" in kept.stdout, kept.stderr
    driver.execute_query(CLEAR)
    imported = grasp("import-bank", str(path))
    assert imported.returncode == 0, imported.stderr
    assert "Path-Bank: imported bank.npz (4 queries" in imported.stdout
    assert stored_bank(driver) == built
    # The packaged HPO bank was built on all of HPO, not on this slice: refused in one line, nothing written.
    packaged = grasp("import-bank", "--force")
    assert packaged.returncode == 1 and "other data" in packaged.stdout + packaged.stderr
    assert stored_bank(driver) == built
    driver.execute_query(CLEAR)
