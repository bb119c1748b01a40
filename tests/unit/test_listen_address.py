"""GRASP_LISTEN_ADDRESS is written into neo4j.conf and the server addresses: a host name or an IPv4 literal only."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from grasp_agent.config import Settings


@pytest.mark.parametrize("address", ["127.0.0.1", "0.0.0.0", "localhost", "db-1.example.org", "10.1.2.3"])
def test_host_names_and_ipv4_literals_are_accepted(address: str) -> None:
    assert Settings(listen_address=address).bolt_uri == f"bolt://{address}:7687"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1\ndbms.security.auth_enabled=false",  # would add a line to neo4j.conf
        "localhost\r",
        "127.0.0.1 ",
        "local host",
        "",
        "-localhost",
        "host_name",
        "999.0.0.1",
        "127.0.0.1:7687",
        "::1",
        "a" * 64,
    ],
)
def test_anything_else_is_refused(address: str) -> None:
    with pytest.raises(ValidationError, match="listen_address"):
        Settings(listen_address=address)


def test_the_environment_is_checked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRASP_LISTEN_ADDRESS", "127.0.0.1\ndbms.security.auth_enabled=false")
    with pytest.raises(ValidationError, match="must be a host name or an IPv4 address"):
        Settings()
