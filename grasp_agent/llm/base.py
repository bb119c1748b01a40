"""The LLM interface every backend implements.

It extends neo4j-graphrag's `LLMInterfaceV2` (so any of ours drops into a graphrag pipeline) with the two
calls the planner and the LLM-judge reranker need:

- `complete_json(messages, schema)`: text constrained to a JSON Schema where the backend can (grammar or
  guided decoding), greedy by default so that a plan is reproducible;
- `first_token_logprobs(messages, candidates)`: log P(first answer token is candidate), e.g. "yes"/"no".

Backends implement `_chat` (one completion under an `OutputConstraint`) and `first_token_logprobs`; `invoke`,
`ainvoke` and `complete_json` are written once here on top of `_chat`.
"""

from __future__ import annotations

import asyncio
import math
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Self

from neo4j_graphrag.llm.base import LLMInterfaceV2
from neo4j_graphrag.llm.types import LLMResponse, LLMUsage
from neo4j_graphrag.types import LLMMessage
from pydantic import BaseModel

from grasp_agent.llm.errors import LLMError

_ROLES = ("system", "user", "assistant")
_INVOKE_OPTIONS = ("temperature", "seed", "max_tokens")


@dataclass(frozen=True)
class OutputConstraint:
    """What the answer must look like: free text, any JSON object, or JSON valid under `schema`."""

    kind: Literal["text", "json", "schema"]
    schema: Mapping[str, Any] | None = None
    name: str = "response"

    @classmethod
    def for_schema(cls, schema: Mapping[str, Any], name: str | None = None) -> OutputConstraint:
        if not isinstance(schema, Mapping) or not schema:
            raise LLMError(f"JSON schema {schema!r} refused; allowed: a non-empty dict (e.g. Plan.json_schema())")
        title = schema.get("title")
        return cls("schema", schema, name or (title if isinstance(title, str) and title else "response"))

    @classmethod
    def from_response_format(cls, response_format: type[BaseModel] | Mapping[str, Any] | None) -> OutputConstraint:
        """Reads graphrag's `response_format`: a pydantic model class or an OpenAI-style dict."""
        if response_format is None:
            return cls("text")
        if isinstance(response_format, type) and issubclass(response_format, BaseModel):
            return cls.for_schema(response_format.model_json_schema(), response_format.__name__)
        kind = response_format.get("type") if isinstance(response_format, Mapping) else None
        if kind == "text":
            return cls("text")
        if kind == "json_object":
            return cls("json")
        if kind == "json_schema":
            spec = response_format.get("json_schema")
            if isinstance(spec, Mapping) and isinstance(spec.get("schema"), Mapping):
                return cls.for_schema(spec["schema"], spec.get("name") or None)
        raise LLMError(
            f"response_format {response_format!r} refused; allowed: None, a pydantic model class, "
            "{'type': 'text'}, {'type': 'json_object'}, or {'type': 'json_schema', 'json_schema': {'schema': {...}}}"
        )


@dataclass(frozen=True)
class GenerationOptions:
    """Sampling settings of one call; temperature 0 means greedy decoding."""

    temperature: float = 0.0
    seed: int | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.temperature <= 2.0:
            raise LLMError(f"temperature {self.temperature} refused; allowed: 0.0 to 2.0 (0 = greedy)")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise LLMError(f"max_tokens {self.max_tokens} refused; allowed: >= 1 or None")


