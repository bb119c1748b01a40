"""The SKB schema: node types with their text fields, relation types with the label pairs they connect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from grasp_agent.errors import SchemaError

# Labels, relation types and property names become Cypher identifiers (backticked, never formatted from
# user input), so they are restricted to a safe alphabet up front.
Identifier = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]

ID_PROPERTY = "id"


class NodeType(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    label: Identifier
    name_field: Identifier = "name"
    text_fields: tuple[Identifier, ...] = Field(default=(), description="Properties rendered into the node document, in order")
    description: str = ""
    aliases: tuple[str, ...] = Field(default=(), description="Other words a question uses for this type, e.g. 'symptom'")


class RelationPair(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: Identifier
    target: Identifier


class RelationType(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Identifier
    pairs: tuple[RelationPair, ...] = Field(min_length=1)
    description: str = ""


class SkbSchema(BaseModel):
    """What a knowledge base holds; also the text the planner prompt describes the SKB with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Identifier
    description: str = ""
    node_types: tuple[NodeType, ...] = Field(min_length=1)
    relation_types: tuple[RelationType, ...] = ()

    @model_validator(mode="after")
    def _relations_connect_known_types(self) -> SkbSchema:
        labels = [node_type.label for node_type in self.node_types]
        if len(set(labels)) != len(labels):
            raise ValueError(f"node type labels must be unique; got {labels}")
        types = [relation.type for relation in self.relation_types]
        if len(set(types)) != len(types):
            raise ValueError(f"relation types must be unique; got {types}")
        for relation in self.relation_types:
            for pair in relation.pairs:
                for end in (pair.source, pair.target):
                    if end not in labels:
                        raise ValueError(f"relation {relation.type} connects unknown node type '{end}'; known: {labels}")
        return self

    def node_type(self, label: str) -> NodeType:
        for node_type in self.node_types:
            if node_type.label == label:
                return node_type
        raise SchemaError(f"unknown node type '{label}'; known: {[n.label for n in self.node_types]}")

    def relation_type(self, type_: str) -> RelationType:
        for relation in self.relation_types:
            if relation.type == type_:
                return relation
        raise SchemaError(f"unknown relation type '{type_}'; known: {[r.type for r in self.relation_types]}")

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    @classmethod
    def from_json(cls, text: str, source: str = "<schema>") -> SkbSchema:
        try:
            return cls.model_validate_json(text)
        except ValidationError as error:
            raise SchemaError(f"{source}: invalid SKB schema: {error}") from error

    @classmethod
    def from_file(cls, path: Path) -> SkbSchema:
        if not path.is_file():
            raise SchemaError(f"schema file not found: {path}")
        return cls.from_json(path.read_text(), str(path))

    def dumps_compact(self) -> str:
        return json.dumps(self.model_dump(mode="json"), separators=(",", ":"))
