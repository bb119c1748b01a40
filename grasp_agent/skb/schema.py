"""The SKB schema: node types with their text fields, relation types with the label pairs they connect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from grasp_agent.errors import SchemaError
from grasp_agent.identifiers import ANCHORED_IDENTIFIER_PATTERN

# Labels, relation types and property names become Cypher identifiers (backticked, never formatted from
# user input), so they are restricted to a safe alphabet up front.
Identifier = Annotated[str, Field(pattern=ANCHORED_IDENTIFIER_PATTERN)]

ID_PROPERTY = "id"
LOAD_GENERATION_PROPERTY = "grasp_load"

# Names grasp writes itself: a schema using one would collide with the loader's bookkeeping (a `GraspMeta`
# node type made the loader page through its own progress node forever) or overwrite stored documents and
# vectors. Labels starting with these prefixes are ours (GraspMeta, AdaPathBank, AdaPathQuery, ...).
RESERVED_LABEL_PREFIXES = ("Grasp", "AdaPath")
RESERVED_PROPERTIES = frozenset({ID_PROPERTY, "name", "doc", "doc_hash", LOAD_GENERATION_PROPERTY})
RESERVED_PROPERTY_SUFFIX = "_embedding"


def reserved_label(label: str) -> bool:
    return label.lower().startswith(tuple(prefix.lower() for prefix in RESERVED_LABEL_PREFIXES))


def reserved_property(name: str) -> bool:
    return name in RESERVED_PROPERTIES or name.lower().endswith(RESERVED_PROPERTY_SUFFIX)


class NodeType(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    label: Identifier
    name_field: Identifier = "name"
    text_fields: tuple[Identifier, ...] = Field(
        default=(), description="Properties rendered into the node document, in order"
    )
    description: str = ""
    aliases: tuple[str, ...] = Field(
        default=(), description="Other words a question uses for this type, e.g. 'symptom'"
    )
    synonym_fields: tuple[Identifier, ...] = Field(
        default=(),
        description="Properties holding other names of a node (a string or a list of strings); the name "
        "dictionary matches them in questions as it matches names",
    )

    @model_validator(mode="after")
    def _no_reserved_names(self) -> NodeType:
        if reserved_label(self.label):
            raise ValueError(
                f"node type label {self.label!r} is reserved: labels starting with "
                f"{list(RESERVED_LABEL_PREFIXES)} (any case) hold grasp's own bookkeeping"
            )
        reserved = [name for name in self.text_fields if reserved_property(name)]
        if reserved:
            raise ValueError(
                f"text fields {reserved} of {self.label} are reserved: grasp stores "
                f"{sorted(RESERVED_PROPERTIES)} and '*{RESERVED_PROPERTY_SUFFIX}' itself; rename them"
            )
        if len(set(self.text_fields)) != len(self.text_fields):
            raise ValueError(f"text fields of {self.label} repeat a name: {list(self.text_fields)}")
        return self


class RelationPair(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: Identifier
    target: Identifier


# A relation phrase: lower-case words, as a sentence between its two nodes says them ("is located in").
RelationPhrase = Annotated[str, Field(pattern=r"^[a-z][a-z'-]*( [a-z][a-z'-]*){0,7}$")]
# A role noun: what one end of a relation is called as seen from the other, singular ("capital", "parent term").
RelationNoun = Annotated[str, Field(pattern=r"^[a-z][a-z'-]*( [a-z][a-z'-]*){0,3}$")]


class RelationType(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Identifier
    pairs: tuple[RelationPair, ...] = Field(min_length=1)
    description: str = ""
    phrases: tuple[RelationPhrase, ...] = Field(
        default=(),
        description="How a sentence says the relation with the stored source first, in the singular present: "
        "'is located in' ('X is located in Y' for X-[:LOCATED_IN]->Y); the question generator words steps with "
        "them and the planner reads them beside the relation's name",
    )
    inverse_phrases: tuple[RelationPhrase, ...] = Field(
        default=(),
        description="The same with the stored target first: 'contains' ('Y contains X')",
    )
    source_nouns: tuple[RelationNoun, ...] = Field(
        default=(),
        description="What the stored source is called as seen from the target, singular: 'capital' for "
        "City-[:CAPITAL_OF]->Country ('the capital of Y', \"Y's capital\"), 'director' for Person-[:DIRECTED]->Film",
    )
    target_nouns: tuple[RelationNoun, ...] = Field(
        default=(),
        description="What the stored target is called as seen from the source: 'neighbour' for BORDERS, "
        "'parent term' for IS_A ('the parent terms of X')",
    )

    @model_validator(mode="after")
    def _not_reserved(self) -> RelationType:
        if reserved_label(self.type):
            raise ValueError(
                f"relation type {self.type!r} is reserved: types starting with "
                f"{list(RESERVED_LABEL_PREFIXES)} (any case) link grasp's own bookkeeping"
            )
        return self


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
                        raise ValueError(
                            f"relation {relation.type} connects unknown node type '{end}'; known: {labels}"
                        )
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
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as error:
            raise SchemaError(f"{path}: not UTF-8 text ({error}); save the schema as UTF-8") from error
        return cls.from_json(text, str(path))

    def dumps_compact(self) -> str:
        return json.dumps(self.model_dump(mode="json"), separators=(",", ":"))
