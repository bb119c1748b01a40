"""Two `grasp db start` at once on a new instance: one server, which `status` and `stop` see; and the password
generated at that first start appears on no command line (`ps`) at any moment."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grasp_agent.config import Settings
from grasp_agent.db.conf import ENTRY_POINT
from grasp_agent.db.credentials import read_password_file
from grasp_agent.db.runtime import ensure_runtime
from grasp_agent.db.server import LocalServer
from tests.conftest import cli_env, settings_for
from tests.neo4j.test_stack import GRASP

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
RACE_ENV = {
    "GRASP_INSTANCE": "start-race",
    "GRASP_BOLT_PORT": "17693",
    "GRASP_HTTP_PORT": "17480",
    "GRASP_HEAP_SIZE": "1g",
    "GRASP_PAGECACHE_SIZE": "256m",
}
_LIMIT_S = 120  # each CLI call; a first start takes 10-25 s here


def _grasp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GRASP, *args], env=cli_env(RACE_ENV), capture_output=True, text=True, timeout=_LIMIT_S)


def _command_lines() -> dict[int, list[bytes]]:
    lines = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                raw = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue  # exited meanwhile
            if raw:
                lines[int(entry)] = raw.rstrip(b"\0").split(b"\0")
    return lines


def _servers_of(settings: Settings) -> list[int]:
    """Pids of every JVM serving this instance's home, found by exact argument, whatever the pid file says."""
    home = f"--home-dir={settings.instance_dir}".encode()
    return [pid for pid, args in _command_lines().items() if ENTRY_POINT.encode() in args and home in args]


@dataclass
class _Sampler:
    """Records every distinct command line on the machine, every 20 ms, while the starts run."""

    seen: set[tuple[bytes, ...]] = field(default_factory=set)
    done: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.done.is_set():
            self.seen.update(tuple(args) for args in _command_lines().values())
            time.sleep(0.02)


@dataclass(frozen=True)
class _Race:
    settings: Settings
    outputs: list[tuple[int, str, str]]
    seen: set[tuple[bytes, ...]]


def _kill_leftovers(settings: Settings) -> None:
    for pid in _servers_of(settings):
        os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def race() -> Iterator[_Race]:
    settings = settings_for(RACE_ENV)
    ensure_runtime(settings)
    _kill_leftovers(settings)
    shutil.rmtree(settings.instance_dir, ignore_errors=True)  # a new instance: no store, no password yet
    sampler = _Sampler()
    watcher = threading.Thread(target=sampler.run, daemon=True)
    watcher.start()
    env = cli_env(RACE_ENV)
    starts = [
        subprocess.Popen([GRASP, "db", "start"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    try:
        outputs = []
        for start in starts:
            out, err = start.communicate(timeout=_LIMIT_S)
            outputs.append((start.returncode, out, err))
    finally:
        for start in starts:
            start.kill()
        sampler.done.set()
        watcher.join()
    yield _Race(settings, outputs, sampler.seen)
    _grasp("db", "stop")
    _kill_leftovers(settings)  # only if the test failed: stop missed a server
    shutil.rmtree(settings.instance_dir, ignore_errors=True)


def test_two_starts_of_a_new_instance_leave_one_server_that_status_and_stop_see(race: _Race) -> None:
    assert [code for code, _, _ in race.outputs] == [0, 0], race.outputs
    said = " ".join(out for _, out, _ in race.outputs)
    assert said.count("Started Neo4j instance 'start-race'") == 1, said
    assert said.count("is already running") == 1, said
    serving = _servers_of(race.settings)
    assert len(serving) == 1, serving
    assert LocalServer(race.settings).pid() == serving[0]
    assert f"already running (pid {serving[0]})" in said

    status = _grasp("db", "status")
    assert status.returncode == 0 and "running: instance 'start-race'" in status.stdout, status
    stopped = _grasp("db", "stop")
    assert "Stopped Neo4j instance 'start-race'" in stopped.stdout, stopped
    assert _servers_of(race.settings) == []


def test_the_initial_password_is_on_no_command_line(race: _Race) -> None:
    password = read_password_file(race.settings.password_file).encode()
    runtime_lib = str(race.settings.resolved_runtime_dir / "lib").encode()
    admin_runs = [args for args in race.seen if ENTRY_POINT.encode() not in args and runtime_lib in b" ".join(args)]
    assert admin_runs, "the sampler never saw neo4j-admin run"  # else this test could not fail
    leaks = [args[0] for args in race.seen if password in b" ".join(args)]
    assert not leaks, f"the password was on the command line of {leaks}"  # names the program, not the password
