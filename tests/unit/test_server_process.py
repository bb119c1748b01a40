"""Which process `grasp db status/stop` take for an instance's server, and the lock starts and stops share. Real
processes stand in for the JVM: a sleeping Python whose arguments are a server's (entry point, --home-dir)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grasp_agent.config import Settings
from grasp_agent.db.conf import ENTRY_POINT, home_dir_argument
from grasp_agent.db.process import exclusive
from grasp_agent.db.server import LocalServer
from grasp_agent.errors import ServerStartError

_SLEEP = "import time; time.sleep(60)"


def _server(tmp_path: Path, instance: str) -> LocalServer:
    server = LocalServer(Settings(project_root=tmp_path, instances_dir=tmp_path / "instances", instance=instance))
    server.pid_file.parent.mkdir(parents=True)
    return server


@pytest.fixture
def fake_jvm(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process whose command line is that of instance `probe2`'s server."""
    home = tmp_path / "instances" / "probe2"
    process = subprocess.Popen([sys.executable, "-c", _SLEEP, ENTRY_POINT, home_dir_argument(home)])
    yield process
    process.kill()
    process.wait()


def test_stop_of_probe_leaves_the_server_of_probe2_alone(tmp_path: Path, fake_jvm: subprocess.Popen[bytes]) -> None:
    probe = _server(tmp_path, "probe")  # its home is a prefix of probe2's
    probe.pid_file.write_text(f"{fake_jvm.pid}\n")
    assert probe.pid() is None
    assert probe.stop().was_running is False
    assert fake_jvm.poll() is None  # still running


def test_the_server_with_exactly_our_home_is_ours_and_stop_ends_it(
    tmp_path: Path, fake_jvm: subprocess.Popen[bytes]
) -> None:
    probe2 = _server(tmp_path, "probe2")
    probe2.pid_file.write_text(f"{fake_jvm.pid}\n")
    assert probe2.pid() == fake_jvm.pid
    assert probe2.stop().was_running is True
    assert fake_jvm.poll() is not None and not probe2.pid_file.exists()


@pytest.mark.parametrize("content", ["0", "-1", "", "garbage"])
def test_pid_files_naming_process_groups_or_nothing_are_ignored(tmp_path: Path, content: str) -> None:
    probe = _server(tmp_path, "probe")
    probe.pid_file.write_text(content)
    assert probe.pid() is None  # kill(0 or -1, SIGTERM) would signal whole process groups


def test_a_second_holder_waits_for_the_lock_and_gets_it_once_the_first_dies(tmp_path: Path) -> None:
    lock = tmp_path / "grasp-neo4j.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import fcntl, os, sys, time; d = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(d, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        began = time.monotonic()
        with pytest.raises(ServerStartError, match="another grasp still holds"), exclusive(lock, 0.5, "another grasp"):
            pass
        assert time.monotonic() - began >= 0.5
    finally:
        holder.kill()
        holder.wait()
    with exclusive(lock, 0.5, "another grasp"):  # the kernel released the dead holder's lock
        pass
