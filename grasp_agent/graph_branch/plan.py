"""The plan an LLM (or the heuristic planner) writes: the one JSON contract shared with the Java procedures.

    {"anchors": [{"var": "a1", "type": "Phenotype", "text": "epileptic spasm", "match_mode": "name"}],
     "hops": [{"source": "a1", "relation": "HAS_PHENOTYPE", "target": "t"}],
     "target": {"var": "t", "type": "Disease"},
     "relevance_text": "early-onset forms", "n_cand": 50, "risk": "low"}

An optional `"order": {"property": "population", "descending": true}` ranks the targets by a quantity they hold
instead of by relevance text ("the most populous city of X"); an optional `"name_contains": ["spastic"]` puts the
targets whose name holds those words (at word starts, any case) first ('diseases named "spastic"').

A hop reads its relation either way round unless it says `direction`: "out" (stored source -> target), "in"
(stored target -> source) or "any" (the default, as in the GRASP paper); asymmetric relations such as IS_A need
it to tell subtypes from parents. A variable that is neither an anchor nor the target is an intermediate; its type is
inferred from the schema, or given by the hop's optional `source_type`/`target_type` when ambiguous. A plan
without hops ranks the target type's nodes by relevance text. `grasp.plan.validate` checks a plan against
the live graph; this model checks only its shape, and publishes the JSON Schema used for constrained decoding.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from enum import Enum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from grasp_agent.errors import GraspError
from grasp_agent.identifiers import ANCHORED_IDENTIFIER_PATTERN
from grasp_agent.ranking import Risk


# The Java side builds `$bindings_<var>` and `b_<var>` from variables, hence the alphabet and the b_ ban.
def _not_generated_name(value: str) -> str:
    if value.startswith("b_"):
        raise ValueError(f"variable '{value}' starts with 'b_', which is reserved for generated names")
    return value


Variable = Annotated[
    str, Field(pattern=r"^[a-z][a-z0-9_]{0,15}$", description="e.g. a1, x, t"), AfterValidator(_not_generated_name)
]
TypeName = Annotated[str, Field(pattern=ANCHORED_IDENTIFIER_PATTERN)]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("a name word must not be blank")
    return value


class PlanError(GraspError):
    """A plan is not well-formed JSON of the plan shape; `.errors` lists each problem."""

    def __init__(self, message: str, errors: list[str]) -> None:
        super().__init__(message)
        self.errors = errors


class MatchMode(str, Enum):
    NAME = "name"
    DOC = "doc"


class Anchor(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    var: Variable
    type: TypeName
    text: str = Field(min_length=1, max_length=500, description="The mention, written like a node name")
    match_mode: MatchMode = MatchMode.NAME


class Direction(str, Enum):
    """How a hop's stored relationship runs relative to the hop's source -> target."""

    OUT = "out"
    IN = "in"
    ANY = "any"


class Hop(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: Variable
    relation: TypeName
    target: Variable
    source_type: TypeName | None = None
    target_type: TypeName | None = None
    direction: Direction = Direction.ANY

    def stored_from(self, variable: str) -> bool | None:
        """Whether the stored relationship starts at `variable` (one of the hop's ends); None when undirected."""
        if self.direction is Direction.ANY:
            return None
        return (variable == self.source) == (self.direction is Direction.OUT)


class Target(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    var: Variable
    type: TypeName


class PropertyOrder(BaseModel):
    """Rank the targets by a quantity they hold ("the most populous city of X"): largest first when `descending`.
    Targets without a number there come last; a better-matched target stays ahead of a larger one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    property: TypeName = Field(description="A property holding a number (or a number written as text)")
    descending: bool = True


class Plan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    anchors: tuple[Anchor, ...] = ()
    hops: tuple[Hop, ...] = ()
    target: Target
    relevance_text: str = Field(
        default="", max_length=2000, description="What the hops cannot express; ranks targets densely"
    )
    # Defaults are grasp.plan.validate's, so a plan means the same on both sides.
    n_cand: int = Field(default=50, ge=0, description="The planner's estimate of how many candidates the plan yields")
    risk: Risk = Field(default=Risk.LOW, description="How likely the graph ranking misleads (for fusion)")
    order: PropertyOrder | None = Field(default=None, description="Rank by a quantity instead of relevance_text")
    name_contains: tuple[Annotated[str, Field(min_length=1, max_length=100), AfterValidator(_not_blank)], ...] = Field(
        default=(), max_length=4, description="Words the target's name holds (a quoted keyword); such targets first"
    )

    @model_validator(mode="after")
    def _variables_are_consistent(self) -> Plan:
        anchor_vars = [anchor.var for anchor in self.anchors]
        if len(set(anchor_vars)) != len(anchor_vars):
            raise ValueError(f"anchor variables must be distinct; got {anchor_vars}")
        if self.hops and self.target.var in anchor_vars:
            raise ValueError(f"the target variable '{self.target.var}' is also an anchor; with hops they must differ")
        if not self.hops and not self.relevance_text and not self.anchors:
            raise ValueError("a plan without hops ranks by relevance_text or an anchor's text; both are empty")
        return self

    def to_json(self) -> str:
        # An undirected hop is written without `direction`: the same JSON as before directions existed.
        payload = self.model_dump(mode="json", exclude_none=True)
        if not payload["name_contains"]:
            del payload["name_contains"]  # likewise a plan asking nothing of names
        for hop in payload["hops"]:
            if hop.get("direction") == Direction.ANY.value:
                del hop["direction"]
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema for constrained decoding (vLLM guided_json, llama.cpp grammars)."""
        return cls.model_json_schema()


MAX_LLM_ANCHORS = 6


def plan_json_schema(
    labels: Sequence[str],
    relations: Sequence[str],
    anchor_choices: Sequence[tuple[str, str, MatchMode]] | None = None,
    target_types: Sequence[str] | None = None,
    quantities: Sequence[str] = (),
) -> dict[str, Any]:
    """Plan's JSON Schema with node types and relations narrowed to one SKB's, so that constrained decoding
    cannot invent a type (the commonest failure of small planners).

    With `anchor_choices` ((type, text, match mode), e.g. from an entity table) an anchor must be one of them and the
    target variable is "t": small models otherwise anchor on whatever name the prompt shows them last.
    `target_types` (the types the question asks for, when the extractor found them) narrows the target's type.
    `quantities` (properties holding numbers) are what an `order` may rank by; without any the schema has no
    `order`, so a model cannot rank by a property the SKB lacks.
    """
    schema = copy.deepcopy(Plan.json_schema())
    defs = schema["$defs"]
    if anchor_choices is not None:
        variable = defs["Anchor"]["properties"]["var"]
        # Bounded arrays: a small model otherwise repeats one anchor until it runs out of tokens.
        distinct = len(dict.fromkeys(anchor_choices))
        schema["properties"]["anchors"]["maxItems"] = min(distinct, MAX_LLM_ANCHORS)
        schema["properties"]["hops"]["maxItems"] = 2 * min(distinct, MAX_LLM_ANCHORS) + 2
        if anchor_choices:
            defs["Anchor"] = {
                "anyOf": [
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["var", "type", "text", "match_mode"],
                        "properties": {
                            "var": variable,
                            "type": {"const": label},
                            "text": {"const": text},
                            "match_mode": {"const": mode.value},
                        },
                    }
                    for label, text, mode in dict.fromkeys(anchor_choices)
                ]
            }
        defs["Target"]["properties"]["var"] = {"const": "t"}
    type_enum = {"enum": list(labels), "type": "string"}
    if "properties" in defs["Anchor"]:
        defs["Anchor"]["properties"]["type"] = dict(type_enum, title="Type")
        defs["Anchor"]["required"] = ["var", "type", "text", "match_mode"]
    defs["Target"]["properties"]["type"] = {"enum": list(target_types or labels), "type": "string", "title": "Type"}
    defs["Hop"]["properties"]["relation"] = {"enum": list(relations), "type": "string", "title": "Relation"}
    if quantities:
        defs["PropertyOrder"]["properties"]["property"] = {"enum": list(quantities), "type": "string"}
    else:
        del schema["properties"]["order"], defs["PropertyOrder"]
    # name words are the heuristic planner's for now: not yet measured with the LLM planners
    del schema["properties"]["name_contains"]
    for end in ("source_type", "target_type"):
        defs["Hop"]["properties"][end]["anyOf"][0] = type_enum
    # Required in this order: grammar-constrained small models otherwise skip straight to the target and
    # return a plan without anchors or hops, which is valid but throws the graph away.
    schema["required"] = ["anchors", "hops", "target", "relevance_text", "n_cand", "risk"]
    return schema


def parse_plan(text: str) -> Plan:
    """A Plan from LLM output: the first JSON object in `text` (models like to add prose around it)."""
    start = text.find("{")
    if start < 0:
        raise PlanError("the planner's answer contains no JSON object", ["no '{' in the answer"])
    try:
        payload, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as error:
        raise PlanError(f"the planner's answer is not valid JSON: {error}", [str(error)]) from error
    try:
        return Plan.model_validate(payload)
    except ValidationError as error:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or 'plan'}: {e['msg']}" for e in error.errors()]
        raise PlanError(f"the plan does not have the plan shape: {'; '.join(problems)}", problems) from error
