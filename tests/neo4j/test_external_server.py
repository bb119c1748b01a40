"""The external-server path (GRASP_NEO4J_URI/USER/PASSWORD, as for Aura or a cluster), exercised end to end
through the CLI against the running test instance treated as remote: the client has no local instance and
its own empty project folder, so everything it does goes through the URI and the credentials it was given."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from grasp_agent.config import Settings
from tests.conftest import cli_env
from tests.neo4j.test_stack import GRASP

pytestmark = pytest.mark.neo4j

DEE96 = "OMIM:619340"
QUESTION = "Which diseases present with epileptic spasms and are associated with the gene NSF?"


def _remote_env(test_settings: Settings, root: Path, password: str | None = None) -> dict[str, str]:
    secret = password if password is not None else test_settings.password_file.read_text().strip()
    return {
        "GRASP_NEO4J_URI": f"bolt://127.0.0.1:{test_settings.bolt_port}",
        "GRASP_NEO4J_USER": "neo4j",
        "GRASP_NEO4J_PASSWORD": secret,
        "GRASP_INSTANCE": "remote-client",
        "GRASP_PROJECT_ROOT": str(root),
        "GRASP_EMBEDDING_CACHE_PATH": str(root / "cache.sqlite"),
    }


def _grasp(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GRASP, *args], env=cli_env(env), capture_output=True, text=True, timeout=600)


def test_an_external_server_is_used_not_started(hpo_slice: object, test_settings: Settings, tmp_path: Path) -> None:
    env = _remote_env(test_settings, tmp_path)
    started = _grasp(env, "db", "start")
    assert started.returncode == 0, started.stderr
    assert "using the external server at bolt://127.0.0.1:" in started.stdout and "nothing to start" in started.stdout
    assert not (tmp_path / ".grasp" / "instances").exists()  # no local instance was made for the client
    info = _grasp(env, "skb", "info")
    assert info.returncode == 0, info.stderr
    assert "(:Disease)-[:HAS_PHENOTYPE]->(:Phenotype)" in info.stdout
    searched = _grasp(env, "search", QUESTION, "-k", "3", "--json")
    assert searched.returncode == 0, searched.stderr
    result = json.loads(searched.stdout)
    assert result["hits"][0]["node_id"] == DEE96 and result["failures"] == {}
    # the client's own indexes, built from the remote data, kept under its instance name
    assert (tmp_path / ".grasp" / "instances" / "remote-client" / "text_index").is_dir()


def test_wrong_external_credentials_are_a_clear_error(
    hpo_slice: object, test_settings: Settings, tmp_path: Path
) -> None:
    denied = _grasp(_remote_env(test_settings, tmp_path, password="not-the-password"), "skb", "info")
    assert denied.returncode != 0
    assert "Traceback" not in denied.stderr + denied.stdout
    missing = _remote_env(test_settings, tmp_path)
    del missing["GRASP_NEO4J_PASSWORD"]
    refused = _grasp(missing, "skb", "info")
    assert refused.returncode != 0 and "GRASP_NEO4J_PASSWORD is not" in refused.stdout + refused.stderr
