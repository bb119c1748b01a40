"""Extraction demonstrations from the training split: GRASP shows its extractor worked examples of the knowledge
base at hand, the training questions most like the one asked, each with the mentions it should yield.

A demonstration is derived from a labelled training question (its text, the nodes it is about and its answers)
without an LLM: each topic node whose name the question contains is an anchor written as the question writes
it; a topic node the question does not name, when exactly one quoted passage is left, is that passage as a
doc-mode anchor (an entity described, not named); the answers' type is the target, worded as the question words
it. A question whose topics cannot all be placed gives no demonstration (a wrong example teaches the wrong
thing). Demonstrations are stored as JSONL (`grasp train demos`), one per line with the question id it came
from, and read back by the LLM extractor, which picks the nearest few by embedding cosine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grasp_agent.embed.base import GraspEmbedder
from grasp_agent.errors import DataFileError
from grasp_agent.graph_branch.mentions import Mention, MentionList, MentionRole
from grasp_agent.graph_branch.plan import MatchMode
from grasp_agent.graph_branch.quotes import quoted_spans
from grasp_agent.graph_branch.schema_paths import singular_type_word, target_mention
from grasp_agent.skb.schema import SkbSchema

DEFAULT_DEMO_COUNT = 3
MENTION_CHARS = 200  # Mention.text's bound


class ExtractionDemo(BaseModel):
    """One worked example: a training question and the mentions the extractor should report for it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_id: str = Field(min_length=1, description="The training question it was derived from")
    question: str = Field(min_length=1)
    answer: MentionList


@dataclass(frozen=True)
class LabelledNode:
    """What a demonstration needs to know of a node: its type and its name."""

    label: str
    name: str


def derive_demo(
    source_id: str,
    question: str,
    topic_ids: Sequence[str],
    answer_ids: Sequence[str],
    nodes: Mapping[str, LabelledNode],
    schema: SkbSchema,
) -> ExtractionDemo | None:
    """The demonstration a labelled question gives, or None when its topics cannot all be placed in its text
    (or it has none, or its answers are of several types or unknown)."""
    answer_labels = {nodes[a].label for a in answer_ids if a in nodes}
    if not topic_ids or len(answer_labels) != 1 or any(a not in nodes for a in answer_ids):
        return None
    (answer_label,) = answer_labels
    lowered = question.casefold()
    anchors: list[tuple[int, Mention]] = []
    unnamed: list[LabelledNode] = []
    for topic in topic_ids:
        node = nodes.get(topic)
        if node is None:
            return None
        position = _name_position(lowered, node.name.casefold())
        if position is None:
            unnamed.append(node)
            continue
        written = question[position : position + len(node.name)]
        anchors.append((position, Mention(text=written, types=(node.label,), role=MentionRole.ANCHOR)))
    if unnamed:
        free = [(s, e) for s, e in quoted_spans(question) if not any(s <= p < e for p, _ in anchors)]
        if len(unnamed) != 1 or len(free) != 1:
            return None
        start, end = free[0]
        passage = question[start + 1 : end - 1].strip()
        if not passage or len(passage) > MENTION_CHARS:
            return None
        described = Mention(text=passage, types=(unnamed[0].label,), match_mode=MatchMode.DOC)
        anchors.append((start, described))
    asked = target_mention(question, schema)
    mentions = [mention for _, mention in sorted(anchors, key=lambda item: item[0])]
    if asked is not None and asked[0] == answer_label:
        target = singular_type_word(asked[1], schema)  # the rules ask for node-name wording: singular
        mentions.insert(0, Mention(text=target, types=(answer_label,), role=MentionRole.TARGET))
    return ExtractionDemo(source_id=source_id, question=question, answer=MentionList(mentions=tuple(mentions)))


def _name_position(lowered_question: str, lowered_name: str) -> int | None:
    """Where a name stands in the question as whole words (never inside a longer word)."""
    match = re.search(rf"(?<!\w){re.escape(lowered_name)}(?!\w)", lowered_question)
    return match.start() if match else None


def write_demos(path: Path, demos: Sequence[ExtractionDemo]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for demo in demos:
            handle.write(demo.model_dump_json(exclude_defaults=True) + "\n")


def read_demos(path: Path) -> list[ExtractionDemo]:
    """The demonstrations of a file `write_demos` wrote; a malformed line is an error naming it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise DataFileError(path, None, f"cannot read the extraction demonstrations: {error}") from error
    demos = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            demos.append(ExtractionDemo.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as error:
            raise DataFileError(path, number, f"not an extraction demonstration: {error}") from error
    return demos


class DemoSelector:
    """The demonstrations nearest to a question by embedding cosine (the questions embedded once, up front)."""

    def __init__(self, demos: Sequence[ExtractionDemo], embedder: GraspEmbedder, count: int = DEFAULT_DEMO_COUNT):
        if count < 1:
            raise ValueError(f"demonstration count must be at least 1; got {count}")
        self._demos = list(demos)
        self._embedder = embedder
        self._count = count
        vectors = embedder.embed_texts([demo.question for demo in self._demos]) if self._demos else np.zeros((0, 1))
        self._vectors = _unit_rows(np.asarray(vectors, dtype=np.float32))

    def __len__(self) -> int:
        return len(self._demos)

    def nearest(self, question: str) -> list[ExtractionDemo]:
        """Up to `count` demonstrations, most similar first; never the question itself (a training question
        asked again would otherwise be shown its own answer)."""
        if not self._demos:
            return []
        query = _unit_rows(np.asarray([self._embedder.embed_query(question)], dtype=np.float32))[0]
        order = np.argsort(-(self._vectors @ query), kind="stable")
        asked = question.strip().casefold()
        chosen = [self._demos[i] for i in order if self._demos[i].question.strip().casefold() != asked]
        return chosen[: self._count]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)
