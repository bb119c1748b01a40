"""The assembled stack answers: versions, the smoke path, our procedures, the schema file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.db.schema import apply_schema
from grasp_agent.db.smoke import ITEMS, run_smoke
from grasp_agent.db.versions import read_versions
from tests.conftest import TEST_INSTANCE_ENV, cli_env

pytestmark = pytest.mark.neo4j
GRASP = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "grasp")


def test_versions_are_the_pinned_ones(driver: Driver, test_settings: Settings) -> None:
    versions = read_versions(driver, test_settings.neo4j_database)
    assert versions.neo4j.startswith("5.26.")
    assert versions.edition == "community"
    assert versions.plugins["gds"] is not None and versions.plugins["gds"].startswith("2.13.")
    assert versions.plugins["apoc"] is not None and versions.plugins["apoc"].startswith("5.26.")
    assert versions.plugins["grasp"] == "0.1.0"


def test_cli_status_prints_every_version(running_server: object) -> None:
    result = subprocess.run([GRASP, "db", "status"], env=cli_env(TEST_INSTANCE_ENV), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "Neo4j 5.26." in result.stdout
    for line_start in ("gds    2.13.", "apoc   5.26.", "grasp  0.1.0"):
        assert line_start in result.stdout


def test_smoke_path_vector_index_gds_and_apoc(driver: Driver, test_settings: Settings) -> None:
    report = run_smoke(driver, test_settings.neo4j_database)
    assert report.vector_hits[0][0] == "a"
    assert report.vector_hits[0][1] == pytest.approx((1 + 0.9 / (0.9**2 + 0.1**2) ** 0.5) / 2, abs=1e-4)
    assert report.vector_hits[1][0] == "hub"
    # d is a leaf: everything it holds flows to c, which also collects from the hub, so c outranks the source;
    # a and b, farthest from d, come last. (run_smoke also checks every score against a reference solve.)
    ranked = [node for node, _ in report.pagerank]
    assert ranked[:3] == ["c", "d", "hub"] and set(ranked[3:]) == {"a", "b"}
    assert report.apoc_version.startswith("5.26.")


def test_smoke_is_idempotent(driver: Driver, test_settings: Settings) -> None:
    run_smoke(driver, test_settings.neo4j_database)
    run_smoke(driver, test_settings.neo4j_database)
    records, _, _ = driver.execute_query("MATCH (n:GraspSmokeItem) RETURN count(n) AS n")
    assert records[0]["n"] == len(ITEMS)
    links, _, _ = driver.execute_query("MATCH (:GraspSmokeItem)-[r:LINKS]->() RETURN count(r) AS n")
    assert links[0]["n"] == 4


def test_grasp_schema_procedure_sees_the_smoke_graph(driver: Driver, test_settings: Settings) -> None:
    run_smoke(driver, test_settings.neo4j_database)
    records, _, _ = driver.execute_query("CALL grasp.schema() YIELD patterns RETURN patterns")
    assert {"source": "GraspSmokeItem", "type": "LINKS", "target": "GraspSmokeItem", "count": 4} in records[0][
        "patterns"
    ]
    checked, _, _ = driver.execute_query(
        "CALL grasp.schema.validatePath($labels, $types)",
        {"labels": ["GraspSmokeItem", "GraspSmokeItem"], "types": ["LINKS"]},
    )
    assert checked[0]["valid"] is True


def test_schema_file_is_applied_idempotently(driver: Driver, test_settings: Settings) -> None:
    assert apply_schema(driver, test_settings.neo4j_database) == ["constraint_meta_key"]
    apply_schema(driver, test_settings.neo4j_database)
    records, _, _ = driver.execute_query("SHOW CONSTRAINTS YIELD name WHERE name = 'grasp_meta_key' RETURN name")
    assert len(records) == 1


def test_apoc_bundle_works_through_its_relocated_libraries(driver: Driver, test_settings: Settings) -> None:
    run_smoke(driver, test_settings.neo4j_database)
    records, _, _ = driver.execute_query(
        """
        RETURN apoc.convert.toJson({name: 'x', tags: [1, 2]}) AS json,
               apoc.text.levenshteinDistance('kitten', 'sitting') AS distance,
               apoc.coll.sum([1, 2, 3.5]) AS total
        """
    )
    row = records[0]
    assert row["json"] in ('{"name":"x","tags":[1,2]}', '{"tags":[1,2],"name":"x"}')
    assert row["distance"] == 3  # commons-text, bundled and relocated
    assert row["total"] == 6.5
    paths, _, _ = driver.execute_query(
        """
        MATCH (d:GraspSmokeItem {id: 'd'})
        CALL apoc.path.expandConfig(d, {relationshipFilter: 'LINKS', minLevel: 3, maxLevel: 3, uniqueness: 'NODE_PATH'})
        YIELD path
        RETURN [n IN nodes(path) | n.id] AS ids ORDER BY ids
        """
    )
    assert [record["ids"] for record in paths] == [["d", "c", "hub", "a"], ["d", "c", "hub", "b"]]
