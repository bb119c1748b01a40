"""Chat completions from any OpenAI-compatible `/v1/chat/completions` server (vLLM, llama.cpp server, OpenAI)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from neo4j_graphrag.types import LLMMessage
from pydantic import SecretStr

from grasp_agent.http_json import OpenAICompatibleEndpoint, RetryableError, call_with_retries, excerpt
from grasp_agent.llm.base import (
    ChatResult,
    GenerationOptions,
    GraspLLM,
    OutputConstraint,
    check_candidates,
    check_messages,
    merge_token_logprobs,
)
from grasp_agent.llm.errors import LLMError, LLMUnavailableError

SchemaMode = Literal["json_schema", "guided_json", "json_object", "none"]
# From strongest to weakest; each step down is taken only when the server refuses the previous one.
SCHEMA_MODES: tuple[SchemaMode, ...] = ("json_schema", "guided_json", "json_object", "none")
TOP_LOGPROBS = 20  # OpenAI's maximum and vLLM's default --max-logprobs
_REFUSED = (400, 422)  # 422: FastAPI-style servers answer unknown or invalid fields with it


class _Refused(LLMError):
    """The server refused the request as malformed (400/422), e.g. an output constraint it does not know."""

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message)
        self.detail = detail


def constrain_body(body: dict[str, Any], mode: SchemaMode, constraint: OutputConstraint) -> dict[str, Any]:
    """A copy of `body` asking for `constraint.schema` the way `mode` spells it."""
    constrained = dict(body)
    schema = dict(constraint.schema or {})
    if mode == "json_schema":
        constrained["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": constraint.name, "schema": schema, "strict": True},
        }
    elif mode == "guided_json":
        constrained["guided_json"] = schema  # vLLM's extra body field (older vLLM, or strict-schema refusals)
    elif mode == "json_object":
        constrained["response_format"] = {"type": "json_object"}
    return constrained


def parse_chat(payload: Any) -> ChatResult:
    """The first choice's text and the token counts of a chat completion response."""
    choices = payload.get("choices") if isinstance(payload, dict) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    message = first.get("message") if first is not None else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise LLMError(f"response has no choices[0].message.content string; got {excerpt(repr(payload))}")
    usage = payload.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return ChatResult(
        text=content,
        prompt_tokens=prompt if isinstance(prompt, int) else None,
        completion_tokens=completion if isinstance(completion, int) else None,
    )


def parse_first_token_logprobs(payload: Any) -> list[tuple[str, float]]:
    """(token, logprob) pairs of the first generated position: the sampled token and its top alternatives."""
    try:
        position = payload["choices"][0]["logprobs"]["content"][0]
        pairs = [(position["token"], float(position["logprob"]))]
        pairs += [(item["token"], float(item["logprob"])) for item in position.get("top_logprobs") or []]
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise LLMError(
            f"response has no choices[0].logprobs.content[0] with token/logprob/top_logprobs "
            f"({type(exc).__name__}: {exc}); got {excerpt(repr(payload))}; "
            "allowed: servers that implement chat logprobs (vLLM, llama.cpp server, OpenAI)"
        ) from exc
    return pairs


