"""The OpenAI-compatible chat client against a real HTTP server on 127.0.0.1 (no mocked transport)."""

from __future__ import annotations

import asyncio
import json
import math
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j_graphrag.llm.base import LLMInterfaceV2

from grasp_agent.graph_branch.plan import Plan, parse_plan
from grasp_agent.llm.errors import LLMError, LLMUnavailableError
from grasp_agent.llm.openai_compatible import OpenAICompatibleLLM
from tests.http_fake import FakeJsonServer, Reply, Request, serving

PLAN = {
    "anchors": [{"var": "a1", "type": "Phenotype", "text": "epileptic spasm"}],
    "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"}],
    "target": {"var": "t", "type": "Disease"},
}
MESSAGES = [{"role": "system", "content": "You write plans."}, {"role": "user", "content": "Which diseases...?"}]
# The first position's top list a vLLM server would send for a yes/no judge prompt.
TOP = [("yes", -0.2), (" yes", -2.0), ("no", -1.9), ("No", -3.5), ("maybe", -6.0)]
# Which constraints each server mode refuses with HTTP 400.
REFUSES = {
    "ok": set(),
    "noschema": {"json_schema"},
    "jsononly": {"json_schema", "guided_json"},
    "textonly": {"json_schema", "guided_json", "json_object"},
    "bad": {"json_schema", "guided_json", "json_object", "none"},
}


def _constraint(body: dict[str, Any]) -> str:
    if "guided_json" in body:
        return "guided_json"
    return str((body.get("response_format") or {}).get("type", "none"))


def respond(request: Request, attempts: int) -> Reply:
    """The server's modes, named by the URL's first segment (`/<mode>/v1/chat/completions`)."""
    mode, body = request.path.split("/")[1], request.body
    if mode == "slow":
        time.sleep(1.0)
    if mode == "down" or (mode == "flaky" and attempts <= 2) or (mode == "busy" and attempts == 1):
        return Reply(429 if mode == "busy" else 503, {"error": "overloaded"})
    if mode == "broken":
        return Reply(200, b"<html>not json{")
    if mode == "missing":
        return Reply(404, {"error": {"message": f"model {body['model']} does not exist"}})
    if mode == "auth" and request.header("Authorization") != "Bearer sk-test":
        return Reply(401, {"error": "bad key"})
    if _constraint(body) in REFUSES.get(mode, set()):
        return Reply(400, {"error": {"message": f"unsupported: {_constraint(body)}"}})
    return Reply(200, _answer(mode, body))


def _answer(mode: str, body: dict[str, Any]) -> dict[str, Any]:
    if mode == "nochoices":
        return {"choices": []}
    constraint = _constraint(body)
    if constraint != "none":
        content = json.dumps(PLAN)
    elif mode in REFUSES:  # a schema request sent without constraint: small models wrap JSON in prose
        content = f"Sure! Here is the plan: {json.dumps(PLAN)} Hope it helps."
    else:
        content = f"echo: {body['messages'][-1]['content']}"
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    if body.get("logprobs") and mode != "nologprobs":
        top = [{"token": token, "logprob": lp, "bytes": list(token.encode())} for token, lp in TOP]
        choice["logprobs"] = {"content": [{"token": "yes", "logprob": -0.2, "top_logprobs": top}]}
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": body["model"],
        "choices": [choice],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


@pytest.fixture(scope="module")
def server() -> Iterator[FakeJsonServer]:
    with serving(respond) as httpd:
        yield httpd


def _client(server: FakeJsonServer, mode: str = "ok", **options: Any) -> OpenAICompatibleLLM:
    options = {"retry_wait_s": 0.01, **options}
    return OpenAICompatibleLLM(f"{server.url}/{mode}/v1", "Qwen/Qwen2.5-7B-Instruct", **options)


