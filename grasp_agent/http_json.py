"""POSTing JSON to OpenAI-compatible servers with retries, shared by the embedding and the LLM clients.

`OpenAICompatibleEndpoint` is what both clients own: the checked URL, the bearer key and one pooled HTTP
client for the client's lifetime. Transport failures, timeouts, 429 and 5xx answers are worth another try
(`RetryableError`); any other answer goes back to the caller, which knows what a 4xx or a malformed body
means for its API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import httpx
from pydantic import SecretStr
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from grasp_agent.errors import GraspError

T = TypeVar("T")
EXCERPT_CHARS = 300


class RetryableError(Exception):
    """A failure worth another try: no connection, a timeout, 429, or a 5xx answer."""


def excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "..."


def post_json(client: httpx.Client, url: str, body: dict[str, Any], timeout_s: float) -> httpx.Response:
    """The server's answer, or RetryableError when there is none worth reading yet."""
    try:
        response = client.post(url, json=body)
    except httpx.TimeoutException as exc:
        raise RetryableError(f"no answer within {timeout_s}s ({type(exc).__name__})") from exc
    except httpx.TransportError as exc:
        raise RetryableError(f"cannot connect: {exc}") from exc
    if response.status_code == 429 or response.status_code >= 500:
        raise RetryableError(f"HTTP {response.status_code}: {excerpt(response.text)}")
    return response


class OpenAICompatibleEndpoint:
    """`<base_url><route>` of one server, e.g. `http://127.0.0.1:8000/v1` + `/embeddings`: the base URL must be
    http(s) and go up to and including `/v1` (as for the OpenAI SDK); `api_key`, when given, is sent as a bearer
    token. Owns one thread-safe HTTP client until `close()`."""

    def __init__(
        self,
        base_url: str,
        route: str,
        *,
        api_key: str | SecretStr | None,
        timeout_s: float,
        what: str,
        error_type: type[GraspError],
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise error_type(f"{what} URL {base_url!r} is not allowed; allowed: http:// or https:// URLs up to /v1")
        key = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
        self.url = base_url.rstrip("/") + route
        self.timeout_s = timeout_s
        self._client = httpx.Client(timeout=timeout_s, headers={"Authorization": f"Bearer {key}"} if key else {})

    def post(self, body: dict[str, Any]) -> httpx.Response:
        """The server's answer, or RetryableError when there is none worth reading yet (see post_json)."""
        return post_json(self._client, self.url, body, self.timeout_s)

    def close(self) -> None:
        self._client.close()


def call_with_retries(call: Callable[[], T], retries: int, wait_s: float) -> T:
    """`call()`, retried on RetryableError with exponential backoff; after `retries` retries the error propagates."""
    retrying = Retrying(
        stop=stop_after_attempt(retries + 1),
        wait=wait_exponential(multiplier=wait_s, max=30),
        retry=retry_if_exception_type(RetryableError),
        reraise=True,
    )
    for attempt in retrying:
        with attempt:
            return call()
    raise AssertionError("unreachable: tenacity either returns or reraises")
