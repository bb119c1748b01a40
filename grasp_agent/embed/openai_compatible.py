"""Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint (vLLM, llama.cpp server, OpenAI)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

import numpy as np
from pydantic import SecretStr

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import EmbeddingError
from grasp_agent.http_json import OpenAICompatibleEndpoint, RetryableError, call_with_retries, excerpt


def parse_embeddings(payload: Any, expected: int) -> np.ndarray:
    """The (expected, dim) float32 matrix of an embeddings response, in input order, rows L2-normalized."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or len(data) != expected:
        count = len(data) if isinstance(data, list) else "no"
        raise EmbeddingError(f"response has {count} 'data' items for {expected} inputs; allowed: one per input")
    if not all(isinstance(item, dict) and isinstance(item.get("embedding"), list) for item in data):
        raise EmbeddingError("response 'data' items need an 'embedding' list of floats (encoding_format=float)")
    # The spec gives each item its input's index; servers that answer out of order rely on it.
    ordered = sorted(data, key=lambda item: item.get("index", 0)) if all("index" in item for item in data) else data
    try:
        matrix = np.asarray([item["embedding"] for item in ordered], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(f"response embeddings are not equal-length lists of numbers: {exc}") from exc
    if matrix.ndim != 2 or matrix.shape[1] == 0 or not np.isfinite(matrix).all():
        raise EmbeddingError(f"response embeddings have shape {matrix.shape} or non-finite values; allowed: (n, d>0)")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if (norms == 0).any():
        raise EmbeddingError(f"response holds a zero vector (input {int(np.argmin(norms))}); it has no direction")
    return (matrix / norms).astype(np.float32)


class OpenAICompatibleEmbedder(GraspEmbedder):
    """Posts batches to `<base_url>/embeddings` and L2-normalizes the answers client-side.

    `base_url` goes up to and including `/v1` (as for the OpenAI SDK), e.g. `http://127.0.0.1:8000/v1`.
    Connection errors, timeouts, 429 and 5xx are retried `retries` times with exponential backoff; other
    4xx answers and malformed bodies fail at once. The dimension is learned from the first answer.
    `max_tokens` is sent as vLLM's `truncate_prompt_tokens`; leave it None for servers that do not know it.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | SecretStr | None = None,
        batch_size: int = 32,
        timeout_s: float = 60.0,
        retries: int = 3,
        retry_wait_s: float = 0.5,
        max_tokens: int | None = None,
    ) -> None:
        super().__init__()
        if batch_size < 1 or retries < 0 or timeout_s <= 0:
            raise EmbeddingError(
                f"batch_size {batch_size}, retries {retries}, timeout_s {timeout_s} refused; "
                "allowed: batch_size >= 1, retries >= 0, timeout_s > 0"
            )
        if max_tokens is not None and max_tokens < 1:
            raise EmbeddingError(f"max_tokens {max_tokens} is not allowed; allowed: >= 1 or None")
        self._endpoint = OpenAICompatibleEndpoint(
            base_url, "/embeddings", api_key=api_key, timeout_s=timeout_s, what="embedder", error_type=EmbeddingError
        )
        self._url = self._endpoint.url
        self._model = model
        self._batch_size = batch_size
        self._retries = retries
        self._retry_wait_s = retry_wait_s
        self._max_tokens = max_tokens
        self._lock = threading.Lock()
        self._dimension: int | None = None

    @property
    def model_id(self) -> str:
        suffix = f":max{self._max_tokens}" if self._max_tokens is not None else ""
        return f"openai:{self._model}{suffix}"

    @property
    def max_tokens(self) -> int | None:
        return self._max_tokens

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed_texts(["dimension probe"])  # sets it
        assert self._dimension is not None
        return self._dimension

    def with_max_tokens(self, max_tokens: int) -> OpenAICompatibleEmbedder:
        if max_tokens < 1:
            raise EmbeddingError(f"max_tokens {max_tokens} is not allowed; allowed: >= 1")
        sibling = copy.copy(self)  # shares the endpoint and its HTTP client, which is thread-safe
        sibling._max_tokens = max_tokens
        return sibling

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise EmbeddingError("embed_texts takes a sequence of texts, got one str; use embed_query for one text")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        starts = range(0, len(texts), self._batch_size)
        return np.concatenate([self._embed_batch(texts[start : start + self._batch_size]) for start in starts])

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        body: dict[str, Any] = {"model": self._model, "input": list(texts), "encoding_format": "float"}
        if self._max_tokens is not None:
            body["truncate_prompt_tokens"] = self._max_tokens
        payload = self._post_with_retries(body)
        try:
            vectors = parse_embeddings(payload, len(texts))
        except EmbeddingError as exc:
            raise EmbeddingError(f"embedding server {self._url} (model {self._model}): {exc}") from exc
        self._learn_dimension(vectors.shape[1])
        return vectors

    def _learn_dimension(self, dimension: int) -> None:
        with self._lock:
            if self._dimension is None:
                self._dimension = dimension
            elif self._dimension != dimension:
                raise EmbeddingError(
                    f"{self._url} answered {dimension}-dim vectors after {self._dimension}-dim ones; "
                    f"allowed: one dimension per model ({self._model})"
                )

    def _post_with_retries(self, body: dict[str, Any]) -> Any:
        try:
            return call_with_retries(lambda: self._post(body), self._retries, self._retry_wait_s)
        except RetryableError as exc:
            raise EmbeddingError(
                f"embedding server {self._url} (model {self._model}) failed after {self._retries + 1} attempts: {exc}"
            ) from exc

    def _post(self, body: dict[str, Any]) -> Any:
        response = self._endpoint.post(body)
        if response.status_code >= 400:
            raise EmbeddingError(
                f"embedding server {self._url} refused model {self._model!r}: "
                f"HTTP {response.status_code}: {excerpt(response.text)}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise EmbeddingError(
                f"embedding server {self._url} answered malformed JSON "
                f"(HTTP {response.status_code}): {excerpt(response.text)!r}"
            ) from exc

    def close(self) -> None:
        self._endpoint.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
