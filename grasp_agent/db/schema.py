"""Applies cypher/schema.cypher (idempotent DDL) to a database."""

from __future__ import annotations

from neo4j import Driver

from grasp_agent.cypher_queries import load_statements


def apply_schema(driver: Driver, database: str) -> list[str]:
    """Run every statement of cypher/schema.cypher; returns their names in order."""
    statements = load_statements("schema.cypher")
    for statement in statements.values():
        driver.execute_query(statement, database_=database)
    return list(statements)
