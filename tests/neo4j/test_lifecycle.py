"""`grasp db start/stop` on an instance of its own: idempotent, reuses the runtime, leaves no JVM."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from grasp_agent.db.runtime import ensure_runtime
from grasp_agent.db.server import LocalServer, ServerState
from tests.conftest import cli_env, settings_for
from tests.neo4j.test_stack import GRASP

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
LIFECYCLE_ENV = {
    "GRASP_INSTANCE": "lifecycle",
    "GRASP_BOLT_PORT": "17688",
    "GRASP_HTTP_PORT": "17475",
    "GRASP_HEAP_SIZE": "1g",
    "GRASP_PAGECACHE_SIZE": "256m",
}


def _grasp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GRASP, *args], env=cli_env(LIFECYCLE_ENV), capture_output=True, text=True, timeout=300)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_start_twice_is_one_server_and_stop_leaves_no_jvm(running_server: LocalServer) -> None:
    settings = settings_for(LIFECYCLE_ENV)
    server = LocalServer(settings)
    _grasp("db", "stop")  # a clean slate even if an earlier run was interrupted

    began = time.monotonic()
    first = _grasp("db", "start")
    cold_s = time.monotonic() - began
    assert first.returncode == 0, first.stderr
    assert "Started Neo4j instance 'lifecycle'" in first.stdout
    assert "Built the Neo4j runtime" not in first.stdout  # the session fixture built it already
    pid = server.pid()
    assert pid is not None and server.state() is ServerState.RUNNING

    second = _grasp("db", "start")
    assert second.returncode == 0, second.stderr
    assert f"already running (pid {pid})" in second.stdout
    assert server.pid() == pid

    stopped = _grasp("db", "stop")
    assert "Stopped Neo4j instance 'lifecycle'" in stopped.stdout
    assert not _alive(pid)
    jvms = subprocess.run(["pgrep", "-f", f"--home-dir={settings.instance_dir}"], capture_output=True, text=True)
    assert jvms.stdout.strip() == ""

    again = _grasp("db", "stop")
    assert again.returncode == 0 and "is not running" in again.stdout

    began = time.monotonic()
    warm = _grasp("db", "start")
    warm_s = time.monotonic() - began
    assert warm.returncode == 0 and "Built the Neo4j runtime" not in warm.stdout
    assert ensure_runtime(settings).built is False
    _grasp("db", "stop")
    print(f"\nlifecycle: first start {cold_s:.1f} s, restart {warm_s:.1f} s (runtime already built)")


def test_busy_port_is_refused_with_a_clear_message(running_server: LocalServer) -> None:
    busy = {**LIFECYCLE_ENV, "GRASP_BOLT_PORT": str(running_server.settings.bolt_port)}
    result = subprocess.run([GRASP, "db", "start"], env=cli_env(busy), capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "port 17687 on 127.0.0.1 is already in use by another process" in " ".join(result.stderr.split())
