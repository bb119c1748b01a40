"""Which process is an instance's server, its pid file, and the locks that make starts, stops and builds take turns."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from grasp_agent.db.conf import ENTRY_POINT, home_dir_argument
from grasp_agent.errors import GraspError, ServerStartError

_PROC = Path("/proc")


def command_line(pid: int) -> list[str] | None:
    """The process's arguments as it was started, or None when it is gone, a zombie, or not ours to see."""
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    return [os.fsdecode(arg) for arg in raw.split(b"\0")[:-1]] if raw else None


def is_server_of(pid: int, instance_dir: Path) -> bool:
    """Whether `pid` is alive and is the server JVM of exactly this instance. A pid file can be stale, its pid
    reused by an unrelated process, or name another instance's server; its home argument must match whole."""
    if pid <= 0:
        return False  # 0 and negative pids name process groups for kill(): never signal those
    if not (_PROC / "self").is_dir():
        return _alive(pid)  # no procfs (not Linux): the pid file is all there is to go on
    args = command_line(pid)
    return args is not None and ENTRY_POINT in args and home_dir_argument(instance_dir) in args


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_pid_file(path: Path, pid: int) -> None:
    """Replaced whole, so a concurrent `status` reads the old pid or the new one, never an empty file."""
    staging = path.with_name(f"{path.name}.new")
    staging.write_text(f"{pid}\n")
    os.replace(staging, path)


@contextmanager
def exclusive(path: Path, wait_s: float, busy: str, error: type[GraspError] = ServerStartError) -> Iterator[None]:
    """Held while one process does something two must not do at once (start or stop an instance, build the
    runtime); a second one waits its turn, then sees the first one's result. flock: the kernel releases it when
    its holder dies, so a killed `grasp` leaves no stale lock, and Python opens the file close-on-exec, so the
    server JVM does not inherit it. `busy` says who holds it, in the error after `wait_s`."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise error(f"{busy} still holds {path} after {wait_s:.0f} s; wait for it, or end it") from None
                time.sleep(0.1)
        yield
    finally:
        os.close(descriptor)
