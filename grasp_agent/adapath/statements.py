"""The named statements of cypher/adapath.cypher, run against one database; rows come back as dicts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import Driver

from grasp_agent.cypher_queries import fill_identifiers, load_statements


class AdaPathCypher:
    def __init__(self, driver: Driver, database: str) -> None:
        self._driver = driver
        self._database = database
        self._statements = load_statements("adapath.cypher")

    def run(self, name: str, identifiers: dict[str, str] | None = None, **parameters: Any) -> list[dict[str, Any]]:
        """Statement `name` with its {{identifier}} placeholders filled (checked) and the values as parameters."""
        text = self._statements[name]
        if identifiers:
            text = fill_identifiers(text, **identifiers)
        records, _, _ = self._driver.execute_query(text, parameters, database_=self._database)
        return [record.data() for record in records]

    def named_nodes(self, labels: Sequence[str], ids: Sequence[Any]) -> list[tuple[Any, str, str]]:
        """(id, name, label) of the nodes with these SKB ids, one label at a time (each lookup uses that label's
        id index; ids are unique per label, not across labels)."""
        return [
            (row["id"], str(row["name"]), label)
            for label in labels
            for row in self.run("node_names", {"label": label}, ids=list(ids))
        ]