class OpenAICompatibleLLM(GraspLLM):
    """Posts to `<base_url>/chat/completions`; `base_url` goes up to and including `/v1`.

    JSON-schema decoding first sends `response_format: {"type": "json_schema", ...}`. If the server refuses
    that (HTTP 400/422) it tries vLLM's `guided_json` body field, then `{"type": "json_object"}`, then no
    constraint at all. The first mode the server accepts is remembered for the rest of this instance's life
    (`schema_mode`), so only the first schema call pays for the refusals; a new instance probes again.
    Connection errors, timeouts, 429 and 5xx are retried `retries` times with exponential backoff; other 4xx
    answers and malformed bodies fail at once.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | SecretStr | None = None,
        timeout_s: float = 120.0,
        retries: int = 3,
        retry_wait_s: float = 0.5,
        max_tokens: int = 1024,
    ) -> None:
        super().__init__(model_name=model)
        if retries < 0 or timeout_s <= 0 or max_tokens < 1:
            raise LLMError(
                f"retries {retries}, timeout_s {timeout_s}, max_tokens {max_tokens} refused; "
                "allowed: retries >= 0, timeout_s > 0, max_tokens >= 1"
            )
        self._endpoint = OpenAICompatibleEndpoint(
            base_url, "/chat/completions", api_key=api_key, timeout_s=timeout_s, what="LLM", error_type=LLMError
        )
        self._url = self._endpoint.url
        self._model = model
        self._retries = retries
        self._retry_wait_s = retry_wait_s
        self._max_tokens = max_tokens
        # Per instance, not per process: two servers behind one process may differ. A race between threads
        # only costs a repeated refusal, never a wrong answer, so no lock.
        self._schema_mode: SchemaMode = SCHEMA_MODES[0]

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

    @property
    def schema_mode(self) -> SchemaMode:
        """How schema constraints are sent: the first mode this server accepted (initially 'json_schema')."""
        return self._schema_mode

    def _body(self, messages: list[LLMMessage], options: GenerationOptions) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "temperature": options.temperature,
            "max_tokens": options.max_tokens or self._max_tokens,
        }
        if options.seed is not None:
            body["seed"] = options.seed
        return body

    def _chat(self, messages: list[LLMMessage], constraint: OutputConstraint, options: GenerationOptions) -> ChatResult:
        body = self._body(messages, options)
        if constraint.kind == "schema":
            return self._chat_with_schema(body, constraint)
        if constraint.kind == "json":
            body["response_format"] = {"type": "json_object"}
        return self._parse(parse_chat, self._post_with_retries(body))

    def _chat_with_schema(self, body: dict[str, Any], constraint: OutputConstraint) -> ChatResult:
        refusals: list[str] = []
        for mode in SCHEMA_MODES[SCHEMA_MODES.index(self._schema_mode) :]:
            try:
                payload = self._post_with_retries(constrain_body(body, mode, constraint))
            except _Refused as exc:
                refusals.append(f"{mode}: {exc.detail}")
                continue
            self._schema_mode = mode
            return self._parse(parse_chat, payload)
        raise LLMError(
            f"LLM server {self._url} (model {self._model}) refused the request in every output mode "
            f"{list(SCHEMA_MODES)}: {' | '.join(refusals)}"
        )

    def first_token_logprobs(self, messages: Sequence[LLMMessage], candidates: Sequence[str]) -> dict[str, float]:
        """log P of each candidate as the first token, from the server's top-20 list (-inf when absent)."""
        wanted = check_candidates(candidates)
        body = self._body(check_messages(messages), GenerationOptions(temperature=0.0, max_tokens=1))
        body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        pairs = self._parse(parse_first_token_logprobs, self._post_with_retries(body))
        return merge_token_logprobs(pairs, wanted)

    def _parse(self, parser: Any, payload: Any) -> Any:
        try:
            return parser(payload)
        except LLMError as exc:
            raise LLMError(f"LLM server {self._url} (model {self._model}): {exc}") from exc

    def _post_with_retries(self, body: dict[str, Any]) -> Any:
        try:
            return call_with_retries(lambda: self._post(body), self._retries, self._retry_wait_s)
        except RetryableError as exc:
            raise LLMUnavailableError(
                f"LLM server {self._url} (model {self._model}) failed after {self._retries + 1} attempts: {exc}"
            ) from exc

    def _post(self, body: dict[str, Any]) -> Any:
        response = self._endpoint.post(body)
        status = response.status_code
        if status in _REFUSED:
            detail = f"HTTP {status}: {excerpt(response.text)}"
            raise _Refused(f"LLM server {self._url} refused the request for model {self._model!r}: {detail}", detail)
        if status >= 400:
            raise LLMError(
                f"LLM server {self._url} refused model {self._model!r}: HTTP {status}: {excerpt(response.text)}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise LLMError(
                f"LLM server {self._url} answered malformed JSON (HTTP {status}): {excerpt(response.text)!r}"
            ) from exc

    def close(self) -> None:
        self._endpoint.close()
