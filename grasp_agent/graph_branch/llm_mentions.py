"""Entity extraction with an LLM: the extraction prompt, output constrained to the mention-list schema."""

from __future__ import annotations

import json

from neo4j_graphrag.types import LLMMessage
from pydantic import ValidationError

from grasp_agent.graph_branch.extraction_demos import DemoSelector
from grasp_agent.graph_branch.mentions import Mention, MentionList, mention_list_schema
from grasp_agent.graph_branch.prompts import extraction_messages
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError
from grasp_agent.skb.context import SkbContext


class LLMMentionExtractor:
    """`demos`: picks this SKB's worked examples for each question (training questions like it); without it the
    prompt has only the fixed demonstrations of other schemas."""

    def __init__(self, llm: GraspLLM, context: SkbContext, demos: DemoSelector | None = None) -> None:
        self._llm = llm
        self._context = context
        self._demos = demos
        self._schema = mention_list_schema(context.labels)
        self.name = f"llm:{llm.model_id}"

    def messages(self, question: str) -> list[LLMMessage]:
        """The extraction prompt for `question`, demonstrations included."""
        demos = self._demos.nearest(question) if self._demos is not None else []
        return extraction_messages(question, self._context, demos)

    def extract(self, question: str) -> list[Mention]:
        return parse_mentions(self._llm.complete_json(self.messages(question), self._schema))


def parse_mentions(raw: str) -> list[Mention]:
    """Mentions from the model's answer; an unparsable answer is an LLMError naming what was wrong."""
    start = raw.find("{")
    try:
        payload, _ = json.JSONDecoder().raw_decode(raw[start:] if start >= 0 else raw)
        return list(MentionList.model_validate(payload).mentions)
    except (json.JSONDecodeError, ValidationError) as error:
        raise LLMError(f"the extraction answer is not a mention list: {error}; answer: {raw[:200]!r}") from error
