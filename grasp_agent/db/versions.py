"""Versions of the server and of each plugin, asked of the running server itself."""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import Driver
from neo4j.exceptions import ClientError

_PLUGIN_FUNCTIONS = {"gds": "gds.version()", "apoc": "apoc.version()", "grasp": "grasp.version()"}


@dataclass(frozen=True)
class StackVersions:
    neo4j: str
    edition: str
    plugins: dict[str, str | None]  # None: the plugin is not loaded


def read_versions(driver: Driver, database: str) -> StackVersions:
    """Plugin functions run on a user database: the system database only serves administration."""
    records, _, _ = driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN versions[0] AS version, edition",
        database_="system",
    )
    plugins: dict[str, str | None] = {}
    for plugin, function in _PLUGIN_FUNCTIONS.items():
        try:
            # The function names are our constants above, never user input.
            rows, _, _ = driver.execute_query(f"RETURN {function} AS version", database_=database)
            plugins[plugin] = rows[0]["version"]
        except ClientError as error:
            if "Unknown function" not in (error.message or ""):
                raise
            plugins[plugin] = None
    return StackVersions(neo4j=records[0]["version"], edition=records[0]["edition"], plugins=plugins)