@dataclass(frozen=True)
class ChatResult:
    """One completion's text and, when the backend reports them, its token counts."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    def to_response(self) -> LLMResponse:
        total = None
        if self.prompt_tokens is not None and self.completion_tokens is not None:
            total = self.prompt_tokens + self.completion_tokens
        usage = LLMUsage(request_tokens=self.prompt_tokens, response_tokens=self.completion_tokens, total_tokens=total)
        return LLMResponse(content=self.text, usage=usage)


def check_messages(messages: Sequence[LLMMessage]) -> list[LLMMessage]:
    """The messages as plain dicts, or an error naming the first malformed one."""
    if isinstance(messages, str) or not isinstance(messages, Sequence) or not messages:
        raise LLMError(f"messages {messages!r} refused; allowed: a non-empty list of {{'role', 'content'}} dicts")
    checked: list[LLMMessage] = []
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        content = message.get("content") if isinstance(message, Mapping) else None
        if role not in _ROLES or not isinstance(content, str):
            raise LLMError(f"message {index} {message!r} refused; allowed: role in {list(_ROLES)}, content a str")
        checked.append({"role": role, "content": content})
    return checked


def check_candidates(candidates: Sequence[str]) -> list[str]:
    if isinstance(candidates, str) or not candidates:
        raise LLMError(f"candidates {candidates!r} refused; allowed: a non-empty list of strings like ['yes', 'no']")
    cleaned = [c.strip() if isinstance(c, str) else c for c in candidates]
    if not all(isinstance(c, str) and c for c in cleaned) or len(set(cleaned)) != len(cleaned):
        raise LLMError(f"candidates {list(candidates)!r} refused; allowed: distinct non-blank strings")
    return cleaned


def logsumexp(values: Iterable[float]) -> float:
    items = [v for v in values if v != -math.inf]
    if not items:
        return -math.inf
    top = max(items)
    return top + math.log(sum(math.exp(v - top) for v in items))


def merge_token_logprobs(tokens: Iterable[tuple[str, float]], candidates: Sequence[str]) -> dict[str, float]:
    """log P(candidate) from (token text, logprob) pairs of the first position.

    Tokenizers spell one word as several first tokens ("yes", " yes"); those are disjoint events, so their
    probabilities add. Matching ignores surrounding whitespace but not case. A candidate no token spells
    gets -inf: the backend saw it nowhere in its top list, so its probability is below every listed one.
    """
    pairs = list(tokens)
    return {c: logsumexp(lp for token, lp in pairs if token.strip() == c) for c in candidates}


class GraspLLM(LLMInterfaceV2):
    """A graphrag LLM with schema-constrained JSON and first-token log-probabilities."""

    @property
    @abstractmethod
    def model_id(self) -> str:
        """Stable identifier of backend + model, e.g. 'openai:Qwen/Qwen2.5-7B-Instruct'."""

    @abstractmethod
    def _chat(self, messages: list[LLMMessage], constraint: OutputConstraint, options: GenerationOptions) -> ChatResult:
        """One completion of the (already checked) messages under `constraint`."""

    @abstractmethod
    def first_token_logprobs(self, messages: Sequence[LLMMessage], candidates: Sequence[str]) -> dict[str, float]:
        """log P(the answer's first token is c) for each candidate c (see `merge_token_logprobs`)."""

    def complete_json(
        self,
        messages: Sequence[LLMMessage],
        schema: Mapping[str, Any],
        *,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """The model's answer, constrained to `schema` where the backend supports it.

        The raw text comes back unparsed: backends without constrained decoding may wrap JSON in prose, which
        callers such as `parse_plan` already tolerate.
        """
        options = GenerationOptions(temperature=temperature, seed=seed, max_tokens=max_tokens)
        return self._chat(check_messages(messages), OutputConstraint.for_schema(schema), options).text

    def invoke(
        self,
        input: list[LLMMessage],  # graphrag names it `input`
        *,
        response_format: type[BaseModel] | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        unknown = sorted(set(kwargs) - set(_INVOKE_OPTIONS))
        if unknown:
            raise LLMError(f"invoke options {unknown} refused; allowed: {list(_INVOKE_OPTIONS)}")
        options = GenerationOptions(**kwargs)
        constraint = OutputConstraint.from_response_format(response_format)
        return self._chat(check_messages(input), constraint, options).to_response()

    async def ainvoke(
        self,
        input: list[LLMMessage],  # graphrag names it `input`
        *,
        response_format: type[BaseModel] | dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        # Both backends block (HTTP with retries, or a CPU-bound llama.cpp call under a lock); a worker
        # thread keeps the event loop free without a second, async copy of every code path.
        return await asyncio.to_thread(self.invoke, input, response_format=response_format, **kwargs)

    def close(self) -> None:
        """Releases the backend's resources; the default holds none."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
