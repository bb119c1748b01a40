"""The first start's password reaches neo4j-admin through a java @argfile: Neo4j stores exactly that password,
whatever characters it holds (a leading "-" or "@" used to be read as an option or a file of arguments)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from grasp_agent.db.initial_password import set_initial_password
from grasp_agent.db.runtime import ensure_runtime
from tests.conftest import settings_for

pytestmark = pytest.mark.neo4j


def _stored_hash_matches(auth_ini: Path, password: str) -> bool:
    """Neo4j 5's credential line: neo4j:SHA-256,<hash>,<salt>,<iterations>: with hash = SHA-256 over salt and
    password, then iterated over itself (Shiro's SimpleHash)."""
    _, credential, _ = auth_ini.read_text().strip().split(":", 2)
    algorithm, stored, salt, iterations = credential.split(",")
    assert algorithm == "SHA-256"
    digest = hashlib.sha256(bytes.fromhex(salt) + password.encode()).digest()
    for _ in range(int(iterations) - 1):
        digest = hashlib.sha256(digest).digest()
    return digest.hex() == stored


@pytest.mark.parametrize("password", ["-looks-like-an option\\\"#'", "@/etc/hostname"])
def test_neo4j_stores_exactly_the_password_given(tmp_path: Path, password: str) -> None:
    settings = settings_for({"GRASP_INSTANCE": "initial-password"}).model_copy(update={"instances_dir": tmp_path})
    ensure_runtime(settings)
    home = settings.instance_dir
    for sub in ("conf", "data", "run"):
        (home / sub).mkdir(parents=True)
    (home / "conf" / "neo4j.conf").write_text(f"server.directories.data={home / 'data'}\n")
    java = shutil.which("java")
    assert java is not None
    set_initial_password(Path(java), settings, password)
    assert _stored_hash_matches(home / "data" / "dbms" / "auth.ini", password)
    assert list((home / "run").iterdir()) == []  # the argument file is gone
