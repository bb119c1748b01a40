"""A real HTTP server on 127.0.0.1 for client tests (no mocked transport): the test scripts each answer, the
server records each POST.

    def respond(request: Request, attempt: int) -> Reply:      # attempt: this path's count, this one included
        return Reply(200, {"data": []}) if attempt > 1 else Reply(503, {"error": "busy"})

    with serving(respond) as server:                            # or a fixture around serving()
        client = Client(f"{server.url}/v1") ...
        assert server.bodies("/v1/")[-1]["model"] == "m"
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON

    def header(self, name: str) -> str | None:
        """A header's value, whatever case the client spelled its name in."""
        return next((value for key, value in self.headers.items() if key.lower() == name.lower()), None)


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None  # sent as JSON, or as is when bytes (e.g. a malformed answer)


Respond = Callable[[Request, int], Reply]


class FakeJsonServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, respond: Respond) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.respond = respond
        self.requests: list[Request] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def received(self, path_prefix: str = "") -> list[Request]:
        with self.lock:
            return [request for request in self.requests if request.path.startswith(path_prefix)]

    def bodies(self, path_prefix: str = "") -> list[Any]:
        return [request.body for request in self.received(path_prefix)]

    def record(self, request: Request) -> int:
        """Keeps `request`; returns how many requests its path has had, this one included."""
        with self.lock:
            self.requests.append(request)
            return sum(1 for seen in self.requests if seen.path == request.path)


class _Handler(BaseHTTPRequestHandler):
    server: FakeJsonServer

    def log_message(self, format: str, *args: object) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:
        request = Request(
            self.path, dict(self.headers), json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        )
        reply = self.server.respond(request, self.server.record(request))
        body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serving(respond: Respond) -> Iterator[FakeJsonServer]:
    """A server answering with `respond` on a free port, shut down when the block ends."""
    server = FakeJsonServer(respond)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
