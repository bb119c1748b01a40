"""Remembering a database that is down: skip at once, probe after the cool-down, recover when it answers."""

from __future__ import annotations

from neo4j.exceptions import ClientError, ServiceUnavailable

from grasp_agent.db.availability import DatabaseAvailability, means_unavailable
from grasp_agent.errors import DatabaseUnavailableError, GraspError


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Server:
    def __init__(self) -> None:
        self.up = False
        self.probes = 0

    def verify(self) -> None:
        self.probes += 1
        if not self.up:
            raise ServiceUnavailable("connection refused")


def test_only_transport_failures_mean_unavailable() -> None:
    assert means_unavailable(ServiceUnavailable("gone"))
    assert means_unavailable(DatabaseUnavailableError("no server"))
    wrapped = GraspError("link failed")
    wrapped.__cause__ = ServiceUnavailable("gone")
    assert means_unavailable(wrapped)
    assert not means_unavailable(ClientError("syntax error"))
    assert not means_unavailable(ValueError("bad plan"))


def test_a_down_database_is_skipped_until_a_probe_finds_it_back() -> None:
    clock, server = _Clock(), _Server()
    availability = DatabaseAvailability(probe=server.verify, cooldown_s=10.0, clock=clock)
    assert availability.skip_reason() is None
    assert not availability.record_failure(ClientError("a query the server refused"))
    assert availability.skip_reason() is None
    assert availability.record_failure(ServiceUnavailable("refused"))
    reason = availability.skip_reason()
    assert reason is not None and "ServiceUnavailable" in reason and "trying again in 10 s" in reason
    clock.now += 9.0
    assert availability.skip_reason() is not None and server.probes == 0  # within the cool-down: no probe
    clock.now += 1.0
    assert availability.skip_reason() is not None and server.probes == 1  # probed, still down: a new cool-down
    clock.now += 5.0
    assert availability.skip_reason() is not None and server.probes == 1
    server.up = True
    clock.now += 5.0
    assert availability.skip_reason() is None and server.probes == 2  # answered: cleared
    assert availability.skip_reason() is None and server.probes == 2
