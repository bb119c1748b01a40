"""Fault suite: `kill -9` of the loader and of the Neo4j JVM in the middle of a load, at several stages; a
plain rerun must leave exactly the graph an uninterrupted load leaves (same digest of every node, edge,
property and vector).

The loads run the real CLI on the HPO Epileptic-spasm slice with small batches (vectors from the packaged
packs, so nothing is embedded). Where a kill lands depends on timing; the stage it landed in is recorded in
the assertion message, and the property checked holds wherever it lands.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from neo4j import Driver

from grasp_agent.config import Settings
from grasp_agent.db.server import LocalServer
from tests.conftest import TEST_INSTANCE_ENV, cli_env, reset_database
from tests.neo4j.test_stack import GRASP

pytestmark = pytest.mark.neo4j
LOAD = [GRASP, "load", "hpo", "--subset", "HP:0011097", "--batch-size", "40"]
State = dict[str, object]
STAGES: dict[str, Callable[[State], bool]] = {
    "nodes": lambda s: int(s["nodes_done"]) > 0 and not s["nodes_complete"],  # type: ignore[call-overload]
    "edges": lambda s: int(s["edges_done"]) > 0 and not s["edges_complete"],  # type: ignore[call-overload]
    "documents": lambda s: bool(s["edges_complete"]) and not s["complete"],
}


def graph_digest(driver: Driver) -> str:
    """sha256 over every node (labels, properties, vectors) and edge, in a canonical order; GraspMeta (load
    bookkeeping with timestamps) left out."""
    nodes, _, _ = driver.execute_query(
        "MATCH (n) WHERE NOT n:GraspMeta RETURN labels(n) AS labels, properties(n) AS props ORDER BY n.id"
    )
    edges, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) WHERE NOT a:GraspMeta RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS props "
        "ORDER BY a, t, b"
    )
    digest = hashlib.sha256()
    for row in sorted(json.dumps([sorted(r["labels"]), r["props"]], sort_keys=True, default=str) for r in nodes):
        digest.update(row.encode())
    for row in sorted(json.dumps([r["a"], r["t"], r["b"], r["props"]], sort_keys=True, default=str) for r in edges):
        digest.update(row.encode())
    return f"{len(nodes)} nodes, {len(edges)} edges, {digest.hexdigest()[:16]}"


def _load_state(driver: Driver) -> State | None:
    try:
        records, _, _ = driver.execute_query("MATCH (m:GraspMeta {key: 'load:hpo'}) RETURN m.value AS value")
    except Exception:  # the server is being killed or restarted
        return None
    return json.loads(records[0]["value"]) if records else None


def _run_load() -> subprocess.CompletedProcess[str]:
    return subprocess.run(LOAD, env=cli_env(TEST_INSTANCE_ENV), capture_output=True, text=True, timeout=600)


def _kill_during(stage: str, driver: Driver, kill: Callable[[subprocess.Popen[str]], None]) -> str:
    """Starts a load, kills when its checkpoint shows `stage` (or when it ends first), returns where it was."""
    loader = subprocess.Popen(
        LOAD, env=cli_env(TEST_INSTANCE_ENV), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True
    )
    try:
        deadline = time.monotonic() + 300
        while loader.poll() is None and time.monotonic() < deadline:
            state = _load_state(driver)
            if state is not None and STAGES[stage](state):
                kill(loader)
                return f"killed in {stage}: {state}"
            time.sleep(0.02)
        return f"load ended before {stage} was seen (exit {loader.returncode})"
    finally:
        loader.kill()
        loader.wait(30)


@pytest.fixture(scope="module")
def reference_digest(driver: Driver) -> str:
    reset_database(driver)
    done = _run_load()
    assert done.returncode == 0, done.stderr
    return graph_digest(driver)


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_load_killed_with_sigkill_resumes_to_the_same_graph(
    reference_digest: str, driver: Driver, stage: str
) -> None:
    reset_database(driver)
    where = _kill_during(stage, driver, lambda loader: loader.send_signal(signal.SIGKILL))
    rerun = _run_load()
    assert rerun.returncode == 0, (where, rerun.stderr)
    assert graph_digest(driver) == reference_digest, where


def test_a_load_whose_database_is_killed_resumes_to_the_same_graph(
    reference_digest: str, driver: Driver, test_settings: Settings
) -> None:
    server = LocalServer(test_settings)
    reset_database(driver)

    def kill_jvm(loader: subprocess.Popen[str]) -> None:
        pid = server.pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(pid, 0)  # our child when this session started the server: reap it
        except ChildProcessError:
            while Path(f"/proc/{pid}").exists():
                time.sleep(0.1)

    where = _kill_during("edges", driver, kill_jvm)
    server.start()  # recovers from its transaction log
    driver.verify_connectivity()
    rerun = _run_load()
    assert rerun.returncode == 0, (where, rerun.stderr)
    assert graph_digest(driver) == reference_digest, where
