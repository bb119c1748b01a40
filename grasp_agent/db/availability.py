"""Remembers that Neo4j stopped answering, so searches skip its stages at once instead of each waiting out the
driver's connection retries (63-93 s per search were measured), and tries again after a cool-down.

One per `Grasp` (in PipelineParts), shared by its threads; no global state.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from neo4j.exceptions import DatabaseUnavailable, ServiceUnavailable, SessionExpired

from grasp_agent.errors import DatabaseUnavailableError

_UNAVAILABLE = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, DatabaseUnavailableError, ConnectionError)


def means_unavailable(error: BaseException) -> bool:
    """The server (or the way to it) is gone, as opposed to a query it refused; follows the cause chain."""
    seen: BaseException | None = error
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, _UNAVAILABLE):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@dataclass
class DatabaseAvailability:
    """`probe` checks the connection (e.g. `driver.verify_connectivity`); it raises while the server is gone."""

    probe: Callable[[], object] | None = None
    cooldown_s: float = 10.0
    clock: Callable[[], float] = time.monotonic
    _down_at: float | None = field(default=None, init=False)
    _reason: str = field(default="", init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def skip_reason(self) -> str | None:
        """Why to skip the database now, or None to go ahead. After the cool-down one caller probes the server
        (the others keep skipping meanwhile): an answer clears the mark, a failure starts another cool-down."""
        with self._lock:
            if self._down_at is None:
                return None
            waited = self.clock() - self._down_at
            if waited < self.cooldown_s or self.probe is None:
                return self._message(waited)
            self._down_at = self.clock()  # this caller probes; concurrent ones see a fresh cool-down
        try:
            self.probe()
        except Exception as error:  # noqa: BLE001 - any failure to answer keeps it marked down
            self.record_failure(error, force=True)
            return self._message(0.0)
        self.record_success()
        return None

    def _message(self, waited: float) -> str:
        return f"Neo4j is unavailable ({self._reason}); trying again in {max(self.cooldown_s - waited, 0):.0f} s"

    def record_failure(self, error: BaseException, *, force: bool = False) -> bool:
        """Note a failure; True when it means the database is unavailable (`force`: it does)."""
        if not force and not means_unavailable(error):
            return False
        with self._lock:
            self._down_at = self.clock()
            self._reason = type(error).__name__
        return True

    def record_success(self) -> None:
        with self._lock:
            self._down_at = None
