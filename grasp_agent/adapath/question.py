"""What AdaPath needs to know about a question before it searches: where paths start (topic nodes), how long
they should be (hops) and what they should end at (answer type).

- Topic nodes: given by the caller (benchmark records carry `topic_ids`), else the entity table's best link
  of every anchor mention at or above `min_link_score` (the graph branch's extraction and linking, so the
  heuristic span finder or the LLM extractor as configured).
- Answer type: the type of the question's target mention ("which *genes*") when there is exactly one.
- Hops: unknown for the heuristic (the bank's vote decides); the LLM analyser asks the model for 1-3.

A wrong guess must not lose the answer: the search relaxes the hop and answer-type filters before it falls
back to unguided search (see path_search.find_paths).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from grasp_agent.graph_branch.entity_table import EntityTable
from grasp_agent.graph_branch.mentions import MentionRole
from grasp_agent.llm.base import GraspLLM
from grasp_agent.llm.errors import LLMError

NodeId = str | int
TopicSource = Literal["given", "linked", "none"]
DEFAULT_MIN_LINK_SCORE = 0.8  # cosine of mention and node name (Settings.adapath_min_link_score)


@dataclass(frozen=True)
class Topic:
    node_id: NodeId
    name: str
    label: str
    score: float  # link cosine; 1.0 when the caller gave the id


@dataclass(frozen=True)
class QuestionAnalysis:
    topics: tuple[Topic, ...]
    topic_source: TopicSource
    hops: int | None
    answer_label: str | None
    analyser: str  # "heuristic" or the LLM's model id
    notes: tuple[str, ...] = ()

    @property
    def topic_ids(self) -> list[NodeId]:
        return [topic.node_id for topic in self.topics]


class HopGuesser(Protocol):
    name: str

    def guess(self, question: str, labels: Sequence[str]) -> tuple[int | None, str | None]:
        """(hops or None, answer label or None)."""


def linked_topics(table: EntityTable, min_score: float = DEFAULT_MIN_LINK_SCORE) -> list[Topic]:
    """The best link of each anchor mention that reaches `min_score`, best first, each node once."""
    topics: dict[NodeId, Topic] = {}
    for row in table.rows:
        best = row.best
        if row.mention.role is not MentionRole.ANCHOR or best is None or best.score < min_score:
            continue
        if best.node_id not in topics:
            topics[best.node_id] = Topic(best.node_id, best.name, best.label, best.score)
    return sorted(topics.values(), key=lambda topic: -topic.score)


def target_label(table: EntityTable) -> str | None:
    """The answer type when the question names exactly one ("which genes ..."), else None."""
    types = table.target_types()
    return types[0] if len(types) == 1 else None


class LLMHopGuesser:
    """Asks the LLM for the hop count and the answer type, constrained to 1-3 and the SKB's labels."""

    def __init__(self, llm: GraspLLM) -> None:
        self._llm = llm
        self.name = llm.model_id

    def guess(self, question: str, labels: Sequence[str]) -> tuple[int | None, str | None]:
        schema = {
            "type": "object",
            "additionalProperties": False,
            "required": ["hops", "answer_type"],
            "properties": {
                "hops": {"type": "integer", "minimum": 1, "maximum": 3},
                "answer_type": {"enum": list(labels)},
            },
        }
        messages: list[Any] = [
            {
                "role": "system",
                "content": (
                    "You read questions about a knowledge graph with node types "
                    + ", ".join(labels)
                    + ". Say how many "
                    "relations a path needs from the entity the question names to the answer (1, 2 or 3) and which "
                    "node type the answer is. Reply with JSON only."
                ),
            },
            {"role": "user", "content": question},
        ]
        text = self._llm.complete_json(messages, schema, max_tokens=40)
        try:
            payload = json.loads(text[text.index("{") : text.rindex("}") + 1])
        except ValueError as error:
            raise LLMError(f"hop guess is not JSON: {text[:200]!r}") from error
        hops = payload.get("hops")
        label = payload.get("answer_type")
        return (
            hops if isinstance(hops, int) and 1 <= hops <= 3 else None,
            label if isinstance(label, str) and label in labels else None,
        )


def analyse_question(
    question: str,
    table: EntityTable | None,
    labels: Sequence[str],
    *,
    topic_ids: Sequence[NodeId] | None = None,
    hop_guesser: HopGuesser | None = None,
    min_link_score: float = DEFAULT_MIN_LINK_SCORE,
    given_topics: Sequence[Topic] | None = None,
) -> QuestionAnalysis:
    """Topics (given, else linked), hops and answer type. An LLM failure is a note, not an error: the
    heuristic's answer stands. `given_topics`: the given ids as found in the SKB (with names and labels)."""
    notes: list[str] = []
    if topic_ids:
        found = {topic.node_id: topic for topic in given_topics or ()}
        topics = tuple(
            found.get(node_id) or Topic(node_id, str(node_id), "", 1.0) for node_id in dict.fromkeys(topic_ids)
        )
        source: TopicSource = "given"
    else:
        topics = tuple(linked_topics(table, min_link_score)) if table is not None else ()
        source = "linked" if topics else "none"
        if not topics:
            notes.append(f"no anchor mention links to a node with cosine >= {min_link_score}")
    hops: int | None = None
    answer = target_label(table) if table is not None else None
    analyser = "heuristic"
    if hop_guesser is not None:
        try:
            hops, guessed = hop_guesser.guess(question, labels)
            answer = answer or guessed  # the extractor's target type, when it has one, is read off the words
            analyser = hop_guesser.name
        except LLMError as error:
            notes.append(f"hop/answer-type guess failed ({error}); no hop filter")
    return QuestionAnalysis(topics, source, hops, answer, analyser, tuple(notes))
