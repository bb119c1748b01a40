"""Entity extraction with an LLM: the extraction prompt, output constrained to the mention-list schema."""

from __future__ import annotations

import json

from pydantic import ValidationError

from grasp_agent.graph_branch.mentions import Mention, MentionList, mention_list_schema
from grasp_agent.graph_branch.prompts import extraction_messages
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError
from grasp_agent.skb.context import SkbContext


class LLMMentionExtractor:
    def __init__(self, llm: GraspLLM, context: SkbContext) -> None:
        self._llm = llm
        self._context = context
        self._schema = mention_list_schema(context.labels)
        self.name = f"llm:{llm.model_id}"

    def extract(self, question: str) -> list[Mention]:
        raw = self._llm.complete_json(extraction_messages(question, self._context), self._schema)
        return parse_mentions(raw)


def parse_mentions(raw: str) -> list[Mention]:
    """Mentions from the model's answer; an unparsable answer is an LLMError naming what was wrong."""
    start = raw.find("{")
    try:
        payload, _ = json.JSONDecoder().raw_decode(raw[start:] if start >= 0 else raw)
        return list(MentionList.model_validate(payload).mentions)
    except (json.JSONDecodeError, ValidationError) as error:
        raise LLMError(f"the extraction answer is not a mention list: {error}; answer: {raw[:200]!r}") from error
