"""Shared fixtures. Live tests run against a real local Neo4j instance named 'test' on its own ports."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.cypher_queries import fill_identifiers
from grasp_agent.db.connection import open_driver
from grasp_agent.db.runtime import ensure_runtime
from grasp_agent.db.server import LocalServer

TEST_INSTANCE_ENV = {
    "GRASP_INSTANCE": "test",
    "GRASP_BOLT_PORT": "17687",
    "GRASP_HTTP_PORT": "17474",
    "GRASP_HEAP_SIZE": "2g",
    "GRASP_PAGECACHE_SIZE": "512m",
}
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def settings_for(env: dict[str, str]) -> Settings:
    """Settings exactly as a `grasp` subprocess with this environment (and no other GRASP_*) would build them."""
    with pytest.MonkeyPatch.context() as patch:
        for key in [key for key in os.environ if key.startswith("GRASP_")]:
            patch.delenv(key)
        for key, value in env.items():
            patch.setenv(key, value)
        return Settings()


def cli_env(env: dict[str, str]) -> dict[str, str]:
    """Environment for running the `grasp` CLI as a subprocess against a given instance."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("GRASP_")}
    return {**base, **env, "COLUMNS": "200"}


@pytest.fixture(scope="session")
def test_settings() -> Settings:
    return settings_for(TEST_INSTANCE_ENV)


@pytest.fixture(scope="session")
def running_server(test_settings: Settings) -> Iterator[LocalServer]:
    """Builds the runtime if needed, starts the 'test' instance for the session and stops it afterwards."""
    ensure_runtime(test_settings)
    server = LocalServer(test_settings)
    outcome = server.start()
    yield server
    if not outcome.already_running:
        server.stop()


@pytest.fixture(scope="session")
def driver(running_server: LocalServer, test_settings: Settings) -> Iterator[Driver]:
    with open_driver(test_settings) as session_driver:
        yield session_driver


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def reset_database(driver: Driver) -> None:
    """Empties the test database: data, grasp and AdaPath vector indexes and constraints (the schema file is
    re-applied by the next load). Only ever called on the 'test' instance."""
    with driver.session() as session:  # CALL ... IN TRANSACTIONS needs an auto-commit transaction
        session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
    for kind, show in (("INDEX", "SHOW VECTOR INDEXES"), ("CONSTRAINT", "SHOW CONSTRAINTS")):
        records, _, _ = driver.execute_query(
            f"{show} YIELD name WHERE name STARTS WITH 'grasp_' OR name STARTS WITH 'adapath_' RETURN name"
        )
        for record in records:
            # Index names cannot be parameters in DROP; these come from the server and pass the identifier check.
            driver.execute_query(fill_identifiers(f"DROP {kind} {{{{name}}}} IF EXISTS", name=record["name"]))


@pytest.fixture(scope="session")
def embedder(test_settings: Settings, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The real offline default embedder (numpy MiniLM), with a cache file private to this test session."""
    from grasp_agent.embed.factory import make_embedder

    cache = tmp_path_factory.mktemp("embeddings") / "cache.sqlite"
    return make_embedder(test_settings.model_copy(update={"embedding_cache_path": cache}))


SPASM = ("HP:0011097",)  # Epileptic spasm: a real HPO slice of 439 nodes and 1,421 edges


@pytest.fixture(scope="module")
def hpo_slice(driver: Driver, test_settings: Settings, embedder):  # type: ignore[no-untyped-def]
    """The test database holding exactly the Epileptic-spasm slice of HPO (reloaded per module, since other
    modules empty the database)."""
    from grasp_agent.skb.hpo import HpoSource
    from grasp_agent.skb.loader import LoadOptions, load_skb

    reset_database(driver)
    source = HpoSource(subset_roots=SPASM)
    load_skb(driver, test_settings.neo4j_database, source, embedder, LoadOptions(progress=False))
    return source


@pytest.fixture(scope="module")
def pipeline_settings(test_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Test settings whose text indexes, weights and fusion tables live in a private folder."""
    root = tmp_path_factory.mktemp("pipeline")
    return test_settings.model_copy(
        update={
            "text_index_dir": root / "text",
            "dense_index_dir": root / "dense",
            "field_weights_dir": root / "weights",
            "fusion_tables": root / "none.json",
        }
    )


@pytest.fixture(scope="module")
def grasp(hpo_slice: object, driver: Driver, pipeline_settings: Settings, embedder):  # type: ignore[no-untyped-def]
    """The whole pipeline on the HPO slice: heuristic planner, uniform field weights, the default reranker (the
    listwise one trained for HPO, as `GRASP_RERANKER=auto` picks it)."""
    from grasp_agent.api import Grasp
    from grasp_agent.pipeline.parts import assemble_parts

    return Grasp(assemble_parts(driver, pipeline_settings, embedder))