def test_invoke_is_a_graphrag_llm_returning_text_and_usage(server: FakeJsonServer) -> None:
    with _client(server, "plaintext") as llm:
        assert isinstance(llm, LLMInterfaceV2)
        assert llm.model_id == "openai:Qwen/Qwen2.5-7B-Instruct"
        response = llm.invoke(MESSAGES, temperature=0.3, seed=7, max_tokens=50)
    assert response.content == "echo: Which diseases...?"
    assert response.usage is not None and response.usage.total_tokens == 18
    sent = server.bodies("/plaintext/")[-1]
    assert sent["messages"] == MESSAGES and sent["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert (sent["temperature"], sent["seed"], sent["max_tokens"]) == (0.3, 7, 50)
    assert "response_format" not in sent and "guided_json" not in sent


def test_ainvoke_answers_like_invoke(server: FakeJsonServer) -> None:
    with _client(server, "plaintext") as llm:
        response = asyncio.run(llm.ainvoke(MESSAGES))
    assert response.content == "echo: Which diseases...?"


def test_complete_json_sends_a_strict_json_schema(server: FakeJsonServer) -> None:
    with _client(server, "ok") as llm:
        text = llm.complete_json(MESSAGES, Plan.json_schema())
        assert llm.schema_mode == "json_schema"
    assert parse_plan(text).target.type == "Disease"
    sent = server.bodies("/ok/")[-1]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Plan", "schema": Plan.json_schema(), "strict": True},
    }
    assert sent["temperature"] == 0.0 and "seed" not in sent


@pytest.mark.parametrize(
    ("mode", "learned", "first_call_requests"),
    [("noschema", "guided_json", 2), ("jsononly", "json_object", 3), ("textonly", "none", 4)],
)
def test_refused_constraints_step_down_once_and_are_remembered(
    server: FakeJsonServer, mode: str, learned: str, first_call_requests: int
) -> None:
    with _client(server, mode) as llm:
        first = llm.complete_json(MESSAGES, Plan.json_schema(), seed=3)
        assert llm.schema_mode == learned
        assert len(server.bodies(f"/{mode}/")) == first_call_requests
        second = llm.complete_json(MESSAGES, Plan.json_schema())
    bodies = server.bodies(f"/{mode}/")
    assert len(bodies) == first_call_requests + 1  # the second call goes straight to what worked
    assert [_constraint(body) for body in bodies[-2:]] == [learned, learned]
    assert parse_plan(first) == parse_plan(second) == Plan.model_validate(PLAN)
    if learned == "guided_json":
        assert bodies[-1]["guided_json"] == Plan.json_schema() and "response_format" not in bodies[-1]
    assert bodies[0]["seed"] == 3


def test_a_new_instance_probes_again(server: FakeJsonServer) -> None:
    with _client(server, "noschema") as llm:
        assert llm.schema_mode == "json_schema"


def test_a_server_refusing_every_mode_names_them_all(server: FakeJsonServer) -> None:
    with _client(server, "bad") as llm, pytest.raises(LLMError) as error:
        llm.complete_json(MESSAGES, {"type": "object"})
    message = str(error.value)
    for mode in ("json_schema", "guided_json", "json_object", "none"):
        assert f"{mode}: HTTP 400" in message
    assert len(server.bodies("/bad/")) == 4


def test_response_format_of_graphrag_is_translated(server: FakeJsonServer) -> None:
    with _client(server, "ok") as llm:
        llm.invoke(MESSAGES, response_format=Plan)
        assert server.bodies("/ok/")[-1]["response_format"]["json_schema"]["name"] == "Plan"
        llm.invoke(MESSAGES, response_format={"type": "json_object"})
        assert server.bodies("/ok/")[-1]["response_format"] == {"type": "json_object"}
        wrapped = {"type": "json_schema", "json_schema": {"name": "p", "schema": {"type": "object"}}}
        llm.invoke(MESSAGES, response_format=wrapped)
        assert server.bodies("/ok/")[-1]["response_format"]["json_schema"]["schema"] == {"type": "object"}
        with pytest.raises(LLMError, match="response_format .* refused; allowed"):
            llm.invoke(MESSAGES, response_format={"type": "xml"})
        with pytest.raises(LLMError, match=r"invoke options \['top_p'\] refused"):
            llm.invoke(MESSAGES, top_p=0.9)
        with pytest.raises(LLMError, match="temperature 5.0 refused"):
            llm.invoke(MESSAGES, temperature=5.0)


