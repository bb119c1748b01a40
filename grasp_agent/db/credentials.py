"""Where the Neo4j credentials come from: GRASP_NEO4J_* settings, else the local instance's password file."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.errors import ConfigError, DatabaseUnavailableError


def generate_password_file(path: Path) -> str:
    """A fresh random password in a file only its owner can read (0600 from creation, no race)."""
    password = secrets.token_urlsafe(24)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(password + "\n")
    return password


def read_password_file(path: Path) -> str:
    return path.read_text().strip()


def resolve_auth(settings: Settings) -> tuple[str, str]:
    """(user, password) for the configured server, or a clear error saying how to provide them.

    An external server (GRASP_NEO4J_URI) takes GRASP_NEO4J_USER/GRASP_NEO4J_PASSWORD; a local instance
    always uses the password generated at its first start.
    """
    if settings.uses_external_server:
        if settings.neo4j_password is None:
            raise ConfigError(f"GRASP_NEO4J_URI is set to {settings.neo4j_uri} but GRASP_NEO4J_PASSWORD is not")
        return settings.neo4j_user, settings.neo4j_password.get_secret_value()
    if not settings.password_file.is_file():
        raise DatabaseUnavailableError(
            f"the local Neo4j instance '{settings.instance}' has never been started (no {settings.password_file}); "
            "run `grasp db start`"
        )
    return "neo4j", read_password_file(settings.password_file)
