"""Driver creation with errors a user can act on (down server, wrong password) instead of driver tracebacks."""

from __future__ import annotations

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import AuthError, DatabaseUnavailable, ServiceUnavailable, SessionExpired

from grasp_agent.config import Settings
from grasp_agent.db.credentials import resolve_auth
from grasp_agent.errors import AuthenticationError, DatabaseUnavailableError


def open_driver(settings: Settings, *, auth: tuple[str, str] | None = None) -> Driver:
    """A verified driver for the configured server; the caller closes it (use it as a context manager)."""
    user, password = auth or resolve_auth(settings)
    uri = settings.bolt_uri
    # Server notifications (e.g. "property key does not exist" before the first load) would be logged as
    # warnings on every query; grasp reports problems itself.
    # Retries are bounded (the driver's default is 30 s per transaction): a search with the server gone must
    # come back with its text answer in seconds, and a real transient error is retried within that time.
    driver = GraphDatabase.driver(
        uri,
        auth=(user, password),
        connection_timeout=10.0,
        max_transaction_retry_time=settings.neo4j_retry_s,
        notifications_min_severity="OFF",
    )
    try:
        driver.verify_connectivity()
    except AuthError as error:
        driver.close()
        raise AuthenticationError(
            f"Neo4j at {uri} rejected user '{user}': wrong password (local servers keep theirs in "
            f"{settings.password_file}; external ones take GRASP_NEO4J_PASSWORD). Server said: {error.message}"
        ) from error
    except (ServiceUnavailable, SessionExpired, DatabaseUnavailable, OSError) as error:
        driver.close()
        hint = "check GRASP_NEO4J_URI" if settings.uses_external_server else "start it with `grasp db start`"
        raise DatabaseUnavailableError(f"no Neo4j server answers at {uri}: {hint}") from error
    return driver
