"""Entity mentions of a question, as the extractor (LLM or span finder) reports them."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from grasp_agent.graph_branch.plan import MatchMode, TypeName


class MentionRole(str, Enum):
    ANCHOR = "anchor"  # a named thing the answer is connected to ("epileptic spasm", "NSF")
    TARGET = "target"  # the kind of thing asked for ("which diseases")
    ATTRIBUTE = "attribute"  # a property only text can check ("early-onset", "in adults")
    CONTEXT = "context"  # a named thing the question sets aside ("leaving X aside", "I already know about X")


class Mention(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1, max_length=200, description="Written like a node name")
    types: tuple[TypeName, ...] = Field(default=(), max_length=2, description="1-2 likely node types")
    role: MentionRole = MentionRole.ANCHOR
    nested_in: int | None = Field(default=None, ge=0, description="Index of the mention this one is part of")
    match_mode: MatchMode = Field(
        default=MatchMode.NAME,
        description="doc: the text describes the entity "
        "(its definition) instead of naming it; linked through the document index",
    )


class MentionList(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    mentions: tuple[Mention, ...] = Field(default=(), max_length=16)

    @model_validator(mode="after")
    def _nesting_points_at_other_mentions(self) -> MentionList:
        for index, mention in enumerate(self.mentions):
            if mention.nested_in is not None and not (
                0 <= mention.nested_in < len(self.mentions) and mention.nested_in != index
            ):
                raise ValueError(f"mention {index} is nested_in {mention.nested_in}, which is not another mention")
        return self


def mention_list_schema(labels: Sequence[str]) -> dict[str, Any]:
    """MentionList's JSON Schema with `types` narrowed to this SKB's labels, so constrained decoding cannot
    invent a type."""
    schema = copy.deepcopy(MentionList.model_json_schema())
    types = schema["$defs"]["Mention"]["properties"]["types"]
    types["items"] = {"enum": list(labels)}
    return schema
