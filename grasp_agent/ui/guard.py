"""What the demo server refuses before Gradio sees a request: foreign Host or Origin headers on a loopback
bind (DNS rebinding: a web page whose name resolves to 127.0.0.1 would otherwise drive the demo from the
user's browser), and file uploads, which the demo has no use for (Gradio keeps anonymous uploads on disk
without limit).

A plain ASGI middleware, given to Gradio's FastAPI app through `launch(app_kwargs=...)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
# Gradio's routes that store a posted file: uploads, and a recording to process (both multipart)
UPLOAD_PATHS = ("/gradio_api/upload", "/gradio_api/process_recording")


@dataclass(frozen=True)
class RequestRules:
    """`port`: the port served. `names`: the host names a request may carry with it (None: any, as on an
    exposed bind, where this server cannot know the names it is reached by)."""

    port: int
    names: frozenset[str] | None

    @classmethod
    def for_bind(cls, host: str, port: int, loopback: bool) -> RequestRules:
        return cls(port, LOOPBACK_NAMES | {host.strip("[]").lower()} if loopback else None)

    def refusal(self, path: str, host: str | None, origin: str | None) -> str | None:
        """Why a request is refused, or None. Pure."""
        if path.rstrip("/").endswith(UPLOAD_PATHS):
            return "uploads are disabled: the demo takes no files"
        if self.names is None:
            return None
        if host is None or not self._is_local(f"//{host}"):
            return f"Host {host!r} is not this machine; open the demo as http://127.0.0.1:{self.port}/"
        if origin is not None and not (origin.startswith(("http://", "https://")) and self._is_local(origin)):
            return f"requests from {origin!r} are not served; open the demo as http://127.0.0.1:{self.port}/"
        return None

    def _is_local(self, url: str) -> bool:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:  # a port that is not a number, an unclosed bracket
            return False
        return self.names is not None and parts.hostname in self.names and port == self.port


class RequestGuard:
    """Answers 403 (or closes a websocket) for every request `rules` refuses; passes the rest on."""

    def __init__(self, app: ASGIApp, rules: RequestRules) -> None:
        self._app = app
        self._rules = rules

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = Headers(scope=scope)
            reason = self._rules.refusal(scope["path"], headers.get("host"), headers.get("origin"))
            if reason is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                else:
                    await PlainTextResponse(reason, status_code=403)(scope, receive, send)
                return
        await self._app(scope, receive, send)