def test_first_token_logprobs_merge_spellings_and_mark_absent_candidates(server: FakeJsonServer) -> None:
    with _client(server, "ok") as llm:
        scores = llm.first_token_logprobs(MESSAGES, ["yes", "no", "perhaps"])
    assert scores["yes"] == pytest.approx(math.log(math.exp(-0.2) * 2 + math.exp(-2.0)))  # sampled + top + " yes"
    assert scores["no"] == pytest.approx(-1.9)  # "No" differs in case: another answer
    assert scores["perhaps"] == -math.inf
    sent = server.bodies("/ok/")[-1]
    assert (sent["logprobs"], sent["top_logprobs"], sent["max_tokens"], sent["temperature"]) == (True, 20, 1, 0.0)


def test_missing_logprobs_and_choices_are_clear_errors(server: FakeJsonServer) -> None:
    with _client(server, "nologprobs") as llm, pytest.raises(LLMError, match="no choices.0..logprobs"):
        llm.first_token_logprobs(MESSAGES, ["yes", "no"])
    with _client(server, "nochoices") as llm, pytest.raises(LLMError, match="no choices.0..message.content"):
        llm.invoke(MESSAGES)


def test_malformed_and_refused_answers_fail_at_once(server: FakeJsonServer) -> None:
    with _client(server, "broken") as llm, pytest.raises(LLMError, match="malformed JSON"):
        llm.invoke(MESSAGES)
    with _client(server, "missing") as llm, pytest.raises(LLMError, match="HTTP 404.*does not exist"):
        llm.invoke(MESSAGES)
    assert len(server.bodies("/broken/")) == len(server.bodies("/missing/")) == 1


def test_5xx_and_429_are_retried(server: FakeJsonServer) -> None:
    with _client(server, "flaky", retries=3) as llm:
        assert llm.invoke(MESSAGES).content.startswith("echo:")
    with _client(server, "busy", retries=1) as llm:
        assert llm.invoke(MESSAGES).content.startswith("echo:")
    assert (len(server.bodies("/flaky/")), len(server.bodies("/busy/"))) == (3, 2)


def test_a_server_that_stays_down_is_unavailable_after_all_retries(server: FakeJsonServer) -> None:
    with _client(server, "down", retries=2) as llm, pytest.raises(LLMUnavailableError, match="after 3 attempts.*503"):
        llm.complete_json(MESSAGES, Plan.json_schema())
    assert len(server.bodies("/down/")) == 3


def test_timeouts_and_closed_ports_are_unavailable(server: FakeJsonServer) -> None:
    with (
        _client(server, "slow", timeout_s=0.2, retries=0) as llm,
        pytest.raises(LLMUnavailableError, match="no answer"),
    ):
        llm.invoke(MESSAGES)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    llm = OpenAICompatibleLLM(f"http://127.0.0.1:{port}/v1", "m", retries=1, retry_wait_s=0.01)
    with llm, pytest.raises(LLMUnavailableError, match="cannot connect"):
        llm.invoke(MESSAGES)


def test_api_key_is_sent_as_bearer_token(server: FakeJsonServer) -> None:
    with _client(server, "auth", api_key="sk-test") as llm:
        assert llm.invoke(MESSAGES).content.startswith("echo:")
    with _client(server, "auth") as llm, pytest.raises(LLMError, match="HTTP 401"):
        llm.invoke(MESSAGES)


def test_bad_arguments_are_refused_with_what_is_allowed(server: FakeJsonServer) -> None:
    with pytest.raises(LLMError, match="allowed: http"):
        OpenAICompatibleLLM("localhost:8000/v1", "m")
    with pytest.raises(LLMError, match="retries -1"):
        OpenAICompatibleLLM("http://x/v1", "m", retries=-1)
    with _client(server, "ok") as llm:
        with pytest.raises(LLMError, match="message 1 .* refused; allowed: role in"):
            llm.invoke([MESSAGES[0], {"role": "tool", "content": "x"}])
        with pytest.raises(LLMError, match="non-empty list"):
            llm.invoke([])
        with pytest.raises(LLMError, match="distinct non-blank"):
            llm.first_token_logprobs(MESSAGES, ["yes", " yes"])
        with pytest.raises(LLMError, match="JSON schema .* refused"):
            llm.complete_json(MESSAGES, {})
