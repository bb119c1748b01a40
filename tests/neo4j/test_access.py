"""Who can reach the server: the right password only, from loopback only; a down server is a clear error."""

from __future__ import annotations

import socket
import stat
import subprocess

import pytest

from grasp_agent.config import Settings
from grasp_agent.db.connection import open_driver
from grasp_agent.db.credentials import read_password_file
from grasp_agent.db.server import LocalServer
from grasp_agent.errors import AuthenticationError, DatabaseUnavailableError
from tests.conftest import TEST_INSTANCE_ENV, cli_env, settings_for
from tests.neo4j.test_stack import GRASP

pytestmark = pytest.mark.neo4j


def test_password_file_is_private_and_random(running_server: LocalServer, test_settings: Settings) -> None:
    mode = stat.S_IMODE(test_settings.password_file.stat().st_mode)
    assert mode == 0o600
    assert len(read_password_file(test_settings.password_file)) >= 24


def test_wrong_password_is_a_clear_error(running_server: LocalServer, test_settings: Settings) -> None:
    with pytest.raises(AuthenticationError, match="rejected user 'neo4j': wrong password"):
        open_driver(test_settings, auth=("neo4j", "not-the-password"))


def test_cli_with_wrong_external_password_prints_one_line_not_a_traceback(running_server: LocalServer) -> None:
    env = cli_env(
        {
            "GRASP_NEO4J_URI": f"bolt://127.0.0.1:{TEST_INSTANCE_ENV['GRASP_BOLT_PORT']}",
            "GRASP_NEO4J_PASSWORD": "not-the-password",
        }
    )
    result = subprocess.run([GRASP, "db", "status"], env=env, capture_output=True, text=True)
    assert result.returncode == 1
    assert "error: Neo4j at bolt://127.0.0.1:17687 rejected user 'neo4j'" in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr


def test_external_server_is_used_instead_of_starting_one(running_server: LocalServer, test_settings: Settings) -> None:
    env = cli_env(
        {
            "GRASP_NEO4J_URI": f"bolt://127.0.0.1:{TEST_INSTANCE_ENV['GRASP_BOLT_PORT']}",
            "GRASP_NEO4J_PASSWORD": read_password_file(test_settings.password_file),
            "GRASP_INSTANCE": "never-started",
        }
    )
    started = subprocess.run([GRASP, "db", "start"], env=env, capture_output=True, text=True)
    assert started.returncode == 0, started.stderr
    assert "using the external server at bolt://127.0.0.1:17687; nothing to start" in started.stdout
    status = subprocess.run([GRASP, "db", "status"], env=env, capture_output=True, text=True)
    assert "external server at bolt://127.0.0.1:17687" in status.stdout
    assert not settings_for({"GRASP_INSTANCE": "never-started"}).instance_dir.exists()


def _non_loopback_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))  # UDP connect sends nothing; it only picks a route
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_server_refuses_connections_on_non_loopback_addresses(
    running_server: LocalServer, test_settings: Settings
) -> None:
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to try")
    for port in (test_settings.bolt_port, test_settings.http_port):
        with socket.socket() as client:
            client.settimeout(3.0)
            assert client.connect_ex((address, port)) != 0, f"port {port} answered on {address}"
        with socket.socket() as client:
            client.settimeout(3.0)
            assert client.connect_ex(("127.0.0.1", port)) == 0


def test_down_server_is_a_clear_error() -> None:
    # the test instance's password, nobody listening; no GRASP_* of the shell (a GRASP_NEO4J_URI would change both)
    settings = settings_for({"GRASP_INSTANCE": "test", "GRASP_BOLT_PORT": "17999"})
    with pytest.raises(DatabaseUnavailableError, match=r"no Neo4j server answers at bolt://127.0.0.1:17999: start it"):
        open_driver(settings, auth=("neo4j", "irrelevant"))


def test_status_of_a_never_started_instance_says_so() -> None:
    result = subprocess.run(
        [GRASP, "db", "status"], env=cli_env({"GRASP_INSTANCE": "never-started"}), capture_output=True, text=True
    )
    assert result.returncode == 3
    assert "Neo4j instance 'never-started' is not running" in result.stdout


def test_store_files_and_the_password_hash_are_private(running_server: LocalServer, test_settings: Settings) -> None:
    instance = test_settings.instance_dir
    for folder in (instance, instance / "data", instance / "logs", instance / "conf"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE((instance / "data" / "dbms" / "auth.ini").stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "query",
    [
        "CALL apoc.load.json($url) YIELD value RETURN value",
        "LOAD CSV FROM $url AS row RETURN row",
    ],
)
def test_database_users_cannot_make_the_server_fetch_urls(
    running_server: LocalServer, test_settings: Settings, query: str
) -> None:
    from neo4j.exceptions import ClientError

    url = f"http://127.0.0.1:{test_settings.http_port}/"  # the server's own HTTP port: reachable if not blocked
    with (
        open_driver(test_settings) as driver,
        pytest.raises(ClientError, match="is blocked via the configuration property"),
    ):
        driver.execute_query(query, url=url)
