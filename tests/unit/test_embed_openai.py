"""The OpenAI-compatible client against a real HTTP server on 127.0.0.1 (no mocked transport)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import numpy as np
import pytest

from grasp_agent.embed.openai_compatible import OpenAICompatibleEmbedder
from grasp_agent.errors import EmbeddingError
from tests.http_fake import FakeJsonServer, Reply, Request, serving

DIMENSION = 6


def server_vector(text: str) -> list[float]:
    """What the fake server answers for a text: deterministic, deliberately not unit length."""
    return [len(text) + 1.0, sum(map(ord, text)) % 97 + 1.0, 3.0, -2.0, 0.5, float(text.count("e"))]


def respond(request: Request, attempts: int) -> Reply:
    """The server's modes, named by the URL's first segment (`/<mode>/v1/embeddings`)."""
    mode, body = request.path.split("/")[1], request.body
    texts = body["input"]
    if mode == "broken":
        return Reply(200, b"<html>not json{")
    if mode == "bad":
        return Reply(400, b'{"error": {"message": "model not found"}}')
    if mode == "down" or (mode == "flaky" and attempts <= 2):
        return Reply(503, b'{"error": "overloaded"}')
    if mode == "slow":
        time.sleep(1.0)
    if mode == "auth" and request.header("Authorization") != "Bearer sk-test":
        return Reply(401, b'{"error": "bad key"}')
    items = [{"object": "embedding", "index": i, "embedding": server_vector(t)} for i, t in enumerate(texts)]
    if mode == "short":
        items = items[:-1]
    if mode == "ragged":
        items[0]["embedding"] = [1.0]
    return Reply(200, {"object": "list", "model": body["model"], "data": items[::-1]})  # out of order on purpose


@pytest.fixture(scope="module")
def server() -> Iterator[FakeJsonServer]:
    with serving(respond) as httpd:
        yield httpd


def _client(server: FakeJsonServer, mode: str = "ok", **options: object) -> OpenAICompatibleEmbedder:
    options = {"retry_wait_s": 0.01, **options}
    url = f"{server.url}/{mode}/v1"
    return OpenAICompatibleEmbedder(url, "Qwen/Qwen3-Embedding-4B", **options)  # type: ignore[arg-type]


def test_vectors_come_back_in_input_order_and_unit_length(server: FakeJsonServer) -> None:
    texts = ["Seizure", "Abnormality of the kidney", "", "eee"]
    with _client(server, batch_size=3) as client:
        vectors = client.embed_texts(texts)
    expected = np.array([server_vector(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert vectors.dtype == np.float32 and vectors.shape == (4, DIMENSION)
    np.testing.assert_allclose(vectors, expected, rtol=1e-6)
    sent = server.bodies("/ok/")[-2:]
    assert [body["input"] for body in sent] == [texts[:3], texts[3:]]
    assert sent[0]["model"] == "Qwen/Qwen3-Embedding-4B" and sent[0]["encoding_format"] == "float"
    assert "truncate_prompt_tokens" not in sent[0]


def test_dimension_is_learned_lazily_from_the_server(server: FakeJsonServer) -> None:
    with _client(server, "lazy") as client:
        before = len(server.requests)
        assert client.model_id == "openai:Qwen/Qwen3-Embedding-4B"  # no request for the id
        assert len(server.requests) == before
        assert client.dimension == DIMENSION
        assert client.embed_texts([]).shape == (0, DIMENSION)
        assert len(server.requests) == before + 1  # one probe, then remembered


def test_max_tokens_is_sent_as_vllm_truncation(server: FakeJsonServer) -> None:
    with _client(server, "trunc") as client:
        short = client.with_max_tokens(64)
        short.embed_texts(["a"])
        assert short.model_id == "openai:Qwen/Qwen3-Embedding-4B:max64"
        assert client.model_id == "openai:Qwen/Qwen3-Embedding-4B"
    assert server.requests[-1].body["truncate_prompt_tokens"] == 64


def test_api_key_goes_in_the_bearer_header(server: FakeJsonServer) -> None:
    with _client(server, "auth", api_key="sk-test") as client:
        assert client.embed_texts(["a"]).shape == (1, DIMENSION)
    with _client(server, "auth") as client, pytest.raises(EmbeddingError, match="HTTP 401"):
        client.embed_texts(["a"])


def test_5xx_answers_are_retried(server: FakeJsonServer) -> None:
    with _client(server, "flaky", retries=3) as client:
        assert client.embed_texts(["a"]).shape == (1, DIMENSION)
    assert len(server.received("/flaky/")) == 3


def test_persistent_5xx_fails_after_the_retries(server: FakeJsonServer) -> None:
    with (
        _client(server, "down", retries=2) as client,
        pytest.raises(EmbeddingError, match="after 3 attempts: HTTP 503"),
    ):
        client.embed_texts(["a"])


def test_4xx_fails_at_once_with_the_servers_words(server: FakeJsonServer) -> None:
    with _client(server, "bad", retries=3) as client, pytest.raises(EmbeddingError, match="model not found"):
        client.embed_texts(["a"])
    assert len(server.received("/bad/")) == 1


def test_malformed_json_is_an_embedding_error(server: FakeJsonServer) -> None:
    with _client(server, "broken") as client, pytest.raises(EmbeddingError, match="malformed JSON.*not json"):
        client.embed_texts(["a"])


@pytest.mark.parametrize(("mode", "message"), [("short", "1 'data' items for 2 inputs"), ("ragged", "equal-length")])
def test_malformed_payloads_are_embedding_errors(server: FakeJsonServer, mode: str, message: str) -> None:
    with _client(server, mode) as client, pytest.raises(EmbeddingError, match=message):
        client.embed_texts(["a", "b"])


def test_a_server_that_is_down_is_an_embedding_error() -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = OpenAICompatibleEmbedder(f"http://127.0.0.1:{port}/v1", "m", retries=1, retry_wait_s=0.01)
    with client, pytest.raises(EmbeddingError, match=rf"127.0.0.1:{port}/v1/embeddings .* 2 attempts: cannot connect"):
        client.embed_texts(["a"])


def test_a_slow_server_times_out(server: FakeJsonServer) -> None:
    with _client(server, "slow", timeout_s=0.2, retries=0) as client, pytest.raises(EmbeddingError, match="no answer"):
        client.embed_texts(["a"])


def test_bad_construction_arguments_are_refused() -> None:
    with pytest.raises(EmbeddingError, match="allowed: http"):
        OpenAICompatibleEmbedder("localhost:8000/v1", "m")
    with pytest.raises(EmbeddingError, match="batch_size 0"):
        OpenAICompatibleEmbedder("http://localhost:8000/v1", "m", batch_size=0)
