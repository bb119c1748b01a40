"""Start, stop and inspect the local Neo4j server process of one grasp instance."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from grasp_agent.config import Settings
from grasp_agent.db.conf import java_command, render_apoc_conf, render_conf
from grasp_agent.db.connection import open_driver
from grasp_agent.db.credentials import generate_password_file, read_password_file
from grasp_agent.db.initial_password import set_initial_password
from grasp_agent.db.memory import plan_memory, total_memory_bytes
from grasp_agent.db.process import exclusive, is_server_of, write_pid_file
from grasp_agent.errors import (
    AuthenticationError,
    ConfigError,
    DatabaseUnavailableError,
    ServerStartError,
)

_STOP_GRACE_S = 60.0
_KILL_WAIT_S = 10.0


class ServerState(str, Enum):
    RUNNING = "running"
    STOPPED = "stopped"
    EXTERNAL = "external"


@dataclass(frozen=True)
class StartOutcome:
    pid: int
    seconds: float
    already_running: bool


@dataclass(frozen=True)
class StopOutcome:
    was_running: bool
    seconds: float


class LocalServer:
    """The JVM of one instance (`GRASP_INSTANCE`), laid out under `<project>/.grasp/instances/<name>`."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.dir = settings.instance_dir
        self.pid_file = self.dir / "run" / "grasp-neo4j.pid"
        self.lock_file = self.dir / "run" / "grasp-neo4j.lock"
        self.console_log = self.dir / "logs" / "console.log"
        self.neo4j_log = self.dir / "logs" / "neo4j.log"

    # ---- inspection -------------------------------------------------------------------------------
    def pid(self) -> int | None:
        """The server's pid when our JVM for this instance is alive; stale pid files are ignored."""
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if is_server_of(pid, self.dir) else None

    def state(self) -> ServerState:
        if self.settings.uses_external_server:
            return ServerState.EXTERNAL
        return ServerState.RUNNING if self.pid() is not None else ServerState.STOPPED

    # ---- start ------------------------------------------------------------------------------------
    def _turn(self) -> AbstractContextManager[None]:
        """The instance lock; waits out one start or stop of the same instance, each bounded in time."""
        wait_s = self.settings.start_timeout_s + _STOP_GRACE_S + _KILL_WAIT_S + 60.0
        busy = f"another `grasp db start` or `grasp db stop` of instance '{self.settings.instance}'"
        return exclusive(self.lock_file, wait_s, busy)

    def start(self) -> StartOutcome:
        """Start the JVM detached and wait until Bolt accepts our credentials. Idempotent, also when two run at
        once: the second waits for the first and then finds its server running."""
        if self.settings.uses_external_server:
            raise ConfigError(
                f"GRASP_NEO4J_URI is set ({self.settings.neo4j_uri}): grasp uses that server and starts no local one"
            )
        started = time.monotonic()
        self._make_private_dirs()
        with self._turn():
            running = self.pid()
            if running is not None:
                self._wait_for_bolt(running, started)
                return StartOutcome(pid=running, seconds=time.monotonic() - started, already_running=True)
            return self._launch(started)

    def _launch(self, started: float) -> StartOutcome:
        self._refuse_busy_ports()
        java = self._java()
        memory = plan_memory(total_memory_bytes(), self.settings.heap_size, self.settings.pagecache_size)
        (self.dir / "conf" / "neo4j.conf").write_text(render_conf(self.settings, memory))
        (self.dir / "conf" / "apoc.conf").write_text(render_apoc_conf(self.settings))
        self._ensure_initial_password(java)
        auth = self.dir / "data" / "dbms" / "auth.ini"
        if auth.exists():
            auth.chmod(0o600)  # the password hash; Neo4j writes it 0644
        with self.console_log.open("ab") as console:
            process = subprocess.Popen(
                java_command(java, self.settings, memory),
                cwd=self.dir,
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # survives the CLI that started it; Ctrl-C in the shell won't kill it
            )
        write_pid_file(self.pid_file, process.pid)
        self._wait_for_bolt(process.pid, started, process)
        return StartOutcome(pid=process.pid, seconds=time.monotonic() - started, already_running=False)

    def _make_private_dirs(self) -> None:
        """Store files, logs (query text) and the password hash are the user's alone, like the password file."""
        for sub in ("conf", "data", "logs", "run", "import"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
            (self.dir / sub).chmod(0o700)
        self.dir.chmod(0o700)

    def _java(self) -> Path:
        home = self.settings.java_home or (Path(os.environ["JAVA_HOME"]) if "JAVA_HOME" in os.environ else None)
        java = home / "bin" / "java" if home else shutil.which("java")
        if java is None or not Path(java).exists():
            raise ConfigError("no Java found: install a JDK 17+ or set GRASP_JAVA_HOME (Neo4j 5.26 runs on 17 or 21)")
        return Path(java)

    def _refuse_busy_ports(self) -> None:
        for port in (self.settings.bolt_port, self.settings.http_port):
            with socket.socket() as probe:
                probe.settimeout(1.0)
                if probe.connect_ex((self.settings.listen_address, port)) == 0:
                    raise ServerStartError(
                        f"port {port} on {self.settings.listen_address} is already in use by another process; "
                        "stop it or choose other ports with GRASP_BOLT_PORT / GRASP_HTTP_PORT"
                    )

    def _ensure_initial_password(self, java: Path) -> None:
        """Before the first start only: set a generated password, so no default password ever exists."""
        password_file = self.settings.password_file
        database_exists = (self.dir / "data" / "dbms" / "auth.ini").exists()
        if database_exists:
            if not password_file.exists():
                raise ConfigError(
                    f"instance '{self.settings.instance}' has a database but its password file {password_file} is "
                    f"gone; restore it, or delete {self.dir / 'data'} to start over with a new password"
                )
            return
        password = (
            read_password_file(password_file) if password_file.exists() else generate_password_file(password_file)
        )
        set_initial_password(java, self.settings, password)

    def _wait_for_bolt(self, pid: int, started: float, process: subprocess.Popen[bytes] | None = None) -> None:
        deadline = started + self.settings.start_timeout_s
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                raise ServerStartError(
                    f"Neo4j exited with code {process.returncode} while starting.\n{self._log_tail()}"
                )
            try:
                with open_driver(self.settings):
                    return
            except DatabaseUnavailableError:
                time.sleep(0.5)
            except AuthenticationError as error:
                raise ServerStartError(f"Neo4j started but rejected the stored password: {error}") from error
        raise ServerStartError(
            f"Neo4j (pid {pid}) did not answer on Bolt within {self.settings.start_timeout_s:.0f} s "
            f"(GRASP_START_TIMEOUT_S).\n{self._log_tail()}"
        )

    def _log_tail(self, lines: int = 20) -> str:
        chunks = []
        for path in (self.console_log, self.neo4j_log):
            if path.exists():
                tail = path.read_text(errors="replace").splitlines()[-lines:]
                chunks.append(f"--- last lines of {path} ---\n" + "\n".join(tail))
        return "\n".join(chunks)

    # ---- stop -------------------------------------------------------------------------------------
    def stop(self) -> StopOutcome:
        """SIGTERM (Neo4j's clean shutdown), then SIGKILL after a grace period; no JVM is left behind."""
        if self.settings.uses_external_server:
            raise ConfigError(
                f"GRASP_NEO4J_URI is set ({self.settings.neo4j_uri}): grasp does not stop external servers"
            )
        started = time.monotonic()
        if not self.pid_file.parent.is_dir():
            return StopOutcome(was_running=False, seconds=0.0)  # never started: no folder to lock or clean
        with self._turn():  # a start under way finishes first, and its server is then stopped
            pid = self.pid()
            if pid is None:
                self.pid_file.unlink(missing_ok=True)
                return StopOutcome(was_running=False, seconds=0.0)
            os.kill(pid, signal.SIGTERM)
            if not _wait_for_exit(pid, _STOP_GRACE_S):
                os.kill(pid, signal.SIGKILL)
                _wait_for_exit(pid, _KILL_WAIT_S)
            self.pid_file.unlink(missing_ok=True)
        return StopOutcome(was_running=True, seconds=time.monotonic() - started)

    def tail_log(self, lines: int) -> list[str]:
        if not self.neo4j_log.exists():
            return []
        return self.neo4j_log.read_text(errors="replace").splitlines()[-lines:]


def _wait_for_exit(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            reaped, _ = os.waitpid(pid, os.WNOHANG)  # our own child (same process started it)
            if reaped == pid:
                return True
        except ChildProcessError:
            pass  # not our child: fall back to probing
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False
